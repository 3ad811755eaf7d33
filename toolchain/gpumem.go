package toolchain

import (
	"fmt"
	"regexp"
	"strings"
)

// DeviceMemoryOptions configures DeviceMemory.
type DeviceMemoryOptions struct {
	// Entry is the entry function; NumOutputs its trailing out-parameters.
	Entry      string
	NumOutputs int
	// DeviceBuffers keeps the entry's parameters as they are (the caller
	// passes device pointers); otherwise the entry takes host pointers and
	// copies them in and out.
	DeviceBuffers bool
	// Vendor picks the sqrt intrinsic (see exactIntrinsics); empty: NVIDIA.
	Vendor GPUVendor
	// HostLoops lets a host function keep a parallel loop nest that did
	// not become a kernel (TileGPULoops left it, --gpu-fallback): the
	// buffers it reads and writes are copied to host memory before it and
	// the written ones back after it (hostLoop).
	HostLoops bool
}

// DeviceMemory rewrites a module that gpu-kernel-outlining has left (host
// functions on buffers launching kernels, one gpu.module per kernel) so
// that the kernels touch device memory only:
//
//   - every memref.alloc/dealloc of a host function becomes gpu.alloc /
//     gpu.dealloc, and memref.copy becomes gpu.memcpy;
//   - every memref.get_global (a constant) is copied to a fresh device
//     buffer where it is read, freed before the function returns;
//   - the entry (unless DeviceBuffers) is renamed ENTRY__niro_device and
//     a new ENTRY with the same parameters allocates a device buffer per
//     parameter, copies the inputs in, calls it and copies the outputs
//     back (the vendor pipeline inlines the call);
//   - the kernels move into one gpu.module named ENTRY_kernels, each
//     kernel named after the module it came from, so the binary is one
//     PTX or code object.
//
// An op left on the host that would read or write a buffer (a load, a
// store, a loop nest that did not become a kernel) is an error naming the
// op and the function: it would touch device memory from the host.
func DeviceMemory(mlir string, o DeviceMemoryOptions) (string, error) {
	items, err := splitTopLevel(mlir)
	if err != nil {
		return "", err
	}
	kmod := o.Entry + "_kernels"
	names := map[string]bool{}
	for _, it := range items {
		if it.kind == "gpu.module" {
			names[it.name] = true
		}
	}
	for names[kmod] {
		kmod += "_"
	}
	var b strings.Builder
	b.WriteString(items[0].text) // everything before the first item (maps, module line)
	var kernels []string
	foundEntry := false
	for _, it := range items[1 : len(items)-1] {
		switch {
		case it.kind == "gpu.module":
			k, err := renameKernel(it)
			if err != nil {
				return "", err
			}
			kernels = append(kernels, exactIntrinsics(k, o.Vendor))
		case it.kind == "func.func" && it.hasBody:
			text, err := deviceFunc(it, kmod, o.HostLoops)
			if err != nil {
				return "", err
			}
			if it.name == o.Entry {
				foundEntry = true
				if !o.DeviceBuffers {
					w, err := hostEntry(it, o.NumOutputs)
					if err != nil {
						return "", err
					}
					text = strings.Replace(text, "func.func @"+o.Entry+"(", "func.func private @"+o.Entry+"__niro_device(", 1) + w
				}
			}
			b.WriteString(text)
		default:
			b.WriteString(it.text)
		}
	}
	if !foundEntry {
		return "", fmt.Errorf("gpu: entry function @%s not found in the outlined module", o.Entry)
	}
	if len(kernels) > 0 {
		b.WriteString("  gpu.module @" + kmod + " {\n")
		for _, k := range kernels {
			b.WriteString(k)
		}
		b.WriteString("  }\n")
	}
	b.WriteString(items[len(items)-1].text)
	return b.String(), nil
}

// topItem is one operation directly inside the builtin.module, or (first
// and last) the text before and after them.
type topItem struct {
	kind, name string // "func.func", "gpu.module", "memref.global", ...; the symbol
	hasBody    bool
	text       string // its lines, each ending in \n
	line       int    // first line, 1-based
}

var topSymRE = regexp.MustCompile(`^  ([a-z_]+\.[a-z_]+)(?: "?[a-z]+"?)*(?: @([\w$.-]+))?`)

// splitTopLevel splits mlir-opt's printed module into its top-level ops by
// indentation: an op at two spaces runs to the line "  }" when it opens a
// region.
func splitTopLevel(mlir string) ([]topItem, error) {
	lines := strings.SplitAfter(mlir, "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "module") {
			start = i
			break
		}
	}
	if start < 0 {
		return nil, fmt.Errorf("gpu: no module in the outlined MLIR")
	}
	items := []topItem{{text: strings.Join(lines[:start+1], "")}}
	i := start + 1
	for i < len(lines) {
		l := lines[i]
		if strings.HasPrefix(l, "}") {
			items = append(items, topItem{text: strings.Join(lines[i:], "")})
			return items, nil
		}
		m := topSymRE.FindStringSubmatch(l)
		if m == nil {
			return nil, fmt.Errorf("gpu: line %d of the outlined MLIR: unexpected %q", i+1, strings.TrimSpace(l))
		}
		it := topItem{kind: m[1], name: m[2], line: i + 1}
		if strings.HasSuffix(strings.TrimRight(l, "\n"), "{") {
			j := i + 1
			for j < len(lines) && strings.TrimRight(lines[j], "\n") != "  }" {
				j++
			}
			if j == len(lines) {
				return nil, fmt.Errorf("gpu: line %d of the outlined MLIR: %s @%s never closes", i+1, it.kind, it.name)
			}
			it.hasBody = true
			it.text = strings.Join(lines[i:j+1], "")
			i = j + 1
		} else {
			it.text = l
			i++
		}
		items = append(items, it)
	}
	return nil, fmt.Errorf("gpu: the outlined MLIR's module never closes")
}

var gpuFuncRE = regexp.MustCompile(`(?m)^    gpu\.func @([\w$.-]+)\(`)

// renameKernel returns the body of a gpu.module holding one kernel, the
// kernel renamed after the module, at the indentation of the merged module.
func renameKernel(it topItem) (string, error) {
	lines := strings.SplitAfter(it.text, "\n")
	body := strings.Join(lines[1:len(lines)-2], "") // drop "gpu.module @X {" and "  }"
	if n := len(gpuFuncRE.FindAllString(body, -1)); n != 1 {
		return "", fmt.Errorf("gpu: gpu.module @%s holds %d gpu.func, want one kernel", it.name, n)
	}
	return gpuFuncRE.ReplaceAllString(body, "    gpu.func @"+it.name+"("), nil
}

var (
	opNameRE    = regexp.MustCompile(`^\s*(?:%[\w#:, %]+ = )?"?([a-z_]+(?:\.[a-z_0-9]+)+)`)
	allocRE     = regexp.MustCompile(`^(\s*)(%[\w]+) = memref\.alloc\(\)(?: \{[^}]*\})? : (memref<[^,>]*>)$`)
	deallocRE   = regexp.MustCompile(`^(\s*)memref\.dealloc (%[\w]+) : (memref<[^,>]*>)$`)
	getGlobalRE = regexp.MustCompile(`^(\s*)(%[\w]+) = memref\.get_global (@[\w$.-]+) : (memref<[^,>]*>)$`)
	copyRE      = regexp.MustCompile(`^(\s*)memref\.copy (%[\w]+), (%[\w]+) : (memref<[^,>]*>) to (memref<[^,>]*>)$`)
	returnRE    = regexp.MustCompile(`^(\s*)(?:func\.)?return\b`)
	launchRE    = regexp.MustCompile(`gpu\.launch_func\s+@([\w$.-]+)::@[\w$.-]+`)
)

// hostOK lists the dialects and ops a host function may keep: they never
// dereference a buffer.
var hostOK = map[string]bool{
	"arith": true, "index": true, "math": true, "scf": true, "cf": true, "affine.apply": true,
	"func.call": true, "func.return": true, "return": true, "call": true, "gpu.launch_func": true,
	"memref.view": true, "memref.subview": true, "memref.reinterpret_cast": true, "memref.cast": true,
	"memref.expand_shape": true, "memref.collapse_shape": true, "memref.dim": true,
	"memref.extract_strided_metadata": true, "memref.extract_aligned_pointer_as_index": true,
	"ub.poison": true,
}

// deviceFunc rewrites one host function's buffers to device memory.
func deviceFunc(it topItem, kmod string, hostLoops bool) (string, error) {
	lines := strings.SplitAfter(it.text, "\n")
	var b strings.Builder
	b.WriteString(lines[0])
	type global struct{ name, typ string }
	var globals []global
	n := 0
	body := lines[1:]
	for i := 0; i < len(body); i++ {
		raw := body[i]
		l := strings.TrimRight(raw, "\n")
		lineNo := it.line + 1 + i
		if m := hostParallelRE.FindStringSubmatch(l); m != nil && hostLoops {
			end := i + 1
			for end < len(body) && !strings.HasPrefix(body[end], m[1]+"}") {
				end++
			}
			if end == len(body) {
				return "", fmt.Errorf("gpu: line %d of the outlined MLIR, in @%s: %s never closes", lineNo, it.name, m[2])
			}
			if m[2] == "scf.for" && !hostLoopNest(body[i+1:end]) {
				// A host loop around launches, not a loop nest to copy.
				b.WriteString(raw)
				continue
			}
			w, err := hostLoop(body[i:end+1], it.name, lineNo, n)
			if err != nil {
				return "", err
			}
			n++
			b.WriteString(w)
			i = end
			continue
		}
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "}") || strings.HasPrefix(t, "^") {
			b.WriteString(raw)
			continue
		}
		if m := allocRE.FindStringSubmatch(l); m != nil {
			fmt.Fprintf(&b, "%s%s = gpu.alloc () : %s\n", m[1], m[2], m[3])
			continue
		}
		if m := deallocRE.FindStringSubmatch(l); m != nil {
			fmt.Fprintf(&b, "%sgpu.dealloc %s : %s\n", m[1], m[2], m[3])
			continue
		}
		if m := getGlobalRE.FindStringSubmatch(l); m != nil {
			host := fmt.Sprintf("%%niro_host%d", n)
			n++
			fmt.Fprintf(&b, "%s%s = memref.get_global %s : %s\n", m[1], host, m[3], m[4])
			fmt.Fprintf(&b, "%s%s = gpu.alloc () : %s\n", m[1], m[2], m[4])
			fmt.Fprintf(&b, "%sgpu.memcpy %s, %s : %s, %s\n", m[1], m[2], host, m[4], m[4])
			globals = append(globals, global{m[2], m[4]})
			continue
		}
		if m := copyRE.FindStringSubmatch(l); m != nil {
			fmt.Fprintf(&b, "%sgpu.memcpy %s, %s : %s, %s\n", m[1], m[3], m[2], m[5], m[4])
			continue
		}
		if m := returnRE.FindStringSubmatch(l); m != nil {
			for _, g := range globals {
				fmt.Fprintf(&b, "%sgpu.dealloc %s : %s\n", m[1], g.name, g.typ)
			}
			b.WriteString(raw)
			continue
		}
		m := opNameRE.FindStringSubmatch(l)
		if m == nil {
			return "", fmt.Errorf("gpu: line %d of the outlined MLIR, in @%s: cannot read %q", lineNo, it.name, t)
		}
		op := m[1]
		dialect, _, _ := strings.Cut(op, ".")
		if !hostOK[op] && !hostOK[dialect] {
			what := "it would touch device memory from the host"
			if strings.HasPrefix(op, "memref.alloc") || strings.HasPrefix(op, "memref.copy") || strings.HasPrefix(op, "memref.get_global") {
				what = "a dynamic shape or a strided layout has no device copy yet (bind shapes with --dim or --shape)"
			}
			return "", fmt.Errorf("gpu: function @%s keeps %s on the host (line %d of the outlined MLIR: %s): %s; this model cannot run on the GPU yet (--gpu-fallback keeps only loop nests whose math needs a device library on the host)", it.name, op, lineNo, t, what)
		}
		b.WriteString(launchRE.ReplaceAllString(raw, "gpu.launch_func @"+kmod+"::@$1"))
	}
	return b.String(), nil
}

var (
	hostParallelRE = regexp.MustCompile(`^(\s*)(scf\.parallel|scf\.for) `)
	bufUseRE       = regexp.MustCompile(`memref\.(load|store) [^\n]*?(%[\w]+)\[[^\]\n]*\] : (memref<[^>\n]*>)`)
	hostLoopOpOK   = map[string]bool{"arith": true, "math": true, "scf": true, "index": true, "affine.apply": true, "memref.load": true, "memref.store": true}
)

// hostLoopNest reports whether a host scf.for's body is a loop nest over
// buffers (loads or stores, and only ops hostLoop can keep on the host).
func hostLoopNest(lines []string) bool {
	access := false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "}") {
			continue
		}
		m := opNameRE.FindStringSubmatch(l)
		if m == nil {
			return false
		}
		dialect, _, _ := strings.Cut(m[1], ".")
		if !hostLoopOpOK[m[1]] && !hostLoopOpOK[dialect] {
			return false
		}
		access = access || m[1] == "memref.load" || m[1] == "memref.store"
	}
	return access
}

// hostLoop returns a parallel loop nest kept on the host (--gpu-fallback)
// with the device buffers it loads from or stores to replaced by host
// copies: each is allocated with memref.alloc and copied from the device
// before the loop; those it stores to are copied back after it; all are
// freed. (gpu-async-region waits for the copies before the loop runs.)
func hostLoop(lines []string, fn string, lineNo, n int) (string, error) {
	text := strings.Join(lines, "")
	for k, l := range lines[1:] {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "}") {
			continue
		}
		m := opNameRE.FindStringSubmatch(l)
		if m == nil {
			return "", fmt.Errorf("gpu: line %d of the outlined MLIR, in @%s: cannot read %q", lineNo+1+k, fn, t)
		}
		dialect, _, _ := strings.Cut(m[1], ".")
		if !hostLoopOpOK[m[1]] && !hostLoopOpOK[dialect] {
			return "", fmt.Errorf("gpu: function @%s: a loop nest kept on the host (--gpu-fallback) has %s (line %d of the outlined MLIR: %s), which has no host copy", fn, m[1], lineNo+1+k, t)
		}
	}
	type buf struct {
		name, typ, host string
		stored          bool
	}
	var bufs []*buf
	byName := map[string]*buf{}
	for _, m := range bufUseRE.FindAllStringSubmatch(text, -1) {
		b := byName[m[2]]
		if b == nil {
			if strings.Contains(m[3], "?") || strings.Contains(m[3], ",") {
				return "", fmt.Errorf("gpu: function @%s: a loop nest kept on the host (--gpu-fallback, line %d of the outlined MLIR) uses %s of type %s: only static buffers with the plain layout have a host copy", fn, lineNo, m[2], m[3])
			}
			b = &buf{name: m[2], typ: m[3], host: fmt.Sprintf("%%niro_hostbuf%d_%d", n, len(bufs))}
			byName[m[2]] = b
			bufs = append(bufs, b)
		}
		b.stored = b.stored || m[1] == "store"
	}
	ind := regexp.MustCompile(`^\s*`).FindString(lines[0])
	var w strings.Builder
	for _, b := range bufs {
		fmt.Fprintf(&w, "%s%s = memref.alloc() : %s\n", ind, b.host, b.typ)
		fmt.Fprintf(&w, "%sgpu.memcpy %s, %s : %s, %s\n", ind, b.host, b.name, b.typ, b.typ)
		text = regexp.MustCompile(regexp.QuoteMeta(b.name)+`\b`).ReplaceAllString(text, b.host)
	}
	w.WriteString(text)
	for _, b := range bufs {
		if b.stored {
			fmt.Fprintf(&w, "%sgpu.memcpy %s, %s : %s, %s\n", ind, b.name, b.host, b.typ, b.typ)
		}
	}
	for _, b := range bufs {
		fmt.Fprintf(&w, "%smemref.dealloc %s : %s\n", ind, b.host, b.typ)
	}
	return w.String(), nil
}

var (
	funcHeadRE = regexp.MustCompile(`^  func\.func @([\w$.-]+)\((.*)\)( attributes \{.*\})? \{$`)
	argRE      = regexp.MustCompile(`^(%[\w]+): (.+?)(?: \{.*\})?$`)
)

// hostEntry returns the host-pointer entry for a function: a device buffer
// per memref parameter, the inputs copied in, the call, the outputs copied
// back, the buffers freed.
func hostEntry(it topItem, numOutputs int) (string, error) {
	head := strings.TrimRight(strings.SplitN(it.text, "\n", 2)[0], " ")
	m := funcHeadRE.FindStringSubmatch(head)
	if m == nil {
		return "", fmt.Errorf("gpu: cannot read the entry's signature %q", strings.TrimSpace(head))
	}
	var names, types []string
	if strings.TrimSpace(m[2]) != "" {
		for _, a := range splitArgs(m[2]) {
			am := argRE.FindStringSubmatch(strings.TrimSpace(a))
			if am == nil {
				return "", fmt.Errorf("gpu: cannot read parameter %q of @%s", a, m[1])
			}
			names, types = append(names, am[1]), append(types, am[2])
		}
	}
	if numOutputs > len(names) {
		return "", fmt.Errorf("gpu: @%s has %d parameters, fewer than its %d outputs", m[1], len(names), numOutputs)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  func.func @%s(", m[1])
	for i := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s: %s", names[i], types[i])
	}
	b.WriteString(") {\n")
	dev := make([]string, len(names))
	firstOut := len(names) - numOutputs
	for i, typ := range types {
		dev[i] = names[i]
		if !strings.HasPrefix(typ, "memref<") {
			continue
		}
		if strings.Contains(typ, "?") || strings.Contains(typ, ",") {
			return "", fmt.Errorf("gpu: parameter %d of @%s has type %s: a GPU entry needs static shapes with the plain layout (bind shapes with --dim or --shape)", i, m[1], typ)
		}
		dev[i] = fmt.Sprintf("%%niro_dev%d", i)
		fmt.Fprintf(&b, "    %s = gpu.alloc () : %s\n", dev[i], typ)
		if i < firstOut {
			fmt.Fprintf(&b, "    gpu.memcpy %s, %s : %s, %s\n", dev[i], names[i], typ, typ)
		}
	}
	fmt.Fprintf(&b, "    func.call @%s__niro_device(%s) : (%s) -> ()\n", m[1], strings.Join(dev, ", "), strings.Join(types, ", "))
	for i := firstOut; i < len(names); i++ {
		if dev[i] != names[i] {
			fmt.Fprintf(&b, "    gpu.memcpy %s, %s : %s, %s\n", names[i], dev[i], types[i], types[i])
		}
	}
	for i := range names {
		if dev[i] != names[i] {
			fmt.Fprintf(&b, "    gpu.dealloc %s : %s\n", dev[i], types[i])
		}
	}
	b.WriteString("    return\n  }\n")
	return b.String(), nil
}

// splitArgs splits a parameter list at the commas outside <>, (), [] and {}.
func splitArgs(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<', '(', '[', '{':
			depth++
		case '>', ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

package toolchain

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Grid limits: CUDA and HIP take up to 2^31-1 blocks on grid x and 65,535
// on y and z.
const (
	gridLimitX  = 1<<31 - 1
	gridLimitYZ = 65535
)

// GPUTileShape is how one parallel loop nest becomes a launch: which axes
// are tiled onto blocks and threads (and on which hardware dimension), and
// which run as sequential loops inside each thread.
type GPUTileShape struct {
	// Axes lists, per loop axis (outermost first), its tile; Threads is 0
	// for an axis that is not tiled.
	Axes []GPUAxis
	// Rest, when its Threads is 1, puts the untiled axes of a 16 x 16
	// shape together on grid z, one block per point of them (row-major);
	// otherwise they run as in-order scf.for loops inside the thread.
	Rest GPUAxis
}

// GPUAxis is one loop axis of a GPUTileShape.
type GPUAxis struct {
	Threads int    // tile width (threads a block along this axis); 0: sequential
	Dim     string // "x", "y" or "z": the block and thread dimension
	// Extent is the axis' trip count (-1: not a constant); Blocks the grid
	// size along Dim (-1: computed at run time); Strided when the axis has
	// more tiles than the grid dimension holds, so each block loops over
	// tiles Blocks apart.
	Extent, Blocks int64
	Strided        bool
}

// Threads returns the block's thread count (x * y * z).
func (s GPUTileShape) Threads() int {
	n := 1
	for _, a := range s.Axes {
		if a.Threads > 0 {
			n *= a.Threads
		}
	}
	return n
}

// ChooseGPUTile picks the tiling of a parallel loop nest with the given
// extents (outermost first; -1 for one that is not a constant), as
// docs/gpu.md ("Kernel shape") describes:
//
//   - rank 1: 256 threads on x;
//   - rank 2: 8 x 32, the inner axis on x (32 wide), the outer on y;
//   - rank 3: 1 x 8 x 32, axes 2, 1, 0 on x, y, z;
//   - rank 4 and up, or a rank-2/3 nest whose grid y or z would need more
//     than 65,535 blocks: a 16 x 16 tile over the first two axes, the
//     outermost on grid x (thread y), the second on grid y (thread x), the
//     other axes together on grid z (one block per point of them; Rest),
//     or, when one of their extents is not a constant, as in-order loops
//     inside the thread.
//
// An axis whose tiles still do not fit its grid dimension (or whose extent
// is not known) is strided: the grid holds at most the limit and each block
// loops over the tiles.
func ChooseGPUTile(extents []int64) GPUTileShape {
	r := len(extents)
	tiles := func(n int64, t int) int64 {
		if n < 0 {
			return -1
		}
		return (n + int64(t) - 1) / int64(t)
	}
	// An extent not known while compiling is taken to fit: its axis strides.
	fits := func(n int64, t int) bool { return tiles(n, t) <= gridLimitYZ }
	axes := make([]GPUAxis, r)
	switch {
	case r == 1:
		axes[0] = GPUAxis{Threads: 256, Dim: "x"}
	case r == 2 && fits(extents[0], 8):
		axes[0] = GPUAxis{Threads: 8, Dim: "y"}
		axes[1] = GPUAxis{Threads: 32, Dim: "x"}
	case r == 3 && fits(extents[0], 1) && fits(extents[1], 8):
		axes[0] = GPUAxis{Threads: 1, Dim: "z"}
		axes[1] = GPUAxis{Threads: 8, Dim: "y"}
		axes[2] = GPUAxis{Threads: 32, Dim: "x"}
	default:
		// 16 x 16 over the first two axes, the outermost on grid x.
		axes[0] = GPUAxis{Threads: 16, Dim: "x"}
		axes[1] = GPUAxis{Threads: 16, Dim: "y"}
	}
	for i := range axes {
		a := &axes[i]
		a.Extent = extents[i]
		if a.Threads == 0 {
			a.Blocks = 0
			continue
		}
		limit := int64(gridLimitYZ)
		if a.Dim == "x" {
			limit = gridLimitX
		}
		a.Blocks = tiles(a.Extent, a.Threads)
		if a.Blocks < 0 || a.Blocks > limit {
			a.Strided = true
			if a.Blocks > limit {
				a.Blocks = limit
			}
		}
	}
	shape := GPUTileShape{Axes: axes}
	if r > 2 && axes[0].Threads == 16 {
		rest := int64(1)
		for _, n := range extents[2:] {
			if n < 0 {
				return shape
			}
			rest *= n
		}
		shape.Rest = GPUAxis{Threads: 1, Dim: "z", Extent: rest, Blocks: rest}
		if rest > gridLimitYZ {
			shape.Rest.Blocks, shape.Rest.Strided = gridLimitYZ, true
		}
	}
	return shape
}

// In the 16 x 16 shape the outermost axis is on grid x but on thread y: the
// second axis, closer to contiguous memory, takes thread x.
func threadDim(s GPUTileShape, i int) string {
	if i == len(s.Axes) {
		return "z"
	}
	if len(s.Axes) >= 2 && s.Axes[0].Threads == 16 && s.Axes[1].Threads == 16 {
		return map[int]string{0: "y", 1: "x"}[i]
	}
	return s.Axes[i].Dim
}

var (
	parallelRE  = regexp.MustCompile(`^(\s*)scf\.parallel \(([^)]*)\) = \(([^)]*)\) to \(([^)]*)\) step \(([^)]*)\) \{$`)
	indexCstRE  = regexp.MustCompile(`^\s*(%[\w]+) = arith\.constant (-?\d+) : index$`)
	funcStartRE = regexp.MustCompile(`^  func\.func `)
)

// TileGPULoops rewrites every outermost scf.parallel of a module that
// convert-linalg-to-parallel-loops has left into a mapped pair of parallel
// loops (blocks, then threads) with a bounds guard, tiled by
// [ChooseGPUTile]; convert-parallel-loops-to-gpu then turns each into a
// gpu.launch. A parallel loop nested in another (a scheduled contraction's
// per-thread block) becomes a nest of scf.for inside the thread, in order.
// keepOnHost, when not nil, is asked about each loop's body: a loop it
// returns true for is left unmapped (it stays a host loop nest).
func TileGPULoops(mlir string, keepOnHost func(body string) bool) (string, error) {
	lines := strings.Split(mlir, "\n")
	consts := map[string]int64{}
	var out []string
	n := 0
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if funcStartRE.MatchString(l) {
			consts = map[string]int64{}
		}
		if m := indexCstRE.FindStringSubmatch(l); m != nil {
			v, _ := strconv.ParseInt(m[2], 10, 64)
			consts[m[1]] = v
		}
		m := parallelRE.FindStringSubmatch(l)
		var body []string
		end := -1
		switch {
		case m != nil:
			if end = closeOf(lines, i, m[1]); end < 0 {
				return "", fmt.Errorf("gpu: line %d: scf.parallel never closes", i+1)
			}
			body = lines[i+1 : end]
		default:
			// A computation with no parallel axis (a reduction to a scalar,
			// a rank-0 element-wise op) runs on one thread: it becomes a
			// parallel loop of one point.
			first, last, ok := serialNest(lines, i)
			if !ok {
				out = append(out, l)
				continue
			}
			ind := lines[first][:len(lines[first])-len(strings.TrimLeft(lines[first], " "))]
			u := fmt.Sprintf("%%niro_u%d_", n)
			out = append(out, ind+u+"0 = arith.constant 0 : index", ind+u+"1 = arith.constant 1 : index")
			consts[u+"0"], consts[u+"1"] = 0, 1
			m = []string{"", ind, u + "iv", u + "0", u + "1", u + "1"}
			body = append(append([]string{}, lines[first:last+1]...), ind+"  scf.reduce")
			end = last
			if keepOnHost != nil && keepOnHost(strings.Join(body, "\n")) {
				// Left as it is: DeviceMemory gives a host scf.for nest host
				// copies of its buffers (a straight-line run is refused).
				out = append(out, lines[i:end+1]...)
				i = end
				continue
			}
		}
		if keepOnHost != nil && keepOnHost(strings.Join(body, "\n")) {
			out = append(out, lines[i:end+1]...)
			i = end
			continue
		}
		tiled, err := tileParallel(m, body, consts, n)
		if err != nil {
			return "", fmt.Errorf("gpu: line %d: %w", i+1, err)
		}
		n++
		out = append(out, tiled...)
		i = end
	}
	return strings.Join(out, "\n"), nil
}

var (
	hostForRE    = regexp.MustCompile(`^(\s*)scf\.for %[\w]+ = \S+ to \S+ step \S+ \{$`)
	serialOpRE   = regexp.MustCompile(`^\s*(?:(%[\w]+) = )?(memref\.load|memref\.store|arith\.[a-z_]+|math\.[a-z_]+)\b`)
	ssaDefRE     = regexp.MustCompile(`^\s*(%[\w]+)(?::\d+)? = `)
	funcOrEndRE  = regexp.MustCompile(`^  (?:func\.func |\}$)`)
	memAccessRE  = regexp.MustCompile(`\bmemref\.(?:load|store)\b`)
	hostOnlyOpRE = regexp.MustCompile(`\b(?:scf\.parallel|gpu\.|func\.call|memref\.(?:alloc|dealloc|copy|get_global|subview|expand_shape|collapse_shape|reinterpret_cast|cast))\b`)
)

// serialNest reports whether line i starts a computation with no parallel
// axis that reads or writes buffers: an scf.for nest (without results)
// whose body loads or stores and holds no other buffer op, or a run of
// loads, arithmetic and stores ending in a store; its first and last lines.
// A run defining a value used after it (a loaded condition the host
// branches on) is not one: that stays on the host.
func serialNest(lines []string, i int) (int, int, bool) {
	if fm := hostForRE.FindStringSubmatch(lines[i]); fm != nil {
		end := closeOf(lines, i, fm[1])
		if end < 0 {
			return 0, 0, false
		}
		region := strings.Join(lines[i+1:end], "\n")
		if !memAccessRE.MatchString(region) || hostOnlyOpRE.MatchString(region) {
			return 0, 0, false
		}
		return i, end, true
	}
	m := serialOpRE.FindStringSubmatch(lines[i])
	if m == nil || strings.HasPrefix(m[2], "arith.constant") {
		return 0, 0, false
	}
	ind := len(lines[i]) - len(strings.TrimLeft(lines[i], " "))
	last := -1
	j := i
	for ; j < len(lines); j++ {
		l := lines[j]
		mm := serialOpRE.FindStringSubmatch(l)
		if mm == nil || mm[2] == "arith.constant" || len(l)-len(strings.TrimLeft(l, " ")) != ind {
			break
		}
		if mm[2] == "memref.store" {
			last = j
		}
	}
	if last < 0 || !memAccessRE.MatchString(strings.Join(lines[i:last+1], "\n")) {
		return 0, 0, false
	}
	// No value of the run may be used after it.
	var defs []string
	for _, l := range lines[i : last+1] {
		if d := ssaDefRE.FindStringSubmatch(l); d != nil {
			defs = append(defs, d[1])
		}
	}
	for k := last + 1; k < len(lines) && !funcOrEndRE.MatchString(lines[k]); k++ {
		for _, d := range defs {
			if regexp.MustCompile(regexp.QuoteMeta(d) + `\b`).MatchString(lines[k]) {
				return 0, 0, false
			}
		}
	}
	return i, last, true
}

// closeOf returns the line closing the region opened at line i, whose op
// is indented by indent.
func closeOf(lines []string, i int, indent string) int {
	for j := i + 1; j < len(lines); j++ {
		if strings.HasPrefix(lines[j], indent+"}") {
			return j
		}
		if t := strings.TrimLeft(lines[j], " "); t != "" && len(lines[j])-len(t) <= len(indent) {
			return -1
		}
	}
	return -1
}

// tileParallel returns the mapped loops for one scf.parallel (m its header
// match, body its lines up to the closing brace).
func tileParallel(m []string, body []string, consts map[string]int64, n int) ([]string, error) {
	ind := m[1]
	ivs, lbs, ubs, steps := splitList(m[2]), splitList(m[3]), splitList(m[4]), splitList(m[5])
	r := len(ivs)
	if len(lbs) != r || len(ubs) != r || len(steps) != r {
		return nil, fmt.Errorf("cannot read scf.parallel bounds")
	}
	if len(body) == 0 || strings.TrimSpace(body[len(body)-1]) != "scf.reduce" {
		return nil, fmt.Errorf("scf.parallel with reductions or results has no GPU mapping")
	}
	inner, err := sequentialize(body[:len(body)-1])
	if err != nil {
		return nil, err
	}
	inner = unrollJamBlocks(promoteAccumulators(inner), consts, n)
	extents := make([]int64, r)
	for d := range extents {
		extents[d] = -1
		lb, ok1 := consts[lbs[d]]
		ub, ok2 := consts[ubs[d]]
		st, ok3 := consts[steps[d]]
		if ok1 && ok2 && ok3 && st > 0 {
			extents[d] = max(0, (ub-lb+st-1)/st)
		}
	}
	for _, e := range extents {
		if e == 0 {
			return nil, nil // no iteration: no kernel (a launch of no blocks is an error)
		}
	}
	shape := ChooseGPUTile(extents)
	p := fmt.Sprintf("%%niro_p%d_", n)
	var o []string
	emit := func(depth int, f string, a ...any) {
		o = append(o, ind+strings.Repeat("  ", depth)+fmt.Sprintf(f, a...))
	}
	emit(0, "%sc0 = arith.constant 0 : index", p)
	emit(0, "%sc1 = arith.constant 1 : index", p)
	if shape.Rest.Threads > 0 {
		for d, a := range shape.Axes {
			if a.Threads == 0 {
				emit(0, "%sx%d = arith.constant %d : index", p, d, a.Extent)
			}
		}
	}
	// Axis r (one past the last) stands for the untiled axes on grid z.
	ax := func(d int) GPUAxis {
		if d == r {
			return shape.Rest
		}
		return shape.Axes[d]
	}
	var tiled []int
	for d := 0; d <= r; d++ {
		a := ax(d)
		if a.Threads == 0 {
			continue
		}
		tiled = append(tiled, d)
		// n_d: the trip count; t_d: the tile; nb_d: tiles; g_d: grid size.
		if a.Extent >= 0 {
			emit(0, "%sn%d = arith.constant %d : index", p, d, a.Extent)
		} else {
			emit(0, "%sw%d = arith.subi %s, %s : index", p, d, ubs[d], lbs[d])
			emit(0, "%sn%d = arith.ceildivui %sw%d, %s : index", p, d, p, d, steps[d])
		}
		emit(0, "%st%d = arith.constant %d : index", p, d, a.Threads)
		if a.Extent >= 0 && !a.Strided {
			emit(0, "%sg%d = arith.constant %d : index", p, d, a.Blocks)
			continue
		}
		limit := int64(gridLimitYZ)
		if a.Dim == "x" {
			limit = gridLimitX
		}
		if a.Extent >= 0 {
			emit(0, "%snb%d = arith.constant %d : index", p, d, (a.Extent+int64(a.Threads)-1)/int64(a.Threads))
			emit(0, "%sg%d = arith.constant %d : index", p, d, a.Blocks)
			continue
		}
		emit(0, "%snb%d = arith.ceildivui %sn%d, %st%d : index", p, d, p, d, p, d)
		emit(0, "%slim%d = arith.constant %d : index", p, d, limit)
		// At least one block: a launch of none is an error, and an empty
		// extent's one block strides over no tiles.
		emit(0, "%sgm%d = arith.minui %snb%d, %slim%d : index", p, d, p, d, p, d)
		emit(0, "%sg%d = arith.maxui %sgm%d, %sc1 : index", p, d, p, d, p)
	}
	list := func(f func(d int) string) string {
		var s []string
		for _, d := range tiled {
			s = append(s, f(d))
		}
		return strings.Join(s, ", ")
	}
	zero := list(func(int) string { return p + "c0" })
	one := list(func(int) string { return p + "c1" })
	emit(0, "scf.parallel (%s) = (%s) to (%s) step (%s) {", list(func(d int) string { return fmt.Sprintf("%sb%d", p, d) }),
		zero, list(func(d int) string { return fmt.Sprintf("%sg%d", p, d) }), one)
	emit(1, "scf.parallel (%s) = (%s) to (%s) step (%s) {", list(func(d int) string { return fmt.Sprintf("%sth%d", p, d) }),
		zero, list(func(d int) string { return fmt.Sprintf("%st%d", p, d) }), one)
	depth := 2
	for _, d := range tiled {
		blk := fmt.Sprintf("%sb%d", p, d)
		if ax(d).Strided {
			emit(depth, "scf.for %sk%d = %sb%d to %snb%d step %sg%d {", p, d, p, d, p, d, p, d)
			blk = fmt.Sprintf("%sk%d", p, d)
			depth++
		}
		emit(depth, "%sm%d = arith.muli %s, %st%d : index", p, d, blk, p, d)
		emit(depth, "%sj%d = arith.addi %sm%d, %sth%d : index", p, d, p, d, p, d)
		emit(depth, "%sin%d = arith.cmpi ult, %sj%d, %sn%d : index", p, d, p, d, p, d)
	}
	guard := fmt.Sprintf("%sin%d", p, tiled[0])
	for k, d := range tiled[1:] {
		emit(depth, "%sand%d = arith.andi %s, %sin%d : i1", p, k, guard, p, d)
		guard = fmt.Sprintf("%sand%d", p, k)
	}
	emit(depth, "scf.if %s {", guard)
	depth++
	closes := 0
	if shape.Rest.Threads > 0 {
		// The untiled axes from grid z's linear index, innermost last.
		idx := fmt.Sprintf("%sj%d", p, r)
		for d := r - 1; d >= 0 && shape.Axes[d].Threads == 0; d-- {
			q := idx
			if d > 0 && shape.Axes[d-1].Threads == 0 {
				emit(depth, "%sr%d = arith.remui %s, %sx%d : index", p, d, idx, p, d)
				emit(depth, "%sq%d = arith.divui %s, %sx%d : index", p, d, idx, p, d)
				q, idx = fmt.Sprintf("%sr%d", p, d), fmt.Sprintf("%sq%d", p, d)
			}
			emit(depth, "%ss%d = arith.muli %s, %s : index", p, d, q, steps[d])
			emit(depth, "%s = arith.addi %s, %ss%d : index", ivs[d], lbs[d], p, d)
		}
	}
	for d, a := range shape.Axes {
		if a.Threads == 0 && shape.Rest.Threads > 0 {
			continue
		}
		if a.Threads == 0 {
			emit(depth, "scf.for %s = %s to %s step %s {", ivs[d], lbs[d], ubs[d], steps[d])
			closes++
			continue
		}
		emit(depth, "%ss%d = arith.muli %sj%d, %s : index", p, d, p, d, steps[d])
		emit(depth, "%s = arith.addi %s, %ss%d : index", ivs[d], lbs[d], p, d)
	}
	o = append(o, inner...)
	for range closes {
		emit(depth, "}")
	}
	depth--
	emit(depth, "}")
	for d := len(tiled) - 1; d >= 0; d-- {
		if ax(tiled[d]).Strided {
			depth--
			emit(depth, "}")
		}
	}
	mapping := func(kind string, dim func(d int) string) string {
		return list(func(d int) string {
			return fmt.Sprintf("#gpu.loop_dim_map<processor = %s_%s, map = (d0) -> (d0), bound = (d0) -> (d0)>", kind, dim(d))
		})
	}
	emit(2, "scf.reduce")
	emit(1, "} {mapping = [%s]}", mapping("thread", func(d int) string { return threadDim(shape, d) }))
	emit(1, "scf.reduce")
	emit(0, "} {mapping = [%s]}", mapping("block", func(d int) string { return ax(d).Dim }))
	return o, nil
}

// sequentialize turns every scf.parallel in lines (a loop body) into a
// nest of scf.for in the same order, dropping its scf.reduce: a thread
// runs it in order.
func sequentialize(lines []string) ([]string, error) {
	var out []string
	for i := 0; i < len(lines); i++ {
		m := parallelRE.FindStringSubmatch(lines[i])
		if m == nil {
			out = append(out, lines[i])
			continue
		}
		end := closeOf(lines, i, m[1])
		if end < 0 {
			return nil, fmt.Errorf("a nested scf.parallel never closes")
		}
		body := lines[i+1 : end]
		if len(body) == 0 || strings.TrimSpace(body[len(body)-1]) != "scf.reduce" {
			return nil, fmt.Errorf("a nested scf.parallel with reductions has no GPU mapping")
		}
		ivs, lbs, ubs, steps := splitList(m[2]), splitList(m[3]), splitList(m[4]), splitList(m[5])
		for d := range ivs {
			out = append(out, fmt.Sprintf("%sscf.for %s = %s to %s step %s {", m[1], ivs[d], lbs[d], ubs[d], steps[d]))
		}
		inner, err := sequentialize(body[:len(body)-1])
		if err != nil {
			return nil, err
		}
		out = append(out, inner...)
		for range ivs {
			out = append(out, m[1]+"}")
		}
		i = end
	}
	return out, nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

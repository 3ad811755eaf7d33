package emit

import (
	"fmt"
	"strings"

	"github.com/niro-dev/niro/niro"
)

// loop lowers Loop to scf.for (no condition) or scf.while (a condition),
// with the carried values and one buffer per scan output as iteration
// arguments. The bound is the smallest of the trip count (at least 0), the
// scan inputs' extents and the static extents of the scan outputs. Each
// iteration reads its scan-input slices with tensor.extract_slice and
// writes its scan-output slices into the buffers with tensor.insert_slice,
// which bufferization does in place. A scan output with a dynamic
// iteration axis is the first N slices of a buffer of the bound's size
// (no condition) or of a buffer that grows as the loop runs (a
// condition), N the iterations run.
func (fe *funcEmitter) loop(op *niro.Loop) {
	if op.Body == nil || len(op.Body.Blocks) != 1 || op.Body.Blocks[0] == nil {
		fe.opErrorf(op, "loop: the body must be one block")
		return
	}
	body := op.Body.Blocks[0]
	y, ok := body.Terminator().(*niro.Yield)
	if !ok {
		fe.opErrorf(op, "loop: the body must end with yield")
		return
	}
	argTypes, err := op.BodyArgTypes()
	if err != nil || len(body.Args) != len(argTypes) {
		fe.opErrorf(op, "loop: malformed body arguments")
		return
	}
	first := 0
	if op.HasCond {
		first = 1
	}
	nc := len(op.Init)
	iterArg := body.Args[0]
	carriedArgs := body.Args[1+first : 1+first+nc]
	sliceArgs := body.Args[1+first+nc:]
	scanRes := op.ScanResults()

	// The bound.
	var bounds []string
	if op.HasTrip {
		t := fe.tmp()
		fe.line("%s = tensor.extract %s[] : tensor<i64>", t, name(op.Trip))
		z := fe.intConst(niro.I64, 0)
		m := fe.tmp()
		fe.line("%s = arith.maxsi %s, %s : i64", m, t, z)
		ix := fe.tmp()
		fe.line("%s = arith.index_cast %s : i64 to index", ix, m)
		bounds = append(bounds, ix)
	}
	scanExt := make([]string, len(op.Scans))
	for i, s := range op.Scans {
		st := s.Type.(niro.TensorType)
		scanExt[i] = fe.dim(s, st, op.ScanInAxes[i])
		bounds = append(bounds, scanExt[i])
	}
	outTypes := make([]niro.TensorType, len(scanRes))
	for j, r := range scanRes {
		rt, ok := rankedTensor(r)
		if !ok {
			fe.opErrorf(op, "loop: scan output %s is not a ranked tensor", name(r))
			return
		}
		outTypes[j] = rt
		if !niro.ScanSliceType(rt, op.ScanOutAxes[j]).HasStaticShape() {
			fe.opErrorf(op, "loop: scan output %s needs slices of static shape, has %s", name(r), typeName(r.Type))
			return
		}
		if op.ScanOutReverse[j] && op.HasCond {
			fe.opErrorf(op, "loop: scan output %s is reversed, which needs the iteration count before the loop runs; this loop has a condition", name(r))
			return
		}
		if d := rt.Dims[op.ScanOutAxes[j]]; d >= 0 {
			bounds = append(bounds, fe.index(d))
		}
	}
	bound := ""
	seen := map[string]bool{}
	for _, b := range bounds {
		if seen[b] {
			continue
		}
		seen[b] = true
		if bound == "" {
			bound = b
			continue
		}
		m := fe.tmp()
		fe.line("%s = arith.minsi %s, %s : index", m, bound, b)
		bound = m
	}
	if bound == "" && !op.HasCond {
		fe.opErrorf(op, "loop: no trip count, condition or scan input bounds it")
		return
	}
	// grown[j]: scan output j of a loop with a condition has a dynamic
	// extent, so it holds as many slices as the loop runs, which may be
	// far fewer than the bound (an exporter's INT64_MAX trip count) or
	// have no bound at all: its buffer starts with growRows slices (at
	// most the bound) and doubles whenever the loop finds it full.
	grown := make([]bool, len(scanRes))
	for j := range scanRes {
		grown[j] = op.HasCond && outTypes[j].Dims[op.ScanOutAxes[j]] < 0
	}
	growInit := fe.index(growRows)
	if bound != "" {
		m := fe.tmp()
		fe.line("%s = arith.minsi %s, %s : index", m, bound, growInit)
		growInit = m
	}

	// The scan-output buffers: zero-filled when their static extent may
	// exceed the iterations run.
	bufs := make([]string, len(scanRes))
	bufTypes := make([]string, len(scanRes))
	for j, r := range scanRes {
		rt := outTypes[j]
		elem, err := scalarType(rt.Elem)
		if err != nil {
			fe.typ(r)
			return
		}
		rows := bound
		if grown[j] {
			rows = growInit
		}
		e := fe.empty(rt.Dims, elem, func(int) string { return rows })
		bufTypes[j] = fe.typ(r)
		if rt.Dims[op.ScanOutAxes[j]] >= 0 {
			e = fe.fill(e, bufTypes[j], elem, fe.scalarConst(rt.Elem, 0), rt.Rank())
		}
		bufs[j] = e
	}

	carriedTypes := make([]string, nc)
	for i, v := range op.Init {
		carriedTypes[i] = fe.typ(v)
	}
	allTypes := strings.Join(append(append([]string{}, carriedTypes...), bufTypes...), ", ")
	carriedRes := op.CarriedResults()

	// lowerBody writes the body for iteration iv (an index), with the
	// carried arguments already named, and returns the values to yield
	// (carried, then the updated buffers) and the next condition.
	bufArgs := make([]string, len(scanRes))
	for j := range bufArgs {
		bufArgs[j] = fe.tmp()
	}
	loopArgs := append(names2(carriedArgs), bufArgs...)
	lowerBody := func(iv string) (yields []string, cond string) {
		i64 := fe.tmp()
		fe.line("%s = arith.index_cast %s : index to i64", i64, iv)
		fe.line("%s = tensor.from_elements %s : tensor<i64>", name(iterArg), i64)
		if op.HasCond {
			// The body runs only while the condition holds.
			fe.line("%s = arith.constant dense<true> : tensor<i1>", name(body.Args[1]))
		}
		for i, s := range op.Scans {
			st := s.Type.(niro.TensorType)
			off := fe.reversed(iv, scanExt[i], op.ScanInReverse[i])
			fe.line("%s = tensor.extract_slice %s%s : %s to %s", name(sliceArgs[i]), name(s), fe.sliceSpec(s, st, op.ScanInAxes[i], off), fe.typ(s), fe.typ(sliceArgs[i]))
		}
		for _, o := range body.Ops[:len(body.Ops)-1] {
			if o == nil {
				fe.errorf("nil op")
				continue
			}
			fe.op(o)
		}
		for j, r := range scanRes {
			ax := op.ScanOutAxes[j]
			n := bound
			if d := outTypes[j].Dims[ax]; d >= 0 {
				n = fe.index(d)
			}
			off := fe.reversed(iv, n, op.ScanOutReverse[j])
			v := y.Values[first+nc+j]
			ins := fe.tmp()
			fe.line("%s = tensor.insert_slice %s into %s%s : %s into %s", ins, name(v), bufArgs[j], fe.sliceSpec(r, outTypes[j], ax, off), fe.typ(v), bufTypes[j])
			yields = append(yields, ins)
		}
		// The carried values last, after every read of the yielded
		// values (the scan slices above).
		var carried []string
		for i := range op.Init {
			carried = append(carried, fe.intoCarried(y.Values[first+i], loopArgs[i]))
		}
		yields = append(carried, yields...)
		if op.HasCond {
			cond = fe.tmp()
			fe.line("%s = tensor.extract %s[] : tensor<i1>", cond, name(y.Values[0]))
		}
		return yields, cond
	}

	inits := make([]string, 0, nc+len(bufs))
	for _, v := range op.Init {
		inits = append(inits, fe.ownedInit(v))
	}
	inits = append(inits, bufs...)
	// Result names: the carried results, then a temporary per buffer.
	bufRes := make([]string, len(scanRes))
	resNames := names2(carriedRes)
	for j := range scanRes {
		bufRes[j] = fe.tmp()
	}
	resNames = append(resNames, bufRes...)

	count := "" // the number of iterations run, when a result needs it
	if !op.HasCond {
		iv := fe.tmp()
		var iter []string
		for i := range inits {
			iter = append(iter, loopArgs[i]+" = "+inits[i])
		}
		lhs := ""
		if len(resNames) > 0 {
			lhs = strings.Join(resNames, ", ") + " = "
		}
		head := fmt.Sprintf("%sscf.for %s = %s to %s step %s", lhs, iv, fe.index(0), bound, fe.index(1))
		if len(iter) > 0 {
			head += fmt.Sprintf(" iter_args(%s) -> (%s)", strings.Join(iter, ", "), allTypes)
		}
		fe.line("%s {", head)
		fe.indent++
		yields, _ := lowerBody(iv)
		if len(yields) > 0 {
			fe.line("scf.yield %s : %s", strings.Join(yields, ", "), allTypes)
		} else {
			fe.line("scf.yield")
		}
		fe.indent--
		fe.line("}")
		count = bound
	} else {
		c0 := fe.tmp()
		fe.line("%s = tensor.extract %s[] : tensor<i1>", c0, name(op.Cond))
		outT := "index"
		if allTypes != "" {
			outT += ", " + allTypes
		}
		types := outT + ", i1"
		tl := append(append([]string{}, carriedTypes...), bufTypes...)
		// while writes an scf.while from iteration iv0 with the values
		// vals and the condition c0, running the body while the condition
		// holds and gate(iv) (when gate is set); lhs names its results:
		// the counter, the values and, when withCond, the condition. The
		// condition is the last argument and is forwarded
		// last: One-Shot Bufferize pairs the values scf.condition forwards
		// with the before-region's arguments by position, and a shifted
		// tensor would be copied into a fresh buffer every iteration.
		while := func(lhs []string, iv0 string, vals []string, c0 string, gate func(iv string) string, withCond bool) {
			wIV, wC := fe.tmp(), fe.tmp()
			before := []string{wIV + " = " + iv0}
			bArgs := make([]string, len(vals))
			for i := range vals {
				bArgs[i] = fe.tmp()
				before = append(before, bArgs[i]+" = "+vals[i])
			}
			before = append(before, wC+" = "+c0)
			resT := outT
			fwd := append([]string{wIV}, bArgs...)
			if withCond {
				resT = types
				fwd = append(fwd, wC)
			}
			fe.line("%s = scf.while (%s) : (%s) -> (%s) {", strings.Join(lhs, ", "), strings.Join(before, ", "), types, resT)
			fe.indent++
			g := wC
			if gate != nil {
				lt := gate(wIV)
				g = fe.tmp()
				fe.line("%s = arith.andi %s, %s : i1", g, wC, lt)
			}
			fe.line("scf.condition(%s) %s : %s", g, strings.Join(fwd, ", "), resT)
			fe.indent--
			iv := fe.tmp()
			blockArgs := []string{iv + ": index"}
			for i, a := range loopArgs {
				blockArgs = append(blockArgs, a+": "+tl[i])
			}
			if withCond {
				blockArgs = append(blockArgs, fe.tmp()+": i1")
			}
			fe.line("} do {")
			fe.line("^bb0(%s):", strings.Join(blockArgs, ", "))
			fe.indent++
			yields, cond := lowerBody(iv)
			next := fe.tmp()
			fe.line("%s = arith.addi %s, %s : index", next, iv, fe.index(1))
			fe.line("scf.yield %s : %s", strings.Join(append(append([]string{next}, yields...), cond), ", "), types)
			fe.indent--
			fe.line("}")
		}
		count = fe.tmp()
		anyGrown := false
		for _, g := range grown {
			anyGrown = anyGrown || g
		}
		if !anyGrown {
			var gate func(string) string
			if bound != "" {
				gate = func(iv string) string {
					lt := fe.tmp()
					fe.line("%s = arith.cmpi slt, %s, %s : index", lt, iv, bound)
					return lt
				}
			}
			while(append([]string{count}, resNames...), fe.index(0), inits, c0, gate, false)
		} else {
			// Growing buffers: an outer scf.while over the buffers'
			// sizes around an inner one that runs the body while the
			// condition holds and the buffers have a row for the
			// iteration; when the inner loop stops at the capacity, the
			// outer one doubles the growing buffers. The inner loop writes
			// every buffer in place, so only the outer one, which runs
			// log₂(N/growRows) times, copies or allocates.
			oIV, oC := fe.tmp(), fe.tmp()
			before := []string{oIV + " = " + fe.index(0)}
			oArgs := make([]string, len(inits))
			for i := range inits {
				oArgs[i] = fe.tmp()
				before = append(before, oArgs[i]+" = "+inits[i])
			}
			before = append(before, oC+" = "+c0)
			fe.line("%s = scf.while (%s) : (%s) -> (%s) {", strings.Join(append([]string{count}, resNames...), ", "), strings.Join(before, ", "), types, outT)
			fe.indent++
			og := oC
			if bound != "" {
				lt := fe.tmp()
				fe.line("%s = arith.cmpi slt, %s, %s : index", lt, oIV, bound)
				og = fe.tmp()
				fe.line("%s = arith.andi %s, %s : i1", og, oC, lt)
			}
			fe.line("scf.condition(%s) %s : %s", og, strings.Join(append([]string{oIV}, oArgs...), ", "), outT)
			fe.indent--
			aIV := fe.tmp()
			aArgs := make([]string, len(inits))
			blockArgs := []string{aIV + ": index"}
			for i := range aArgs {
				aArgs[i] = fe.tmp()
				blockArgs = append(blockArgs, aArgs[i]+": "+tl[i])
			}
			fe.line("} do {")
			fe.line("^bb0(%s):", strings.Join(blockArgs, ", "))
			fe.indent++
			capacity := ""
			for j := range scanRes {
				if !grown[j] {
					continue
				}
				d := fe.tmp()
				fe.line("%s = tensor.dim %s, %s : %s", d, aArgs[nc+j], fe.index(int64(op.ScanOutAxes[j])), bufTypes[j])
				if capacity == "" {
					capacity = d
					continue
				}
				m := fe.tmp()
				fe.line("%s = arith.minsi %s, %s : index", m, capacity, d)
				capacity = m
			}
			if bound != "" {
				m := fe.tmp()
				fe.line("%s = arith.minsi %s, %s : index", m, capacity, bound)
				capacity = m
			}
			iIV, iC := fe.tmp(), fe.tmp()
			iRes := make([]string, len(inits))
			for i := range iRes {
				iRes[i] = fe.tmp()
			}
			tru := fe.tmp()
			fe.line("%s = arith.constant true", tru)
			while(append(append([]string{iIV}, iRes...), iC), aIV, aArgs, tru, func(iv string) string {
				lt := fe.tmp()
				fe.line("%s = arith.cmpi slt, %s, %s : index", lt, iv, capacity)
				return lt
			}, true)
			next := append([]string(nil), iRes...)
			for j := range scanRes {
				if grown[j] {
					next[nc+j] = fe.grow(iRes[nc+j], outTypes[j], bufTypes[j], op.ScanOutAxes[j], iIV, iC)
				}
			}
			fe.line("scf.yield %s : %s", strings.Join(append(append([]string{iIV}, next...), iC), ", "), types)
			fe.indent--
			fe.line("}")
		}
	}
	for j, r := range scanRes {
		rt := outTypes[j]
		ax := op.ScanOutAxes[j]
		if rt.Dims[ax] >= 0 || !op.HasCond {
			fe.rename2(bufRes[j], name(r), bufTypes[j])
			continue
		}
		// The first count slices of the buffer.
		offs := make([]string, rt.Rank())
		sizes := make([]string, rt.Rank())
		strides := make([]string, rt.Rank())
		for a := range offs {
			offs[a], strides[a] = "0", "1"
			if a == ax {
				sizes[a] = count
			} else {
				sizes[a] = fmt.Sprint(rt.Dims[a])
			}
		}
		fe.line("%s = tensor.extract_slice %s[%s] [%s] [%s] : %s to %s", name(r), bufRes[j], strings.Join(offs, ", "), strings.Join(sizes, ", "), strings.Join(strides, ", "), bufTypes[j], bufTypes[j])
	}
}

// growRows is the initial number of slices of a scan output whose loop
// has no bound before it runs.
const growRows = 16

// grow returns the buffer buf (type t, typ, growing along axis ax) for
// the iterations from iv on, when the loop goes on (more): buf itself
// while it has a row for iv, else a buffer of twice the rows holding
// buf's rows first. The rows double, so the copies cost O(1) per
// iteration amortized.
func (fe *funcEmitter) grow(buf string, t niro.TensorType, typ string, ax int, iv, more string) string {
	rows, ge, full := fe.tmp(), fe.tmp(), fe.tmp()
	fe.line("%s = tensor.dim %s, %s : %s", rows, buf, fe.index(int64(ax)), typ)
	fe.line("%s = arith.cmpi uge, %s, %s : index", ge, iv, rows)
	fe.line("%s = arith.andi %s, %s : i1", full, ge, more)
	r := fe.tmp()
	fe.line("%s = scf.if %s -> (%s) {", r, full, typ)
	fe.indent++
	twice := fe.tmp()
	fe.line("%s = arith.muli %s, %s : index", twice, rows, fe.index(2))
	elem, _ := scalarType(t.Elem)
	e := fe.empty(t.Dims, elem, func(int) string { return twice })
	offs := make([]string, t.Rank())
	sizes := make([]string, t.Rank())
	strides := make([]string, t.Rank())
	for a := range offs {
		offs[a], strides[a] = "0", "1"
		if a == ax {
			sizes[a] = rows
		} else {
			sizes[a] = fmt.Sprint(t.Dims[a])
		}
	}
	c := fe.tmp()
	fe.line("%s = tensor.insert_slice %s into %s[%s] [%s] [%s] : %s into %s", c, buf, e, strings.Join(offs, ", "), strings.Join(sizes, ", "), strings.Join(strides, ", "), typ, typ)
	fe.line("scf.yield %s : %s", c, typ)
	fe.indent--
	fe.line("} else {")
	fe.indent++
	fe.line("scf.yield %s : %s", buf, typ)
	fe.indent--
	fe.line("}")
	return r
}

// reversed returns iv, or n - 1 - iv when rev.
func (fe *funcEmitter) reversed(iv, n string, rev bool) string {
	if !rev {
		return iv
	}
	a := fe.tmp()
	fe.line("%s = arith.subi %s, %s : index", a, n, iv)
	b := fe.tmp()
	fe.line("%s = arith.subi %s, %s : index", b, a, fe.index(1))
	return b
}

// sliceSpec returns "[offsets] [sizes] [strides]" selecting the slice at
// off along axis of tensor v of type t: every other axis whole.
func (fe *funcEmitter) sliceSpec(v niro.Value, t niro.TensorType, axis int, off string) string {
	offs := make([]string, t.Rank())
	sizes := make([]string, t.Rank())
	strides := make([]string, t.Rank())
	for a := range offs {
		offs[a], sizes[a], strides[a] = "0", "1", "1"
		if a == axis {
			offs[a] = off
			continue
		}
		if d := t.Dims[a]; d >= 0 {
			sizes[a] = fmt.Sprint(d)
		} else {
			sizes[a] = fe.dim(v, t, a)
		}
	}
	return "[" + strings.Join(offs, ", ") + "] [" + strings.Join(sizes, ", ") + "] [" + strings.Join(strides, ", ") + "]"
}

// names2 returns the SSA names of vs.
func names2(vs []niro.Value) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = name(v)
	}
	return out
}

// intoCarried returns the value to yield for carried value v, whose
// iteration argument is arg: for a static shape, v materialized in arg's
// tensor, so that bufferization updates the carried buffer in place (the
// loop owns it: see ownedInit) instead of allocating one per iteration,
// whose aliasing with the other carried buffers buffer deallocation could
// not decide statically.
func (fe *funcEmitter) intoCarried(v niro.Value, arg string) string {
	if !inPlaceCarried(v) {
		return name(v)
	}
	dst := fe.tmp()
	fe.line("%s = bufferization.materialize_in_destination %s in %s : (%s, %s) -> %s", dst, name(v), arg, fe.typ(v), fe.typ(v), fe.typ(v))
	return dst
}

// ownedInit returns the initial value of a carried value updated in place:
// a fresh copy of v, so that the loop never writes into v's buffer.
func (fe *funcEmitter) ownedInit(v niro.Value) string {
	if !inPlaceCarried(v) {
		return name(v)
	}
	dst := fe.tmp()
	fe.line("%s = bufferization.alloc_tensor() copy(%s) : %s", dst, name(v), fe.typ(v))
	return dst
}

// inPlaceCarried reports whether a carried value of v's type is updated
// in place: a tensor of static shape.
func inPlaceCarried(v niro.Value) bool {
	t, ok := rankedTensor(v)
	return ok && t.HasStaticShape()
}

package importer

// Loop and Scan map to Niro's loop op (niro/loop.go, docs/ops.md "Loop").

import (
	"errors"
	"fmt"

	"github.com/niro-dev/niro/niro"
)

func init() {
	register("Loop", opSpec{Since: 1, In: [2]int{0, 1 << 20}, Out: [2]int{0, 1 << 20}, Attrs: []string{"body"}, Convert: (*nodeCtx).loopOp})
	register("Scan",
		opSpec{Since: 8, In: [2]int{0, 1 << 20}, Out: [2]int{0, 1 << 20}, Attrs: []string{"body", "num_scan_inputs", "directions"}, Convert: (*nodeCtx).scanOp},
		opSpec{Since: 9, In: [2]int{1, 1 << 20}, Out: [2]int{0, 1 << 20}, Attrs: []string{"body", "num_scan_inputs", "scan_input_axes", "scan_input_directions", "scan_output_axes", "scan_output_directions"}, Convert: (*nodeCtx).scanOp})
}

// maxBodyTries bounds the re-conversions of a body whose carried values
// change type from one iteration to the next.
const maxBodyTries = 3

// loopBody converts the body graph g of a Loop or Scan into op.Body. The
// body's ONNX inputs are bound to the block arguments (iterInput: the
// graph's first input is the iteration number, as in Loop); skipCond says
// that the ONNX body has a condition input the Niro loop does not pass (a Loop
// without a condition), which then reads a constant true. It returns the
// yielded values. A carried value whose yielded type differs from its
// initial type is widened to their join (dynamic extents) and the body is
// converted again.
func (nc *nodeCtx) loopBody(op *niro.Loop, g *Graph, iterInput, skipCond bool, nScanOut int) ([]niro.Value, error) {
	for try := 0; ; try++ {
		argTypes, err := op.BodyArgTypes()
		if err != nil {
			return nil, nc.errorf("%v", err)
		}
		blk := &niro.Block{}
		for _, t := range argTypes {
			blk.Args = append(blk.Args, nc.c.fn.NewValue(t))
		}
		sub := nc.sc.subgraph(nc.e.loc, "body")
		be := &emitter{blk: blk, loc: nc.e.loc}
		// Bind the graph inputs: the iteration number (Loop), the
		// condition, then the carried values and the scan slices.
		args := blk.Args
		if !iterInput {
			args = args[1:] // Scan's body has no iteration number
		}
		in := g.Inputs
		if want := len(args); skipCond {
			if len(in) != want+1 {
				return nil, nc.errorf("body has %d inputs, want %d", len(in), want+1)
			}
		} else if len(in) != want {
			return nil, nc.errorf("body has %d inputs, want %d", len(in), want)
		}
		k := 0
		for i, v := range in {
			if skipCond && i == 1 {
				t := nc.c.fn.NewValue(niro.Tensor(niro.Bool))
				be.add(&niro.Const{Result: t, Lit: niro.BytesLit{1}})
				nc.c.recordKnown(t, []byte{1})
				sub.vals[v] = t
				continue
			}
			sub.vals[v] = args[k]
			k++
		}
		for i, v := range in {
			if v.Type == nil {
				continue
			}
			t, err := nc.c.tensorType(v.Type, fmt.Sprintf("body input %q", v.Name))
			if err != nil {
				return nil, nc.errorf("%v", err)
			}
			if got := tensorOf(sub.vals[v]); t.Elem != niro.InvalidScalar && t.Elem != got.Elem {
				return nil, nc.errorf("body input #%d %q is declared with element type %s, but the loop passes %s", i, v.Name, t.Elem, got.Elem)
			}
		}
		vals, err := nc.c.convertGraphBody(g, be, sub)
		if err != nil {
			return nil, fmt.Errorf("%s: body: %w", nc.ref(), err)
		}
		first := 0
		if op.HasCond || skipCond {
			first = 1
		}
		if len(vals) != first+len(op.Init)+nScanOut {
			return nil, nc.errorf("body has %d outputs, want %d", len(vals), first+len(op.Init)+nScanOut)
		}
		if skipCond {
			vals = vals[1:]
		}
		saved := nc.e
		nc.e = be
		if op.HasCond {
			vals[0] = nc.rank0(nc.cond1(vals[0], "the body's condition output"))
		}
		changed := false
		for i, init := range op.Init {
			j := first + i
			if skipCond {
				j = i
			}
			it, yt := tensorOf(init), tensorOf(vals[j])
			if niro.TypesEqual(it, yt) {
				continue
			}
			jt, ok := joinTypes(it, yt)
			if !ok || jt.Unranked {
				nc.e = saved
				nc.notYet("carried value #%d changes from %s to %s between iterations", i, it, yt)
				return nil, nc.err
			}
			if niro.TypesEqual(jt, it) {
				vals[j] = nc.reshape(vals[j], jt.Dims) // only forgets static extents
				continue
			}
			changed = true
			nc.e = saved
			op.Init[i] = nc.reshape(init, jt.Dims)
			nc.e = be
		}
		nc.e = saved
		if nc.err != nil {
			return nil, nc.err
		}
		if changed {
			if try+1 >= maxBodyTries {
				nc.notYet("the carried values' types do not settle after %d conversions of the body", maxBodyTries)
				return nil, nc.err
			}
			continue
		}
		be.loc = nc.e.loc
		be.add(&niro.Yield{Values: vals})
		op.Body = &niro.Region{Blocks: []*niro.Block{blk}}
		return vals, nil
	}
}

// cond1 checks that v holds one bool.
func (nc *nodeCtx) cond1(v niro.Value, what string) niro.Value {
	t := tensorOf(v)
	if t.Elem != niro.Bool || t.Unranked || !t.HasStaticShape() || t.NumElements() != 1 {
		nc.fail("%s has type %s, want one bool", what, t)
	}
	return v
}

// loopOp maps ONNX Loop: inputs M (trip count, optional), cond (optional)
// and the initial carried values; outputs the final carried values and the
// scan outputs, stacked along a new axis 0.
func (nc *nodeCtx) loopOp() error {
	a := nc.attr("body")
	if a == nil || a.Graph == nil {
		return nc.errorf("attribute body (a graph) is missing")
	}
	g := a.Graph
	op := &niro.Loop{}
	var tripKnown int64 = -1
	if m, ok := nc.input(0); ok {
		mt := tensorOf(m)
		if mt.Elem != niro.I64 || mt.Unranked || !mt.HasStaticShape() || mt.NumElements() != 1 {
			return nc.errorf("trip count M has type %s, want one i64", mt)
		}
		if k, ok := nc.knownOf(m); ok && k.len() == 1 {
			tripKnown = k.ints[0]
		}
		op.Trip, op.HasTrip = nc.rank0(m), true
	}
	if c, ok := nc.input(1); ok {
		op.Cond, op.HasCond = nc.rank0(nc.cond1(c, "condition cond")), true
		if nc.err != nil {
			return nc.err
		}
		if k, ok := nc.knownOf(c); ok && k.len() == 1 && k.ints[0] == 0 {
			tripKnown = 0
		}
	}
	if nc.err != nil {
		return nc.err
	}
	for i := 2; i < len(nc.args); i++ {
		v, ok := nc.input(i)
		if !ok {
			return nc.errorf("loop-carried input %d is absent", i)
		}
		if t := tensorOf(v); t.Unranked {
			nc.notYet("loop-carried input %d has an unknown rank", i)
			return nc.err
		}
		op.Init = append(op.Init, v)
	}
	nCarried := len(op.Init)
	nScan := len(nc.n.Outputs) - nCarried
	if nScan < 0 {
		return nc.errorf("has %d outputs for %d loop-carried values", len(nc.n.Outputs), nCarried)
	}
	if !op.HasTrip && !op.HasCond {
		nc.notYet("a Loop with neither a trip count nor a condition never ends")
		return nc.err
	}
	if nScan > 0 && tripKnown >= 1<<31 && !op.HasCond {
		// Exporters write INT64_MAX for "no bound" beside a condition,
		// where the scan outputs grow as the loop runs (docs/ops.md,
		// "loop"); without a condition, a buffer of that many slices
		// cannot be allocated.
		nc.notYet("scan outputs of a Loop of M = %d iterations and no condition are not compiled", tripKnown)
		return nc.err
	}
	for j := 0; j < nScan; j++ {
		op.ScanOutAxes = append(op.ScanOutAxes, 0)
		op.ScanOutReverse = append(op.ScanOutReverse, false)
	}
	mark := len(nc.e.blk.Ops)
	vals, err := nc.loopBody(op, g, true, !op.HasCond, nScan)
	var nd *NeedsDataError
	if errors.As(err, &nd) && tripKnown >= 0 {
		// The body needs a fact of its iteration at import (a position in
		// a sequence of the enclosing graph, indexed by the iteration
		// number): unroll the loop instead.
		nc.e.blk.Ops, nc.err = nc.e.blk.Ops[:mark], nil
		return nc.unrollLoop()
	}
	if err != nil {
		return err
	}
	first := 0
	if op.HasCond {
		first = 1
	}
	ids := nc.reserve()
	for i, init := range op.Init {
		op.Res = append(op.Res, niro.Value{ID: ids[i], Type: init.Type})
	}
	for j := 0; j < nScan; j++ {
		st := tensorOf(vals[first+nCarried+j])
		if st.Unranked || !st.HasStaticShape() {
			nc.notYet("scan output %d has slices of type %s; niro needs a static shape", j, st)
			return nc.err
		}
		n := int64(niro.Dynamic)
		if tripKnown >= 0 && (!op.HasCond || tripKnown == 0) {
			n = tripKnown
		}
		rt := niro.TensorType{Elem: st.Elem, Dims: append([]int64{n}, st.Dims...)}
		t, err := nc.resultType(nCarried+j, rt)
		if err != nil {
			return err
		}
		op.Res = append(op.Res, niro.Value{ID: ids[nCarried+j], Type: t})
	}
	for i := range op.Res {
		if i < nCarried {
			if _, err := nc.resultType(i, tensorOf(op.Res[i])); err != nil {
				return err
			}
		}
		nc.setResult(i, op.Res[i])
	}
	nc.e.add(op)
	return nil
}

// scanOp maps ONNX Scan: the initial states, then num_scan_inputs scan
// inputs (opset 8: a leading optional sequence_lens, and a batch axis 0 on
// every input and output).
func (nc *nodeCtx) scanOp() error {
	a := nc.attr("body")
	if a == nil || a.Graph == nil {
		return nc.errorf("attribute body (a graph) is missing")
	}
	g := a.Graph
	na := nc.attr("num_scan_inputs")
	if na == nil {
		return nc.errorf("attribute num_scan_inputs is missing")
	}
	m := int(na.Int)
	first := 0
	var seqLens niro.Value
	hasLens := false
	if nc.opset < 9 {
		first = 1
		seqLens, hasLens = nc.input(0)
	}
	ins := make([]niro.Value, 0, len(nc.args))
	for i := first; i < len(nc.args); i++ {
		v, ok := nc.input(i)
		if !ok {
			return nc.errorf("input %d is absent", i)
		}
		if tensorOf(v).Unranked {
			nc.notYet("input %d has an unknown rank", i)
			return nc.err
		}
		ins = append(ins, v)
	}
	if m < 1 || m > len(ins) {
		return nc.errorf("num_scan_inputs is %d, but the node has %d state and scan inputs", m, len(ins))
	}
	nState := len(ins) - m
	nScanOut := len(nc.n.Outputs) - nState
	if nScanOut < 0 {
		return nc.errorf("has %d outputs for %d states", len(nc.n.Outputs), nState)
	}
	axes := func(name string, n int, rank func(int) int) ([]int, error) {
		out := make([]int, n)
		if at := nc.attr(name); at != nil {
			if len(at.Ints) != n {
				return nil, nc.errorf("%s has %d entries, want %d", name, len(at.Ints), n)
			}
			for i, x := range at.Ints {
				r := rank(i)
				if x < int64(-r) || x >= int64(r) {
					return nil, nc.errorf("%s[%d] = %d is out of range for rank %d", name, i, x, r)
				}
				if x < 0 {
					x += int64(r)
				}
				out[i] = int(x)
			}
		}
		return out, nil
	}
	dirs := func(name string, n int) ([]bool, error) {
		out := make([]bool, n)
		if at := nc.attr(name); at != nil {
			if len(at.Ints) != n {
				return nil, nc.errorf("%s has %d entries, want %d", name, len(at.Ints), n)
			}
			for i, x := range at.Ints {
				if x != 0 && x != 1 {
					return nil, nc.errorf("%s[%d] = %d, want 0 or 1", name, i, x)
				}
				out[i] = x == 1
			}
		}
		return out, nil
	}
	batched := nc.opset < 9
	if batched && (hasLens || len(ins) > 0 && tensorOf(ins[0]).Rank() >= 1 && tensorOf(ins[0]).Dims[0] != 1) {
		return nc.scan8Batch(g, ins, nState, nScanOut, seqLens, hasLens)
	}
	op := &niro.Loop{Init: ins[:nState], Scans: ins[nState:]}
	var err error
	if batched {
		// Scan-8: axis 0 is a batch axis of extent 1 (larger batches are
		// not compiled yet); the scan axis is 1.
		for i, v := range ins {
			t := tensorOf(v)
			if t.Rank() < 1 || t.Dims[0] != 1 || i >= nState && t.Rank() < 2 {
				nc.notYet("Scan-8 input %d of type %s: only a batch of 1 is compiled", i, t)
				return nc.err
			}
			ins[i] = nc.reshape(v, t.Dims[1:])
		}
		op.Init, op.Scans = ins[:nState], ins[nState:]
		op.ScanInAxes = make([]int, m)
		if op.ScanInReverse, err = dirs("directions", m); err != nil {
			return err
		}
		op.ScanOutAxes = make([]int, nScanOut)
		op.ScanOutReverse = make([]bool, nScanOut)
	} else {
		if op.ScanInAxes, err = axes("scan_input_axes", m, func(i int) int { return tensorOf(op.Scans[i]).Rank() }); err != nil {
			return err
		}
		if op.ScanInReverse, err = dirs("scan_input_directions", m); err != nil {
			return err
		}
		// The output ranks are the slices' plus one; checked after the
		// body is converted.
		if op.ScanOutReverse, err = dirs("scan_output_directions", nScanOut); err != nil {
			return err
		}
	}
	var extent int64 = niro.Dynamic
	for i, s := range op.Scans {
		if d := tensorOf(s).Dims[op.ScanInAxes[i]]; d >= 0 {
			extent = d
		}
	}
	if !batched {
		// Axes are read against the output ranks, known after the body;
		// convert it with provisional axes 0 first.
		op.ScanOutAxes = make([]int, nScanOut)
	}
	vals, err := nc.loopBody(op, g, false, false, nScanOut)
	if err != nil {
		return err
	}
	slices := vals[nState:]
	if !batched {
		if op.ScanOutAxes, err = axes("scan_output_axes", nScanOut, func(j int) int { return tensorOf(slices[j]).Rank() + 1 }); err != nil {
			return err
		}
	}
	ids := nc.reserve()
	for i, init := range op.Init {
		op.Res = append(op.Res, niro.Value{ID: ids[i], Type: init.Type})
	}
	for j := 0; j < nScanOut; j++ {
		st := tensorOf(slices[j])
		if st.Unranked || !st.HasStaticShape() {
			nc.notYet("scan output %d has slices of type %s; niro needs a static shape", j, st)
			return nc.err
		}
		ax := op.ScanOutAxes[j]
		dims := append(append(append([]int64{}, st.Dims[:ax]...), extent), st.Dims[ax:]...)
		op.Res = append(op.Res, niro.Value{ID: ids[nState+j], Type: niro.TensorType{Elem: st.Elem, Dims: dims}})
	}
	nc.e.add(op)
	for i, r := range op.Res {
		v := r
		if batched {
			t := tensorOf(r)
			v = nc.reshape(r, append([]int64{1}, t.Dims...))
		}
		if _, err := nc.resultType(i, tensorOf(v)); err != nil {
			return err
		}
		nc.setResult(i, v)
	}
	return nc.err
}

// scan8Batch maps a Scan-8 over a batch of more than one row, or with
// sequence_lens: each batch row b is an independent scan of its first
// L_b steps (L_b = sequence_lens[b], or the sequence length), the loop of
// the row, nested in a loop over the rows. The outer loop scans every
// input (states [N, ...], scan inputs [N, T, ...], the lengths [N]) along
// the batch axis and stacks its results along it; the inner loop runs L_b
// iterations (a trip count; without sequence_lens the T steps of the
// scan inputs) over the row's scan inputs, and its scan outputs have the
// static extent T, so the steps past L_b are zero, as ONNX Runtime
// writes them. A reverse input with lengths is first reversed within each
// row's first L_b steps (ReverseSequence's gather), so the row's reverse
// scan starts at its own last step and reads forward.
func (nc *nodeCtx) scan8Batch(g *Graph, ins []niro.Value, nState, nScanOut int, seqLens niro.Value, hasLens bool) error {
	m := len(ins) - nState
	if len(ins) == 0 {
		return nc.errorf("Scan-8 has no inputs")
	}
	var n, t int64 = -1, -1
	for i, v := range ins {
		d := tensorOf(v).Dims
		if len(d) < 1 || i >= nState && len(d) < 2 {
			return nc.errorf("input %d of type %s needs a batch axis (and a sequence axis on a scan input)", i+1, tensorOf(v))
		}
		if d[0] < 0 || i >= nState && d[1] < 0 {
			nc.notYet("Scan-8 input %d of type %s: a dynamic batch or sequence extent is not compiled", i+1, tensorOf(v))
			return nc.err
		}
		if n >= 0 && d[0] != n {
			return nc.errorf("input %d has batch extent %d, but an earlier one has %d", i+1, d[0], n)
		}
		n = d[0]
		if i >= nState {
			if t >= 0 && d[1] != t {
				return nc.errorf("scan input %d has %d steps, but an earlier one has %d", i+1, d[1], t)
			}
			t = d[1]
		}
	}
	var rev []bool
	if at := nc.attr("directions"); at != nil {
		if len(at.Ints) != m {
			return nc.errorf("directions has %d entries, want %d", len(at.Ints), m)
		}
		for i, x := range at.Ints {
			if x != 0 && x != 1 {
				return nc.errorf("directions[%d] = %d, want 0 or 1", i, x)
			}
			rev = append(rev, x == 1)
		}
	} else {
		rev = make([]bool, m)
	}
	// The lengths, as i64 clamped to [0, T].
	var lens niro.Value
	if hasLens {
		lt := tensorOf(seqLens)
		if lt.Elem != niro.I64 || lt.Rank() != 1 || lt.Dims[0] >= 0 && lt.Dims[0] != n {
			return nc.errorf("sequence_lens has type %s, want tensor<%dxi64>", lt, n)
		}
		if k, ok := nc.knownOf(seqLens); ok {
			for _, l := range k.ints {
				if l < 0 || l > t {
					return nc.errorf("sequence length %d is outside [0, %d]", l, t)
				}
			}
		}
		lens = seqLens
		if lt.Dims[0] < 0 {
			lens = nc.reshape(lens, []int64{n})
		}
		lens = nc.bin(niro.Min, nc.bin(niro.Max, lens, nc.scalar(niro.I64, 0)), nc.scalar(niro.I64, float64(t)))
		for i := range rev {
			if !rev[i] {
				continue
			}
			x := ins[nState+i]
			dims := tensorOf(x).Dims
			small := make([]int64, len(dims))
			for j := range small {
				small[j] = 1
			}
			small[0] = n
			l := nc.reshape(lens, append([]int64{}, small...))
			small[1] = t
			ti := nc.iota(niro.I64, small, 1)
			idx := nc.sel(nc.cmp(niro.Lt, ti, l), nc.bin(niro.Sub, nc.bin(niro.Sub, l, nc.scalar(niro.I64, 1)), ti), ti)
			if len(dims) > 2 {
				idx = nc.op(&niro.Broadcast{Shape: append([]int64{}, dims...), X: idx})
			}
			ins[nState+i] = nc.op(&niro.GatherElements{Axis: 1, X: x, Indices: idx})
			rev[i] = false
		}
	}
	if nc.err != nil {
		return nc.err
	}
	outer := &niro.Loop{Scans: append([]niro.Value{}, ins...)}
	if hasLens {
		outer.Scans = append(outer.Scans, lens)
	}
	outer.ScanInAxes = make([]int, len(outer.Scans))
	outer.ScanInReverse = make([]bool, len(outer.Scans))
	outer.ScanOutAxes = make([]int, nState+nScanOut)
	outer.ScanOutReverse = make([]bool, nState+nScanOut)
	argTypes, err := outer.BodyArgTypes()
	if err != nil {
		return nc.errorf("%v", err)
	}
	blk := &niro.Block{}
	for _, at := range argTypes {
		blk.Args = append(blk.Args, nc.c.fn.NewValue(at))
	}
	be := &emitter{blk: blk, loc: nc.e.loc}
	saved := nc.e
	nc.e = be
	row := blk.Args[1:] // the iteration number first
	inner := &niro.Loop{Init: append([]niro.Value{}, row[:nState]...),
		Scans: append([]niro.Value{}, row[nState:len(ins)]...), ScanInAxes: make([]int, m), ScanInReverse: rev,
		ScanOutAxes: make([]int, nScanOut), ScanOutReverse: make([]bool, nScanOut)}
	if hasLens {
		inner.Trip, inner.HasTrip = row[len(ins)], true
	}
	vals, err := nc.loopBody(inner, g, false, false, nScanOut)
	if err != nil {
		nc.e = saved
		return err
	}
	if len(inner.Init) != nState {
		nc.e = saved
		return nc.errorf("Scan-8 body changes its states' types")
	}
	for i, init := range inner.Init {
		inner.Res = append(inner.Res, nc.c.fn.NewValue(init.Type))
		if !niro.TypesEqual(init.Type, row[i].Type) {
			nc.e = saved
			nc.notYet("state %d changes from %s to %s between steps", i, row[i].Type, init.Type)
			return nc.err
		}
	}
	for j := 0; j < nScanOut; j++ {
		st := tensorOf(vals[nState+j])
		if st.Unranked || !st.HasStaticShape() {
			nc.e = saved
			nc.notYet("scan output %d has slices of type %s; niro needs a static shape", j, st)
			return nc.err
		}
		inner.Res = append(inner.Res, nc.c.fn.NewValue(niro.TensorType{Elem: st.Elem, Dims: append([]int64{t}, st.Dims...)}))
	}
	be.add(inner)
	be.add(&niro.Yield{Values: append([]niro.Value{}, inner.Res...)})
	nc.e = saved
	outer.Body = &niro.Region{Blocks: []*niro.Block{blk}}
	ids := nc.reserve()
	for i, r := range inner.Res {
		rt := tensorOf(r)
		outer.Res = append(outer.Res, niro.Value{ID: ids[i], Type: niro.TensorType{Elem: rt.Elem, Dims: append([]int64{n}, rt.Dims...)}})
	}
	for i, r := range outer.Res {
		if _, err := nc.resultType(i, tensorOf(r)); err != nil {
			return err
		}
		nc.setResult(i, r)
	}
	nc.e.add(outer)
	return nc.err
}

package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/niro-dev/niro/interp"
	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
)

// The interpreter as the oracle of the compiled code: the same module run
// both ways must give the same bits, except for the functions computed by
// the platform's libm (compiled) and Go's math (interpreted), whose
// distance in ulps is measured and bounded.

// oracleCase is one module with its inputs and, per output, a label and
// the libm function it depends on ("" when it must be bit-identical).
type oracleCase struct {
	m      *niro.Module
	inputs []tensorio.Tensor
	labels []string
	libm   []string
}

// compileAndRun runs m compiled for the host.
func compileAndRun(t *testing.T, m *niro.Module, inputs []tensorio.Tensor) []tensorio.Tensor {
	t.Helper()
	ctx := context.Background()
	env := &Env{Globals: &Globals{}, Stdout: io.Discard, Stderr: io.Discard}
	tc, err := env.findTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hm, err := env.buildHost(ctx, tc, m, "host")
	if err != nil {
		t.Fatal(err)
	}
	defer hm.cleanup()
	res, err := env.execute(ctx, tc, hm, inputs, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return res.Outputs
}

// ulpKey orders a float's bits so that adjacent floats differ by one.
func ulpKey(elem niro.ScalarType, b uint64) (int64, bool) {
	switch elem {
	case niro.F64:
		if math.IsNaN(math.Float64frombits(b)) {
			return 0, true
		}
		if b>>63 != 0 {
			return -int64(b &^ (1 << 63)), false
		}
		return int64(b), false
	case niro.F32:
		if f := math.Float32frombits(uint32(b)); f != f {
			return 0, true
		}
		if b>>31 != 0 {
			return -int64(b &^ (1 << 31)), false
		}
		return int64(b), false
	default: // f16, bf16: exponent all ones with a mantissa is NaN
		exp, man := b>>10&0x1f, b&0x3ff
		if elem == niro.BF16 {
			exp, man = b>>7&0xff, b&0x7f
			if exp == 0xff && man != 0 {
				return 0, true
			}
		} else if exp == 0x1f && man != 0 {
			return 0, true
		}
		if b>>15 != 0 {
			return -int64(b &^ (1 << 15)), false
		}
		return int64(b), false
	}
}

// elemBits returns element i of t's raw bits.
func elemBits(t tensorio.Tensor, i int) uint64 {
	switch t.Elem.Bits() {
	case 8:
		return uint64(t.Data[i])
	case 16:
		return uint64(binary.LittleEndian.Uint16(t.Data[2*i:]))
	case 32:
		return uint64(binary.LittleEndian.Uint32(t.Data[4*i:]))
	}
	return binary.LittleEndian.Uint64(t.Data[8*i:])
}

// ulpDistance returns the largest distance in ulps between two float
// tensors (NaN equals NaN, whatever its payload; NaN against a number is
// infinitely far), and the index where it is.
func ulpDistance(got, want tensorio.Tensor) (float64, int) {
	worst, at := 0.0, -1
	for i := 0; i < int(want.NumElements()); i++ {
		g, gn := ulpKey(want.Elem, elemBits(got, i))
		w, wn := ulpKey(want.Elem, elemBits(want, i))
		var d float64
		switch {
		case gn && wn:
		case gn || wn:
			d = math.Inf(1)
		default:
			d = math.Abs(float64(g - w))
		}
		if d > worst {
			worst, at = d, i
		}
	}
	return worst, at
}

// sameBits compares two tensors bit for bit, any NaN equal to any NaN.
func sameBits(got, want tensorio.Tensor) (bool, int) {
	if got.Elem != want.Elem || len(got.Data) != len(want.Data) {
		return false, -1
	}
	if !want.Elem.IsFloat() || niro.IsCastOnly(want.Elem) {
		// Integers, and the codes of the cast-only types (their casts
		// must agree bit for bit, NaN codes included).
		for i := range want.Data {
			if got.Data[i] != want.Data[i] {
				return false, i / max(want.Elem.Bits()/8, 1)
			}
		}
		return true, 0
	}
	d, at := ulpDistance(got, want)
	return d == 0, at
}

// bf16Flushed counts the bf16 elements where the compiled code gave ±0
// for a value the interpreter rounds to a bf16 subnormal, and reports
// whether every other element has the same bits. On CPUs with
// AVX512-BF16, LLVM converts f32 to bf16 with vcvtneps2bf16, which
// flushes f32 subnormals to zero; the interpreter rounds as IEEE (and
// niro's Cast) specify.
func bf16Flushed(got, want tensorio.Tensor) (flushed int, ok bool) {
	if want.Elem != niro.BF16 || got.Elem != niro.BF16 || len(got.Data) != len(want.Data) {
		return 0, false
	}
	for i := 0; i < int(want.NumElements()); i++ {
		g, w := elemBits(got, i), elemBits(want, i)
		if g == w {
			continue
		}
		gk, gn := ulpKey(niro.BF16, g)
		wk, wn := ulpKey(niro.BF16, w)
		if gn && wn || gk == wk {
			continue
		}
		if w&0x7fff == 0 && g&0x7f80 == 0 && g>>15 == w>>15 {
			flushed++
			continue
		}
		return flushed, false
	}
	return flushed, true
}

// checkOracle runs c compiled and interpreted and compares every output,
// recording the ulp distance per libm function in ulps.
func checkOracle(t *testing.T, c oracleCase, ulps map[string]float64) {
	t.Helper()
	if err := niro.Verify(c.m); err != nil {
		t.Fatalf("invalid test module: %v", err)
	}
	want := compileAndRun(t, c.m, c.inputs)
	got, err := interp.Run(c.m, c.inputs, interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var flushed []string
	defer func() {
		if len(flushed) > 0 {
			t.Logf("bf16 subnormals the compiled code flushed to zero (AVX512-BF16's vcvtneps2bf16), the interpreter rounds: %s", strings.Join(flushed, ", "))
		}
	}()
	for i := range want {
		if fn := c.libm[i]; fn != "" {
			d, at := ulpDistance(got[i], want[i])
			key := fn + " " + want[i].Elem.String()
			ulps[key] = max(ulps[key], d)
			if d > ulpBound(key) {
				t.Errorf("%s: %g ulp from the compiled result at %d: interp %s, compiled %s", c.labels[i], d, at, tensorio.FormatElem(got[i], int64(at)), tensorio.FormatElem(want[i], int64(at)))
			}
			continue
		}
		if ok, at := sameBits(got[i], want[i]); !ok {
			if n, ok := bf16Flushed(got[i], want[i]); ok {
				flushed = append(flushed, fmt.Sprintf("%s (%d)", c.labels[i], n))
				continue
			}
			msg := "shape or type differs"
			if at >= 0 {
				msg = fmt.Sprintf("element %d: interp %s, compiled %s", at, tensorio.FormatElem(got[i], int64(at)), tensorio.FormatElem(want[i], int64(at)))
			}
			t.Errorf("%s: not bit-identical: %s", c.labels[i], msg)
		}
	}
}

// ulpBound is the largest distance in ulps allowed between Go's math
// (interpreted) and libm (compiled) for a function on a type: 2, except
// f64 pow, where Go's math.Pow (x^yi by repeated squaring times
// exp(yf·log x), each rounded) is not correctly rounded, and glibc's pow
// is: they differ by up to 3 ulp on the inputs here.
func ulpBound(key string) float64 {
	if key == "pow f64" {
		return 4
	}
	return 2
}

// caseBuilder collects a module's outputs.
type caseBuilder struct {
	m      *niro.Module
	f      *niro.Function
	b      *niro.Builder
	outs   []niro.Value
	labels []string
	libm   []string
}

func newCase(name string, inputs ...niro.Type) *caseBuilder {
	m := niro.NewModule()
	// The function type is completed in finish; the entry block's
	// arguments are made here.
	f := m.AddFunction(name, niro.FunctionType{Inputs: inputs})
	return &caseBuilder{m: m, f: f, b: f.Builder()}
}

func (cb *caseBuilder) arg(i int) niro.Value { return cb.f.Args()[i] }

func (cb *caseBuilder) out(label, libm string, v niro.Value) {
	if _, ok := v.Type.(niro.TensorType); !ok {
		return
	}
	cb.outs = append(cb.outs, v)
	cb.labels = append(cb.labels, label)
	cb.libm = append(cb.libm, libm)
}

func (cb *caseBuilder) op(label, libm string, op niro.Op) []niro.Value {
	vs := cb.b.Insert(op)
	for i, v := range vs {
		l := label
		if len(vs) > 1 {
			l = fmt.Sprintf("%s#%d", label, i)
		}
		cb.out(l, libm, v)
	}
	return vs
}

// tmp inserts a helper op whose result is not an output.
func (cb *caseBuilder) tmp(op niro.Op) niro.Value { return cb.b.Insert(op)[0] }

func (cb *caseBuilder) finish(inputs []tensorio.Tensor) oracleCase {
	if v := os.Getenv("NIRO_ORACLE_RANGE"); v != "" {
		var lo, hi int
		fmt.Sscanf(v, "%d-%d", &lo, &hi)
		hi = min(hi, len(cb.outs))
		cb.outs, cb.labels, cb.libm = cb.outs[lo:hi], cb.labels[lo:hi], cb.libm[lo:hi]
	}
	cb.b.Return(cb.outs...)
	for _, v := range cb.outs {
		cb.f.Type.Outputs = append(cb.f.Type.Outputs, v.Type)
	}
	return oracleCase{m: cb.m, inputs: inputs, labels: cb.labels, libm: cb.libm}
}

// libmUnary is the libm function behind a unary kind on elem, or "".
func libmUnary(k niro.UnaryKind, elem niro.ScalarType) string {
	switch k {
	case niro.Neg, niro.Abs, niro.Sqrt, niro.Floor, niro.Ceil, niro.Round, niro.Sign, niro.Not, niro.BitNot:
		return ""
	case niro.Exp, niro.Log, niro.Tanh, niro.Erf:
		if elem != niro.F64 {
			return "" // niro's polynomials: bit-identical
		}
	}
	return k.String()
}

// specialF are the float values every float input includes.
var specialF = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -2.5, 3.5, math.Inf(1), math.Inf(-1), math.NaN(), 1e-40, -1e-40, 65504, 1e30, -1e-3, 7}

// floatInput returns n values of elem, specials first, then random ones
// of mixed magnitude; plain restricts them to finite values in [-8, 8].
func floatInput(r *rand.Rand, elem niro.ScalarType, dims []int64, plain bool) tensorio.Tensor {
	n := int(tensorio.NumElements(dims))
	vals := make([]float64, n)
	for i := range vals {
		switch {
		case !plain && i < len(specialF):
			vals[i] = specialF[i]
		case plain:
			vals[i] = (r.Float64()*16 - 8)
		default:
			vals[i] = r.NormFloat64() * math.Pow(10, float64(r.IntN(5)-2))
		}
	}
	return floatTensor(elem, dims, vals)
}

func floatTensor(elem niro.ScalarType, dims []int64, vals []float64) tensorio.Tensor {
	t := tensorio.Tensor{Elem: elem, Dims: dims, Data: make([]byte, niro.PackedBytes(elem, int64(len(vals))))}
	for i, v := range vals {
		b := niro.FloatBits(elem, v)
		switch elem.Bits() {
		case 16:
			binary.LittleEndian.PutUint16(t.Data[2*i:], uint16(b))
		case 32:
			binary.LittleEndian.PutUint32(t.Data[4*i:], uint32(b))
		default:
			binary.LittleEndian.PutUint64(t.Data[8*i:], b)
		}
	}
	return t
}

// intInput returns values of elem in [lo, hi] (clipped to the type, and
// never the signed minimum, whose negation and division overflow).
func intInput(r *rand.Rand, elem niro.ScalarType, dims []int64, lo, hi int64, nonzero bool) tensorio.Tensor {
	n := int(tensorio.NumElements(dims))
	tlo, thi := elem.IntRange()
	if elem.IsSigned() {
		tlo++
	}
	if elem == niro.Bool {
		tlo, thi = 0, 1
	}
	lo = max(lo, tlo)
	if thi < uint64(math.MaxInt64) {
		hi = min(hi, int64(thi))
	}
	t := tensorio.Tensor{Elem: elem, Dims: dims, Data: make([]byte, niro.PackedBytes(elem, int64(n)))}
	size := max(elem.Bits()/8, 1)
	for i := 0; i < n; i++ {
		var v int64
		for {
			span := uint64(hi - lo)
			if span == math.MaxUint64 {
				v = int64(r.Uint64())
			} else {
				v = lo + int64(r.Uint64N(span+1))
			}
			if !nonzero || v != 0 {
				break
			}
		}
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(v))
		copy(t.Data[i*size:], b[:size])
	}
	return t
}

// familyCase builds one module exercising every op family on elem.
func familyCase(elem niro.ScalarType, seed uint64) oracleCase {
	r := rand.New(rand.NewPCG(seed, uint64(elem)))
	class := niro.ClassOf(elem)
	isF := elem.IsFloat()
	dims := []int64{4, 8}
	tt := func(d ...int64) niro.TensorType { return niro.Tensor(elem, d...) }
	ins := []niro.Type{tt(4, 8), tt(4, 8), tt(8, 5), tt(4, 8), tt(1, 2, 5, 5), tt(3, 2, 3, 3), tt(3)}
	cb := newCase("oracle_"+strings.ReplaceAll(elem.String(), "i1", "bool"), ins...)
	a, b, c, s := cb.arg(0), cb.arg(1), cb.arg(2), cb.arg(3)
	x4, w4, b4 := cb.arg(4), cb.arg(5), cb.arg(6)
	var inputs []tensorio.Tensor
	if isF {
		inputs = []tensorio.Tensor{
			floatInput(r, elem, dims, false), floatInput(r, elem, dims, true),
			floatInput(r, elem, []int64{8, 5}, true), floatInput(r, elem, dims, false),
			floatInput(r, elem, []int64{1, 2, 5, 5}, true), floatInput(r, elem, []int64{3, 2, 3, 3}, true),
			floatInput(r, elem, []int64{3}, true),
		}
	} else {
		nb := int64(elem.Bits())
		if elem == niro.Bool {
			nb = 1
		}
		inputs = []tensorio.Tensor{
			intInput(r, elem, dims, math.MinInt64, math.MaxInt64, false), intInput(r, elem, dims, -20, 20, true),
			intInput(r, elem, []int64{8, 5}, -9, 9, false), intInput(r, elem, dims, 0, nb-1, false),
			intInput(r, elem, []int64{1, 2, 5, 5}, 0, 9, false), intInput(r, elem, []int64{3, 2, 3, 3}, 0, 9, false),
			intInput(r, elem, []int64{3}, 0, 9, false),
		}
	}
	// Element-wise.
	var absB niro.Value
	if isF {
		absB = cb.tmp(&niro.Unary{Kind: niro.Abs, X: b})
	}
	for _, k := range niro.BinaryKinds() {
		if class&k.Info().Types == 0 {
			continue
		}
		if k == niro.Mod && class == niro.ClassUnsigned || (k == niro.And || k == niro.Or) && elem == niro.Bool {
			continue // the same MLIR op as rem (max, min): one value twice
		}
		rhs := b
		if k == niro.Shl || k == niro.Shr {
			rhs = s
		}
		libm := ""
		if k == niro.Pow {
			libm = "pow"
		}
		lhs := a
		if k == niro.Pow && elem == niro.F64 {
			lhs = absB
		}
		cb.op(k.String(), libm, &niro.Binary{Kind: k, LHS: lhs, RHS: rhs})
		if isF && k != niro.Pow {
			cb.op(k.String()+"(special,special)", libm, &niro.Binary{Kind: k, LHS: a, RHS: s})
		}
	}
	row := cb.tmp(&niro.Slice{Starts: []int64{1, 0}, Steps: []int64{1, 1}, Shape: []int64{1, 8}, X: b})
	cb.op("add broadcast", "", &niro.Binary{Kind: niro.Max, LHS: a, RHS: row})
	for _, k := range niro.UnaryKinds() {
		if class&k.Info().Types == 0 {
			continue
		}
		if k == niro.Abs && class == niro.ClassUnsigned {
			continue // the identity
		}
		x, libm := a, libmUnary(k, elem)
		if libm != "" && elem == niro.F64 {
			// Go's float64 sin, tan and pow differ from glibc's by tens
			// of ulps on huge arguments; compare on [-8, 8].
			x = b
		}
		cb.op(k.String(), libm, &niro.Unary{Kind: k, X: x})
	}
	for _, p := range niro.Predicates() {
		cb.op("cmp_"+p.String(), "", &niro.Compare{Pred: p, LHS: a, RHS: s})
	}
	lt := cb.tmp(&niro.Compare{Pred: niro.Lt, LHS: a, RHS: b})
	cb.op("select", "", &niro.Select{Cond: lt, X: a, Y: b})
	for _, to := range []niro.ScalarType{niro.Bool, niro.I8, niro.I16, niro.I32, niro.I64, niro.U8, niro.U16, niro.U32, niro.U64, niro.F16, niro.BF16, niro.F32, niro.F64} {
		src := a
		if isF && !to.IsFloat() && to != niro.Bool {
			// Float to integer: in range only (outside it is undefined).
			src = b
			if !to.IsSigned() {
				src = absB
			}
		}
		if to == elem || !isF && to.IsInt() && (!to.IsSigned() || elem != niro.Bool && to.Bits() == elem.Bits()) {
			// The identity, or the same MLIR cast as the signed target of
			// the width: two outputs would be one value, which the
			// lowering does not support (buffer-results-to-out-params
			// crashes on a value returned twice).
			continue
		}
		cb.op("cast to "+to.String(), "", &niro.Cast{To: to, X: src})
	}
	// Reductions and scans.
	for _, k := range niro.ReduceKinds() {
		if class&k.Info().Types == 0 {
			continue
		}
		for _, axes := range [][]int{{0}, {1}, {0, 1}} {
			cb.op(fmt.Sprintf("%s %v", k, axes), "", &niro.Reduce{Kind: k, Axes: axes, X: a})
		}
		cb.op(k.String()+" plain", "", &niro.Reduce{Kind: k, Axes: []int{1}, KeepDims: true, X: b})
	}
	if class&niro.ClassNumeric != 0 {
		cb.op("cumsum", "", &niro.CumSum{Axis: 1, X: b})
		cb.op("cumsum exclusive reverse", "", &niro.CumSum{Axis: 0, Exclusive: true, Reverse: true, X: a})
		cb.op("cumprod", "", &niro.CumSum{Axis: 1, Prod: true, X: b})
		for _, k := range []niro.ArgReduceKind{niro.ArgMax, niro.ArgMin} {
			cb.op(k.String(), "", &niro.ArgReduce{Kind: k, Axis: 1, X: a})
			cb.op(k.String()+" last", "", &niro.ArgReduce{Kind: k, Axis: 0, SelectLast: true, KeepDims: true, X: s})
		}
		cb.op("topk largest", "", &niro.TopK{Axis: 1, K: 3, Largest: true, Sorted: true, X: a})
		cb.op("topk smallest", "", &niro.TopK{Axis: 0, K: 2, Sorted: true, X: s})
		cb.out("matmul", "", cb.b.MatMul(b, c))
	}
	// Data movement.
	cb.out("transpose", "", cb.b.Transpose(a, 1, 0))
	cb.op("slice", "", &niro.Slice{Starts: []int64{3, 6}, Steps: []int64{-2, -3}, Shape: []int64{2, 3}, X: a})
	cb.op("concat", "", &niro.Concat{Axis: 0, Inputs: []niro.Value{a, b, s}})
	cb.op("broadcast", "", &niro.Broadcast{Shape: []int64{2, 4, 8}, X: a})
	cb.op("reshape", "", &niro.Reshape{Shape: []int64{8, 4}, X: a})
	if class&niro.ClassNumeric != 0 {
		cb.op("iota", "", &niro.Iota{Axis: 1, Type: tt(3, 4)})
	}
	zero := cb.b.Const(tt(), niro.BytesLit(make([]byte, niro.PackedBytes(elem, 1))))
	for _, mode := range niro.PadModes {
		cb.op("pad "+mode, "", &niro.Pad{Mode: mode, Low: []int64{1, -2}, High: []int64{2, 3}, X: a, Value: zero})
	}
	idx := cb.b.Const(niro.Tensor(niro.I64, 2, 3), niro.BytesLit(i64s(3, -1, 0, 7, -8, 2)))
	cb.op("gather", "", &niro.Gather{Axis: 1, X: a, Indices: idx})
	cb.op("gather_elements", "", &niro.GatherElements{Axis: 0, X: a, Indices: cb.b.Const(niro.Tensor(niro.I64, 2, 8), niro.BytesLit(i64s(0, 1, 2, 3, -1, -2, -3, -4, 3, 2, 1, 0, 0, 0, 1, 1)))})
	cb.op("gather_nd", "", &niro.GatherND{X: a, Indices: cb.b.Const(niro.Tensor(niro.I64, 3, 1), niro.BytesLit(i64s(2, 0, -1)))})
	if class&niro.ClassNumeric != 0 {
		ui := cb.b.Const(niro.Tensor(niro.I64, 2, 8), niro.BytesLit(i64s(0, 1, 2, 3, 0, 1, 2, 3, 0, 0, 0, 0, 3, 3, 3, 3)))
		upd := cb.tmp(&niro.Slice{Starts: []int64{0, 0}, Steps: []int64{1, 1}, Shape: []int64{2, 8}, X: b})
		for _, red := range []niro.ScatterReduction{niro.ScatterNone, niro.ScatterAdd, niro.ScatterMul, niro.ScatterMax, niro.ScatterMin} {
			cb.op("scatter_elements "+red.String(), "", &niro.Scatter{Kind: niro.ScatterElements, Reduction: red, X: a, Indices: ui, Updates: upd})
		}
		ndi := cb.b.Const(niro.Tensor(niro.I64, 2, 1), niro.BytesLit(i64s(1, 1)))
		upd2 := cb.tmp(&niro.Slice{Starts: []int64{0, 0}, Steps: []int64{1, 1}, Shape: []int64{2, 8}, X: s})
		cb.op("scatter_nd add", "", &niro.Scatter{Kind: niro.ScatterND, Reduction: niro.ScatterAdd, X: a, Indices: ndi, Updates: upd2})
	}
	// Windows.
	if class&niro.ClassNumeric != 0 {
		mp := &niro.Pool{Kind: niro.PoolMax, Kernel: []int64{3, 2}, Strides: []int64{2, 1}, Dilations: []int64{1, 2}, Pads: []int64{1, 0, 1, 1}, CeilMode: true, X: x4}
		cb.op("max_pool", "", mp)
		cb.op("max_pool_indices", "", &niro.MaxPoolIndices{Kernel: mp.Kernel, Strides: mp.Strides, Dilations: mp.Dilations, Pads: mp.Pads, CeilMode: true, X: x4})
		cb.op("max_pool_indices col", "", &niro.MaxPoolIndices{Kernel: []int64{2, 2}, Strides: []int64{1, 1}, Dilations: []int64{1, 1}, Pads: []int64{0, 0, 0, 0}, StorageOrder: 1, X: x4})
	}
	if isF {
		cb.op("conv", "", &niro.Conv{Strides: []int64{1, 1}, Dilations: []int64{1, 1}, Pads: []int64{1, 1, 1, 1}, Groups: 1, X: x4, W: w4, B: b4})
		cb.op("conv strided dilated", "", &niro.Conv{Strides: []int64{2, 1}, Dilations: []int64{1, 2}, Pads: []int64{0, 2, 1, 0}, Groups: 1, X: x4, W: w4})
		cb.op("conv special", "", &niro.Conv{Strides: []int64{1, 1}, Dilations: []int64{1, 1}, Pads: []int64{1, 1, 1, 1}, Groups: 1, X: x4,
			W: cb.tmp(&niro.Reshape{Shape: []int64{1, 2, 4, 2}, X: cb.tmp(&niro.Slice{Starts: []int64{0, 0}, Steps: []int64{1, 1}, Shape: []int64{2, 8}, X: a})})})
		cb.op("avg_pool", "", &niro.Pool{Kind: niro.PoolAvg, Kernel: []int64{3, 3}, Strides: []int64{2, 2}, Dilations: []int64{1, 1}, Pads: []int64{1, 1, 1, 1}, CeilMode: true, X: x4})
		cb.op("avg_pool include pad", "", &niro.Pool{Kind: niro.PoolAvg, Kernel: []int64{2, 3}, Strides: []int64{1, 2}, Dilations: []int64{1, 1}, Pads: []int64{1, 0, 0, 1}, CountIncludePad: true, X: x4})
		for _, p := range []int64{1, 2, 3} {
			libm := ""
			if p == 3 {
				libm = "pow"
			}
			cb.op(fmt.Sprintf("lp_pool p=%d", p), libm, &niro.Pool{Kind: niro.PoolLp, P: p, Kernel: []int64{2, 2}, Strides: []int64{1, 1}, Dilations: []int64{1, 1}, Pads: []int64{0, 0, 1, 1}, X: x4})
		}
	}
	return cb.finish(inputs)
}

func i64s(vals ...int64) []byte {
	b := make([]byte, 8*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
	}
	return b
}

// oracleElems are the element types emit supports.
var oracleElems = []niro.ScalarType{niro.F32, niro.F16, niro.BF16, niro.F64, niro.I8, niro.I16, niro.I32, niro.I64, niro.U8, niro.U16, niro.U32, niro.U64, niro.Bool}

// TestInterpOracle compares the interpreter with the compiled code on
// every op family and every element type emit supports: bit for bit,
// except the libm functions, which must be within 2 ulp. It logs the
// measured ulp table.
func TestInterpOracle(t *testing.T) {
	requireTools(t)
	ulps := map[string]float64{}
	for _, elem := range oracleElems {
		t.Run(elem.String(), func(t *testing.T) {
			checkOracle(t, familyCase(elem, 1), ulps)
		})
	}
	var keys []string
	for k := range ulps {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var sb strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&sb, "\n  %-12s %g ulp", k, ulps[k])
	}
	t.Logf("max ulp distance, interpreter (Go math) vs compiled (libm):%s", sb.String())
}

// compareInterp runs m under the interpreter and compares its outputs
// with the compiled ones: integers and bools bit for bit, floats within
// 2 ulp, f64 within 4 (NaN equal to NaN; the bf16 subnormals that
// AVX512-BF16 flushes accepted). It returns "" or what differs. TestConformanceHost calls it
// with -conformance-interp.
func compareInterp(m *niro.Module, inputs, compiled []tensorio.Tensor) string {
	got, err := interp.Run(m, inputs, interp.Options{})
	if err != nil {
		return "interp: " + oneLine(err)
	}
	for i, want := range compiled {
		if ok, _ := sameBits(got[i], want); ok {
			continue
		}
		if _, ok := bf16Flushed(got[i], want); ok {
			continue
		}
		if !want.Elem.IsFloat() || niro.IsCastOnly(want.Elem) {
			return fmt.Sprintf("output %d: interpreter and compiled code differ", i)
		}
		// f64: Go's exp and log differ from glibc's by an ulp, which sums
		// and divisions downstream (an f64 softmax) carry to 3 ulp.
		bound := 2.0
		if want.Elem == niro.F64 {
			bound = 4
		}
		if d, at := ulpDistance(got[i], want); d > bound {
			return fmt.Sprintf("output %d: interpreter %s, compiled %s at %d (%g ulp)", i, tensorio.FormatElem(got[i], int64(at)), tensorio.FormatElem(want, int64(at)), at, d)
		}
	}
	return ""
}

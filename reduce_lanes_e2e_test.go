package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/niro-dev/niro/interp"
	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
)

// laneCase is one long reduction: the operand's shape, the reduced axes,
// the niro reduction and an element-wise step before and after it, as the
// ONNX Reduce* ops map (docs/ops.md, "Reduce").
type laneCase struct {
	dims []int64
	axes []int
	keep bool
}

// laneKinds: name -> (reduction, step before, step after).
var laneKinds = []struct{ name, reduce, pre, post string }{
	{"sum", "reduce_sum", "", ""},
	{"mean", "reduce_sum", "", "div"},
	{"prod", "reduce_prod", "", ""},
	{"max", "reduce_max", "", ""},
	{"min", "reduce_min", "", ""},
	{"sumsquare", "reduce_sum", "mul", ""},
	{"l1", "reduce_sum", "abs", ""},
	{"l2", "reduce_sum", "mul", "sqrt"},
}

// laneOrder folds xs (a result element's run, in run order) in the lane
// order of docs/ops.md: lane l folds positions l, l+4096, ... from the
// seed as f(x, lane); then the lanes 0..4095 fold in order from the seed
// as f(lane, acc). A run of at most 4096 folds in order.
func laneOrder(xs []float64, seed float64, f func(a, b float64) float64) float64 {
	const lanes = niro.ReduceLanes
	if len(xs) <= lanes {
		acc := seed
		for _, v := range xs {
			acc = f(v, acc)
		}
		return acc
	}
	part := make([]float64, lanes)
	for l := range part {
		part[l] = seed
		for p := l; p < len(xs); p += lanes {
			part[l] = f(xs[p], part[l])
		}
	}
	acc := seed
	for _, v := range part {
		acc = f(v, acc)
	}
	return acc
}

// TestE2EReduceLanes compiles reductions whose runs are longer than the
// 4096 lanes (4097, 5000, a 112 x 112 global pool's 12544, 3 x 70000, and
// reduced axes before and around a kept one) for the host and checks their
// bits against the interpreter and against a Go loop of the documented
// lane order, in f32, f64 and f16 (f16 folded in f32, rounded once).
func TestE2EReduceLanes(t *testing.T) {
	requireTools(t)
	cases := []laneCase{
		{[]int64{4097}, []int{0}, false},
		{[]int64{5000}, []int{0}, false},
		{[]int64{1, 2, 112, 112}, []int{2, 3}, true},
		{[]int64{3, 70000}, []int{1}, false},
		{[]int64{3000, 2, 3}, []int{0, 2}, false},
	}
	inOrderDiffers := 0
	for _, elem := range []niro.ScalarType{niro.F32, niro.F64, niro.F16} {
		for _, c := range cases {
			for _, k := range laneKinds {
				name := fmt.Sprintf("%s/%v/%s", elem, c.dims, k.name)
				if k.post == "div" && elem == niro.F16 && runLen(c) > 65504 {
					continue // the count is not an f16
				}
				t.Run(name, func(t *testing.T) {
					differs := runLaneCase(t, elem, c, k.reduce, k.pre, k.post)
					if differs {
						inOrderDiffers++
					}
				})
			}
		}
	}
	// The lane order is a different order of additions: some of these sums
	// must differ from the in-order ones, or the test could not tell them
	// apart.
	if inOrderDiffers == 0 {
		t.Errorf("no case differs from the in-order fold")
	}
}

func runLen(c laneCase) int64 {
	n := int64(1)
	for _, a := range c.axes {
		n *= c.dims[a]
	}
	return n
}

// runLaneCase compiles and runs one case and compares; it reports whether
// the in-order fold would have given other bits.
func runLaneCase(t *testing.T, elem niro.ScalarType, c laneCase, reduce, pre, post string) bool {
	es := map[niro.ScalarType]string{niro.F32: "f32", niro.F64: "f64", niro.F16: "f16"}[elem]
	ty := func(d []int64) string {
		var sb strings.Builder
		sb.WriteString("tensor<")
		for _, v := range d {
			fmt.Fprintf(&sb, "%dx", v)
		}
		return sb.String() + es + ">"
	}
	red := map[int]bool{}
	for _, a := range c.axes {
		red[a] = true
	}
	var rdims, kdims []int64
	for i, d := range c.dims {
		switch {
		case !red[i]:
			rdims = append(rdims, d)
			kdims = append(kdims, d)
		case c.keep:
			rdims = append(rdims, 1)
		}
	}
	xt, rt := ty(c.dims), ty(rdims)
	L := runLen(c)
	var body strings.Builder
	in := "%0"
	switch pre {
	case "mul":
		fmt.Fprintf(&body, "  %%1 = mul %%0, %%0 : (%s, %s) -> %s\n", xt, xt, xt)
		in = "%1"
	case "abs":
		fmt.Fprintf(&body, "  %%1 = abs %%0 : (%s) -> %s\n", xt, xt)
		in = "%1"
	}
	axes := strings.Trim(strings.Join(strings.Fields(fmt.Sprint(c.axes)), ", "), "[]")
	fmt.Fprintf(&body, "  %%2 = %s %s {axes = [%s], keep_dims = %v} : (%s) -> %s\n", reduce, in, axes, c.keep, xt, rt)
	out := "%2"
	switch post {
	case "div":
		cb := make([]byte, 8)
		switch elem {
		case niro.F32:
			binary.LittleEndian.PutUint32(cb, math.Float32bits(float32(L)))
			cb = cb[:4]
		case niro.F64:
			binary.LittleEndian.PutUint64(cb, math.Float64bits(float64(L)))
		default:
			binary.LittleEndian.PutUint16(cb, tensorio.F16FromFloat32(float32(L)))
			cb = cb[:2]
		}
		fmt.Fprintf(&body, "  %%3 = const 0x%X : tensor<%s>\n", cb, es)
		fmt.Fprintf(&body, "  %%4 = div %%2, %%3 : (%s, tensor<%s>) -> %s\n", rt, es, rt)
		out = "%4"
	case "sqrt":
		fmt.Fprintf(&body, "  %%4 = sqrt %%2 : (%s) -> %s\n", rt, rt)
		out = "%4"
	}
	src := fmt.Sprintf("func @lanes(%s) -> (%s) {\n^bb0(%%0: %s):\n%s  return %s : %s\n}\n", xt, rt, xt, body.String(), out, rt)

	// Inputs: inexact values of both signs; near 1 for a product.
	n := 1
	for _, d := range c.dims {
		n *= int(d)
	}
	vals := make([]float64, n)
	for i := range vals {
		s := math.Sin(float64(i)*1.3 + 0.7)
		if reduce == "reduce_prod" {
			vals[i] = 1 + s/64
		} else {
			vals[i] = s * 3
		}
	}
	// Round to the element type; encode.
	round := func(v float64) float64 {
		switch elem {
		case niro.F32:
			return float64(float32(v))
		case niro.F16:
			return tensorio.F16ToFloat64(tensorio.F16FromFloat32(float32(v)))
		}
		return v
	}
	size := map[niro.ScalarType]int{niro.F32: 4, niro.F64: 8, niro.F16: 2}[elem]
	data := make([]byte, n*size)
	for i := range vals {
		vals[i] = round(vals[i])
		switch elem {
		case niro.F32:
			binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(float32(vals[i])))
		case niro.F64:
			binary.LittleEndian.PutUint64(data[8*i:], math.Float64bits(vals[i]))
		default:
			binary.LittleEndian.PutUint16(data[2*i:], tensorio.F16FromFloat32(float32(vals[i])))
		}
	}
	x := tensorio.Tensor{Elem: elem, Dims: c.dims, Data: data}
	got := runNiro(t, src, x)[0]

	// The interpreter, bit for bit.
	m, err := niro.Parse("lanes.niro", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	iout, err := interp.Run(m, []tensorio.Tensor{x}, interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ok, at := sameBits(iout[0], got); !ok {
		t.Errorf("interpreter %s, compiled %s at %d", tensorio.FormatElem(iout[0], int64(at)), tensorio.FormatElem(got, int64(at)), at)
	}

	// A Go loop of the documented order: the accumulator is f64 for f64
	// and f32 otherwise (each step rounded to f32).
	acc := func(v float64) float64 {
		if elem == niro.F64 {
			return v
		}
		return float64(float32(v))
	}
	var seed float64
	var f func(a, b float64) float64
	switch reduce {
	case "reduce_sum":
		f = func(a, b float64) float64 { return acc(a + b) }
	case "reduce_prod":
		seed, f = 1, func(a, b float64) float64 { return acc(a * b) }
	case "reduce_max":
		seed, f = math.Inf(-1), math.Max
	case "reduce_min":
		seed, f = math.Inf(1), math.Min
	}
	preF := func(v float64) float64 { return v }
	switch pre {
	case "mul":
		preF = func(v float64) float64 { return round(acc(v * v)) }
	case "abs":
		preF = math.Abs
	}
	// Runs: every result element's positions in row-major order of the
	// reduced axes.
	nk := 1
	for _, d := range kdims {
		nk *= int(d)
	}
	runs := make([][]float64, nk)
	idx := make([]int64, len(c.dims))
	for i := 0; i < n; i++ {
		o := 0
		for a, d := range c.dims {
			if !red[a] {
				o = o*int(d) + int(idx[a])
			}
		}
		runs[o] = append(runs[o], preF(vals[i]))
		for a := len(c.dims) - 1; a >= 0; a-- {
			idx[a]++
			if idx[a] < c.dims[a] {
				break
			}
			idx[a] = 0
		}
	}
	differs := false
	for o, r := range runs {
		lane := laneOrder(r, seed, f)
		order := seed
		for _, v := range r {
			order = f(v, order)
		}
		finish := func(v float64) float64 {
			v = round(v)
			switch post {
			case "div":
				v = round(acc(v / float64(L)))
			case "sqrt":
				v = round(acc(math.Sqrt(v)))
			}
			return v
		}
		want, inOrder := finish(lane), finish(order)
		if math.Float64bits(inOrder) != math.Float64bits(want) {
			differs = true
		}
		var g float64
		switch elem {
		case niro.F32:
			g = float64(math.Float32frombits(binary.LittleEndian.Uint32(got.Data[4*o:])))
		case niro.F64:
			g = math.Float64frombits(binary.LittleEndian.Uint64(got.Data[8*o:]))
		default:
			g = tensorio.F16ToFloat64(binary.LittleEndian.Uint16(got.Data[2*o:]))
		}
		if math.Float64bits(g) != math.Float64bits(want) {
			t.Errorf("element %d: compiled %v, the lane order gives %v (in order: %v)", o, g, want, inOrder)
		}
	}
	return differs
}

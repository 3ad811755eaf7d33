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
// lane order, in f32, f64, f16 and bf16 (16-bit types folded in f32,
// rounded once), including a run with two kept axes before it (rank 3) and
// two reduced axes after two kept ones (rank 4): the host vectorizes the
// lane partials of a run over the trailing axes. Each (type, shape) is one
// program with every kind of laneKinds as an output.
func TestE2EReduceLanes(t *testing.T) {
	requireTools(t)
	cases := []laneCase{
		{[]int64{4097}, []int{0}, false},
		{[]int64{5000}, []int{0}, false},
		{[]int64{1, 2, 112, 112}, []int{2, 3}, true},
		{[]int64{3, 70000}, []int{1}, false},
		{[]int64{3000, 2, 3}, []int{0, 2}, false},
		{[]int64{2, 3, 5000}, []int{2}, true},
		{[]int64{2, 2, 3, 3000}, []int{2, 3}, false},
	}
	inOrderDiffers := 0
	for _, elem := range []niro.ScalarType{niro.F32, niro.F64, niro.F16, niro.BF16} {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s/%v", elem, c.dims), func(t *testing.T) {
				inOrderDiffers += runLaneCase(t, elem, c)
			})
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

// runLaneCase compiles and runs one shape with every kind and compares; it
// returns how many results the in-order fold would have given other bits.
func runLaneCase(t *testing.T, elem niro.ScalarType, c laneCase) int {
	es := map[niro.ScalarType]string{niro.F32: "f32", niro.F64: "f64", niro.F16: "f16", niro.BF16: "bf16"}[elem]
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
	round := func(v float64) float64 {
		switch elem {
		case niro.F32:
			return float64(float32(v))
		case niro.F16:
			return tensorio.F16ToFloat64(tensorio.F16FromFloat32(float32(v)))
		case niro.BF16:
			return float64(math.Float32frombits(uint32(tensorio.BF16FromFloat32(float32(v))) << 16))
		}
		return v
	}
	// The kinds this type takes: a mean's count must be exact in the type.
	var kinds []int
	for i, k := range laneKinds {
		if k.post == "div" && round(float64(L)) != float64(L) {
			continue
		}
		kinds = append(kinds, i)
	}
	// %0 is the operand, %1 the product's (values near 1).
	var body strings.Builder
	next := 2
	val := func() string {
		v := fmt.Sprintf("%%%d", next)
		next++
		return v
	}
	var outs []string
	axes := strings.Trim(strings.Join(strings.Fields(fmt.Sprint(c.axes)), ", "), "[]")
	for _, ki := range kinds {
		k := laneKinds[ki]
		in := "%0"
		if k.reduce == "reduce_prod" {
			in = "%1"
		}
		switch k.pre {
		case "mul":
			v := val()
			fmt.Fprintf(&body, "  %s = mul %s, %s : (%s, %s) -> %s\n", v, in, in, xt, xt, xt)
			in = v
		case "abs":
			v := val()
			fmt.Fprintf(&body, "  %s = abs %s : (%s) -> %s\n", v, in, xt, xt)
			in = v
		}
		out := val()
		fmt.Fprintf(&body, "  %s = %s %s {axes = [%s], keep_dims = %v} : (%s) -> %s\n", out, k.reduce, in, axes, c.keep, xt, rt)
		switch k.post {
		case "div":
			cb := make([]byte, 8)
			switch elem {
			case niro.F32:
				binary.LittleEndian.PutUint32(cb, math.Float32bits(float32(L)))
				cb = cb[:4]
			case niro.F64:
				binary.LittleEndian.PutUint64(cb, math.Float64bits(float64(L)))
			case niro.BF16:
				binary.LittleEndian.PutUint16(cb, tensorio.BF16FromFloat32(float32(L)))
				cb = cb[:2]
			default:
				binary.LittleEndian.PutUint16(cb, tensorio.F16FromFloat32(float32(L)))
				cb = cb[:2]
			}
			cv, v := val(), val()
			fmt.Fprintf(&body, "  %s = const 0x%X : tensor<%s>\n", cv, cb, es)
			fmt.Fprintf(&body, "  %s = div %s, %s : (%s, tensor<%s>) -> %s\n", v, out, cv, rt, es, rt)
			out = v
		case "sqrt":
			v := val()
			fmt.Fprintf(&body, "  %s = sqrt %s : (%s) -> %s\n", v, out, rt, rt)
			out = v
		}
		outs = append(outs, out)
	}
	rts := strings.TrimSuffix(strings.Repeat(rt+", ", len(outs)), ", ")
	src := fmt.Sprintf("func @lanes(%[1]s, %[1]s) -> (%[2]s) {\n^bb0(%%0: %[1]s, %%1: %[1]s):\n%[3]s  return %[4]s : %[2]s\n}\n",
		xt, rts, body.String(), strings.Join(outs, ", "))

	// Inputs: inexact values of both signs, and values near 1 for a product,
	// rounded to the element type.
	n := 1
	for _, d := range c.dims {
		n *= int(d)
	}
	size := map[niro.ScalarType]int{niro.F32: 4, niro.F64: 8, niro.F16: 2, niro.BF16: 2}[elem]
	encode := func(vals []float64) tensorio.Tensor {
		data := make([]byte, n*size)
		for i, v := range vals {
			switch elem {
			case niro.F32:
				binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(float32(v)))
			case niro.F64:
				binary.LittleEndian.PutUint64(data[8*i:], math.Float64bits(v))
			case niro.BF16:
				binary.LittleEndian.PutUint16(data[2*i:], tensorio.BF16FromFloat32(float32(v)))
			default:
				binary.LittleEndian.PutUint16(data[2*i:], tensorio.F16FromFloat32(float32(v)))
			}
		}
		return tensorio.Tensor{Elem: elem, Dims: c.dims, Data: data}
	}
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range xs {
		s := math.Sin(float64(i)*1.3 + 0.7)
		xs[i], ys[i] = round(s*3), round(1+s/64)
	}
	x, y := encode(xs), encode(ys)
	got := runNiro(t, src, x, y)

	// The interpreter, bit for bit.
	m, err := niro.Parse("lanes.niro", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	iout, err := interp.Run(m, []tensorio.Tensor{x, y}, interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if ok, at := sameBits(iout[i], got[i]); !ok {
			t.Errorf("%s: interpreter %s, compiled %s at %d", laneKinds[kinds[i]].name, tensorio.FormatElem(iout[i], int64(at)), tensorio.FormatElem(got[i], int64(at)), at)
		}
	}

	// A Go loop of the documented order: the accumulator is f64 for f64
	// and f32 otherwise (each step rounded to f32).
	acc := func(v float64) float64 {
		if elem == niro.F64 {
			return v
		}
		return float64(float32(v))
	}
	nk := 1
	for _, d := range kdims {
		nk *= int(d)
	}
	differs := 0
	for oi, ki := range kinds {
		k := laneKinds[ki]
		var seed float64
		var f func(a, b float64) float64
		src := xs
		switch k.reduce {
		case "reduce_sum":
			f = func(a, b float64) float64 { return acc(a + b) }
		case "reduce_prod":
			seed, f, src = 1, func(a, b float64) float64 { return acc(a * b) }, ys
		case "reduce_max":
			seed, f = math.Inf(-1), math.Max
		case "reduce_min":
			seed, f = math.Inf(1), math.Min
		}
		preF := func(v float64) float64 { return v }
		switch k.pre {
		case "mul":
			preF = func(v float64) float64 { return round(acc(v * v)) }
		case "abs":
			preF = math.Abs
		}
		// Runs: every result element's positions in row-major order of
		// the reduced axes.
		runs := make([][]float64, nk)
		idx := make([]int64, len(c.dims))
		for i := 0; i < n; i++ {
			o := 0
			for a, d := range c.dims {
				if !red[a] {
					o = o*int(d) + int(idx[a])
				}
			}
			runs[o] = append(runs[o], preF(src[i]))
			for a := len(c.dims) - 1; a >= 0; a-- {
				idx[a]++
				if idx[a] < c.dims[a] {
					break
				}
				idx[a] = 0
			}
		}
		finish := func(v float64) float64 {
			v = round(v)
			switch k.post {
			case "div":
				v = round(acc(v / float64(L)))
			case "sqrt":
				v = round(acc(math.Sqrt(v)))
			}
			return v
		}
		out := got[oi]
		for o, r := range runs {
			order := seed
			for _, v := range r {
				order = f(v, order)
			}
			want, inOrder := finish(laneOrder(r, seed, f)), finish(order)
			if math.Float64bits(inOrder) != math.Float64bits(want) {
				differs++
			}
			var g float64
			switch elem {
			case niro.F32:
				g = float64(math.Float32frombits(binary.LittleEndian.Uint32(out.Data[4*o:])))
			case niro.F64:
				g = math.Float64frombits(binary.LittleEndian.Uint64(out.Data[8*o:]))
			case niro.BF16:
				g = float64(math.Float32frombits(uint32(binary.LittleEndian.Uint16(out.Data[2*o:])) << 16))
			default:
				g = tensorio.F16ToFloat64(binary.LittleEndian.Uint16(out.Data[2*o:]))
			}
			if math.Float64bits(g) != math.Float64bits(want) {
				t.Errorf("%s, element %d: compiled %v, the lane order gives %v (in order: %v)", k.name, o, g, want, inOrder)
			}
		}
	}
	return differs
}

// TestE2EReduceLanesChains compiles the long reductions of Softmax,
// LogSoftmax and log-sum-exp as the importer writes them (the max, exp(x -
// max), its sum, then the divide or the log) over rows past the 4096 lanes
// (a vocabulary-sized 8 x 50257, and a rank-3 run with two kept axes), and
// integer sums, products, max and min, and checks the host's bits against
// host-O0's (runNiro) and the interpreter's.
func TestE2EReduceLanesChains(t *testing.T) {
	requireTools(t)
	ty := func(d []int64, es string) string {
		var sb strings.Builder
		sb.WriteString("tensor<")
		for _, v := range d {
			fmt.Fprintf(&sb, "%dx", v)
		}
		return sb.String() + es + ">"
	}
	check := func(t *testing.T, src string, in tensorio.Tensor) {
		t.Helper()
		got := runNiro(t, src, in)
		m, err := niro.Parse("chains.niro", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		want, err := interp.Run(m, []tensorio.Tensor{in}, interp.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if ok, at := sameBits(want[i], got[i]); !ok {
				t.Errorf("output %d: interpreter %s, compiled %s at %d", i, tensorio.FormatElem(want[i], int64(at)), tensorio.FormatElem(got[i], int64(at)), at)
			}
		}
	}
	for _, dims := range [][]int64{{8, 50257}, {2, 3, 5000}} {
		t.Run(fmt.Sprint(dims), func(t *testing.T) {
			r := len(dims)
			kd := append(append([]int64(nil), dims[:r-1]...), 1)
			xt, kt := ty(dims, "f32"), ty(kd, "f32")
			src := fmt.Sprintf(`func @chains(%[1]s) -> (%[1]s, %[1]s, %[2]s) {
^bb0(%%0: %[1]s):
  %%1 = reduce_max %%0 {axes = [%[3]d], keep_dims = true} : (%[1]s) -> %[2]s
  %%2 = sub %%0, %%1 : (%[1]s, %[2]s) -> %[1]s
  %%3 = exp %%2 : (%[1]s) -> %[1]s
  %%4 = reduce_sum %%3 {axes = [%[3]d], keep_dims = true} : (%[1]s) -> %[2]s
  %%5 = div %%3, %%4 : (%[1]s, %[2]s) -> %[1]s
  %%6 = log %%4 : (%[2]s) -> %[2]s
  %%7 = sub %%2, %%6 : (%[1]s, %[2]s) -> %[1]s
  %%8 = add %%6, %%1 : (%[2]s, %[2]s) -> %[2]s
  return %%5, %%7, %%8 : %[1]s, %[1]s, %[2]s
}
`, xt, kt, r-1)
			n := 1
			for _, d := range dims {
				n *= int(d)
			}
			vals := make([]float32, n)
			for i := range vals {
				vals[i] = float32(math.Sin(float64(i)*0.37+0.2) * 8)
			}
			check(t, src, tf32(dims, vals))
		})
	}
	t.Run("i32", func(t *testing.T) {
		dims := []int64{3, 5000}
		xt, rt := ty(dims, "i32"), ty([]int64{3}, "i32")
		var body strings.Builder
		var outs []string
		for i, k := range []string{"sum", "prod", "max", "min"} {
			fmt.Fprintf(&body, "  %%%d = reduce_%s %%0 {axes = [1]} : (%s) -> %s\n", i+1, k, xt, rt)
			outs = append(outs, fmt.Sprintf("%%%d", i+1))
		}
		rts := strings.TrimSuffix(strings.Repeat(rt+", ", 4), ", ")
		src := fmt.Sprintf("func @ints(%s) -> (%s) {\n^bb0(%%0: %s):\n%s  return %s : %s\n}\n", xt, rts, xt, body.String(), strings.Join(outs, ", "), rts)
		data := make([]byte, 4*3*5000)
		for i := 0; i < 3*5000; i++ {
			v := int32(i*7919%201) - 100
			if i%5 == 0 {
				v = int32([]int{1, -1, 2, 3}[i%4])
			}
			binary.LittleEndian.PutUint32(data[4*i:], uint32(v))
		}
		check(t, src, tensorio.Tensor{Elem: niro.I32, Dims: dims, Data: data})
	})
}

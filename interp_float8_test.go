package main

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/niro-dev/niro/interp"
	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
)

// interpCast evaluates one cast under the interpreter.
func interpCast(t *testing.T, in tensorio.Tensor, to niro.ScalarType, noSaturate bool) tensorio.Tensor {
	t.Helper()
	op := &niro.Cast{To: to, NoSaturate: noSaturate,
		X:      niro.Value{ID: 0, Type: niro.Tensor(in.Elem, in.Dims...)},
		Result: niro.Value{ID: 1, Type: niro.Tensor(to, in.Dims...)}}
	out, err := interp.EvalOp(op, []tensorio.Tensor{in}, interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return out[0]
}

// TestInterpFloat8Casts checks the interpreter's casts to and from the
// 8-bit floats bit for bit against the independent reference of
// float8_e2e_test.go (which checks the compiled code against it): f32 and
// f64 inputs exercising every rounding case, in both saturation modes; all
// 256 codes decoded; and every code cast to each other 8-bit float.
func TestInterpFloat8Casts(t *testing.T) {
	xs := f8Inputs()
	f32 := tensorio.Tensor{Elem: niro.F32, Dims: []int64{int64(len(xs))}, Data: make([]byte, 4*len(xs))}
	// f64 inputs: the f32 ones, and each nudged by a quarter of an f32 ulp
	// (a value an f32 step would round to a midpoint, then round again).
	var ds []float64
	for _, x := range xs {
		v := float64(x)
		ds = append(ds, v, v+math.Abs(v)*0x1p-26, v-math.Abs(v)*0x1p-26)
	}
	f64 := tensorio.Tensor{Elem: niro.F64, Dims: []int64{int64(len(ds))}, Data: make([]byte, 8*len(ds))}
	for i, x := range xs {
		binary.LittleEndian.PutUint32(f32.Data[4*i:], math.Float32bits(x))
	}
	for i, d := range ds {
		binary.LittleEndian.PutUint64(f64.Data[8*i:], math.Float64bits(d))
	}
	codes := tensorio.Tensor{Dims: []int64{256}, Data: make([]byte, 256)}
	for i := range codes.Data {
		codes.Data[i] = byte(i)
	}
	for _, f := range f8Formats {
		for _, sat := range []bool{true, false} {
			for _, in := range []struct {
				t    tensorio.Tensor
				vals []float64
			}{{f32, f32Values(xs)}, {f64, ds}} {
				got := interpCast(t, in.t, f.elem, !sat)
				bad := 0
				for i, x := range in.vals {
					if want := f.encode(x, sat); got.Data[i] != want {
						if bad < 5 {
							t.Errorf("%s saturate=%v: cast(%s %g) = %#02x, want %#02x", f.elem, sat, in.t.Elem, x, got.Data[i], want)
						}
						bad++
					}
				}
			}
		}
		codes.Elem = f.elem
		got := interpCast(t, codes, niro.F32, false)
		for c := range 256 {
			g := math.Float32frombits(binary.LittleEndian.Uint32(got.Data[4*c:]))
			w := f.decode(uint8(c))
			if math.IsNaN(w) != math.IsNaN(float64(g)) || !math.IsNaN(w) && math.Float64bits(float64(g)) != math.Float64bits(w) {
				t.Errorf("%s code %#02x: got %g, want %g", f.elem, c, g, w)
			}
		}
		for _, g := range f8Formats {
			if g.elem == f.elem {
				continue
			}
			for _, sat := range []bool{true, false} {
				got := interpCast(t, codes, g.elem, !sat)
				for c := range 256 {
					if want := g.encode(f.decode(uint8(c)), sat); got.Data[c] != want {
						t.Errorf("%s code %#02x to %s saturate=%v: got %#02x, want %#02x", f.elem, c, g.elem, sat, got.Data[c], want)
					}
				}
			}
		}
	}
}

func f32Values(xs []float32) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

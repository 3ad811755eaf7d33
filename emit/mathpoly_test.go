package emit

import (
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/niro-dev/niro/niro"
)

// ulpErr returns the distance of y from the exact value ref in units of
// the last place of ref's f32 binade (2^-149 at the bottom); 0 when both
// are the same infinity or both NaN, +inf when only one is.
func ulpErr(y float32, ref float64) float64 {
	if math.IsNaN(ref) || isNaN32(y) {
		if math.IsNaN(ref) && isNaN32(y) {
			return 0
		}
		return math.Inf(1)
	}
	if rf := float32(ref); math.IsInf(float64(rf), 0) || math.IsInf(float64(y), 0) {
		if rf == y {
			return 0
		}
		return math.Inf(1)
	}
	_, e := math.Frexp(math.Abs(ref))
	ulp := math.Ldexp(1, max(e-24, -149))
	if ref == 0 {
		ulp = 0x1p-149
	}
	return math.Abs(float64(y)-ref) / ulp
}

var mathRefs = []struct {
	k   niro.UnaryKind
	ref func(float64) float64
	// critical points: every f32 within 2^16 bit patterns of each is
	// checked as well as the strided scan.
	crit []float32
	// dom lists the bit-pattern ranges [lo, hi] the exhaustive scan
	// (NIRO_ULP_STRIDE=1) covers: everywhere the result is not a
	// constant of the clamping (exp below −104 and above 89, tanh above
	// 10, erf above 4) and, for the odd functions, whose sign is copied
	// from the input, only the positive half.
	dom [][2]uint32
}{
	{niro.Exp, math.Exp, []float32{0, 88.72283, -87.33654, -103.27893, -103.97208, 0.34657, -0.34657, 1, -1},
		[][2]uint32{{0, 0x42B20000}, {0x80000000, 0xC2D00000}}},
	{niro.Log, math.Log, []float32{1, 0x1p-126, 0.70710677, 1.4142135, 2, 0.5, 0x1p-149, math.MaxFloat32},
		[][2]uint32{{0, 0x7F800000}}},
	{niro.Tanh, math.Tanh, []float32{0, 0.625, -0.625, 9.01, 10, 0x1p-12, 1}, [][2]uint32{{0, 0x41200000}}},
	{niro.Erf, math.Erf, []float32{0, 0.875, -0.875, 3.9192, 4, 0x1p-12, 2.4375}, [][2]uint32{{0, 0x40800000}}},
}

// TestMathPolyULP measures the largest error of niro's f32 polynomials
// against the correctly rounded reference (Go's float64 math functions)
// on every f32 bit pattern with a stride (NIRO_ULP_STRIDE, default 997)
// plus every pattern near the critical points, and requires at most 2
// ulp. NIRO_ULP_STRIDE=1 instead scans every pattern of the function's
// domain (see dom; 2 to 9 minutes per function on one core).
func TestMathPolyULP(t *testing.T) {
	stride := uint64(997)
	if s := os.Getenv("NIRO_ULP_STRIDE"); s != "" {
		n, err := strconv.ParseUint(s, 10, 32)
		if err != nil || n == 0 {
			t.Fatalf("NIRO_ULP_STRIDE=%q: want a positive integer", s)
		}
		stride = n
	}
	for _, fn := range mathRefs {
		t.Run(fn.k.String(), func(t *testing.T) {
			t.Parallel()
			worst, at := 0.0, float32(0)
			var n uint64
			const batch = 4096
			o := &vecOps{n: batch}
			xs := make([]uint32, 0, batch)
			flush := func() {
				if len(xs) == 0 {
					return
				}
				for len(xs) < batch {
					xs = append(xs, xs[0])
				}
				o.reset()
				ys := polyF32[vec](o, fn.k, xs)
				for j, b := range xs {
					x := math.Float32frombits(b)
					y := math.Float32frombits(ys[j])
					if j%64 == 0 {
						// The batch evaluator against the scalar one.
						if s, _ := EvalMathPoly(fn.k, x); math.Float32bits(s) != ys[j] {
							t.Fatalf("%s(%g): batch 0x%08X, scalar 0x%08X", fn.k, x, ys[j], math.Float32bits(s))
						}
					}
					if e := ulpErr(y, fn.ref(float64(x))); e > worst || math.IsNaN(e) {
						worst, at = e, x
					}
				}
				n += uint64(len(xs))
				xs = xs[:0]
			}
			check := func(b uint32) {
				if xs = append(xs, b); len(xs) == batch {
					flush()
				}
			}
			if stride == 1 {
				for _, r := range fn.dom {
					for b := uint64(r[0]); b <= uint64(r[1]); b++ {
						check(uint32(b))
					}
				}
			} else {
				for b := uint64(0); b < 1<<32; b += stride {
					check(uint32(b))
				}
			}
			for _, c := range fn.crit {
				for _, s := range []float32{c, -c} {
					base := int64(math.Float32bits(s))
					for d := int64(-1 << 16); d <= 1<<16; d++ {
						if b := base + d; b >= 0 && b < 1<<32 {
							check(uint32(b))
						}
					}
				}
			}
			flush()
			t.Logf("%s: max error %.3f ulp at %g (0x%08X), %d inputs", fn.k, worst, at, math.Float32bits(at), n)
			if worst > 2 {
				t.Errorf("%s: max error %.3f ulp at %g (0x%08X), want at most 2", fn.k, worst, at, math.Float32bits(at))
			}
		})
	}
}

// TestMathPolySpecials checks the exact results on special values.
func TestMathPolySpecials(t *testing.T) {
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	negZero := float32(math.Copysign(0, -1))
	for _, c := range []struct {
		k    niro.UnaryKind
		x, y float32
	}{
		{niro.Exp, 0, 1}, {niro.Exp, negZero, 1}, {niro.Exp, inf, inf}, {niro.Exp, -inf, 0}, {niro.Exp, nan, nan},
		{niro.Exp, 89, inf}, {niro.Exp, -104, 0}, {niro.Exp, 1, math.E},
		{niro.Log, 1, 0}, {niro.Log, 0, -inf}, {niro.Log, negZero, -inf}, {niro.Log, -1, nan}, {niro.Log, -inf, nan},
		{niro.Log, inf, inf}, {niro.Log, nan, nan}, {niro.Log, 0x1p-149, float32(-149 * math.Ln2)},
		{niro.Tanh, 0, 0}, {niro.Tanh, negZero, negZero}, {niro.Tanh, inf, 1}, {niro.Tanh, -inf, -1}, {niro.Tanh, nan, nan},
		{niro.Tanh, 0x1p-149, 0x1p-149},
		{niro.Erf, 0, 0}, {niro.Erf, negZero, negZero}, {niro.Erf, inf, 1}, {niro.Erf, -inf, -1}, {niro.Erf, nan, nan},
	} {
		y, ok := EvalMathPoly(c.k, c.x)
		if !ok {
			t.Fatalf("%s has no polynomial", c.k)
		}
		same := math.Float32bits(y) == math.Float32bits(c.y) || isNaN32(y) && isNaN32(c.y)
		if !same {
			t.Errorf("%s(%g) = %g (0x%08X), want %g (0x%08X)", c.k, c.x, y, math.Float32bits(y), c.y, math.Float32bits(c.y))
		}
	}
}

// TestMathOption checks that Options.Math chooses between the polynomial
// (arith only) and the math dialect, that f64 keeps the math dialect, and
// that another value is refused.
func TestMathOption(t *testing.T) {
	src := `
func @m(tensor<8xf32>, tensor<8xf64>) -> (tensor<8xf32>, tensor<8xf64>) {
^bb0(%0: tensor<8xf32>, %1: tensor<8xf64>):
  %2 = erf %0 : (tensor<8xf32>) -> tensor<8xf32>
  %3 = exp %1 : (tensor<8xf64>) -> tensor<8xf64>
  return %2, %3 : tensor<8xf32>, tensor<8xf64>
}`
	m, err := niro.Parse("m.niro", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		math     string
		f32, f64 string // a spelling the output must hold
	}{
		{"", "arith.bitcast", "math.exp %"}, {MathPoly, "arith.bitcast", "math.exp %"}, {MathLibm, "math.erf %", "math.exp %"},
	} {
		out, err := Module(m, Options{Math: c.math})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.MLIR, c.f32) || !strings.Contains(out.MLIR, c.f64) {
			t.Errorf("Math %q: the MLIR lacks %q or %q:\n%s", c.math, c.f32, c.f64, out.MLIR)
		}
		if c.math != MathLibm && strings.Contains(out.MLIR, "math.erf") {
			t.Errorf("Math %q: f32 erf still calls math.erf", c.math)
		}
	}
	if _, err := Module(m, Options{Math: "fast"}); err == nil {
		t.Error("Math \"fast\" was accepted")
	}
}

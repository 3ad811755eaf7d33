package interp

import (
	"errors"
	"fmt"
	"math"

	"github.com/niro-dev/niro/niro"
)

// The element-wise families. Each op picks one typed kernel and runs one
// loop over the result; broadcast operands read through an index table.

type float interface{ ~float32 | ~float64 }

func at(idx []int, i int) int {
	if idx == nil {
		return i
	}
	return idx[i]
}

// maximum is arith.maximumf: NaN propagates and −0 < +0.
func maximum[F float](a, b F) F {
	switch {
	case a != a:
		return a
	case b != b:
		return b
	case a > b:
		return a
	case b > a:
		return b
	case a == 0 && math.Signbit(float64(a)):
		return b
	}
	return a
}

// minimum is arith.minimumf: NaN propagates and −0 < +0.
func minimum[F float](a, b F) F {
	switch {
	case a != a:
		return a
	case b != b:
		return b
	case a < b:
		return a
	case b < a:
		return b
	case a == 0 && !math.Signbit(float64(a)):
		return b
	}
	return a
}

// floatBinary returns the kernel of k on F (f32 or f64), each result
// rounded once to F.
func floatBinary[F float](k niro.BinaryKind) func(a, b F) F {
	switch k {
	case niro.Add:
		return func(a, b F) F { return a + b }
	case niro.Sub:
		return func(a, b F) F { return a - b }
	case niro.Mul:
		return func(a, b F) F { return a * b }
	case niro.Div:
		return func(a, b F) F { return a / b }
	case niro.Rem:
		// fmod is exact, so the float64 result is the F result.
		return func(a, b F) F { return F(math.Mod(float64(a), float64(b))) }
	case niro.Mod:
		return func(a, b F) F {
			r := F(math.Mod(float64(a), float64(b)))
			if r != 0 && (r < 0) != (b < 0) {
				return r + b
			}
			return r
		}
	case niro.Pow:
		return func(a, b F) F { return F(math.Pow(float64(a), float64(b))) }
	case niro.Max:
		return maximum[F]
	case niro.Min:
		return minimum[F]
	}
	return nil
}

var errDivZero = errors.New("integer division by zero")

// intBinary returns the kernel of k on integers of type e (normalized
// int64 values); results are wrapped by the caller.
func intBinary(k niro.BinaryKind, e niro.ScalarType) func(a, b int64) (int64, bool) {
	u64 := e == niro.U64
	bits := uint64(e.Bits())
	if e == niro.Bool {
		bits = 1
	}
	switch k {
	case niro.Add:
		return func(a, b int64) (int64, bool) { return a + b, true }
	case niro.Sub:
		return func(a, b int64) (int64, bool) { return a - b, true }
	case niro.Mul:
		return func(a, b int64) (int64, bool) { return a * b, true }
	case niro.Div:
		if u64 {
			return func(a, b int64) (int64, bool) {
				if b == 0 {
					return 0, false
				}
				return int64(uint64(a) / uint64(b)), true
			}
		}
		return func(a, b int64) (int64, bool) {
			if b == 0 {
				return 0, false
			}
			return a / b, true
		}
	case niro.Rem, niro.Mod:
		if u64 {
			return func(a, b int64) (int64, bool) {
				if b == 0 {
					return 0, false
				}
				return int64(uint64(a) % uint64(b)), true
			}
		}
		mod := k == niro.Mod && e.IsSigned()
		return func(a, b int64) (int64, bool) {
			if b == 0 {
				return 0, false
			}
			r := a % b
			if mod && r != 0 && (r < 0) != (b < 0) {
				r += b
			}
			return r, true
		}
	case niro.Max:
		if u64 {
			return func(a, b int64) (int64, bool) { return int64(max(uint64(a), uint64(b))), true }
		}
		return func(a, b int64) (int64, bool) { return max(a, b), true }
	case niro.Min:
		if u64 {
			return func(a, b int64) (int64, bool) { return int64(min(uint64(a), uint64(b))), true }
		}
		return func(a, b int64) (int64, bool) { return min(a, b), true }
	case niro.And:
		return func(a, b int64) (int64, bool) { return a & b, true }
	case niro.Or:
		return func(a, b int64) (int64, bool) { return a | b, true }
	case niro.Xor:
		return func(a, b int64) (int64, bool) { return a ^ b, true }
	case niro.Shl:
		// A shift by the width or more (poison in LLVM) gives 0.
		return func(a, b int64) (int64, bool) {
			if uint64(b) >= bits {
				return 0, true
			}
			return a << uint64(b), true
		}
	case niro.Shr:
		// Arithmetic on signed, logical on unsigned (whose values are
		// non-negative here); by the width or more: the sign fill.
		if u64 {
			return func(a, b int64) (int64, bool) {
				if uint64(b) >= 64 {
					return 0, true
				}
				return int64(uint64(a) >> uint64(b)), true
			}
		}
		return func(a, b int64) (int64, bool) {
			if uint64(b) >= bits {
				b = 63
			}
			return a >> uint64(b), true
		}
	}
	return nil
}

func binaryOp(k niro.BinaryKind, x, y *tensor, rd []int64) (*tensor, error) {
	e := x.elem
	if niro.ClassOf(e)&k.Info().Types == 0 {
		return nil, fmt.Errorf("%s is not defined on %s", k, e)
	}
	ai, bi := bcastIndex(x.dims, rd), bcastIndex(y.dims, rd)
	out := newTensor(e, rd)
	switch storeOf(e) {
	case sF32:
		fn, xs, ys, o := floatBinary[float32](k), x.f32, y.f32, out.f32
		if ai == nil && bi == nil {
			switch k {
			case niro.Add:
				for i := range o {
					o[i] = xs[i] + ys[i]
				}
			case niro.Mul:
				for i := range o {
					o[i] = xs[i] * ys[i]
				}
			default:
				for i := range o {
					o[i] = fn(xs[i], ys[i])
				}
			}
		} else {
			for i := range o {
				o[i] = fn(xs[at(ai, i)], ys[at(bi, i)])
			}
		}
		round16(e, o)
	case sF64:
		fn, xs, ys, o := floatBinary[float64](k), x.f64, y.f64, out.f64
		for i := range o {
			o[i] = fn(xs[at(ai, i)], ys[at(bi, i)])
		}
	default:
		fn, xs, ys, o := intBinary(k, e), x.ints, y.ints, out.ints
		for i := range o {
			v, ok := fn(xs[at(ai, i)], ys[at(bi, i)])
			if !ok {
				return nil, errDivZero
			}
			o[i] = v
		}
		wrapAll(e, o)
	}
	return out, nil
}

// math64 is Go's float64 function k (libm's counterpart).
func math64(k niro.UnaryKind, x float64) float64 {
	switch k {
	case niro.Exp:
		return math.Exp(x)
	case niro.Log:
		return math.Log(x)
	case niro.Tanh:
		return math.Tanh(x)
	case niro.Erf:
		return math.Erf(x)
	case niro.Sin:
		return math.Sin(x)
	case niro.Cos:
		return math.Cos(x)
	case niro.Tan:
		return math.Tan(x)
	case niro.Asin:
		return math.Asin(x)
	case niro.Acos:
		return math.Acos(x)
	case niro.Atan:
		return math.Atan(x)
	case niro.Sinh:
		return math.Sinh(x)
	case niro.Cosh:
		return math.Cosh(x)
	case niro.Asinh:
		return math.Asinh(x)
	case niro.Acosh:
		return math.Acosh(x)
	case niro.Atanh:
		return math.Atanh(x)
	}
	return math.NaN()
}

// floatUnary returns the kernel of k on F.
func floatUnary[F float](k niro.UnaryKind) func(a F) F {
	switch k {
	case niro.Neg:
		return func(a F) F { return -a }
	case niro.Abs:
		return func(a F) F { return F(math.Abs(float64(a))) }
	case niro.Sqrt:
		// sqrt in float64 rounded to f32 is the correctly rounded f32
		// sqrt (53 ≥ 2·24 + 2 bits).
		return func(a F) F { return F(math.Sqrt(float64(a))) }
	case niro.Floor:
		return func(a F) F { return F(math.Floor(float64(a))) }
	case niro.Ceil:
		return func(a F) F { return F(math.Ceil(float64(a))) }
	case niro.Round:
		return func(a F) F { return F(math.RoundToEven(float64(a))) }
	case niro.Sign:
		return func(a F) F {
			switch {
			case a > 0:
				return 1
			case a < 0:
				return -1
			}
			return a // ±0 and NaN stay
		}
	}
	return func(a F) F { return F(math64(k, float64(a))) }
}

func unary(k niro.UnaryKind, x *tensor, opts Options) (*tensor, error) {
	e := x.elem
	if niro.ClassOf(e)&k.Info().Types == 0 {
		return nil, fmt.Errorf("%s is not defined on %s", k, e)
	}
	out := newTensor(e, x.dims)
	switch storeOf(e) {
	case sF32:
		xs, o := x.f32, out.f32
		switch k {
		case niro.Exp, niro.Log, niro.Tanh, niro.Erf:
			for i, v := range xs {
				o[i] = polyOrLibm(k, v, opts)
			}
		default:
			fn := floatUnary[float32](k)
			for i, v := range xs {
				o[i] = fn(v)
			}
		}
		round16(e, o)
	case sF64:
		fn := floatUnary[float64](k)
		for i, v := range x.f64 {
			out.f64[i] = fn(v)
		}
	default:
		xs, o := x.ints, out.ints
		for i, v := range xs {
			switch k {
			case niro.Neg:
				o[i] = -v
			case niro.Abs:
				if v < 0 && e.IsSigned() {
					v = -v
				}
				o[i] = v
			case niro.Sign:
				switch {
				case v > 0 || (e == niro.U64 && v != 0):
					o[i] = 1
				case v < 0:
					o[i] = -1
				}
			case niro.Not:
				o[i] = 1 - v
			case niro.BitNot:
				o[i] = ^v
			default:
				return nil, fmt.Errorf("%s has no integer form", k)
			}
		}
		wrapAll(e, o)
	}
	return out, nil
}

func cmpFloat[F float](p niro.Predicate, a, b F) bool {
	switch p {
	case niro.Eq:
		return a == b
	case niro.Ne:
		return a != b // unordered: true with a NaN
	case niro.Lt:
		return a < b
	case niro.Le:
		return a <= b
	case niro.Gt:
		return a > b
	}
	return a >= b
}

func cmpInt[I int64 | uint64](p niro.Predicate, a, b I) bool {
	switch p {
	case niro.Eq:
		return a == b
	case niro.Ne:
		return a != b
	case niro.Lt:
		return a < b
	case niro.Le:
		return a <= b
	case niro.Gt:
		return a > b
	}
	return a >= b
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func compare(p niro.Predicate, x, y *tensor, rd []int64) (*tensor, error) {
	ai, bi := bcastIndex(x.dims, rd), bcastIndex(y.dims, rd)
	out := newTensor(niro.Bool, rd)
	o := out.ints
	switch storeOf(x.elem) {
	case sF32:
		for i := range o {
			o[i] = b2i(cmpFloat(p, x.f32[at(ai, i)], y.f32[at(bi, i)]))
		}
	case sF64:
		for i := range o {
			o[i] = b2i(cmpFloat(p, x.f64[at(ai, i)], y.f64[at(bi, i)]))
		}
	default:
		if x.elem == niro.U64 {
			for i := range o {
				o[i] = b2i(cmpInt(p, uint64(x.ints[at(ai, i)]), uint64(y.ints[at(bi, i)])))
			}
			break
		}
		for i := range o {
			o[i] = b2i(cmpInt(p, x.ints[at(ai, i)], y.ints[at(bi, i)]))
		}
	}
	return out, nil
}

// f64ToF32Type rounds a float64 once to the float type e (as a value in
// the f32 store).
func f64To(e niro.ScalarType, v float64) float32 {
	switch e {
	case niro.F16:
		return f16ToF32(uint16(niro.FloatBits(niro.F16, v)))
	case niro.BF16:
		return bf16ToF32(uint16(niro.FloatBits(niro.BF16, v)))
	}
	return float32(v)
}

// floatToInt truncates toward zero and wraps to e, as fptosi/fptoui do
// in range (out-of-range values are undefined in niro and ONNX).
func floatToInt(e niro.ScalarType, v float64) int64 {
	t := math.Trunc(v)
	if e == niro.U64 && t >= 1<<63 {
		if t >= 1<<64 {
			return -1
		}
		return int64(uint64(t))
	}
	if t != t || t >= 1<<63 || t < -(1<<63) {
		return wrap(e, math.MinInt64)
	}
	return wrap(e, int64(t))
}

// intToFloat64 converts a normalized integer of type e exactly when it
// fits in 53 bits (and otherwise rounds once).
func intToFloat64(e niro.ScalarType, v int64) float64 {
	if e == niro.U64 {
		return float64(uint64(v))
	}
	return float64(v)
}

// cast converts x to the element type to (docs/ops.md, Cast).
func cast(x *tensor, to niro.ScalarType) *tensor {
	from := x.elem
	out := newTensor(to, x.dims)
	if from == to {
		copy(out.f32, x.f32)
		copy(out.f64, x.f64)
		copy(out.ints, x.ints)
		return out
	}
	n := x.n()
	for i := 0; i < n; i++ {
		switch storeOf(from) {
		case sF32, sF64:
			var v float64
			if storeOf(from) == sF32 {
				v = float64(x.f32[i])
			} else {
				v = x.f64[i]
			}
			switch {
			case to == niro.Bool:
				out.ints[i] = b2i(v != 0) // NaN is true
			case to.IsFloat():
				// f16, bf16 and f32 values are exact in float64, so one
				// rounding from float64 is the single rounding.
				if to == niro.F64 {
					out.f64[i] = v
				} else {
					out.f32[i] = f64To(to, v)
				}
			default:
				out.ints[i] = floatToInt(to, v)
			}
		default:
			v := x.ints[i]
			switch {
			case to == niro.Bool:
				out.ints[i] = b2i(v != 0)
			case to == niro.F64:
				out.f64[i] = intToFloat64(from, v)
			case to == niro.F32:
				if from == niro.U64 {
					out.f32[i] = float32(uint64(v))
				} else {
					out.f32[i] = float32(v)
				}
			case to.IsFloat():
				out.f32[i] = f64To(to, intToFloat64(from, v))
			default:
				out.ints[i] = wrap(to, v)
			}
		}
	}
	return out
}

func selectOp(c, x, y *tensor, rd []int64) (*tensor, error) {
	ci, ai, bi := bcastIndex(c.dims, rd), bcastIndex(x.dims, rd), bcastIndex(y.dims, rd)
	out := newTensor(x.elem, rd)
	n := out.n()
	for i := 0; i < n; i++ {
		if c.ints[at(ci, i)] != 0 {
			copyElem(out, i, x, at(ai, i))
		} else {
			copyElem(out, i, y, at(bi, i))
		}
	}
	return out, nil
}

package importer

import (
	"math"

	"github.com/niro-dev/niro/niro"
)

// Element-wise arithmetic, activations, comparisons, logic and casts. Each
// maps to the Niro element-wise families; composite activations are
// decomposed into them in the order the ONNX reference computes them.

// legacy returns the version ranges of an op whose opset 1 form carried
// consumed_inputs (dropped at 6) and whose opsets before 7 carried the
// legacy broadcast attributes when binary.
func legacy(binary bool, conv func(nc *nodeCtx) error) []opSpec {
	in := [2]int{1, 1}
	if binary {
		in = [2]int{2, 2}
		return []opSpec{
			{Since: 1, In: in, Out: [2]int{1, 1}, Attrs: []string{"broadcast", "axis", "consumed_inputs"}, Convert: legacyBinary(conv)},
			{Since: 7, In: in, Out: [2]int{1, 1}, Attrs: []string{}, Convert: conv},
		}
	}
	return []opSpec{
		{Since: 1, In: in, Out: [2]int{1, 1}, Attrs: []string{"consumed_inputs"}, Convert: conv},
		{Since: 6, In: in, Out: [2]int{1, 1}, Attrs: []string{}, Convert: conv},
	}
}

// simple returns one version range with the given inputs and attributes.
func simple(since int64, in [2]int, attrs []string, conv func(nc *nodeCtx) error) []opSpec {
	if attrs == nil {
		attrs = []string{}
	}
	return []opSpec{{Since: since, In: in, Out: [2]int{1, 1}, Attrs: attrs, Convert: conv}}
}

// legacyBinary checks the pre-opset-7 broadcast attributes, then converts.
func legacyBinary(conv func(nc *nodeCtx) error) func(nc *nodeCtx) error {
	return func(nc *nodeCtx) error {
		if err := nc.legacyBroadcast(tensorOf(nc.in(0)), tensorOf(nc.in(1))); err != nil {
			return err
		}
		return conv(nc)
	}
}

func binaryConv(k niro.BinaryKind) func(nc *nodeCtx) error {
	return func(nc *nodeCtx) error {
		nc.sameElem(0, 1)
		nc.out(0, nc.bin(k, nc.in(0), nc.in(1)))
		return nil
	}
}

func unaryConv(k niro.UnaryKind) func(nc *nodeCtx) error {
	return func(nc *nodeCtx) error {
		nc.out(0, nc.un(k, nc.in(0)))
		return nil
	}
}

func compareConv(p niro.Predicate) func(nc *nodeCtx) error {
	return func(nc *nodeCtx) error {
		nc.sameElem(0, 1)
		nc.out(0, nc.cmp(p, nc.in(0), nc.in(1)))
		return nil
	}
}

// sameElem fails the node unless inputs i and j share an element type.
func (nc *nodeCtx) sameElem(i, j int) {
	if a, b := elem(nc.in(i)), elem(nc.in(j)); a != b {
		nc.fail("inputs %d and %d have different element types %s and %s", i, j, a, b)
	}
}

// floatConv wraps a decomposition defined on float inputs only.
func floatConv(f func(nc *nodeCtx, x niro.Value) niro.Value) func(nc *nodeCtx) error {
	return func(nc *nodeCtx) error {
		x := nc.in(0)
		nc.requireFloat(x)
		nc.out(0, nc.inF32(x, func(x niro.Value) niro.Value { return f(nc, x) }))
		return nil
	}
}

// inF32 applies a decomposition to x; 16-bit floats are widened to f32
// first and the result rounded back once, as a single op on them would.
func (nc *nodeCtx) inF32(x niro.Value, f func(x niro.Value) niro.Value) niro.Value {
	e := elem(x)
	if e != niro.F16 && e != niro.BF16 {
		return f(x)
	}
	y := f(nc.cast(x, niro.F32))
	if elem(y) != niro.F32 {
		return y
	}
	return nc.cast(y, e)
}

// like returns a rank-0 constant of x's element type.
func (nc *nodeCtx) like(x niro.Value, v float64) niro.Value { return nc.scalar(elem(x), v) }

func (nc *nodeCtx) sigmoid(x niro.Value) niro.Value {
	one := nc.like(x, 1)
	return nc.bin(niro.Div, one, nc.bin(niro.Add, one, nc.un(niro.Exp, nc.un(niro.Neg, x))))
}

func (nc *nodeCtx) softplus(x niro.Value) niro.Value {
	return nc.un(niro.Log, nc.bin(niro.Add, nc.un(niro.Exp, x), nc.like(x, 1)))
}

// clamp returns min(max(x, lo), hi), skipping an absent bound.
func (nc *nodeCtx) clamp(x niro.Value, lo, hi *niro.Value) niro.Value {
	if lo != nil {
		x = nc.bin(niro.Max, x, *lo)
	}
	if hi != nil {
		x = nc.bin(niro.Min, x, *hi)
	}
	return x
}

func (nc *nodeCtx) hardSigmoid(x niro.Value, alpha, beta float64) niro.Value {
	y := nc.bin(niro.Add, nc.bin(niro.Mul, nc.like(x, alpha), x), nc.like(x, beta))
	lo, hi := nc.like(x, 0), nc.like(x, 1)
	return nc.bin(niro.Max, nc.bin(niro.Min, y, hi), lo)
}

// variadic folds the inputs with k from the left.
func variadic(k niro.BinaryKind, mean bool) func(nc *nodeCtx) error {
	return func(nc *nodeCtx) error {
		acc := nc.in(0)
		for i := 1; i < len(nc.args); i++ {
			if !nc.has(i) {
				return nc.errorf("input %d is omitted", i)
			}
			nc.sameElem(0, i)
			acc = nc.bin(k, acc, nc.in(i))
		}
		if mean {
			acc = nc.bin(niro.Div, acc, nc.like(acc, float64(len(nc.args))))
		}
		nc.out(0, acc)
		return nil
	}
}

func init() {
	register("Add", legacy(true, binaryConv(niro.Add))...)
	register("Sub", legacy(true, binaryConv(niro.Sub))...)
	register("Mul", legacy(true, binaryConv(niro.Mul))...)
	register("Div", legacy(true, binaryConv(niro.Div))...)
	register("Pow", legacy(true, powConv)...)
	register("Mod", simple(10, [2]int{2, 2}, []string{"fmod"}, func(nc *nodeCtx) error {
		nc.sameElem(0, 1)
		k := niro.Mod
		if nc.attrInt("fmod", 0) == 1 {
			k = niro.Rem
		} else if elem(nc.in(0)).IsFloat() {
			return nc.errorf("fmod must be 1 for float inputs")
		}
		nc.out(0, nc.bin(k, nc.in(0), nc.in(1)))
		return nil
	})...)
	for _, name := range []string{"Max", "Min", "Sum", "Mean"} {
		k := map[string]niro.BinaryKind{"Max": niro.Max, "Min": niro.Min, "Sum": niro.Add, "Mean": niro.Add}[name]
		conv := variadic(k, name == "Mean")
		register(name,
			opSpec{Since: 1, In: [2]int{1, -1}, Out: [2]int{1, 1}, Attrs: []string{"consumed_inputs"}, Convert: conv},
			opSpec{Since: 6, In: [2]int{1, -1}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: conv})
	}

	register("Neg", legacy(false, unaryConv(niro.Neg))...)
	register("Abs", legacy(false, unaryConv(niro.Abs))...)
	register("Sqrt", legacy(false, unaryConv(niro.Sqrt))...)
	register("Exp", legacy(false, unaryConv(niro.Exp))...)
	register("Log", legacy(false, unaryConv(niro.Log))...)
	register("Floor", legacy(false, unaryConv(niro.Floor))...)
	register("Ceil", legacy(false, unaryConv(niro.Ceil))...)
	register("Tanh", legacy(false, unaryConv(niro.Tanh))...)
	register("Reciprocal", legacy(false, floatConv(func(nc *nodeCtx, x niro.Value) niro.Value {
		return nc.bin(niro.Div, nc.like(x, 1), x)
	}))...)
	register("Round", simple(11, [2]int{1, 1}, nil, unaryConv(niro.Round))...)
	register("Sign", simple(9, [2]int{1, 1}, nil, unaryConv(niro.Sign))...)
	register("Erf", simple(9, [2]int{1, 1}, nil, unaryConv(niro.Erf))...)
	for name, k := range map[string]niro.UnaryKind{"Sin": niro.Sin, "Cos": niro.Cos, "Tan": niro.Tan, "Asin": niro.Asin, "Acos": niro.Acos, "Atan": niro.Atan} {
		register(name, simple(7, [2]int{1, 1}, nil, unaryConv(k))...)
	}
	for name, k := range map[string]niro.UnaryKind{"Sinh": niro.Sinh, "Cosh": niro.Cosh, "Asinh": niro.Asinh, "Acosh": niro.Acosh, "Atanh": niro.Atanh} {
		register(name, simple(9, [2]int{1, 1}, nil, unaryConv(k))...)
	}

	// Activations.
	register("Sigmoid", legacy(false, floatConv((*nodeCtx).sigmoid))...)
	register("Relu", legacy(false, func(nc *nodeCtx) error {
		x := nc.in(0)
		nc.out(0, nc.bin(niro.Max, x, nc.like(x, 0)))
		return nil
	})...)
	register("LeakyRelu",
		opSpec{Since: 1, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"alpha", "consumed_inputs"}, Convert: leakyRelu},
		opSpec{Since: 6, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"alpha"}, Convert: leakyRelu})
	register("PRelu",
		opSpec{Since: 1, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{"consumed_inputs"}, Convert: prelu},
		opSpec{Since: 6, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: prelu})
	register("Elu",
		opSpec{Since: 1, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"alpha", "consumed_inputs"}, Convert: elu},
		opSpec{Since: 6, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"alpha"}, Convert: elu})
	register("Selu",
		opSpec{Since: 1, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"alpha", "gamma", "consumed_inputs"}, Convert: selu},
		opSpec{Since: 6, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"alpha", "gamma"}, Convert: selu})
	register("Celu", simple(12, [2]int{1, 1}, []string{"alpha"}, floatConv(func(nc *nodeCtx, x niro.Value) niro.Value {
		a := nc.like(x, nc.attrFloat("alpha", 1))
		zero := nc.like(x, 0)
		neg := nc.bin(niro.Mul, a, nc.bin(niro.Sub, nc.un(niro.Exp, nc.bin(niro.Div, x, a)), nc.like(x, 1)))
		return nc.bin(niro.Add, nc.bin(niro.Max, zero, x), nc.bin(niro.Min, zero, neg))
	}))...)
	register("ThresholdedRelu", simple(10, [2]int{1, 1}, []string{"alpha"}, floatConv(func(nc *nodeCtx, x niro.Value) niro.Value {
		return nc.sel(nc.cmp(niro.Gt, x, nc.like(x, nc.attrFloat("alpha", 1))), x, nc.like(x, 0))
	}))...)
	register("HardSigmoid",
		opSpec{Since: 1, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"alpha", "beta", "consumed_inputs"}, Convert: hardSigmoid},
		opSpec{Since: 6, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"alpha", "beta"}, Convert: hardSigmoid})
	register("HardSwish", simple(14, [2]int{1, 1}, nil, floatConv(func(nc *nodeCtx, x niro.Value) niro.Value {
		return nc.bin(niro.Mul, x, nc.hardSigmoid(x, 1.0/6, 0.5))
	}))...)
	register("Gelu", simple(20, [2]int{1, 1}, []string{"approximate"}, func(nc *nodeCtx) error {
		x := nc.in(0)
		nc.requireFloat(x)
		if e := elem(x); e == niro.F16 || e == niro.BF16 {
			x = nc.cast(x, niro.F32)
		}
		half, one := nc.like(x, 0.5), nc.like(x, 1)
		var inner niro.Value
		switch nc.attrString("approximate", "none") {
		case "none":
			inner = nc.un(niro.Erf, nc.bin(niro.Div, x, nc.like(x, math.Sqrt2)))
		case "tanh":
			cube := nc.bin(niro.Mul, nc.bin(niro.Mul, x, x), x)
			y := nc.bin(niro.Add, x, nc.bin(niro.Mul, nc.like(x, 0.044715), cube))
			inner = nc.un(niro.Tanh, nc.bin(niro.Mul, nc.like(x, math.Sqrt(2/math.Pi)), y))
		default:
			return nc.errorf("approximate must be \"none\" or \"tanh\", is %q", nc.attrString("approximate", ""))
		}
		nc.out(0, nc.cast(nc.bin(niro.Mul, nc.bin(niro.Mul, half, x), nc.bin(niro.Add, one, inner)), elem(nc.in(0))))
		return nil
	})...)
	register("Mish", simple(18, [2]int{1, 1}, nil, floatConv(func(nc *nodeCtx, x niro.Value) niro.Value {
		return nc.bin(niro.Mul, x, nc.un(niro.Tanh, nc.softplus(x)))
	}))...)
	register("Softplus", simple(1, [2]int{1, 1}, nil, floatConv((*nodeCtx).softplus))...)
	register("Softsign", simple(1, [2]int{1, 1}, nil, floatConv(func(nc *nodeCtx, x niro.Value) niro.Value {
		return nc.bin(niro.Div, x, nc.bin(niro.Add, nc.like(x, 1), nc.un(niro.Abs, x)))
	}))...)
	register("Swish", simple(24, [2]int{1, 1}, []string{"alpha"}, floatConv(func(nc *nodeCtx, x niro.Value) niro.Value {
		return nc.bin(niro.Mul, x, nc.sigmoid(nc.bin(niro.Mul, nc.like(x, nc.attrFloat("alpha", 1)), x)))
	}))...)
	register("Shrink", simple(9, [2]int{1, 1}, []string{"bias", "lambd"}, func(nc *nodeCtx) error {
		x := nc.in(0)
		bias, lambd := nc.like(x, nc.attrFloat("bias", 0)), nc.attrFloat("lambd", 0.5)
		lo, hi := nc.like(x, -lambd), nc.like(x, lambd)
		if !elem(x).IsFloat() && !elem(x).IsSigned() && lambd > 0 {
			lo = nc.like(x, 0) // nothing is below -lambd in an unsigned type
		}
		zero := nc.like(x, 0)
		y := nc.sel(nc.cmp(niro.Gt, x, hi), nc.bin(niro.Sub, x, bias), zero)
		if elem(x).IsFloat() || elem(x).IsSigned() {
			y = nc.sel(nc.cmp(niro.Lt, x, lo), nc.bin(niro.Add, x, bias), y)
		}
		nc.out(0, y)
		return nil
	})...)
	register("Clip",
		opSpec{Since: 1, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"min", "max", "consumed_inputs"}, Convert: clipAttrs},
		opSpec{Since: 6, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"min", "max"}, Convert: clipAttrs},
		opSpec{Since: 11, In: [2]int{1, 3}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: func(nc *nodeCtx) error {
			var lo, hi *niro.Value
			for i, p := range []**niro.Value{&lo, &hi} {
				if nc.has(i + 1) {
					v := nc.in(i + 1)
					if r := nc.rank(v); r != 0 && tensorOf(v).NumElements() != 1 {
						return nc.errorf("input %d must be a scalar, has type %s", i+1, v.Type)
					} else if r != 0 {
						v = nc.reshape(v, []int64{})
					}
					nc.sameElem(0, i+1)
					*p = &v
				}
			}
			nc.out(0, nc.clamp(nc.in(0), lo, hi))
			return nil
		}})

	// Comparison and logic.
	cmpSpecs := func(p niro.Predicate) []opSpec {
		return []opSpec{
			{Since: 1, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{"broadcast", "axis"}, Convert: legacyBinary(compareConv(p))},
			{Since: 7, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: compareConv(p)},
		}
	}
	register("Equal", cmpSpecs(niro.Eq)...)
	register("Less", cmpSpecs(niro.Lt)...)
	register("Greater", cmpSpecs(niro.Gt)...)
	register("LessOrEqual", simple(12, [2]int{2, 2}, nil, compareConv(niro.Le))...)
	register("GreaterOrEqual", simple(12, [2]int{2, 2}, nil, compareConv(niro.Ge))...)
	logic := func(k niro.BinaryKind) []opSpec {
		return []opSpec{
			{Since: 1, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{"broadcast", "axis"}, Convert: legacyBinary(binaryConv(k))},
			{Since: 7, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: binaryConv(k)},
		}
	}
	register("And", logic(niro.And)...)
	register("Or", logic(niro.Or)...)
	register("Xor", logic(niro.Xor)...)
	register("Not", simple(1, [2]int{1, 1}, nil, unaryConv(niro.Not))...)
	register("BitwiseAnd", simple(18, [2]int{2, 2}, nil, binaryConv(niro.And))...)
	register("BitwiseOr", simple(18, [2]int{2, 2}, nil, binaryConv(niro.Or))...)
	register("BitwiseXor", simple(18, [2]int{2, 2}, nil, binaryConv(niro.Xor))...)
	register("BitwiseNot", simple(18, [2]int{1, 1}, nil, unaryConv(niro.BitNot))...)
	register("BitShift", simple(11, [2]int{2, 2}, []string{"direction"}, func(nc *nodeCtx) error {
		k := niro.Shl
		switch d := nc.attrString("direction", ""); d {
		case "LEFT":
		case "RIGHT":
			k = niro.Shr
		default:
			return nc.errorf("direction must be \"LEFT\" or \"RIGHT\", is %q", d)
		}
		nc.sameElem(0, 1)
		nc.out(0, nc.bin(k, nc.in(0), nc.in(1)))
		return nil
	})...)
	register("Where", simple(9, [2]int{3, 3}, nil, func(nc *nodeCtx) error {
		nc.sameElem(1, 2)
		nc.out(0, nc.sel(nc.in(0), nc.in(1), nc.in(2)))
		return nil
	})...)
	register("IsNaN", simple(9, [2]int{1, 1}, nil, floatConv(func(nc *nodeCtx, x niro.Value) niro.Value {
		return nc.cmp(niro.Ne, x, x)
	}))...)
	register("IsInf", simple(10, [2]int{1, 1}, []string{"detect_negative", "detect_positive"}, floatConv(func(nc *nodeCtx, x niro.Value) niro.Value {
		pos, neg := nc.attrInt("detect_positive", 1) != 0, nc.attrInt("detect_negative", 1) != 0
		isPos := nc.cmp(niro.Eq, x, nc.like(x, math.Inf(1)))
		isNeg := nc.cmp(niro.Eq, x, nc.like(x, math.Inf(-1)))
		switch {
		case pos && neg:
			return nc.bin(niro.Or, isPos, isNeg)
		case pos:
			return isPos
		case neg:
			return isNeg
		}
		return nc.cmp(niro.Lt, x, nc.like(x, math.Inf(-1))) // detects nothing: always false
	}))...)

	// Casts.
	castConv := func(nc *nodeCtx) error {
		to, err := nc.dtypeAttr("to", niro.InvalidScalar)
		if err != nil {
			return err
		}
		nc.out(0, nc.castSaturating(nc.in(0), to))
		return nil
	}
	register("Cast",
		opSpec{Since: 1, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"to"}, Convert: castConv},
		opSpec{Since: 19, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"to", "saturate"}, Float8: true, Convert: castConv},
		opSpec{Since: 24, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"to", "saturate", "round_mode"}, Float8: true, Convert: castConv})
	castLike := func(nc *nodeCtx) error {
		nc.out(0, nc.castSaturating(nc.in(0), elem(nc.in(1))))
		return nil
	}
	register("CastLike",
		opSpec{Since: 15, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: castLike},
		opSpec{Since: 19, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{"saturate"}, Float8: true, Convert: castLike},
		opSpec{Since: 24, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{"saturate", "round_mode"}, Float8: true, Convert: castLike})
}

// castSaturating casts x to to as Cast and CastLike do: a cast to an
// 8-bit float or f8E8M0FNU saturates unless the attribute saturate is 0
// (opset 19 on). A cast to f8E8M0FNU rounds up (round_mode "up", the
// default, opset 24 on); the other round modes are not supported yet.
func (nc *nodeCtx) castSaturating(x niro.Value, to niro.ScalarType) niro.Value {
	if to == niro.F8E8M0FNU && elem(x) != to {
		if m := nc.attrString("round_mode", "up"); m != "up" {
			nc.notYet("Cast to f8E8M0FNU with round_mode %q is not supported yet", m)
		}
	}
	if elem(x) == to || !niro.IsFloat8(to) && to != niro.F8E8M0FNU || nc.attrInt("saturate", 1) != 0 {
		return nc.cast(x, to)
	}
	return nc.op(&niro.Cast{To: to, NoSaturate: true, X: x})
}

// powConv maps Pow. A float base takes the exponent cast to its type; an
// integer base is computed in f64 (exact for results below 2^53) and
// truncated back.
func powConv(nc *nodeCtx) error {
	x, y := nc.in(0), nc.in(1)
	if elem(x).IsFloat() {
		nc.out(0, nc.bin(niro.Pow, x, nc.cast(y, elem(x))))
		return nil
	}
	if !elem(x).IsInt() {
		return nc.errorf("Pow is not defined on element type %s", elem(x))
	}
	p := nc.bin(niro.Pow, nc.cast(x, niro.F64), nc.cast(y, niro.F64))
	nc.out(0, nc.cast(p, elem(x)))
	return nil
}

func leakyRelu(nc *nodeCtx) error {
	return floatConv(func(nc *nodeCtx, x niro.Value) niro.Value {
		a := nc.like(x, nc.attrFloat("alpha", 0.01))
		return nc.sel(nc.cmp(niro.Lt, x, nc.like(x, 0)), nc.bin(niro.Mul, x, a), x)
	})(nc)
}

func prelu(nc *nodeCtx) error {
	x, s := nc.in(0), nc.in(1)
	nc.sameElem(0, 1)
	// Before opset 7 a slope of one axis holds one value per channel
	// (axis 1).
	xt, st := tensorOf(x), tensorOf(s)
	if nc.opset < 7 && !xt.Unranked && xt.Rank() > 2 && st.Rank() == 1 && st.Dims[0] != 1 && st.Dims[0] == xt.Dims[1] {
		dims := []int64{st.Dims[0]}
		for i := 2; i < xt.Rank(); i++ {
			dims = append(dims, 1)
		}
		s = nc.reshape(s, dims)
	}
	nc.out(0, nc.sel(nc.cmp(niro.Lt, x, nc.like(x, 0)), nc.bin(niro.Mul, x, s), x))
	return nil
}

func elu(nc *nodeCtx) error {
	return floatConv(func(nc *nodeCtx, x niro.Value) niro.Value {
		a := nc.like(x, nc.attrFloat("alpha", 1))
		neg := nc.bin(niro.Mul, nc.bin(niro.Sub, nc.un(niro.Exp, x), nc.like(x, 1)), a)
		return nc.sel(nc.cmp(niro.Lt, x, nc.like(x, 0)), neg, x)
	})(nc)
}

func selu(nc *nodeCtx) error {
	return floatConv(func(nc *nodeCtx, x niro.Value) niro.Value {
		a := nc.like(x, nc.attrFloat("alpha", 1.67326319217681884765625))
		g := nc.like(x, nc.attrFloat("gamma", 1.05070102214813232421875))
		neg := nc.bin(niro.Mul, nc.bin(niro.Sub, nc.bin(niro.Mul, nc.un(niro.Exp, x), a), a), g)
		return nc.sel(nc.cmp(niro.Le, x, nc.like(x, 0)), neg, nc.bin(niro.Mul, x, g))
	})(nc)
}

func hardSigmoid(nc *nodeCtx) error {
	return floatConv(func(nc *nodeCtx, x niro.Value) niro.Value {
		return nc.hardSigmoid(x, nc.attrFloat("alpha", 0.2), nc.attrFloat("beta", 0.5))
	})(nc)
}

// clipAttrs maps Clip before opset 11, whose bounds are float attributes.
func clipAttrs(nc *nodeCtx) error {
	x := nc.in(0)
	var lo, hi *niro.Value
	if a := nc.attr("min"); a != nil {
		v := nc.like(x, float64(a.Float))
		lo = &v
	}
	if a := nc.attr("max"); a != nil {
		v := nc.like(x, float64(a.Float))
		hi = &v
	}
	nc.out(0, nc.clamp(x, lo, hi))
	return nil
}

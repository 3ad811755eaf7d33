package importer

import (
	"github.com/niro-dev/niro/niro"
)

// The optimizer steps of the ai.onnx.preview.training domain (opset 1):
// Momentum, Adagrad and Adam. Each is an element-wise formula applied to
// every optimized tensor (X, its gradient G and its accumulators), with
// the learning rate R and the iteration count T shared by all of them,
// decomposed in the order the ONNX reference computes it. The per-tensor
// arithmetic runs in X's float type (f16 and bf16 in f32, rounded once per
// output); the scalar learning-rate adjustment, which the reference
// computes from Python floats and the i64 count, runs in f64 and is
// rounded once to X's type.

const trainingDomain = "ai.onnx.preview.training"

func init() {
	many := [2]int{2, 1 << 20}
	registerDomain(trainingDomain, "Momentum", opSpec{Since: 1, In: [2]int{5, -1}, Out: many,
		Attrs: []string{"alpha", "beta", "mode", "norm_coefficient"}, Convert: momentumConv})
	registerDomain(trainingDomain, "Adagrad", opSpec{Since: 1, In: [2]int{5, -1}, Out: many,
		Attrs: []string{"decay_factor", "epsilon", "norm_coefficient"}, Convert: adagradConv})
	registerDomain(trainingDomain, "Adam", opSpec{Since: 1, In: [2]int{6, -1}, Out: [2]int{3, 1 << 20},
		Attrs: []string{"alpha", "beta", "epsilon", "norm_coefficient", "norm_coefficient_post"}, Convert: adamConv})
}

// optimizerGroups checks the inputs R, T, then groups of n tensors each
// (X..., G..., and the accumulators), with groups per tensor, and the
// outputs (groups − 1 per tensor: the new X and accumulators). It returns
// the number of tensors n.
func (nc *nodeCtx) optimizerGroups(groups int) int {
	k := len(nc.args) - 2
	if k <= 0 || k%groups != 0 {
		nc.fail("takes R, T and %d groups of equally many tensors, has %d inputs", groups, len(nc.args))
		return 0
	}
	n := k / groups
	if len(nc.n.Outputs) != (groups-1)*n {
		nc.fail("has %d outputs, want %d for %d optimized tensors", len(nc.n.Outputs), (groups-1)*n, n)
		return 0
	}
	for i := range nc.args {
		if !nc.has(i) {
			nc.fail("input %d is required", i)
			return 0
		}
	}
	if r := nc.in(0); !elem(r).IsFloat() || tensorOf(r).NumElements() != 1 {
		nc.fail("R must be a float scalar, is %s", tensorOf(r))
	}
	if t := nc.in(1); elem(t) != niro.I64 || tensorOf(t).NumElements() != 1 {
		nc.fail("T must be an i64 scalar, is %s", tensorOf(t))
	}
	for i := 0; i < n; i++ {
		x := nc.in(2 + i)
		if !elem(x).IsFloat() {
			nc.fail("X%d must have float elements, has %s", i+1, elem(x))
		}
		for g := 1; g < groups; g++ {
			if o := nc.in(2 + g*n + i); !niro.TypesEqual(o.Type, x.Type) {
				nc.fail("input %d has type %s, X%d has %s", 2+g*n+i, o.Type, i+1, x.Type)
			}
		}
	}
	return n
}

// optScalar returns input i (R or T, one element) as a rank-0 tensor.
func (nc *nodeCtx) optScalar(i int) niro.Value { return nc.rank0(nc.in(i)) }

// momentumConv maps Momentum: g' = norm_coefficient·X + G, β' = β when
// T > 0 and 1 at the first step, V' = α·V + β'·g', and X' = X − R·V'
// (standard) or X − R·(g' + α·V') (nesterov).
func momentumConv(nc *nodeCtx) error {
	for _, a := range []string{"alpha", "beta", "mode", "norm_coefficient"} {
		if nc.attr(a) == nil {
			return nc.errorf("attribute %s is required", a)
		}
	}
	mode := nc.attrString("mode", "")
	if mode != "standard" && mode != "nesterov" {
		return nc.errorf("mode must be \"standard\" or \"nesterov\", is %q", mode)
	}
	n := nc.optimizerGroups(3)
	if nc.err != nil {
		return nc.err
	}
	t := nc.optScalar(1)
	first := nc.cmp(niro.Gt, t, nc.scalar(niro.I64, 0))
	for i := 0; i < n; i++ {
		xe := elem(nc.in(2 + i))
		ct := computeType(xe)
		x, g, v := nc.cast(nc.in(2+i), ct), nc.cast(nc.in(2+n+i), ct), nc.cast(nc.in(2+2*n+i), ct)
		r := nc.cast(nc.optScalar(0), ct)
		alpha := nc.scalar(ct, nc.attrFloat("alpha", 0))
		gr := nc.bin(niro.Add, nc.bin(niro.Mul, nc.scalar(ct, nc.attrFloat("norm_coefficient", 0)), x), g)
		beta := nc.sel(first, nc.scalar(ct, nc.attrFloat("beta", 0)), nc.scalar(ct, 1))
		vn := nc.bin(niro.Add, nc.bin(niro.Mul, alpha, v), nc.bin(niro.Mul, beta, gr))
		step := vn
		if mode == "nesterov" {
			step = nc.bin(niro.Add, gr, nc.bin(niro.Mul, alpha, vn))
		}
		xn := nc.bin(niro.Sub, x, nc.bin(niro.Mul, r, step))
		nc.out(i, nc.cast(xn, xe))
		nc.out(n+i, nc.cast(vn, xe))
	}
	return nil
}

// adagradConv maps Adagrad: r = R / (1 + T·decay_factor) (in f64),
// g' = norm_coefficient·X + G, H' = H + g'·g', X' = X − r·g' / (√H' + ε).
func adagradConv(nc *nodeCtx) error {
	n := nc.optimizerGroups(3)
	if nc.err != nil {
		return nc.err
	}
	t := nc.cast(nc.optScalar(1), niro.F64)
	r64 := nc.bin(niro.Div, nc.cast(nc.optScalar(0), niro.F64),
		nc.bin(niro.Add, nc.scalar(niro.F64, 1), nc.bin(niro.Mul, t, nc.scalar(niro.F64, nc.attrFloat("decay_factor", 0)))))
	for i := 0; i < n; i++ {
		xe := elem(nc.in(2 + i))
		ct := computeType(xe)
		x, g, h := nc.cast(nc.in(2+i), ct), nc.cast(nc.in(2+n+i), ct), nc.cast(nc.in(2+2*n+i), ct)
		gr := nc.bin(niro.Add, nc.bin(niro.Mul, nc.scalar(ct, nc.attrFloat("norm_coefficient", 0)), x), g)
		hn := nc.bin(niro.Add, h, nc.bin(niro.Mul, gr, gr))
		hs := nc.bin(niro.Add, nc.un(niro.Sqrt, hn), nc.scalar(ct, nc.attrFloat("epsilon", 1e-6)))
		xn := nc.bin(niro.Sub, x, nc.bin(niro.Div, nc.bin(niro.Mul, nc.cast(r64, ct), gr), hs))
		nc.out(i, nc.cast(xn, xe))
		nc.out(n+i, nc.cast(hn, xe))
	}
	return nil
}

// adamConv maps Adam: g' = norm_coefficient·X + G, V' = α·V + (1 − α)·g',
// H' = β·H + (1 − β)·(g'·g'), r = R·√(1 − β^T) / (1 − α^T) when T > 0
// and R at the first step (in f64), X' = (1 − norm_coefficient_post)·(X −
// r·(V' / (√H' + ε))).
func adamConv(nc *nodeCtx) error {
	n := nc.optimizerGroups(4)
	if nc.err != nil {
		return nc.err
	}
	alphaF, betaF := nc.attrFloat("alpha", 0.9), nc.attrFloat("beta", 0.999)
	t := nc.optScalar(1)
	r := nc.cast(nc.optScalar(0), niro.F64)
	tf := nc.cast(t, niro.F64)
	one := nc.scalar(niro.F64, 1)
	bt := nc.bin(niro.Pow, nc.scalar(niro.F64, betaF), tf)
	at := nc.bin(niro.Pow, nc.scalar(niro.F64, alphaF), tf)
	corrected := nc.bin(niro.Div, nc.bin(niro.Mul, r, nc.un(niro.Sqrt, nc.bin(niro.Sub, one, bt))), nc.bin(niro.Sub, one, at))
	r = nc.sel(nc.cmp(niro.Gt, t, nc.scalar(niro.I64, 0)), corrected, r)
	for i := 0; i < n; i++ {
		xe := elem(nc.in(2 + i))
		ct := computeType(xe)
		x, g := nc.cast(nc.in(2+i), ct), nc.cast(nc.in(2+n+i), ct)
		v, h := nc.cast(nc.in(2+2*n+i), ct), nc.cast(nc.in(2+3*n+i), ct)
		gr := nc.bin(niro.Add, nc.bin(niro.Mul, nc.scalar(ct, nc.attrFloat("norm_coefficient", 0)), x), g)
		vn := nc.bin(niro.Add, nc.bin(niro.Mul, nc.scalar(ct, alphaF), v), nc.bin(niro.Mul, nc.scalar(ct, 1-alphaF), gr))
		hn := nc.bin(niro.Add, nc.bin(niro.Mul, nc.scalar(ct, betaF), h), nc.bin(niro.Mul, nc.scalar(ct, 1-betaF), nc.bin(niro.Mul, gr, gr)))
		hs := nc.bin(niro.Add, nc.un(niro.Sqrt, hn), nc.scalar(ct, nc.attrFloat("epsilon", 1e-6)))
		xn := nc.bin(niro.Sub, x, nc.bin(niro.Mul, nc.cast(r, ct), nc.bin(niro.Div, vn, hs)))
		if post := nc.attrFloat("norm_coefficient_post", 0); post != 0 {
			xn = nc.bin(niro.Mul, nc.scalar(ct, 1-post), xn)
		}
		nc.out(i, nc.cast(xn, xe))
		nc.out(n+i, nc.cast(vn, xe))
		nc.out(2*n+i, nc.cast(hn, xe))
	}
	return nil
}

package importer

import (
	"strings"

	"github.com/niro-dev/niro/niro"
)

// The recurrent ops LSTM, GRU and RNN map to one Niro Recurrent each
// (docs/ops.md, "Recurrent networks"). The converter gives every absent
// optional input its ONNX default (zeros; sequence lengths of S), resolves
// the activations and their alpha and beta, and transposes the batch-major
// layout (layout = 1) to and from the op's sequence-major one.

// rnnDefaultActs are each kind's default activations per direction.
var rnnDefaultActs = map[niro.RecurrentKind][]string{
	niro.LSTM: {"Sigmoid", "Tanh", "Tanh"},
	niro.GRU:  {"Sigmoid", "Tanh"},
	niro.RNN:  {"Tanh"},
}

// rnnActParams says which activations take alpha and beta, and their
// defaults when the lists run out (onnxruntime's rule: LeakyRelu 0.01,
// HardSigmoid 0.2 and 0.5, Elu 1, every other 0).
var rnnActParams = map[string]struct {
	alpha, beta       bool
	defAlpha, defBeta float64
}{
	"Affine":          {true, true, 0, 0},
	"LeakyRelu":       {true, false, float64(float32(0.01)), 0},
	"ThresholdedRelu": {true, false, 0, 0},
	"ScaledTanh":      {true, true, 0, 0},
	"HardSigmoid":     {true, true, float64(float32(0.2)), 0.5},
	"Elu":             {true, false, 1, 0},
}

// canonicalActivation returns the spelling of Niro's activation name for
// an ONNX one, which is case-insensitive.
func canonicalActivation(s string) (string, bool) {
	for _, a := range niro.RecurrentActivations {
		if strings.EqualFold(a, s) {
			return a, true
		}
	}
	return "", false
}

func recurrentConv(kind niro.RecurrentKind) func(nc *nodeCtx) error {
	return func(nc *nodeCtx) error {
		x, w, r := nc.in(0), nc.in(1), nc.in(2)
		for i, v := range []niro.Value{x, w, r} {
			if nc.rank(v) != 3 {
				if nc.err != nil {
					return nc.err
				}
				return nc.errorf("input %d must have rank 3, has type %s", i, v.Type)
			}
		}
		e := elem(x)
		// f16 and bf16 nodes are computed in f32: every float input is
		// widened once and each output rounded once (docs/ops.md,
		// "Element types").
		narrow := niro.InvalidScalar
		switch e {
		case niro.F32, niro.F64:
		case niro.F16, niro.BF16:
			narrow = e
		default:
			return nc.errorf("%s is defined on float types, not %s", nc.n.OpType, e)
		}
		wide := func(i int, v niro.Value) niro.Value {
			if narrow == niro.InvalidScalar {
				return v
			}
			if got := elem(v); got != narrow {
				nc.fail("input %d (%s) has element type %s, want %s as X", i, nc.n.Inputs[i].Name, got, narrow)
			}
			return nc.cast(v, niro.F32)
		}
		if narrow != niro.InvalidScalar {
			x, w, r, e = wide(0, x), wide(1, w), wide(2, r), niro.F32
		}
		layout := nc.attrInt("layout", 0)
		if layout != 0 && layout != 1 {
			return nc.errorf("layout %d must be 0 or 1", layout)
		}
		if layout == 1 {
			x = nc.transposeOp(x, []int{1, 0, 2})
		}
		xt, wt, rt := tensorOf(x), tensorOf(w), tensorOf(r)
		if !xt.HasStaticShape() || !wt.HasStaticShape() || !rt.HasStaticShape() {
			nc.notYet("%s needs static shapes, has X %s, W %s, R %s", nc.n.OpType, x.Type, w.Type, r.Type)
			return nc.err
		}
		S, N, I := xt.Dims[0], xt.Dims[1], xt.Dims[2]
		if N == 0 || I == 0 {
			nc.notYet("%s with an empty batch or input (X has type %s) is not compiled", nc.n.OpType, x.Type)
			return nc.err
		}
		dir := nc.attrString("direction", "forward")
		D := int64(1)
		switch dir {
		case "forward", "reverse":
		case "bidirectional":
			D = 2
		default:
			return nc.errorf("direction %q must be forward, reverse or bidirectional", dir)
		}
		G := int64(kind.Gates())
		H := rt.Dims[2]
		if hs := nc.attrInt("hidden_size", H); hs != H {
			return nc.errorf("hidden_size %d does not match R's shape %s", hs, r.Type)
		}
		if wt.Dims[0] != D || wt.Dims[1] != G*H || wt.Dims[2] != I {
			return nc.errorf("W has type %s, want [%d, %d, %d]", w.Type, D, G*H, I)
		}
		if rt.Dims[0] != D || rt.Dims[1] != G*H {
			return nc.errorf("R has type %s, want [%d, %d, %d]", r.Type, D, G*H, H)
		}
		// The op takes Wᵀ and Rᵀ: constant weights are transposed once,
		// at import.
		w, r = nc.transposeOp(w, []int{0, 2, 1}), nc.transposeOp(r, []int{0, 2, 1})
		zeros := func(dims ...int64) niro.Value {
			return nc.op(&niro.Broadcast{Shape: dims, X: nc.scalar(e, 0)})
		}
		opt := func(i int, what string, dims ...int64) niro.Value {
			if !nc.has(i) {
				return zeros(dims...)
			}
			v := wide(i, nc.in(i))
			if what == "initial state" && layout == 1 {
				v = nc.transposeOp(v, []int{1, 0, 2})
			}
			want := niro.TensorType{Elem: e, Dims: dims}
			if !niro.TypeRefines(v.Type, want) {
				nc.fail("input %d (%s) has type %s, want %s", i, nc.n.Inputs[i].Name, v.Type, want)
			}
			return v
		}
		b := opt(3, "B", D, 2*G*H)
		var seq niro.Value
		if nc.has(4) {
			seq = nc.in(4)
			if st := tensorOf(seq); st.Elem != niro.I32 || st.Rank() != 1 || (st.Dims[0] >= 0 && st.Dims[0] != N) {
				return nc.errorf("sequence_lens has type %s, want tensor<%dxi32>", seq.Type, N)
			}
			if k, ok := nc.knownOf(seq); ok {
				for _, l := range k.ints {
					if l < 0 || l > S {
						return nc.errorf("sequence length %d is outside [0, %d]", l, S)
					}
				}
			}
		} else {
			vals := make([]int64, N)
			for i := range vals {
				vals[i] = S
			}
			seq = nc.constInts(niro.I32, []int64{N}, vals)
		}
		h0 := opt(5, "initial state", D, N, H)
		op := &niro.Recurrent{Kind: kind, Direction: dir, HiddenSize: H, X: x, W: w, R: r, B: b, SeqLens: seq, H0: h0}
		if kind == niro.LSTM {
			op.C0 = opt(6, "initial state", D, N, H)
			op.P = opt(7, "P", D, 3*H)
			op.InputForget = nc.attrInt("input_forget", 0) != 0
		}
		if kind == niro.GRU {
			op.LinearBeforeReset = nc.attrInt("linear_before_reset", 0) != 0
		}
		if a := nc.attr("clip"); a != nil {
			if !(a.Float > 0) {
				return nc.errorf("clip %v must be positive", a.Float)
			}
			op.HasClip, op.Clip = true, float64(a.Float)
		}
		// Activations: A per direction; a bidirectional op given only A
		// uses them for both directions.
		A := kind.Activations()
		var acts []string
		if at := nc.attr("activations"); at != nil {
			for _, s := range at.Strings {
				c, ok := canonicalActivation(string(s))
				if !ok {
					return nc.errorf("activation %q is not one of %s", s, strings.Join(niro.RecurrentActivations, ", "))
				}
				acts = append(acts, c)
			}
			switch {
			case len(acts) == A*int(D):
			case len(acts) == A && D == 2:
				acts = append(acts, acts...)
			default:
				return nc.errorf("has %d activations, want %d", len(acts), A*int(D))
			}
		} else {
			for d := int64(0); d < D; d++ {
				acts = append(acts, rnnDefaultActs[kind]...)
			}
		}
		var alphas, betas []float32
		if a := nc.attr("activation_alpha"); a != nil {
			alphas = a.Floats
		}
		if a := nc.attr("activation_beta"); a != nil {
			betas = a.Floats
		}
		for _, s := range acts {
			p := rnnActParams[s]
			alpha, beta := 0.0, 0.0
			if p.alpha {
				alpha = p.defAlpha
				if len(alphas) > 0 {
					alpha, alphas = float64(alphas[0]), alphas[1:]
				}
			}
			if p.beta {
				beta = p.defBeta
				if len(betas) > 0 {
					beta, betas = float64(betas[0]), betas[1:]
				}
			}
			op.Activations = append(op.Activations, s)
			op.Alpha = append(op.Alpha, alpha)
			op.Beta = append(op.Beta, beta)
		}
		y := nc.op(op)
		if nc.err != nil {
			return nc.err
		}
		yh, yc := op.YH, op.YC
		if layout == 1 {
			y = nc.transposeOp(y, []int{2, 0, 1, 3})
			yh = nc.transposeOp(yh, []int{1, 0, 2})
			if kind == niro.LSTM {
				yc = nc.transposeOp(yc, []int{1, 0, 2})
			}
		}
		if narrow != niro.InvalidScalar {
			y, yh = nc.cast(y, narrow), nc.cast(yh, narrow)
			if kind == niro.LSTM {
				yc = nc.cast(yc, narrow)
			}
		}
		nc.out(0, y)
		nc.out(1, yh)
		if kind == niro.LSTM {
			nc.out(2, yc)
		}
		return nc.err
	}
}

func init() {
	common := []string{"activation_alpha", "activation_beta", "activations", "clip", "direction", "hidden_size"}
	with := func(extra ...string) []string { return append(append([]string{}, common...), extra...) }
	lstm := recurrentConv(niro.LSTM)
	register("LSTM",
		opSpec{Since: 1, In: [2]int{3, 8}, Out: [2]int{0, 3}, Attrs: with("input_forget", "output_sequence"), Convert: lstm},
		opSpec{Since: 7, In: [2]int{3, 8}, Out: [2]int{0, 3}, Attrs: with("input_forget"), Convert: lstm},
		opSpec{Since: 14, In: [2]int{3, 8}, Out: [2]int{0, 3}, Attrs: with("input_forget", "layout"), Convert: lstm})
	gru := recurrentConv(niro.GRU)
	register("GRU",
		opSpec{Since: 1, In: [2]int{3, 6}, Out: [2]int{0, 2}, Attrs: with("output_sequence"), Convert: gru},
		opSpec{Since: 3, In: [2]int{3, 6}, Out: [2]int{0, 2}, Attrs: with("linear_before_reset", "output_sequence"), Convert: gru},
		opSpec{Since: 7, In: [2]int{3, 6}, Out: [2]int{0, 2}, Attrs: with("linear_before_reset"), Convert: gru},
		opSpec{Since: 14, In: [2]int{3, 6}, Out: [2]int{0, 2}, Attrs: with("linear_before_reset", "layout"), Convert: gru})
	rnn := recurrentConv(niro.RNN)
	register("RNN",
		opSpec{Since: 1, In: [2]int{3, 6}, Out: [2]int{0, 2}, Attrs: with("output_sequence"), Convert: rnn},
		opSpec{Since: 7, In: [2]int{3, 6}, Out: [2]int{0, 2}, Attrs: with(), Convert: rnn},
		opSpec{Since: 14, In: [2]int{3, 6}, Out: [2]int{0, 2}, Attrs: with("layout"), Convert: rnn})
}

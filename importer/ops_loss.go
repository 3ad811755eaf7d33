package importer

import (
	"github.com/niro-dev/niro/niro"
)

// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss. The input is
// N×C×D1×...×Dk, the target N×D1×...×Dk of class indices. The gather along
// the class axis is a one-hot selection: onehot = (iota along C ==
// target), picked = reduce_sum(select(onehot, x, 0)) over C, exact since
// at most one term is nonzero (and a target out of [0, C) picks 0, as the
// reference's clipped gather times a zero weight does). Target entries
// equal to ignore_index get loss 0 and weight 0.

// nllLoss computes the loss of log-probabilities x (already in the compute
// type) against target, with optional class weights w (nil when absent),
// and applies the reduction.
func (nc *nodeCtx) nllLoss(x, target niro.Value, w *niro.Value) niro.Value {
	dims, ok := nc.staticDims(x)
	if !ok {
		return x
	}
	if len(dims) < 2 {
		nc.fail("input must have rank 2 or more, has rank %d", len(dims))
		return x
	}
	te := elem(target)
	if !te.IsInt() {
		nc.fail("target must have integer elements, has %s", te)
		return x
	}
	tdims := append([]int64{dims[0], 1}, dims[2:]...)
	onehot := nc.cmp(niro.Eq, nc.iota(te, dims, 1), nc.reshape(target, tdims))
	zero := nc.like(x, 0)
	loss := nc.un(niro.Neg, nc.reduce(niro.ReduceSum, nc.sel(onehot, x, zero), []int{1}, false))

	// The weight of each target entry: weight[target] or 1, and 0 where
	// the target is ignore_index.
	var gw *niro.Value
	if w != nil {
		wdims := []int64{dims[1]}
		for range dims[2:] {
			wdims = append(wdims, 1)
		}
		v := nc.reduce(niro.ReduceSum, nc.sel(onehot, nc.reshape(*w, wdims), zero), []int{1}, false)
		gw = &v
	}
	if a := nc.attr("ignore_index"); a != nil {
		valid := nc.cmp(niro.Ne, target, nc.like(target, float64(a.Int)))
		loss = nc.sel(valid, loss, zero)
		v := nc.sel(valid, nc.like(x, 1), zero)
		if gw != nil {
			v = nc.sel(valid, *gw, zero)
		}
		gw = &v
	}
	if gw != nil {
		loss = nc.bin(niro.Mul, *gw, loss)
	}

	all := axesFrom(0, len(dims)-1)
	switch red := nc.attrString("reduction", "mean"); red {
	case "none":
		return loss
	case "sum":
		return nc.reduce(niro.ReduceSum, loss, all, false)
	case "mean":
		sum := nc.reduce(niro.ReduceSum, loss, all, false)
		if gw != nil {
			return nc.bin(niro.Div, sum, nc.reduce(niro.ReduceSum, *gw, all, false))
		}
		return nc.bin(niro.Div, sum, nc.like(sum, float64(product(tdims))))
	default:
		nc.fail("reduction must be \"none\", \"sum\" or \"mean\", is %q", red)
		return loss
	}
}

// lossWeights returns input 2 (the class weights) cast to ct, or nil.
func (nc *nodeCtx) lossWeights(ct niro.ScalarType) *niro.Value {
	if !nc.has(2) {
		return nil
	}
	nc.requireFloat(nc.in(2))
	w := nc.cast(nc.in(2), ct)
	return &w
}

func nllLossConv(nc *nodeCtx) error {
	x := nc.in(0)
	nc.requireFloat(x)
	e := elem(x)
	ct := computeElem(e)
	nc.out(0, nc.cast(nc.nllLoss(nc.cast(x, ct), nc.in(1), nc.lossWeights(ct)), e))
	return nil
}

// sceLossConv maps SoftmaxCrossEntropyLoss: log_prob = log(softmax(x))
// along the class axis, as the reference computes it, then the negative
// log-likelihood loss of log_prob; log_prob is the optional output 1.
func sceLossConv(nc *nodeCtx) error {
	x := nc.in(0)
	nc.requireFloat(x)
	if r := nc.rank(x); nc.err == nil && r < 2 {
		return nc.errorf("input must have rank 2 or more, has rank %d", r)
	}
	e := elem(x)
	ct := computeElem(e)
	logProb := nc.un(niro.Log, nc.softmax(nc.cast(x, ct), 1))
	nc.out(0, nc.cast(nc.nllLoss(logProb, nc.in(1), nc.lossWeights(ct)), e))
	nc.out(1, nc.cast(logProb, e))
	return nil
}

func init() {
	attrs := []string{"ignore_index", "reduction"}
	register("NegativeLogLikelihoodLoss",
		opSpec{Since: 12, In: [2]int{2, 3}, Out: [2]int{1, 1}, Attrs: attrs, Convert: nllLossConv},
		opSpec{Since: 13, In: [2]int{2, 3}, Out: [2]int{1, 1}, Attrs: attrs, Convert: nllLossConv},
		opSpec{Since: 22, In: [2]int{2, 3}, Out: [2]int{1, 1}, Attrs: attrs, Convert: nllLossConv})
	register("SoftmaxCrossEntropyLoss",
		opSpec{Since: 12, In: [2]int{2, 3}, Out: [2]int{1, 2}, Attrs: attrs, Convert: sceLossConv},
		opSpec{Since: 13, In: [2]int{2, 3}, Out: [2]int{1, 2}, Attrs: attrs, Convert: sceLossConv})
}

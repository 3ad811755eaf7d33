package importer

import (
	"github.com/niro-dev/niro/niro"
)

// Ops of the ai.onnx.ml domain that are tensor computations:
// Binarizer (a compare and a cast) and ArrayFeatureExtractor (a gather
// along the last axis).

const mlDomain = "ai.onnx.ml"

func init() {
	registerDomain(mlDomain, "Binarizer", opSpec{Since: 1, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"threshold"}, Convert: binarizerConv})
	registerDomain(mlDomain, "ArrayFeatureExtractor", opSpec{Since: 1, In: [2]int{2, 2}, Out: [2]int{1, 1}, Attrs: []string{}, Convert: arrayFeatureConv})
}

// binarizerConv maps Binarizer: 1 where x > threshold, else 0 (NaN gives
// 0), in x's type. Floats compare with the threshold rounded to their type
// (f16 and bf16 in f32), integers in f64.
func binarizerConv(nc *nodeCtx) error {
	x := nc.in(0)
	e := elem(x)
	if !e.IsFloat() && !e.IsInt() {
		return nc.errorf("X must hold numbers, has %s", e)
	}
	ct := computeType(e)
	if e.IsInt() {
		ct = niro.F64
	}
	gt := nc.cmp(niro.Gt, nc.cast(x, ct), nc.scalar(ct, nc.attrFloat("threshold", 0)))
	nc.out(0, nc.cast(gt, e))
	return nil
}

// arrayFeatureConv maps ArrayFeatureExtractor: the elements of X's last
// axis at the flattened indices, Y[..., j] = X[..., I[j]]; a rank-1 X
// gives a [1, n] result, as onnxruntime and the reference do.
func arrayFeatureConv(nc *nodeCtx) error {
	x, ind := nc.in(0), nc.indexInput(1)
	r := nc.rank(x)
	it := tensorOf(ind)
	if nc.err != nil {
		return nc.err
	}
	if r == 0 {
		return nc.errorf("X must have rank at least 1")
	}
	if !it.HasStaticShape() {
		nc.notYet("the indices need a static shape")
		return nil
	}
	n := it.NumElements()
	if it.Rank() != 1 {
		ind = nc.reshapeStatic(ind, []int64{n})
	}
	if k, ok := nc.knownOf(ind); ok {
		ext := tensorOf(x).Dims[r-1]
		for j, i := range k.ints {
			nc.checkIndex(i, ext, r-1, j)
		}
	}
	y := nc.op(&niro.Gather{Axis: r - 1, X: x, Indices: ind})
	if r == 1 {
		y = nc.reshapeStatic(y, []int64{1, n})
	}
	nc.out(0, y)
	return nil
}

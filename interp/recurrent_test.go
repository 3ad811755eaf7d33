package interp

import (
	"slices"
	"testing"

	"github.com/niro-dev/niro/niro"
)

// TestRecurrentRNN runs a bidirectional Relu RNN of hidden size 1 whose
// values are worked by hand: forward h = (x·w + h·r) + (wb + rb) from h0,
// reverse from the last step; Y is [S, D, N, H].
func TestRecurrentRNN(t *testing.T) {
	const src = `
func @f(tensor<2x1x1xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>, tensor<2x2xf32>, tensor<1xi32>, tensor<2x1x1xf32>) -> (tensor<2x2x1x1xf32>, tensor<2x1x1xf32>) {
^bb0(%0: tensor<2x1x1xf32>, %1: tensor<2x1x1xf32>, %2: tensor<2x1x1xf32>, %3: tensor<2x2xf32>, %4: tensor<1xi32>, %5: tensor<2x1x1xf32>):
  %6, %7 = rnn %0, %1, %2, %3, %4, %5 {activations = ["Relu", "Relu"], alpha = [0.0, 0.0], beta = [0.0, 0.0], direction = "bidirectional", hidden_size = 1} : (tensor<2x1x1xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>, tensor<2x2xf32>, tensor<1xi32>, tensor<2x1x1xf32>) -> (tensor<2x2x1x1xf32>, tensor<2x1x1xf32>)
  return %6, %7 : tensor<2x2x1x1xf32>, tensor<2x1x1xf32>
}
`
	lens := func(n int64) []byte {
		l := newTensor(niro.I32, []int64{1})
		l.ints[0] = n
		return l.encode().Data
	}
	x := f32s([]int64{2, 1, 1}, 1, 2)
	w := f32s([]int64{2, 1, 1}, 2, 1)
	r := f32s([]int64{2, 1, 1}, 0.5, 1)
	b := f32s([]int64{2, 2}, 0.25, 0.25, 0, 0)
	h0 := f32s([]int64{2, 1, 1}, 1, 0)
	for _, c := range []struct {
		n      int64
		y, yh  []float32
		reason string
	}{
		// Forward: 3, then 6. Reverse: step 1 gives 2, step 0 gives 3.
		{2, []float32{3, 3, 6, 2}, []float32{6, 3}, "full length"},
		// Length 1: forward stops after step 0 (Y 0 at step 1); reverse
		// starts at step 0.
		{1, []float32{3, 1, 0, 0}, []float32{3, 1}, "length 1"},
	} {
		seq := f32s([]int64{1}, 0)
		seq.Elem, seq.Data = niro.I32, lens(c.n)
		out, err := run(t, src, x, w, r, b, seq, h0)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(asF32(out[0]), c.y) || !slices.Equal(asF32(out[1]), c.yh) {
			t.Errorf("%s: Y %v, YH %v; want %v, %v", c.reason, asF32(out[0]), asF32(out[1]), c.y, c.yh)
		}
	}
}

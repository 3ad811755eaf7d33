package importer

import (
	"math"
	"strings"
	"testing"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
)

// detRef is the determinant of the n×n matrix a by Laplace expansion.
func detRef(a []float64, n int) float64 {
	if n == 1 {
		return a[0]
	}
	var s float64
	for j := 0; j < n; j++ {
		minor := make([]float64, 0, (n-1)*(n-1))
		for r := 1; r < n; r++ {
			for c := 0; c < n; c++ {
				if c != j {
					minor = append(minor, a[r*n+c])
				}
			}
		}
		term := a[j] * detRef(minor, n-1)
		if j%2 == 1 {
			term = -term
		}
		s += term
	}
	return s
}

func TestDet(t *testing.T) {
	for n := 1; n <= 5; n++ {
		// A batch of [2, 2] matrices: random ones, a singular one (two
		// equal rows) and a row permutation of the identity (pivoting
		// flips the sign).
		const batch = 4
		a := pseudo(batch*n*n, -9, 9, uint64(n))
		if n > 1 {
			copy(a[n*n+n:n*n+2*n], a[n*n:n*n+n])
			perm := a[2*n*n : 3*n*n]
			for i := range perm {
				perm[i] = 0
			}
			for r := 0; r < n; r++ {
				perm[r*n+(r+1)%n] = 1
			}
		}
		m := model(22, graph("g",
			[]*onnxpb.NodeProto{node("Det", []string{"x"}, []string{"y"})},
			[]*onnxpb.ValueInfoProto{vi("x", dtDouble, 2, 2, int64(n), int64(n))},
			[]*onnxpb.ValueInfoProto{vi("y", dtDouble, 2, 2)}))
		got := runValues(t, m, vals(niro.F64, []int64{2, 2, int64(n), int64(n)}, a...))[0]
		want := make([]float64, batch)
		for b := range want {
			want[b] = detRef(a[b*n*n:(b+1)*n*n], n)
		}
		checkClose(t, "det", got, want, 1e-9)
		if n > 1 && (got[1] != 0 || math.Abs(got[2]) != 1) {
			t.Errorf("n=%d: singular det %v, permutation det %v", n, got[1], got[2])
		}
	}
}

func TestCompress(t *testing.T) {
	// A known condition selects slices along the axis; without an axis,
	// elements of the flattened input. Positions past the condition's end
	// are dropped.
	x := vals(niro.F32, []int64{3, 2}, 1, 2, 3, 4, 5, 6)
	for _, c := range []struct {
		axis  *int64
		cond  []float64
		shape []int64
		want  []float64
	}{
		{ptr(int64(0)), []float64{0, 1, 1}, []int64{2, 2}, []float64{3, 4, 5, 6}},
		{ptr(int64(-1)), []float64{1}, []int64{3, 1}, []float64{1, 3, 5}},
		{nil, []float64{0, 1, 0, 0, 1}, []int64{2}, []float64{2, 5}},
	} {
		var attrs []*onnxpb.AttributeProto
		if c.axis != nil {
			attrs = append(attrs, attrInt("axis", *c.axis))
		}
		m := model(11, graph("g",
			[]*onnxpb.NodeProto{node("Compress", []string{"x", "c"}, []string{"y"}, attrs...)},
			[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 3, 2)}, []*onnxpb.ValueInfoProto{vi("y", dtFloat, c.shape...)},
			tensorProto("c", vals(niro.Bool, []int64{int64(len(c.cond))}, c.cond...))))
		checkClose(t, "y", runValues(t, m, x)[0], c.want, 0)
	}
	// A condition computed at run time fixes the shape only then.
	dyn := model(11, graph("g",
		[]*onnxpb.NodeProto{node("Compress", []string{"x", "c"}, []string{"y"}, attrInt("axis", 0))},
		[]*onnxpb.ValueInfoProto{vi("x", dtFloat, 3, 2), vi("c", dtBool, 3)}, []*onnxpb.ValueInfoProto{vi("y", dtFloat, dyn, 2)}))
	if r := unknownReason(t, dyn); !strings.Contains(r, `"c") must be known at compile time`) {
		t.Errorf("reason = %q", r)
	}
}

func ptr[T any](v T) *T { return &v }

func TestMelWeightMatrix(t *testing.T) {
	// The test case of the ONNX suite: 8 bins, dft_length 16, 8192 Hz,
	// 0 to 4096 Hz. Each filter rises from 0 to 1 and falls back.
	inputs := []*onnxpb.ValueInfoProto{vi("bins", dtInt32), vi("len", dtInt32), vi("rate", dtInt32), vi("lo", dtFloat), vi("hi", dtFloat)}
	g := graph("g",
		[]*onnxpb.NodeProto{node("MelWeightMatrix", []string{"bins", "len", "rate", "lo", "hi"}, []string{"y"})},
		inputs, []*onnxpb.ValueInfoProto{vi("y", dtFloat, 9, 8)})
	if r := unknownReason(t, model(17, g)); !strings.Contains(r, `0 (num_mel_bins, "bins")`) || !strings.Contains(r, `4 (upper_edge_hertz, "hi")`) {
		t.Errorf("reason %q does not name every input", r)
	}
	g.Input = nil
	g.Initializer = []*onnxpb.TensorProto{tensorProto("bins", vals(niro.I32, nil, 8)), tensorProto("len", vals(niro.I32, nil, 16)),
		tensorProto("rate", vals(niro.I32, nil, 8192)), tensorProto("lo", vals(niro.F32, nil, 0)), tensorProto("hi", vals(niro.F32, nil, 4096))}
	got := runValues(t, model(17, g))[0]
	w, err := melWeights(8, 16, 8192, 0, 4096, false)
	if err != nil {
		t.Fatal(err)
	}
	checkClose(t, "y", got, w, 0)
	// Column i is a triangle: the bins of mel points i, i+1, i+2 are
	// ⌊17·f/8192⌋ of the reference's frequencies.
	for i := 0; i < 8; i++ {
		var peak float64
		for j := 0; j < 9; j++ {
			peak = math.Max(peak, w[j*8+i])
		}
		if peak != 1 {
			t.Errorf("filter %d peaks at %v, want 1", i, peak)
		}
	}
}

func TestFloorDiv(t *testing.T) {
	for _, c := range [][3]float64{{7, 2, 3}, {-7, 2, -4}, {7, -2, -4}, {6, 3, 2}, {0.5, 0.1, 4}, {1e-300, 3, 0}} {
		if got := floorDiv(c[0], c[1]); got != c[2] {
			t.Errorf("floorDiv(%v, %v) = %v, want %v", c[0], c[1], got, c[2])
		}
	}
}

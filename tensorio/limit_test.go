package tensorio

import (
	"errors"
	"strings"
	"testing"

	"github.com/niro-dev/niro/niro"
)

func TestSizeLimit(t *testing.T) {
	defer SetMaxBytes(0)
	if d := DefaultMaxBytes(); d <= 0 {
		t.Fatalf("DefaultMaxBytes = %d", d)
	}
	// 100000x100000 f32 is refused before anything is allocated.
	SetMaxBytes(1 << 30)
	_, err := Random(niro.F32, []int64{100000, 100000}, 1)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Bytes != 40_000_000_000 {
		t.Fatalf("Random = %v, want a TooLargeError of 40e9 bytes", err)
	}
	want := "tensor<100000x100000xf32> needs 40,000,000,000 bytes (37.3 GiB), over the memory limit of 1,073,741,824 bytes (1.0 GiB) (set it with --max-memory)"
	if err.Error() != want {
		t.Errorf("got  %q\nwant %q", err, want)
	}
	if _, err := Random(niro.F32, []int64{1 << 20}, 1); err != nil {
		t.Errorf("a 4 MiB tensor: %v", err)
	}
	// An overflowing size is refused too.
	if err := CheckSize("x", niro.F64, []int64{1 << 40, 1 << 40}); !errors.As(err, &tl) || tl.Bytes != -1 {
		t.Errorf("CheckSize(overflow) = %v", err)
	}
	SetMaxBytes(10)
	enc, err := EncodePB(Tensor{Name: "t", Elem: niro.F32, Dims: []int64{3}, Data: make([]byte, 12)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodePB(enc); !errors.As(err, &tl) || !strings.HasPrefix(err.Error(), "t: ") {
		t.Errorf("DecodePB over the limit = %v", err)
	}
}

func TestFormatDimsCapped(t *testing.T) {
	dims := make([]int64, 1_000_000)
	for i := range dims {
		dims[i] = 1
	}
	got := FormatDims(dims)
	if want := "1x1x1x1x1x1x1x1x1x1x… (rank 1,000,000)"; got != want {
		t.Errorf("FormatDims = %q, want %q", got, want)
	}
}

package interp

import (
	"errors"
	"testing"

	"github.com/niro-dev/niro/niro"
)

// TestPackedBoundary decodes and encodes odd-length packed tensors of
// each sub-byte type: the values held (i4 and i2 sign-extended, the
// others zero-extended), the bytes back, and a wrong length refused.
func TestPackedBoundary(t *testing.T) {
	for _, c := range []struct {
		e    niro.ScalarType
		data []byte
		want []int64
	}{
		{niro.I4, []byte{0x8F, 0x07}, []int64{-1, -8, 7}},
		{niro.U4, []byte{0x8F, 0x07}, []int64{15, 8, 7}},
		{niro.F4E2M1FN, []byte{0x8F, 0x07}, []int64{15, 8, 7}},
		{niro.I2, []byte{0b11100100, 0b01}, []int64{0, 1, -2, -1, 1}},
		{niro.U2, []byte{0b11100100, 0b01}, []int64{0, 1, 2, 3, 1}},
	} {
		n := int64(len(c.want))
		x, err := decode(c.e, []int64{n}, c.data)
		if err != nil {
			t.Fatalf("%s: %v", c.e, err)
		}
		for i, w := range c.want {
			if x.ints[i] != w {
				t.Errorf("%s element %d: got %d, want %d", c.e, i, x.ints[i], w)
			}
		}
		if got := x.encode().Data; string(got) != string(c.data) {
			t.Errorf("%s: encoded %x, want %x", c.e, got, c.data)
		}
		if _, err := decode(c.e, []int64{n + 8}, c.data); err == nil {
			t.Errorf("%s: a short buffer decoded", c.e)
		}
	}
}

// TestCastOnlyFloatLiteral checks that a scalar float literal of a type
// held as codes is refused rather than read as code 0.
func TestCastOnlyFloatLiteral(t *testing.T) {
	for _, e := range []niro.ScalarType{niro.F8E4M3FN, niro.F8E8M0FNU, niro.F4E2M1FN} {
		if _, err := literal(e, niro.FloatLit(1)); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s float literal: err = %v, want ErrUnsupported", e, err)
		}
		x, err := literal(e, niro.BytesLit{0x07})
		if err != nil || x.ints[0] != 7 {
			t.Errorf("%s bytes literal: %v, %v", e, x, err)
		}
	}
	x, err := literal(niro.I4, niro.IntLit(-8))
	if err != nil || x.ints[0] != -8 {
		t.Errorf("i4 literal -8: %v, %v", x, err)
	}
}

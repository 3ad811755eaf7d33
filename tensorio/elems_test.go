package tensorio

import (
	"bytes"
	"math"
	"testing"

	"github.com/niro-dev/niro/niro"
)

func TestF16Conversion(t *testing.T) {
	// Every finite half and infinity reads back unchanged through float32.
	for h := range 1 << 16 {
		x := F16ToFloat64(uint16(h))
		if math.IsNaN(x) {
			if got := F16ToFloat64(F16FromFloat32(float32(x))); !math.IsNaN(got) {
				t.Fatalf("NaN %#04x became %v", h, got)
			}
			continue
		}
		if got := F16FromFloat32(float32(x)); got != uint16(h) {
			t.Fatalf("%#04x (%v) round trip gave %#04x", h, x, got)
		}
	}
	for _, tt := range []struct {
		f    float32
		want uint16
	}{
		{1, 0x3c00},
		{65504, 0x7bff},
		{65520, 0x7c00},                         // halfway to the next binade: rounds to even, inf
		{65519, 0x7bff},                         // below the halfway point
		{1 + 0x1p-11, 0x3c00},                   // tie, to even
		{1 + 3*0x1p-11, 0x3c02},                 // tie, to even (up)
		{0x1p-24, 0x0001},                       // smallest subnormal
		{0x1p-25, 0x0000},                       // tie with zero, to even
		{0x1p-25 + 0x1p-40, 0x0001},             // above the tie
		{-0x1p-14, 0x8400},                      // smallest normal, negative
		{float32(math.Inf(-1)), 0xfc00},         // -inf
		{3 * 0x1p-25, 0x0002},                   // 1.5 ulp subnormal: tie to even 2
		{float32(math.Copysign(0, -1)), 0x8000}, // -0
	} {
		if got := F16FromFloat32(tt.f); got != tt.want {
			t.Errorf("F16FromFloat32(%v) = %#04x, want %#04x", tt.f, got, tt.want)
		}
	}
}

func TestBF16Conversion(t *testing.T) {
	for _, tt := range []struct {
		f    float32
		want uint16
	}{
		{1, 0x3f80},
		{1 + 0x1p-8, 0x3f80},   // tie, to even
		{1 + 3*0x1p-8, 0x3f82}, // tie, to even (up)
		{1 + 0x1p-8 + 0x1p-20, 0x3f81},
		{float32(math.Inf(1)), 0x7f80},
	} {
		if got := BF16FromFloat32(tt.f); got != tt.want {
			t.Errorf("BF16FromFloat32(%v) = %#04x, want %#04x", tt.f, got, tt.want)
		}
	}
	if got := BF16FromFloat32(float32(math.NaN())); got&0x7f80 != 0x7f80 || got&0x7f == 0 {
		t.Errorf("NaN gave %#04x", got)
	}
}

func TestMinifloatDecode(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	for _, tt := range []struct {
		elem niro.ScalarType
		bits byte
		want float64
	}{
		{niro.F8E4M3FN, 0x38, 1},
		{niro.F8E4M3FN, 0x7e, 448},
		{niro.F8E4M3FN, 0x7f, nan},
		{niro.F8E4M3FN, 0xff, nan},
		{niro.F8E4M3FN, 0x01, 0x1p-9},
		{niro.F8E4M3FN, 0x80, math.Copysign(0, -1)},
		{niro.F8E4M3FNUZ, 0x40, 1},
		{niro.F8E4M3FNUZ, 0x7f, 240},
		{niro.F8E4M3FNUZ, 0x80, nan},
		{niro.F8E4M3FNUZ, 0xff, -240},
		{niro.F8E5M2, 0x3c, 1},
		{niro.F8E5M2, 0x7b, 57344},
		{niro.F8E5M2, 0x7c, inf},
		{niro.F8E5M2, 0xfc, -inf},
		{niro.F8E5M2, 0x7d, nan},
		{niro.F8E5M2FNUZ, 0x40, 1},
		{niro.F8E5M2FNUZ, 0x7f, 57344},
		{niro.F8E5M2FNUZ, 0x80, nan},
		{niro.F8E8M0FNU, 0x7f, 1},
		{niro.F8E8M0FNU, 0x00, 0x1p-127},
		{niro.F8E8M0FNU, 0xfe, 0x1p127},
		{niro.F8E8M0FNU, 0xff, nan},
	} {
		got := floatAt(tt.elem, []byte{tt.bits}, 0)
		if !(got == tt.want && math.Signbit(got) == math.Signbit(tt.want) || math.IsNaN(got) && math.IsNaN(tt.want)) {
			t.Errorf("%s %#02x = %v, want %v", tt.elem, tt.bits, got, tt.want)
		}
	}
	// FLOAT4E2M1: low nibble first.
	want := []float64{0, 0.5, 1, 1.5, 2, 3, 4, 6, math.Copysign(0, -1), -0.5, -1, -1.5, -2, -3, -4, -6}
	data := []byte{0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe}
	for i, w := range want {
		if got := floatAt(niro.F4E2M1FN, data, int64(i)); got != w || math.Signbit(got) != math.Signbit(w) {
			t.Errorf("f4E2M1FN element %d = %v, want %v", i, got, w)
		}
	}
}

func TestIntAtSubByte(t *testing.T) {
	data := []byte{0xe4} // 2-bit elements, low first: 0, 1, 2, 3
	for i, w := range []int64{0, 1, -2, -1} {
		if got := intAt(niro.I2, data, int64(i)); got != w {
			t.Errorf("i2 element %d = %d, want %d", i, got, w)
		}
	}
	for i, w := range []int64{0, 1, 2, 3} {
		if got := intAt(niro.U2, data, int64(i)); got != w {
			t.Errorf("ui2 element %d = %d, want %d", i, got, w)
		}
	}
}

func TestRandom(t *testing.T) {
	for _, elem := range niro.AllScalarTypes() {
		a, err := Random(elem, []int64{4, 33}, 42)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Check(); err != nil {
			t.Fatalf("%s: %v", elem, err)
		}
		b, _ := Random(elem, []int64{4, 33}, 42)
		c, _ := Random(elem, []int64{4, 33}, 43)
		if !bytes.Equal(a.Data, b.Data) {
			t.Errorf("%s: same seed, different data", elem)
		}
		if bytes.Equal(a.Data, c.Data) {
			t.Errorf("%s: different seeds, same data", elem)
		}
		for i := range a.NumElements() {
			switch {
			case elem.IsComplex():
				v := complexAt(elem, a.Data, i)
				if real(v) < -1 || real(v) >= 1 || imag(v) < -1 || imag(v) >= 1 {
					t.Fatalf("%s element %d = %v out of range", elem, i, v)
				}
			case elem.IsFloat():
				if v := floatAt(elem, a.Data, i); !(v >= -1 && v < 1) {
					t.Fatalf("%s element %d = %v out of [-1, 1)", elem, i, v)
				}
			case elem == niro.Bool:
				if a.Data[i] > 1 {
					t.Fatalf("bool element %d = %d", i, a.Data[i])
				}
			default:
				v := intAt(elem, a.Data, i)
				lo, hi := int64(-4), int64(3)
				if !elem.IsSigned() {
					lo, hi = 0, 7
				}
				if v < lo || v > hi {
					t.Fatalf("%s element %d = %d out of [%d, %d]", elem, i, v, lo, hi)
				}
			}
		}
	}
	if _, err := Random(niro.F32, []int64{-1}, 0); err == nil {
		t.Error("negative dimension accepted")
	}
}

// TestRandomStable pins the generator: bench results must stay comparable
// across niro versions.
func TestRandomStable(t *testing.T) {
	a, _ := Random(niro.F32, []int64{2}, 1)
	b, _ := Random(niro.I8, []int64{4}, 1)
	got := FormatElem(a, 0) + " " + FormatElem(a, 1) + " " + FormatElem(b, 0) + " " + FormatElem(b, 3)
	const want = "-0.058113694 0.60526025 3 -1"
	if got != want {
		t.Errorf("Random(seed 1) = %s, want %s", got, want)
	}
}

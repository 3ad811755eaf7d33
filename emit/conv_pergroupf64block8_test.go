package emit

import (
	"testing"

	"github.com/niro-dev/niro/niro"
)

// TestPerGroupTag pins the tags of the rank-8 per-group block: unfused,
// 32k + 17 to 32k + 31 channels per group of a 4-byte accumulator take
// the 16-channel block (niro.conv2dg16, perGroupBlock16), 16k + 9 to
// 16k + 15 of an 8-byte one the 8-channel block (niro.conv2dg8,
// perGroupBlock8), every other count niro.conv2dg; a fused block is
// niro.conv2dg_e whatever its count (its root's tile decides).
func TestPerGroupTag(t *testing.T) {
	for _, c := range []struct {
		mp   int64
		acc  niro.ScalarType
		epi  bool
		want string
	}{
		{12, niro.F64, false, "niro.conv2dg8"}, {9, niro.F64, false, "niro.conv2dg8"}, {15, niro.F64, false, "niro.conv2dg8"},
		{28, niro.F64, false, "niro.conv2dg8"}, {10, niro.F64, false, "niro.conv2dg8"}, {47, niro.F64, false, "niro.conv2dg8"},
		{8, niro.F64, false, "niro.conv2dg"}, {16, niro.F64, false, "niro.conv2dg"}, {17, niro.F64, false, "niro.conv2dg"},
		{24, niro.F64, false, "niro.conv2dg"}, {33, niro.F64, false, "niro.conv2dg"},
		{12, niro.F64, true, "niro.conv2dg_e"}, {28, niro.F64, true, "niro.conv2dg_e"},
		{20, niro.F32, false, "niro.conv2dg16"}, {28, niro.F32, false, "niro.conv2dg16"}, {12, niro.F32, false, "niro.conv2dg"},
		{17, niro.F32, false, "niro.conv2dg16"}, {16, niro.F32, false, "niro.conv2dg"}, {28, niro.F32, true, "niro.conv2dg_e"},
	} {
		g := &convGeom{mp: c.mp, accElem: c.acc, epi: c.epi}
		if got := g.perGroupTag(); got != c.want {
			t.Errorf("perGroupTag(mp %d, %v, epi %v) = %s, want %s", c.mp, c.acc, c.epi, got, c.want)
		}
	}
}

package emit

import "testing"

// TestPaddedChannelConv pins which 2-D convolutions get conv_general.go's
// padding channel: one output channel outside the 1×1 product and the row
// form (one output column, or one input channel, which with NCHW values
// take the row form's transposed view or the flattened 1×1 product and
// the depthwise row form first: conv.go); a convolution of 16k + 1
// channels (k ≥ 1) keeps its channels, one group, depthwise, gathered per
// output channel or per group (16k + 1 per group: the rank-8 block's
// one-channel remainder, @conv_steps8_1).
func TestPaddedChannelConv(t *testing.T) {
	cases := []struct {
		G, M, C, KH, KW, OW int64
		want                bool
	}{
		{1, 17, 64, 3, 3, 28, false},
		{1, 33, 64, 3, 3, 28, false},
		{1, 49, 8, 3, 2, 13, false},
		{1, 17, 64, 1, 1, 56, false},
		{1, 33, 16, 3, 3, 56, false}, // the row form
		{1, 1, 64, 3, 3, 28, false},  // one channel: the row form at OW ≥ 2
		{1, 1, 64, 3, 3, 9, false},   // one channel at OW = 8k + 1: the row form too
		{1, 1, 64, 3, 3, 17, false},  // (a one-column block of 16)
		{1, 1, 64, 3, 1, 28, false},  // a kernel side of 1: the row form
		{1, 1, 64, 1, 5, 9, false},   // a kernel side of 1 at OW = 8k + 1
		{1, 1, 64, 3, 3, 1, true},    // one output column: a block of 2 (channels-last; NCHW: conv_rows_t.go first)
		{1, 1, 1, 3, 3, 28, true},    // one input channel: a block of 2 channels-last (NCHW: the depthwise row form)
		{1, 1, 64, 1, 1, 28, false},  // the 1×1 product
		{1, 1, 64, 3, 3, 56, false},  // the row form
		{33, 33, 1, 3, 3, 12, false}, // depthwise: the one-channel depthwise block
		{17, 17, 2, 3, 3, 12, false}, // per output channel: the one-channel block
		{3, 33, 2, 3, 3, 7, false},   // three groups of 11 (per group, no remainder of 1)
		{2, 34, 4, 3, 3, 7, false},   // two groups of 17: the per-group block's one-channel remainder
		{4, 68, 4, 3, 3, 28, false},  // four groups of 17
		{4, 132, 8, 3, 3, 28, false}, // four groups of 33
		{2, 34, 8, 1, 1, 28, false},  // two groups of 17, 1×1
		{16, 272, 2, 3, 3, 9, false}, // sixteen groups of 17
		{1, 32, 64, 3, 3, 28, false},
	}
	for _, c := range cases {
		if got := paddedChannelConv(c.G, c.M, c.C, c.KH, c.KW, c.OW); got != c.want {
			t.Errorf("paddedChannelConv(G %d, M %d, C %d, %d×%d, OW %d) = %v, want %v", c.G, c.M, c.C, c.KH, c.KW, c.OW, got, c.want)
		}
	}
	if !useConvRows(56, 33, 16, 3, 3) || !useConvRows(16, 17, 2, 2, 2) {
		t.Error("the row form refuses 16k + 1 channels")
	}
	// The transposed view: one output channel and column, a row of 2 or
	// more, a kernel other than 1×1, two input channels or more; one
	// input channel with a kernel of at least 2 × 2.
	for _, c := range []struct {
		oh, ow, m, c, kh, kw int64
		want                 bool
	}{
		{54, 1, 1, 64, 3, 3, true}, {2, 1, 1, 2, 3, 1, true}, {9, 1, 1, 4, 1, 3, true},
		{1, 1, 1, 64, 7, 7, false}, {54, 2, 1, 64, 3, 3, false}, {54, 1, 2, 64, 3, 3, false},
		{54, 1, 1, 1, 3, 3, true}, {54, 1, 1, 1, 2, 2, true}, {54, 1, 1, 1, 1, 3, false}, {54, 1, 1, 1, 3, 1, false},
		{1, 1, 1, 1, 3, 3, false}, {54, 1, 1, 64, 1, 1, false},
	} {
		if got := useConvRowsT(c.oh, c.ow, c.m, c.c, c.kh, c.kw); got != c.want {
			t.Errorf("useConvRowsT(%d×%d, M %d, C %d, %d×%d) = %v, want %v", c.oh, c.ow, c.m, c.c, c.kh, c.kw, got, c.want)
		}
	}
}

// TestConvBlockTag pins the block tags: 32k + 17 to 32k + 31 channels of
// a 4-byte accumulator take the 16-channel block (niro.conv2d16,
// chanBlock16), 16k + 9 to 16k + 15 channels of an 8-byte one the
// 8-channel block (niro.conv2d8, chanBlock8), every other count
// niro.conv2d.
func TestConvBlockTag(t *testing.T) {
	for _, c := range []struct {
		M    int64
		acc4 bool
		want string
	}{
		{17, true, "niro.conv2d16"}, {49, true, "niro.conv2d16"}, {81, true, "niro.conv2d16"},
		{20, true, "niro.conv2d16"}, {24, true, "niro.conv2d16"}, {28, true, "niro.conv2d16"}, {31, true, "niro.conv2d16"},
		{52, true, "niro.conv2d16"}, {63, true, "niro.conv2d16"}, {255, true, "niro.conv2d16"},
		{33, true, "niro.conv2d"}, {32, true, "niro.conv2d"}, {16, true, "niro.conv2d"}, {48, true, "niro.conv2d"},
		{64, true, "niro.conv2d"}, {15, true, "niro.conv2d"},
		{17, false, "niro.conv2d"}, {49, false, "niro.conv2d"}, {20, false, "niro.conv2d"},
		// An 8-byte accumulator: 16k + 9 to 16k + 15 channels take the
		// 8-channel block (chanBlock8), 16k + 1 to 16k + 8 the 16-channel one.
		{25, false, "niro.conv2d8"}, {28, false, "niro.conv2d8"}, {31, false, "niro.conv2d8"},
		{9, false, "niro.conv2d8"}, {15, false, "niro.conv2d8"}, {47, false, "niro.conv2d8"}, {255, false, "niro.conv2d8"},
		{24, false, "niro.conv2d"}, {16, false, "niro.conv2d"}, {32, false, "niro.conv2d"}, {8, false, "niro.conv2d"},
		{40, false, "niro.conv2d"}, {33, false, "niro.conv2d"},
	} {
		if got := convBlockTag(c.M, c.acc4); got != c.want {
			t.Errorf("convBlockTag(%d, %v) = %s, want %s", c.M, c.acc4, got, c.want)
		}
	}
}

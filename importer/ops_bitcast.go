package importer

import (
	"github.com/niro-dev/niro/niro"
)

// BitCast (opset 26) reinterprets each element's bits as the type `to`,
// of the same bit width. Between integers of one width a Niro cast is
// already bit-preserving (it wraps), and bool, stored as one byte 0 or 1,
// converts to an 8-bit integer as 0 or 1 (an 8-bit integer converts to
// bool as "not zero", which agrees on 0 and 1, the only bytes ONNX
// defines for bool); a float on either side takes a cast with bitcast.

func init() {
	register("BitCast", opSpec{Since: 26, In: [2]int{1, 1}, Out: [2]int{1, 1}, Attrs: []string{"to"}, Convert: bitcastConv})
}

func bitcastConv(nc *nodeCtx) error {
	x := nc.in(0)
	if nc.attr("to") == nil {
		return nc.errorf("attribute to is required")
	}
	to, err := nc.dtypeAttr("to", niro.InvalidScalar)
	if err != nil {
		return err
	}
	from := elem(x)
	width := func(s niro.ScalarType) int {
		if s == niro.Bool {
			return 8
		}
		return s.Bits()
	}
	if niro.ClassOf(to) == 0 {
		nc.notYet("BitCast to %s is not supported yet", to)
		return nil
	}
	if width(from) != width(to) {
		return nc.errorf("BitCast from %s (%d bits) to %s (%d bits) changes the bit width", from, width(from), to, width(to))
	}
	if from.IsFloat() || to.IsFloat() {
		nc.out(0, nc.op(&niro.Cast{To: to, Bitcast: true, X: x}))
		return nil
	}
	nc.out(0, nc.cast(x, to))
	return nil
}

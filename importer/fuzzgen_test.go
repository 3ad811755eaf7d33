package importer

import (
	"errors"
	"fmt"
	"testing"

	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/onnxpb"
	"google.golang.org/protobuf/proto"
)

// byteSource turns fuzz input into choices; it yields zeros when empty.
type byteSource struct{ b []byte }

func (s *byteSource) next() byte {
	if len(s.b) == 0 {
		return 0
	}
	c := s.b[0]
	s.b = s.b[1:]
	return c
}

func (s *byteSource) intn(n int) int { return int(s.next()) % n }

var genOps = []string{"Add", "Mul", "MatMul", "Transpose", "Identity", "Constant", "If", "Relu", "Cast", "Where", "Shape", "Loop", "Scan", "Equal", "Split"}

var genTypes = []DataType{dtFloat, dtInt64, dtBool, dtFloat16, dtInt4, dtString, dtDouble, 0, 99}

// genDims returns a few small dimensions, sometimes unknown (-1).
func (s *byteSource) genDims() []int64 {
	n := s.intn(4)
	dims := make([]int64, n)
	for i := range dims {
		dims[i] = int64(s.intn(5)) - 1
	}
	return dims
}

func (s *byteSource) genValueInfo(name string) *onnxpb.ValueInfoProto {
	switch s.intn(8) {
	case 0:
		return viUnranked(name, genTypes[s.intn(len(genTypes))])
	case 1:
		return &onnxpb.ValueInfoProto{Name: proto.String(name)}
	default:
		return vi(name, genTypes[s.intn(3)], s.genDims()...)
	}
}

func (s *byteSource) genTensor() *onnxpb.TensorProto {
	dims := s.genDims()
	for i := range dims {
		if dims[i] < 0 {
			dims[i] = 2
		}
	}
	dt := genTypes[s.intn(len(genTypes))]
	raw := make([]byte, s.intn(40))
	return &onnxpb.TensorProto{Dims: dims, DataType: proto.Int32(int32(dt)), RawData: raw}
}

func (s *byteSource) genAttr() *onnxpb.AttributeProto {
	names := []string{"perm", "broadcast", "axis", "to", "value", "value_ints", "then_branch", "else_branch", "body", "num_scan_inputs", "alpha"}
	name := names[s.intn(len(names))]
	switch s.intn(6) {
	case 0:
		return attrInt(name, int64(s.intn(20))-3)
	case 1:
		var v []int64
		for i := s.intn(4); i > 0; i-- {
			v = append(v, int64(s.intn(5))-1)
		}
		return attrInts(name, v...)
	case 2:
		return attrTensor(name, s.genTensor())
	case 3:
		return attrGraph(name, s.genGraph(1))
	case 4:
		return attrFloat(name, float32(s.next()))
	default:
		return &onnxpb.AttributeProto{Name: proto.String(name), RefAttrName: proto.String("r")}
	}
}

// genGraph builds a small graph whose node inputs are mostly defined names.
func (s *byteSource) genGraph(depth int) *onnxpb.GraphProto {
	g := &onnxpb.GraphProto{Name: proto.String("g")}
	names := []string{"outer"}
	if depth == 0 {
		for i := s.intn(3) + 1; i > 0; i-- {
			name := fmt.Sprintf("in%d", i)
			g.Input = append(g.Input, s.genValueInfo(name))
			names = append(names, name)
		}
	} else if s.intn(2) == 0 {
		g.Input = append(g.Input, s.genValueInfo("sub_in"))
		names = append(names, "sub_in")
	}
	if s.intn(3) == 0 {
		t := s.genTensor()
		t.Name = proto.String("w")
		g.Initializer = append(g.Initializer, t)
		names = append(names, "w")
	}
	for i := s.intn(5); i > 0; i-- {
		n := &onnxpb.NodeProto{OpType: proto.String(genOps[s.intn(len(genOps))])}
		for j := s.intn(3); j > 0; j-- {
			if s.intn(6) == 0 {
				n.Input = append(n.Input, "")
			} else {
				n.Input = append(n.Input, names[s.intn(len(names))])
			}
		}
		for j := s.intn(2) + 1; j > 0; j-- {
			name := fmt.Sprintf("v%d_%d_%d", depth, i, j)
			n.Output = append(n.Output, name)
			names = append(names, name)
			if s.intn(3) == 0 {
				g.ValueInfo = append(g.ValueInfo, s.genValueInfo(name))
			}
		}
		if depth < 2 {
			for j := s.intn(3); j > 0; j-- {
				n.Attribute = append(n.Attribute, s.genAttr())
			}
		}
		g.Node = append(g.Node, n)
	}
	for i := s.intn(2) + 1; i > 0; i-- {
		g.Output = append(g.Output, s.genValueInfo(names[s.intn(len(names))]))
	}
	return g
}

// FuzzImportGenerated builds structurally plausible models from the fuzz
// input, exercising the converter's semantic checks rather than the
// protobuf decoder.
// fuzzcount: 20000
func FuzzImportGenerated(f *testing.F) {
	for _, seed := range []string{"", "\x01\x02\x03", "\x05\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09", "\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &byteSource{b: data}
		m := model(int64(s.intn(30)+1), s.genGraph(0))
		m.IrVersion = proto.Int64(int64(s.intn(10)))
		b, err := proto.Marshal(m)
		if err != nil {
			return
		}
		mod, _, err := ImportBytes(b, Options{})
		if err != nil {
			if errors.Is(err, errInvalidIR) {
				t.Fatal(err)
			}
			return
		}
		if err := niro.Verify(mod); err != nil {
			t.Fatal(err)
		}
	})
}

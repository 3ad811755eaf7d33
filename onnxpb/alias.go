package onnxpb

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// maxAliasDepth bounds the nesting of messages decoded by [UnmarshalAliased],
// matching the default recursion limit of proto.Unmarshal.
const maxAliasDepth = 10000

// containers are the messages that may hold tensors, directly or through
// nested graphs. [UnmarshalAliased] walks their wire records itself so that
// the bytes fields below them can alias the input; every other message is
// decoded by proto.Unmarshal as a whole.
var containers = map[protoreflect.FullName]bool{
	"onnx.ModelProto":        true,
	"onnx.GraphProto":        true,
	"onnx.NodeProto":         true,
	"onnx.AttributeProto":    true,
	"onnx.TensorProto":       true,
	"onnx.SparseTensorProto": true,
	"onnx.FunctionProto":     true,
	"onnx.TrainingInfoProto": true,
}

// UnmarshalModel decodes a serialized ModelProto with [UnmarshalAliased].
func UnmarshalModel(buf []byte) (*ModelProto, error) {
	m := new(ModelProto)
	if err := UnmarshalAliased(buf, m); err != nil {
		return nil, err
	}
	return m, nil
}

// UnmarshalAliased decodes buf into m (merging, as proto.Unmarshal with
// Merge does). It differs from proto.Unmarshal in one way: the bytes fields
// of m and of the tensor-carrying messages below it (TensorProto.raw_data
// and string_data, AttributeProto.s and strings) are slices of buf rather
// than copies, so a model's weights are not copied when it is decoded. buf
// must therefore stay alive and unmodified while m is in use; it may be
// read-only memory such as a file mapping. Fields unknown to the schema are
// kept as unknown fields.
func UnmarshalAliased(buf []byte, m proto.Message) error {
	return decodeAliased(buf, m.ProtoReflect(), 0, nil)
}

// UnmarshalModelNodes is [UnmarshalModel] for a model too large to hold
// decoded whole: each node of the main graph (ModelProto.graph.node) is
// passed to fn as soon as it is decoded, in file order, and is not kept in
// the returned model, whose main graph has no nodes. Everything else is
// decoded as UnmarshalModel decodes it, and a malformed record anywhere is
// reported as UnmarshalModel reports it. An error from fn stops the
// decoding and is returned as it is.
func UnmarshalModelNodes(buf []byte, fn func(*NodeProto) error) (*ModelProto, error) {
	m := new(ModelProto)
	hook := func(parent protoreflect.Message, fd protoreflect.FieldDescriptor, v []byte, depth int) (bool, error) {
		// At depth 1 the only graph is the model's main graph.
		if depth != 1 || fd.Number() != graphNodeField || parent.Descriptor().FullName() != "onnx.GraphProto" {
			return false, nil
		}
		np := new(NodeProto)
		if err := decodeAliased(v, np.ProtoReflect(), depth+1, nil); err != nil {
			return true, err
		}
		if err := fn(np); err != nil {
			return true, &hookError{err}
		}
		return true, nil
	}
	if err := decodeAliased(buf, m.ProtoReflect(), 0, hook); err != nil {
		if he, ok := err.(*hookError); ok {
			return nil, he.err
		}
		return nil, err
	}
	return m, nil
}

// graphNodeField is the field number of GraphProto.node.
const graphNodeField = 1

// hookError carries an error of UnmarshalModelNodes's callback out of the
// walker unchanged.
type hookError struct{ err error }

func (e *hookError) Error() string { return e.err.Error() }

// decodeHook may take over the decoding of one element v of the repeated
// message field fd of m, reporting whether it did.
type decodeHook func(m protoreflect.Message, fd protoreflect.FieldDescriptor, v []byte, depth int) (bool, error)

var mergeOpts = proto.UnmarshalOptions{Merge: true, AllowPartial: true}

func decodeAliased(b []byte, m protoreflect.Message, depth int, hook decodeHook) error {
	if depth > maxAliasDepth {
		return errors.New("proto: exceeded maximum recursion depth")
	}
	fields := m.Descriptor().Fields()
	pending := -1 // start of a run of records left to proto.Unmarshal
	flush := func(end int) error {
		if pending < 0 {
			return nil
		}
		err := mergeOpts.Unmarshal(b[pending:end], m.Interface())
		pending = -1
		return err
	}
	for off := 0; off < len(b); {
		num, typ, n := protowire.ConsumeTag(b[off:])
		if n < 0 {
			return fmt.Errorf("proto: %s: %w", m.Descriptor().FullName(), protowire.ParseError(n))
		}
		vn := protowire.ConsumeFieldValue(num, typ, b[off+n:])
		if vn < 0 {
			return fmt.Errorf("proto: %s field %d: %w", m.Descriptor().FullName(), num, protowire.ParseError(vn))
		}
		fd := fields.ByNumber(num)
		if fd == nil || typ != protowire.BytesType || !aliasable(fd) {
			if pending < 0 {
				pending = off
			}
			off += n + vn
			continue
		}
		if err := flush(off); err != nil {
			return err
		}
		v, _ := protowire.ConsumeBytes(b[off+n:])
		v = v[:len(v):len(v)]
		off += n + vn
		switch {
		case fd.Kind() == protoreflect.BytesKind && fd.IsList():
			m.Mutable(fd).List().Append(protoreflect.ValueOfBytes(v))
		case fd.Kind() == protoreflect.BytesKind:
			m.Set(fd, protoreflect.ValueOfBytes(v))
		case fd.IsList():
			if hook != nil {
				handled, err := hook(m, fd, v, depth)
				if err != nil {
					return err
				}
				if handled {
					continue
				}
			}
			list := m.Mutable(fd).List()
			elem := list.NewElement()
			if err := decodeAliased(v, elem.Message(), depth+1, hook); err != nil {
				return err
			}
			list.Append(elem)
		default:
			if err := decodeAliased(v, m.Mutable(fd).Message(), depth+1, hook); err != nil {
				return err
			}
		}
	}
	return flush(len(b))
}

// aliasable reports whether a length-delimited field is decoded by the
// aliasing walker: a bytes field, or a message that may hold tensors.
func aliasable(fd protoreflect.FieldDescriptor) bool {
	switch fd.Kind() {
	case protoreflect.BytesKind:
		return true
	case protoreflect.MessageKind:
		return !fd.IsMap() && containers[fd.Message().FullName()]
	default:
		return false
	}
}

// MainGraphNodeCount returns the number of node records of a serialized
// model's main graph (ModelProto.graph.node), found by walking the wire
// records of the model and its graph without decoding them: a capacity
// hint for [UnmarshalModelNodes]'s caller. Malformed data gives the count
// up to the first bad record.
func MainGraphNodeCount(buf []byte) int {
	const modelGraphField = 7
	count := 0
	walk := func(b []byte, fn func(num protowire.Number, v []byte)) {
		for len(b) > 0 {
			num, typ, n := protowire.ConsumeTag(b)
			if n < 0 {
				return
			}
			vn := protowire.ConsumeFieldValue(num, typ, b[n:])
			if vn < 0 {
				return
			}
			if typ == protowire.BytesType {
				v, _ := protowire.ConsumeBytes(b[n:])
				fn(num, v)
			}
			b = b[n+vn:]
		}
	}
	walk(buf, func(num protowire.Number, g []byte) {
		if num == modelGraphField {
			walk(g, func(num protowire.Number, _ []byte) {
				if num == graphNodeField {
					count++
				}
			})
		}
	})
	return count
}

package importer

import (
	"fmt"
	"sort"
	"strings"

	"github.com/niro-dev/niro/onnxpb"
)

// Model is an ONNX model loaded into memory: the decoded model metadata,
// the main graph, the model-local functions and the opsets they import.
// Tensor payloads alias the model file (or its memory mapping) and the
// mapped external data files; they stay valid until [Model.Close].
type Model struct {
	// Path is the model file, or "" for a model decoded from bytes.
	Path string
	// Dir is the directory external data locations are resolved against,
	// or "" when external data is not allowed.
	Dir string

	IRVersion       int64
	ProducerName    string
	ProducerVersion string
	Domain          string
	ModelVersion    int64
	DocString       string
	// Metadata holds metadata_props in file order.
	Metadata []KeyValue

	// Opsets maps an operator-set domain to its imported version. The
	// default domain is spelled "" (ai.onnx is normalized to "").
	Opsets Opsets
	// Graph is the main graph.
	Graph *Graph
	// Functions are the model-local functions, in file order.
	Functions []*Function

	maps  *mappings
	funcs map[funcKey]*Function
	// released is set once ConvertReleasing has taken the graph apart.
	released bool
	// loadWarnings and convWarnings are what Warnings returns: from
	// loading, and from the last conversion.
	loadWarnings []string
	convWarnings []string
}

// KeyValue is one metadata_props entry.
type KeyValue struct {
	Key, Value string
}

// Opsets maps a domain ("" for ai.onnx) to an operator-set version.
type Opsets map[string]int64

// Version returns the imported version of domain and whether it is imported.
func (o Opsets) Version(domain string) (int64, bool) {
	v, ok := o[normDomain(domain)]
	return v, ok
}

// String lists the opsets sorted by domain, as "ai.onnx=13,ai.onnx.ml=3".
func (o Opsets) String() string { return strings.Join(o.entries(), ",") }

// entries returns "domain=version" for each opset, sorted by domain.
func (o Opsets) entries() []string {
	keys := make([]string, 0, len(o))
	for d := range o {
		keys = append(keys, d)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, d := range keys {
		parts[i] = fmt.Sprintf("%s=%d", displayDomain(d), o[d])
	}
	return parts
}

// normDomain maps "ai.onnx" to "", the canonical spelling of the default
// domain.
func normDomain(d string) string {
	if d == "ai.onnx" {
		return ""
	}
	return d
}

// displayDomain spells the default domain "ai.onnx" for messages.
func displayDomain(d string) string {
	if d == "" {
		return "ai.onnx"
	}
	return d
}

// Graph is an ONNX graph: the main graph, a subgraph held by a node
// attribute, or a function body.
type Graph struct {
	Name string
	// Inputs are the graph inputs in order. An input that also has an
	// initializer (IR version < 4) has Initializer set.
	Inputs []*Value
	// Outputs are the values the graph returns, in order; OutputTypes holds
	// the type each output declares (nil where none).
	Outputs     []*Value
	OutputTypes []*Type
	// Initializers are the graph's constant values in file order.
	Initializers []*Value
	// Nodes are in topological order.
	Nodes []*Node
	// Captures are the values of enclosing graphs that this graph or its
	// nested subgraphs read, in first-use order.
	Captures []*Value
	// Owner is the node whose attribute holds this graph, or nil.
	Owner *Node
	// Function is set for a function body.
	Function *Function

	scope    map[string]*Value
	captured map[*Value]bool
	model    *Model
}

// ValueKind tells how a value is defined.
type ValueKind uint8

// Value kinds.
const (
	// GraphInput is a graph (or function) input.
	GraphInput ValueKind = iota + 1
	// InitializerValue is a constant initializer that is not a graph input.
	InitializerValue
	// NodeOutput is produced by a node.
	NodeOutput
)

// Value is data flowing through a graph: a graph input, an initializer or
// a node output. It knows its producer and its uses.
type Value struct {
	Name string
	Kind ValueKind
	// pending counts the reads of the value by main-graph nodes not yet
	// converted, while ConvertReleasing runs (release.go).
	pending int32
	// Type is the declared ONNX type (from the graph inputs, value_info,
	// graph outputs or the initializer), or nil if none was declared.
	Type *Type
	// Graph is the graph whose scope defines the value.
	Graph *Graph
	// Producer and OutputIndex are set for node outputs.
	Producer    *Node
	OutputIndex int
	// Initializer holds the constant of an initializer, or the default of a
	// graph input that has one.
	Initializer *Tensor
	// Uses lists every node input that reads the value, including reads
	// from nested subgraphs.
	Uses []Use
}

// Use is one read of a value: input Index of Node.
type Use struct {
	Node  *Node
	Index int
}

// Consumers returns the distinct nodes that read v, in use order.
func (v *Value) Consumers() []*Node {
	var out []*Node
	seen := map[*Node]bool{}
	for _, u := range v.Uses {
		if !seen[u.Node] {
			seen[u.Node] = true
			out = append(out, u.Node)
		}
	}
	return out
}

// Node is one operator invocation.
type Node struct {
	Name     string
	OpType   string
	Domain   string // "" for ai.onnx
	Overload string
	// Index is the node's position in its graph's node list in the file.
	Index int
	// Inputs has one entry per declared input; omitted optional inputs
	// ("" in the file) are nil.
	Inputs []*Value
	// Outputs has one entry per declared output; omitted outputs are nil.
	Outputs []*Value
	Attrs   []*Attr
	// Implicit lists values of enclosing scopes that the node's subgraphs
	// read.
	Implicit []*Value
	// Graph is the graph that holds the node.
	Graph *Graph
}

// Attr returns the attribute named name, or nil.
func (n *Node) Attr(name string) *Attr {
	for _, a := range n.Attrs {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// Subgraphs returns the graphs held by the node's attributes, in attribute
// order.
func (n *Node) Subgraphs() []*Graph {
	var out []*Graph
	for _, a := range n.Attrs {
		if a.Graph != nil {
			out = append(out, a.Graph)
		}
		out = append(out, a.Graphs...)
	}
	return out
}

// String identifies the node for messages: its name in quotes, or its index
// when it has none, with its op type and, when the node's domain is
// imported, the opset version: node "conv1" (Conv, opset 13).
func (n *Node) String() string {
	op := n.OpType
	if n.Domain != "" {
		op = n.Domain + "." + op
	}
	if v, ok := n.Opset(); ok {
		op = fmt.Sprintf("%s, opset %d", op, v)
	}
	if n.Name != "" {
		return fmt.Sprintf("node %q (%s)", n.Name, op)
	}
	return fmt.Sprintf("node #%d (%s)", n.Index, op)
}

// Opset returns the version of the node's domain that applies to it: the
// enclosing function's import, else the model's.
func (n *Node) Opset() (int64, bool) {
	g := n.Graph
	for g != nil && g.parent() != nil {
		g = g.parent()
	}
	if g == nil {
		return 0, false
	}
	if g.Function != nil {
		if v, ok := g.Function.Opsets.Version(n.Domain); ok {
			return v, true
		}
	}
	if g.model != nil {
		return g.model.Opsets.Version(n.Domain)
	}
	return 0, false
}

// Location returns the provenance recorded on the Niro ops made from the
// node: its name, or "node #i (OpType)" when it has none.
func (n *Node) Location() string {
	if n.Name != "" {
		return n.Name
	}
	return fmt.Sprintf("node #%d (%s)", n.Index, n.OpType)
}

// AttrType is an ONNX attribute type.
type AttrType = onnxpb.AttributeProto_AttributeType

// Attr is a node attribute. Exactly the field that matches Type is set.
type Attr struct {
	Name string
	Type AttrType
	// RefAttrName is set, in function bodies, for an attribute that takes
	// the value of the calling node's attribute of that name.
	RefAttrName string

	Float         float32
	Int           int64
	String        []byte
	Tensor        *Tensor
	Graph         *Graph
	SparseTensor  *SparseTensor
	TypeProto     *Type
	Floats        []float32
	Ints          []int64
	Strings       [][]byte
	Tensors       []*Tensor
	Graphs        []*Graph
	SparseTensors []*SparseTensor
	TypeProtos    []*Type
}

// SparseTensor is a tensor in coordinate format.
type SparseTensor struct {
	Values  *Tensor
	Indices *Tensor
	Dims    []int64
}

// Function is a model-local function. Its body is a graph whose inputs
// carry no types; types come from each call site.
type Function struct {
	Domain   string // "" for ai.onnx
	Name     string
	Overload string
	// Attributes are the names of the function's attributes; Defaults
	// holds those declared with a default value.
	Attributes []string
	Defaults   []*Attr
	Opsets     Opsets
	Body       *Graph
}

// String names the function for messages: domain.name, with the overload.
func (f *Function) String() string {
	s := displayDomain(f.Domain) + "." + f.Name
	if f.Overload != "" {
		s += ":" + f.Overload
	}
	return s
}

// funcKey identifies a function by its domain, name and overload.
type funcKey struct {
	domain, name, overload string
}

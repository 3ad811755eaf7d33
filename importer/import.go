package importer

import (
	"fmt"
	"sort"
	"strings"

	"github.com/niro-dev/niro/niro"
)

// Import loads the ONNX model at path and converts it to a verified Niro
// module, returning the module and a summary of the model.
//
// The module's globals alias the model's memory maps, which Import keeps
// for the life of the process (a command-line run imports once and exits).
// Code that imports many models should use [Load], [Convert] and
// [Model.Close] instead.
func Import(path string, opts Options) (*niro.Module, *Summary, error) {
	m, err := Load(path, opts)
	if err != nil {
		return nil, nil, err
	}
	mod, err := Convert(m, opts)
	if err != nil {
		_ = m.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return mod, Summarize(m, mod), nil
}

// ImportBytes converts a serialized ONNX model held in memory. The
// module's globals alias data, which must stay unchanged while the module
// is used. External data is read from opts.BaseDir (rejected when empty).
func ImportBytes(data []byte, opts Options) (*niro.Module, *Summary, error) {
	m, err := LoadBytes(data, opts)
	if err != nil {
		return nil, nil, err
	}
	mod, err := Convert(m, opts)
	if err != nil {
		_ = m.Close()
		return nil, nil, err
	}
	return mod, Summarize(m, mod), nil
}

// Summary describes an imported model, for `niro import --summary` (as
// text, or as JSON with the field names of the tags).
type Summary struct {
	Path      string `json:"path,omitempty"`
	IRVersion int64  `json:"ir_version"`
	Producer  string `json:"producer,omitempty"`
	// Opsets lists the imported operator sets as "ai.onnx=13,...".
	Opsets string `json:"opsets"`
	// Graph is the ONNX graph name; Function the Niro function made from it.
	Graph    string `json:"graph"`
	Function string `json:"function"`
	Inputs   []Port `json:"inputs"`
	Outputs  []Port `json:"outputs"`
	// Nodes counts the ONNX nodes of the main graph and its subgraphs.
	Nodes int `json:"nodes"`
	// Ops counts ONNX op types over the same nodes, most frequent first.
	Ops []OpCount `json:"ops"`
	// Functions names the model-local functions (inlined at their calls).
	Functions []string `json:"functions,omitempty"`
	// Initializers and Constants count the initializers of all graphs and
	// the Constant nodes holding values; Params and ParamBytes count the
	// elements and payload bytes of both; ExternalBytes is the part stored
	// in external data files.
	Initializers  int   `json:"initializers"`
	Constants     int   `json:"constants"`
	Params        int64 `json:"params"`
	ParamBytes    int64 `json:"param_bytes"`
	ExternalBytes int64 `json:"external_bytes"`
	// Unknown counts, by name, the UnknownOps left in the Niro module:
	// the nodes niro cannot compile yet.
	Unknown []OpCount `json:"not_compilable"`
	// Warnings lists what the importer tolerated ([Model.Warnings]): the
	// declared types it overrode with the inferred ones, the opset_import
	// entries it reconciled.
	Warnings []string `json:"warnings"`
}

// Port is a graph input or output.
type Port struct {
	Name string `json:"name"`
	// Type is the Niro type of the port.
	Type string `json:"type"`
	// Default is set for an input whose initializer gives it a default.
	Default bool `json:"default,omitempty"`
}

// OpCount is an op name with a count.
type OpCount struct {
	Op    string `json:"op"`
	Count int    `json:"count"`
}

// Summarize describes a model and the module converted from it.
func Summarize(m *Model, mod *niro.Module) *Summary {
	s := &Summary{
		Path:      m.Path,
		IRVersion: m.IRVersion,
		Producer:  strings.TrimSpace(m.ProducerName + " " + m.ProducerVersion),
		Opsets:    m.Opsets.String(),
		Graph:     m.Graph.Name,
		Warnings:  m.Warnings(),
	}
	for _, f := range m.Functions {
		s.Functions = append(s.Functions, f.String())
	}
	ops := map[string]int{}
	var walk func(g *Graph)
	walk = func(g *Graph) {
		for _, v := range g.Initializers {
			s.addParam(v.Initializer)
		}
		for _, v := range g.Inputs {
			if v.Initializer != nil {
				s.addParam(v.Initializer)
			}
		}
		for _, n := range g.Nodes {
			s.Nodes++
			ops[unknownName(n.Domain, n.OpType)]++
			if n.Domain == "" && n.OpType == "Constant" {
				s.addConstant(n)
			}
			for _, sg := range n.Subgraphs() {
				walk(sg)
			}
		}
	}
	walk(m.Graph)
	s.Ops = countList(ops)
	if mod != nil {
		if f := mod.Entry(); f != nil {
			s.Function = f.Name
			for i, t := range f.Type.Inputs {
				p := Port{Name: nameAt(f.InputNames, i), Type: t.String()}
				p.Default = i < len(m.Graph.Inputs) && m.Graph.Inputs[i].Initializer != nil
				s.Inputs = append(s.Inputs, p)
			}
			for i, t := range f.Type.Outputs {
				s.Outputs = append(s.Outputs, Port{Name: nameAt(f.OutputNames, i), Type: t.String()})
			}
		}
		unknown := map[string]int{}
		for _, f := range mod.Functions {
			f.Body.Walk(func(op niro.Op) bool {
				if u, ok := op.(*niro.UnknownOp); ok {
					unknown[u.OpName]++
				}
				return true
			})
		}
		s.Unknown = countList(unknown)
	}
	return s
}

func (s *Summary) addParam(t *Tensor) {
	s.Initializers++
	s.addTensor(t)
}

// addConstant counts the value of a Constant node as a parameter.
func (s *Summary) addConstant(n *Node) {
	for _, a := range n.Attrs {
		switch {
		case a.Tensor != nil:
			s.addTensor(a.Tensor)
		case a.SparseTensor != nil && a.SparseTensor.Values != nil:
			s.addTensor(a.SparseTensor.Values)
		case a.Name == "value_float" || a.Name == "value_int":
			s.Params++
			s.ParamBytes += 4
			if a.Name == "value_int" {
				s.ParamBytes += 4
			}
		case a.Name == "value_floats":
			s.Params += int64(len(a.Floats))
			s.ParamBytes += 4 * int64(len(a.Floats))
		case a.Name == "value_ints":
			s.Params += int64(len(a.Ints))
			s.ParamBytes += 8 * int64(len(a.Ints))
		case a.Name == "value_string" || a.Name == "value_strings":
			if a.Name == "value_string" {
				s.Params++
				s.ParamBytes += int64(len(a.String))
			}
			for _, str := range a.Strings {
				s.Params++
				s.ParamBytes += int64(len(str))
			}
		default:
			continue
		}
		s.Constants++
		return
	}
}

func (s *Summary) addTensor(t *Tensor) {
	s.Params += t.NumElements()
	n := int64(len(t.Bytes()))
	for _, str := range t.Strings() {
		n += int64(len(str))
	}
	s.ParamBytes += n
	if t.External != nil {
		s.ExternalBytes += n
	}
}

func nameAt(names []*string, i int) string {
	if i < len(names) && names[i] != nil {
		return *names[i]
	}
	return ""
}

func countList(m map[string]int) []OpCount {
	out := make([]OpCount, 0, len(m))
	for k, v := range m {
		out = append(out, OpCount{k, v})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Op < out[j].Op
	})
	return out
}

// String renders the summary as aligned text, one fact per line.
func (s *Summary) String() string {
	var sb strings.Builder
	line := func(k, format string, args ...any) {
		fmt.Fprintf(&sb, "%-13s %s\n", k+":", fmt.Sprintf(format, args...))
	}
	if s.Path != "" {
		line("model", "%s", s.Path)
	}
	line("ir_version", "%d", s.IRVersion)
	if s.Producer != "" {
		line("producer", "%s", s.Producer)
	}
	line("opsets", "%s", s.Opsets)
	line("graph", "%q -> function @%s", s.Graph, s.Function)
	for _, p := range s.Inputs {
		def := ""
		if p.Default {
			def = " (default from initializer)"
		}
		line("input", "%s: %s%s", p.Name, p.Type, def)
	}
	for _, p := range s.Outputs {
		line("output", "%s: %s", p.Name, p.Type)
	}
	if s.Constants > 0 {
		line("parameters", "%d elements in %d initializers and %d Constant nodes, %s", s.Params, s.Initializers, s.Constants, byteSize(s.ParamBytes))
	} else {
		line("parameters", "%d elements in %d initializers, %s", s.Params, s.Initializers, byteSize(s.ParamBytes))
	}
	if s.ExternalBytes > 0 {
		line("external", "%s", byteSize(s.ExternalBytes))
	}
	if len(s.Functions) > 0 {
		line("functions", "%s (inlined)", strings.Join(s.Functions, ", "))
	}
	line("nodes", "%d", s.Nodes)
	for _, o := range s.Ops {
		fmt.Fprintf(&sb, "  %-24s %d\n", o.Op, o.Count)
	}
	if len(s.Unknown) == 0 {
		line("not compilable yet", "none")
	} else {
		var parts []string
		for _, o := range s.Unknown {
			parts = append(parts, fmt.Sprintf("%s ×%d", o.Op, o.Count))
		}
		line("not compilable yet", "%s", strings.Join(parts, ", "))
	}
	if len(s.Warnings) == 0 {
		line("warnings", "none")
	} else {
		line("warnings", "%d", len(s.Warnings))
		for _, w := range s.Warnings {
			fmt.Fprintf(&sb, "  %s\n", w)
		}
	}
	return sb.String()
}

// byteSize spells a byte count with a binary unit.
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB (%d bytes)", float64(n)/float64(div), "KMGTPE"[exp], n)
}

package importer

// Options control how a model is imported.
type Options struct {
	// Dims binds symbolic dimensions (ONNX dim_param names) to extents,
	// as the CLI's --dim NAME=VALUE does.
	Dims map[string]int64
	// Shapes fixes the shape of graph inputs by name, as the CLI's
	// --shape INPUT=1x3x224x224 does. The shape must agree with the
	// input's declared rank and static extents.
	Shapes map[string][]int64
	// Values gives graph inputs, by name, values known at compile time:
	// packed little-endian bytes of the input's static type. The input
	// stays a parameter of the compiled function, which is specialized to
	// this value wherever a shape depends on it (an axes list or a target
	// shape fed as an input), so it must be passed this value at run time.
	// `niro run` and `niro test` bind small integer inputs this way, as
	// they bind input shapes.
	Values map[string][]byte
	// Sequences gives each graph input of sequence or optional type,
	// by name, the structure of the value it is passed: a sequence's
	// element count, whether an optional holds a value. Such an input is
	// flattened into one parameter per tensor, NAME.0, NAME.1, ... for a
	// sequence's elements and NAME for an optional's tensor, whose shapes
	// Shapes may fix by those names (docs/importer.md, "Sequences and
	// optionals"). `niro run` and `niro test` take it from the data given.
	Sequences map[string]Layout
	// BaseDir is the directory external data is read from when a model is
	// loaded from bytes (LoadBytes, ImportBytes). Load and Import use the
	// model file's directory and ignore it.
	BaseDir string
}

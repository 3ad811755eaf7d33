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
	// BaseDir is the directory external data is read from when a model is
	// loaded from bytes (LoadBytes, ImportBytes). Load and Import use the
	// model file's directory and ignore it.
	BaseDir string
}

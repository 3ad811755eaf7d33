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
	// BaseDir is the directory external data is read from when a model is
	// loaded from bytes (LoadBytes, ImportBytes). Load and Import use the
	// model file's directory and ignore it.
	BaseDir string
}

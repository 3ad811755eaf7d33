package toolchain

import (
	_ "embed"
	"sort"
)

// contractionLibrary is the transform-dialect library behind the
// "contraction" and "contraction-transfers" schedules; see the comment at
// the top of schedule.mlir.
//
//go:embed schedule.mlir
var contractionLibrary string

// convLibrary is the transform-dialect library behind the "conv" schedule;
// see the comment at the top of conv.mlir.
//
//go:embed conv.mlir
var convLibrary string

// Schedule is a named entry point into a transform-dialect library: at its
// step in a pipeline, mlir-opt runs the transform interpreter from
// EntryPoint over the module. The library is preloaded once per Lower.
type Schedule struct {
	// Name is how a pipeline names it (@schedule NAME).
	Name string
	// Library names the library; schedules sharing it share the text.
	Library string
	// EntryPoint is the named sequence the interpreter starts from.
	EntryPoint string
	// Text is the library: a module holding transform.named_sequence ops.
	Text string
}

var schedules = map[string]Schedule{
	"contraction": {Name: "contraction", Library: "contraction",
		EntryPoint: "niro_contraction", Text: contractionLibrary},
	"contraction-transfers": {Name: "contraction-transfers", Library: "contraction",
		EntryPoint: "niro_contraction_transfers", Text: contractionLibrary},
	"rowfuse": {Name: "rowfuse", Library: "contraction",
		EntryPoint: "niro_rowfuse", Text: contractionLibrary},
	"reduction": {Name: "reduction", Library: "contraction",
		EntryPoint: "niro_reduction", Text: contractionLibrary},
	"conv": {Name: "conv", Library: "conv",
		EntryPoint: "niro_conv", Text: convLibrary},
}

// Schedules returns the names of the schedules the package embeds, sorted.
func Schedules() []string {
	names := make([]string, 0, len(schedules))
	for n := range schedules {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ScheduleByName returns the embedded schedule with the given name.
func ScheduleByName(name string) (Schedule, bool) {
	s, ok := schedules[name]
	return s, ok
}

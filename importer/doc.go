// Package importer reads ONNX models and turns them into Niro IR.
//
// Loading ([Load], [LoadBytes]) decodes the protobuf (package onnxpb) into
// an in-memory graph model: a [Model] with its main [Graph], model-local
// [Function]s and opsets; graphs own [Node]s and [Value]s, values know their
// producer and uses, and subgraphs held by node attributes see the values of
// their enclosing graphs. Tensor payloads are not copied: they alias the
// model file, which is memory-mapped when large, and external data files,
// which are always memory-mapped.
//
// Importing ([Import], [ImportBytes], [Convert]) maps the graph model to a
// verified niro.Module: the main graph becomes one function, initializers
// become globals, Add, Mul, MatMul, Transpose, Identity, Constant and If map
// to Niro operations with inferred shapes, and every other operation is kept
// as an UnknownOp with its attributes and subgraphs. [Summarize] describes a
// model for `niro import --summary`. The mapping rules are documented in
// docs/importer.md.
package importer

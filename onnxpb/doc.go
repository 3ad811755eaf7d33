// Package onnxpb holds the Go types for the ONNX protobuf messages niro reads
// (ModelProto, GraphProto, NodeProto, TensorProto and the messages they
// reference). They are generated from onnx.proto, a proto2 schema in package
// onnx whose field numbers match the ONNX format; fields it does not declare
// are kept as unknown fields.
//
// Regenerate with protoc 3.21 or newer and protoc-gen-go v1.36.12 on PATH:
//
//	go generate ./onnxpb
package onnxpb

//go:generate protoc --go_out=. --go_opt=paths=source_relative onnx.proto

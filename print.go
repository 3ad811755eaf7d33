package main

import (
	"strings"

	"github.com/niro-dev/niro/tensorio"
)

// printEdge is how many leading and trailing items per axis --print shows
// of a tensor with more than printThreshold elements, as numpy does.
const (
	printEdge      = 3
	printThreshold = 1000
)

// formatTensor prints t's values as numpy prints arrays: nested brackets,
// one row per line; a tensor of more than printThreshold elements shows edge
// items at each end of every axis, with ... between.
func formatTensor(t tensorio.Tensor, edge int) string {
	n := t.NumElements()
	if len(t.Dims) == 0 {
		if n == 1 {
			return tensorio.FormatElem(t, 0)
		}
		return "[]"
	}
	summarize := n > printThreshold
	var sb strings.Builder
	strides := make([]int64, len(t.Dims))
	s := int64(1)
	for k := len(t.Dims) - 1; k >= 0; k-- {
		strides[k] = s
		s *= t.Dims[k]
	}
	var rec func(axis int, off int64)
	rec = func(axis int, off int64) {
		sb.WriteByte('[')
		d := t.Dims[axis]
		sep := ", "
		if axis < len(t.Dims)-1 {
			sep = ",\n" + strings.Repeat(" ", axis+1)
		}
		for i := int64(0); i < d; i++ {
			if summarize && d > int64(2*edge) && i == int64(edge) {
				sb.WriteString("..." + sep)
				i = d - int64(edge)
			}
			if axis == len(t.Dims)-1 {
				sb.WriteString(tensorio.FormatElem(t, off+i*strides[axis]))
			} else {
				rec(axis+1, off+i*strides[axis])
			}
			if i < d-1 {
				sb.WriteString(sep)
			}
		}
		sb.WriteByte(']')
	}
	rec(0, 0)
	return sb.String()
}

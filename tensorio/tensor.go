// Package tensorio reads, writes, compares and generates the tensors that
// `niro run`, `niro test` and `niro bench` feed to and read from a compiled
// model.
//
// A [Tensor] holds its elements row-major, little-endian and packed, exactly
// as the model's bare-pointer ABI expects them in memory: Bool takes one
// byte per element (0 or 1), and the 4- and 2-bit types share bytes, low
// bits first, as ONNX packs them.
//
// Files: NumPy .npy (read: format 1.0, 2.0 and 3.0, either byte order,
// C or Fortran order; write: 1.0, or 2.0 when the header needs it) and ONNX
// TensorProto .pb files as the ONNX backend test data stores them. Every
// reader checks sizes against the file before allocating and reports a
// malformed file with an error that names it.
package tensorio

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/niro-dev/niro/internal/safefile"
	"github.com/niro-dev/niro/niro"
)

// Tensor is a dense tensor: element type, shape and packed row-major
// little-endian data. Name is the tensor's name where the file stores one
// (ONNX .pb); it is empty for .npy files.
type Tensor struct {
	Name string
	Elem niro.ScalarType
	Dims []int64
	Data []byte
}

// NumElements returns the number of elements of the shape Dims, or -1 when
// a dimension is negative or the count overflows.
func NumElements(dims []int64) int64 {
	n := int64(1)
	for _, d := range dims {
		if d < 0 {
			return -1
		}
		if d != 0 && n > (1<<62)/d {
			return -1
		}
		n *= d
	}
	return n
}

// NumElements returns the number of elements of t's shape (-1 if invalid).
func (t Tensor) NumElements() int64 { return NumElements(t.Dims) }

// Type returns t's tensor type.
func (t Tensor) Type() niro.TensorType { return niro.Tensor(t.Elem, t.Dims...) }

// Check reports whether t is well formed: a valid element type, a valid
// shape, and exactly as many data bytes as the shape needs.
func (t Tensor) Check() error {
	if !t.Elem.Valid() {
		return fmt.Errorf("invalid element type %d", uint8(t.Elem))
	}
	n := t.NumElements()
	if n < 0 {
		return fmt.Errorf("invalid shape %s", FormatDims(t.Dims))
	}
	want := niro.PackedBytes(t.Elem, n)
	if want < 0 {
		return fmt.Errorf("shape %s of %s is too large", FormatDims(t.Dims), t.Elem)
	}
	if int64(len(t.Data)) != want {
		return fmt.Errorf("%s tensor of shape %s needs %d bytes, has %d", t.Elem, FormatDims(t.Dims), want, len(t.Data))
	}
	return nil
}

// String describes t briefly: name, type and shape, never the data.
func (t Tensor) String() string {
	s := t.Type().String()
	if t.Name != "" {
		s = strconv.Quote(t.Name) + " " + s
	}
	return s
}

// FormatDims writes a shape as "2x3x4" ("scalar" for rank 0).
func FormatDims(dims []int64) string {
	if len(dims) == 0 {
		return "scalar"
	}
	// A message quotes at most maxListItems dimensions.
	n := min(len(dims), maxListItems)
	parts := make([]string, n)
	for i, d := range dims[:n] {
		parts[i] = strconv.FormatInt(d, 10)
	}
	s := strings.Join(parts, "x")
	if len(dims) > n {
		s += "x… (rank " + Grouped(int64(len(dims))) + ")"
	}
	return s
}

// ReadFile reads a tensor from a .npy or .pb file, chosen by the file name's
// extension.
func ReadFile(path string) (Tensor, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".npy":
		return ReadNPY(path)
	case ".pb":
		return ReadPB(path)
	}
	return Tensor{}, fmt.Errorf("%s: unknown tensor file type (want .npy or .pb)", path)
}

// WriteFile writes t to a .npy or .pb file, chosen by the file name's
// extension.
func WriteFile(path string, t Tensor) error {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".npy":
		return WriteNPY(path, t)
	case ".pb":
		return WritePB(path, t)
	}
	return fmt.Errorf("%s: unknown tensor file type (want .npy or .pb)", path)
}

// WriteRaw writes t's data bytes, as the model sees them in memory, to path:
// a work file of niro's own, written plainly (not through safefile), so it
// may be written again for each run.
func WriteRaw(path string, t Tensor) error {
	if err := t.Check(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, t.Data, 0o644)
}

// ReadRaw reads a tensor of the given type and shape from a raw file holding
// exactly its packed data bytes.
func ReadRaw(path string, elem niro.ScalarType, dims []int64) (Tensor, error) {
	t := Tensor{Elem: elem, Dims: append([]int64(nil), dims...)}
	n := t.NumElements()
	want := niro.PackedBytes(elem, n)
	if n < 0 || want < 0 {
		return Tensor{}, fmt.Errorf("%s: invalid shape %s for %s", path, FormatDims(dims), elem)
	}
	if err := CheckSize(path, elem, dims); err != nil {
		return Tensor{}, err
	}
	f, st, err := safefile.OpenRegular(path)
	if err != nil {
		return Tensor{}, err
	}
	defer f.Close()
	if st.Size() != want {
		return Tensor{}, fmt.Errorf("%s: has %d bytes, a %s tensor of shape %s needs %d", path, st.Size(), elem, FormatDims(dims), want)
	}
	t.Data = make([]byte, want)
	if _, err := io.ReadFull(f, t.Data); err != nil {
		return Tensor{}, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

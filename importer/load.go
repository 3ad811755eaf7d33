package importer

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/niro-dev/niro/internal/safefile"

	"github.com/niro-dev/niro/onnxpb"
)

// mapThreshold is the file size from which a model file is memory-mapped
// instead of read; external data files are always mapped.
const mapThreshold = 1 << 20

// maxNesting bounds the nesting of subgraphs, function calls and types.
const maxNesting = 64

// mappings owns the memory maps behind a model's tensors.
type mappings struct {
	mu   sync.Mutex
	maps [][]byte
}

func (m *mappings) add(b []byte) {
	m.mu.Lock()
	m.maps = append(m.maps, b)
	m.mu.Unlock()
}

func (m *mappings) close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	var errs []error
	for _, b := range m.maps {
		errs = append(errs, unmap(b))
	}
	m.maps = nil
	return errors.Join(errs...)
}

// Close releases the memory maps behind the model's tensors. Tensor bytes
// obtained from the model, and Niro modules converted from it, must not be
// used afterwards.
func (m *Model) Close() error {
	if m == nil || m.maps == nil {
		return nil
	}
	return m.maps.close()
}

// Load reads the ONNX model at path into a [Model]. Large model files and
// all external data files are memory-mapped read-only; tensor payloads
// alias them. External data locations are resolved in the model's
// directory and may not leave it. Call [Model.Close] to release the maps.
func Load(path string, opts Options) (*Model, error) {
	maps := &mappings{}
	data, err := readModelFile(path, maps)
	if err != nil {
		return nil, err
	}
	m, err := load(data, path, filepath.Dir(path), maps, opts)
	if err != nil {
		_ = maps.close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// LoadBytes decodes a serialized ONNX model held in memory. Tensor payloads
// alias data, which must not be modified while the model is used. External
// data is resolved in opts.BaseDir; with an empty BaseDir a model with
// external data is rejected.
func LoadBytes(data []byte, opts Options) (*Model, error) {
	maps := &mappings{}
	m, err := load(data, "", opts.BaseDir, maps, opts)
	if err != nil {
		_ = maps.close()
		return nil, err
	}
	return m, nil
}

// readModelFile returns the file's bytes, mapped when the file is large.
func readModelFile(path string, maps *mappings) ([]byte, error) {
	// Opened without blocking and checked after the open: a FIFO is an
	// error, not a hang.
	f, st, err := safefile.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() == 0 {
		return nil, fmt.Errorf("%s: empty file is not an ONNX model", path)
	}
	if st.Size() < mapThreshold {
		b := make([]byte, st.Size())
		if _, err := io.ReadFull(f, b); err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		return b, nil
	}
	b, err := mapFile(f, st.Size())
	if err != nil {
		return nil, err
	}
	maps.add(b)
	return b, nil
}

// loader holds the state of one Load: the model being built, the external
// data files mapped so far and the function table.
type loader struct {
	model *Model
	dir   string
	root  *os.Root
	files map[string][]byte
	maps  *mappings
	// funcs lets function bodies be recognized while graphs are built.
	funcs map[funcKey]*Function
	// mainNodes holds the main graph's nodes from decoding until
	// loadGraph takes them; strs interns op types and domains.
	mainNodes []nodeRec
	strs      map[string]string
}

func load(data []byte, path, dir string, maps *mappings, opts Options) (*Model, error) {
	if len(data) == 0 {
		return nil, errors.New("empty input is not an ONNX model")
	}
	ld := &loader{
		model: &Model{Path: path, Dir: dir, maps: maps},
		dir:   dir,
		files: map[string][]byte{},
		maps:  maps,
		funcs: map[funcKey]*Function{},
	}
	// The main graph's nodes are taken as they are decoded, so that a
	// large graph is not held as NodeProtos and as Nodes at once.
	ld.mainNodes = make([]nodeRec, 0, onnxpb.MainGraphNodeCount(data))
	mp, err := onnxpb.UnmarshalModelNodes(data, func(np *onnxpb.NodeProto) error {
		ld.mainNodes = append(ld.mainNodes, ld.nodeRec(np, len(ld.mainNodes)))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("decoding ONNX protobuf: %w", err)
	}
	defer func() {
		if ld.root != nil {
			ld.root.Close()
		}
	}()
	if err := ld.loadModel(mp); err != nil {
		return nil, err
	}
	return ld.model, nil
}

// externalFile maps an external data file named by a tensor's location.
// The location must name a regular file inside the model directory;
// absolute paths, ".." components and symbolic links leading outside are
// rejected.
func (ld *loader) externalFile(loc string) ([]byte, error) {
	if b, ok := ld.files[loc]; ok {
		return b, nil
	}
	if ld.dir == "" {
		return nil, fmt.Errorf("external data %q: the model was not loaded from a file, so there is no directory to read it from", loc)
	}
	if !filepath.IsLocal(loc) {
		return nil, fmt.Errorf("external data location %q escapes the model directory (absolute paths and \"..\" are not allowed)", loc)
	}
	if ld.root == nil {
		r, err := os.OpenRoot(ld.dir)
		if err != nil {
			return nil, fmt.Errorf("external data %q: %w", loc, err)
		}
		ld.root = r
	}
	f, st, err := safefile.OpenRegularIn(ld.root, loc)
	var nr *safefile.NotRegularError
	if errors.As(err, &nr) {
		return nil, fmt.Errorf("external data %q is not a regular file (%s)", loc, nr.Kind())
	}
	if err != nil {
		var pe *fs.PathError
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("external data file %q not found in %s", loc, ld.dir)
		case errors.As(err, &pe) && pe.Err != nil && pe.Err.Error() == "path escapes from parent":
			return nil, fmt.Errorf("external data location %q escapes the model directory through a symbolic link", loc)
		default:
			return nil, fmt.Errorf("external data %q: %w", loc, err)
		}
	}
	defer f.Close()
	var b []byte
	if st.Size() > 0 {
		b, err = mapFile(f, st.Size())
		if err != nil {
			return nil, fmt.Errorf("external data %q: %w", loc, err)
		}
		ld.maps.add(b)
	}
	ld.files[loc] = b
	return b, nil
}

package harness

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
)

// ReadTimings reads the timings file a harness wrote: runs little-endian
// f64 values, the seconds of each timed call.
func ReadTimings(path string, runs int) ([]float64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) != 8*runs {
		return nil, fmt.Errorf("%s: has %d bytes, %d timings need %d", path, len(data), runs, 8*runs)
	}
	out := make([]float64, runs)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
	}
	return out, nil
}

// ReadBatch reads the batch file a harness wrote: the calls per timed
// sample, one little-endian i64.
func ReadBatch(path string) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	if len(data) != 8 {
		return 0, fmt.Errorf("%s: has %d bytes, a batch size needs 8", path, len(data))
	}
	return int64(binary.LittleEndian.Uint64(data)), nil
}

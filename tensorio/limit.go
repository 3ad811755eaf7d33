package tensorio

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/niro-dev/niro/niro"
)

// The largest tensor, in bytes, that niro allocates: every input, output
// and intermediate is checked against it before memory is committed, so
// that a small model declaring a huge tensor is an error, not an
// out-of-memory crash.
var maxBytes atomic.Int64 // 0: DefaultMaxBytes

// SetMaxBytes sets the tensor size limit; n <= 0 restores the default.
func SetMaxBytes(n int64) {
	if n < 0 {
		n = 0
	}
	maxBytes.Store(n)
}

// MaxBytes returns the tensor size limit in bytes.
func MaxBytes() int64 {
	if n := maxBytes.Load(); n > 0 {
		return n
	}
	return DefaultMaxBytes()
}

var (
	defaultOnce sync.Once
	defaultMax  int64
)

// fallbackPhysical is assumed when the physical memory is unknown.
const fallbackPhysical = 8 << 30

// DefaultMaxBytes is half of the physical memory (MemTotal in
// /proc/meminfo), or 4 GiB where that is unknown.
func DefaultMaxBytes() int64 {
	defaultOnce.Do(func() { defaultMax = physicalMemory() / 2 })
	return defaultMax
}

func physicalMemory() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return fallbackPhysical
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			break
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil || kb <= 0 {
			break
		}
		return kb << 10
	}
	return fallbackPhysical
}

// TooLargeError is a tensor over the size limit.
type TooLargeError struct {
	What  string // the tensor, as the caller names it; may be empty
	Type  string // its type, such as tensor<100000x100000xf32>; may be empty
	Bytes int64  // its size; -1 when it overflows int64
	Limit int64
}

func (e *TooLargeError) Error() string {
	var b strings.Builder
	if e.What != "" {
		b.WriteString(e.What + ": ")
	}
	if e.Type != "" {
		b.WriteString(e.Type + " ")
	}
	if e.Bytes < 0 {
		b.WriteString("needs more than 2^63 bytes")
	} else {
		fmt.Fprintf(&b, "needs %s", FormatBytes(e.Bytes))
	}
	fmt.Fprintf(&b, ", over the memory limit of %s (set it with --max-memory)", FormatBytes(e.Limit))
	return b.String()
}

// CheckBytes reports a *TooLargeError when n bytes (n < 0: an overflowed
// size) exceed the limit.
func CheckBytes(what string, n int64) error {
	limit := MaxBytes()
	if n < 0 || n > limit {
		return &TooLargeError{What: what, Bytes: n, Limit: limit}
	}
	return nil
}

// CheckSize reports a *TooLargeError when a tensor of elem and dims does
// not fit the limit, or an error when the shape is invalid.
func CheckSize(what string, elem niro.ScalarType, dims []int64) error {
	n := NumElements(dims)
	size := niro.PackedBytes(elem, n)
	if n < 0 || size < 0 {
		limit := MaxBytes()
		return &TooLargeError{What: what, Type: typeString(elem, dims), Bytes: -1, Limit: limit}
	}
	if err := CheckBytes(what, size); err != nil {
		err.(*TooLargeError).Type = typeString(elem, dims)
		return err
	}
	return nil
}

func typeString(elem niro.ScalarType, dims []int64) string {
	if len(dims) == 0 {
		return "tensor<" + elem.String() + ">"
	}
	return "tensor<" + FormatDims(dims) + "x" + elem.String() + ">"
}

// FormatBytes writes a byte count readably: "40,000,000,000 bytes (37.3 GiB)".
func FormatBytes(n int64) string {
	s := Grouped(n) + " bytes"
	switch {
	case n >= 1<<30:
		s += fmt.Sprintf(" (%.1f GiB)", float64(n)/(1<<30))
	case n >= 1<<20:
		s += fmt.Sprintf(" (%.1f MiB)", float64(n)/(1<<20))
	}
	return s
}

// Grouped writes n with thousands separators: 4,999,990.
func Grouped(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// maxListItems is how many dimensions of a shape a message quotes.
const maxListItems = 10

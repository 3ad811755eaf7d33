package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/niro-dev/niro/interp"
	"github.com/niro-dev/niro/niro"
	"github.com/niro-dev/niro/tensorio"
)

// argLaneShape is one ArgMax/ArgMin operand whose axis is longer than the
// 4096 reduction lanes (emit/argreducelanes.go).
type argLaneShape struct {
	dims []int64
	axis int
	keep bool
	// pattern of the first row (a rank-1 operand has one row).
	first int
}

// argLaneValues returns the elements of an operand of shape s, row by row
// one of ten patterns: random values; ties of the maximum and of the
// minimum in several lanes and the tail; NaNs (one in the tail); −0 and +0
// as the maximum, and as the minimum; all equal; all −inf (the lowest
// integer: the reduction seed); all +inf (the highest); ±inf in the tail;
// one NaN at position 0. Integer types read NaN as a random value, ±0 as 0
// and ±inf as the type's extremes.
func argLaneValues(r *rand.Rand, s argLaneShape, elem niro.ScalarType) []float64 {
	n := int(s.dims[s.axis])
	outer, inner := 1, 1
	for i, d := range s.dims {
		switch {
		case i < s.axis:
			outer *= int(d)
		case i > s.axis:
			inner *= int(d)
		}
	}
	isF := elem.IsFloat()
	lo, hi := math.Inf(-1), math.Inf(1)
	if !isF {
		l, h := elem.IntRange()
		lo, hi = float64(l), float64(h)
	}
	random := func() float64 {
		if isF {
			return r.Float64()*2 - 1
		}
		if !elem.IsSigned() {
			return float64(1 + r.IntN(100))
		}
		return float64(r.IntN(201) - 100)
	}
	negZero := math.Copysign(0, -1)
	out := make([]float64, outer*n*inner)
	for o := 0; o < outer; o++ {
		for in := 0; in < inner; in++ {
			row := o*inner + in
			pat := (row + s.first) % 10
			if !isF && (pat == 2 || pat == 9) {
				pat = 1
			}
			vals := make([]float64, n)
			for k := range vals {
				switch pat {
				case 3:
					vals[k] = -0.5 - math.Abs(random())
				case 4:
					vals[k] = 0.5 + math.Abs(random())
				case 5:
					vals[k] = 7
				case 6:
					vals[k] = lo
				case 7:
					vals[k] = hi
				default:
					vals[k] = random()
				}
			}
			set := func(v float64, ks ...int) {
				for _, k := range ks {
					vals[k%n] = v
				}
			}
			switch pat {
			case 1:
				set(120, 13, 4096+7, n/2, n-1)
				set(0, 3, 8200, n-2)
				if elem.IsSigned() || isF {
					set(-120, 3, 8200, n-2)
				}
			case 2:
				set(math.NaN(), n-3, 4100, 4096+4100)
			case 3:
				set(negZero, n-5, 4096+17)
				set(0, 17)
			case 4:
				set(0, n-4, 4096+21)
				set(negZero, 21)
			case 8:
				set(math.Inf(1), n-1)
				set(math.Inf(-1), n-2)
			case 9:
				set(math.NaN(), 0)
			}
			for k, v := range vals {
				out[o*n*inner+k*inner+in] = v
			}
		}
	}
	return out
}

// encodeElems writes vals as little-endian elements of type elem.
func encodeElems(t *testing.T, elem niro.ScalarType, vals []float64) []byte {
	t.Helper()
	size := elem.Bits() / 8
	b := make([]byte, len(vals)*size)
	for i, v := range vals {
		p := b[i*size:]
		switch elem {
		case niro.F32:
			binary.LittleEndian.PutUint32(p, math.Float32bits(float32(v)))
		case niro.F64:
			binary.LittleEndian.PutUint64(p, math.Float64bits(v))
		case niro.F16:
			binary.LittleEndian.PutUint16(p, tensorio.F16FromFloat32(float32(v)))
		case niro.BF16:
			binary.LittleEndian.PutUint16(p, tensorio.BF16FromFloat32(float32(v)))
		case niro.I32:
			binary.LittleEndian.PutUint32(p, uint32(int32(v)))
		case niro.I64:
			binary.LittleEndian.PutUint64(p, uint64(int64(v)))
		case niro.U8:
			p[0] = uint8(v)
		default:
			t.Fatalf("no encoding for %s", elem)
		}
	}
	return b
}

// TestE2EArgReduceLanes compiles ArgMax and ArgMin (first and last index)
// over the last axis in the two-pass lane form (4096 lanes past 4096, else
// 16) and checks that host and host-O0 give the same indices as the
// interpreter's in-order scan: ties across lanes and in the tail, NaN
// anywhere, −0 against +0, ±inf, all-equal rows and rows of the reduction
// seed, tails of 904, 8 and 1 lanes and none, keep_dims, two kept axes and
// a rank-1 operand, in f32, f64, f16, bf16, i32, i64 and u8; and the same
// of the in-order scan (a row of 31, an axis that is not the last).
func TestE2EArgReduceLanes(t *testing.T) {
	requireTools(t)
	shapes := []argLaneShape{
		{[]int64{10, 5000}, 1, false, 0},
		{[]int64{10, 4097}, 1, true, 0},
		{[]int64{2, 5, 8192}, 2, false, 0},
		{[]int64{12300}, 0, true, 1},
		{[]int64{9000}, 0, false, 2},
		// Rows of at most 4096: 16 lanes.
		{[]int64{10, 1000}, 1, false, 0},  // a tail of 8 lanes
		{[]int64{2, 5, 4096}, 2, true, 0}, // no tail
		{[]int64{10, 33}, 1, false, 0},    // two steps and a tail of 1
		{[]int64{10, 32}, 1, false, 0},    // the shortest row in lanes
		// The in-order scan: a row of 31, an axis that is not the last.
		{[]int64{10, 31}, 1, false, 0},
		{[]int64{4100, 10}, 0, false, 0},
	}
	r := rand.New(rand.NewPCG(7, 8))
	for _, elem := range []niro.ScalarType{niro.F32, niro.F64, niro.F16, niro.BF16, niro.I32, niro.I64, niro.U8} {
		t.Run(elem.String(), func(t *testing.T) {
			ty := func(d []int64, es string) string {
				var sb strings.Builder
				sb.WriteString("tensor<")
				for _, v := range d {
					fmt.Fprintf(&sb, "%dx", v)
				}
				return sb.String() + es + ">"
			}
			var args, params, results, rets []string
			var body strings.Builder
			var inputs []tensorio.Tensor
			next := len(shapes)
			for i, s := range shapes {
				xt := ty(s.dims, elem.String())
				var rd []int64
				for j, d := range s.dims {
					switch {
					case j != s.axis:
						rd = append(rd, d)
					case s.keep:
						rd = append(rd, 1)
					}
				}
				rt := ty(rd, "i64")
				args = append(args, xt)
				params = append(params, fmt.Sprintf("%%%d: %s", i, xt))
				for _, op := range []string{"argmax", "argmin"} {
					for _, last := range []bool{false, true} {
						fmt.Fprintf(&body, "  %%%d = %s %%%d {axis = %d, keep_dims = %v, select_last = %v} : (%s) -> %s\n",
							next, op, i, s.axis, s.keep, last, xt, rt)
						results = append(results, rt)
						rets = append(rets, fmt.Sprintf("%%%d", next))
						next++
					}
				}
				inputs = append(inputs, tensorio.Tensor{Elem: elem, Dims: s.dims, Data: encodeElems(t, elem, argLaneValues(r, s, elem))})
			}
			src := fmt.Sprintf("func @argl(%s) -> (%s) {\n^bb0(%s):\n%s  return %s : %s\n}\n",
				strings.Join(args, ", "), strings.Join(results, ", "), strings.Join(params, ", "),
				body.String(), strings.Join(rets, ", "), strings.Join(results, ", "))
			got := runNiro(t, src, inputs...)
			m, err := niro.Parse("argl.niro", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			want, err := interp.Run(m, inputs, interp.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if ok, at := sameBits(got[i], want[i]); !ok {
					s := shapes[i/4]
					t.Errorf("%v axis %d, output %d: compiled %s, interpreter %s at %d", s.dims, s.axis, i%4,
						tensorio.FormatElem(got[i], int64(at)), tensorio.FormatElem(want[i], int64(at)), at)
				}
			}
		})
	}
}

package emit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/niro-dev/niro/niro"
)

// reduceLanes lowers a Reduce whose run (the L = op.LaneRun() positions
// p = 0..L-1 of the reduced axes, row-major) is longer than
// niro.ReduceLanes, in the lane order of docs/ops.md:
//
//  1. a partials tensor (the kept axes, then a lane axis of ReduceLanes),
//     filled with the seed; one generic with the kept axes and the lane l
//     parallel and a last reduction loop j over the floor(L/ReduceLanes)
//     full steps folds position p = j·ReduceLanes + l into lane l, so each
//     lane folds p = l, l+4096, l+8192, ... in ascending order. The element
//     is read with tensor.extract at p's coordinates; the generic's one
//     input is a tensor.empty of shape [J] that only gives the j loop its
//     extent (its value is never read). When ReduceLanes does not divide L,
//     a second generic of the same form, one step over the first
//     L mod ReduceLanes lanes (a slice of the partials), folds the last
//     positions into them: every position it reads is inside the run, so
//     neither generic needs a guard;
//  2. the result accumulator filled with the seed again, and one generic
//     folding the lanes 0..4095 in order into it, as an in-order reduction
//     of the partials.
//
// Both lane generics are tagged with their rank: niro.lanevec when the run
// is the operand's trailing axes (consecutive lanes read consecutive
// elements) and the element is not i1, which the host's reduction schedule
// tiles and vectorizes 16 lanes at a time (each lane still folds its
// positions in ascending order, docs/toolchain.md), else niro.lanes, which
// it only tiles. The GPU tiler maps their parallel loops, the lane
// axis innermost, onto threads: one thread per lane and result element.
// acc/accElem is the accumulator type (f32 for 16-bit floats, rounded once
// by the caller's last step), start the seed, outExprs the result's map over
// the operand's axes and folded the name the lane fold defines.
func (fe *funcEmitter) reduceLanes(op *niro.Reduce, x niro.Value, xt niro.TensorType, elem, acc string, accElem niro.ScalarType, kind niro.BinaryKind, start, folded string, run int64) {
	const lanes = niro.ReduceLanes
	var kept, red []int
	for i := range xt.Dims {
		if op.IsReduced(i) {
			red = append(red, i)
		} else {
			kept = append(kept, i)
		}
	}
	K := len(kept)
	// A run over the trailing axes is contiguous in memory: read it through
	// a collapsed view with the run as one axis, so that lane l+1 reads the
	// element after lane l's.
	src, srcType := name(x), fe.typ(x)
	trailing := red[0] == K
	var srcDims []int64
	if trailing {
		srcDims = append(append(srcDims, xt.Dims[:K]...), run)
		if len(red) > 1 {
			groups := make([]string, 0, K+1)
			for i := 0; i < K; i++ {
				groups = append(groups, "["+strconv.Itoa(i)+"]")
			}
			rest := make([]string, len(red))
			for i, a := range red {
				rest[i] = strconv.Itoa(a)
			}
			groups = append(groups, "["+strings.Join(rest, ", ")+"]")
			c := fe.tmp()
			ct := tensorTypeOf(srcDims, elem)
			fe.line("%s = tensor.collapse_shape %s [%s] : %s into %s", c, src, strings.Join(groups, ", "), srcType, ct)
			src, srcType = c, ct
		}
	}
	tag := "niro.lanes"
	if trailing && xt.Elem != niro.Bool && accElem != niro.Bool {
		tag = "niro.lanevec"
	}
	attrs := fmt.Sprintf("%s = %d : i64", tag, K+2)
	partDims := make([]int64, 0, K+1)
	for _, a := range kept {
		partDims = append(partDims, xt.Dims[a])
	}
	partDims = append(partDims, lanes)
	partType := tensorTypeOf(partDims, acc)
	keptDim := func(j int) string { return fe.dim(x, xt, kept[j]) }
	pinit := fe.empty(partDims, acc, keptDim)
	pfilled := fe.fill(pinit, partType, acc, start, K+1)
	partExprs := make([]string, K+1)
	for i := range partExprs {
		partExprs[i] = "d" + strconv.Itoa(i)
	}
	iters := append(parallel(K+1), "reduction")
	// steps folds positions (j0+j)·ReduceLanes + l, j = 0..n-1, into the
	// lanes of out (of type outType).
	steps := func(out, outType string, j0, n int64) string {
		stepType := tensorTypeOf([]int64{n}, "i8")
		stepsT := fe.tmp()
		fe.line("%s = tensor.empty() : %s", stepsT, stepType)
		res := fe.tmp()
		fe.generic(res, iters,
			[]genericOperand{{name: stepsT, typ: stepType, elem: "i8", amap: affineMap(K+2, []string{"d" + strconv.Itoa(K+1)})}},
			genericOperand{name: out, typ: outType, elem: acc, amap: affineMap(K+2, partExprs)},
			attrs, func(args []string) string {
				keptIx, p := fe.lanePosition(K, lanes, j0)
				coords := make([]string, len(xt.Dims))
				for j, a := range kept {
					coords[a] = keptIx[j]
				}
				if trailing {
					coords = append(coords[:K], p)
				} else {
					// p's coordinates, the last reduced axis fastest.
					q := p
					for k := len(red) - 1; k >= 0; k-- {
						a := red[k]
						if k == 0 {
							coords[a] = q
							break
						}
						r, d := fe.tmp(), fe.tmp()
						fe.line("%s = arith.remui %s, %s : index", r, q, fe.index(xt.Dims[a]))
						fe.line("%s = arith.divui %s, %s : index", d, q, fe.index(xt.Dims[a]))
						coords[a], q = r, d
					}
				}
				e := fe.tmp()
				fe.line("%s = tensor.extract %s[%s] : %s", e, src, strings.Join(coords, ", "), srcType)
				y, err := fe.binaryScalar(kind, accElem, fe.widen(xt.Elem, e), args[1])
				if err != nil {
					fe.opErrorf(op, "%s %s: %v", op.Name(), name(op.Result), err)
					return args[1]
				}
				return y
			})
		return res
	}
	partials := fe.laneSteps(pfilled, partDims, acc, run, lanes, keptDim, steps)
	// The lane fold: the seed, then lanes 0..4095 in order.
	var outExprs []string
	var outDims []int64
	var dynSrc []int
	k := 0
	for i := range xt.Dims {
		if op.IsReduced(i) {
			if op.KeepDims {
				outExprs = append(outExprs, "0")
				outDims = append(outDims, 1)
				dynSrc = append(dynSrc, -1)
			}
			continue
		}
		outExprs = append(outExprs, "d"+strconv.Itoa(k))
		outDims = append(outDims, xt.Dims[i])
		dynSrc = append(dynSrc, i)
		k++
	}
	init := fe.empty(outDims, acc, func(j int) string { return fe.dim(x, xt, dynSrc[j]) })
	accType := tensorTypeOf(outDims, acc)
	filled := fe.fill(init, accType, acc, start, len(outDims))
	fe.generic(folded, append(parallel(K), "reduction"),
		[]genericOperand{{name: partials, typ: partType, elem: acc, amap: identityMap(K + 1)}},
		genericOperand{name: filled, typ: accType, elem: acc, amap: affineMap(K+1, outExprs)},
		"", func(args []string) string {
			y, err := fe.binaryScalar(kind, accElem, args[0], args[1])
			if err != nil {
				fe.opErrorf(op, "%s %s: %v", op.Name(), name(op.Result), err)
				return args[1]
			}
			return y
		})
}

// lanePosition, in the body of a lane-partials generic over the K kept
// axes, the lane axis l and a last reduction loop j (of a step starting at
// j0), defines the kept axes' indices and the position p =
// (j0+j)·lanes + l of the reduced run that lane l reads.
func (fe *funcEmitter) lanePosition(K int, lanes, j0 int64) (kept []string, p string) {
	ix := func(d int) string {
		i := fe.tmp()
		fe.line("%s = linalg.index %d : index", i, d)
		return i
	}
	kept = make([]string, K)
	for j := range kept {
		kept[j] = ix(j)
	}
	l, j := ix(K), ix(K+1)
	jl := fe.tmp()
	p = fe.tmp()
	fe.line("%s = arith.muli %s, %s : index", jl, j, fe.index(lanes))
	fe.line("%s = arith.addi %s, %s : index", p, jl, l)
	if j0 > 0 {
		q := fe.tmp()
		fe.line("%s = arith.addi %s, %s : index", q, p, fe.index(j0*lanes))
		p = q
	}
	return kept, p
}

// laneSteps folds a run of n positions into the lane partials (of shape
// partDims: the kept axes, dynamic ones sized by keptDim, then the lane
// axis of lanes; element elem) with steps(out, outType, j0, count), which
// folds positions (j0+j)·lanes + l, j = 0..count-1, into the lanes of out:
// the n/lanes full steps over partials and, when lanes does not divide n,
// one more step over the first n mod lanes lanes, a slice of the partials
// inserted back. It returns the folded partials.
func (fe *funcEmitter) laneSteps(partials string, partDims []int64, elem string, n, lanes int64, keptDim func(int) string, steps func(out, outType string, j0, count int64) string) string {
	K := len(partDims) - 1
	partType := tensorTypeOf(partDims, elem)
	full, rest := n/lanes, n%lanes
	partials = steps(partials, partType, 0, full)
	if rest == 0 {
		return partials
	}
	sliceDims := append(append([]int64(nil), partDims[:K]...), rest)
	sliceType := tensorTypeOf(sliceDims, elem)
	var sizes []string
	for j := 0; j < K; j++ {
		if partDims[j] < 0 {
			sizes = append(sizes, keptDim(j))
		} else {
			sizes = append(sizes, strconv.FormatInt(partDims[j], 10))
		}
	}
	sizes = append(sizes, strconv.FormatInt(rest, 10))
	zeros := strings.TrimSuffix(strings.Repeat("0, ", K+1), ", ")
	ones := strings.TrimSuffix(strings.Repeat("1, ", K+1), ", ")
	sl := fe.tmp()
	fe.line("%s = tensor.extract_slice %s[%s] [%s] [%s] : %s to %s", sl, partials, zeros, strings.Join(sizes, ", "), ones, partType, sliceType)
	t := steps(sl, sliceType, full, 1)
	ins := fe.tmp()
	fe.line("%s = tensor.insert_slice %s into %s[%s] [%s] [%s] : %s into %s", ins, t, partials, zeros, strings.Join(sizes, ", "), ones, sliceType, partType)
	return ins
}

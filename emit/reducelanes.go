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
//     parallel and a last reduction loop j over ceil(L/ReduceLanes) steps
//     folds position p = j·ReduceLanes + l (when p < L) into lane l, so
//     each lane folds p = l, l+4096, l+8192, ... in ascending order. The
//     element is read with tensor.extract at p's coordinates; the generic's
//     one input is a tensor.empty of shape [J] that only gives the j loop
//     its extent (its value is never read);
//  2. the result accumulator filled with the seed again, and one generic
//     folding the lanes 0..4095 in order into it, as an in-order reduction
//     of the partials.
//
// The GPU tiler maps the first generic's parallel loops, the lane axis
// innermost, onto threads: one thread per lane and result element.
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
	partDims := make([]int64, 0, K+1)
	for _, a := range kept {
		partDims = append(partDims, xt.Dims[a])
	}
	partDims = append(partDims, lanes)
	partType := tensorTypeOf(partDims, acc)
	pinit := fe.empty(partDims, acc, func(j int) string { return fe.dim(x, xt, kept[j]) })
	pfilled := fe.fill(pinit, partType, acc, start, K+1)
	steps := (run + lanes - 1) / lanes
	stepType := tensorTypeOf([]int64{steps}, "i8")
	stepsT := fe.tmp()
	fe.line("%s = tensor.empty() : %s", stepsT, stepType)
	partExprs := make([]string, K+1)
	for i := range partExprs {
		partExprs[i] = "d" + strconv.Itoa(i)
	}
	iters := append(parallel(K+1), "reduction")
	partials := fe.tmp()
	xtyp := fe.typ(x)
	fe.generic(partials, iters,
		[]genericOperand{{name: stepsT, typ: stepType, elem: "i8", amap: affineMap(K+2, []string{"d" + strconv.Itoa(K+1)})}},
		genericOperand{name: pfilled, typ: partType, elem: acc, amap: affineMap(K+2, partExprs)},
		fmt.Sprintf("niro.lanes = %d : i64", K+2), func(args []string) string {
			ix := func(d int) string {
				i := fe.tmp()
				fe.line("%s = linalg.index %d : index", i, d)
				return i
			}
			coords := make([]string, len(xt.Dims))
			for j, a := range kept {
				coords[a] = ix(j)
			}
			l, j := ix(K), ix(K+1)
			jl, p := fe.tmp(), fe.tmp()
			fe.line("%s = arith.muli %s, %s : index", jl, j, fe.index(lanes))
			fe.line("%s = arith.addi %s, %s : index", p, jl, l)
			inside := ""
			if run%lanes != 0 {
				inside = fe.tmp()
				fe.line("%s = arith.cmpi ult, %s, %s : index", inside, p, fe.index(run))
				c := fe.tmp()
				fe.line("%s = arith.minui %s, %s : index", c, p, fe.index(run-1))
				p = c
			}
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
			e := fe.tmp()
			fe.line("%s = tensor.extract %s[%s] : %s", e, name(x), strings.Join(coords, ", "), xtyp)
			y, err := fe.binaryScalar(kind, accElem, fe.widen(xt.Elem, e), args[1])
			if err != nil {
				fe.opErrorf(op, "%s %s: %v", op.Name(), name(op.Result), err)
				return args[1]
			}
			if inside == "" {
				return y
			}
			s := fe.tmp()
			fe.line("%s = arith.select %s, %s, %s : %s", s, inside, y, args[1], acc)
			return s
		})
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

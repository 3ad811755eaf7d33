package niro

import "fmt"

// The gather family reads elements of a tensor at positions held by an
// index tensor of i32 or i64 elements. A negative index i counts from the
// end: it reads position i + extent. Indices outside [-extent, extent) are
// undefined (ONNX rejects them); the compiled code clamps them into range
// so that it never reads outside the tensor.

// checkIndexType reports an error unless t holds i32 or i64 elements.
func checkIndexType(what string, t TensorType) error {
	if t.Elem != I32 && t.Elem != I64 {
		return fmt.Errorf("%s must hold i32 or i64 elements, has %s", what, t.Elem)
	}
	return nil
}

// Gather takes, along Axis of X, the slices named by Indices: the result
// has shape X[:Axis] + Indices + X[Axis+1:], and element (a, i, b) is
// X[a, Indices[i], b].
//
// Example printed form:
//
//	%2 = gather %0, %1 {axis = 0} : (tensor<3x2xf32>, tensor<2x2xi64>) -> tensor<2x2x2xf32>
type Gather struct {
	Loc
	noRegions
	noSuccessors
	Axis       int
	Result     Value
	X, Indices Value
}

func (*Gather) isOp()                   {}
func (*Gather) Name() string            { return "gather" }
func (o *Gather) refs() []*Value        { return []*Value{&o.X, &o.Indices} }
func (o *Gather) Operands() []Value     { return valuesOf(o.refs()) }
func (o *Gather) Results() []Value      { return []Value{o.Result} }
func (o *Gather) setResults(vs []Value) { o.Result = vs[0] }
func (o *Gather) params() Attrs         { return Attrs{"axis": IntAttr(o.Axis)} }
func (o *Gather) print(p *printer)      { p.generic(o) }
func (o *Gather) verify(v *opVerifier)  { verifyGeneric(v, o) }

func (o *Gather) inferTypes() ([]Type, error) {
	xt, err := rankedOperand("data", o.X.Type)
	if err != nil {
		return nil, err
	}
	it, err := rankedOperand("indices", o.Indices.Type)
	if err != nil {
		return nil, err
	}
	if err := checkIndexType("indices", it); err != nil {
		return nil, err
	}
	if o.Axis < 0 || o.Axis >= xt.Rank() {
		return nil, fmt.Errorf("axis %d is out of range for %s", o.Axis, xt)
	}
	dims := append([]int64{}, xt.Dims[:o.Axis]...)
	dims = append(dims, it.Dims...)
	dims = append(dims, xt.Dims[o.Axis+1:]...)
	return []Type{TensorType{Elem: xt.Elem, Dims: dims}}, nil
}

// GatherElements reads X at the positions of Indices along Axis: the
// result has the shape of Indices (of X's rank), and element p is X at p
// with coordinate Axis replaced by Indices[p].
//
// Example printed form:
//
//	%2 = gather_elements %0, %1 {axis = 1} : (tensor<2x2xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
type GatherElements struct {
	Loc
	noRegions
	noSuccessors
	Axis       int
	Result     Value
	X, Indices Value
}

func (*GatherElements) isOp()                   {}
func (*GatherElements) Name() string            { return "gather_elements" }
func (o *GatherElements) refs() []*Value        { return []*Value{&o.X, &o.Indices} }
func (o *GatherElements) Operands() []Value     { return valuesOf(o.refs()) }
func (o *GatherElements) Results() []Value      { return []Value{o.Result} }
func (o *GatherElements) setResults(vs []Value) { o.Result = vs[0] }
func (o *GatherElements) params() Attrs         { return Attrs{"axis": IntAttr(o.Axis)} }
func (o *GatherElements) print(p *printer)      { p.generic(o) }
func (o *GatherElements) verify(v *opVerifier)  { verifyGeneric(v, o) }

func (o *GatherElements) inferTypes() ([]Type, error) {
	xt, err := rankedOperand("data", o.X.Type)
	if err != nil {
		return nil, err
	}
	it, err := rankedOperand("indices", o.Indices.Type)
	if err != nil {
		return nil, err
	}
	if err := checkIndexType("indices", it); err != nil {
		return nil, err
	}
	if it.Rank() != xt.Rank() {
		return nil, fmt.Errorf("indices %s and data %s differ in rank", it, xt)
	}
	if o.Axis < 0 || o.Axis >= xt.Rank() {
		return nil, fmt.Errorf("axis %d is out of range for %s", o.Axis, xt)
	}
	return []Type{TensorType{Elem: xt.Elem, Dims: append([]int64{}, it.Dims...)}}, nil
}

// GatherND reads slices of X at index tuples: Indices has shape
// B + M + [k] (B the BatchDims leading axes, shared with X); each k-tuple
// names a position in the axes BatchDims to BatchDims+k-1 of X, and the
// result, of shape B + M + X[BatchDims+k:], holds the slice there.
//
// Example printed form:
//
//	%2 = gather_nd %0, %1 {batch_dims = 0} : (tensor<2x2xf32>, tensor<2x2xi64>) -> tensor<2xf32>
type GatherND struct {
	Loc
	noRegions
	noSuccessors
	BatchDims  int
	Result     Value
	X, Indices Value
}

func (*GatherND) isOp()                   {}
func (*GatherND) Name() string            { return "gather_nd" }
func (o *GatherND) refs() []*Value        { return []*Value{&o.X, &o.Indices} }
func (o *GatherND) Operands() []Value     { return valuesOf(o.refs()) }
func (o *GatherND) Results() []Value      { return []Value{o.Result} }
func (o *GatherND) setResults(vs []Value) { o.Result = vs[0] }
func (o *GatherND) params() Attrs         { return Attrs{"batch_dims": IntAttr(o.BatchDims)} }
func (o *GatherND) print(p *printer)      { p.generic(o) }
func (o *GatherND) verify(v *opVerifier)  { verifyGeneric(v, o) }

// tupleSize returns k, the static last extent of the indices, or an error.
func tupleSize(xt, it TensorType, batch int) (int, error) {
	q, r := it.Rank(), xt.Rank()
	if q < 1 {
		return 0, fmt.Errorf("indices %s must have rank at least 1", it)
	}
	if batch < 0 || batch >= q || batch >= r {
		return 0, fmt.Errorf("batch_dims %d is out of range for indices %s and data %s", batch, it, xt)
	}
	k := it.Dims[q-1]
	if k < 1 || int(k) > r-batch {
		return 0, fmt.Errorf("the last extent of indices %s must be static and in [1, %d]", it, r-batch)
	}
	for i := 0; i < batch; i++ {
		if !dimsCompatible(it.Dims[i], xt.Dims[i]) {
			return 0, fmt.Errorf("batch axis %d of indices %s and data %s differ", i, it, xt)
		}
	}
	return int(k), nil
}

func (o *GatherND) inferTypes() ([]Type, error) {
	xt, err := rankedOperand("data", o.X.Type)
	if err != nil {
		return nil, err
	}
	it, err := rankedOperand("indices", o.Indices.Type)
	if err != nil {
		return nil, err
	}
	if err := checkIndexType("indices", it); err != nil {
		return nil, err
	}
	k, err := tupleSize(xt, it, o.BatchDims)
	if err != nil {
		return nil, err
	}
	dims := append([]int64{}, it.Dims[:it.Rank()-1]...)
	dims = append(dims, xt.Dims[o.BatchDims+k:]...)
	return []Type{TensorType{Elem: xt.Elem, Dims: dims}}, nil
}

func init() {
	defineOp("gather", &opDef{results: 1, operands: 2, make: func(ins, outs []Value, a Attrs) (genericOp, error) {
		r := readAttrs(a)
		return &Gather{X: ins[0], Indices: ins[1], Axis: r.int("axis", 0)}, r.done("gather")
	}})
	defineOp("gather_elements", &opDef{results: 1, operands: 2, make: func(ins, outs []Value, a Attrs) (genericOp, error) {
		r := readAttrs(a)
		return &GatherElements{X: ins[0], Indices: ins[1], Axis: r.int("axis", 0)}, r.done("gather_elements")
	}})
	defineOp("gather_nd", &opDef{results: 1, operands: 2, make: func(ins, outs []Value, a Attrs) (genericOp, error) {
		r := readAttrs(a)
		return &GatherND{X: ins[0], Indices: ins[1], BatchDims: r.int("batch_dims", 0)}, r.done("gather_nd")
	}})
}

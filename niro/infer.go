package niro

import "fmt"

// BroadcastShape returns the shape that trailing-axis broadcasting of a and
// b gives: axes align at the end, an extent of 1 stretches, and a dynamic
// extent against a static one other than 1 takes the static one. It returns
// an error when two static extents other than 1 differ.
func BroadcastShape(a, b []int64) ([]int64, error) {
	n := max(len(a), len(b))
	out := make([]int64, n)
	for i := 0; i < n; i++ {
		x, y := int64(1), int64(1)
		if j := len(a) - n + i; j >= 0 {
			x = a[j]
		}
		if j := len(b) - n + i; j >= 0 {
			y = b[j]
		}
		d, ok := broadcastDim(x, y)
		if !ok {
			return nil, fmt.Errorf("extents %d and %d do not broadcast", x, y)
		}
		out[i] = d
	}
	return out, nil
}

func broadcastDim(x, y int64) (int64, bool) {
	switch {
	case x == y:
		return x, true
	case x == 1:
		return y, true
	case y == 1:
		return x, true
	case x == Dynamic:
		return y, true
	case y == Dynamic:
		return x, true
	}
	return 0, false
}

// dimsCompatible reports whether two extents may be equal at run time.
func dimsCompatible(a, b int64) bool {
	return a == b || a == Dynamic || b == Dynamic
}

// InferElementwise returns the result type of Add or Mul on x and y.
func InferElementwise(x, y Type) (Type, error) {
	switch x := x.(type) {
	case ScalarType:
		if y, ok := y.(ScalarType); ok && x == y {
			return x, nil
		}
		return nil, fmt.Errorf("operand types %s and %s differ", typeString(x), typeString(y))
	case TensorType:
		yt, ok := y.(TensorType)
		if !ok {
			return nil, fmt.Errorf("operand types %s and %s differ", x, typeString(y))
		}
		if x.Elem != yt.Elem {
			return nil, fmt.Errorf("operand types %s and %s have different element types", x, typeString(y))
		}
		if x.Unranked || yt.Unranked {
			return UnrankedTensor(x.Elem), nil
		}
		dims, err := BroadcastShape(x.Dims, yt.Dims)
		if err != nil {
			return nil, fmt.Errorf("operand shapes %s and %s are not broadcast-compatible: %v", x, yt, err)
		}
		return TensorType{Elem: x.Elem, Dims: dims}, nil
	default:
		return nil, fmt.Errorf("operand type %s is not a scalar or tensor", typeString(x))
	}
}

// InferMatMul returns the result type of MatMul on x and y: tensors of
// rank at least 2, [..., M, K] × [..., K, N] → [..., M, N], whose leading
// (batch) axes broadcast as element-wise operands do.
func InferMatMul(x, y Type) (Type, error) {
	xt, ok1 := x.(TensorType)
	yt, ok2 := y.(TensorType)
	if !ok1 || !ok2 || xt.Unranked || yt.Unranked || xt.Rank() < 2 || yt.Rank() < 2 {
		return nil, fmt.Errorf("matmul needs ranked tensors of rank at least 2, got %s and %s", typeString(x), typeString(y))
	}
	if xt.Elem != yt.Elem {
		return nil, fmt.Errorf("matmul operands %s and %s have different element types", xt, yt)
	}
	xr, yr := xt.Rank(), yt.Rank()
	if !dimsCompatible(xt.Dims[xr-1], yt.Dims[yr-2]) {
		return nil, fmt.Errorf("matmul contracted extents differ: %s has %d columns, %s has %d rows", xt, xt.Dims[xr-1], yt, yt.Dims[yr-2])
	}
	batch, err := BroadcastShape(xt.Dims[:xr-2], yt.Dims[:yr-2])
	if err != nil {
		return nil, fmt.Errorf("matmul batch axes of %s and %s do not broadcast: %v", xt, yt, err)
	}
	return Tensor(xt.Elem, append(batch, xt.Dims[xr-2], yt.Dims[yr-1])...), nil
}

// InferTranspose returns the result type of Transpose on x with perm.
func InferTranspose(x Type, perm []int) (Type, error) {
	xt, ok := x.(TensorType)
	if !ok || xt.Unranked {
		return nil, fmt.Errorf("transpose needs a ranked tensor, got %s", typeString(x))
	}
	if err := checkPerm(perm, xt.Rank()); err != nil {
		return nil, err
	}
	dims := make([]int64, len(perm))
	for i, p := range perm {
		dims[i] = xt.Dims[p]
	}
	return TensorType{Elem: xt.Elem, Dims: dims}, nil
}

func checkPerm(perm []int, rank int) error {
	if len(perm) != rank {
		return fmt.Errorf("permutation %v has %d entries for rank %d", perm, len(perm), rank)
	}
	seen := make([]bool, rank)
	for _, p := range perm {
		if p < 0 || p >= rank {
			return fmt.Errorf("permutation %v has entry %d out of range for rank %d", perm, p, rank)
		}
		if seen[p] {
			return fmt.Errorf("permutation %v repeats %d", perm, p)
		}
		seen[p] = true
	}
	return nil
}

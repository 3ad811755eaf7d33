package interp

import "github.com/niro-dev/niro/niro"

// bitcast reinterprets the bits of every element of x as element type to,
// of the same width (niro.Cast with Bitcast): x's little-endian bytes read
// back as to.
func bitcast(x *tensor, to niro.ScalarType) (*tensor, error) {
	t, err := decode(to, x.dims, x.encode().Data)
	if err != nil {
		return nil, err
	}
	t.scalar = x.scalar
	return t, nil
}

package emit

// vecOps evaluates mathOps on a batch of elements at once, like goOps
// lane by lane: a method call per op per batch instead of per element,
// which makes the exhaustive ulp scans several times faster. Values live
// in an arena that reset reuses.
type vecOps struct {
	n     int
	arena []uint32
	off   int
}

type vec = []uint32

func (o *vecOps) reset() { o.off = 0 }

func (o *vecOps) alloc() vec {
	if o.off+o.n > len(o.arena) {
		o.arena = make([]uint32, max(2*len(o.arena), 256*o.n))
		o.off = 0
	}
	v := o.arena[o.off : o.off+o.n : o.off+o.n]
	o.off += o.n
	return v
}

func (o *vecOps) fill(c uint32) vec {
	r := o.alloc()
	for i := range r {
		r[i] = c
	}
	return r
}

func (o *vecOps) ibin(a, b vec, f func(x, y uint32) uint32) vec {
	r := o.alloc()
	for i := range r {
		r[i] = f(a[i], b[i])
	}
	return r
}

func (o *vecOps) un(a vec, f func(x uint32) uint32) vec {
	r := o.alloc()
	for i := range r {
		r[i] = f(a[i])
	}
	return r
}

func (o *vecOps) f(c float32) vec { return o.fill(bt(c)) }
func (o *vecOps) i(c int32) vec   { return o.fill(uint32(c)) }
func (o *vecOps) add(a, b vec) vec {
	r := o.alloc()
	for i := range r {
		r[i] = bt(float32(fl(a[i]) + fl(b[i])))
	}
	return r
}
func (o *vecOps) sub(a, b vec) vec {
	r := o.alloc()
	for i := range r {
		r[i] = bt(float32(fl(a[i]) - fl(b[i])))
	}
	return r
}
func (o *vecOps) mul(a, b vec) vec {
	r := o.alloc()
	for i := range r {
		r[i] = bt(float32(fl(a[i]) * fl(b[i])))
	}
	return r
}
func (o *vecOps) div(a, b vec) vec {
	r := o.alloc()
	for i := range r {
		r[i] = bt(float32(fl(a[i]) / fl(b[i])))
	}
	return r
}
func (o *vecOps) maximum(a, b vec) vec { return o.ibin(a, b, goOps{}.maximum) }
func (o *vecOps) minimum(a, b vec) vec { return o.ibin(a, b, goOps{}.minimum) }
func (o *vecOps) abs(a vec) vec        { return o.un(a, func(x uint32) uint32 { return x &^ (1 << 31) }) }
func (o *vecOps) bits(a vec) vec       { return a }
func (o *vecOps) float(a vec) vec      { return a }
func (o *vecOps) itof(a vec) vec {
	return o.un(a, func(x uint32) uint32 { return bt(float32(int32(x))) })
}
func (o *vecOps) iadd(a, b vec) vec { return o.ibin(a, b, func(x, y uint32) uint32 { return x + y }) }
func (o *vecOps) isub(a, b vec) vec { return o.ibin(a, b, func(x, y uint32) uint32 { return x - y }) }
func (o *vecOps) and(a, b vec) vec  { return o.ibin(a, b, func(x, y uint32) uint32 { return x & y }) }
func (o *vecOps) or(a, b vec) vec   { return o.ibin(a, b, func(x, y uint32) uint32 { return x | y }) }
func (o *vecOps) shl(a vec, n int32) vec {
	return o.un(a, func(x uint32) uint32 { return x << n })
}
func (o *vecOps) ashr(a vec, n int32) vec {
	return o.un(a, func(x uint32) uint32 { return uint32(int32(x) >> n) })
}
func (o *vecOps) lshr(a vec, n int32) vec {
	return o.un(a, func(x uint32) uint32 { return x >> n })
}
func (o *vecOps) lt(a, b vec) vec {
	return o.ibin(a, b, func(x, y uint32) uint32 { return b2u(fl(x) < fl(y)) })
}
func (o *vecOps) eq(a, b vec) vec {
	return o.ibin(a, b, func(x, y uint32) uint32 { return b2u(fl(x) == fl(y)) })
}
func (o *vecOps) nan(a vec) vec { return o.un(a, func(x uint32) uint32 { return b2u(isNaN32(fl(x))) }) }
func (o *vecOps) fsel(c, a, b vec) vec {
	r := o.alloc()
	for i := range r {
		if c[i] != 0 {
			r[i] = a[i]
		} else {
			r[i] = b[i]
		}
	}
	return r
}
func (o *vecOps) isel(c, a, b vec) vec { return o.fsel(c, a, b) }

package interp

import (
	"fmt"
	"math"

	"github.com/niro-dev/niro/niro"
)

// Contractions and windows. Every sum starts from +0 and adds its terms
// one at a time in the documented order; every product is rounded before
// it is added (the explicit float32(...) conversions keep Go from fusing
// a multiply and an add, which it may do on some targets otherwise).

// matmul: every result element sums its K products in ascending k from 0.
// The i-k-j loop nest keeps that order per element while reading both
// operands row by row.
func matmul(x, y *tensor, rd []int64) (*tensor, error) {
	R := len(rd)
	M, N := int(rd[R-2]), int(rd[R-1])
	K := int(x.dims[len(x.dims)-1])
	out := newTensor(x.elem, rd)
	bd := rd[:R-2]
	xb := bcastIndex(x.dims[:len(x.dims)-2], bd)
	yb := bcastIndex(y.dims[:len(y.dims)-2], bd)
	batches := numel(bd)
	for bt := 0; bt < batches; bt++ {
		xo, yo, co := at(xb, bt)*M*K, at(yb, bt)*K*N, bt*M*N
		switch storeOf(x.elem) {
		case sF32:
			mmF32(x.f32[xo:xo+M*K], y.f32[yo:yo+K*N], out.f32[co:co+M*N], M, K, N)
		case sF64:
			mmF64(x.f64[xo:xo+M*K], y.f64[yo:yo+K*N], out.f64[co:co+M*N], M, K, N)
		default:
			mmInt(x.ints[xo:xo+M*K], y.ints[yo:yo+K*N], out.ints[co:co+M*N], M, K, N)
		}
	}
	switch storeOf(x.elem) {
	case sF32:
		round16(x.elem, out.f32)
	case sInt:
		if x.elem == niro.Bool {
			return nil, fmt.Errorf("matmul is not defined on i1")
		}
		wrapAll(x.elem, out.ints)
	}
	return out, nil
}

func mmF32(a, b, c []float32, M, K, N int) {
	for i := 0; i < M; i++ {
		ci := c[i*N : i*N+N]
		ai := a[i*K : i*K+K]
		k := 0
		for ; k+4 <= K; k += 4 {
			a0, a1, a2, a3 := ai[k], ai[k+1], ai[k+2], ai[k+3]
			b0 := b[k*N : k*N+N]
			b1 := b[(k+1)*N : (k+1)*N+N]
			b2 := b[(k+2)*N : (k+2)*N+N]
			b3 := b[(k+3)*N : (k+3)*N+N]
			b0, b1, b2, b3 = b0[:len(ci)], b1[:len(ci)], b2[:len(ci)], b3[:len(ci)]
			for j, s := range ci {
				s += float32(a0 * b0[j])
				s += float32(a1 * b1[j])
				s += float32(a2 * b2[j])
				s += float32(a3 * b3[j])
				ci[j] = s
			}
		}
		for ; k < K; k++ {
			av := ai[k]
			bk := b[k*N : k*N+N]
			bk = bk[:len(ci)]
			for j := range ci {
				ci[j] += float32(av * bk[j])
			}
		}
	}
}

func mmF64(a, b, c []float64, M, K, N int) {
	for i := 0; i < M; i++ {
		ci := c[i*N : i*N+N]
		for k := 0; k < K; k++ {
			av := a[i*K+k]
			bk := b[k*N : k*N+N]
			bk = bk[:len(ci)]
			for j := range ci {
				ci[j] += float64(av * bk[j])
			}
		}
	}
}

func mmInt(a, b, c []int64, M, K, N int) {
	for i := 0; i < M; i++ {
		ci := c[i*N : i*N+N]
		for k := 0; k < K; k++ {
			av := a[i*K+k]
			bk := b[k*N : k*N+N]
			for j := range ci {
				ci[j] += av * bk[j]
			}
		}
	}
}

// win3 describes the spatial axes of a convolution or pooling window as
// three (1-D and 2-D padded with leading unit axes).
type win3 struct {
	in, out, k, s, d, lo, hi [3]int
}

func makeWin(xd, rd []int64, kernel, strides, dil, pads []int64) win3 {
	S := len(xd) - 2
	var w win3
	for i := 0; i < 3; i++ {
		w.in[i], w.out[i], w.k[i], w.s[i], w.d[i] = 1, 1, 1, 1, 1
	}
	for i := 0; i < S; i++ {
		j := 3 - S + i
		w.in[j], w.out[j], w.k[j] = int(xd[2+i]), int(rd[2+i]), int(kernel[i])
		if strides != nil {
			w.s[j] = int(strides[i])
		}
		if dil != nil {
			w.d[j] = int(dil[i])
		}
		w.lo[j], w.hi[j] = int(pads[i]), int(pads[S+i])
	}
	return w
}

// conv sums, per result element, over c (outermost), then the kernel
// positions ascending, from +0; the bias is added after the sum; f16 and
// bf16 accumulate in f32 and round once. A read in the padding is a zero
// whose product is added only where it could change the sum (a weight of
// ±inf or NaN gives NaN); for finite weights ±0 leaves the bits alone.
func conv(op *niro.Conv, x, w, b *tensor, rd []int64) *tensor {
	kernel := w.dims[2:]
	wn := makeWin(x.dims, rd, kernel, op.Strides, op.Dilations, op.Pads)
	N, C, M := int(x.dims[0]), int(x.dims[1]), int(w.dims[0])
	G := int(max(op.Groups, 1))
	CG, MG := C/G, M/G
	plane := wn.in[0] * wn.in[1] * wn.in[2]
	oplane := wn.out[0] * wn.out[1] * wn.out[2]
	kvol := wn.k[0] * wn.k[1] * wn.k[2]
	out := newTensor(x.elem, rd)
	if storeOf(x.elem) == sF64 {
		convT(x.f64, w.f64, biasOf(b, func(t *tensor) []float64 { return t.f64 }), out.f64, wn, N, CG, M, MG, C, plane, oplane, kvol)
		return out
	}
	convT(x.f32, w.f32, biasOf(b, func(t *tensor) []float32 { return t.f32 }), out.f32, wn, N, CG, M, MG, C, plane, oplane, kvol)
	round16(x.elem, out.f32)
	return out
}

func biasOf[F float](b *tensor, get func(*tensor) []F) []F {
	if b == nil {
		return nil
	}
	return get(b)
}

func convT[F float](xs, ws, bs, os []F, wn win3, N, CG, M, MG, C, plane, oplane, kvol int) {
	OD, OH, OW := wn.out[0], wn.out[1], wn.out[2]
	ID, IH, IW := wn.in[0], wn.in[1], wn.in[2]
	K2 := wn.k[2]
	// Per kernel column kw: the output range along w whose reads are
	// inside, and the read offset.
	ow0s, ow1s, offs := make([]int, K2), make([]int, K2), make([]int, K2)
	lo, hi := 0, OW
	for kw := 0; kw < K2; kw++ {
		off := kw*wn.d[2] - wn.lo[2]
		ow0, ow1 := 0, OW
		for ow0 < OW && ow0*wn.s[2]+off < 0 {
			ow0++
		}
		for ow1 > ow0 && (ow1-1)*wn.s[2]+off >= IW {
			ow1--
		}
		ow0s[kw], ow1s[kw], offs[kw] = ow0, ow1, off
		lo, hi = max(lo, ow0), min(hi, ow1)
	}
	for n := 0; n < N; n++ {
		for m := 0; m < M; m++ {
			g := m / MG
			acc := os[(n*M+m)*oplane : (n*M+m+1)*oplane]
			for c := 0; c < CG; c++ {
				xc := xs[(n*C+g*CG+c)*plane : (n*C+g*CG+c+1)*plane]
				wk := ws[(m*CG+c)*kvol : (m*CG+c+1)*kvol]
				for kd := 0; kd < wn.k[0]; kd++ {
					for kh := 0; kh < wn.k[1]; kh++ {
						wrow := wk[(kd*wn.k[1]+kh)*K2 : (kd*wn.k[1]+kh+1)*K2]
						finite := true
						for _, wv := range wrow {
							finite = finite && !math.IsInf(float64(wv), 0) && wv == wv
						}
						for od := 0; od < OD; od++ {
							id := od*wn.s[0] + kd*wn.d[0] - wn.lo[0]
							for oh := 0; oh < OH; oh++ {
								ih := oh*wn.s[1] + kh*wn.d[1] - wn.lo[1]
								row := acc[(od*OH+oh)*OW : (od*OH+oh+1)*OW]
								inside := id >= 0 && id < ID && ih >= 0 && ih < IH
								if !finite {
									convRowSlow(row, xc, wrow, inside, (id*IH+ih)*IW, wn.s[2], ow0s, ow1s, offs)
									continue
								}
								if !inside {
									continue // finite weights: the padding's ±0 products change nothing
								}
								xr := xc[(id*IH+ih)*IW : (id*IH+ih+1)*IW]
								// Edges: each column's terms in kw order, where inside.
								for ow := 0; ow < OW; ow++ {
									if ow == lo && lo < hi {
										ow = hi
										if ow >= OW {
											break
										}
									}
									sum := row[ow]
									for kw, wv := range wrow {
										if ow >= ow0s[kw] && ow < ow1s[kw] {
											sum += F(xr[ow*wn.s[2]+offs[kw]] * wv)
										}
									}
									row[ow] = sum
								}
								if lo >= hi {
									continue
								}
								// Interior: every column inside.
								if K2 == 3 && wn.s[2] == 1 {
									w0, w1, w2 := wrow[0], wrow[1], wrow[2]
									x0 := xr[lo+offs[0] : hi+offs[0]]
									x1 := xr[lo+offs[1] : hi+offs[1]]
									x2 := xr[lo+offs[2] : hi+offs[2]]
									dst := row[lo:hi]
									x0, x1, x2 = x0[:len(dst)], x1[:len(dst)], x2[:len(dst)]
									for j, sum := range dst {
										sum += F(x0[j] * w0)
										sum += F(x1[j] * w1)
										sum += F(x2[j] * w2)
										dst[j] = sum
									}
									continue
								}
								for ow := lo; ow < hi; ow++ {
									sum := row[ow]
									base := ow * wn.s[2]
									for kw, wv := range wrow {
										sum += F(xr[base+offs[kw]] * wv)
									}
									row[ow] = sum
								}
							}
						}
					}
				}
			}
			if bs != nil {
				for j := range acc {
					acc[j] += bs[m]
				}
			}
		}
	}
}

// convRowSlow adds one kernel row's terms to an output row where some
// weight is ±inf or NaN: a read in the padding is a zero whose product
// (NaN) is added too, as the compiled code's zero-padded input gives.
func convRowSlow[F float](row, xc, wrow []F, inside bool, rowOff, stride int, ow0s, ow1s, offs []int) {
	for ow := range row {
		sum := row[ow]
		for kw, wv := range wrow {
			if inside && ow >= ow0s[kw] && ow < ow1s[kw] {
				sum += F(xc[rowOff+ow*stride+offs[kw]] * wv)
			} else {
				sum += F(0 * wv)
			}
		}
		row[ow] = sum
	}
}

// poolCounts returns per output position along one axis the count of
// window positions inside the input (with includePad, inside the padded
// input), as emit's constants.
func poolCounts(D, O, k, s, dl, lo, hi int, includePad bool) []float64 {
	first, end := 0, D
	if includePad {
		first, end = -lo, D+hi
	}
	out := make([]float64, O)
	for o := range out {
		for j := 0; j < k; j++ {
			p := o*s + j*dl - lo
			if p >= first && p < end {
				out[o]++
			}
		}
	}
	return out
}

// pool reduces each window in ascending row-major order of its kernel
// positions; positions in the padding hold the kind's neutral value, which
// leaves the result's bits unchanged, so they are skipped.
func pool(op *niro.Pool, x *tensor, rd []int64) *tensor {
	wn := makeWin(x.dims, rd, op.Kernel, op.Strides, op.Dilations, op.Pads)
	NC := int(x.dims[0] * x.dims[1])
	plane := wn.in[0] * wn.in[1] * wn.in[2]
	out := newTensor(x.elem, rd)
	var counts [3][]float64
	for a := 0; a < 3; a++ {
		counts[a] = poolCounts(wn.in[a], wn.out[a], wn.k[a], wn.s[a], wn.d[a], wn.lo[a], wn.hi[a], op.CountIncludePad)
	}
	fl := storeOf(x.elem) != sInt
	var accF float64
	var accI int64
	fp := float64(op.P)
	ip := 1 / fp
	if storeOf(x.elem) == sF32 {
		ip = float64(float32(ip))
	}
	o := 0
	for nc := 0; nc < NC; nc++ {
		base := nc * plane
		for od := 0; od < wn.out[0]; od++ {
			for oh := 0; oh < wn.out[1]; oh++ {
				for ow := 0; ow < wn.out[2]; ow++ {
					switch op.Kind {
					case niro.PoolMax:
						accF, accI = math.Inf(-1), intExtreme(x.elem, false)
					default:
						accF = 0
					}
					for kd := 0; kd < wn.k[0]; kd++ {
						id := od*wn.s[0] + kd*wn.d[0] - wn.lo[0]
						if id < 0 || id >= wn.in[0] {
							continue
						}
						for kh := 0; kh < wn.k[1]; kh++ {
							ih := oh*wn.s[1] + kh*wn.d[1] - wn.lo[1]
							if ih < 0 || ih >= wn.in[1] {
								continue
							}
							for kw := 0; kw < wn.k[2]; kw++ {
								iw := ow*wn.s[2] + kw*wn.d[2] - wn.lo[2]
								if iw < 0 || iw >= wn.in[2] {
									continue
								}
								p := base + (id*wn.in[1]+ih)*wn.in[2] + iw
								if !fl {
									v := x.ints[p]
									if x.elem == niro.U64 {
										accI = int64(max(uint64(accI), uint64(v)))
									} else {
										accI = max(accI, v)
									}
									continue
								}
								v := x.float(p)
								switch op.Kind {
								case niro.PoolMax:
									accF = maximum(accF, v)
								case niro.PoolAvg:
									accF = addIn(x.elem, accF, v)
								case niro.PoolLp:
									accF = addIn(x.elem, accF, lpTerm(x.elem, v, op.P, fp))
								}
							}
						}
					}
					switch {
					case !fl:
						out.ints[o] = accI
					default:
						y := accF
						switch op.Kind {
						case niro.PoolAvg:
							n := counts[0][od] * counts[1][oh] * counts[2][ow]
							y = divIn(x.elem, y, n)
						case niro.PoolLp:
							switch op.P {
							case 1:
							case 2:
								y = math.Sqrt(y)
							default:
								y = math.Pow(y, ip)
							}
						}
						out.setFloat(o, roundAcc(x.elem, y))
					}
					o++
				}
			}
		}
	}
	return out
}

// addIn adds in the accumulator type of e (f32 for f16, bf16 and f32).
func addIn(e niro.ScalarType, a, b float64) float64 {
	if e == niro.F64 {
		return a + b
	}
	return float64(float32(a) + float32(b))
}

func divIn(e niro.ScalarType, a, b float64) float64 {
	if e == niro.F64 {
		return a / b
	}
	return float64(float32(a) / float32(b))
}

// roundAcc rounds a value of the accumulator type (an f32 for the
// narrower floats, so setFloat's rounding from it is the single one).
func roundAcc(e niro.ScalarType, v float64) float64 {
	if e == niro.F64 {
		return v
	}
	return float64(float32(v))
}

func lpTerm(e niro.ScalarType, v float64, p int64, fp float64) float64 {
	if p == 2 {
		if e == niro.F64 {
			return v * v
		}
		return float64(float32(v) * float32(v))
	}
	a := math.Abs(v)
	if p == 1 {
		return a
	}
	return roundAcc(e, math.Pow(a, fp))
}

// maxPoolIndices gives each window's first maximum's flat position: the
// first position inside X, then each strictly larger one.
func maxPoolIndices(op *niro.MaxPoolIndices, x *tensor, rd []int64) *tensor {
	wn := makeWin(x.dims, rd, op.Kernel, op.Strides, op.Dilations, op.Pads)
	S := len(x.dims) - 2
	NC := int(x.dims[0] * x.dims[1])
	plane := wn.in[0] * wn.in[1] * wn.in[2]
	out := newTensor(niro.I64, rd)
	fl := storeOf(x.elem) != sInt
	o := 0
	for nc := 0; nc < NC; nc++ {
		base := nc * plane
		for od := 0; od < wn.out[0]; od++ {
			for oh := 0; oh < wn.out[1]; oh++ {
				for ow := 0; ow < wn.out[2]; ow++ {
					best := int64(-1)
					var bf float64
					var bi int64
					for kd := 0; kd < wn.k[0]; kd++ {
						id := od*wn.s[0] + kd*wn.d[0] - wn.lo[0]
						for kh := 0; kh < wn.k[1]; kh++ {
							ih := oh*wn.s[1] + kh*wn.d[1] - wn.lo[1]
							for kw := 0; kw < wn.k[2]; kw++ {
								iw := ow*wn.s[2] + kw*wn.d[2] - wn.lo[2]
								if id < 0 || id >= wn.in[0] || ih < 0 || ih >= wn.in[1] || iw < 0 || iw >= wn.in[2] {
									continue
								}
								p := (id*wn.in[1]+ih)*wn.in[2] + iw
								var better bool
								if fl {
									v := x.float(base + p)
									better = v > bf
									if best < 0 || better {
										bf = v
									}
								} else {
									v := x.ints[base+p]
									if x.elem == niro.U64 {
										better = uint64(v) > uint64(bi)
									} else {
										better = v > bi
									}
									if best < 0 || better {
										bi = v
									}
								}
								if best < 0 || better {
									pos := [3]int{id, ih, iw}
									sp := 0
									if op.StorageOrder == 0 {
										for a := 3 - S; a < 3; a++ {
											sp = sp*wn.in[a] + pos[a]
										}
									} else {
										for a := 2; a >= 3-S; a-- {
											sp = sp*wn.in[a] + pos[a]
										}
									}
									best = int64(nc*plane + sp)
								}
							}
						}
					}
					out.ints[o] = best
					o++
				}
			}
		}
	}
	return out
}

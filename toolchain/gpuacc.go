package toolchain

import (
	"fmt"
	"regexp"
	"strings"
)

var (
	forHeadRE = regexp.MustCompile(`^(\s*)scf\.for (%[\w]+) = (\S+) to (\S+) step (\S+) \{$`)
	accLoadRE = regexp.MustCompile(`^\s*(%[\w]+) = memref\.load (%[\w]+)\[([^\]]*)\] : (memref<.*>)$`)
	accStorRE = regexp.MustCompile(`^\s*memref\.store (%[\w]+), (%[\w]+)\[([^\]]*)\] : (memref<.*>)$`)
	ssaNameRE = regexp.MustCompile(`%[\w]+`)
)

// promoteAccumulators keeps a kernel's running sums in registers: an
// scf.for whose body loads one element of a buffer and ends by storing to
// the same element (a reduction's or a contraction's accumulator; the
// index does not change in the loop, and nothing else in the body touches
// the buffer or stores anywhere) becomes a loop carrying the value
// (iter_args), loaded once before it and stored once after it. The thread
// owns the element, so the same additions happen in the same order: only
// the stores in between are gone. Outer loops are promoted in turn once
// their inner loop is. The kernel's bits do not change
// (TestGPUKernelsOnHost).
func promoteAccumulators(lines []string) []string {
	for n := 0; ; n++ {
		out, ok := promoteOne(lines, n)
		if !ok {
			return lines
		}
		lines = out
	}
}

// promoteOne promotes the first loop that qualifies, naming its values
// with n.
func promoteOne(lines []string, n int) ([]string, bool) {
	for i, l := range lines {
		m := forHeadRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		ind := m[1]
		end := closeOf(lines, i, ind)
		if end < 0 || end-i < 3 {
			continue
		}
		body := lines[i+1 : end]
		inner := ind + "  "
		st := accStorRE.FindStringSubmatch(body[len(body)-1])
		if st == nil || !strings.HasPrefix(body[len(body)-1], inner+"memref.store") {
			continue
		}
		buf, idx, typ := st[2], st[3], st[4]
		ld := -1
		for k, b := range body[:len(body)-1] {
			if lm := accLoadRE.FindStringSubmatch(b); lm != nil && lm[2] == buf && strings.HasPrefix(b, inner+"%") {
				if ld >= 0 || lm[3] != idx || lm[4] != typ {
					ld = -2
					break
				}
				ld = k
			}
		}
		if ld < 0 {
			continue
		}
		text := strings.Join(body, "\n")
		if len(regexp.MustCompile(regexp.QuoteMeta(buf)+`\b`).FindAllString(text, -1)) != 2 || strings.Count(text, "memref.store") != 1 {
			continue
		}
		// The index must be defined outside the loop (not the induction
		// variable, not a value of the body).
		defined := map[string]bool{m[2]: true}
		for _, b := range body {
			if d := ssaDefRE.FindStringSubmatch(b); d != nil {
				defined[d[1]] = true
			}
			if fm := forHeadRE.FindStringSubmatch(b); fm != nil {
				defined[fm[2]] = true
			}
		}
		invariant := true
		for _, v := range ssaNameRE.FindAllString(idx, -1) {
			invariant = invariant && !defined[v]
		}
		elem := memrefElem(typ)
		if !invariant || elem == "" {
			continue
		}
		acc := accLoadRE.FindStringSubmatch(body[ld])[1]
		init := fmt.Sprintf("%%niro_acc%d_init", n)
		res := fmt.Sprintf("%%niro_acc%d", n)
		var o []string
		o = append(o, lines[:i]...)
		o = append(o, fmt.Sprintf("%s%s = memref.load %s[%s] : %s", ind, init, buf, idx, typ))
		o = append(o, fmt.Sprintf("%s%s = scf.for %s = %s to %s step %s iter_args(%s = %s) -> (%s) {", ind, res, m[2], m[3], m[4], m[5], acc, init, elem))
		o = append(o, body[:ld]...)
		o = append(o, body[ld+1:len(body)-1]...)
		o = append(o, fmt.Sprintf("%sscf.yield %s : %s", inner, st[1], elem))
		o = append(o, lines[end])
		o = append(o, fmt.Sprintf("%smemref.store %s, %s[%s] : %s", ind, res, buf, idx, typ))
		o = append(o, lines[end+1:]...)
		return o, true
	}
	return nil, false
}

// memrefElem returns the element type of a memref type ("memref<4x4xf32,
// strided<...>>" -> "f32"), or "" for one it cannot read.
func memrefElem(typ string) string {
	s, ok := strings.CutPrefix(typ, "memref<")
	if !ok {
		return ""
	}
	if i := strings.Index(s, ","); i >= 0 {
		s = s[:i]
	} else {
		s = strings.TrimSuffix(s, ">")
	}
	if i := strings.LastIndex(s, "x"); i >= 0 {
		s = s[i+1:]
	}
	switch s {
	case "f16", "bf16", "f32", "f64", "i1", "i8", "i16", "i32", "i64":
		return s
	}
	return ""
}

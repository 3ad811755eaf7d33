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

var iterForRE = regexp.MustCompile(`^(\s*)(%[\w]+) = scf\.for (%[\w]+) = (\S+) to (\S+) step (\S+) iter_args\((%[\w]+) = (%[\w]+)\) -> \((\w+)\) \{$`)

// unrollJamBlocks gives a contraction thread's register block its operand
// reuse: a nest "for i < TM { for j < TN { acc = load C[i, j]; acc = for k
// (acc += A[i, k] * B[k, j]); store acc, C[i, j] } }" with TM, TN <= 4
// (promoteAccumulators' output over a TM x TN block) becomes one loop over
// k carrying the TM x TN sums, each step computing every element's
// multiply-add. With no store left in that loop, LLVM loads each A and B
// element once per step for the whole block. Each element still adds its
// products in contracted order from its own starting value: the same bits.
func unrollJamBlocks(lines []string, consts map[string]int64, n int) []string {
	for i := 0; i+3 < len(lines); i++ {
		fi := forHeadRE.FindStringSubmatch(lines[i])
		fj := forHeadRE.FindStringSubmatch(lines[i+1])
		ld := accLoadRE.FindStringSubmatch(lines[i+2])
		fk := iterForRE.FindStringSubmatch(lines[i+3])
		if fi == nil || fj == nil || ld == nil || fk == nil {
			continue
		}
		tm, ok1 := constTrip(fi, consts)
		tn, ok2 := constTrip(fj, consts)
		if !ok1 || !ok2 || tm > 4 || tn > 4 || tm*tn < 2 {
			continue
		}
		kEnd := closeOf(lines, i+3, fk[1])
		if kEnd < 0 || kEnd+3 >= len(lines) {
			continue
		}
		st := accStorRE.FindStringSubmatch(lines[kEnd+1])
		if st == nil || st[1] != fk[2] || st[2] != ld[2] || st[3] != ld[3] || fk[8] != ld[1] ||
			strings.TrimSpace(lines[kEnd+2]) != "}" || strings.TrimSpace(lines[kEnd+3]) != "}" ||
			!strings.HasPrefix(lines[kEnd+3], fi[1]+"}") {
			continue
		}
		body := lines[i+4 : kEnd]
		yield := body[len(body)-1]
		ym := regexp.MustCompile(`^\s*scf\.yield (%[\w]+) : \w+$`).FindStringSubmatch(yield)
		if ym == nil {
			continue
		}
		nested := false
		var defs []string
		for _, b := range body[:len(body)-1] {
			nested = nested || strings.HasSuffix(strings.TrimSpace(b), "{")
			if d := ssaDefRE.FindStringSubmatch(b); d != nil {
				defs = append(defs, d[1])
			}
		}
		if nested {
			continue
		}
		iv, jv, acc, elem := fi[2], fj[2], fk[7], fk[9]
		p := fmt.Sprintf("%%niro_uj%d_", n)
		ind := fi[1]
		var o []string
		o = append(o, lines[:i]...)
		var inits, args, yields, types []string
		rename := func(l string, a, b int64) string {
			for _, d := range append(append([]string{}, defs...), acc) {
				l = regexp.MustCompile(regexp.QuoteMeta(d)+`\b`).ReplaceAllString(l, fmt.Sprintf("%sv%s_%d_%d", p, d[1:], a, b))
			}
			l = regexp.MustCompile(regexp.QuoteMeta(iv)+`\b`).ReplaceAllString(l, fmt.Sprintf("%si%d", p, a))
			return regexp.MustCompile(regexp.QuoteMeta(jv)+`\b`).ReplaceAllString(l, fmt.Sprintf("%sj%d", p, b))
		}
		for a := int64(0); a < tm; a++ {
			o = append(o, fmt.Sprintf("%s%si%d = arith.constant %d : index", ind, p, a, a))
		}
		for b := int64(0); b < tn; b++ {
			o = append(o, fmt.Sprintf("%s%sj%d = arith.constant %d : index", ind, p, b, b))
		}
		for a := int64(0); a < tm; a++ {
			for b := int64(0); b < tn; b++ {
				init := fmt.Sprintf("%sinit_%d_%d", p, a, b)
				o = append(o, fmt.Sprintf("%s%s = memref.load %s[%s] : %s", ind, init, ld[2], rename(ld[3], a, b), ld[4]))
				inits = append(inits, init)
				args = append(args, fmt.Sprintf("%sv%s_%d_%d = %s", p, acc[1:], a, b, init))
				yields = append(yields, fmt.Sprintf("%sv%s_%d_%d", p, ym[1][1:], a, b))
				types = append(types, elem)
			}
		}
		o = append(o, fmt.Sprintf("%s%sr:%d = scf.for %s = %s to %s step %s iter_args(%s) -> (%s) {", ind, p, len(inits), fk[3], fk[4], fk[5], fk[6],
			strings.Join(args, ", "), strings.Join(types, ", ")))
		for a := int64(0); a < tm; a++ {
			for b := int64(0); b < tn; b++ {
				for _, l := range body[:len(body)-1] {
					o = append(o, rename(l, a, b))
				}
			}
		}
		o = append(o, fmt.Sprintf("%s  scf.yield %s : %s", ind, strings.Join(yields, ", "), strings.Join(types, ", ")))
		o = append(o, ind+"}")
		k := 0
		for a := int64(0); a < tm; a++ {
			for b := int64(0); b < tn; b++ {
				o = append(o, fmt.Sprintf("%smemref.store %sr#%d, %s[%s] : %s", ind, p, k, st[2], rename(st[3], a, b), st[4]))
				k++
			}
		}
		o = append(o, lines[kEnd+4:]...)
		return o
	}
	return lines
}

// constTrip returns the trip count of an scf.for from 0 by 1 to a constant.
func constTrip(m []string, consts map[string]int64) (int64, bool) {
	lb, ok1 := consts[m[3]]
	ub, ok2 := consts[m[4]]
	st, ok3 := consts[m[5]]
	return ub, ok1 && ok2 && ok3 && lb == 0 && st == 1
}

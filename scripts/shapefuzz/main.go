// Command shapefuzz is a shape fuzzer for niro's lowering: it draws random
// geometries and chains of every scheduled family (convolutions in every
// form with their epilogues, pools, Resize, MatMul/Gemm, reductions,
// element-wise chains with broadcasts, Transpose/Concat/Slice/Pad), builds
// each as an ONNX model, compiles it with the host pipeline and compares
// its outputs with niro's interpreter bit for bit (docs/toolchain.md, "The
// shape fuzzer"):
//
//	go run ./scripts/shapefuzz -n 5000                # the long run
//	go run ./scripts/shapefuzz -seed S -draw K -keep DIR  # replay one draw
//	go run ./scripts/shapefuzz -replay FILE.onnx      # check a kept model
//
// Several draws share one model (-batch) to share one compile; when a
// batch fails its draws are checked one at a time to name the culprit.
// Each failure is printed with its seed, draw and a one-line description,
// and with -keep its model is written to DIR/seedS-drawK/.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

func main() {
	seed := flag.Uint64("seed", 1, "seed of the draws")
	n := flag.Int("n", 300, "number of draws")
	first := flag.Int("first", 0, "index of the first draw")
	draw := flag.Int("draw", -1, "check only draw K of the seed")
	drawsFlag := flag.String("draws", "", "check only these draws (K,K,...), together in one model")
	batch := flag.Int("batch", 8, "draws per model (one compile)")
	only := flag.String("family", "", "draw only this family ("+familyNames()+")")
	keep := flag.String("keep", "", "write each failing draw's model to DIR/seedS-drawK/")
	replay := flag.String("replay", "", "check the ONNX model FILE instead of drawing")
	timeout := flag.Duration("timeout", 60*time.Second, "time-out of each tool run")
	budget := flag.Duration("budget", 20*time.Second, "a lowering taking more CPU time than this is a failure")
	budgetMB := flag.Int64("budget-mb", 2048, "a tool using more memory (MB) is a failure")
	passes := flag.String("passes", "", "passes.txt (default: the repository's)")
	prefix := flag.String("llvm-prefix", "", "LLVM/MLIR installation prefix")
	verbose := flag.Bool("v", false, "print every draw")
	list := flag.Bool("list", false, "print the draws' descriptions without compiling anything")
	flag.Parse()
	ctx := context.Background()
	draws, err := drawList(*drawsFlag, *draw, *first, *n)
	if err != nil {
		fmt.Fprintln(os.Stderr, "shapefuzz:", err)
		os.Exit(2)
	}
	if *drawsFlag != "" {
		*batch = len(draws)
	}
	if *list {
		for _, k := range draws {
			fmt.Printf("seed=%d draw=%d %s\n", *seed, k, drawInto(&graph{}, *seed, k, *only))
		}
		return
	}
	if *passes == "" {
		*passes = findPasses()
	}
	c, err := newChecker(ctx, *prefix, *passes)
	if err != nil {
		fmt.Fprintln(os.Stderr, "shapefuzz:", err)
		os.Exit(1)
	}
	c.Timeout, c.BudgetTime, c.BudgetRSS = *timeout, *budget, *budgetMB<<20
	if *replay != "" {
		data, err := os.ReadFile(*replay)
		if err != nil {
			fmt.Fprintln(os.Stderr, "shapefuzz:", err)
			os.Exit(1)
		}
		res := c.check(ctx, data)
		fmt.Printf("%s: %s (mlir-opt %.2fs CPU, %.2fs wall)\n", *replay, res, res.Lower.Seconds(), res.Wall.Seconds())
		if res.Kind != "" {
			os.Exit(1)
		}
		return
	}
	r := &runner{c: c, seed: *seed, only: *only, keep: *keep, log: os.Stdout, verbose: *verbose}
	st := r.run(ctx, draws, *batch)
	st.print(os.Stdout)
	if len(st.failures) > 0 {
		os.Exit(1)
	}
}

// drawList is the draws to check: the list given (-draws), the one draw
// (-draw), or n draws from first.
func drawList(list string, draw, first, n int) ([]int, error) {
	var draws []int
	switch {
	case list != "":
		for _, f := range strings.Split(list, ",") {
			k, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				return nil, fmt.Errorf("-draws: %v", err)
			}
			draws = append(draws, k)
		}
	case draw >= 0:
		draws = append(draws, draw)
	default:
		for k := first; k < first+n; k++ {
			draws = append(draws, k)
		}
	}
	return draws, nil
}

func familyNames() string {
	var s []string
	for _, f := range families {
		s = append(s, f.name)
	}
	return strings.Join(s, ", ")
}

// findPasses looks for passes.txt in the working directory and its
// parents (the repository root).
func findPasses() string {
	dir, _ := os.Getwd()
	for {
		p := filepath.Join(dir, "passes.txt")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "passes.txt"
		}
		dir = up
	}
}

// failure is one failing draw (or a batch whose draws pass alone).
type failure struct {
	seed     uint64
	draws    []int
	desc     string
	res      outcome
	together bool // the draws fail only together, each passes alone
}

func (f failure) String() string {
	ks := make([]string, len(f.draws))
	for i, k := range f.draws {
		ks[i] = fmt.Sprint(k)
	}
	what := "draw=" + strings.Join(ks, ",")
	if f.together {
		what = "draws=" + strings.Join(ks, ",") + " (only together)"
	}
	return fmt.Sprintf("FAIL seed=%d %s %s | %s", f.seed, what, f.res, f.desc)
}

// stats counts a run.
type stats struct {
	draws, models int
	perFamily     map[string]int
	failures      []failure
	lower         time.Duration // total mlir-opt time
	slowest       time.Duration
	slowestWhat   string
	rss           int64
	wall          time.Duration
}

func (s *stats) print(w io.Writer) {
	var fams []string
	for f, k := range s.perFamily {
		fams = append(fams, fmt.Sprintf("%s %d", f, k))
	}
	sort.Strings(fams)
	fmt.Fprintf(w, "shapefuzz: %d draws (%s) in %d models, %d failures; %.1fs wall, mlir-opt %.1fs CPU in all, slowest %.2fs (%s), peak tool RSS %d MB\n",
		s.draws, strings.Join(fams, ", "), s.models, len(s.failures), s.wall.Seconds(), s.lower.Seconds(), s.slowest.Seconds(), s.slowestWhat, s.rss>>20)
	for _, f := range s.failures {
		fmt.Fprintln(w, f)
	}
}

// runner checks draws of one seed.
type runner struct {
	c       *checker
	seed    uint64
	only    string
	keep    string
	log     io.Writer
	verbose bool
}

// model builds the model of the given draws, returning its bytes, the
// description of each draw and the draw each output belongs to.
func (r *runner) model(draws []int) ([]byte, []string, []int, error) {
	g := &graph{}
	var descs []string
	for _, k := range draws {
		descs = append(descs, drawInto(g, r.seed, k, r.only))
	}
	name := fmt.Sprintf("seed%d_draw%d", r.seed, draws[0])
	if len(draws) > 1 {
		name += fmt.Sprintf("_%d", draws[len(draws)-1])
	}
	data, err := g.model(name)
	return data, descs, g.owners, err
}

// run checks draws in batches of size batch.
func (r *runner) run(ctx context.Context, draws []int, batch int) *stats {
	st := &stats{perFamily: map[string]int{}}
	start := time.Now()
	for i := 0; i < len(draws); i += max(batch, 1) {
		ks := draws[i:min(i+max(batch, 1), len(draws))]
		r.runBatch(ctx, ks, st)
	}
	st.wall = time.Since(start)
	return st
}

func (r *runner) runBatch(ctx context.Context, ks []int, st *stats) {
	data, descs, owners, err := r.model(ks)
	st.draws += len(ks)
	for _, d := range descs {
		st.perFamily[d[:strings.IndexByte(d, ':')]]++
	}
	if err != nil {
		st.failures = append(st.failures, failure{seed: r.seed, draws: ks, desc: descs[0], res: outcome{Kind: "model", Detail: err.Error()}})
		return
	}
	res := r.c.check(ctx, data)
	r.account(st, res, fmt.Sprintf("draws %d-%d", ks[0], ks[len(ks)-1]))
	if r.verbose || res.Kind != "" {
		for j, k := range ks {
			fmt.Fprintf(r.log, "seed=%d draw=%d %s\n", r.seed, k, descs[j])
		}
		fmt.Fprintf(r.log, "  -> %s (mlir-opt %.2fs CPU, %.2fs wall)\n", res, res.Lower.Seconds(), res.Wall.Seconds())
	}
	if res.Kind == "" {
		return
	}
	if len(ks) == 1 {
		r.fail(st, failure{seed: r.seed, draws: ks, desc: descs[0], res: res}, data)
		return
	}
	if res.Kind == "mismatch" {
		// The outputs name the draws.
		bad := map[int]bool{}
		for _, o := range res.Bad {
			bad[owners[o]] = true
		}
		for j, k := range ks {
			if bad[k] {
				one, _, _, _ := r.model([]int{k})
				alone := r.c.check(ctx, one)
				if alone.Kind == "" {
					alone = res // differs only in the batch: keep the batch's words
				}
				r.fail(st, failure{seed: r.seed, draws: []int{k}, desc: descs[j], res: alone}, one)
			}
		}
		return
	}
	// Rerun each draw alone to name the culprit.
	found := false
	for j, k := range ks {
		one, _, _, _ := r.model([]int{k})
		alone := r.c.check(ctx, one)
		r.account(st, alone, fmt.Sprintf("draw %d", k))
		if alone.Kind != "" {
			found = true
			fmt.Fprintf(r.log, "  draw %d alone -> %s\n", k, alone)
			r.fail(st, failure{seed: r.seed, draws: []int{k}, desc: descs[j], res: alone}, one)
		}
	}
	if !found {
		// Only together: narrow the batch down to a smaller failing set.
		ks, res = r.narrow(ctx, st, ks, res)
		data, descs, _, _ = r.model(ks)
		r.fail(st, failure{seed: r.seed, draws: ks, desc: strings.Join(descs, "; "), res: res, together: true}, data)
	}
}

// narrow drops draws from a failing set ks (whose draws pass alone) while
// the rest still fails: first halves, then one draw at a time. It returns
// the set left and its outcome.
func (r *runner) narrow(ctx context.Context, st *stats, ks []int, res outcome) ([]int, outcome) {
	fails := func(set []int) (bool, outcome) {
		data, _, _, _ := r.model(set)
		o := r.c.check(ctx, data)
		r.account(st, o, fmt.Sprintf("draws %v", set))
		return o.Kind != "", o
	}
	for len(ks) > 2 {
		h := len(ks) / 2
		if ok, o := fails(ks[:h]); ok {
			ks, res = ks[:h], o
		} else if ok, o := fails(ks[h:]); ok {
			ks, res = ks[h:], o
		} else {
			break
		}
	}
	for i := 0; len(ks) > 2 && i < len(ks); {
		rest := append(append([]int{}, ks[:i]...), ks[i+1:]...)
		if ok, o := fails(rest); ok {
			ks, res = rest, o
		} else {
			i++
		}
	}
	return ks, res
}

func (r *runner) account(st *stats, res outcome, what string) {
	st.models++
	st.lower += res.Lower
	if res.Lower > st.slowest {
		st.slowest, st.slowestWhat = res.Lower, what
	}
	st.rss = max(st.rss, res.RSS)
}

// fail records f and, with -keep, writes its model and description.
func (r *runner) fail(st *stats, f failure, data []byte) {
	st.failures = append(st.failures, f)
	fmt.Fprintln(r.log, f)
	if r.keep == "" {
		return
	}
	dir := filepath.Join(r.keep, fmt.Sprintf("seed%d-draw%d", f.seed, f.draws[0]))
	if err := os.MkdirAll(dir, 0o755); err == nil {
		os.WriteFile(filepath.Join(dir, "model.onnx"), data, 0o644)
		os.WriteFile(filepath.Join(dir, "draw.txt"), []byte(f.String()+"\n"), 0o644)
		fmt.Fprintf(r.log, "  kept in %s\n", dir)
	}
}

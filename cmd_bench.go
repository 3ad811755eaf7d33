package main

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"github.com/niro-dev/niro/tensorio"
)

// BenchCmd is `niro bench`.
type BenchCmd struct {
	File        string `arg:"" help:"A .onnx or .niro model." type:"existingfile"`
	Runs        int    `help:"Timed samples after the warm-up calls (default: ${default})." default:"10"`
	Warmup      int    `help:"Untimed calls before the timed ones, at least 1 (default: ${default})." default:"1"`
	MinSampleUs int64  `name:"min-sample-us" help:"Batch calls shorter than this many µs so that each sample lasts about this long; the time reported is per call. 0 times every call alone (default: ${default})." default:"50"`
	JSON        bool   `name:"json" help:"Print {\"median_us\":…,\"min_us\":…,\"runs\":…} plus p90_us, stddev_us, mean_us, warmup and batch (calls per sample)."`
	Seed        uint64 `help:"Seed for the random inputs." default:"1"`
	InputFlags
	ShapeFlags
	PipelineFlag
}

// Help says what is timed.
func (c *BenchCmd) Help() string {
	return `What is timed: the model function alone, called in-process by niro's run harness
under mlir-runner, which JIT-compiles it for this machine's CPU at the pipeline's
optimization level (-O3 for host, the level niro compile gives opt and llc);
reading inputs and writing outputs are not timed. The clock is
clock_gettime(CLOCK_MONOTONIC), in nanoseconds. An object from niro compile is
built for --target-cpu (portable by default), so it can be slower than this
figure unless compiled with --target-cpu native.`
}

// benchStats summarizes per-call timings in µs.
type benchStats struct {
	Median, Min, Max, P90, Mean, Stddev float64
}

func stats(seconds []float64) benchStats {
	us := make([]float64, len(seconds))
	for i, s := range seconds {
		us[i] = s * 1e6
	}
	sort.Float64s(us)
	n := len(us)
	var st benchStats
	st.Min, st.Max = us[0], us[n-1]
	st.Median = us[n/2]
	if n%2 == 0 {
		st.Median = (us[n/2-1] + us[n/2]) / 2
	}
	st.P90 = us[int(math.Ceil(0.9*float64(n)))-1] // nearest rank
	sum := 0.0
	for _, x := range us {
		sum += x
	}
	st.Mean = sum / float64(n)
	if n > 1 {
		ss := 0.0
		for _, x := range us {
			ss += (x - st.Mean) * (x - st.Mean)
		}
		st.Stddev = math.Sqrt(ss / float64(n-1))
	}
	return st
}

// Run compiles the model for the host and reports the per-call latency,
// timed inside the process.
func (c *BenchCmd) Run(env *Env) error {
	if c.Runs < 1 {
		return usagef("--runs must be at least 1")
	}
	if c.Warmup < 1 {
		return usagef("--warmup must be at least 1")
	}
	if c.MinSampleUs < 0 {
		return usagef("--min-sample-us must not be negative")
	}
	given, err := c.read()
	if err != nil {
		return err
	}
	h, err := env.startHost(env.context(), c.File, c.ShapeFlags, c.PipelineFlag)
	if err != nil {
		return err
	}
	defer h.close()
	var hm *hostModel
	var inputs []tensorio.Tensor
	if len(given) > 0 {
		hm, inputs, err = h.prepare(given)
	} else {
		hm, inputs, err = h.prepareRandom(c.Seed)
	}
	if err != nil {
		return err
	}
	res, err := h.env.executeTimed(h.ctx, h.tc, hm, inputs, timing{warmup: c.Warmup, runs: c.Runs, minSampleNs: c.MinSampleUs * 1000})
	if err != nil {
		return err
	}
	st := stats(res.Timings)
	if c.JSON {
		return json.NewEncoder(env.Stdout).Encode(map[string]any{
			"median_us": st.Median, "min_us": st.Min, "runs": len(res.Timings),
			"p90_us": st.P90, "stddev_us": st.Stddev, "mean_us": st.Mean, "max_us": st.Max,
			"warmup": c.Warmup, "batch": res.Batch,
		})
	}
	fmt.Fprintf(env.Stdout, "%s: median %s µs, min %s, p90 %s, stddev %s over %d runs of %d calls each (after %d warm-up calls)\n",
		c.File, fmtUs(st.Median), fmtUs(st.Min), fmtUs(st.P90), fmtUs(st.Stddev), len(res.Timings), res.Batch, c.Warmup)
	return nil
}

// fmtUs prints a time in µs with three significant digits, or more for
// large values.
func fmtUs(x float64) string {
	if x >= 100 {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.3g", x)
}

package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/niro-dev/niro/emit"
	"github.com/niro-dev/niro/toolchain"
)

// GPUFlags are the compile options for GPU targets (docs/gpu.md).
type GPUFlags struct {
	DeviceBuffers bool   `help:"GPU targets: the entry takes device pointers the caller allocated and filled (no copies in or out); default: host pointers, copied to the device and back." name:"device-buffers"`
	GPUFallback   bool   `help:"GPU targets: a loop nest whose math function needs a device math library that was not found runs on the host (its buffers copied there and back) instead of failing the compile." name:"gpu-fallback"`
	GPUMathLib    string `help:"GPU targets: the device math library: libdevice.10.bc or its directory (NVIDIA), the directory holding ocml.bc (AMD), or none; default: $NIRO_GPU_MATH_LIB, else the CUDA or ROCm install's (docs/gpu.md)." name:"gpu-math-lib" placeholder:"PATH"`
}

// gpuKindExt are the default extensions of the GPU outputs.
var gpuKindExt = map[string]string{
	"mlir": ".gpu.mlir", "header": ".h", "llvm-dialect": ".llvm.mlir", "ll": ".ll", "obj": ".o",
	"ptx": ".ptx", "isa": ".s", "hsaco": ".hsaco", "runtime": ".runtime.ll",
}

// gpuKinds lists the --emit kinds each vendor takes.
var gpuKinds = map[toolchain.GPUVendor][]string{
	toolchain.NVIDIA: {"mlir", "llvm-dialect", "ll", "obj", "header", "ptx", "runtime"},
	toolchain.AMD:    {"mlir", "llvm-dialect", "ll", "obj", "header", "isa", "hsaco", "runtime"},
}

// runGPU is `niro compile --target nvidia:sm_NN|amd:gfxNNN`.
func (c *CompileCmd) runGPU(env *Env) error {
	target, err := toolchain.ParseGPUTarget(c.Target)
	if err != nil {
		return usagef("%v", err)
	}
	ok := false
	for _, k := range gpuKinds[target.Vendor] {
		ok = ok || k == c.Emit
	}
	if !ok {
		return usagef("--emit %s is not an output for %s (it takes %v)", c.Emit, target, gpuKinds[target.Vendor])
	}
	if c.Pipeline != "host" {
		return usagef("--pipeline %s: GPU targets use the passes.txt pipelines %s", c.Pipeline, strings.Join(toolchain.GPUPipelineNames(target), ", "))
	}
	dest := c.Output
	if dest == "" {
		dest = stem(c.File) + gpuKindExt[c.Emit]
	}
	out, err := env.emitNamed(c.File, c.ShapeFlags, "", env.emitOptions())
	if err != nil {
		return err
	}
	if c.Emit == "header" {
		// The GPU entry has the host's signature (docs/gpu.md, "The ABI").
		h, err := emit.Header(out)
		if err != nil {
			return err
		}
		return writeOutput(env, dest, []byte(h))
	}
	ps, err := pipelines()
	if err != nil {
		return fmt.Errorf("passes.txt: %w", err)
	}
	stages, err := toolchain.LookupGPUPipelines(ps, target)
	if err != nil {
		return err
	}
	ctx := context.Background()
	tc, err := env.findTools(ctx)
	if err != nil {
		return err
	}
	kind := toolchain.Kind(c.Emit)
	if kind == toolchain.KindRuntime {
		// The runtime defines exactly what the model's launcher calls.
		kind = toolchain.KindLL
	}
	res, err := tc.BuildGPU(ctx, toolchain.GPURequest{
		WriteMLIR: out.WriteMLIR, Target: target, Entry: out.Entry.Name, NumOutputs: len(out.Entry.Outputs),
		DeviceBuffers: c.DeviceBuffers, Pipelines: stages, Emit: kind,
		MathLib: c.GPUMathLib, Fallback: c.GPUFallback,
	})
	if err != nil {
		return err
	}
	if c.Emit == "runtime" {
		rt, err := toolchain.GPURuntime(target.Vendor, toolchain.LauncherRuntimeCalls(res.LL))
		if err != nil {
			return err
		}
		return writeOutput(env, dest, []byte(rt))
	}
	var data []byte
	switch toolchain.Kind(c.Emit) {
	case toolchain.KindMLIR:
		data = []byte(res.MLIR)
	case toolchain.KindLLVMDialect:
		data = []byte(res.LLVMDialect)
	case toolchain.KindLL:
		data = []byte(res.LL)
	case toolchain.KindPTX, toolchain.KindISA, toolchain.KindHSACO:
		data = res.Kernels
	case toolchain.KindObj:
		if out.Blob != nil && c.Weights == "embed" {
			return writeEmbedded(env, dest, res.Obj, out.Entry.Name+"_weights", out.Blob)
		}
		data = res.Obj
	}
	if err := writeOutput(env, dest, data); err != nil {
		return err
	}
	// The weights blob goes beside the output (an object may embed it);
	// the kernels' outputs do not read it.
	switch c.Emit {
	case "mlir", "llvm-dialect", "ll", "obj":
		if out.Blob != nil {
			w := stem(dest) + ".weights"
			if dest == "-" {
				w = stem(c.File) + ".weights"
			}
			return writeBlob(w, out.Blob)
		}
	}
	return nil
}

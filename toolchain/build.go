package toolchain

import (
	"context"
	"fmt"
	"io"

	"golang.org/x/sync/errgroup"
)

// BuildRequest asks Build for some outputs of one MLIR module.
type BuildRequest struct {
	// MLIR is the module, normally linalg on tensors as niro emits it.
	MLIR string
	// WriteMLIR, when not nil, writes the module instead of MLIR, streamed
	// into mlir-opt's input file (see LowerFrom); emit.Output.WriteMLIR
	// has this form.
	WriteMLIR func(io.Writer) error
	// Pipeline lowers it to the llvm dialect.
	Pipeline Pipeline
	// Emit lists the outputs wanted: KindLLVMDialect, KindLL, KindObj,
	// KindAsm. Build runs only the stages they need.
	Emit []Kind
	// Blob, when not nil, is embedded into BlobObj under BlobOptions, in
	// parallel with the rest.
	Blob        []byte
	BlobOptions BlobOptions
}

// BuildResult holds the outputs Build produced; the ones not asked for are
// empty, except that the stages leading to an asked-for output fill theirs
// (an object needs LL and LLVMDialect).
type BuildResult struct {
	LLVMDialect string
	LL          string
	Obj, Asm    []byte
	BlobObj     []byte
}

// Build lowers, translates and compiles req.MLIR (or what req.WriteMLIR
// writes) as far as req.Emit needs, running the independent jobs (the
// object and the assembly, the blob object) in parallel. The first failure cancels the other jobs and is
// returned.
func (tc *Toolchain) Build(ctx context.Context, req BuildRequest) (*BuildResult, error) {
	want := make(map[Kind]bool)
	for _, k := range req.Emit {
		switch k {
		case KindLLVMDialect, KindLL, KindObj, KindAsm:
			want[k] = true
		default:
			return nil, fmt.Errorf("build: unknown output kind %q", k)
		}
	}
	res := &BuildResult{}
	g, ctx := errgroup.WithContext(ctx)
	if req.Blob != nil {
		g.Go(func() error {
			obj, err := tc.EmbedBlob(ctx, req.Blob, req.BlobOptions)
			res.BlobObj = obj
			return err
		})
	}
	if len(want) > 0 {
		g.Go(func() error { return tc.buildModule(ctx, req, want, res) })
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return res, nil
}

// buildModule runs the module's stages for Build.
func (tc *Toolchain) buildModule(ctx context.Context, req BuildRequest, want map[Kind]bool, res *BuildResult) error {
	var err error
	write := req.WriteMLIR
	if write == nil {
		write = func(w io.Writer) error {
			_, err := io.WriteString(w, req.MLIR)
			return err
		}
	}
	if res.LLVMDialect, err = tc.LowerFrom(ctx, write, req.Pipeline); err != nil {
		return err
	}
	if !want[KindLL] && !want[KindObj] && !want[KindAsm] {
		return nil
	}
	if res.LL, err = tc.Translate(ctx, res.LLVMDialect); err != nil {
		return err
	}
	if !want[KindObj] && !want[KindAsm] {
		return nil
	}
	ws, err := tc.workspace("compile")
	if err != nil {
		return err
	}
	defer ws.close()
	if err := ws.write("compile", fileLL, []byte(res.LL)); err != nil {
		return err
	}
	o := CompileOptions{OptLevel: req.Pipeline.OptLevel, Verify: req.Pipeline.Verify}
	in, err := tc.optimize(ctx, ws, o)
	if err != nil {
		return err
	}
	g, ctx := errgroup.WithContext(ctx)
	for _, k := range []Kind{KindObj, KindAsm} {
		if !want[k] {
			continue
		}
		g.Go(func() error {
			o := o
			o.Kind = k
			out, err := tc.llc(ctx, ws, in, o)
			if k == KindObj {
				res.Obj = out
			} else {
				res.Asm = out
			}
			return err
		})
	}
	return g.Wait()
}

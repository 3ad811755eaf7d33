package toolchain

import (
	"context"
	"fmt"
	"path/filepath"
)

// AddBlobSection returns obj with the file blobPath added as a read-only,
// 64-byte-aligned section .rodata.SYMBOL and a global object symbol SYMBOL
// at its first byte, using llvm-objcopy. The result is one linkable object:
// the model's code and its weights. The blob is read from its file by
// llvm-objcopy, so it never passes through niro's memory.
func (tc *Toolchain) AddBlobSection(ctx context.Context, obj []byte, blobPath, symbol string) ([]byte, error) {
	const stage = "embed"
	if !cIdentRE.MatchString(symbol) {
		return nil, fmt.Errorf("%s: blob symbol %q is not a C identifier", stage, symbol)
	}
	abs, err := filepath.Abs(blobPath)
	if err != nil {
		return nil, err
	}
	ws, err := tc.workspace(stage)
	if err != nil {
		return nil, err
	}
	defer ws.close()
	in, out := "model.o", "model-weights.o"
	if err := ws.write(stage, in, obj); err != nil {
		return nil, err
	}
	section := ".rodata." + symbol
	args := []string{
		"--add-section=" + section + "=" + abs,
		"--set-section-flags=" + section + "=alloc,readonly,data,contents",
		"--set-section-alignment=" + section + "=64",
		"--add-symbol=" + symbol + "=" + section + ":0,global,object",
		in, out,
	}
	if err := tc.run(ctx, ws, command{stage: stage, tool: LLVMObjcopy, args: args}); err != nil {
		return nil, err
	}
	return ws.read(stage, out)
}

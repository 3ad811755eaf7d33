package toolchain

import "fmt"

// GPURuntime returns the runtime's LLVM IR for vendor.
func GPURuntime(vendor GPUVendor) (string, error) {
	return "", fmt.Errorf("runtime for %s: not written", vendor)
}

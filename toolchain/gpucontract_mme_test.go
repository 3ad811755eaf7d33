package toolchain

import (
	"strings"
	"testing"
)

// TestTagGPUContractionsMMe checks that a 1×1 convolution's product
// tagged niro.mm_e (its epilogue fused on the host) gets the GPU register
// block as the same product tagged niro.contraction does.
func TestTagGPUContractionsMMe(t *testing.T) {
	line := func(tag string) string {
		return `    %3 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%0, %1 : tensor<64x32xf32>, tensor<1x32x100xf32>) outs(%2 : tensor<1x64x100xf32>) attrs =  {` + tag + `} {`
	}
	want := TagGPUContractions(line("niro.contraction"))
	if !strings.Contains(want, "niro.gpu_block") {
		t.Fatalf("the niro.contraction product is not tagged:\n%s", want)
	}
	got := TagGPUContractions(line("niro.mm_e"))
	if got != want {
		t.Errorf("the niro.mm_e product:\n%s\nwant\n%s", got, want)
	}
	if other := line("niro.conv2d_e"); TagGPUContractions(other) != other {
		t.Errorf("a convolution generic was tagged")
	}
}

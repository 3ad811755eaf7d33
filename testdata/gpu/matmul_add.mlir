// The GPU tests' module (toolchain/gpu_test.go): a tagged contraction (fill
// + contraction generic, as niro emits them) whose sum fuses with an add,
// and a rank-1 add of a constant, for two results. 5 x 18 and 7 are not
// multiples of the 8 x 32 tile, so the kernels need their bounds guards.
#zero = affine_map<(d0, d1) -> ()>
#id   = affine_map<(d0, d1) -> (d0, d1)>
#lhs  = affine_map<(d0, d1, d2) -> (d0, d2)>
#rhs  = affine_map<(d0, d1, d2) -> (d2, d1)>
#acc  = affine_map<(d0, d1, d2) -> (d0, d1)>
#v    = affine_map<(d0) -> (d0)>
func.func @mm(%a: tensor<5x3xf32>, %b: tensor<3x18xf32>, %c: tensor<5x18xf32>, %v: tensor<7xf32>) -> (tensor<5x18xf32>, tensor<7xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<5x18xf32>
  %fill = linalg.generic {indexing_maps = [#zero, #id], iterator_types = ["parallel", "parallel"]}
      ins(%cst : f32) outs(%e : tensor<5x18xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<5x18xf32>
  %p = linalg.generic {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<5x3xf32>, tensor<3x18xf32>) outs(%fill : tensor<5x18xf32>) attrs = {niro.contraction} {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<5x18xf32>
  %e2 = tensor.empty() : tensor<5x18xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %c : tensor<5x18xf32>, tensor<5x18xf32>) outs(%e2 : tensor<5x18xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<5x18xf32>
  %k = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : tensor<7xf32>
  %e3 = tensor.empty() : tensor<7xf32>
  %w = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]}
      ins(%v, %k : tensor<7xf32>, tensor<7xf32>) outs(%e3 : tensor<7xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<7xf32>
  return %sum, %w : tensor<5x18xf32>, tensor<7xf32>
}

// Not valid MLIR: the function returns a value of the wrong type.
func.func @bad(%a: tensor<4xf32>) -> tensor<4xi32> {
  return %a : tensor<4xf32>
}

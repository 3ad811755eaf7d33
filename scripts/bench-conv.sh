#!/usr/bin/env bash
# Times the convolution schedule against ONNX Runtime (one thread) in one
# run, alternating, ROUNDS times (default 3): the ResNet 3×3 convolution
# (1×64×56×56 → 64, pads 1), the scheduled matrix product of equal work
# (3136×576 by 576×64), a depthwise 3×3 (1×144×56×56, group 144) and a 1×1
# (1×64×56×56 → 256), as one-node models from scripts/genconv, on random
# inputs. Prints the median and min in µs and GFLOP/s from the min. Needs
# the LLVM/MLIR 22 tools and onnxruntime-node under $NODE_PATH.
# NIRO_BIN times a prebuilt niro instead of building one. CASES picks the models (default the four above); CASES=general times the
# 1-D, grouped and 3-D convolutions of scripts/genconv/general.go instead, CASES=epilogue the convolutions
# followed by BatchNormalization and an activation of scripts/genconv/epilogue.go, CASES=epilogue1x1
# its 1×1 ones (the register block and the product's cache blocks), CASES=general_epilogue the
# 1-D, grouped and 3-D convolutions with a bias (BatchNormalization) and Relu of scripts/genconv/general_epilogue.go
# (the pointwise 1-D and 3-D ones and the per-group grouped3x3g8 and shuffle1x1g3 among them, and the depthwise
# dwmult2_bn_relu6 with a channel multiplier, BatchNormalization and Clip), CASES=pergroup the per-group grouped
# convolutions (ShuffleNet's 3 groups of 80 and 20, 1×1, and 8 groups of 16, 3×3) alone and with BatchNormalization
# and Relu,
# CASES=depthwise MobileNetV2's depthwise 3×3 convolutions at strides 1 and 2, alone and with
# BatchNormalization and Clip or HardSwish (depthwise.go), CASES=onech the one-output-channel heads (bias and
# Sigmoid) and 16k + 1 channels (epilogue.go), CASES=pw1d3d larger 1-D and 3-D pointwise ones
# with a bias or BatchNormalization and Relu (general_epilogue.go).
# CASES=dwmisc the one-input-channel, channel-multiplier (k = 3, and
# k = 2, 3 with a channels-last result read by a 1×1) and one-output-channel (odd widths, stride 2, after a 1×1)
# forms of dwmisc.go.
# CASES=head the one-output-channel heads of kernels 1×3 and 3×1, of one input channel (Sigmoid, HardSwish) and of
# output widths 49 and 57 (8k + 1; dwmisc.go).
# CASES=rem17 one-group block remainders of 17 to 31 channels (M = 20, 24, 28, 31, 48, 52, 60, 63, 255; 3×3 and
# 1×1, 1×64×28×28 and 56×56, the bias alone and with BatchNormalization and Relu; epilogue.go), CASES=rem17s a subset,
# CASES=rem17dw depthwise 120, 88, 184 and 128 channels, CASES=rem17f64 f64 3×3 of 16 to 32 channels (and f32 ones of 24, 28, 31).
# CASES=chan16k1 block channel counts of 16k + 1 (17, 33, 49;
# 3×3, 1×1, 1-D, 3-D; epilogue.go, general_epilogue.go).
# CASES=pergroupf64 f64 per-group 3×3 ones of 2 groups of 12 and 28 (and 16; one-group f64 → 16 and → 28), the f32 ones with ONNX Runtime (epilogue.go).
# CASES=pergroup1d3d the 1-D and 3-D per-group grouped convolutions with
# BatchNormalization and Relu (4 groups of 16; general_epilogue.go).
# CASES=dw16k1 depthwise 3×3 ones of 16k + 1 channels (17, 33, 49) with BatchNormalization and Relu,
# channels-last before a 1×1, and grouped ones gathered per output channel with 16k + 1 channels (dwmisc.go).
# CASES=pergroup16k1 per-group 3×3 ones of 16k + 1 channels per group (2 and 4 groups of 17, 1×34×28×28 and
# 1×68×28×28, alone and with BatchNormalization and Relu; 4 groups of 33 with them; general.go, general_epilogue.go).
# CASES=multview chains of a 1×1, a depthwise 3×3 with a channel multiplier k ≥ 8 of at most 16 groups (k·C = 32,
# 128, 33, 65, 34) and a 1×1, the middle values channels-last (multview.go).
# CASES=head13 the 1-D and 3-D one-output-channel heads (1×64×1000 → 1, kernel 3; 1×16×8×32×32 → 1, 3×3×3;
# BatchNormalization and Relu, or a bias and Sigmoid; general_epilogue.go), CASES=headcol the 2-D ones of one
# output column (1×64×56×3 → 1, 3×3, BatchNormalization and Relu; 1×128×112×5 → 1, 3×5, bias and Sigmoid) and whose kernel
# covers the input (1×64×7×7 → 1, 7×7, Sigmoid; 1×256×14×14 → 1, 14×14, BatchNormalization and Relu).
# CASES=col1 output widths of 32k + 1 of the depthwise row form's geometries with NCHW values (depthwise 3×3
# 1×32×65×65 and 1×64×33×33, a multiplier of 2 1×16×65×65 → 32, one input channel 1×1×129×129 → 8, one input and
# one output channel 1×1×65×65, 1×1×129×129 and 1×1×257×257, 3×3 and 1×3; BatchNormalization and Relu, or Sigmoid;
# the depthwise and multiplier ones with the bias alone too; dwmisc.go). CASES=tworeads an epilogue that reads the
# convolution twice (HardSwish) on the row form (1×32×56×64 → 32, 3×3) and the depthwise row form (1×144×56×56),
# and the row form with its bias alone (dwmisc.go).
#
#   NODE_PATH=/tmp/ort/node_modules scripts/bench-conv.sh [ROUNDS] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v go >/dev/null 2>&1; then export PATH="/usr/local/go/bin:$PATH"; fi
rounds="${1:-3}" runs="${2:-50}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
if [ -n "${NIRO_BIN:-}" ]; then cp "$NIRO_BIN" "$tmp/niro"; else go build -o "$tmp/niro" .; fi
go run ./scripts/genconv -o "$tmp"
echo "cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores; $runs runs per median"
declare -A shapes=([resnet3x3]="x=1x64x56x56" [matmul]="a=3136x576 b=576x64" [depthwise3x3]="x=1x144x56x56" [pointwise1x1]="x=1x64x56x56"
  [conv1d]="x=1x64x1024" [grouped3x3g32]="x=1x128x28x28" [grouped3x3g8]="x=1x128x28x28" [shuffle1x1g3]="x=1x240x28x28"
  [dwmult2]="x=1x32x56x56" [conv3d]="x=1x16x8x28x28"
  [resnet3x3_bn_relu]="x=1x64x56x56" [resnet3x3_bn_add_relu]="x=1x64x56x56" [conv14x14_bn_relu]="x=1x256x14x14"
  [depthwise3x3_bn_relu6]="x=1x144x56x56" [pointwise1x1_bn_hardswish]="x=1x64x56x56"
  [pointwise2048x7_bn_relu]="x=1x2048x7x7" [pointwise512x28_bn_relu]="x=1x512x28x28" [pointwise1024x14_add]="x=1x1024x14x14 r=1x256x14x14"
  [pointwise256x7_bn_relu]="x=1x256x7x7" [pointwise128x28_bn_relu]="x=1x128x28x28" [pointwise512x14_f64_bn_relu]="x=1x512x14x14"
  [conv1d_bias_relu]="x=1x64x1000" [grouped3x3g32_bn_relu]="x=1x128x28x28" [conv3d_bias_relu]="x=1x16x8x28x28"
  [conv1d_pw_bias_relu]="x=1x32x1000" [conv3d_pw_bn_relu]="x=1x16x8x28x28" [grouped3x3g8_bn_relu]="x=1x128x28x28" [shuffle1x1g3_bn_relu]="x=1x240x28x28" [shuffle1x1g3m60_bn_relu]="x=1x240x28x28" [dwmult2_bn_relu6]="x=1x32x56x56"
  [head3x3_m1_sigmoid]="x=1x64x56x56" [head1x1_m1_sigmoid]="x=1x32x112x112" [head1x1_m1c64_sigmoid]="x=1x64x56x56"
  [conv28_m17_bn_relu]="x=1x64x28x28" [conv28_m33_bn_relu]="x=1x64x28x28"
  [conv1d_pw512x200_bias_relu]="x=1x512x200" [conv1d_pw384x1000_bn_relu]="x=1x384x1000" [conv3d_pw256x8x14_bn_relu]="x=1x256x8x14x14"
  [c1m32s2_bn_relu]="x=1x1x224x224" [c1m16_bn_relu]="x=1x1x56x56" [dwmult3w28_bn_relu]="x=1x16x28x28"
  [dwmult2cl_relu_pw]="x=1x32x56x56" [dwmult3cl_relu_pw]="x=1x16x28x28" [head3x3w28_m1_sigmoid]="x=1x64x28x28"
  [head3x3w14_m1_sigmoid]="x=1x128x14x14" [head1x3_m1_sigmoid]="x=1x64x56x56" [head3x1_m1_bn_relu]="x=1x64x56x56"
  [head_c1m1_sigmoid]="x=1x1x112x112" [head_c1m1_hardswish]="x=1x1x112x112" [head3x3w49_m1_sigmoid]="x=1x64x49x49" [head3x3w57_m1_bn_relu]="x=1x64x57x57" [head3x3s2_m1_sigmoid]="x=1x64x56x56" [pw_head3x3w28_m1]="x=1x16x28x28"
  [conv28_m49_bn_relu]="x=1x64x28x28" [pointwise56_m17_bn_relu]="x=1x64x56x56" [conv56_m33_bn_relu]="x=1x64x56x56" [conv1d_m17_bias_relu]="x=1x64x1000" [conv3d_m17_bias_relu]="x=1x16x8x28x28"
  [gconv1d_g4k5_bn_relu]="x=1x64x1000" [gconv3d_g4_bn_relu]="x=1x32x8x28x28"
  [pg34g2]="x=1x34x28x28" [pg68g4]="x=1x68x28x28" [pg34g2_bn_relu]="x=1x34x28x28" [pg68g4_bn_relu]="x=1x68x28x28" [pg132g4_bn_relu]="x=1x132x28x28"
  [dw33cl_bn_relu_pw]="x=1x33x56x56" [dw17cl_bn_relu_pw]="x=1x17x28x28" [dw49cl_bn_relu_pw]="x=1x49x28x28" [g17c2_bn_relu]="x=1x34x28x28" [g11c2m33_bn_relu]="x=1x22x28x28"
  [head1d_bn_relu]="x=1x64x1000" [head1d_sigmoid]="x=1x64x1000" [head3d_bn_relu]="x=1x16x8x32x32" [head3d_sigmoid]="x=1x16x8x32x32"
  [headcol_bn_relu]="x=1x64x56x3" [headcol_sigmoid]="x=1x128x112x5" [headfull_sigmoid]="x=1x64x7x7" [headfull14_bn_relu]="x=1x256x14x14"
  [dw32w65_bn_relu]="x=1x32x65x65" [dw64w33_bn_relu]="x=1x64x33x33" [dwmult2w65_bn_relu]="x=1x16x65x65" [c1m8w129_bn_relu]="x=1x1x129x129" [c1m1w65_bn_relu]="x=1x1x65x65" [c1m1w129_sigmoid]="x=1x1x129x129"
  [c1m1w129_bn_relu]="x=1x1x129x129" [c1m1w65_sigmoid]="x=1x1x65x65" [c1m1w257_bn_relu]="x=1x1x257x257" [c1m1k13w129_bn_relu]="x=1x1x127x129" [dw32w65_bias]="x=1x32x65x65" [dwmult2w65_bias]="x=1x16x65x65"
  [rows32w64_hardswish]="x=1x32x56x64" [rows32w64_bias]="x=1x32x56x64" [dw144w56_hardswish]="x=1x144x56x56")
declare -A flop=([resnet3x3]=231211008 [matmul]=231211008 [depthwise3x3]=8128512 [pointwise1x1]=102760448
  [conv1d]=41943040 [grouped3x3g32]=7225344 [grouped3x3g8]=28901376 [shuffle1x1g3]=30105600
  [dwmult2]=3612672 [conv3d]=173408256
  [resnet3x3_bn_relu]=231211008 [resnet3x3_bn_add_relu]=231211008 [conv14x14_bn_relu]=231211008
  [depthwise3x3_bn_relu6]=8128512 [pointwise1x1_bn_hardswish]=102760448
  [pointwise2048x7_bn_relu]=102760448 [pointwise512x28_bn_relu]=102760448 [pointwise1024x14_add]=102760448
  [pointwise256x7_bn_relu]=51380224 [pointwise128x28_bn_relu]=102760448 [pointwise512x14_f64_bn_relu]=51380224
  [conv1d_bias_relu]=24576000 [grouped3x3g32_bn_relu]=7225344 [conv3d_bias_relu]=173408256
  [conv1d_pw_bias_relu]=4096000 [conv3d_pw_bn_relu]=6422528 [grouped3x3g8_bn_relu]=28901376 [shuffle1x1g3_bn_relu]=30105600 [shuffle1x1g3m60_bn_relu]=7526400 [dwmult2_bn_relu6]=3612672
  [head3x3_m1_sigmoid]=3612672 [head1x1_m1_sigmoid]=802816 [head1x1_m1c64_sigmoid]=401408
  [conv28_m17_bn_relu]=15353856 [conv28_m33_bn_relu]=29804544
  [conv1d_pw512x200_bias_relu]=209715200 [conv1d_pw384x1000_bn_relu]=294912000 [conv3d_pw256x8x14_bn_relu]=411041792
  [c1m32s2_bn_relu]=7225344 [c1m16_bn_relu]=903168 [dwmult3w28_bn_relu]=677376
  [dwmult2cl_relu_pw]=29302784 [dwmult3cl_relu_pw]=4290048 [head3x3w28_m1_sigmoid]=903168
  [head3x3w14_m1_sigmoid]=451584 [head3x3s2_m1_sigmoid]=903168 [pw_head3x3w28_m1]=1254400
  [head1x3_m1_sigmoid]=1247232 [head3x1_m1_bn_relu]=1247232 [head_c1m1_sigmoid]=225792 [head_c1m1_hardswish]=225792 [head3x3w49_m1_sigmoid]=2765952 [head3x3w57_m1_bn_relu]=3742848
  [conv28_m49_bn_relu]=44255232 [pointwise56_m17_bn_relu]=6823936 [conv56_m33_bn_relu]=119218176 [conv1d_m17_bias_relu]=6528000 [conv3d_m17_bias_relu]=92123136
  [gconv1d_g4k5_bn_relu]=10240000 [gconv3d_g4_bn_relu]=173408256
  [pg34g2]=8156736 [pg68g4]=16313472 [pg34g2_bn_relu]=8156736 [pg68g4_bn_relu]=16313472 [pg132g4_bn_relu]=61471872
  [dw33cl_bn_relu_pw]=8692992 [dw17cl_bn_relu_pw]=693056 [dw49cl_bn_relu_pw]=4456256 [g17c2_bn_relu]=479808 [g11c2m33_bn_relu]=931392
  [head1d_bn_relu]=384000 [head1d_sigmoid]=384000 [head3d_bn_relu]=7077888 [head3d_sigmoid]=7077888
  [headcol_bn_relu]=62208 [headcol_sigmoid]=422400 [headfull_sigmoid]=6272 [headfull14_bn_relu]=100352
  [dw32w65_bn_relu]=2433600 [dw64w33_bn_relu]=1254528 [dwmult2w65_bn_relu]=2433600 [c1m8w129_bn_relu]=2396304 [c1m1w65_bn_relu]=76050 [c1m1w129_sigmoid]=299538
  [c1m1w129_bn_relu]=299538 [c1m1w65_sigmoid]=76050 [c1m1w257_bn_relu]=1188882 [c1m1k13w129_bn_relu]=99846 [dw32w65_bias]=2433600 [dwmult2w65_bias]=2433600
  [rows32w64_hardswish]=66060288 [rows32w64_bias]=66060288 [dw144w56_hardswish]=8128512)
cases="${CASES:-resnet3x3 matmul depthwise3x3 pointwise1x1}"
if [ "$cases" = general ]; then cases="conv1d grouped3x3g32 grouped3x3g8 shuffle1x1g3 dwmult2 conv3d"; fi
if [ "$cases" = pergroup ]; then cases="grouped3x3g8 shuffle1x1g3 grouped3x3g8_bn_relu shuffle1x1g3_bn_relu shuffle1x1g3m60_bn_relu"; fi
if [ "$cases" = general_epilogue ]; then cases="conv1d_bias_relu grouped3x3g32_bn_relu conv3d_bias_relu conv1d_pw_bias_relu conv3d_pw_bn_relu grouped3x3g8_bn_relu shuffle1x1g3_bn_relu dwmult2_bn_relu6"; fi

if [ "$cases" = depthwise ]; then
  # MobileNetV2's depthwise 3×3 (scripts/genconv/depthwise.go): dw<C>x<H>s<S>[_relu6|_hswish].
  cases=""
  for cs in 32x112 144x56 192x28 576x14 960x7; do
    for s in 1 2; do
      for t in "" _relu6 _hswish; do
        m="dw${cs}s$s$t" c="${cs%x*}" h="${cs#*x}" o=$(( (h + 2 - 3) / s + 1 ))
        cases="$cases $m" shapes[$m]="x=1x${c}x${h}x${h}" flop[$m]=$(( 18 * c * o * o ))
      done
    done
  done
fi
if [ "$cases" = rem17 ] || [ "$cases" = rem17s ]; then
  # Block remainders of 17 to 31 channels (scripts/genconv/epilogue.go):
  # rem<K>_<H>_m<M>[_bn_relu], K×K, 1×64×H×H → M; rem17s the 28×28 3×3 ones and the 1×1 of 20, 28, 255.
  set17="$cases" cases=""
  for k in 3 1; do for h in 28 56; do for m in 20 24 28 31 48 52 60 63 255; do
    if [ "$set17" = rem17s ] && { [ "$h" = 56 ] || { [ "$k" = 1 ] && [ "$m" != 20 ] && [ "$m" != 28 ] && [ "$m" != 255 ]; }; }; then continue; fi
    for t in "" _bn_relu; do
      n="rem${k}_${h}_m$m$t"
      cases="$cases $n" shapes[$n]="x=1x64x${h}x${h}" flop[$n]=$(( 2 * m * 64 * k * k * h * h ))
    done
  done; done; done
fi
if [ "$cases" = rem17dw ]; then
  # Depthwise channel counts of 32k + 24 and 128 to compare (depthwise.go).
  cases=""
  for cs in 120x28 88x28 184x14 128x28; do
    for t in "" _relu6; do
      m="dw${cs}s1$t" c="${cs%x*}" h="${cs#*x}"
      cases="$cases $m" shapes[$m]="x=1x${c}x${h}x${h}" flop[$m]=$(( 18 * c * h * h ))
    done
  done
fi
if [ "$cases" = rem17f64 ]; then
  # f64's 16-channel block: remainders of 9 to 15 (epilogue.go; no ONNX Runtime f64 Conv), against M = 16
  # and 32 per output channel, and the f32 convolutions of 24, 28 and 31 channels with ONNX Runtime.
  cases=""
  for m in 16 24 25 28 31 32; do
    n="rem3_28_m${m}_f64" cases="$cases $n" shapes[$n]="x=1x64x28x28" flop[$n]=$(( 2 * m * 64 * 9 * 28 * 28 ))
  done
  for m in 24 28 31; do
    n="rem3_28_m$m" cases="$cases $n" shapes[$n]="x=1x64x28x28" flop[$n]=$(( 2 * m * 64 * 9 * 28 * 28 ))
  done
fi
if [ "$cases" = pergroupf64 ]; then
  # f64 per-group blocks (epilogue.go; no ONNX Runtime f64 Conv): 2 groups of 12 and of 28, 3×3, alone and
  # with BatchNormalization and Relu, against 2 groups of 16 per output channel, and the f32 ones with ONNX Runtime;
  # the one-group f64 1×64×28×28 → 16 and → 28 (the work of 2 groups of 16 and of 28 at 1×64×28×28).
  cases=""
  for n in pg24g2_f64 pg24g2_f64_bn_relu pg32g2_f64 pg24g2; do
    m="${n#pg}" m="${m%%g2*}" cases="$cases $n" shapes[$n]="x=1x${m}x28x28" flop[$n]=$(( 2 * m * m / 2 * 9 * 28 * 28 ))
  done
  for n in pg64m56g2_f64 pg64m56g2_f64_bn_relu pg64m32g2_f64 pg64m56g2; do
    m="${n#pg64m}" m="${m%%g2*}" cases="$cases $n" shapes[$n]="x=1x64x28x28" flop[$n]=$(( 2 * m * 32 * 9 * 28 * 28 ))
  done
  for m in 16 28; do
    n="rem3_28_m${m}_f64" cases="$cases $n" shapes[$n]="x=1x64x28x28" flop[$n]=$(( 2 * m * 64 * 9 * 28 * 28 ))
  done
fi
if [ "$cases" = epilogue ]; then cases="resnet3x3_bn_relu resnet3x3_bn_add_relu conv14x14_bn_relu depthwise3x3_bn_relu6 pointwise1x1_bn_hardswish"; fi
if [ "$cases" = pergroup1d3d ]; then cases="gconv1d_g4k5_bn_relu gconv3d_g4_bn_relu"; fi
if [ "$cases" = pw1d3d ]; then cases="conv1d_pw512x200_bias_relu conv1d_pw384x1000_bn_relu conv3d_pw256x8x14_bn_relu"; fi
if [ "$cases" = dwmisc ]; then cases="c1m32s2_bn_relu c1m16_bn_relu dwmult3w28_bn_relu dwmult2cl_relu_pw dwmult3cl_relu_pw head3x3w28_m1_sigmoid head3x3w14_m1_sigmoid head3x3s2_m1_sigmoid pw_head3x3w28_m1"; fi
if [ "$cases" = head ]; then cases="head1x3_m1_sigmoid head3x1_m1_bn_relu head_c1m1_sigmoid head_c1m1_hardswish head3x3w49_m1_sigmoid head3x3w57_m1_bn_relu"; fi
if [ "$cases" = onech ]; then cases="head3x3_m1_sigmoid head1x1_m1_sigmoid head1x1_m1c64_sigmoid conv28_m17_bn_relu conv28_m33_bn_relu"; fi
if [ "$cases" = chan16k1 ]; then cases="conv28_m17_bn_relu conv28_m33_bn_relu conv28_m49_bn_relu conv56_m33_bn_relu pointwise56_m17_bn_relu conv1d_m17_bias_relu conv3d_m17_bias_relu"; fi
if [ "$cases" = pergroup16k1 ]; then cases="pg34g2 pg68g4 pg34g2_bn_relu pg68g4_bn_relu pg132g4_bn_relu"; fi
if [ "$cases" = head13 ]; then cases="head1d_bn_relu head1d_sigmoid head3d_bn_relu head3d_sigmoid"; fi
if [ "$cases" = headcol ]; then cases="headcol_bn_relu headcol_sigmoid headfull_sigmoid headfull14_bn_relu"; fi
if [ "$cases" = col1 ]; then cases="dw32w65_bn_relu dw64w33_bn_relu dwmult2w65_bn_relu c1m8w129_bn_relu c1m1w65_bn_relu c1m1w65_sigmoid c1m1w129_bn_relu c1m1w129_sigmoid c1m1w257_bn_relu c1m1k13w129_bn_relu dw32w65_bias dwmult2w65_bias"; fi
if [ "$cases" = tworeads ]; then cases="rows32w64_hardswish rows32w64_bias dw144w56_hardswish"; fi
if [ "$cases" = dw16k1 ]; then cases="dw33cl_bn_relu_pw dw17cl_bn_relu_pw dw49cl_bn_relu_pw g17c2_bn_relu g11c2m33_bn_relu"; fi
if [ "$cases" = multview ]; then
  # Conv 1×1 → depthwise 3×3 with a channel multiplier k → Conv 1×1, the middle values channels-last
  # (scripts/genconv/multview.go): mv_c<C>k<K>_<H>.
  cases=""
  for ckh in 4x8x56 2x16x56 16x8x28 3x11x56 5x13x28 2x17x56; do
    c="${ckh%%x*}" r="${ckh#*x}" k="${r%x*}" h="${r#*x}" m=$(( c * k ))
    n="mv_c${c}k${k}_$h" cases="$cases $n" shapes[$n]="x=1x${c}x${h}x${h}" flop[$n]=$(( (2 * c * c + 18 * m + 2 * m * m) * h * h ))
  done
fi
if [ "$cases" = epilogue1x1 ]; then cases="pointwise1x1_bn_hardswish pointwise2048x7_bn_relu pointwise512x28_bn_relu pointwise1024x14_add pointwise256x7_bn_relu pointwise128x28_bn_relu pointwise512x14_f64_bn_relu"; fi
gflops() { python3 -c "import json,sys; d=json.loads(sys.argv[1]); print(f\"{d['median_us']:.0f} us median, {d['min_us']:.0f} us min, {float(sys.argv[2])/d['min_us']/1e3:.1f} GFLOP/s\")" "$1" "$2"; }
for _ in $(seq "$rounds"); do
  for m in $cases; do
    echo "$m niro $(gflops "$("$tmp/niro" bench "$tmp/$m.onnx" --runs "$runs" --json)" "${flop[$m]}")"
    if o="$(node scripts/ort-bench.mjs "$tmp/$m.onnx" "$runs" ${shapes[$m]} 2>/dev/null)"; then
      echo "$m ort  $(gflops "$o" "${flop[$m]}")"
    else
      echo "$m ort  (ONNX Runtime did not run it)" # the f64 Conv: its CPU provider has no double kernel
    fi
  done
done

// The convolution schedule: a transform-dialect library of its own ("conv"
// in passes.txt, entry point @niro_conv), run before the contraction
// schedule, over every static linalg.generic carrying the unit attribute
// `niro.conv2d`: a 2-D convolution as emit writes it channels-last (see
// emit/conv_nhwc.go), with loops (n, oh, ow, m, c, kh, kw), the input
// gathered and padded in NHWC (or once per kernel column, for a column
// stride above 1), the filter in [C, KH, KW, M] and the accumulator in
// NHWC. Each such op is
//
//   1. tiled into register blocks: one output row, OW_T = 8 output
//      columns by M_T output channels (32 for f32, 16 for f64: 8 columns
//      of two or four 64-byte vectors, 16 or 8 registers of accumulator),
//      the channel loop inside the column loop;
//   2. peeled: an output width or channel count the block does not divide
//      gets one smaller block of its own (static after canonicalization);
//   3. tiled by 1 along c, kh and kw, in that order (c outermost), so that
//      every output element of the block adds its terms in the order of
//      docs/ops.md: c ascending, within it kh, within it kw;
//   4. rid of the unit loops of each step (fold_unit_extent_dims), which
//      leaves an element-wise generic acc[ow, m] += x[ow] · w[m], and
//      vectorized: per step one vector of the filter row, one broadcast
//      input element per output column, a vector multiply and a vector add
//      for each (arith.mulf then arith.addf, two roundings; no
//      vector.contract, whose lowerings emit vector.fma);
//   5. given its accumulator in registers: the block's read and write of
//      the result are hoisted out of the kw, kh and c loops;
//   6. (2-D convolutions) the kw loop is unrolled by 3, whole for 3-wide
//      kernels, a remainder loop otherwise; the steps keep their order.
//
// A block channel count of 16k + 1 leaves a peeled block of one channel
// (32k + 1 for the 32-channel block; emit tags a 4-byte accumulator's
// 32k + 17 channels niro.conv2d16, the 16-channel block, which leaves one
// rather than a block of 17; 32k + 18 to 32k + 31 as well, whose 18- to
// 31-lane remainder LLVM 22 lowers badly; an 8-byte accumulator's 16k + 9
// to 16k + 15 channels niro.conv2d8, the 8-channel block (@conv_mark_c8,
// @conv_tile_c8; fused roots niro.epi_<nhwc|nchw|c1d|c3d>8; per group
// niro.conv2dg8, @conv_mark8_8, @conv_tile8_8, fused roots
// niro.epi_<gnchw|gnhwc|gn1d|gn3d>8), which leaves 1
// to 7 rather than a 9- to 15-lane f64 remainder, as slow): it takes steps 3 to 5 in its own order
// (@conv_steps1, before every other block's steps), since folding and
// canonicalization together, and the transfer patterns together on its
// permuted accumulator write, do not terminate in MLIR 22; its step is a
// vector along the block's output columns (X gathered, the filter element
// broadcast). The row form's one-channel remainder block, folded to rank 4
// (ow, c, kh, kw), takes @conv_steps_rows4; the depthwise block's
// (niro.dwconv2d, a depthwise convolution of 16k + 1 channels),
// @conv_steps_dw1; the per-group rank-8 block's (niro.conv2dg, 16k + 1
// channels per group), @conv_steps8_1.
//
// Generics tagged `niro.conv2d_rows` (the row form, emit/conv_rows.go:
// loops n, m, oh, ow, c, kh, kw, the result NCHW) take the same steps with
// blocks of 16 output channels by 16 output columns (8 for f64), vectors
// along the output row; see @conv_rows_fold and @conv_finish_rows for the
// two places where it departs from the sequence above.
//
// Before step 1, the epilogue (@conv_epi_tiles): emit tags the
// element-wise ops after a convolution (emit/conv_epilogue.go); their root
// is tiled with the convolution's block, the convolution, its fill and the
// ops are fused into that tile loop, and the fused convolution tiles take
// steps 3 to 6 as blocks (@conv_epi_blocks), so the epilogue runs on the
// block's accumulator before its store. A 1×1 convolution's product with
// a fused epilogue (tagged niro.mm_e, emit/conv_nhwc.go) is fused the same
// way through its tensor.expand_shape (@conv_epi_mm32) and takes the
// contraction schedule's block steps instead (@conv_epi_mm_blocks); past
// the register block's bounds (and for f64 and f16) the root is tiled by
// a cache block of the product instead (@conv_epi_mmk_tiles: 256 output
// channels × whole output rows), whose product tile the contraction
// schedule blocks (KC, MC, packed panels) inside the tile loop, and whose
// epilogue @conv_epi_mmk_vec tiles into vectors on the cached tile. The
// 1-D and 3-D blocks of emit/conv_general.go are fused through the
// read-back's rank-reducing slice (@conv_epi_c1d32, @conv_epi_slice_fuse)
// or expand_shape (@conv_epi_c3d32), its grouped 2-D ones as the
// channels-last form's; a 1-D or 3-D pointwise one is emitted as the
// NC… product (emit/conv_pw1d3d.go, roots niro.epi_mmk1d and
// niro.epi_mmk3d) and takes the cache block (@conv_epi_mmk_pw_tiles,
// @conv_epi_mmk1d_inner, @conv_epi_mmk3d_inner). A per-group
// grouped convolution is one rank-8 generic (niro.conv2dg: loops g, n,
// oh, ow, m, c, kh, kw; @conv_match8_f32, @conv_tile8_32, @conv_steps8:
// the rank-7 steps with a leading group tile of 1); a 2-D one's epilogue
// is emitted in the split view of the result (loops n, g, m, oh, ow or
// n, oh, ow, g, m; emit/conv_pergroup_epi.go), whose root
// (niro.epi_gnchw<bits>, niro.epi_gnhwc<bits>) is tiled by one group's
// block and fused as the channels-last form's (@conv_epi_gnchw32); a 1-D
// one's (niro.epi_gn1d<bits>) through the read-back's rank-reducing slice
// (@conv_epi_gn1d32), a 3-D one's (niro.epi_gn3d<bits>) through its
// expand_shape (@conv_epi_gn3d32).
//
// Exactness: the schedule only reorders whole output elements and keeps
// each element's sum in the naive loop nest's order, from the fill's zero,
// each product and each sum rounded on its own. The result has the bits of
// the naive nest (tested by TestE2EConvExact against host-O0 and a Go loop).
//
// The library's sequences are named conv_* so that they cannot clash with
// the contraction library's (both are preloaded into one interpreter).
module attributes {transform.with_named_sequence} {

  transform.named_sequence @conv_peel(%loops: !transform.op<"scf.for"> {transform.consumed}) {
    %main, %rest = transform.loop.peel %loops : (!transform.op<"scf.for">) -> (!transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.yield
  }

  // Unrolls a kernel-column loop by 3 (whole for the common 3-wide
  // kernels; the steps keep their order).
  transform.named_sequence @conv_unroll3(%loop: !transform.op<"scf.for"> {transform.consumed}) {
    transform.loop.unroll %loop {factor = 3} : !transform.op<"scf.for">
    transform.yield
  }

  // A static 2-D convolution block with 32-bit or 64-bit accumulator.
  transform.named_sequence @conv_match_f32(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c7 = transform.param.constant 7 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c7 : !transform.param<i64>
      transform.match.structured.dim %s[0, 1, 2, 3] {parallel} : !transform.any_op
      transform.match.structured.dim %s[4, 5, 6] {reduction} : !transform.any_op
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %bw = transform.match.structured.elemental_bitwidth %init : (!transform.any_value) -> !transform.param<i64>
      %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %bw, %c32 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_match_f64(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c7 = transform.param.constant 7 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c7 : !transform.param<i64>
      transform.match.structured.dim %s[0, 1, 2, 3] {parallel} : !transform.any_op
      transform.match.structured.dim %s[4, 5, 6] {reduction} : !transform.any_op
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %bw = transform.match.structured.elemental_bitwidth %init : (!transform.any_value) -> !transform.param<i64>
      %c64 = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %bw, %c64 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_mark32(%op: !transform.any_op {transform.readonly}) {
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %op "niro.conv_block32" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @conv_mark16(%op: !transform.any_op {transform.readonly}) {
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %op "niro.conv_block16" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }
  // An 8-byte accumulator's block of 16k + 9 to 16k + 15 channels
  // (niro.conv2d8, emit/conv.go: convBlockTag, chanBlock8): the block of 8
  // channels, whose remainder block of 1 to 7 lanes LLVM 22 lowers well.
  transform.named_sequence @conv_mark_c8(%op: !transform.any_op {transform.readonly}) {
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %op "niro.conv_block8" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }

  // Steps 1 and 2 for one block width.
  transform.named_sequence @conv_tile32(%ops: !transform.any_op {transform.consumed}) {
    %blk, %ln, %loh, %low, %lm = transform.structured.tile_using_for %ops tile_sizes [1, 1, 8, 32, 0, 0, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_tile16(%ops: !transform.any_op {transform.consumed}) {
    %blk, %ln, %loh, %low, %lm = transform.structured.tile_using_for %ops tile_sizes [1, 1, 8, 16, 0, 0, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_tile_c8(%ops: !transform.any_op {transform.consumed}) {
    %blk, %ln, %loh, %low, %lm = transform.structured.tile_using_for %ops tile_sizes [1, 1, 8, 8, 0, 0, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }

  // The row form's blocks lose their unit loops (n, oh) right after tiling,
  // on the tile loops that hold only them: folding a 7-D block, whose
  // accumulator slice 1 x 8 x 1 x 32 has a unit dimension inside, does not
  // terminate in MLIR 22. The rank-5 generics (m, ow, c, kh, kw) left are
  // tagged niro.rows_step (folding drops the tag).
  transform.named_sequence @conv_rows_fold(%ln: !transform.op<"scf.for"> {transform.readonly}) {
    transform.apply_patterns to %ln {
      transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices
      transform.apply_patterns.canonicalization
    } : !transform.op<"scf.for">
    transform.foreach %ln : !transform.op<"scf.for"> {
    ^bb0(%l: !transform.op<"scf.for">):
      %g = transform.structured.match ops{["linalg.generic"]} in %l : (!transform.op<"scf.for">) -> !transform.any_op
      %u = transform.param.constant unit -> !transform.any_param
      transform.annotate %g "niro.rows_step" = %u : !transform.any_op, !transform.any_param
    }
    transform.yield
  }
  // Steps 1 and 2 for the row form (loops n, m, oh, ow; emit/conv_rows.go):
  // blocks of 8 output channels by 32 (f32) or 16 (f64) output columns,
  // the loops nested n, oh, m, ow (interchange), so that the input rows of
  // one output row are reused by every channel block.
  transform.named_sequence @conv_tile_rows32(%ops: !transform.any_op {transform.consumed}) {
    %blk, %ln, %loh, %lm, %low = transform.structured.tile_using_for %ops tile_sizes [1, 16, 1, 16, 0, 0, 0] interchange = [0, 2, 1, 3]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_rows_fold failures(propagate) (%ln) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_tile_rows16(%ops: !transform.any_op {transform.consumed}) {
    %blk, %ln, %loh, %lm, %low = transform.structured.tile_using_for %ops tile_sizes [1, 16, 1, 8, 0, 0, 0] interchange = [0, 2, 1, 3]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_rows_fold failures(propagate) (%ln) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_mark_rows32(%op: !transform.any_op {transform.readonly}) {
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %op "niro.rows_block32" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @conv_mark_rows16(%op: !transform.any_op {transform.readonly}) {
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %op "niro.rows_block16" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }

  // Steps 3 and 4 for one block of the row form (rank 5 after
  // @conv_rows_fold: m, ow, c, kh, kw): the step loops, tagged for the
  // later phases, and the vectorized step.
  transform.named_sequence @conv_steps_rows(%b5: !transform.any_op {transform.consumed}) {
    %step, %lc, %lkh, %lkw = transform.structured.tile_using_for %b5 tile_sizes [0, 0, 1, 1, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.apply_patterns to %lkw {
      transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices
      transform.apply_patterns.canonicalization
    } : !transform.op<"scf.for">
    %inner = transform.structured.match ops{["linalg.generic"]} in %lkw : (!transform.op<"scf.for">) -> !transform.any_op
    transform.structured.vectorize %inner : !transform.any_op
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %lc "niro.rows_lc" = %u : !transform.op<"scf.for">, !transform.any_param
    transform.annotate %lkh "niro.rows_lkh" = %u : !transform.op<"scf.for">, !transform.any_param
    transform.annotate %lkw "niro.rows_lkw" = %u : !transform.op<"scf.for">, !transform.any_param
    transform.yield
  }
  // The same for a block of one output channel (the row form of M = 1
  // without a fused epilogue, emit/conv_rows.go, and the one-channel
  // remainder block of 16k + 1 channels): folding drops its unit m loop
  // too, which leaves rank 4 (ow, c, kh, kw); its vector runs along the
  // output row as the others' do. @conv_mark_rows4
  // tags those blocks niro.rows_step4, for @conv_steps_rows4.
  transform.named_sequence @conv_match_rows4(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c4 = transform.param.constant 4 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c4 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_match_rows5(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c5 = transform.param.constant 5 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c5 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_mark_rows4(%op: !transform.any_op {transform.readonly}) {
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %op "niro.rows_step4" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @conv_mark_rows5(%op: !transform.any_op {transform.readonly}) {
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %op "niro.rows_step5" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }
  // A block of one output channel whose kernel has a side of 1 (1 × KW or
  // KH × 1, emit/conv_rows.go): folding drops that kernel loop and keeps
  // the unit channel loop (m, ow, c, k: two parallel loops, then two
  // reductions). Its kernel loop is tagged as the kernel-column loop
  // (niro.rows_lkw: hoisted and unrolled by @conv_finish_rows).
  transform.named_sequence @conv_match_rows4p(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c4 = transform.param.constant 4 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c4 : !transform.param<i64>
      transform.match.structured.dim %s[0, 1] {parallel} : !transform.any_op
      transform.match.structured.dim %s[2, 3] {reduction} : !transform.any_op
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_mark_rows4p(%op: !transform.any_op {transform.readonly}) {
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %op "niro.rows_step4p" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @conv_steps_rows4p(%b4: !transform.any_op {transform.consumed}) {
    %step, %lc, %lk = transform.structured.tile_using_for %b4 tile_sizes [0, 0, 1, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.apply_patterns to %lk {
      transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices
      transform.apply_patterns.canonicalization
    } : !transform.op<"scf.for">
    %inner = transform.structured.match ops{["linalg.generic"]} in %lk : (!transform.op<"scf.for">) -> !transform.any_op
    transform.structured.vectorize %inner : !transform.any_op
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %lc "niro.rows_lc" = %u : !transform.op<"scf.for">, !transform.any_param
    transform.annotate %lk "niro.rows_lkw" = %u : !transform.op<"scf.for">, !transform.any_param
    transform.yield
  }
  transform.named_sequence @conv_steps_rows4(%b4: !transform.any_op {transform.consumed}) {
    %step, %lc, %lkh, %lkw = transform.structured.tile_using_for %b4 tile_sizes [0, 1, 1, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.apply_patterns to %lkw {
      transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices
      transform.apply_patterns.canonicalization
    } : !transform.op<"scf.for">
    %inner = transform.structured.match ops{["linalg.generic"]} in %lkw : (!transform.op<"scf.for">) -> !transform.any_op
    transform.structured.vectorize %inner : !transform.any_op
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %lc "niro.rows_lc" = %u : !transform.op<"scf.for">, !transform.any_param
    transform.annotate %lkh "niro.rows_lkh" = %u : !transform.op<"scf.for">, !transform.any_param
    transform.annotate %lkw "niro.rows_lkw" = %u : !transform.op<"scf.for">, !transform.any_param
    transform.yield
  }
  transform.named_sequence @conv_hoist(%l: !transform.op<"scf.for"> {transform.readonly}) {
    transform.loop.hoist_loop_invariant_subsets %l : !transform.op<"scf.for">
    transform.yield
  }
  // Steps 5 and 6 for every block of the row form at once (applied again
  // to blocks already hoisted, the transfer patterns do not terminate in
  // MLIR 22).
  transform.named_sequence @conv_finish_rows(%root: !transform.any_op {transform.readonly}) {
    transform.apply_patterns to %root {
      transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
      transform.apply_patterns.vector.transfer_permutation_patterns
    } : !transform.any_op
    %kw = transform.structured.match ops{["scf.for"]} attributes {niro.rows_lkw} in %root : (!transform.any_op) -> !transform.op<"scf.for">
    transform.foreach %kw : !transform.op<"scf.for"> {
    ^bb0(%l: !transform.op<"scf.for">):
      transform.include @conv_hoist failures(propagate) (%l) : (!transform.op<"scf.for">) -> ()
    }
    %kh = transform.structured.match ops{["scf.for"]} attributes {niro.rows_lkh} in %root : (!transform.any_op) -> !transform.op<"scf.for">
    transform.foreach %kh : !transform.op<"scf.for"> {
    ^bb0(%l: !transform.op<"scf.for">):
      transform.include @conv_hoist failures(propagate) (%l) : (!transform.op<"scf.for">) -> ()
    }
    %c = transform.structured.match ops{["scf.for"]} attributes {niro.rows_lc} in %root : (!transform.any_op) -> !transform.op<"scf.for">
    transform.foreach %c : !transform.op<"scf.for"> {
    ^bb0(%l: !transform.op<"scf.for">):
      transform.include @conv_hoist failures(propagate) (%l) : (!transform.op<"scf.for">) -> ()
    }
    %kw2 = transform.structured.match ops{["scf.for"]} attributes {niro.rows_lkw} in %root : (!transform.any_op) -> !transform.op<"scf.for">
    transform.foreach %kw2 : !transform.op<"scf.for"> {
    ^bb0(%l: !transform.op<"scf.for">):
      transform.include @conv_unroll3 failures(suppress) (%l) : (!transform.op<"scf.for">) -> ()
    }
    transform.yield
  }

  // Steps 3 to 5 for one block.
  transform.named_sequence @conv_steps(%block: !transform.any_op {transform.consumed}) {
    %step, %lc, %lkh, %lkw = transform.structured.tile_using_for %block tile_sizes [0, 0, 0, 0, 1, 1, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.apply_patterns to %lkw {
      transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices
      transform.apply_patterns.canonicalization
    } : !transform.op<"scf.for">
    %inner = transform.structured.match ops{["linalg.generic"]} in %lkw : (!transform.op<"scf.for">) -> !transform.any_op
    transform.structured.vectorize %inner : !transform.any_op
    %f = transform.get_parent_op %lc {op_name = "func.func"} : (!transform.op<"scf.for">) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
      transform.apply_patterns.vector.transfer_permutation_patterns
    } : !transform.any_op
    transform.loop.hoist_loop_invariant_subsets %lkw : !transform.op<"scf.for">
    transform.loop.hoist_loop_invariant_subsets %lkh : !transform.op<"scf.for">
    transform.loop.hoist_loop_invariant_subsets %lc : !transform.op<"scf.for">
    transform.include @conv_unroll3 failures(suppress) (%lkw) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }


  // A one-channel block (a block channel count of 16k + 1 leaves one
  // after the 16- or 32-channel blocks): steps 3 to 5 in another order.
  // Folded as the others, its step is acc[ow] += x[ow] · w, a vector
  // along the block's 8 output columns (x gathered, w broadcast); but
  // folding and canonicalization applied together, and the transfer
  // patterns applied together (fold_tensor_subset_ops_into_vector_
  // transfers, cast_away_vector_leading_one_dim,
  // transfer_permutation_patterns) to the permuted transfer_write of that
  // vector into the block's 1 × 1 × 8 × 1 accumulator slice, do not
  // terminate in MLIR 22. So the folding and canonicalization run one
  // after the other, the subset folding alone gives the step transfers
  // on the loop-carried accumulator, the accumulator is hoisted out of
  // kw, kh and c, and the permuted transfers left are lowered
  // (transfer_permutation_patterns alone, then the unit transposes to
  // shape casts: a vector<8x1> write, which the patterns together leave
  // as it is) before any later block's steps apply them together.
  transform.named_sequence @conv_match_block1(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c7 = transform.param.constant 7 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c7 : !transform.param<i64>
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %d = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d, %c1 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_mark_block1(%op: !transform.any_op {transform.readonly}) {
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %op "niro.conv_block1" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @conv_steps1(%block: !transform.any_op {transform.consumed}) {
    %step, %lc, %lkh, %lkw = transform.structured.tile_using_for %block tile_sizes [0, 0, 0, 0, 1, 1, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.apply_patterns to %lkw {
      transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices
    } : !transform.op<"scf.for">
    transform.apply_patterns to %lkw {
      transform.apply_patterns.canonicalization
    } : !transform.op<"scf.for">
    %inner = transform.structured.match ops{["linalg.generic"]} in %lkw : (!transform.op<"scf.for">) -> !transform.any_op
    transform.structured.vectorize %inner : !transform.any_op
    %f = transform.get_parent_op %lc {op_name = "func.func"} : (!transform.op<"scf.for">) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers
    } : !transform.any_op
    %outer = transform.get_parent_op %lc : (!transform.op<"scf.for">) -> !transform.any_op
    transform.loop.hoist_loop_invariant_subsets %lkw : !transform.op<"scf.for">
    transform.loop.hoist_loop_invariant_subsets %lkh : !transform.op<"scf.for">
    transform.loop.hoist_loop_invariant_subsets %lc : !transform.op<"scf.for">
    transform.apply_patterns to %outer {
      transform.apply_patterns.vector.transfer_permutation_patterns
    } : !transform.any_op
    transform.apply_patterns to %outer {
      transform.apply_patterns.vector.lower_transpose
    } : !transform.any_op
    transform.include @conv_unroll3 failures(suppress) (%lkw) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  // The per-group block of a grouped convolution (emit/conv_general.go,
  // convPerGroup, tag niro.conv2dg: loops g, n, oh, ow, m, c, kh, kw, one
  // generic for all groups): the steps of the rank-7 block with a leading
  // group tile of 1 (register block 1 × 1 × 1 × 8 × 32|16, steps c, kh,
  // kw by 1, peeled, hoisted, kw unrolled by 3).
  transform.named_sequence @conv_match8_f32(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c8 = transform.param.constant 8 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c8 : !transform.param<i64>
      transform.match.structured.dim %s[0, 1, 2, 3, 4] {parallel} : !transform.any_op
      transform.match.structured.dim %s[5, 6, 7] {reduction} : !transform.any_op
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %bw = transform.match.structured.elemental_bitwidth %init : (!transform.any_value) -> !transform.param<i64>
      %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %bw, %c32 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_match8_f64(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c8 = transform.param.constant 8 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c8 : !transform.param<i64>
      transform.match.structured.dim %s[0, 1, 2, 3, 4] {parallel} : !transform.any_op
      transform.match.structured.dim %s[5, 6, 7] {reduction} : !transform.any_op
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %bw = transform.match.structured.elemental_bitwidth %init : (!transform.any_value) -> !transform.param<i64>
      %c64 = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %bw, %c64 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_mark8_32(%op: !transform.any_op {transform.readonly}) {
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %op "niro.conv8_block32" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @conv_mark8_16(%op: !transform.any_op {transform.readonly}) {
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %op "niro.conv8_block16" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }
  // An 8-byte accumulator's per-group block of 16k + 9 to 16k + 15
  // channels (niro.conv2dg8, emit/conv_general.go: perGroupTag,
  // perGroupBlock8): the block of 8 channels, as @conv_mark_c8.
  transform.named_sequence @conv_mark8_8(%op: !transform.any_op {transform.readonly}) {
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %op "niro.conv8_block8" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @conv_tile8_32(%ops: !transform.any_op {transform.consumed}) {
    %blk, %lg, %ln, %loh, %low, %lm = transform.structured.tile_using_for %ops tile_sizes [1, 1, 1, 8, 32, 0, 0, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_tile8_16(%ops: !transform.any_op {transform.consumed}) {
    %blk, %lg, %ln, %loh, %low, %lm = transform.structured.tile_using_for %ops tile_sizes [1, 1, 1, 8, 16, 0, 0, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_tile8_8(%ops: !transform.any_op {transform.consumed}) {
    %blk, %lg, %ln, %loh, %low, %lm = transform.structured.tile_using_for %ops tile_sizes [1, 1, 1, 8, 8, 0, 0, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_steps8(%block: !transform.any_op {transform.consumed}) {
    %step, %lc, %lkh, %lkw = transform.structured.tile_using_for %block tile_sizes [0, 0, 0, 0, 0, 1, 1, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.apply_patterns to %lkw {
      transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices
      transform.apply_patterns.canonicalization
    } : !transform.op<"scf.for">
    %inner = transform.structured.match ops{["linalg.generic"]} in %lkw : (!transform.op<"scf.for">) -> !transform.any_op
    transform.structured.vectorize %inner : !transform.any_op
    %f = transform.get_parent_op %lc {op_name = "func.func"} : (!transform.op<"scf.for">) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
      transform.apply_patterns.vector.transfer_permutation_patterns
    } : !transform.any_op
    transform.loop.hoist_loop_invariant_subsets %lkw : !transform.op<"scf.for">
    transform.loop.hoist_loop_invariant_subsets %lkh : !transform.op<"scf.for">
    transform.loop.hoist_loop_invariant_subsets %lc : !transform.op<"scf.for">
    transform.include @conv_unroll3 failures(suppress) (%lkw) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }

  // The per-group block's one-channel remainder (16k + 1 channels per
  // group after the 32- or 16-channel blocks, emit/conv_general.go, with
  // or without a fused epilogue: the rank-8 block 1 × 1 × 1 × ≤ 8 × 1, g, n,
  // oh, ow, m): @conv_steps1's order with the rank-8 step tile. Folded, its
  // step is the one-group block's, acc[ow] += x[ow] · w, a vector along
  // the block's output columns; @conv_steps8's folding and canonicalization
  // together, and its transfer patterns together, do not terminate on it
  // in MLIR 22, as on the rank-7 one-channel block.
  transform.named_sequence @conv_match8_block1(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c8 = transform.param.constant 8 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c8 : !transform.param<i64>
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %d = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d, %c1 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_mark8_block1(%op: !transform.any_op {transform.readonly}) {
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %op "niro.conv8_block1" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @conv_steps8_1(%block: !transform.any_op {transform.consumed}) {
    %step, %lc, %lkh, %lkw = transform.structured.tile_using_for %block tile_sizes [0, 0, 0, 0, 0, 1, 1, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.apply_patterns to %lkw {
      transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices
    } : !transform.op<"scf.for">
    transform.apply_patterns to %lkw {
      transform.apply_patterns.canonicalization
    } : !transform.op<"scf.for">
    %inner = transform.structured.match ops{["linalg.generic"]} in %lkw : (!transform.op<"scf.for">) -> !transform.any_op
    transform.structured.vectorize %inner : !transform.any_op
    %f = transform.get_parent_op %lc {op_name = "func.func"} : (!transform.op<"scf.for">) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers
    } : !transform.any_op
    %outer = transform.get_parent_op %lc : (!transform.op<"scf.for">) -> !transform.any_op
    transform.loop.hoist_loop_invariant_subsets %lkw : !transform.op<"scf.for">
    transform.loop.hoist_loop_invariant_subsets %lkh : !transform.op<"scf.for">
    transform.loop.hoist_loop_invariant_subsets %lc : !transform.op<"scf.for">
    transform.apply_patterns to %outer {
      transform.apply_patterns.vector.transfer_permutation_patterns
    } : !transform.any_op
    transform.apply_patterns to %outer {
      transform.apply_patterns.vector.lower_transpose
    } : !transform.any_op
    transform.include @conv_unroll3 failures(suppress) (%lkw) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }

  // A static depthwise 2-D convolution (loops n, oh, ow, c, kh, kw).
  transform.named_sequence @conv_match_dw_f32(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c6 = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c6 : !transform.param<i64>
      transform.match.structured.dim %s[0, 1, 2, 3] {parallel} : !transform.any_op
      transform.match.structured.dim %s[4, 5] {reduction} : !transform.any_op
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %bw = transform.match.structured.elemental_bitwidth %init : (!transform.any_value) -> !transform.param<i64>
      %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %bw, %c32 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_match_dw_f64(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c6 = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c6 : !transform.param<i64>
      transform.match.structured.dim %s[0, 1, 2, 3] {parallel} : !transform.any_op
      transform.match.structured.dim %s[4, 5] {reduction} : !transform.any_op
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %bw = transform.match.structured.elemental_bitwidth %init : (!transform.any_value) -> !transform.param<i64>
      %c64 = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %bw, %c64 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_mark_dw32(%op: !transform.any_op {transform.readonly}) {
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %op "niro.dw_block32" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @conv_mark_dw16(%op: !transform.any_op {transform.readonly}) {
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %op "niro.dw_block16" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @conv_tile_dw32(%ops: !transform.any_op {transform.consumed}) {
    %blk, %ln, %loh, %low, %lc = transform.structured.tile_using_for %ops tile_sizes [1, 1, 8, 32, 0, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_peel failures(suppress) (%lc) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_tile_dw16(%ops: !transform.any_op {transform.consumed}) {
    %blk, %ln, %loh, %low, %lc = transform.structured.tile_using_for %ops tile_sizes [1, 1, 8, 16, 0, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_peel failures(suppress) (%lc) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  // Steps 3 to 5 for one depthwise block (kh, then kw).
  transform.named_sequence @conv_steps_dw(%block: !transform.any_op {transform.consumed}) {
    %step, %lkh, %lkw = transform.structured.tile_using_for %block tile_sizes [0, 0, 0, 0, 1, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.apply_patterns to %lkw {
      transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices
      transform.apply_patterns.canonicalization
    } : !transform.op<"scf.for">
    %inner = transform.structured.match ops{["linalg.generic"]} in %lkw : (!transform.op<"scf.for">) -> !transform.any_op
    transform.structured.vectorize %inner : !transform.any_op
    %f = transform.get_parent_op %lkh {op_name = "func.func"} : (!transform.op<"scf.for">) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
      transform.apply_patterns.vector.transfer_permutation_patterns
    } : !transform.any_op
    transform.loop.hoist_loop_invariant_subsets %lkw : !transform.op<"scf.for">
    transform.loop.hoist_loop_invariant_subsets %lkh : !transform.op<"scf.for">
    transform.yield
  }

  // A one-channel depthwise block (a depthwise convolution of 16k + 1
  // channels, emit/conv_nhwc.go, leaves one after the 16- or 32-channel
  // blocks; tags niro.dwconv2d and niro.dwconv2d_e, not a pool): steps 3
  // to 5 in @conv_steps1's order, for the same reasons. Its step is
  // acc[ow] += x[ow] · w, a vector along the block's output columns.
  transform.named_sequence @conv_match_dw_block1(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c6 = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c6 : !transform.param<i64>
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %d = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %d, %c1 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_mark_dw_block1(%op: !transform.any_op {transform.readonly}) {
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %op "niro.dw_block1" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @conv_steps_dw1(%block: !transform.any_op {transform.consumed}) {
    %step, %lkh, %lkw = transform.structured.tile_using_for %block tile_sizes [0, 0, 0, 0, 1, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.apply_patterns to %lkw {
      transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices
    } : !transform.op<"scf.for">
    transform.apply_patterns to %lkw {
      transform.apply_patterns.canonicalization
    } : !transform.op<"scf.for">
    %inner = transform.structured.match ops{["linalg.generic"]} in %lkw : (!transform.op<"scf.for">) -> !transform.any_op
    transform.structured.vectorize %inner : !transform.any_op
    %f = transform.get_parent_op %lkh {op_name = "func.func"} : (!transform.op<"scf.for">) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers
    } : !transform.any_op
    %outer = transform.get_parent_op %lkh : (!transform.op<"scf.for">) -> !transform.any_op
    transform.loop.hoist_loop_invariant_subsets %lkw : !transform.op<"scf.for">
    transform.loop.hoist_loop_invariant_subsets %lkh : !transform.op<"scf.for">
    transform.apply_patterns to %outer {
      transform.apply_patterns.vector.transfer_permutation_patterns
    } : !transform.any_op
    transform.apply_patterns to %outer {
      transform.apply_patterns.vector.lower_transpose
    } : !transform.any_op
    transform.yield
  }

  // The epilogue (docs/toolchain.md, "The convolution schedule"): emit
  // tags the last element-wise generic after a convolution (the bias, a
  // BatchNormalization's arithmetic, an activation, a residual Add) with
  // niro.epi_<form><bits>, the generics between it and the convolution
  // with niro.conv_epi, and the convolution itself niro.conv2d_e,
  // niro.dwconv2d_e or niro.conv2d_rows_e. The root is tiled with the convolution's register
  // block and every tagged producer (and the convolution's fill) is fused
  // into its innermost tile loop, so the accumulator block is finished
  // where it is computed.
  transform.named_sequence @conv_epi_fuse_once(%loop: !transform.op<"scf.for"> {transform.readonly}) {
    %f = transform.get_parent_op %loop {op_name = "func.func"} : (!transform.op<"scf.for">) -> !transform.any_op
    %p = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv_epi} in %f : (!transform.any_op) -> !transform.any_op
    // Fuses, in turn, each op of %p that has a use inside the loop; the
    // ops of other roots (no use inside) end it with a silenceable failure.
    %fused, %new = transform.structured.fuse_into_containing_op %p into %loop
      : (!transform.any_op, !transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  // A value of the region read by two of its ops (HardSwish's x) is
  // fused for the first use only while the other still reads the
  // original (fuse_into_containing_op takes the producers in the handle's
  // order, not consumers first): so the fusion runs three times, and CSE
  // merges the identical tiles it leaves (the originals are then dead).
  // CSE runs once, after the three: run between them, it merged the
  // accumulator's tensor.empty with the root's where both have the
  // result's type (the row forms: an NCHW accumulator), so that the
  // second copy's fill wrote into the loop's own tile (fusion takes the
  // loop's block argument for its init) and the first copy's into a slice
  // of the empty; the copies differed, and the block was computed once
  // for each read (TestConvEpilogueReadTwiceOnce).
  transform.named_sequence @conv_epi_fuse(%loop: !transform.op<"scf.for"> {transform.readonly}) {
    %f = transform.get_parent_op %loop {op_name = "func.func"} : (!transform.op<"scf.for">) -> !transform.any_op
    transform.include @conv_epi_fuse_once failures(suppress) (%loop) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_epi_fuse_once failures(suppress) (%loop) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_epi_fuse_once failures(suppress) (%loop) : (!transform.op<"scf.for">) -> ()
    transform.apply_cse to %f : !transform.any_op
    transform.apply_dce to %f : !transform.any_op
    transform.yield
  }
  // A convolution whose epilogue is fused is fused into the root's loop
  // with its fill.
  transform.named_sequence @conv_epi_fill(%conv: !transform.any_op {transform.readonly}) {
    %fill = transform.get_producer_of_operand %conv[2] : (!transform.any_op) -> !transform.any_op
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %fill "niro.conv_epi" = %u : !transform.any_op, !transform.any_param
    transform.annotate %conv "niro.conv_epi" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }
  // A channels-last root (loops n, oh, ow, m): the block of @conv_tile32.
  transform.named_sequence @conv_epi_nhwc32(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %loh, %low, %lm = transform.structured.tile_using_for %root tile_sizes [1, 1, 8, 32]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_fuse failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_epi_nhwc16(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %loh, %low, %lm = transform.structured.tile_using_for %root tile_sizes [1, 1, 8, 16]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_fuse failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_epi_nhwc8(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %loh, %low, %lm = transform.structured.tile_using_for %root tile_sizes [1, 1, 8, 8]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_fuse failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  // The NCHW root of a 1×1 convolution's matrix product (W [M, C] times
  // X [N, C, OH·OW], loops n, m, p, c, then a tensor.expand_shape to
  // N × M × OH × OW; emit/conv_nhwc.go, niro.mm_e): tiled by a register
  // block of 8 output channels × 16 output columns (loops n, oh, ow, m),
  // the region fused, then the tile's slice of the expand_shape bubbled
  // up above it (tensor.bubble_up_extract_slice: a slice of 16 columns of
  // one output row is contiguous in the product's [N, M, OH·OW]), so that
  // the product and its fill fuse as any producer.
  transform.named_sequence @conv_epi_mm32(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %loh, %low, %lm = transform.structured.tile_using_for %root tile_sizes [1, 8, 1, 16] interchange = [0, 2, 3, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_mm_fuse failures(propagate) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  // The channels-last product of a 1×1 convolution ([N·OH·OW, C] times
  // [C, M], then a tensor.expand_shape to N × OH × OW × M; conv1x1NHWC):
  // a channels-last root (loops n, oh, ow, m) is tiled 1 × 1 × 8 × 16, an
  // NCHW one (which reads the product transposed) 1 × 16 × 1 × 8 with the
  // loops nested n, oh, ow, m: both a block of 8 output columns × 16
  // output channels of the product.
  transform.named_sequence @conv_epi_mmnhwc32(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %loh, %low, %lm = transform.structured.tile_using_for %root tile_sizes [1, 1, 8, 16]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_mm_fuse failures(propagate) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_epi_mmnchw32(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %loh, %low, %lm = transform.structured.tile_using_for %root tile_sizes [1, 16, 1, 8] interchange = [0, 2, 3, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_mm_fuse failures(propagate) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  // A 1-D convolution's root reads the accumulator through a
  // rank-reducing slice: the region is fused first, then the root tile's
  // slice of that slice is merged into one slice of the convolution's
  // result, which fuse_into_containing_op takes (rank-reducing its tile),
  // and the fill with it.
  transform.named_sequence @conv_epi_slice_fuse(%lm: !transform.op<"scf.for"> {transform.readonly}) {
    transform.include @conv_epi_fuse failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.apply_patterns to %lm {
      transform.apply_patterns.tensor.merge_consecutive_insert_extract_slice
    } : !transform.op<"scf.for">
    // Once: the fused convolution tile is read through a rank-reducing
    // slice of itself, which a second fusion would tile again.
    %f = transform.get_parent_op %lm {op_name = "func.func"} : (!transform.op<"scf.for">) -> !transform.any_op
    transform.include @conv_epi_fuse_once failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.apply_cse to %f : !transform.any_op
    transform.apply_dce to %f : !transform.any_op
    transform.apply_patterns to %lm {
      transform.apply_patterns.tensor.fold_tensor_empty
    } : !transform.op<"scf.for">
    transform.yield
  }
  transform.named_sequence @conv_epi_mm_fuse(%lm: !transform.op<"scf.for"> {transform.readonly}) {
    transform.include @conv_epi_fuse failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.apply_patterns to %lm {
      transform.apply_patterns.tensor.bubble_up_extract_slice
    } : !transform.op<"scf.for">
    transform.include @conv_epi_fuse failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    // The fused fill's destination, a slice of the whole product's
    // tensor.empty, becomes an empty tile: one block buffer, not an
    // M × OH·OW one written through.
    transform.apply_patterns to %lm {
      transform.apply_patterns.tensor.fold_tensor_empty
    } : !transform.op<"scf.for">
    transform.yield
  }
  // The cache block of a 1×1 convolution's product (roots tagged
  // niro.epi_mmk, an NCHW root, or niro.epi_mmkl, a channels-last one,
  // with niro.mmk_h<H>; emit/conv_epilogue.go, mmkRows): past the register
  // block's bounds the root is tiled by 256 output channels (the
  // contraction schedule's MC) × H whole output rows (all of them for
  // H = 0), a block whose accumulator (at most 256 × 256 × 4 bytes) stays
  // in L2. The region, the product and its fill are fused into that tile
  // loop as @conv_epi_mm_fuse does (H whole rows of the expand_shape's
  // result are contiguous in the product); the product tile, too large
  // for @conv_match_mm_blk, is handed to the contraction schedule
  // (@conv_epi_mm_blocks tags it niro.contraction), which gives it its KC
  // slices, MC rows, packed panels and 4-row register blocks inside the
  // tile loop; after canonicalization @conv_epi_mmk_vec tiles the epilogue
  // on the cached accumulator into vectors.
  transform.named_sequence @conv_epi_mmk0(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %lm = transform.structured.tile_using_for %root tile_sizes [1, 256, 0, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_mm_fuse failures(propagate) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_epi_mmk_rows(%root: !transform.any_op {transform.consumed}, %h: !transform.param<i64> {transform.readonly}) {
    %t, %ln, %lm, %loh = transform.structured.tile_using_for %root tile_sizes [1, 256, %h, 0]
      : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_mm_fuse failures(propagate) (%loh) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%loh) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  // A channels-last root (loops n, oh, ow, m): the same block, 1 × H × OW
  // × 256.
  transform.named_sequence @conv_epi_mmkl0(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %lm = transform.structured.tile_using_for %root tile_sizes [1, 0, 0, 256]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_mm_fuse failures(propagate) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_epi_mmkl_rows(%root: !transform.any_op {transform.consumed}, %h: !transform.param<i64> {transform.readonly}) {
    %t, %ln, %loh, %lm = transform.structured.tile_using_for %root tile_sizes [1, %h, 0, 256]
      : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_mm_fuse failures(propagate) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%loh) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  // The cache block of a 1-D or 3-D pointwise convolution's NC… product
  // (emit/conv_pw1d3d.go; roots niro.epi_mmk1d, loops n, m, ow, and
  // niro.epi_mmk3d, loops n, m, od, oh, ow, the product [N, M, P] read
  // directly or through its expand_shape): 256 output channels × whole
  // rows, as @conv_epi_mmk0 and @conv_epi_mmk_rows. 1-D, niro.mmk_h<k>:
  // the whole row (k = 0) or k·128 columns; 3-D: the whole volume (k = 0),
  // one depth slice (k = 8) or k rows of one (k = 1, 2, 4).
  transform.named_sequence @conv_epi_mmk1d0(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %lm = transform.structured.tile_using_for %root tile_sizes [1, 256, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_mm_fuse failures(propagate) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_epi_mmk_pw_mark failures(propagate) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_epi_mmk1d_cols(%root: !transform.any_op {transform.consumed}, %w: !transform.param<i64> {transform.readonly}) {
    %t, %ln, %lm, %low = transform.structured.tile_using_for %root tile_sizes [1, 256, %w]
      : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_mm_fuse failures(propagate) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_epi_mmk_pw_mark failures(propagate) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_epi_mmk3d0(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %lm = transform.structured.tile_using_for %root tile_sizes [1, 256, 0, 0, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_mm_fuse failures(propagate) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_epi_mmk_pw_mark failures(propagate) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_epi_mmk3d8(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %lm, %lod = transform.structured.tile_using_for %root tile_sizes [1, 256, 1, 0, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_mm_fuse failures(propagate) (%lod) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_epi_mmk_pw_mark failures(propagate) (%lod) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_epi_mmk3d_rows(%root: !transform.any_op {transform.consumed}, %h: !transform.param<i64> {transform.readonly}) {
    %t, %ln, %lm, %lod, %loh = transform.structured.tile_using_for %root tile_sizes [1, 256, 1, %h, 0]
      : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_mm_fuse failures(propagate) (%loh) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_epi_mmk_pw_mark failures(propagate) (%loh) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%loh) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_epi_mmk_pw_tiles(%root: !transform.any_op {transform.readonly}) {
    %w128 = transform.param.constant 128 : i64 -> !transform.param<i64>
    %w256 = transform.param.constant 256 : i64 -> !transform.param<i64>
    %h1 = transform.param.constant 1 : i64 -> !transform.param<i64>
    %h2 = transform.param.constant 2 : i64 -> !transform.param<i64>
    %h4 = transform.param.constant 4 : i64 -> !transform.param<i64>
    %a0 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_mmk1d, niro.mmk_h0} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %a0 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_mmk1d0 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %a1 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_mmk1d, niro.mmk_h1} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %a1 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_mmk1d_cols failures(propagate) (%b, %w128) : (!transform.any_op, !transform.param<i64>) -> ()
    }
    %a2 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_mmk1d, niro.mmk_h2} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %a2 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_mmk1d_cols failures(propagate) (%b, %w256) : (!transform.any_op, !transform.param<i64>) -> ()
    }
    %d0 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_mmk3d, niro.mmk_h0} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %d0 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_mmk3d0 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %d8 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_mmk3d, niro.mmk_h8} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %d8 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_mmk3d8 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %d1 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_mmk3d, niro.mmk_h1} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %d1 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_mmk3d_rows failures(propagate) (%b, %h1) : (!transform.any_op, !transform.param<i64>) -> ()
    }
    %d2 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_mmk3d, niro.mmk_h2} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %d2 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_mmk3d_rows failures(propagate) (%b, %h2) : (!transform.any_op, !transform.param<i64>) -> ()
    }
    %d4 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_mmk3d, niro.mmk_h4} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %d4 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_mmk3d_rows failures(propagate) (%b, %h4) : (!transform.any_op, !transform.param<i64>) -> ()
    }
    transform.yield
  }
  transform.named_sequence @conv_epi_mmk_tiles(%root: !transform.any_op {transform.readonly}) {
    %a0 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_mmk, niro.mmk_h0} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %a0 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_mmk0 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %l0 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_mmkl, niro.mmk_h0} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %l0 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_mmkl0 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %h1 = transform.param.constant 1 : i64 -> !transform.param<i64>
    %h2 = transform.param.constant 2 : i64 -> !transform.param<i64>
    %h4 = transform.param.constant 4 : i64 -> !transform.param<i64>
    %a1 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_mmk, niro.mmk_h1} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %a1 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_mmk_rows failures(propagate) (%b, %h1) : (!transform.any_op, !transform.param<i64>) -> ()
    }
    %a2 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_mmk, niro.mmk_h2} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %a2 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_mmk_rows failures(propagate) (%b, %h2) : (!transform.any_op, !transform.param<i64>) -> ()
    }
    %a4 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_mmk, niro.mmk_h4} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %a4 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_mmk_rows failures(propagate) (%b, %h4) : (!transform.any_op, !transform.param<i64>) -> ()
    }
    %l1 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_mmkl, niro.mmk_h1} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %l1 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_mmkl_rows failures(propagate) (%b, %h1) : (!transform.any_op, !transform.param<i64>) -> ()
    }
    %l2 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_mmkl, niro.mmk_h2} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %l2 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_mmkl_rows failures(propagate) (%b, %h2) : (!transform.any_op, !transform.param<i64>) -> ()
    }
    %l4 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_mmkl, niro.mmk_h4} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %l4 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_mmkl_rows failures(propagate) (%b, %h4) : (!transform.any_op, !transform.param<i64>) -> ()
    }
    transform.yield
  }
  // The epilogue of a cache block, after canonicalization (static tiles):
  // the root tile is tiled again into vector tiles of 4 × 16 elements
  // (4 channels × 16 columns of a row; 4 columns × 16 channels
  // channels-last), the region's element-wise generics (rank 4, all
  // parallel: not the product, not its fill) fused into that loop, the
  // remainders peeled; @conv_epi_blocks vectorizes each tile. The tile
  // reads the block's accumulator from cache once, after the product's
  // last KC slice.
  transform.named_sequence @conv_match_epi_par4(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c4 = transform.param.constant 4 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c4 : !transform.param<i64>
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_mark_epi_k(%op: !transform.any_op {transform.readonly}) {
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %op "niro.epi_k" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @conv_epi_k_fuse_once(%loop: !transform.op<"scf.for"> {transform.readonly}) {
    %f = transform.get_parent_op %loop {op_name = "func.func"} : (!transform.op<"scf.for">) -> !transform.any_op
    %p = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_k} in %f : (!transform.any_op) -> !transform.any_op
    %fused, %new = transform.structured.fuse_into_containing_op %p into %loop
      : (!transform.any_op, !transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  // (Three times, as @conv_epi_fuse.)
  transform.named_sequence @conv_epi_k_fuse(%loop: !transform.op<"scf.for"> {transform.readonly}) {
    %f = transform.get_parent_op %loop {op_name = "func.func"} : (!transform.op<"scf.for">) -> !transform.any_op
    transform.include @conv_epi_k_fuse_once failures(suppress) (%loop) : (!transform.op<"scf.for">) -> ()
    transform.apply_cse to %f : !transform.any_op
    transform.include @conv_epi_k_fuse_once failures(suppress) (%loop) : (!transform.op<"scf.for">) -> ()
    transform.apply_cse to %f : !transform.any_op
    transform.include @conv_epi_k_fuse_once failures(suppress) (%loop) : (!transform.op<"scf.for">) -> ()
    transform.apply_cse to %f : !transform.any_op
    transform.apply_dce to %f : !transform.any_op
    transform.yield
  }
  transform.named_sequence @conv_epi_mmk_inner(%t: !transform.any_op {transform.consumed}) {
    %v, %lm, %loh, %low = transform.structured.tile_using_for %t tile_sizes [0, 4, 1, 16]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_k_fuse failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_epi_mmkl_inner(%t: !transform.any_op {transform.consumed}) {
    %v, %loh, %low, %lm = transform.structured.tile_using_for %t tile_sizes [0, 1, 4, 16]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_k_fuse failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  // The 1-D and 3-D cache blocks (@conv_epi_mmk_pw_tiles): the region's
  // element-wise generics in the block's tile loop (rank 3 or 5, all
  // parallel; not the product, rank 4, nor its fill, a passthrough) are
  // marked niro.epi_k there (@conv_epi_mmk_pw_mark, before
  // canonicalization folds one-iteration loops); after it the root tile is
  // tiled into vectors of 4 channels × 16 columns (loops m, ow; m, od, oh,
  // ow) and the marked generics fused into that loop.
  transform.named_sequence @conv_match_passthrough(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      transform.match.structured.body %s {passthrough} : !transform.any_op
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_keep(%op: !transform.any_op {transform.readonly}) {
    transform.yield
  }
  transform.named_sequence @conv_match_epi_par3(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c3 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c3 : !transform.param<i64>
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_match_epi_par5(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c5 = transform.param.constant 5 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c5 : !transform.param<i64>
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_epi_mmk_pw_mark(%l: !transform.op<"scf.for"> {transform.readonly}) {
    %e = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv_epi} in %l : (!transform.op<"scf.for">) -> !transform.any_op
    transform.foreach_match restrict_root in %e
        @conv_match_passthrough -> @conv_keep,
        @conv_match_epi_par3 -> @conv_mark_epi_k,
        @conv_match_epi_par5 -> @conv_mark_epi_k
      : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
  transform.named_sequence @conv_epi_mmk1d_inner(%t: !transform.any_op {transform.consumed}) {
    %v, %lm, %low = transform.structured.tile_using_for %t tile_sizes [0, 4, 16]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_k_fuse failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_epi_mmk3d_inner(%t: !transform.any_op {transform.consumed}) {
    %v, %lm, %lod, %loh, %low = transform.structured.tile_using_for %t tile_sizes [0, 4, 1, 1, 16]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_k_fuse failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_epi_mmk_vec(%root: !transform.any_op {transform.readonly}) {
    %e = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv_epi} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach_match restrict_root in %e
        @conv_match_epi_par4 -> @conv_mark_epi_k
      : (!transform.any_op) -> !transform.any_op
    %r = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_mmk} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %r : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_mmk_inner failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %rl = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_mmkl} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %rl : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_mmkl_inner failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %r1 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_mmk1d} in %root : (!transform.any_op) -> !transform.any_op
    %r3 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_mmk3d} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %r1 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_mmk1d_inner failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    transform.foreach %r3 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_mmk3d_inner failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    transform.apply_patterns to %root {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
  // After canonicalization, a fused product tile (static, at most 1 × 8 ×
  // 16 × C) takes the contraction's block steps (schedule.mlir, steps 6
  // and 7): its fill vectorized, the contracted loop made first and tiled
  // by 1, each step vectorized (16 consecutive elements of X's row c, one
  // broadcast element of each of the 8 rows of W, mulf then addf), the
  // accumulator hoisted out of the contracted loop. A tagged product the fusion did not take
  // is given back to the contraction schedule (niro.contraction).
  // A block's fill, vectorized unless an earlier block's steps did so:
  // two product blocks may have one fill (the squeeze-excite 1×1
  // products on 1×1 pixels after a 5×5 depthwise convolution of 72
  // channels with HardSwish, followed by a 1×1 convolution), and the
  // second block's handle then names the fill's vector.transfer_write,
  // which vectorize refuses ("Unsupported Op, cannot vectorize" at the
  // fill's constant; TestConvScheduleChains, se_c40.onnx).
  transform.named_sequence @conv_vec_fill(%fill: !transform.any_op {transform.consumed}) {
    transform.foreach_match restrict_root in %fill
        @conv_match_linalg -> @conv_vec_linalg
      : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
  transform.named_sequence @conv_match_linalg(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic", "linalg.fill"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_vec_linalg(%op: !transform.any_op {transform.consumed}) {
    transform.structured.vectorize %op : !transform.any_op
    transform.yield
  }
  transform.named_sequence @conv_match_mm_blk(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c4 = transform.param.constant 4 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c4 : !transform.param<i64>
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      %c8 = transform.param.constant 8 : i64 -> !transform.param<i64>
      %c16 = transform.param.constant 16 : i64 -> !transform.param<i64>
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d0, %c1 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d1, %c8 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d2, %c16 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_match_mm_blk3(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c3 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c3 : !transform.param<i64>
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %c8 = transform.param.constant 8 : i64 -> !transform.param<i64>
      %c16 = transform.param.constant 16 : i64 -> !transform.param<i64>
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d0, %c8 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d1, %c16 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_mark_mm_blk3(%op: !transform.any_op {transform.readonly}) {
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %op "niro.mm_blk3" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @conv_steps_mm3(%b: !transform.any_op {transform.consumed}) {
    %fill = transform.get_producer_of_operand %b[2] : (!transform.any_op) -> !transform.any_op
    transform.include @conv_vec_fill failures(propagate) (%fill) : (!transform.any_op) -> ()
    %i = transform.structured.interchange %b iterator_interchange = [2, 0, 1]
      : (!transform.any_op) -> !transform.any_op
    %steps, %k = transform.structured.tile_using_for %i tile_sizes [1, 0, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">)
    transform.structured.vectorize %steps : !transform.any_op
    %f = transform.get_parent_op %k {op_name = "func.func"} : (!transform.op<"scf.for">) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
      transform.apply_patterns.vector.transfer_permutation_patterns
    } : !transform.any_op
    transform.loop.hoist_loop_invariant_subsets %k : !transform.op<"scf.for">
    transform.yield
  }
  transform.named_sequence @conv_match_any(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_mark_mm_blk(%op: !transform.any_op {transform.readonly}) {
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %op "niro.mm_blk" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @conv_mark_contraction(%op: !transform.any_op {transform.readonly}) {
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %op "niro.contraction" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @conv_steps_mm(%b: !transform.any_op {transform.consumed}) {
    %fill = transform.get_producer_of_operand %b[2] : (!transform.any_op) -> !transform.any_op
    transform.include @conv_vec_fill failures(propagate) (%fill) : (!transform.any_op) -> ()
    %i = transform.structured.interchange %b iterator_interchange = [3, 0, 1, 2]
      : (!transform.any_op) -> !transform.any_op
    %steps, %k = transform.structured.tile_using_for %i tile_sizes [1, 0, 0, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">)
    transform.structured.vectorize %steps : !transform.any_op
    %f = transform.get_parent_op %k {op_name = "func.func"} : (!transform.op<"scf.for">) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
      transform.apply_patterns.vector.transfer_permutation_patterns
    } : !transform.any_op
    transform.loop.hoist_loop_invariant_subsets %k : !transform.op<"scf.for">
    transform.yield
  }
  transform.named_sequence @conv_epi_mm_blocks(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.generic"]} attributes {niro.mm_e} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach_match restrict_root in %mm
        @conv_match_mm_blk -> @conv_mark_mm_blk,
        @conv_match_mm_blk3 -> @conv_mark_mm_blk3,
        @conv_match_any -> @conv_mark_contraction
      : (!transform.any_op) -> !transform.any_op
    %blk = transform.structured.match ops{["linalg.generic"]} attributes {niro.mm_blk} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach %blk : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_steps_mm failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %blk3 = transform.structured.match ops{["linalg.generic"]} attributes {niro.mm_blk3} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach %blk3 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_steps_mm3 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    transform.yield
  }
  // An NCHW root of a channels-last convolution (loops n, m, oh, ow): the
  // same block, the loops nested n, oh, ow, m.
  transform.named_sequence @conv_epi_nchw32(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %loh, %low, %lm = transform.structured.tile_using_for %root tile_sizes [1, 32, 1, 8] interchange = [0, 2, 3, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_fuse failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_epi_nchw16(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %loh, %low, %lm = transform.structured.tile_using_for %root tile_sizes [1, 16, 1, 8] interchange = [0, 2, 3, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_fuse failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_epi_nchw8(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %loh, %low, %lm = transform.structured.tile_using_for %root tile_sizes [1, 8, 1, 8] interchange = [0, 2, 3, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_fuse failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  // A row-form root (loops n, m, oh, ow): the block of @conv_tile_rows32.
  // The fused convolution tile is tiled once more by its own size, so that
  // its unit loops are folded (@conv_rows_fold) on loops that hold only it:
  // on the root's loops, which hold the epilogue too, the folding does not
  // terminate in MLIR 22.
  transform.named_sequence @conv_rows_retile32(%c: !transform.any_op {transform.consumed}) {
    %blk, %ln, %loh, %lm, %low = transform.structured.tile_using_for %c tile_sizes [1, 16, 1, 16, 0, 0, 0] interchange = [0, 2, 1, 3]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_rows_fold failures(propagate) (%ln) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_rows_retile16(%c: !transform.any_op {transform.consumed}) {
    %blk, %ln, %loh, %lm, %low = transform.structured.tile_using_for %c tile_sizes [1, 16, 1, 8, 0, 0, 0] interchange = [0, 2, 1, 3]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_rows_fold failures(propagate) (%ln) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_epi_rows32(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %loh, %lm, %low = transform.structured.tile_using_for %root tile_sizes [1, 16, 1, 16] interchange = [0, 2, 1, 3]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_fuse failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    %cs = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv2d_rows_e} in %ln : (!transform.op<"scf.for">) -> !transform.any_op
    transform.foreach %cs : !transform.any_op {
    ^bb0(%c: !transform.any_op):
      transform.include @conv_rows_retile32 failures(propagate) (%c) : (!transform.any_op) -> ()
    }
    transform.yield
  }
  transform.named_sequence @conv_epi_rows16(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %loh, %lm, %low = transform.structured.tile_using_for %root tile_sizes [1, 16, 1, 8] interchange = [0, 2, 1, 3]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_fuse failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    %cs = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv2d_rows_e} in %ln : (!transform.op<"scf.for">) -> !transform.any_op
    transform.foreach %cs : !transform.any_op {
    ^bb0(%c: !transform.any_op):
      transform.include @conv_rows_retile16 failures(propagate) (%c) : (!transform.any_op) -> ()
    }
    transform.yield
  }
  // A 1-D convolution's NCH root (emit/conv_general.go, loops n, m, ow;
  // the accumulator [N, 1, OW, M] read collapsed to [N, OW, M] through
  // (n, m, ow) → (n, ow, m)): the block of @conv_tile32, the loops nested
  // n, ow, m; the tile's slice of the collapse_shape is bubbled up above
  // it (@conv_epi_mm_fuse), so that the convolution fuses as any
  // producer.
  transform.named_sequence @conv_epi_c1d32(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %low, %lm = transform.structured.tile_using_for %root tile_sizes [1, 32, 8] interchange = [0, 2, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_slice_fuse failures(propagate) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    %gen = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv_epi} in %ln : (!transform.op<"scf.for">) -> !transform.any_op
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %gen "niro.epi_gen" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @conv_epi_c1d16(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %low, %lm = transform.structured.tile_using_for %root tile_sizes [1, 16, 8] interchange = [0, 2, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_slice_fuse failures(propagate) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    %gen = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv_epi} in %ln : (!transform.op<"scf.for">) -> !transform.any_op
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %gen "niro.epi_gen" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @conv_epi_c1d8(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %low, %lm = transform.structured.tile_using_for %root tile_sizes [1, 8, 8] interchange = [0, 2, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_slice_fuse failures(propagate) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    %gen = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv_epi} in %ln : (!transform.op<"scf.for">) -> !transform.any_op
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %gen "niro.epi_gen" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }
  // A 3-D convolution's NCDHW root (loops n, m, od, oh, ow; the
  // accumulator [N·OD, OH, OW, M] read expanded to [N, OD, OH, OW, M]):
  // the same block, the loops nested n, od, oh, ow, m, and the slice of
  // the expand_shape bubbled up in the same way.
  transform.named_sequence @conv_epi_c3d32(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %lod, %loh, %low, %lm = transform.structured.tile_using_for %root tile_sizes [1, 32, 1, 1, 8] interchange = [0, 2, 3, 4, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_mm_fuse failures(propagate) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    %gen = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv_epi} in %ln : (!transform.op<"scf.for">) -> !transform.any_op
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %gen "niro.epi_gen" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @conv_epi_c3d16(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %lod, %loh, %low, %lm = transform.structured.tile_using_for %root tile_sizes [1, 16, 1, 1, 8] interchange = [0, 2, 3, 4, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_mm_fuse failures(propagate) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    %gen = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv_epi} in %ln : (!transform.op<"scf.for">) -> !transform.any_op
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %gen "niro.epi_gen" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @conv_epi_c3d8(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %lod, %loh, %low, %lm = transform.structured.tile_using_for %root tile_sizes [1, 8, 1, 1, 8] interchange = [0, 2, 3, 4, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_mm_fuse failures(propagate) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    %gen = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv_epi} in %ln : (!transform.op<"scf.for">) -> !transform.any_op
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %gen "niro.epi_gen" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }
  // A root of the depthwise row form (emit/conv_dwmult.go, loops n, c, oh, ow;
  // the convolution's accumulator is N×C×OH×OW; with a channel multiplier k,
  // loops n, m, oh, ow over N×M×OH×OW, X read at channel m floordiv k, so the
  // fused tile's X slice is one channel and folds like k = 1's): the
  // block of @conv_tile_dw32 on the row form, 8 output rows by 32 output
  // columns (16 for f64) of one channel, the innermost loop along the row.
  // The fused convolution tile is then a depthwise block (@conv_epi_blocks).
  transform.named_sequence @conv_epi_dwrows32(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %lc, %loh, %low = transform.structured.tile_using_for %root tile_sizes [1, 1, 8, 32]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_fuse failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%loh) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_epi_dwrows16(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %lc, %loh, %low = transform.structured.tile_using_for %root tile_sizes [1, 1, 8, 16]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_fuse failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%loh) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  // The half-width block (niro.epi_dwrowsh<bits>, an output width that
  // the full block leaves a remainder other than half a block): 8 rows by
  // 16 columns (8 for f64). 1×144×56×56 with BatchNormalization and Clip:
  // 361 µs so, 580 µs with blocks of 32 and 24 columns (docs/performance.md).
  transform.named_sequence @conv_epi_dwrowsh32(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %lc, %loh, %low = transform.structured.tile_using_for %root tile_sizes [1, 1, 8, 16]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_fuse failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%loh) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_epi_dwrowsh16(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %lc, %loh, %low = transform.structured.tile_using_for %root tile_sizes [1, 1, 8, 8]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_fuse failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%loh) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  // A per-group grouped convolution's root in the split view of its
  // result (emit/conv_pergroup_epi.go: loops n, g, m, oh, ow for an NCHW
  // result, n, oh, ow, g, m channels-last; the rank-8 block niro.conv2dg_e
  // reads the accumulator [G, N, OH, OW, M/G] through (g, n, oh, ow, m)):
  // tiled by one group's block, 8 output columns by 32 (16) channels of
  // one row, the loops nested n, g, oh, ow, m; the region, the read-back,
  // the convolution and its fill are fused into the channel loop, and the
  // region's tiles are marked niro.epi_gen for @conv_epi_blocks.
  transform.named_sequence @conv_epi_gmark(%ln: !transform.op<"scf.for"> {transform.readonly}) {
    %gen = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv_epi} in %ln : (!transform.op<"scf.for">) -> !transform.any_op
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %gen "niro.epi_gen" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @conv_epi_gnchw32(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %lg, %loh, %low, %lm = transform.structured.tile_using_for %root tile_sizes [1, 1, 32, 1, 8] interchange = [0, 1, 3, 4, 2]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_fuse failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_epi_gmark failures(propagate) (%ln) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_epi_gnchw16(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %lg, %loh, %low, %lm = transform.structured.tile_using_for %root tile_sizes [1, 1, 16, 1, 8] interchange = [0, 1, 3, 4, 2]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_fuse failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_epi_gmark failures(propagate) (%ln) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_epi_gnchw8(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %lg, %loh, %low, %lm = transform.structured.tile_using_for %root tile_sizes [1, 1, 8, 1, 8] interchange = [0, 1, 3, 4, 2]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_fuse failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_epi_gmark failures(propagate) (%ln) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_epi_gnhwc32(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %lg, %loh, %low, %lm = transform.structured.tile_using_for %root tile_sizes [1, 1, 8, 1, 32] interchange = [0, 3, 1, 2, 4]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_fuse failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_epi_gmark failures(propagate) (%ln) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_epi_gnhwc16(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %lg, %loh, %low, %lm = transform.structured.tile_using_for %root tile_sizes [1, 1, 8, 1, 16] interchange = [0, 3, 1, 2, 4]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_fuse failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_epi_gmark failures(propagate) (%ln) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_epi_gnhwc8(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %lg, %loh, %low, %lm = transform.structured.tile_using_for %root tile_sizes [1, 1, 8, 1, 8] interchange = [0, 3, 1, 2, 4]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_fuse failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_epi_gmark failures(propagate) (%ln) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  // The 1-D and 3-D per-group roots (niro.epi_gn1d<bits>, loops n, g, m,
  // ow, the accumulator [G, N, 1, OW, M/G] read through its rank-reducing
  // slice [G, N, OW, M/G], merged with the tile's by @conv_epi_slice_fuse;
  // niro.epi_gn3d<bits>, loops n, g, m, od, oh, ow, the accumulator
  // [G, N·OD, OH, OW, M/G] read expanded to [G, N, OD, OH, OW, M/G]):
  // one group's block of 8 output columns by 32 (16) channels, the loops
  // nested n, g, [od, oh,] ow, m; the 3-D tile's slice of the
  // expand_shape is bubbled up above it (@conv_epi_mm_fuse), so that the
  // rank-8 block fuses as any producer and its tile is the 2-D one's.
  transform.named_sequence @conv_epi_gn1d32(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %lg, %low, %lm = transform.structured.tile_using_for %root tile_sizes [1, 1, 32, 8] interchange = [0, 1, 3, 2]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_slice_fuse failures(propagate) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_epi_gmark failures(propagate) (%ln) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_epi_gn1d16(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %lg, %low, %lm = transform.structured.tile_using_for %root tile_sizes [1, 1, 16, 8] interchange = [0, 1, 3, 2]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_slice_fuse failures(propagate) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_epi_gmark failures(propagate) (%ln) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_epi_gn1d8(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %lg, %low, %lm = transform.structured.tile_using_for %root tile_sizes [1, 1, 8, 8] interchange = [0, 1, 3, 2]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_slice_fuse failures(propagate) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_epi_gmark failures(propagate) (%ln) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_epi_gn3d32(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %lg, %lod, %loh, %low, %lm = transform.structured.tile_using_for %root tile_sizes [1, 1, 32, 1, 1, 8] interchange = [0, 1, 3, 4, 5, 2]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_mm_fuse failures(propagate) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_epi_gmark failures(propagate) (%ln) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_epi_gn3d16(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %lg, %lod, %loh, %low, %lm = transform.structured.tile_using_for %root tile_sizes [1, 1, 16, 1, 1, 8] interchange = [0, 1, 3, 4, 5, 2]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_mm_fuse failures(propagate) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_epi_gmark failures(propagate) (%ln) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_epi_gn3d8(%root: !transform.any_op {transform.consumed}) {
    %t, %ln, %lg, %lod, %loh, %low, %lm = transform.structured.tile_using_for %root tile_sizes [1, 1, 8, 1, 1, 8] interchange = [0, 1, 3, 4, 5, 2]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @conv_epi_mm_fuse failures(propagate) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%lm) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_peel failures(suppress) (%low) : (!transform.op<"scf.for">) -> ()
    transform.include @conv_epi_gmark failures(propagate) (%ln) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @conv_epi_tiles(%root: !transform.any_op {transform.readonly}) {
    %convs = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv2d_e} in %root
      : (!transform.any_op) -> !transform.any_op
    %rconvs = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv2d_rows_e} in %root
      : (!transform.any_op) -> !transform.any_op
    %dconvs = transform.structured.match ops{["linalg.generic"]} attributes {niro.dwconv2d_e} in %root
      : (!transform.any_op) -> !transform.any_op
    %mconvs = transform.structured.match ops{["linalg.generic"]} attributes {niro.mm_e} in %root
      : (!transform.any_op) -> !transform.any_op
    %gconvs = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv2dg_e} in %root
      : (!transform.any_op) -> !transform.any_op
    %all = transform.merge_handles %convs, %rconvs, %dconvs, %mconvs, %gconvs : !transform.any_op
    transform.foreach %all : !transform.any_op {
    ^bb0(%c: !transform.any_op):
      transform.include @conv_epi_fill failures(propagate) (%c) : (!transform.any_op) -> ()
    }
    %gn32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_gnchw32} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %gn32 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_gnchw32 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %gn16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_gnchw16} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %gn16 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_gnchw16 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %gn8 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_gnchw8} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %gn8 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_gnchw8 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %gl32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_gnhwc32} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %gl32 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_gnhwc32 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %gl16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_gnhwc16} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %gl16 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_gnhwc16 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %gl8 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_gnhwc8} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %gl8 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_gnhwc8 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %gn1d_32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_gn1d32} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %gn1d_32 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_gn1d32 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %gn1d_16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_gn1d16} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %gn1d_16 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_gn1d16 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %gn1d_8 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_gn1d8} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %gn1d_8 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_gn1d8 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %gn3d_32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_gn3d32} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %gn3d_32 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_gn3d32 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %gn3d_16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_gn3d16} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %gn3d_16 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_gn3d16 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %gn3d_8 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_gn3d8} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %gn3d_8 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_gn3d8 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    transform.include @conv_epi_mmk_tiles failures(propagate) (%root) : (!transform.any_op) -> ()
    transform.include @conv_epi_mmk_pw_tiles failures(propagate) (%root) : (!transform.any_op) -> ()
    %m32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_mm32} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %m32 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_mm32 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %mn32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_mmnhwc32} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %mn32 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_mmnhwc32 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %mc32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_mmnchw32} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %mc32 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_mmnchw32 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %n32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_nhwc32} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %n32 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_nhwc32 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %n16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_nhwc16} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %n16 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_nhwc16 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %n8 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_nhwc8} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %n8 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_nhwc8 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %c32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_nchw32} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %c32 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_nchw32 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %c16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_nchw16} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %c16 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_nchw16 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %c8 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_nchw8} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %c8 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_nchw8 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %r32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_rows32} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %r32 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_rows32 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %r16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_rows16} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %r16 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_rows16 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %gc1d32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_c1d32} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %gc1d32 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_c1d32 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %gc1d16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_c1d16} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %gc1d16 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_c1d16 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %gc1d8 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_c1d8} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %gc1d8 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_c1d8 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %gc3d32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_c3d32} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %gc3d32 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_c3d32 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %gc3d16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_c3d16} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %gc3d16 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_c3d16 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %gc3d8 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_c3d8} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %gc3d8 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_c3d8 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %w32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_dwrows32} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %w32 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_dwrows32 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %w16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_dwrows16} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %w16 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_dwrows16 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %h32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_dwrowsh32} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %h32 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_dwrowsh32 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %h16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_dwrowsh16} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %h16 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_epi_dwrowsh16 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    transform.yield
  }
  // After canonicalization: the fused channels-last convolution tiles are
  // static blocks (marked as @conv_tile32's are), and every epilogue tile
  // is vectorized.
  transform.named_sequence @conv_vec_one(%op: !transform.any_op {transform.consumed}) {
    transform.structured.vectorize %op : !transform.any_op
    transform.yield
  }
  transform.named_sequence @conv_epi_blocks(%root: !transform.any_op {transform.readonly}) {
    %convs = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv2d_e} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach_match restrict_root in %convs
        @conv_match_f32 -> @conv_mark32,
        @conv_match_f64 -> @conv_mark16
      : (!transform.any_op) -> !transform.any_op
    %dconvs = transform.structured.match ops{["linalg.generic"]} attributes {niro.dwconv2d_e} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach_match restrict_root in %dconvs
        @conv_match_dw_f32 -> @conv_mark_dw32,
        @conv_match_dw_f64 -> @conv_mark_dw16
      : (!transform.any_op) -> !transform.any_op
    %gconvs = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv2dg_e} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach_match restrict_root in %gconvs
        @conv_match8_f32 -> @conv_mark8_32,
        @conv_match8_f64 -> @conv_mark8_16
      : (!transform.any_op) -> !transform.any_op
    %e = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv_epi} in %root : (!transform.any_op) -> !transform.any_op
    %n32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_nhwc32} in %root : (!transform.any_op) -> !transform.any_op
    %n16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_nhwc16} in %root : (!transform.any_op) -> !transform.any_op
    %c32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_nchw32} in %root : (!transform.any_op) -> !transform.any_op
    %c16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_nchw16} in %root : (!transform.any_op) -> !transform.any_op
    %n8 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_nhwc8} in %root : (!transform.any_op) -> !transform.any_op
    %c8 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_nchw8} in %root : (!transform.any_op) -> !transform.any_op
    %r32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_rows32} in %root : (!transform.any_op) -> !transform.any_op
    %r16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_rows16} in %root : (!transform.any_op) -> !transform.any_op
    %m32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_mm32} in %root : (!transform.any_op) -> !transform.any_op
    %mn32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_mmnhwc32} in %root : (!transform.any_op) -> !transform.any_op
    %mc32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_mmnchw32} in %root : (!transform.any_op) -> !transform.any_op
    %k = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_mmk} in %root : (!transform.any_op) -> !transform.any_op
    %kl = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_mmkl} in %root : (!transform.any_op) -> !transform.any_op
    %g1 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_c1d32} in %root : (!transform.any_op) -> !transform.any_op
    %g2 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_c1d16} in %root : (!transform.any_op) -> !transform.any_op
    %g3 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_c3d32} in %root : (!transform.any_op) -> !transform.any_op
    %g4 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_c3d16} in %root : (!transform.any_op) -> !transform.any_op
    %g5 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_c1d8} in %root : (!transform.any_op) -> !transform.any_op
    %g6 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_c3d8} in %root : (!transform.any_op) -> !transform.any_op
    %w32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_dwrows32} in %root : (!transform.any_op) -> !transform.any_op
    %w16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_dwrows16} in %root : (!transform.any_op) -> !transform.any_op
    %h32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_dwrowsh32} in %root : (!transform.any_op) -> !transform.any_op
    %h16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_dwrowsh16} in %root : (!transform.any_op) -> !transform.any_op
    %all = transform.merge_handles %e, %n32, %n16, %n8, %c32, %c16, %c8, %r32, %r16, %m32, %mn32, %mc32, %k, %kl, %w32, %w16, %h32, %h16 : !transform.any_op
    transform.foreach_match restrict_root in %all
        @conv_match_epi_vec -> @conv_mark_epi_vec,
        @conv_match_epi_vec_nchw -> @conv_mark_epi_vec,
        @conv_match_epi_vec_rows -> @conv_mark_epi_vec
      : (!transform.any_op) -> !transform.any_op
    transform.include @conv_epi_rows_mark failures(propagate) (%root) : (!transform.any_op) -> ()
    // The rank-3 and rank-5 epilogue tiles of the 1-D and 3-D roots only
    // (marked niro.epi_gen in their tile loops): a 1×1 product's fill
    // tile, also rank 3, is not one.
    %eg = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_gen} in %root : (!transform.any_op) -> !transform.any_op
    %gp1 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_gnchw32} in %root : (!transform.any_op) -> !transform.any_op
    %gp2 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_gnchw16} in %root : (!transform.any_op) -> !transform.any_op
    %gp3 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_gnhwc32} in %root : (!transform.any_op) -> !transform.any_op
    %gp4 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_gnhwc16} in %root : (!transform.any_op) -> !transform.any_op
    %gq1 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_gn1d32} in %root : (!transform.any_op) -> !transform.any_op
    %gq2 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_gn1d16} in %root : (!transform.any_op) -> !transform.any_op
    %gq3 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_gn3d32} in %root : (!transform.any_op) -> !transform.any_op
    %gq4 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_gn3d16} in %root : (!transform.any_op) -> !transform.any_op
    %gp5 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_gnchw8} in %root : (!transform.any_op) -> !transform.any_op
    %gp6 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_gnhwc8} in %root : (!transform.any_op) -> !transform.any_op
    %gq5 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_gn1d8} in %root : (!transform.any_op) -> !transform.any_op
    %gq6 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_gn3d8} in %root : (!transform.any_op) -> !transform.any_op
    %gall = transform.merge_handles %eg, %g1, %g2, %g3, %g4, %g5, %g6, %gp1, %gp2, %gp3, %gp4, %gp5, %gp6, %gq1, %gq2, %gq3, %gq4, %gq5, %gq6 : !transform.any_op
    transform.foreach_match restrict_root in %gall
        @conv_match_epi_vec3 -> @conv_mark_epi_vec,
        @conv_match_epi_vec4g -> @conv_mark_epi_vec,
        @conv_match_epi_vec6g -> @conv_mark_epi_vec,
        @conv_match_epi_vec5 -> @conv_mark_epi_vec,
        @conv_match_epi_vec5g -> @conv_mark_epi_vec,
        @conv_match_epi_vec5gl -> @conv_mark_epi_vec,
        @conv_match_epi_vec5gf -> @conv_mark_epi_vec
      : (!transform.any_op) -> !transform.any_op
    // The vector tiles of the 1-D and 3-D cache blocks (@conv_epi_mmk1d_inner,
    // @conv_epi_mmk3d_inner).
    %pk = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_k} in %root : (!transform.any_op) -> !transform.any_op
    %pk1 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_mmk1d} in %root : (!transform.any_op) -> !transform.any_op
    %pk3 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_mmk3d} in %root : (!transform.any_op) -> !transform.any_op
    %pall = transform.merge_handles %pk, %pk1, %pk3 : !transform.any_op
    transform.foreach_match restrict_root in %pall
        @conv_match_epi_vec_k3 -> @conv_mark_epi_vec,
        @conv_match_epi_vec_k5 -> @conv_mark_epi_vec
      : (!transform.any_op) -> !transform.any_op
    %v = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_vec} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %v : !transform.any_op {
    ^bb0(%g: !transform.any_op):
      transform.include @conv_vec_one failures(suppress) (%g) : (!transform.any_op) -> ()
    }
    transform.yield
  }
  // The row form's epilogue on 2-D vectors. Its tiles are 1 × 16 × 1 × 16
  // (n, m, oh, ow): vectorized, then rid of the leading unit dimension,
  // their ops run on vector<16x1x16xf32>, the unit oh inside. Folding the
  // unit dimensions of the tiles (fold_unit_extent_dims_via_slices on the
  // root's loops) does not terminate in MLIR 22 (as for the 7-D block),
  // nor do the transfer patterns of @conv_finish_rows on tiles interchanged
  // so that oh leads (their transfers, vector<16x16xf32> with a map
  // (d1, d3), are turned back and forth by transfer_permutation_patterns
  // and cast_away_vector_leading_one_dim). So the root's tile loops are
  // marked here (niro.epi_rows_loop) and, once @conv_finish_rows has run,
  // @conv_epi_rows_2d rewrites their element-wise vector ops onto
  // vector<16x16xf32> (drop_unit_dims_with_shape_cast; the shape casts
  // between two ops cancel): the arithmetic, its order and its operands
  // are unchanged; the transfers of the block's tile keep their
  // 16 × 1 × 16 shape, with one vector.shape_cast each. (LLVM lowers an
  // n-D vector to an array of 1-D ones: opt -O3 makes the same code of
  // both forms, docs/performance.md.)
  transform.named_sequence @conv_epi_rows_mark(%root: !transform.any_op {transform.readonly}) {
    %r32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_rows32} in %root : (!transform.any_op) -> !transform.any_op
    %r16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.epi_rows16} in %root : (!transform.any_op) -> !transform.any_op
    %r = transform.merge_handles %r32, %r16 : !transform.any_op
    transform.foreach %r : !transform.any_op {
    ^bb0(%t: !transform.any_op):
      transform.include @conv_epi_rows_mark_one failures(suppress) (%t) : (!transform.any_op) -> ()
    }
    transform.foreach_match restrict_root in %r
        @conv_match_epi_col1 -> @conv_mark_epi_col1
      : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
  // (A tile whose loops canonicalization removed, a one-block result, has
  // no loop to mark and keeps its 16 × 1 × 16 vectors.)
  transform.named_sequence @conv_epi_rows_mark_one(%t: !transform.any_op {transform.readonly}) {
    %l = transform.get_parent_op %t {op_name = "scf.for"} : (!transform.any_op) -> !transform.op<"scf.for">
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %l "niro.epi_rows_loop" = %u : !transform.op<"scf.for">, !transform.any_param
    transform.yield
  }
  // A one-column tile of the row form (an output width of 16k + 1, 8k + 1
  // in f64: one output channel only, emit/conv_rows.go): the op holding
  // it (its tile loop, or the function where the loops folded away) is
  // marked niro.epi_rows_col1, for the subview folding of
  // niro_contraction_transfers (toolchain/schedule.mlir) after
  // bufferization, which its 0-d accumulator transfers need.
  transform.named_sequence @conv_match_epi_col1(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c4 = transform.param.constant 4 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c4 : !transform.param<i64>
      transform.match.structured.dim %s[3] {static} : !transform.any_op
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi eq %d3, %c1 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_mark_epi_col1(%t: !transform.any_op {transform.readonly}) {
    %l = transform.get_parent_op %t : (!transform.any_op) -> !transform.any_op
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %l "niro.epi_rows_col1" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @conv_epi_rows_2d(%root: !transform.any_op {transform.readonly}) {
    %loops = transform.structured.match ops{["scf.for"]} attributes {niro.epi_rows_loop} in %root : (!transform.any_op) -> !transform.op<"scf.for">
    transform.apply_patterns to %loops {
      transform.apply_patterns.vector.drop_unit_dims_with_shape_cast
      transform.apply_patterns.canonicalization
    } : !transform.op<"scf.for">
    transform.yield
  }
  // An epilogue tile: all parallel, static, of a block's tile shape:
  // 1 × 1 × ≤ 8 × ≤ 32 (channels-last, loops n, oh, ow, m), 1 × ≤ 32 × 1 ×
  // ≤ 8 (NCHW, n, m, oh, ow) or 1 × ≤ 16 × 1 × ≤ 16 (the row form, the NCHW
  // 1×1 product), at most 256 elements each, so that an epilogue op the
  // fusion did not take is left to linalg-fuse-elementwise-ops, not
  // vectorized whole. (Per-dimension bounds alone, 1 × 32 × 8 × 32, let a
  // small unfused generic, 1 × 32 × 8 × 8 say, become one vector of 2048
  // elements: TestConvEpilogueUnfusedWide.)
  transform.named_sequence @conv_match_epi_vec(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c4 = transform.param.constant 4 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c4 : !transform.param<i64>
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      %c8 = transform.param.constant 8 : i64 -> !transform.param<i64>
      %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d0, %c1 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d1, %c1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d2, %c8 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d3, %c32 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_match_epi_vec_nchw(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c4 = transform.param.constant 4 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c4 : !transform.param<i64>
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      %c8 = transform.param.constant 8 : i64 -> !transform.param<i64>
      %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d0, %c1 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d1, %c32 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d2, %c1 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d3, %c8 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_match_epi_vec_rows(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c4 = transform.param.constant 4 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c4 : !transform.param<i64>
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      %c16 = transform.param.constant 16 : i64 -> !transform.param<i64>
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d0, %c1 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d1, %c16 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d2, %c1 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d3, %c16 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  // The split-view tiles of a 1-D per-group root, 1 × 1 × ≤ 32 × ≤ 8
  // (n, g, m, ow), and of a 3-D one, 1 × 1 × ≤ 32 × 1 × 1 × ≤ 8 (n, g, m,
  // od, oh, ow); their fused convolution's fill tile is @conv_match_epi_vec5gf's.
  transform.named_sequence @conv_match_epi_vec4g(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c4 = transform.param.constant 4 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c4 : !transform.param<i64>
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      %c8 = transform.param.constant 8 : i64 -> !transform.param<i64>
      %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d0, %c1 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d1, %c1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d2, %c32 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d3, %c8 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_match_epi_vec6g(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c6 = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c6 : !transform.param<i64>
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      %c8 = transform.param.constant 8 : i64 -> !transform.param<i64>
      %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d0, %c1 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d1, %c1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d2, %c32 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d3, %c1 : !transform.param<i64>
      %d4 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d4, %c1 : !transform.param<i64>
      %d5 = transform.match.structured.dim %s[5] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d5, %c8 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  // The split-view tiles of a per-group root: 1 × 1 × ≤ 32 × 1 × ≤ 8
  // (n, g, m, oh, ow) and 1 × 1 × ≤ 8 × 1 × ≤ 32 (n, oh, ow, g, m), and
  // the fused convolution's fill tile, 1 × 1 × 1 × ≤ 8 × ≤ 32 (g, n, oh,
  // ow, m).
  transform.named_sequence @conv_match_epi_vec5g(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c5 = transform.param.constant 5 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c5 : !transform.param<i64>
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      %c8 = transform.param.constant 8 : i64 -> !transform.param<i64>
      %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d0, %c1 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d1, %c1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d2, %c32 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d3, %c1 : !transform.param<i64>
      %d4 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d4, %c8 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_match_epi_vec5gl(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c5 = transform.param.constant 5 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c5 : !transform.param<i64>
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      %c8 = transform.param.constant 8 : i64 -> !transform.param<i64>
      %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d0, %c1 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d1, %c1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d2, %c8 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d3, %c1 : !transform.param<i64>
      %d4 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d4, %c32 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_match_epi_vec5gf(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c5 = transform.param.constant 5 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c5 : !transform.param<i64>
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      %c8 = transform.param.constant 8 : i64 -> !transform.param<i64>
      %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d0, %c1 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d1, %c1 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d2, %c1 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d3, %c8 : !transform.param<i64>
      %d4 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d4, %c32 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  // The tiles of a 1-D root (n, m, ow: 1 × 32 × 8) and a 3-D one (n, m,
  // od, oh, ow: 1 × 32 × 1 × 1 × 8), emit/conv_general.go.
  transform.named_sequence @conv_match_epi_vec_k3(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c3 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c3 : !transform.param<i64>
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      %c4 = transform.param.constant 4 : i64 -> !transform.param<i64>
      %c16 = transform.param.constant 16 : i64 -> !transform.param<i64>
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d0, %c1 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d1, %c4 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d2, %c16 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_match_epi_vec_k5(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c5 = transform.param.constant 5 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c5 : !transform.param<i64>
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      %c4 = transform.param.constant 4 : i64 -> !transform.param<i64>
      %c16 = transform.param.constant 16 : i64 -> !transform.param<i64>
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d0, %c1 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d1, %c4 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d2, %c1 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d3, %c1 : !transform.param<i64>
      %d4 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d4, %c16 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_match_epi_vec3(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c3 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c3 : !transform.param<i64>
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      %c8 = transform.param.constant 8 : i64 -> !transform.param<i64>
      %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d0, %c1 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d1, %c32 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d2, %c8 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_match_epi_vec5(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c5 = transform.param.constant 5 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c5 : !transform.param<i64>
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      %c8 = transform.param.constant 8 : i64 -> !transform.param<i64>
      %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
      %d0 = transform.match.structured.dim %s[0] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d0, %c1 : !transform.param<i64>
      %d1 = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d1, %c32 : !transform.param<i64>
      %d2 = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d2, %c1 : !transform.param<i64>
      %d3 = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d3, %c1 : !transform.param<i64>
      %d4 = transform.match.structured.dim %s[4] : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi le %d4, %c8 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_mark_epi_vec(%op: !transform.any_op {transform.readonly}) {
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %op "niro.epi_vec" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }

  // A convolution tagged for a fused epilogue that the fusion did not
  // take (larger than one block: an extent above the block's along oh, ow
  // or the channels) is blocked as an untagged one would be.
  transform.named_sequence @conv_match_big32_1(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %r = transform.param.constant 7 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %r : !transform.param<i64>
      transform.match.structured.dim %s[0, 1, 2, 3] {parallel} : !transform.any_op
      transform.match.structured.dim %s[4, 5, 6] {reduction} : !transform.any_op
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %bw = transform.match.structured.elemental_bitwidth %init : (!transform.any_value) -> !transform.param<i64>
      %b = transform.param.constant 32 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %bw, %b : !transform.param<i64>
      %d = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %l = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi gt %d, %l : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_match_dwbig32_1(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %r = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %r : !transform.param<i64>
      transform.match.structured.dim %s[0, 1, 2, 3] {parallel} : !transform.any_op
      transform.match.structured.dim %s[4, 5] {reduction} : !transform.any_op
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %bw = transform.match.structured.elemental_bitwidth %init : (!transform.any_value) -> !transform.param<i64>
      %b = transform.param.constant 32 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %bw, %b : !transform.param<i64>
      %d = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %l = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi gt %d, %l : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_match_big32_2(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %r = transform.param.constant 7 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %r : !transform.param<i64>
      transform.match.structured.dim %s[0, 1, 2, 3] {parallel} : !transform.any_op
      transform.match.structured.dim %s[4, 5, 6] {reduction} : !transform.any_op
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %bw = transform.match.structured.elemental_bitwidth %init : (!transform.any_value) -> !transform.param<i64>
      %b = transform.param.constant 32 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %bw, %b : !transform.param<i64>
      %d = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %l = transform.param.constant 8 : i64 -> !transform.param<i64>
      transform.match.param.cmpi gt %d, %l : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_match_dwbig32_2(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %r = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %r : !transform.param<i64>
      transform.match.structured.dim %s[0, 1, 2, 3] {parallel} : !transform.any_op
      transform.match.structured.dim %s[4, 5] {reduction} : !transform.any_op
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %bw = transform.match.structured.elemental_bitwidth %init : (!transform.any_value) -> !transform.param<i64>
      %b = transform.param.constant 32 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %bw, %b : !transform.param<i64>
      %d = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %l = transform.param.constant 8 : i64 -> !transform.param<i64>
      transform.match.param.cmpi gt %d, %l : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_match_big32_3(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %r = transform.param.constant 7 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %r : !transform.param<i64>
      transform.match.structured.dim %s[0, 1, 2, 3] {parallel} : !transform.any_op
      transform.match.structured.dim %s[4, 5, 6] {reduction} : !transform.any_op
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %bw = transform.match.structured.elemental_bitwidth %init : (!transform.any_value) -> !transform.param<i64>
      %b = transform.param.constant 32 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %bw, %b : !transform.param<i64>
      %d = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %l = transform.param.constant 32 : i64 -> !transform.param<i64>
      transform.match.param.cmpi gt %d, %l : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_match_dwbig32_3(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %r = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %r : !transform.param<i64>
      transform.match.structured.dim %s[0, 1, 2, 3] {parallel} : !transform.any_op
      transform.match.structured.dim %s[4, 5] {reduction} : !transform.any_op
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %bw = transform.match.structured.elemental_bitwidth %init : (!transform.any_value) -> !transform.param<i64>
      %b = transform.param.constant 32 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %bw, %b : !transform.param<i64>
      %d = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %l = transform.param.constant 32 : i64 -> !transform.param<i64>
      transform.match.param.cmpi gt %d, %l : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_match_big64_1(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %r = transform.param.constant 7 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %r : !transform.param<i64>
      transform.match.structured.dim %s[0, 1, 2, 3] {parallel} : !transform.any_op
      transform.match.structured.dim %s[4, 5, 6] {reduction} : !transform.any_op
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %bw = transform.match.structured.elemental_bitwidth %init : (!transform.any_value) -> !transform.param<i64>
      %b = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %bw, %b : !transform.param<i64>
      %d = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %l = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi gt %d, %l : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_match_dwbig64_1(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %r = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %r : !transform.param<i64>
      transform.match.structured.dim %s[0, 1, 2, 3] {parallel} : !transform.any_op
      transform.match.structured.dim %s[4, 5] {reduction} : !transform.any_op
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %bw = transform.match.structured.elemental_bitwidth %init : (!transform.any_value) -> !transform.param<i64>
      %b = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %bw, %b : !transform.param<i64>
      %d = transform.match.structured.dim %s[1] : (!transform.any_op) -> !transform.param<i64>
      %l = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi gt %d, %l : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_match_big64_2(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %r = transform.param.constant 7 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %r : !transform.param<i64>
      transform.match.structured.dim %s[0, 1, 2, 3] {parallel} : !transform.any_op
      transform.match.structured.dim %s[4, 5, 6] {reduction} : !transform.any_op
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %bw = transform.match.structured.elemental_bitwidth %init : (!transform.any_value) -> !transform.param<i64>
      %b = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %bw, %b : !transform.param<i64>
      %d = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %l = transform.param.constant 8 : i64 -> !transform.param<i64>
      transform.match.param.cmpi gt %d, %l : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_match_dwbig64_2(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %r = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %r : !transform.param<i64>
      transform.match.structured.dim %s[0, 1, 2, 3] {parallel} : !transform.any_op
      transform.match.structured.dim %s[4, 5] {reduction} : !transform.any_op
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %bw = transform.match.structured.elemental_bitwidth %init : (!transform.any_value) -> !transform.param<i64>
      %b = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %bw, %b : !transform.param<i64>
      %d = transform.match.structured.dim %s[2] : (!transform.any_op) -> !transform.param<i64>
      %l = transform.param.constant 8 : i64 -> !transform.param<i64>
      transform.match.param.cmpi gt %d, %l : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_match_big64_3(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %r = transform.param.constant 7 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %r : !transform.param<i64>
      transform.match.structured.dim %s[0, 1, 2, 3] {parallel} : !transform.any_op
      transform.match.structured.dim %s[4, 5, 6] {reduction} : !transform.any_op
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %bw = transform.match.structured.elemental_bitwidth %init : (!transform.any_value) -> !transform.param<i64>
      %b = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %bw, %b : !transform.param<i64>
      %d = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %l = transform.param.constant 16 : i64 -> !transform.param<i64>
      transform.match.param.cmpi gt %d, %l : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_match_dwbig64_3(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %r = transform.param.constant 6 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %r : !transform.param<i64>
      transform.match.structured.dim %s[0, 1, 2, 3] {parallel} : !transform.any_op
      transform.match.structured.dim %s[4, 5] {reduction} : !transform.any_op
      transform.match.structured.dim %s[all] {static} : !transform.any_op
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %bw = transform.match.structured.elemental_bitwidth %init : (!transform.any_value) -> !transform.param<i64>
      %b = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %bw, %b : !transform.param<i64>
      %d = transform.match.structured.dim %s[3] : (!transform.any_op) -> !transform.param<i64>
      %l = transform.param.constant 16 : i64 -> !transform.param<i64>
      transform.match.param.cmpi gt %d, %l : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_epi_unfused(%root: !transform.any_op {transform.readonly}) {
    %convs = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv2d_e} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach_match restrict_root in %convs
        @conv_match_big32_1 -> @conv_mark32, @conv_match_big32_2 -> @conv_mark32, @conv_match_big32_3 -> @conv_mark32,
        @conv_match_big64_1 -> @conv_mark16, @conv_match_big64_2 -> @conv_mark16, @conv_match_big64_3 -> @conv_mark16
      : (!transform.any_op) -> !transform.any_op
    %dconvs = transform.structured.match ops{["linalg.generic"]} attributes {niro.dwconv2d_e} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach_match restrict_root in %dconvs
        @conv_match_dwbig32_1 -> @conv_mark_dw32, @conv_match_dwbig32_2 -> @conv_mark_dw32, @conv_match_dwbig32_3 -> @conv_mark_dw32,
        @conv_match_dwbig64_1 -> @conv_mark_dw16, @conv_match_dwbig64_2 -> @conv_mark_dw16, @conv_match_dwbig64_3 -> @conv_mark_dw16
      : (!transform.any_op) -> !transform.any_op
    // A row-form one left 7-D (a fused one was tiled again and folded).
    %rconvs = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv2d_rows_e} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach_match restrict_root in %rconvs
        @conv_match_f32 -> @conv_mark_rows32,
        @conv_match_f64 -> @conv_mark_rows16
      : (!transform.any_op) -> !transform.any_op
    transform.yield
  }

  transform.named_sequence @niro_conv(%root: !transform.any_op {transform.readonly}) {
    transform.include @conv_epi_tiles failures(propagate) (%root) : (!transform.any_op) -> ()
    transform.include @conv_epi_unfused failures(propagate) (%root) : (!transform.any_op) -> ()
    %tagged = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv2d} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach_match restrict_root in %tagged
        @conv_match_f32 -> @conv_mark32,
        @conv_match_f64 -> @conv_mark16
      : (!transform.any_op) -> !transform.any_op
    %gconvs = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv2dg} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach_match restrict_root in %gconvs
        @conv_match8_f32 -> @conv_mark8_32,
        @conv_match8_f64 -> @conv_mark8_16
      : (!transform.any_op) -> !transform.any_op
    // (niro.conv2d16: a 4-byte accumulator's block of 32k + 17 to
    // 32k + 31 channels, given the 16-channel block, which leaves a
    // remainder block of 1 to 15 channels rather than one of 17 to 31:
    // emit/conv.go, convBlockTag, chanBlock16; niro.conv2dg16 the same
    // per group, emit/conv_general.go, perGroupTag.)
    %tagged16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv2d16} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach_match restrict_root in %tagged16
        @conv_match_f32 -> @conv_mark16
      : (!transform.any_op) -> !transform.any_op
    // (niro.conv2d8: an 8-byte accumulator's block of 16k + 9 to
    // 16k + 15 channels, given the 8-channel block, which leaves a
    // remainder block of 1 to 7 channels rather than one of 9 to 15:
    // emit/conv.go, convBlockTag, chanBlock8.)
    %tagged8 = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv2d8} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach_match restrict_root in %tagged8
        @conv_match_f64 -> @conv_mark_c8
      : (!transform.any_op) -> !transform.any_op
    %gtagged16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv2dg16} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach_match restrict_root in %gtagged16
        @conv_match8_f32 -> @conv_mark8_16
      : (!transform.any_op) -> !transform.any_op
    // (niro.conv2dg8: the same as niro.conv2d8 per group,
    // emit/conv_general.go, perGroupTag, perGroupBlock8.)
    %gtagged8 = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv2dg8} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach_match restrict_root in %gtagged8
        @conv_match8_f64 -> @conv_mark8_8
      : (!transform.any_op) -> !transform.any_op
    %rows = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv2d_rows} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach_match restrict_root in %rows
        @conv_match_f32 -> @conv_mark_rows32,
        @conv_match_f64 -> @conv_mark_rows16
      : (!transform.any_op) -> !transform.any_op
    %dwconvs = transform.structured.match ops{["linalg.generic"]} attributes {niro.dwconv2d} in %root
      : (!transform.any_op) -> !transform.any_op
    %pools = transform.structured.match ops{["linalg.generic"]} attributes {niro.pool2d} in %root
      : (!transform.any_op) -> !transform.any_op
    %dwtagged = transform.merge_handles %dwconvs, %pools : !transform.any_op
    transform.foreach_match restrict_root in %dwtagged
        @conv_match_dw_f32 -> @conv_mark_dw32,
        @conv_match_dw_f64 -> @conv_mark_dw16
      : (!transform.any_op) -> !transform.any_op
    %t32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv_block32} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.include @conv_tile32 failures(propagate) (%t32) : (!transform.any_op) -> ()
    %t16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv_block16} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.include @conv_tile16 failures(propagate) (%t16) : (!transform.any_op) -> ()
    %t8 = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv_block8} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.include @conv_tile_c8 failures(propagate) (%t8) : (!transform.any_op) -> ()
    %g32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv8_block32} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.include @conv_tile8_32 failures(propagate) (%g32) : (!transform.any_op) -> ()
    %g16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv8_block16} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.include @conv_tile8_16 failures(propagate) (%g16) : (!transform.any_op) -> ()
    %g8 = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv8_block8} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.include @conv_tile8_8 failures(propagate) (%g8) : (!transform.any_op) -> ()
    %r32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.rows_block32} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.include @conv_tile_rows32 failures(propagate) (%r32) : (!transform.any_op) -> ()
    %r16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.rows_block16} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.include @conv_tile_rows16 failures(propagate) (%r16) : (!transform.any_op) -> ()
    %d32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.dw_block32} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.include @conv_tile_dw32 failures(propagate) (%d32) : (!transform.any_op) -> ()
    %d16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.dw_block16} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.include @conv_tile_dw16 failures(propagate) (%d16) : (!transform.any_op) -> ()
    // Make every peeled block static.
    transform.apply_patterns to %root {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.include @conv_epi_mmk_vec failures(propagate) (%root) : (!transform.any_op) -> ()
    transform.include @conv_epi_blocks failures(propagate) (%root) : (!transform.any_op) -> ()
    transform.include @conv_epi_mm_blocks failures(propagate) (%root) : (!transform.any_op) -> ()
    %a32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv_block32} in %root
      : (!transform.any_op) -> !transform.any_op
    %a16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv_block16} in %root
      : (!transform.any_op) -> !transform.any_op
    %a8 = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv_block8} in %root
      : (!transform.any_op) -> !transform.any_op
    %ablocks = transform.merge_handles %a32, %a16, %a8 : !transform.any_op
    transform.foreach_match restrict_root in %ablocks
        @conv_match_block1 -> @conv_mark_block1
      : (!transform.any_op) -> !transform.any_op
    %ones = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv_block1} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach %ones : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_steps1 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    // The per-group block's one-channel remainders (@conv_steps8_1),
    // before every other block's steps too.
    %g1a = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv8_block32} in %root
      : (!transform.any_op) -> !transform.any_op
    %g1b = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv8_block16} in %root
      : (!transform.any_op) -> !transform.any_op
    %g1c = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv8_block8} in %root
      : (!transform.any_op) -> !transform.any_op
    %g1blocks = transform.merge_handles %g1a, %g1b, %g1c : !transform.any_op
    transform.foreach_match restrict_root in %g1blocks
        @conv_match8_block1 -> @conv_mark8_block1
      : (!transform.any_op) -> !transform.any_op
    %gones = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv8_block1} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach %gones : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_steps8_1 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %b32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv_block32} in %root
      : (!transform.any_op) -> !transform.any_op
    %b16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv_block16} in %root
      : (!transform.any_op) -> !transform.any_op
    %b8 = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv_block8} in %root
      : (!transform.any_op) -> !transform.any_op
    %blocks = transform.merge_handles %b32, %b16, %b8 : !transform.any_op
    transform.foreach %blocks : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_steps failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %gb32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv8_block32} in %root
      : (!transform.any_op) -> !transform.any_op
    %gb16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv8_block16} in %root
      : (!transform.any_op) -> !transform.any_op
    %gb8 = transform.structured.match ops{["linalg.generic"]} attributes {niro.conv8_block8} in %root
      : (!transform.any_op) -> !transform.any_op
    %gblocks = transform.merge_handles %gb32, %gb16, %gb8 : !transform.any_op
    transform.foreach %gblocks : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_steps8 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %rsteps = transform.structured.match ops{["linalg.generic"]} attributes {niro.rows_step} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach_match restrict_root in %rsteps
        @conv_match_rows5 -> @conv_mark_rows5,
        @conv_match_rows4p -> @conv_mark_rows4p,
        @conv_match_rows4 -> @conv_mark_rows4
      : (!transform.any_op) -> !transform.any_op
    %rblocks = transform.structured.match ops{["linalg.generic"]} attributes {niro.rows_step5} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach %rblocks : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_steps_rows failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %rblocks4 = transform.structured.match ops{["linalg.generic"]} attributes {niro.rows_step4} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach %rblocks4 : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_steps_rows4 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %rblocks4p = transform.structured.match ops{["linalg.generic"]} attributes {niro.rows_step4p} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach %rblocks4p : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_steps_rows4p failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %dw1a = transform.structured.match ops{["linalg.generic"]} attributes {niro.dwconv2d} in %root
      : (!transform.any_op) -> !transform.any_op
    %dw1b = transform.structured.match ops{["linalg.generic"]} attributes {niro.dwconv2d_e} in %root
      : (!transform.any_op) -> !transform.any_op
    %dw1 = transform.merge_handles %dw1a, %dw1b : !transform.any_op
    transform.foreach_match restrict_root in %dw1
        @conv_match_dw_block1 -> @conv_mark_dw_block1
      : (!transform.any_op) -> !transform.any_op
    %dones = transform.structured.match ops{["linalg.generic"]} attributes {niro.dw_block1} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach %dones : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_steps_dw1 failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    %db32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.dw_block32} in %root
      : (!transform.any_op) -> !transform.any_op
    %db16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.dw_block16} in %root
      : (!transform.any_op) -> !transform.any_op
    %dblocks = transform.merge_handles %db32, %db16 : !transform.any_op
    transform.foreach %dblocks : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @conv_steps_dw failures(propagate) (%b) : (!transform.any_op) -> ()
    }
    // The row form's steps 5 and 6 last, after every other block's steps:
    // those apply the transfer patterns to the whole function
    // (@conv_steps_dw, @conv_steps, ...), and on a row block already
    // hoisted by @conv_finish_rows they do not terminate in MLIR 22. A
    // dense 3×3 convolution in the row form feeding a depthwise 3×3 one
    // (1×3×16×16 → 16 → 16) ran for ever with the depthwise steps after
    // it; it takes 0.2 s so (TestConvScheduleChains). Applied to the
    // blocks of the other forms already hoisted, the transfer patterns
    // terminate (every function of several blocks applies them so).
    transform.include @conv_finish_rows failures(propagate) (%root) : (!transform.any_op) -> ()
    transform.include @conv_epi_rows_2d failures(propagate) (%root) : (!transform.any_op) -> ()
    transform.apply_patterns to %root {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
}

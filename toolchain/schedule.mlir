// The contraction schedule: a transform-dialect library that niro runs over
// every linalg.generic carrying the unit attribute `niro.contraction` (a
// matrix product as niro emits it: a fill generic, then this contraction).
// It has two entry points, each a schedule of its own in passes.txt; a
// third, @niro_reduction ("reduction"), at the end of the file, schedules
// reductions over the last axis (see the comment there); a fourth,
// @niro_rowfuse ("rowfuse"), after it, fuses row-reduction chains such as
// Softmax into one loop over 16-row tiles, after running @niro_lanes (the
// lane partials of runs longer than 4096, tiled and vectorized; see the
// comment there).
//
// @niro_contraction ("contraction") runs before bufferization. Each tagged
// contraction with a mulf-then-addf body over f32 or f64 (or over f16/bf16
// operands widened with extf in the body and accumulated in f32, which is
// scheduled as f32, its panels packed in their own type), of rank 3 (row,
// column, contracted) or rank 4 (batch first), is
//
//   0. given a tiled transpose: a transpose generic producing one of its
//      operands (Gemm's transA/transB) is tiled into 16 x 16 blocks, so it
//      no longer reads its input down a column; the result is then packed
//      like any operand (step 5);
//   1. tiled one batch at a time (batched products; the batch loop is
//      outermost) and along the contracted axis by KC (a cache block: 256
//      f32 or 128 f64 elements, 1 KB of a left row);
//   2. tiled by rows into MC = 256 row blocks, so that the left block
//      (MC x KC, 256 KB) stays in L2 while every column panel reads it;
//   3. tiled into register blocks of 4 rows by 64 bytes of columns (16 f32
//      or 8 f64), the column loop outside the row loop, so each contracted
//      loop sits outside the block: (batch ->) KC -> MC -> column panel ->
//      4-row block -> k;
//   4. peeled: a row, column, MC or contracted extent the tile does not
//      divide gets one smaller block of its own, and after canonicalization
//      every block has static extents;
//   5. given a packed right operand: each KC x W panel is copied once per MC
//      block into a contiguous buffer before the row loop and read by its 64
//      row blocks (a copy changes no value; it keeps the panel in L1, which
//      rows a power-of-two matrix width apart are not); the copy is tiled by
//      rows and vectorized (one W-wide load and store per row). For a
//      dynamic extent, the padding also gives the leftover block a static
//      shape;
//   6. tiled by 1 along the contracted axis (made the block's first loop, so
//      that its unit extent folds away as a leading vector dimension) and
//      vectorized: per step, one row of the panel, one broadcast element of
//      each of the 4 left rows, 4 vector multiplies and 4 vector adds;
//   7. given its accumulator in registers: the block's read and write of the
//      result are hoisted out of the contracted loop.
// The phases run over all tagged ops at once (mark, tile and peel,
// canonicalize, pack, vectorize), so no phase holds a stale reference to an
// op another op's rewriting replaced. Packing rewrites every tensor.pad in
// the module into an allocation and a linalg.copy, which bufferizes to plain
// loops rather than a call into the MLIR runtime library.
//
// @niro_contraction_transfers ("contraction-transfers") runs after
// bufferization: it splits the blocks' vector transfers into one-dimensional
// loads and stores, so that each left element becomes one scalar load and a
// broadcast (convert-vector-to-scf would otherwise read it lane by lane).
//
// Exactness: every result element still adds its products one at a time in
// contracted order, starting from the fill's zero, with the multiply and the
// add as two separately rounded operations (arith.mulf then arith.addf; no
// vector.contract lowering is used, since its outer-product and elementwise
// forms emit vector.fma). Cutting the contracted loop into KC slices only
// stores the running sum and reloads it, which is exact; the batch, MC and
// column loops only reorder whole elements; packing and the tiled transpose
// copy values. A padded element is a zero never stored, or a zero product
// added to a sum that started at +0 and so is never -0. The result has the
// bits of the naive loop nest.
//
// A tagged op that matches none of the matchers is left alone (it becomes
// the naive loop nest in convert-linalg-to-loops).
module attributes {transform.with_named_sequence} {

  // ---- matchers ---------------------------------------------------------

  // A rank-3 contraction (row, column, contracted) with a mulf+addf body
  // whose accumulator has 32-bit elements.
  transform.named_sequence @match_mm_f32(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c3 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c3 : !transform.param<i64>
      transform.match.structured.dim %s[0, 1] {parallel} : !transform.any_op
      transform.match.structured.dim %s[2] {reduction} : !transform.any_op
      transform.match.structured.body %s {contraction = ["arith.mulf", "arith.addf"]} : !transform.any_op
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %bw = transform.match.structured.elemental_bitwidth %init : (!transform.any_value) -> !transform.param<i64>
      %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %bw, %c32 : !transform.param<i64>
      %in0 = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_value
      %bw0 = transform.match.structured.elemental_bitwidth %in0 : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi eq %bw0, %c32 : !transform.param<i64>
      %in1 = transform.match.structured.input %s[1] : (!transform.any_op) -> !transform.any_value
      %bw1 = transform.match.structured.elemental_bitwidth %in1 : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi eq %bw1, %c32 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }

  // As @match_mm_f32 for 64-bit elements.
  transform.named_sequence @match_mm_f64(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c3 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c3 : !transform.param<i64>
      transform.match.structured.dim %s[0, 1] {parallel} : !transform.any_op
      transform.match.structured.dim %s[2] {reduction} : !transform.any_op
      transform.match.structured.body %s {contraction = ["arith.mulf", "arith.addf"]} : !transform.any_op
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %bw = transform.match.structured.elemental_bitwidth %init : (!transform.any_value) -> !transform.param<i64>
      %c64 = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %bw, %c64 : !transform.param<i64>
      %in0 = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_value
      %bw0 = transform.match.structured.elemental_bitwidth %in0 : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi eq %bw0, %c64 : !transform.param<i64>
      %in1 = transform.match.structured.input %s[1] : (!transform.any_op) -> !transform.any_value
      %bw1 = transform.match.structured.elemental_bitwidth %in1 : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi eq %bw1, %c64 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }

  // A rank-4 batched contraction (batch, row, column, contracted), f32.
  transform.named_sequence @match_bmm_f32(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c4 = transform.param.constant 4 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c4 : !transform.param<i64>
      transform.match.structured.dim %s[0, 1, 2] {parallel} : !transform.any_op
      transform.match.structured.dim %s[3] {reduction} : !transform.any_op
      transform.match.structured.body %s {contraction = ["arith.mulf", "arith.addf"]} : !transform.any_op
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %bw = transform.match.structured.elemental_bitwidth %init : (!transform.any_value) -> !transform.param<i64>
      %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %bw, %c32 : !transform.param<i64>
      %in0 = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_value
      %bw0 = transform.match.structured.elemental_bitwidth %in0 : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi eq %bw0, %c32 : !transform.param<i64>
      %in1 = transform.match.structured.input %s[1] : (!transform.any_op) -> !transform.any_value
      %bw1 = transform.match.structured.elemental_bitwidth %in1 : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi eq %bw1, %c32 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }

  // As @match_bmm_f32 for 64-bit elements.
  transform.named_sequence @match_bmm_f64(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c4 = transform.param.constant 4 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c4 : !transform.param<i64>
      transform.match.structured.dim %s[0, 1, 2] {parallel} : !transform.any_op
      transform.match.structured.dim %s[3] {reduction} : !transform.any_op
      transform.match.structured.body %s {contraction = ["arith.mulf", "arith.addf"]} : !transform.any_op
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %bw = transform.match.structured.elemental_bitwidth %init : (!transform.any_value) -> !transform.param<i64>
      %c64 = transform.param.constant 64 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %bw, %c64 : !transform.param<i64>
      %in0 = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_value
      %bw0 = transform.match.structured.elemental_bitwidth %in0 : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi eq %bw0, %c64 : !transform.param<i64>
      %in1 = transform.match.structured.input %s[1] : (!transform.any_op) -> !transform.any_value
      %bw1 = transform.match.structured.elemental_bitwidth %in1 : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi eq %bw1, %c64 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }

  // A rank-3 contraction of 16-bit operands (f16, bf16) widened in the
  // body and accumulated in f32: scheduled as an f32 one, without packing.
  transform.named_sequence @match_mm_half(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c3 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c3 : !transform.param<i64>
      transform.match.structured.dim %s[0, 1] {parallel} : !transform.any_op
      transform.match.structured.dim %s[2] {reduction} : !transform.any_op
      transform.match.structured.body %s {contraction = ["arith.mulf", "arith.addf"]} : !transform.any_op
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %bw = transform.match.structured.elemental_bitwidth %init : (!transform.any_value) -> !transform.param<i64>
      %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %bw, %c32 : !transform.param<i64>
      %c16 = transform.param.constant 16 : i64 -> !transform.param<i64>
      %in0 = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_value
      %bw0 = transform.match.structured.elemental_bitwidth %in0 : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi eq %bw0, %c16 : !transform.param<i64>
      %in1 = transform.match.structured.input %s[1] : (!transform.any_op) -> !transform.any_value
      %bw1 = transform.match.structured.elemental_bitwidth %in1 : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi eq %bw1, %c16 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }

  // As @match_mm_half, rank 4.
  transform.named_sequence @match_bmm_half(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c4 = transform.param.constant 4 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c4 : !transform.param<i64>
      transform.match.structured.dim %s[0, 1, 2] {parallel} : !transform.any_op
      transform.match.structured.dim %s[3] {reduction} : !transform.any_op
      transform.match.structured.body %s {contraction = ["arith.mulf", "arith.addf"]} : !transform.any_op
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %bw = transform.match.structured.elemental_bitwidth %init : (!transform.any_value) -> !transform.param<i64>
      %c32 = transform.param.constant 32 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %bw, %c32 : !transform.param<i64>
      %c16 = transform.param.constant 16 : i64 -> !transform.param<i64>
      %in0 = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_value
      %bw0 = transform.match.structured.elemental_bitwidth %in0 : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi eq %bw0, %c16 : !transform.param<i64>
      %in1 = transform.match.structured.input %s[1] : (!transform.any_op) -> !transform.any_value
      %bw1 = transform.match.structured.elemental_bitwidth %in1 : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi eq %bw1, %c16 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }

  // A pack copy (see @pack_mm_f32) of a rank-2 panel (contracted, column)
  // or a rank-3 one (a unit batch axis first).
  transform.named_sequence @match_copy2(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.match.operation_name %op ["linalg.copy"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c2 = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c2 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @match_copy3(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.match.operation_name %op ["linalg.copy"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c3 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c3 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }

  // A permuting copy (a transpose as niro emits it: one input read through
  // a permutation, an identity output, a body that yields the input) of
  // rank 2 or 3.
  transform.named_sequence @match_transpose2(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c2 = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c2 : !transform.param<i64>
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      %nin = transform.match.structured.num_inputs %s : (!transform.any_op) -> !transform.param<i64>
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %nin, %c1 : !transform.param<i64>
      transform.match.structured.input %s[0] {permutation} : !transform.any_op
      transform.match.structured.body %s {passthrough} : !transform.any_op
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @match_transpose3(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %c3 = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %c3 : !transform.param<i64>
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      %nin = transform.match.structured.num_inputs %s : (!transform.any_op) -> !transform.param<i64>
      %c1 = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %nin, %c1 : !transform.param<i64>
      transform.match.structured.input %s[0] {permutation} : !transform.any_op
      transform.match.structured.body %s {passthrough} : !transform.any_op
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }

  // ---- actions ----------------------------------------------------------

  // Marking actions: they only name the block kind of each matched op.
  transform.named_sequence @mark_mm16(%op: !transform.any_op {transform.readonly}) {
    transform.annotate %op "niro.block_mm16" : !transform.any_op
    transform.yield
  }
  transform.named_sequence @mark_mm8(%op: !transform.any_op {transform.readonly}) {
    transform.annotate %op "niro.block_mm8" : !transform.any_op
    transform.yield
  }
  transform.named_sequence @mark_bmm16(%op: !transform.any_op {transform.readonly}) {
    transform.annotate %op "niro.block_bmm16" : !transform.any_op
    transform.yield
  }
  transform.named_sequence @mark_bmm8(%op: !transform.any_op {transform.readonly}) {
    transform.annotate %op "niro.block_bmm8" : !transform.any_op
    transform.yield
  }
  transform.named_sequence @mark_mmh16(%op: !transform.any_op {transform.readonly}) {
    transform.annotate %op "niro.block_mmh16" : !transform.any_op
    transform.yield
  }
  transform.named_sequence @mark_bmmh16(%op: !transform.any_op {transform.readonly}) {
    transform.annotate %op "niro.block_bmmh16" : !transform.any_op
    transform.yield
  }

  transform.named_sequence @mark_copy2(%op: !transform.any_op {transform.readonly}) {
    transform.annotate %op "niro.pack2" : !transform.any_op
    transform.yield
  }
  transform.named_sequence @mark_copy3(%op: !transform.any_op {transform.readonly}) {
    transform.annotate %op "niro.pack3" : !transform.any_op
    transform.yield
  }

  transform.named_sequence @mark_transpose2(%op: !transform.any_op {transform.readonly}) {
    transform.annotate %op "niro.transpose2" : !transform.any_op
    transform.yield
  }
  transform.named_sequence @mark_transpose3(%op: !transform.any_op {transform.readonly}) {
    transform.annotate %op "niro.transpose3" : !transform.any_op
    transform.yield
  }

  // Mark the producer of a contraction's left (right) operand when it is
  // a transpose. Fail (silenceably) when the operand has no producer op.
  transform.named_sequence @mark_transposed_lhs(%op: !transform.any_op {transform.readonly}) {
    %p = transform.get_producer_of_operand %op[0] : (!transform.any_op) -> !transform.any_op
    transform.foreach_match restrict_root in %p
        @match_transpose2 -> @mark_transpose2,
        @match_transpose3 -> @mark_transpose3
      : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
  transform.named_sequence @mark_transposed_rhs(%op: !transform.any_op {transform.readonly}) {
    %p = transform.get_producer_of_operand %op[1] : (!transform.any_op) -> !transform.any_op
    transform.foreach_match restrict_root in %p
        @match_transpose2 -> @mark_transpose2,
        @match_transpose3 -> @mark_transpose3
      : (!transform.any_op) -> !transform.any_op
    transform.yield
  }

  // Vectorizes one op; fails (silenceably) when it has a dynamic shape.
  transform.named_sequence @vectorize_one(%op: !transform.any_op {transform.consumed}) {
    transform.structured.vectorize %op : !transform.any_op
    transform.yield
  }

  // Vectorizes one lane-partials tile (the reduction schedule), reading
  // its tensor.extract as a contiguous vector load where the index allows.
  transform.named_sequence @vectorize_lanes(%op: !transform.any_op {transform.consumed}) {
    transform.structured.vectorize %op {vectorize_nd_extract} : !transform.any_op
    transform.yield
  }

  // Peels the last, partial iteration of each loop into a loop of its own.
  // Fails (silenceably) for a loop whose step divides its trip count, after
  // peeling the others; callers include it with failures(suppress).
  transform.named_sequence @peel(%loops: !transform.op<"scf.for"> {transform.consumed}) {
    %main, %rest = transform.loop.peel %loops : (!transform.op<"scf.for">) -> (!transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.yield
  }

  // Tiles rank-3 contractions: the contracted loop by KC (a cache block:
  // 256 f32 or 128 f64 elements, 1 KB of a left row either way), the rows
  // of each KC slice by MC = 256 (a row block whose left slice, 256 KB,
  // stays in L2 while every column panel reads it), then the register
  // block 4 x W (W = 16 for f32, 8 for f64: 64 bytes) with the column loop
  // outside the row loop, so that one packed KC x W panel of the right
  // operand (16 KB or 8 KB, in L1) serves the 64 row blocks of an MC
  // block; then peels the remainder of the row, column, MC and contracted
  // loops.
  transform.named_sequence @tile_mm16(%ops: !transform.any_op {transform.consumed}) {
    %slices, %kc = transform.structured.tile_using_for %ops tile_sizes [0, 0, 256]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">)
    %rowblocks, %mc = transform.structured.tile_using_for %slices tile_sizes [256, 0, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">)
    %blocks, %cols, %rows = transform.structured.tile_using_for %rowblocks tile_sizes [4, 16, 0] interchange = [1, 0, 2]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @peel failures(suppress) (%rows) : (!transform.op<"scf.for">) -> ()
    transform.include @peel failures(suppress) (%cols) : (!transform.op<"scf.for">) -> ()
    transform.include @peel failures(suppress) (%mc) : (!transform.op<"scf.for">) -> ()
    transform.include @peel failures(suppress) (%kc) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @tile_mm8(%ops: !transform.any_op {transform.consumed}) {
    %slices, %kc = transform.structured.tile_using_for %ops tile_sizes [0, 0, 128]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">)
    %rowblocks, %mc = transform.structured.tile_using_for %slices tile_sizes [256, 0, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">)
    %blocks, %cols, %rows = transform.structured.tile_using_for %rowblocks tile_sizes [4, 8, 0] interchange = [1, 0, 2]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @peel failures(suppress) (%rows) : (!transform.op<"scf.for">) -> ()
    transform.include @peel failures(suppress) (%cols) : (!transform.op<"scf.for">) -> ()
    transform.include @peel failures(suppress) (%mc) : (!transform.op<"scf.for">) -> ()
    transform.include @peel failures(suppress) (%kc) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }

  // Tiles rank-4 (batched) contractions: one batch at a time (the batch
  // loop outermost, so each product's result stays in cache across its KC
  // slices), otherwise as @tile_mm16 and @tile_mm8.
  transform.named_sequence @tile_bmm16(%ops: !transform.any_op {transform.consumed}) {
    %one, %batch = transform.structured.tile_using_for %ops tile_sizes [1, 0, 0, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">)
    %slices, %kc = transform.structured.tile_using_for %one tile_sizes [0, 0, 0, 256]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">)
    %rowblocks, %mc = transform.structured.tile_using_for %slices tile_sizes [0, 256, 0, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">)
    %blocks, %cols, %rows = transform.structured.tile_using_for %rowblocks tile_sizes [0, 4, 16, 0] interchange = [0, 2, 1, 3]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @peel failures(suppress) (%rows) : (!transform.op<"scf.for">) -> ()
    transform.include @peel failures(suppress) (%cols) : (!transform.op<"scf.for">) -> ()
    transform.include @peel failures(suppress) (%mc) : (!transform.op<"scf.for">) -> ()
    transform.include @peel failures(suppress) (%kc) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @tile_bmm8(%ops: !transform.any_op {transform.consumed}) {
    %one, %batch = transform.structured.tile_using_for %ops tile_sizes [1, 0, 0, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">)
    %slices, %kc = transform.structured.tile_using_for %one tile_sizes [0, 0, 0, 128]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">)
    %rowblocks, %mc = transform.structured.tile_using_for %slices tile_sizes [0, 256, 0, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">)
    %blocks, %cols, %rows = transform.structured.tile_using_for %rowblocks tile_sizes [0, 4, 8, 0] interchange = [0, 2, 1, 3]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @peel failures(suppress) (%rows) : (!transform.op<"scf.for">) -> ()
    transform.include @peel failures(suppress) (%cols) : (!transform.op<"scf.for">) -> ()
    transform.include @peel failures(suppress) (%mc) : (!transform.op<"scf.for">) -> ()
    transform.include @peel failures(suppress) (%kc) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }

  // Packs the right operand of one block: a copy (a tensor.pad that pads
  // nothing, marked nofold) hoisted out of the row loop, so that the row
  // blocks read a contiguous panel instead of rows a whole matrix row apart
  // (which at power-of-two widths all fall into one L1 set). A copy changes
  // no value. If the block has no row loop to leave, the copy stays in place.
  transform.named_sequence @pack_mm_f32(%block: !transform.any_op {transform.consumed}) {
    %padded, %pad, %copy = transform.structured.pad %block {
        padding_values = [0.0 : f32, 0.0 : f32, 0.0 : f32],
        padding_dimensions = [0, 1, 2],
        nofold_flags = [0, 1, 0],
        copy_back_op = "none"}
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.include @hoist_out_of_one_loop failures(suppress) (%pad) : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @pack_mm_f64(%block: !transform.any_op {transform.consumed}) {
    %padded, %pad, %copy = transform.structured.pad %block {
        padding_values = [0.0 : f64, 0.0 : f64, 0.0 : f64],
        padding_dimensions = [0, 1, 2],
        nofold_flags = [0, 1, 0],
        copy_back_op = "none"}
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.include @hoist_out_of_one_loop failures(suppress) (%pad) : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @pack_bmm_f32(%block: !transform.any_op {transform.consumed}) {
    %padded, %pad, %copy = transform.structured.pad %block {
        padding_values = [0.0 : f32, 0.0 : f32, 0.0 : f32],
        padding_dimensions = [0, 1, 2, 3],
        nofold_flags = [0, 1, 0],
        copy_back_op = "none"}
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.include @hoist_out_of_one_loop failures(suppress) (%pad) : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @pack_bmm_f64(%block: !transform.any_op {transform.consumed}) {
    %padded, %pad, %copy = transform.structured.pad %block {
        padding_values = [0.0 : f64, 0.0 : f64, 0.0 : f64],
        padding_dimensions = [0, 1, 2, 3],
        nofold_flags = [0, 1, 0],
        copy_back_op = "none"}
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.include @hoist_out_of_one_loop failures(suppress) (%pad) : (!transform.any_op) -> ()
    transform.yield
  }
  // As @pack_mm_f32 and @pack_bmm_f32 for half-precision operands (f16 or
  // bf16) accumulated in f32: the padding values are strings, which the
  // pad parses in each operand's own element type.
  transform.named_sequence @pack_mm_half(%block: !transform.any_op {transform.consumed}) {
    %padded, %pad, %copy = transform.structured.pad %block {
        padding_values = ["0.0", "0.0", "0.0"],
        padding_dimensions = [0, 1, 2],
        nofold_flags = [0, 1, 0],
        copy_back_op = "none"}
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.include @hoist_out_of_one_loop failures(suppress) (%pad) : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @pack_bmm_half(%block: !transform.any_op {transform.consumed}) {
    %padded, %pad, %copy = transform.structured.pad %block {
        padding_values = ["0.0", "0.0", "0.0"],
        padding_dimensions = [0, 1, 2, 3],
        nofold_flags = [0, 1, 0],
        copy_back_op = "none"}
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.include @hoist_out_of_one_loop failures(suppress) (%pad) : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @hoist_out_of_one_loop(%pad: !transform.any_op {transform.consumed}) {
    %hoisted = transform.structured.hoist_pad %pad by 1 loops : (!transform.any_op) -> !transform.any_op
    transform.yield
  }

  // ---- entry point ------------------------------------------------------

  transform.named_sequence @niro_contraction(%root: !transform.any_op {transform.readonly}) {
    // Remove dead code first: only live contractions get marked.
    transform.apply_patterns to %root {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %tagged = transform.structured.match ops{["linalg.generic"]} attributes {niro.contraction} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach_match restrict_root in %tagged
        @match_mm_f32 -> @mark_mm16,
        @match_mm_f64 -> @mark_mm8,
        @match_bmm_f32 -> @mark_bmm16,
        @match_bmm_f64 -> @mark_bmm8,
        @match_mm_half -> @mark_mmh16,
        @match_bmm_half -> @mark_bmmh16
      : (!transform.any_op) -> !transform.any_op

    // A transpose feeding an operand (Gemm's transA or transB, a MatMul of
    // a transposed tensor) is tiled into 16 x 16 blocks, peeled, and (below)
    // vectorized, so that it reads and writes 16 cache lines at a time
    // instead of reading its input down a column. The contraction then
    // packs the transposed result like any operand. (A copy changes no
    // value. Canonicalization gives each tile a fresh tensor.empty, since
    // its body never reads the destination; passes.txt's
    // eliminate-empty-tensors and cse make the tiles write in place.)
    %live = transform.structured.match ops{["linalg.generic"]} attributes {niro.contraction} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach %live : !transform.any_op {
    ^bb0(%c: !transform.any_op):
      transform.include @mark_transposed_lhs failures(suppress) (%c) : (!transform.any_op) -> ()
      transform.include @mark_transposed_rhs failures(suppress) (%c) : (!transform.any_op) -> ()
    }
    %tr2 = transform.structured.match ops{["linalg.generic"]} attributes {niro.transpose2} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach %tr2 : !transform.any_op {
    ^bb0(%t: !transform.any_op):
      %tt, %tl0, %tl1 = transform.structured.tile_using_for %t tile_sizes [16, 16]
        : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">)
      transform.include @peel failures(suppress) (%tl1) : (!transform.op<"scf.for">) -> ()
      transform.include @peel failures(suppress) (%tl0) : (!transform.op<"scf.for">) -> ()
    }
    %tr3 = transform.structured.match ops{["linalg.generic"]} attributes {niro.transpose3} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach %tr3 : !transform.any_op {
    ^bb0(%t: !transform.any_op):
      %tt, %tl0, %tl1, %tl2 = transform.structured.tile_using_for %t tile_sizes [1, 16, 16]
        : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
      transform.include @peel failures(suppress) (%tl2) : (!transform.op<"scf.for">) -> ()
      transform.include @peel failures(suppress) (%tl1) : (!transform.op<"scf.for">) -> ()
    }

    // Tile and peel.
    %mm16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.block_mm16} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.include @tile_mm16 failures(propagate) (%mm16) : (!transform.any_op) -> ()
    %mm8 = transform.structured.match ops{["linalg.generic"]} attributes {niro.block_mm8} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.include @tile_mm8 failures(propagate) (%mm8) : (!transform.any_op) -> ()
    %bmm16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.block_bmm16} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.include @tile_bmm16 failures(propagate) (%bmm16) : (!transform.any_op) -> ()
    %bmm8 = transform.structured.match ops{["linalg.generic"]} attributes {niro.block_bmm8} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.include @tile_bmm8 failures(propagate) (%bmm8) : (!transform.any_op) -> ()
    %mmh16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.block_mmh16} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.include @tile_mm16 failures(propagate) (%mmh16) : (!transform.any_op) -> ()
    %bmmh16 = transform.structured.match ops{["linalg.generic"]} attributes {niro.block_bmmh16} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.include @tile_bmm16 failures(propagate) (%bmmh16) : (!transform.any_op) -> ()

    // Make every peeled block static.
    transform.apply_patterns to %root {
      transform.apply_patterns.canonicalization
    } : !transform.any_op

    // Pack the right operand's panels.
    %pk_mm_f32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.block_mm16} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach %pk_mm_f32 : !transform.any_op {
    ^bb0(%block: !transform.any_op):
      transform.include @pack_mm_f32 failures(suppress) (%block) : (!transform.any_op) -> ()
    }
    %pk_mm_f64 = transform.structured.match ops{["linalg.generic"]} attributes {niro.block_mm8} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach %pk_mm_f64 : !transform.any_op {
    ^bb0(%block: !transform.any_op):
      transform.include @pack_mm_f64 failures(suppress) (%block) : (!transform.any_op) -> ()
    }
    %pk_bmm_f32 = transform.structured.match ops{["linalg.generic"]} attributes {niro.block_bmm16} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach %pk_bmm_f32 : !transform.any_op {
    ^bb0(%block: !transform.any_op):
      transform.include @pack_bmm_f32 failures(suppress) (%block) : (!transform.any_op) -> ()
    }
    %pk_bmm_f64 = transform.structured.match ops{["linalg.generic"]} attributes {niro.block_bmm8} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach %pk_bmm_f64 : !transform.any_op {
    ^bb0(%block: !transform.any_op):
      transform.include @pack_bmm_f64 failures(suppress) (%block) : (!transform.any_op) -> ()
    }
    %pk_mm_half = transform.structured.match ops{["linalg.generic"]} attributes {niro.block_mmh16} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach %pk_mm_half : !transform.any_op {
    ^bb0(%block: !transform.any_op):
      transform.include @pack_mm_half failures(suppress) (%block) : (!transform.any_op) -> ()
    }
    %pk_bmm_half = transform.structured.match ops{["linalg.generic"]} attributes {niro.block_bmmh16} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach %pk_bmm_half : !transform.any_op {
    ^bb0(%block: !transform.any_op):
      transform.include @pack_bmm_half failures(suppress) (%block) : (!transform.any_op) -> ()
    }
    // Write the copies as linalg.copy into fresh buffers: a tensor.pad
    // would bufferize to memref.copy between strided buffers, which becomes
    // a call into the MLIR runtime library.
    %pads = transform.structured.match ops{["tensor.pad"]} in %root : (!transform.any_op) -> !transform.any_op
    %copies = transform.structured.rewrite_in_destination_passing_style %pads
      : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %root {
      transform.apply_patterns.canonicalization
    } : !transform.any_op

    // Tile each pack copy by rows of the panel (one W-wide vector load and
    // store per row once vectorized below; left as it is, the copy would be
    // a scalar loop nest). niro emits no linalg.copy of its own, so every
    // copy here is a pack.
    %packs = transform.structured.match ops{["linalg.copy"]} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach_match restrict_root in %packs
        @match_copy2 -> @mark_copy2,
        @match_copy3 -> @mark_copy3
      : (!transform.any_op) -> !transform.any_op
    %pack2 = transform.structured.match ops{["linalg.copy"]} attributes {niro.pack2} in %root
      : (!transform.any_op) -> !transform.any_op
    %prow2, %ploop2 = transform.structured.tile_using_for %pack2 tile_sizes [1, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">)
    %pack3 = transform.structured.match ops{["linalg.copy"]} attributes {niro.pack3} in %root
      : (!transform.any_op) -> !transform.any_op
    %prow3, %pbatch3, %ploop3 = transform.structured.tile_using_for %pack3 tile_sizes [1, 1, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">)
    %prows = transform.merge_handles %prow2, %prow3 : !transform.any_op

    // Vectorize the blocks, contracted loop by 1 outside each. The block's
    // loops are first interchanged to put the contracted one first, so that
    // its unit extent becomes a leading vector dimension, which folds away
    // cleanly (a trailing one would survive into the llvm dialect as
    // one-element vectors).
    %b3a = transform.structured.match ops{["linalg.generic"]} attributes {niro.block_mm16} in %root
      : (!transform.any_op) -> !transform.any_op
    %b3b = transform.structured.match ops{["linalg.generic"]} attributes {niro.block_mm8} in %root
      : (!transform.any_op) -> !transform.any_op
    %b3c = transform.structured.match ops{["linalg.generic"]} attributes {niro.block_mmh16} in %root
      : (!transform.any_op) -> !transform.any_op
    %b3 = transform.merge_handles %b3a, %b3b, %b3c : !transform.any_op
    %i3 = transform.structured.interchange %b3 iterator_interchange = [2, 0, 1]
      : (!transform.any_op) -> !transform.any_op
    %steps3, %k3 = transform.structured.tile_using_for %i3 tile_sizes [1, 0, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">)
    %b4a = transform.structured.match ops{["linalg.generic"]} attributes {niro.block_bmm16} in %root
      : (!transform.any_op) -> !transform.any_op
    %b4b = transform.structured.match ops{["linalg.generic"]} attributes {niro.block_bmm8} in %root
      : (!transform.any_op) -> !transform.any_op
    %b4c = transform.structured.match ops{["linalg.generic"]} attributes {niro.block_bmmh16} in %root
      : (!transform.any_op) -> !transform.any_op
    %b4 = transform.merge_handles %b4a, %b4b, %b4c : !transform.any_op
    %i4 = transform.structured.interchange %b4 iterator_interchange = [3, 0, 1, 2]
      : (!transform.any_op) -> !transform.any_op
    %steps4, %k4 = transform.structured.tile_using_for %i4 tile_sizes [1, 0, 0, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">)
    %steps = transform.merge_handles %steps3, %steps4 : !transform.any_op
    %kloops = transform.merge_handles %k3, %k4 : !transform.op<"scf.for">
    transform.structured.vectorize %steps : !transform.any_op
    transform.structured.vectorize %prows : !transform.any_op
    // The transpose tiles, static after peeling (a dynamic one stays a
    // scalar loop nest): one vector.transpose of 16 x 16 elements each.
    %trt2 = transform.structured.match ops{["linalg.generic"]} attributes {niro.transpose2} in %root
      : (!transform.any_op) -> !transform.any_op
    %trt3 = transform.structured.match ops{["linalg.generic"]} attributes {niro.transpose3} in %root
      : (!transform.any_op) -> !transform.any_op
    %trt = transform.merge_handles %trt2, %trt3 : !transform.any_op
    transform.foreach %trt : !transform.any_op {
    ^bb0(%t: !transform.any_op):
      transform.include @vectorize_one failures(suppress) (%t) : (!transform.any_op) -> ()
    }
    transform.apply_patterns to %root {
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
      transform.apply_patterns.vector.transfer_permutation_patterns
    } : !transform.any_op

    // Keep each accumulator in registers across its contracted loop. (Done
    // before canonicalization, which folds away a contracted loop of one
    // step and with it the handle.)
    transform.loop.hoist_loop_invariant_subsets %kloops : !transform.op<"scf.for">
    transform.apply_patterns to %root {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }

  transform.named_sequence @niro_contraction_transfers(%root: !transform.any_op {transform.readonly}) {
    // The row form's one-column tiles (toolchain/conv.mlir,
    // niro.epi_rows_col1 on the op that holds one: a tile loop, or the
    // function): a one-column block (an output row of 16k + 1 columns,
    // 8k + 1 in f64) reads and writes its accumulator with 0-d transfers
    // (vector<f32>, left by cast_away_vector_leading_one_dim) through a
    // rank-reduced subview of its 1 × 1 × 1 × 1 tile, which bufferization
    // gives the strides of the leading dimensions (n, m: memref<1x1xf32,
    // strided<[85, 85]>> for 1 × 1 × 5 × 17); lower_transfer and
    // convert-vector-to-llvm take only a memref whose last stride is 1, so
    // the transfer would survive into the LLVM dialect. Folding the
    // subviews into the transfers' indices reads the accumulator itself.
    %rows = transform.structured.match ops{["scf.for", "func.func"]} attributes {niro.epi_rows_col1} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %rows {
      transform.apply_patterns.memref.fold_memref_alias_ops
    } : !transform.any_op
    %funcs = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %funcs {
      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1
      transform.apply_patterns.vector.transfer_to_scf max_transfer_rank = 1 full_unroll = true
    } : !transform.any_op
    transform.apply_patterns to %funcs {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }

  // ---- the reduction schedule -------------------------------------------
  // @niro_reduction ("reduction") runs after linalg-fuse-elementwise-ops,
  // before bufferization, over every static linalg.generic whose last loop
  // is its only reduction and whose first input is read through a
  // permutation (a Reduce as emit writes it, with any element-wise
  // producers fused into its body; a contraction reads its operands through
  // projections and is left to the contraction schedule): rank 2 (rows,
  // reduced) or rank 3 (two parallel loops, then the reduced one).
  //
  // The tile is 16 rows by 16 reduced elements, the reduced loop inside the
  // row loop; each tile is vectorized into a vector.multi_reduction over
  // its reduced dimension with the rows' 16 accumulators as its acc, and
  // that is lowered "innerparallel": a 16 x 16 transpose, then 16 vector
  // combines, the first with the accumulator, each adding (or taking the
  // max of) one column of the tile into all 16 rows at once. The row
  // accumulators stay in registers across the reduced loop.
  //
  // Exactness: every row still folds its elements one at a time in
  // ascending order, starting from the fill's value: the 16 lanes are 16
  // different rows, never parts of one row's sum. Cutting the reduced loop
  // into tiles of 16 only stores the running value and reloads it. The
  // combine is the body's own op (arith.addf, arith.mulf, arith.maximumf,
  // ...) on vectors, with the element and the accumulator as its operands
  // in the other order, which for IEEE add, multiply, maximum and minimum
  // gives the same value (commutative, ±0 and NaN included; a NaN's payload
  // is not specified by LLVM in either order). A remainder of rows or of
  // reduced elements gets its own, smaller tile (peeled); a dynamic tile
  // stays a scalar loop nest, in the same order.
  // Matchers by rank (2 or 3) and number of inputs (1 to 3): one init,
  // and no operand of i1, whose vector loads LLVM would read as packed
  // bits rather than one byte per element.
  transform.named_sequence @match_reduce2_1(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %r = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %r : !transform.param<i64>
      transform.match.structured.dim %s[0] {parallel} : !transform.any_op
      transform.match.structured.dim %s[1] {reduction} : !transform.any_op
      transform.match.structured.input %s[0] {permutation} : !transform.any_op
      %n = transform.match.structured.num_inputs %s : (!transform.any_op) -> !transform.param<i64>
      %nin = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %n, %nin : !transform.param<i64>
      %c8 = transform.param.constant 8 : i64 -> !transform.param<i64>
      %in0 = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_value
      %bw0 = transform.match.structured.elemental_bitwidth %in0 : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi ge %bw0, %c8 : !transform.param<i64>
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %bwi = transform.match.structured.elemental_bitwidth %init : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi ge %bwi, %c8 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }

  transform.named_sequence @match_reduce2_2(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %r = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %r : !transform.param<i64>
      transform.match.structured.dim %s[0] {parallel} : !transform.any_op
      transform.match.structured.dim %s[1] {reduction} : !transform.any_op
      transform.match.structured.input %s[0] {permutation} : !transform.any_op
      %n = transform.match.structured.num_inputs %s : (!transform.any_op) -> !transform.param<i64>
      %nin = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %n, %nin : !transform.param<i64>
      %c8 = transform.param.constant 8 : i64 -> !transform.param<i64>
      %in0 = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_value
      %bw0 = transform.match.structured.elemental_bitwidth %in0 : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi ge %bw0, %c8 : !transform.param<i64>
      %in1 = transform.match.structured.input %s[1] : (!transform.any_op) -> !transform.any_value
      %bw1 = transform.match.structured.elemental_bitwidth %in1 : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi ge %bw1, %c8 : !transform.param<i64>
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %bwi = transform.match.structured.elemental_bitwidth %init : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi ge %bwi, %c8 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }

  transform.named_sequence @match_reduce2_3(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %r = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %r : !transform.param<i64>
      transform.match.structured.dim %s[0] {parallel} : !transform.any_op
      transform.match.structured.dim %s[1] {reduction} : !transform.any_op
      transform.match.structured.input %s[0] {permutation} : !transform.any_op
      %n = transform.match.structured.num_inputs %s : (!transform.any_op) -> !transform.param<i64>
      %nin = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %n, %nin : !transform.param<i64>
      %c8 = transform.param.constant 8 : i64 -> !transform.param<i64>
      %in0 = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_value
      %bw0 = transform.match.structured.elemental_bitwidth %in0 : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi ge %bw0, %c8 : !transform.param<i64>
      %in1 = transform.match.structured.input %s[1] : (!transform.any_op) -> !transform.any_value
      %bw1 = transform.match.structured.elemental_bitwidth %in1 : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi ge %bw1, %c8 : !transform.param<i64>
      %in2 = transform.match.structured.input %s[2] : (!transform.any_op) -> !transform.any_value
      %bw2 = transform.match.structured.elemental_bitwidth %in2 : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi ge %bw2, %c8 : !transform.param<i64>
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %bwi = transform.match.structured.elemental_bitwidth %init : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi ge %bwi, %c8 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }

  transform.named_sequence @match_reduce3_1(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %r = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %r : !transform.param<i64>
      transform.match.structured.dim %s[0, 1] {parallel} : !transform.any_op
      transform.match.structured.dim %s[2] {reduction} : !transform.any_op
      transform.match.structured.input %s[0] {permutation} : !transform.any_op
      %n = transform.match.structured.num_inputs %s : (!transform.any_op) -> !transform.param<i64>
      %nin = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %n, %nin : !transform.param<i64>
      %c8 = transform.param.constant 8 : i64 -> !transform.param<i64>
      %in0 = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_value
      %bw0 = transform.match.structured.elemental_bitwidth %in0 : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi ge %bw0, %c8 : !transform.param<i64>
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %bwi = transform.match.structured.elemental_bitwidth %init : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi ge %bwi, %c8 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }

  transform.named_sequence @match_reduce3_2(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %r = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %r : !transform.param<i64>
      transform.match.structured.dim %s[0, 1] {parallel} : !transform.any_op
      transform.match.structured.dim %s[2] {reduction} : !transform.any_op
      transform.match.structured.input %s[0] {permutation} : !transform.any_op
      %n = transform.match.structured.num_inputs %s : (!transform.any_op) -> !transform.param<i64>
      %nin = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %n, %nin : !transform.param<i64>
      %c8 = transform.param.constant 8 : i64 -> !transform.param<i64>
      %in0 = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_value
      %bw0 = transform.match.structured.elemental_bitwidth %in0 : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi ge %bw0, %c8 : !transform.param<i64>
      %in1 = transform.match.structured.input %s[1] : (!transform.any_op) -> !transform.any_value
      %bw1 = transform.match.structured.elemental_bitwidth %in1 : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi ge %bw1, %c8 : !transform.param<i64>
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %bwi = transform.match.structured.elemental_bitwidth %init : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi ge %bwi, %c8 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }

  transform.named_sequence @match_reduce3_3(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %r = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %r : !transform.param<i64>
      transform.match.structured.dim %s[0, 1] {parallel} : !transform.any_op
      transform.match.structured.dim %s[2] {reduction} : !transform.any_op
      transform.match.structured.input %s[0] {permutation} : !transform.any_op
      %n = transform.match.structured.num_inputs %s : (!transform.any_op) -> !transform.param<i64>
      %nin = transform.param.constant 3 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %n, %nin : !transform.param<i64>
      %c8 = transform.param.constant 8 : i64 -> !transform.param<i64>
      %in0 = transform.match.structured.input %s[0] : (!transform.any_op) -> !transform.any_value
      %bw0 = transform.match.structured.elemental_bitwidth %in0 : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi ge %bw0, %c8 : !transform.param<i64>
      %in1 = transform.match.structured.input %s[1] : (!transform.any_op) -> !transform.any_value
      %bw1 = transform.match.structured.elemental_bitwidth %in1 : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi ge %bw1, %c8 : !transform.param<i64>
      %in2 = transform.match.structured.input %s[2] : (!transform.any_op) -> !transform.any_value
      %bw2 = transform.match.structured.elemental_bitwidth %in2 : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi ge %bw2, %c8 : !transform.param<i64>
      %init = transform.match.structured.init %s[0] : (!transform.any_op) -> !transform.any_value
      %bwi = transform.match.structured.elemental_bitwidth %init : (!transform.any_value) -> !transform.param<i64>
      transform.match.param.cmpi ge %bwi, %c8 : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }

  transform.named_sequence @mark_reduce2(%op: !transform.any_op {transform.readonly}) {
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %op "niro.reduce2" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @mark_reduce3(%op: !transform.any_op {transform.readonly}) {
    %u = transform.param.constant unit -> !transform.any_param
    transform.annotate %op "niro.reduce3" = %u : !transform.any_op, !transform.any_param
    transform.yield
  }

  // ---- the lane partials ------------------------------------------------
  // @niro_lanes runs at the start of @niro_rowfuse (before its unit-extent
  // fold, which would rebuild a lane generic with a unit axis without its
  // tag) over a long run's lane partials (emit/reducelanes.go: a generic
  // tagged niro.lanevec or niro.lanes = its rank, loops (kept..., lane, j);
  // docs/toolchain.md, "The reduction schedule").
  transform.named_sequence @niro_lanes(%root: !transform.any_op {transform.readonly}) {
    // A long run's lane partials (emit/reducelanes.go: a generic tagged
    // niro.lanevec or niro.lanes = its rank, loops (kept..., lane, j)).
    // niro.lanevec (the run is the operand's trailing axes, so lane l+1
    // reads the element after lane l's): tiled by 1 along the kept axes and
    // the step j and by 16 along the lanes, j outside the lanes, the lane
    // remainder peeled, and each tile vectorized: one step of 16 lanes is a
    // contiguous 16-element load combined into the 16 lanes' partials with
    // the body's own op. Each lane still folds its positions one at a time
    // in ascending j from the seed; the 16 lanes of a vector are 16
    // different accumulators, never parts of one: the same bits.
    %v2 = transform.structured.match ops{["linalg.generic"]} attributes {niro.lanevec = 2 : i64} in %root
      : (!transform.any_op) -> !transform.any_op
    %v3 = transform.structured.match ops{["linalg.generic"]} attributes {niro.lanevec = 3 : i64} in %root
      : (!transform.any_op) -> !transform.any_op
    %v4 = transform.structured.match ops{["linalg.generic"]} attributes {niro.lanevec = 4 : i64} in %root
      : (!transform.any_op) -> !transform.any_op
    // The functions holding them (none: an empty handle, which the
    // canonicalization below then leaves alone).
    %vall = transform.merge_handles %v2, %v3, %v4 : !transform.any_op
    %vfuncs = transform.get_parent_op %vall {op_name = "func.func", deduplicate}
      : (!transform.any_op) -> !transform.any_op
    %vt2, %vj2, %vl2 = transform.structured.tile_using_for %v2 tile_sizes [16, 1] interchange = [1, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">)
    %vt3, %vk3, %vj3, %vl3 = transform.structured.tile_using_for %v3 tile_sizes [1, 16, 1] interchange = [0, 2, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    %vt4, %vk4a, %vk4b, %vj4, %vl4 = transform.structured.tile_using_for %v4 tile_sizes [1, 1, 16, 1] interchange = [0, 1, 3, 2]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    %vl = transform.merge_handles %vl2, %vl3, %vl4 : !transform.op<"scf.for">
    transform.foreach %vl : !transform.op<"scf.for"> {
    ^bb0(%l: !transform.op<"scf.for">):
      transform.include @peel failures(suppress) (%l) : (!transform.op<"scf.for">) -> ()
    }
    // The peeled tiles' sizes become static.
    transform.apply_patterns to %vfuncs {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %vtiles2 = transform.structured.match ops{["linalg.generic"]} attributes {niro.lanevec = 2 : i64} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach %vtiles2 : !transform.any_op {
    ^bb0(%t: !transform.any_op):
      transform.include @vectorize_lanes2 failures(suppress) (%t) : (!transform.any_op) -> ()
    }
    %vtiles3 = transform.structured.match ops{["linalg.generic"]} attributes {niro.lanevec = 3 : i64} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach %vtiles3 : !transform.any_op {
    ^bb0(%t: !transform.any_op):
      transform.include @vectorize_lanes3 failures(suppress) (%t) : (!transform.any_op) -> ()
    }
    %vtiles4 = transform.structured.match ops{["linalg.generic"]} attributes {niro.lanevec = 4 : i64} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach %vtiles4 : !transform.any_op {
    ^bb0(%t: !transform.any_op):
      transform.include @vectorize_lanes4 failures(suppress) (%t) : (!transform.any_op) -> ()
    }
    // niro.lanes (a run elsewhere in the operand, or of i1): tiled by 1
    // along the kept axes and the step j, the lane axis whole, so the host
    // walks each step's 4096 lanes contiguously instead of one lane's
    // positions 4096 apart; scalar. The same bits as the untiled generic.
    %l2 = transform.structured.match ops{["linalg.generic"]} attributes {niro.lanes = 2 : i64} in %root
      : (!transform.any_op) -> !transform.any_op
    %lt2, %lj2 = transform.structured.tile_using_for %l2 tile_sizes [0, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">)
    %l3 = transform.structured.match ops{["linalg.generic"]} attributes {niro.lanes = 3 : i64} in %root
      : (!transform.any_op) -> !transform.any_op
    %lt3, %lk3, %lj3 = transform.structured.tile_using_for %l3 tile_sizes [1, 0, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">)
    %l4 = transform.structured.match ops{["linalg.generic"]} attributes {niro.lanes = 4 : i64} in %root
      : (!transform.any_op) -> !transform.any_op
    %lt4, %lk4a, %lk4b, %lj4 = transform.structured.tile_using_for %l4 tile_sizes [1, 1, 0, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.yield
  }

  // One niro.lanevec tile (one step j of up to 16 lanes, the kept axes
  // 1) with its lane loop moved innermost, so the lanes are the vector's
  // one non-unit, trailing axis, then vectorized: the element read is a
  // contiguous vector load, the fold over the unit step a vector op.
  transform.named_sequence @vectorize_lanes2(%op: !transform.any_op {transform.consumed}) {
    %i = transform.structured.interchange %op iterator_interchange = [1, 0]
      : (!transform.any_op) -> !transform.any_op
    transform.include @vectorize_lanes failures(propagate) (%i) : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @vectorize_lanes3(%op: !transform.any_op {transform.consumed}) {
    %i = transform.structured.interchange %op iterator_interchange = [0, 2, 1]
      : (!transform.any_op) -> !transform.any_op
    transform.include @vectorize_lanes failures(propagate) (%i) : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @vectorize_lanes4(%op: !transform.any_op {transform.consumed}) {
    %i = transform.structured.interchange %op iterator_interchange = [0, 1, 3, 2]
      : (!transform.any_op) -> !transform.any_op
    transform.include @vectorize_lanes failures(propagate) (%i) : (!transform.any_op) -> ()
    transform.yield
  }

  transform.named_sequence @niro_reduction(%root: !transform.any_op {transform.readonly}) {
    %all = transform.structured.match ops{["linalg.generic"]} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach_match restrict_root in %all
        @match_reduce2_1 -> @mark_reduce2,
        @match_reduce2_2 -> @mark_reduce2,
        @match_reduce2_3 -> @mark_reduce2,
        @match_reduce3_1 -> @mark_reduce3,
        @match_reduce3_2 -> @mark_reduce3,
        @match_reduce3_3 -> @mark_reduce3
      : (!transform.any_op) -> !transform.any_op
    %r2 = transform.structured.match ops{["linalg.generic"]} attributes {niro.reduce2} in %root
      : (!transform.any_op) -> !transform.any_op
    %t2, %rows2, %red2 = transform.structured.tile_using_for %r2 tile_sizes [16, 16]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">)
    %r3 = transform.structured.match ops{["linalg.generic"]} attributes {niro.reduce3} in %root
      : (!transform.any_op) -> !transform.any_op
    %t3, %outer3, %rows3, %red3 = transform.structured.tile_using_for %r3 tile_sizes [1, 16, 16]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">, !transform.op<"scf.for">)
    %red = transform.merge_handles %red2, %red3 : !transform.op<"scf.for">
    %rows = transform.merge_handles %rows2, %rows3 : !transform.op<"scf.for">
    transform.foreach %red : !transform.op<"scf.for"> {
    ^bb0(%l: !transform.op<"scf.for">):
      transform.include @peel failures(suppress) (%l) : (!transform.op<"scf.for">) -> ()
    }
    transform.foreach %rows : !transform.op<"scf.for"> {
    ^bb0(%l: !transform.op<"scf.for">):
      transform.include @peel failures(suppress) (%l) : (!transform.op<"scf.for">) -> ()
    }
    transform.apply_patterns to %root {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %tiles2 = transform.structured.match ops{["linalg.generic"]} attributes {niro.reduce2} in %root
      : (!transform.any_op) -> !transform.any_op
    %tiles3 = transform.structured.match ops{["linalg.generic"]} attributes {niro.reduce3} in %root
      : (!transform.any_op) -> !transform.any_op
    %tiles = transform.merge_handles %tiles2, %tiles3 : !transform.any_op
    transform.foreach %tiles : !transform.any_op {
    ^bb0(%t: !transform.any_op):
      transform.include @vectorize_one failures(suppress) (%t) : (!transform.any_op) -> ()
    }
    %funcs = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %funcs {
      transform.apply_patterns.vector.lower_multi_reduction lowering_strategy = "innerparallel"
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
    } : !transform.any_op
    // A 16 x 16 transpose becomes a network of shuffles (unpacks and
    // permutes) instead of 256 element extracts and inserts.
    transform.apply_patterns to %funcs {
      transform.apply_patterns.vector.lower_transpose lowering_strategy = "shuffle_16x16"
    } : !transform.any_op
    %loops = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.op<"scf.for">
    transform.foreach %loops : !transform.op<"scf.for"> {
    ^bb0(%l: !transform.op<"scf.for">):
      transform.loop.hoist_loop_invariant_subsets %l : !transform.op<"scf.for">
    }
    transform.apply_patterns to %root {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }

  // ---- row fusion (@niro_rowfuse, "rowfuse") ------------------------------
  //
  // Runs after linalg-fuse-elementwise-ops, before @niro_reduction. A
  // row consumer is a rank-2 all-parallel generic whose operand 1 is
  // produced by a generic reducing its last axis (Softmax's divide, which
  // reads e = exp(x - max) and the row sums; Softmax's exp, which reads the
  // row maxima; LayerNormalization's output). Each row consumer that no
  // other row consumer reads is tiled by 16 rows and every producer
  // (reductions, their fills, the element-wise ops between them) is fused
  // into the row loop, so an intermediate such as e (or LayerNormalization's
  // d = x - mean) only exists as a 16-row tile. Reductions must first write
  // a rank-1 result (the fusion
  // needs projected-permutation result maps), so unit dimensions are
  // folded away first (linalg's fold-unit-extent-dims, with reshapes).
  //
  // Exactness: only the row loop is tiled; every reduction still folds a
  // whole row in order from its fill, and every element is computed by the
  // same scalar ops. An op with two uses is cloned per use and the clones
  // of one tile are merged by CSE (same op, same slice); where they are
  // not, the recomputation has the same bits.
  transform.named_sequence @match_row_consumer(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %r = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %r : !transform.param<i64>
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      transform.match.structured.yield
    }
    %p = transform.get_producer_of_operand %op[1] : (!transform.any_op) -> !transform.any_op
    transform.match.operation_name %p ["linalg.generic"] : !transform.any_op
    transform.match.structured %p : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %r = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %r : !transform.param<i64>
      transform.match.structured.dim %s[0] {parallel} : !transform.any_op
      transform.match.structured.dim %s[1] {reduction} : !transform.any_op
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @pass_op(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @mark_row_consumer(%op: !transform.any_op {transform.readonly}) {
    %one = transform.param.constant 1 : i64 -> !transform.any_param
    transform.annotate %op "niro.rowfuse" = %one : !transform.any_op, !transform.any_param
    transform.yield
  }
  // Sets niro.rowfuse to 0 on a row consumer that another one reads.
  transform.named_sequence @unmark_inner(%op: !transform.any_op {transform.readonly}) {
    %c = transform.get_consumers_of_result %op[0] : (!transform.any_op) -> !transform.any_op
    %r, %m = transform.foreach_match restrict_root in %c @match_row_consumer -> @pass_op
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.foreach %m : !transform.any_op {
    ^bb0(%x: !transform.any_op):
      %z = transform.param.constant 0 : i64 -> !transform.any_param
      transform.annotate %op "niro.rowfuse" = %z : !transform.any_op, !transform.any_param
    }
    transform.yield
  }
  transform.named_sequence @fuse_rows(%op: !transform.any_op {transform.consumed}) {
    %t, %l = transform.structured.fuse %op tile_sizes [16, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">)
    transform.include @peel failures(suppress) (%l) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }

  transform.named_sequence @niro_rowfuse(%root: !transform.any_op {transform.readonly}) {
    transform.include @niro_lanes failures(propagate) (%root) : (!transform.any_op) -> ()
    %funcs = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %funcs {
      transform.apply_patterns.linalg.fold_unit_extent_dims_via_reshapes
    } : !transform.any_op
    %all = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach_match restrict_root in %all @match_row_consumer -> @mark_row_consumer
      : (!transform.any_op) -> !transform.any_op
    %cands = transform.structured.match ops{["linalg.generic"]} attributes {niro.rowfuse = 1 : i64} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach %cands : !transform.any_op {
    ^bb0(%o: !transform.any_op):
      transform.include @unmark_inner failures(suppress) (%o) : (!transform.any_op) -> ()
    }
    %last = transform.structured.match ops{["linalg.generic"]} attributes {niro.rowfuse = 1 : i64} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.foreach %last : !transform.any_op {
    ^bb0(%o: !transform.any_op):
      transform.include @fuse_rows failures(suppress) (%o) : (!transform.any_op) -> ()
    }
    transform.apply_patterns to %root {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %root : !transform.any_op
    transform.yield
  }
}

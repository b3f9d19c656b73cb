"""Every rule that chooses a kernel, in one place.

Two kinds of rule live here:

- **what a spec is** (a term of the plan: its pair, key, terms, conditions,
  outer reduction, layout) decides which kernel families a module carries:
  `stacking_axis`, `persistent_blockers`, `lean_blockers`, `both_ways_blockers`,
  `split_form`, `tma_blockers`;
- **what a call is** (sizes, dtype, device, layout) decides which of them runs:
  `contraction` (DOT_MODE), `precision`, `lean_blocks`, `offsets_check_fold`, `long_tma`, `split_pass`,
  `both_ways_fused`, `stacked_first`, `persistent`, `one_loop`, `split_rows`, `outer_split`, and the backward's `auto_backward` and
  `deterministic_scatter`.

`forward_kernel` puts the two together in words for `explain()`: the family that
runs and, where a faster one does not, what blocks it. No rule asks which op a
spec is. Generated modules import this module at run time: torch, math and os only.
"""

from __future__ import annotations

import math
import os

import torch

from . import ir
from .basics import interpreting, next_pow2

FAMILIES = {
    "lean": "the lean tile loop (MaxSim's forward: nothing carried but the running selection)",
    "tiles": "the general tile loop (tensor cores, one tile of the contraction)",
    "tiles-long": "the general tile loop over chunks of the contraction",
    "tiles-tma": "the general tile loop over chunks of the contraction, TMA loads",
    "points": "the few-coordinates loop (CUDA cores, exact differences)",
    "split": "the nearest point on the tensor cores (split rows, then an exact search of candidate tiles)",
    "both-ways": "both directions in one pass over the pairs (CUDA cores)",
    "elementwise": "the elementwise loop (L1, CUDA cores)",
    "int8": "the general tile loop on int8 tensor cores",
    "fp8": "the general tile loop on fp8 tensor cores",
}


# -- what a spec is ---------------------------------------------------------------

def stacking_axis(term) -> str | None:
    """The output axis whose values a forward program stacks in one A tile: the
    last one that A carries and B does not (in-batch MaxSim: the query), so each
    B tile loaded serves several of them. None when there is none, when a
    condition or column term on the selected axis varies over it, or when the
    term has no outer reduction or is not on tensor-core tiles."""
    if term.outer == "none" or term.pair == "l1":
        return None
    c_axes = {a for c in term.conds if c.axis == term.c for a in c.axes}
    c_axes |= {a for s in term.sides if s.side == "col" for a in s.axes}
    candidates = [g for g in term.grid if g in term.a.grid_axes and g not in term.b.grid_axes and g not in c_axes]
    return candidates[-1] if candidates else None


def lean_blockers(term, signature) -> list[str]:
    """Why a term cannot run the lean forward (bench/NOTES.md, v16); empty where
    it can. Its form: a dot (any key of it and of per-column terms, formed on
    the tile: a column scale or bias, int8 and fp8 rows' scales), a plain cosine
    or squared L2 distance (the norms from the tiles; an L2 pair's selected value
    from its differences) selected by max or min, reduced over the rows
    (sum, mean, max, min; a max or min from chunk partials), any epilogue and per-row terms applied once a row at its selection
    (a weight, a scale, a bias), conditions only as
    optional masks (a mean runs lean only when none is given), ragged axes
    on the operands' rows (each packed operand's grid axis its offsets' axis;
    no mask beside them, no mean over a ragged row axis), each
    operand laid out as (its grid axes, its row axis, the contraction axis), so
    that its rows are one [rows, k] matrix, and the output's axes in the grid's
    order."""
    t, why = term, []
    if t.pair not in ("dot", "cos", "sqdist", "dist"):
        why.append(f"the pair is {t.pair}, not a dot, cosine or L2 distance")
    elif not (t.key_is_prim or t.key_is_cos or t.pair == "dot"):
        why.append(f"the selection's key is not the plain {t.pair}")
    if t.index_out:
        why.append("the output is an index")
    cols = [s.name for s in t.sides if s.side == "col"]
    if cols and t.pair != "dot":
        why.append(f"per-column terms ({', '.join(cols)}) on a {t.pair} key")
    if t.outer == "none":
        why.append("no outer reduction")
    if t.b.computed is not None:
        why.append(f"{t.b.name} is computed in the kernel (pointer loads of its inputs, not TMA tiles)")
    decls = {name: default for name, _axes, _kind, default in signature}
    for name, axis, outer, _cu in t.packing:
        if name in (t.a.name, t.b.name) and (t.a if name == t.a.name else t.b).grid_axes != (outer,):
            why.append(f"{name}'s grid axes are not its offsets' {outer!r} alone")
        if axis == t.r and t.outer == "mean":
            why.append(f"an outer mean over a ragged {axis!r}")
    if t.packing and any(not c.ragged for c in t.conds):
        why.append("masks or bounds beside a ragged axis")
    if any((c.kind != "mask" or not c.name or decls[c.name] is None) and not c.ragged for c in t.conds):
        why.append("a length bound or a required mask")
    if t.a.axes != t.a.grid_axes + (t.r, t.k) or t.b.axes != t.b.grid_axes + (t.c, t.k):
        why.append(f"{t.a.name} or {t.b.name} is not laid out (grid axes, rows, contraction)")
    if tuple(t.out_axes) != tuple(t.grid) or set(t.grid) != set(t.a.grid_axes) | set(t.b.grid_axes):
        why.append("the output's axes are not the grid's")
    return list(dict.fromkeys(why))  # (a packing shared by two inputs says it once)


def both_ways_blockers(term, signature, n_c_conds: int, n_c_bounds: int, stacked: bool) -> list[str]:
    """Why a term and its swap (Chamfer's two directions) cannot run as one pass
    over the pairs; empty where they can: a symmetric pair on a few coordinates
    (squared or plain L2 distance, L1), a min selection, one value per row, and
    no input but the two operands and bounds on the selected axis (the swapped
    call's bound goes on the rows)."""
    t, why = term, []
    if t.packing:
        why.append("a ragged axis (packed rows)")
    if t.b.computed is not None:
        why.append(f"{t.b.name} is computed in the kernel")
    if t.outer != "none" or stacked or t.index_out:
        why.append("not one value per row")
    if t.a.quantized or t.select != "min" or t.sides:
        why.append("not a min of the plain pair")
    if any(c.axis == t.r for c in t.conds) or n_c_bounds != n_c_conds:
        why.append("conditions other than scalar bounds on the selected axis")
    if t.pair not in ("sqdist", "dist", "l1") or not t.key_is_prim:
        why.append("not a symmetric pair")
    swap = {t.r: t.c, t.c: t.r}
    if tuple(swap.get(a, a) for a in t.a.axes) != t.b.axes or t.a.grid_axes != t.b.grid_axes:
        why.append("the operands are not laid out alike")
    names = {name for name, _axes, _kind, _default in signature}
    bound_names = {c.name for c in t.conds if c.name}
    if names != {t.a.name, t.b.name} | bound_names:
        why.append("inputs other than the two operands and their bounds")
    return why


def split_form(term, both_reasons: list[str], stacked: bool) -> bool:
    """Whether a module carries the split pass (the nearest point on the tensor
    cores, `split_pass` picks it per call): L2 pairs of the both-ways shape whose
    operands each carry every grid axis. An outer reduction over the rows (Hausdorff's
    max, a Chamfer written as a mean) takes it too: the pass makes each row's value,
    and the general loop reduces them as it does its own."""
    rest = [r for r in both_reasons if r != "not one value per row"]
    return (not rest and not stacked and not term.index_out and term.pair in ("sqdist", "dist")
            and set(term.a.grid_axes) == set(term.grid))


def tma_blockers(term, stacked: bool, both: bool) -> list[str]:
    """Why the general forward's long contraction cannot take TMA loads
    (`long_tma` picks them per call); empty where it can: a tensor-core pair whose
    row block is contiguous and has no row conditions (their rows would load
    unmasked), each operand at most 5 axes."""
    t, why = term, []
    if t.packing:
        why.append("a ragged axis (packed rows)")
    if stacked:
        why.append("stacked outer axis")
    if both:
        why.append("both ways")
    if t.pair == "l1" or t.a.quantized:
        why.append("not a float dot")
    if t.b.computed is not None:
        why.append(f"{t.b.name} is computed")
    if any(c.axis == t.r for c in t.conds):
        why.append("conditions on the rows")
    for op, axis in ((t.a, t.r), (t.b, t.c)):
        order = (*[g for g in t.grid if g in op.grid_axes], axis, t.k)
        if sorted(order) != sorted(op.axes) or len(order) > 5:
            why.append(f"{op.name}'s axes")
    return why


# -- what a call is ---------------------------------------------------------------

def auto_backward(n_contenders: int, outer: int, selected: int, ragged_selected: bool = False,
                  cells: int = 1, width: int = 1) -> str:
    """backward="auto": fp32 atomics where few outer rows compete for each
    selected row, the destination-owned backward (through the inverse index)
    where many do: contributions per selected row, n_contenders * outer /
    selected, of 48 or more.

    n_contenders: output cells that share one selected row (in-batch MaxSim:
    the number of queries; per-query candidates, Splade, Chamfer: 1). Measured
    on an H100, whole training steps (bench/NOTES.md, sessions 5 and 8): the
    inverse index wins at 55, 64 and 119 contributions per row (ColBERT B=512
    5.10 vs 6.10 ms atomic, ColPali B=64 3.86 vs 4.37, Splade 1.89 vs 4.42,
    bench/results/h100-train-2026-11-24 and h100-splade-2026-11-24-gather-rows);
    at 32 (ColPali B=32) the atomic step, since the gather's smaller blocks
    (v13), reads 1.12-1.13 ms in every run against 1.10-1.37 for the inverse
    index, at less memory; at 13.6 (ColBERT B=128) the atomics hardly contend
    and sorting the index costs more than they do.

    ragged_selected: the selected axis is ragged (packed sequences of differing
    lengths). A short sequence's rows then collect many times the mean of the
    contributions, and the inverse index's longest rows set its time: at ColBERT
    B=512 with lengths uniform in 1..32 and 1..300 its per-row pass took twice
    the full-length one's (2.04 against 1.02 ms, H100), and the step ran 5.66 ms
    against 4.50 atomic (H200: 5.74 against 4.28; bench/NOTES.md, session 23).
    So atomic there."""
    if ragged_selected:
        return "atomic"
    if sparse_rows(n_contenders, outer, selected, cells, width):
        return "deterministic"
    return "deterministic" if n_contenders * outer >= 48 * selected else "atomic"


# Few contributions, a large selection side (bench/NOTES.md, session 28): where a selected row gets at
# most 1 / SPARSE_ROWS_PER_ENTRY contributions and the selection side holds SPARSE_MIN_ELEMENTS or
# more, its gradient is mostly zeros: written zero once in its own dtype, then only the selected rows
# (the sorted index, a program per entry), not fp32 atomics into a buffer cast after (10 bytes an
# element against 2). Smaller, the sort's launches cost more than the traffic saved (H200: 1 x 256
# documents of 8192 tokens, d = 128, 0.94 ms against atomic 1.09; 1 x 32 x 16384 0.90 against 0.75).
SPARSE_ROWS_PER_ENTRY = 8
SPARSE_MIN_ELEMENTS = 1 << 28


def sparse_rows(n_contenders: int, outer: int, selected: int, cells: int = 1, width: int = 1) -> bool:
    """Whether the selection side's gradient goes row by selected row (see SPARSE_ROWS_PER_ENTRY):
    cells: the selection side's row sets; width: its rows' length."""
    return n_contenders * outer * SPARSE_ROWS_PER_ENTRY <= selected and \
        cells * selected * width >= SPARSE_MIN_ELEMENTS


def backward_words(term, sizes: dict) -> str:
    """explain(sizes)'s line on the backward a call of those sizes takes: what "auto"
    picks and how "deterministic" owns the selection side's gradient (the rules above)."""
    if term.b.computed is not None:
        return f"  backward at these sizes: the gather alone ({term.b.name} is computed: nothing scatters)"
    contenders = cells = 1
    for g in term.grid:
        contenders *= sizes.get(g, 1) if g not in term.b.grid_axes else 1
    for g in term.b.grid_axes:
        cells *= sizes.get(g, 1)
    args = (contenders, sizes.get(term.r, 1), sizes.get(term.c, 1))
    rule = dict(cells=cells, width=sizes.get(term.k, 1))
    per_row = args[0] * args[1] / max(args[2], 1)
    shared = 1
    for g in term.grid:
        shared *= sizes.get(g, 1) if g in term.b.grid_axes and g in term.a.grid_axes else 1
    programs = contenders * shared * -(-sizes.get(term.r, 1) // gather_rows(sizes.get(term.r, 1), sizes.get(term.k, 1)))
    parts = gather_parts(programs, cells // shared, formed=False, sms=GATHER_SMS_EXPLAINED)
    return (f"  backward at these sizes: \"auto\" takes {auto_backward(*args, **rule)}; \"deterministic\" "
            f"scatters through {deterministic_scatter(*args, **rule)} ({per_row:.3g} contributions a selected row, "
            f"{cells * args[2]} selected rows); the gather: {programs} programs of {term.a.name}'s rows, "
            + (f"\"atomic\"'s (which scatters as it walks) the other cells in {parts} parts (fewer programs than an "
               f"H100's {GATHER_SMS_EXPLAINED} multiprocessors, each to walk {cells // shared} cells; dispatch.gather_parts)"
               if parts > 1 else "each walking every other cell"))


def deterministic_scatter(n_contenders: int, outer: int, selected: int, cells: int = 1, width: int = 1) -> str:
    """How backward="deterministic" owns the selection side's gradient:
    "inverse" (the saved index sorted by selected row, each row's entries
    summed by one program), "onehot" (one-hot tiles over every saved index,
    on the tensor cores where the pair is a dot) or "sparse" (the sorted index,
    a program per selected row that has entries, the others left zero:
    sparse_rows).

    One-hot tiles scan every outer row's index once per block of selected
    rows: they win only where few rows contribute to each selected row (at
    most 16) and that scan is short (n_contenders * outer * selected / 32 at
    most 2^24): ColBERT B=128 1.03 ms against 1.1-1.7 for the inverse index,
    Chamfer at 10K points 2.57 against 3.18 (H100, whole training steps,
    bench/results/h100-scatter-2026-11-23-inverse-index). The inverse index everywhere else: Splade
    2.2 vs 3.95 ms, ColBERT B=512 5.4 vs 11.6, ColPali B=64 4.6 vs 9.2,
    Chamfer at 100K points 24.0 vs 33.7. HSR_SCATTER=inverse|onehot|sparse
    overrides, for measuring and testing."""
    env = os.environ.get("HSR_SCATTER")
    if env:
        if env not in ("inverse", "onehot", "sparse"):
            raise ValueError(f"HSR_SCATTER must be 'inverse', 'onehot' or 'sparse', got {env!r}")
        return env
    if sparse_rows(n_contenders, outer, selected, cells, width):
        return "sparse"
    few = n_contenders * outer <= 16 * selected
    return "onehot" if few and n_contenders * outer * selected // 32 <= 1 << 24 else "inverse"


SMALL_D_MAX = 8  # contractions up to this length unroll on the CUDA cores, coordinates in registers


def computed_whole(pair: str) -> bool:
    """Whether a computed operand read by this pair is always formed as one tile of the
    contraction: an L2 pair's rows are formed less a shift before their norms, an L1
    pair reads each coordinate of the formed tile."""
    return pair in ("sqdist", "dist", "l1")


def contraction(d: int, quantized: bool = False, three_products: bool = False,
                computed: bool = False, pair: str = "dot") -> tuple[int, int, int]:
    """(DOT_MODE, BLOCK_K, SMALL_D) of a forward for a contraction of length d:
    2, a few coordinates (point clouds) as exact fp32 products on the CUDA
    cores, unrolled over SMALL_D = d; 0, the whole row in one tensor-core tile
    (d <= 256; int8 and fp8 tiles take K >= 32, as Triton's dot requires); 1,
    chunks of 64 (Splade's 768). An L1 pair (elementwise at any d) unrolls when
    SMALL_D > 0 and loops over d otherwise.

    three_products (an fp32 key as three TF32 products, `precision` "tf32x3"): past
    64 coordinates, chunks of 32: one 128-wide fp32 tile split three ways spills (the
    k-means assignment, 1M x 1024 x 128 on an H200: 14.4 ms in one tile, 8.0 in chunks
    of 32, 8.6 in chunks of 64; at 64 coordinates one tile, 2.7 ms against 4.7;
    bench/NOTES.md). HSR_CONTRACTION="mode,block_k" overrides it (sweeps).

    computed: a computed operand's rows are formed on chip, whole (one tile; a
    normalised one needs each row's norm) or in chunks of COMPUTED_BLOCK_K
    coordinates (a normalised one's norms summed over the chunks, applied to the
    dot); at most COMPUTED_MAX_D coordinates (runtime.check_rows checks it: its
    backward forms each selected row whole). Whole rows measured faster than
    chunks of 32 or 64 from 1024-token documents, level at 200 (bench/NOTES.md,
    session 37). HSR_COMPUTED_K overrides the chunk (0: one tile), for sweeps; a computed
    operand of a distance pair is always one tile (computed_whole)."""
    if computed:
        block_k = 0 if computed_whole(pair) else int(os.environ.get("HSR_COMPUTED_K", COMPUTED_BLOCK_K))
        return (0, next_pow2(d, 16), 0) if block_k == 0 or block_k >= next_pow2(d, 16) else (1, block_k, 0)
    if d <= SMALL_D_MAX:
        return 2, 16, d
    override = os.environ.get("HSR_CONTRACTION")
    if override:
        mode, block_k = (int(x) for x in override.split(","))
        return mode, block_k, 0
    if three_products and d > THREE_PRODUCTS_ONE_TILE:
        return 1, 32, 0
    if next_pow2(d) <= 256:
        return 0, next_pow2(d, 32 if quantized else 16), 0
    return 1, 64, 0


COMPUTED_MAX_D = 256  # the widest computed row: its backward forms a selected row whole
COMPUTED_BLOCK_K = 0  # coordinates of a computed operand's rows formed at a time (0: the whole row, one tile)
THREE_PRODUCTS_ONE_TILE = 64  # the widest fp32 row whose three TF32 products take one tile


def row_slot(dot_mode: int, need_idx: bool, stacked_rows: int = 0, cols: int = 0, l2: bool = False) -> bool:
    """Whether the general forward keeps one running selection per row, each tile
    reduced at once, rather than a slot per row and column of the tile reduced once
    after the loop. A long contraction (DOT_MODE 1) always does (bench/NOTES.md, v12);
    one tile (DOT_MODE 0) does where no index is carried, and where one is (a gradient,
    an L2 key) and the call stacks at least ROW_SLOT_STACKED_ROWS rows on each tile
    (stacked_rows: the stacked axis's values x the rows of each; 0 without a stacked
    axis), a dot key's selected axis (cols) being at most ROW_SLOT_MAX_COLS long (an
    L2 key's at any length). Measured on an H200, the bundled MaxSim's stacked loop
    (bench/results/h200-l2-rank-2026-11-27/row_slot.json): without an index, 4 and 8
    queries x 1000 of 32 x 300 1.33-1.39x faster, masked 16-64 queries 1.14-1.23x, the
    rest level (within 4%); with an index, 2 and 4 queries 1.5-1.7x slower. The k-means
    assignment (an L2 key, no stacked axis) was slower with it at each key's best config.
    HSR_ROW_SLOT=0/1 overrides the rule for DOT_MODE 0 (sweeps)."""
    if dot_mode != 0:
        return dot_mode == 1
    override = os.environ.get("HSR_ROW_SLOT")
    if override:
        return override == "1"
    return not need_idx or (stacked_rows >= ROW_SLOT_STACKED_ROWS and (l2 or cols <= ROW_SLOT_MAX_COLS))


# With an index, the stacked loop's slot per row and tile column holds a value and an index for each: an L2 key's
# loop at 255 registers spills, and every cell's finish reduces them. One slot per row (each tile reduced at once)
# frees them where many rows share each tile. H200, d = 128, ms, a slot per column / one per row
# (bench/results/h200-l2-row-slot-2026-11-28/, h200-dot-index-row-slot-2026-11-28/). The Gaussian MaxSim (fp16):
# 8 x 5000 of 32 x 120 1.072 / 0.398; 8 x 1000 of 32 x 300 0.152 / 0.144; 16 x 2000 of 32 x 180 0.907 / 0.377
# (the lean forward, which such calls took before, 0.544); bf16 32 x 500 of 32 x 300 0.607 / 0.255 (lean 0.340);
# 64 x 1000 of 32 x 300 2.385 / 0.962 (lean 1.424); 8 x 200 of 32 x 2048 0.413 / 0.155; but 4 x 1000 of 32 x 300
# 0.0946 / 0.0968 and one query 0.068 / 0.085. MaxSim's training forward (the index written for the backward):
# in-batch 128 x 128 of 32 x 300 0.424 / 0.154, bf16 512 x 512 6.21 / 2.25, bf16 256 x 256 of 32 x 180 1.11 /
# 0.371, 8 x 1000 0.0975 / 0.085, 32 x 32 of 128 x 512 0.067 / 0.061; but bf16 16 x 32 of 32 x 4096 0.051 / 0.084:
# a dot's long rows reduce each of their many tiles for little.
ROW_SLOT_STACKED_ROWS = 256
ROW_SLOT_MAX_COLS = 1024


COL_NORMS_ROWS = 1 << 17  # rows meeting each column set from which its norms come from a pre-pass
LEAN_COL_NORMS_ROWS = 256  # the same in the lean forward


def col_norms(rows_per_column_set: int, lean: bool = False) -> bool:
    """Whether an L2 key (|b|^2 - 2<a, b>; the general forward's DOT_MODE 0 and 1, and the
    lean forward's, whose cosine key divides by |b| too) reads the columns' squared norms
    from a pre-pass (one launch over B's rows) rather than forming them from each tile it
    loads. Each program that reads a column set forms
    its norms again, d products a column on the CUDA cores beside the tile's dot: the
    k-means assignment's 1M rows read each centre 8192 times. Measured on an H200
    (bench/results/h200-col-norms-2026-11-27/), fp16, K = 1024, f = 128, tile / pre-pass:
    N = 1M 0.829 / 0.682 ms, 262144 0.219 / 0.180, 65536 0.063 / 0.066, 4096 0.030 /
    0.056 (few programs: each tile waits for its norms' load; loading the next tile's
    during the dot fixed that but cost 5-7% at 1M, reverted); stacked Gaussian MaxSim,
    64 x 10000 of 32 x 300 (2048 rows a document), 22.4 / 35.2 ms. So the pre-pass is taken
    where the rows are many.

    The lean forward (lean=True) holds less beside its tile, and the pre-pass reads B
    once more where one query's rows are memory-bound (bench/results/
    h200-lean-col-norms-2026-11-27/, fp16, d = 128, tile / pre-pass, Gaussian MaxSim):
    1 x 1000 of 32 x 300 0.051 / 0.064 ms, 1 x 10000 0.410 / 0.448; 1 x 512 of 1024 x 1024
    0.595 / 0.488, 4 x 256 1.172 / 0.903 (the cosine key 0.387 / 0.398 and 0.755 / 0.733).
    It takes the pre-pass from LEAN_COL_NORMS_ROWS rows (unmeasured between 32 and 1024).
    HSR_COL_NORMS=0/1 overrides the rule (sweeps)."""
    override = os.environ.get("HSR_COL_NORMS")
    if override:
        return override == "1"
    return rows_per_column_set >= (LEAN_COL_NORMS_ROWS if lean else COL_NORMS_ROWS)


SHIFT16_ROWS = 1 << 17  # rows meeting each of B's row sets from which 16-bit L2 rows are shifted by default


def shifts_16bit(dtype: torch.dtype, dot_mode: int, one_centre: bool, rows_per_column_set: int) -> bool:
    """Whether an L2 key's 16-bit rows rank on rows less a shift (runtime.shift_16bit,
    hsr.shift16): B less c, exactly (c per coordinate, 0 where B's values span zero or a
    factor above 4), with B's norms, and A less c (one pass; a row whose subtraction
    rounds is marked and ranked again from its differences). Where c is 0 everywhere the
    pass writes nothing, and the forward reads A itself: each program loads the flag the
    B pass stores past c, then its rows from one address or the other (no host sync).
    Unshifted, the expansion rounds at about 2^-24 of |a| |b|: far from the origin that
    passes the gaps between the distances (fp16 k-means of 2^20 points 1000 from the
    origin put 29-52% of them on a farther centre, bench/NOTES.md, session 53). It can
    serve where the whole contraction is one tile (DOT_MODE 0: A's row block is loaded
    once; the lean forward, which holds its rows whole, passes 0) and one c serves every cell
    (no grid axis shared by both operands, nothing packed).

    On by default where at least SHIFT16_ROWS rows meet each of B's row sets (the k-means
    assignment's points meet every centre): the passes over B then cost little against the
    forward, as col_norms' pre-pass does. Where few rows meet a large B (a few queries
    against a corpus), a pass writing B less c would cost as much as the forward: off
    there. HSR_SHIFT16=1/0 turns it on / off wherever it can serve."""
    if dtype not in (torch.float16, torch.bfloat16) or dot_mode != 0 or not one_centre:
        return False
    override = os.environ.get("HSR_SHIFT16")
    if override:
        return override == "1"
    return rows_per_column_set >= SHIFT16_ROWS


def one_shift_serves(term) -> bool:
    """Whether one shift serves every cell of an L2 term (shifts_16bit's one_centre): its
    operands share no grid axis and nothing is packed."""
    return not any(x in term.a.axes for x in term.b.grid_axes) and not term.packing


def shift_16bit_words(term, sizes: dict | None, lean: bool = False) -> str:
    """explain()'s line on 16-bit rows of an L2 key in the general loop, or the lean one
    (shifts_16bit; the lean loop holds its rows whole)."""
    one = one_shift_serves(term)
    label = f"  fp16/bf16 rows ({'lean' if lean else 'general'} loop): "
    if term.b.computed is not None:
        return f"{label}unshifted ({term.b.name} is computed in the kernel)"
    if not one:
        return (f"{label}unshifted ({term.a.name} and {term.b.name} share a grid axis, "
                f"or are packed: no one shift serves every cell)")
    d = sizes.get(term.k, 0) if sizes else None
    if not lean and d is not None and (not d or contraction(d)[0] != 0):
        return f"{label}unshifted (the row is not one tile: d > 256 or a few coordinates)"
    rows = rows_per_column_set(term, sizes) if sizes else None
    if shifts_16bit(torch.float16, 0, True, SHIFT16_ROWS if rows is None else rows):
        where = ("HSR_SHIFT16=1" if os.environ.get("HSR_SHIFT16") == "1" else
                 f"{rows} rows meet each {term.b.name} row set, at least {SHIFT16_ROWS}" if rows is not None
                 else f"where at least {SHIFT16_ROWS} rows meet each {term.b.name} row set")
        return (f"{label}{term.b.name} and {term.a.name} less a per-coordinate shift "
                f"before the kernel, where it is not 0 ({where}; exact where each coordinate is within a factor 2 "
                f"of the shift's; a row that rounds is ranked again from its differences; HSR_SHIFT16=0 turns it off)")
    why = ("HSR_SHIFT16=0" if os.environ.get("HSR_SHIFT16") == "0" else
           f"{rows} rows meet each {term.b.name} row set, fewer than {SHIFT16_ROWS}: a pass writing "
           f"{term.b.name} less the shift would cost as much as the forward; HSR_SHIFT16=1 shifts them")
    return f"{label}unshifted, exact near the origin only ({why})"


def rows_per_column_set(term, sizes: dict) -> int:
    """How many rows of A meet each of B's row sets in a call of these sizes."""
    rows = sizes.get(term.r, 0)
    for g in term.grid:
        if g not in term.b.grid_axes:
            rows *= sizes.get(g, 1)
    return rows


def col_norms_words(term, sizes: dict | None, lean: bool = False) -> str:
    """explain()'s line on an L2 or cosine key's column norms (col_norms) in the general
    loop or (lean) the lean one."""
    least = LEAN_COL_NORMS_ROWS if lean else COL_NORMS_ROWS
    label = "  column norms (lean loop): " if lean else "  column norms (general loop): "
    if term.b.computed is not None:
        return f"{label}formed from each tile ({term.b.name} is computed in the kernel: no pre-pass reads it)"
    if sizes is None:
        return (f"{label}from a pre-pass where at least {least} rows meet each {term.b.name} row set, "
                f"else formed from each tile")
    rows = rows_per_column_set(term, sizes)
    return label + (f"from a pre-pass ({rows} rows meet each {term.b.name} row set, at least {least})"
                    if col_norms(rows, lean) else
                    f"formed from each tile ({rows} rows meet each {term.b.name} row set, fewer than {least})")


# The general forward of a cosine key with no index a slot (inference) takes REG_CAP registers a thread where
# Triton's own allocation is at most REG_CAP_SLACK past it and the capped kernel spills none (hsr.launcher
# decides at a launch key's first launch, from the compiled kernels), so that two 8-warp programs share a
# multiprocessor. H200, stacked cosine MaxSim, fp16 and bf16 alike (bench/results/h200-register-cap-2026-11-28/,
# h200-cosine-register-cap-2026-11-28/): 136 -> 126 registers, no spill, at 4 x 1000, 8 x 1000 and 8 x 2000
# documents of 32 x 300 tokens (d 96 and 128): 1.32-1.33x faster. Kernels of 205-255 registers (64 x 1000,
# 16 x 500 of 32 x 1024, d = 256) spilled at the cap and ran 1.05-1.4x slower: those keep theirs; so do the
# L2 keys and the k-means assignment (255: 188 spilled, 11% to 3x slower). HSR_REG_CAP=1/0 forces the
# cosine's hint on (with an index too) or off.
REG_CAP = 128
REG_CAP_SLACK = 16


def register_cap(pair: str, need_idx: bool, machine: str) -> dict:
    """The general forward's register hint for hsr.launcher: {"reg_cap": (REG_CAP,
    REG_CAP_SLACK)} for a cosine key that carries no index, on sm90 (measured there only);
    else none."""
    override = os.environ.get("HSR_REG_CAP")
    on = pair == "cos" and (override == "1" if override else not need_idx)
    if not on or not machine.startswith("cuda") or int(machine[4:]) < 9:
        return {}
    return {"reg_cap": (REG_CAP, REG_CAP_SLACK)}


def register_cap_words(machine: str) -> str:
    """explain()'s line on a cosine key's register cap in the general forward (register_cap)."""
    if not machine.startswith("cuda") or int(machine[4:]) < 9:
        return "  registers (general loop): Triton's allocation (the cosine's cap is measured on sm90 only)"
    return (f"  registers (general loop): capped at {REG_CAP} a thread where no index is asked (inference) and "
            f"Triton's allocation is at most {REG_CAP_SLACK} past it with no spill at the cap (two 8-warp "
            f"programs a multiprocessor); else Triton's allocation")


def row_slot_words(l2: bool, ranked_fp32: bool = False, stacked_rows: int | None = None, cols: int = 0,
                   stacked: bool = True) -> str:
    """explain()'s line on the general loop's running selection (row_slot); ranked_fp32:
    fp32 rows of a dot key ranked on the tensor cores (exact_at_selection); stacked_rows,
    cols: a call's stacked rows and selected axis (None: the rule for any call); stacked:
    the term has a stacked axis (without one a carried index keeps a slot per column)."""
    one, column = "one per row, each tile reduced at once", "a slot per row and tile column"
    with_index = (f"one per row where at least {ROW_SLOT_STACKED_ROWS} stacked rows meet each tile"
                  + ("" if l2 else f" and the selected axis is at most {ROW_SLOT_MAX_COLS} long")
                  + f", else {column}") if stacked else column
    if stacked and stacked_rows is not None:
        taken = row_slot(0, True, stacked_rows, cols, l2)
        with_index = f"{one if taken else column} ({stacked_rows} stacked rows; {with_index})"
    return ("  running selection (general loop): " + (
        f"{with_index} (the index is always carried: the selected pair's value comes from its differences)"
        if l2 else
        f"{with_index} (the index is always carried: the selected pair's value is its IEEE dot, formed "
        "again at the index)" if ranked_fp32 else
        f"{one} where no index is carried (inference); where one is (training, an index output): {with_index}"))


def ranks_only(term) -> bool:
    """Whether a term's key only ranks the pairs, the selected pair's value formed
    again exactly afterwards, so that fp32 rows may rank on the tensor cores (see
    precision): an L2 pair (the value from the pair's differences) and a dot key
    that is the dot itself (its IEEE fp32 dot at the index; a per-row term, as the
    Splade head's bias, is added after the selection). A cosine, a dot with a
    per-column term in its key, quantized rows and a computed operand's rows keep
    the IEEE dot for fp32 rows."""
    if term.pair in ("sqdist", "dist"):
        return True
    return (term.pair == "dot" and term.key_is_prim and not term.a.quantized and term.b.computed is None)


def precision(dtype: torch.dtype, ranked: bool, device) -> str:
    """The forward's tl.dot input precision: "tf32" for 16-bit rows (their products
    are exact in fp32 either way). fp32 rows follow PyTorch's float32 matmul
    precision (torch.set_float32_matmul_precision; allow_tf32 sets "high") where the
    key only ranks the pairs (`ranked`, ranks_only) on a GPU:

    - "highest": three TF32 products on the tensor cores ("tf32x3", about 2^-21 of
      the terms against the IEEE dot's 2^-24 a term at d >= 8);
    - "high" and "medium": one TF32 product ("tf32"): the selection is within TF32's
      rounding of the best.

    Either way the selected pair's value is formed again exactly: an L2 pair's from
    its differences (on rows shifted near their data, runtime.l2_shift), a dot key's
    as the IEEE fp32 dot at its index. A key that is its own value (a cosine, a dot
    with terms) keeps the IEEE dot (CUDA cores) under any precision, as does every
    fp32 key off a GPU (the interpreter). HSR_PRECISION overrides it for fp32 rows
    (sweeps, and the interpreter's tests of the ranked paths). The k-means assignment
    (1M x 1024 x 64, H100) spent its time in the IEEE dot (bench/NOTES.md)."""
    if dtype != torch.float32:
        return "tf32"
    override = os.environ.get("HSR_PRECISION")
    if override:
        return override
    if not (ranked and getattr(device, "type", device) == "cuda"):
        return "ieee"
    return "tf32x3" if torch.get_float32_matmul_precision() == "highest" else "tf32"


def exact_at_selection(dtype: torch.dtype, prec: str, dot_mode: int) -> bool:
    """Whether a dot key's forward (ranks_only) forms the selected pair's value again
    as an IEEE fp32 dot at its index (the kernel's EXACT_SEL; the index is then
    carried): fp32 rows that ranked on the tensor cores (precision not "ieee"), on a
    tile path (a few coordinates, DOT_MODE 2, are exact fp32 products already). An L2
    pair takes its value from the differences, in a pass of its own."""
    return dtype == torch.float32 and prec != "ieee" and dot_mode < 2


HALVES_MAX_D = 128  # the widest fp32 row ranked in fp16 halves: its row block's halves in one tile


def halves(prec: str, rank: bool, d: int, rows_per_column_set: int) -> int:
    """How many fp16 products rank an fp32 L2 key on the tensor cores (0: none, the
    TF32 products of `prec` do). fp16 holds TF32's 11 significant bits at twice its
    rate, but not its exponent range: each row a program holds is scaled by the power of
    two that brings its largest finite |coordinate| (less the shift) into [2^13, 2^14),
    the streamed rows by one for all of them, in the pass that shifts and splits them
    (hsr.halves), so that fp16 keeps full precision down to 2^-28 of that largest.
    "tf32" becomes one product of the scaled rows (TF32's
    bits), "tf32x3" three of their hi and lo halves (hi.hi + lo.hi + hi.lo, about 2^-22
    of the terms, as tf32x3's 2^-21). Scaling by powers of two is exact, and the selected
    pair's value still comes from its differences.
    Measured on an H200, the k-means assignment (N = 1M) at each path's best config
    (bench/results/h200-kmeans-halves-host-split-2026-11-27/), ms, K x f = 1024 x 64,
    1024 x 128, 4096 x 128: one TF32 product 0.89 / 1.50 / 4.19, one fp16 product 0.70 /
    1.05 / 2.91; tf32x3 2.43 / 4.64 / 17.05, three fp16 products 1.04 / 1.89 / 6.10; no
    pick farther than 4 ulps of the nearest at offsets 0 and 1000 with three. (Split
    in the kernel instead, A's halves held in registers: one product 0.91 / 1.46 / 3.90,
    three 1.35 / 2.54 / 7.92; bench/results/h200-fp16-halves-2026-11-27/.)
    Taken for the one-way forward's ranking keys (|b|^2 - 2<a, b>, DOT_MODE 0, d <= 128)
    where the columns' norms come from a pre-pass (col_norms: many rows meet each column
    set, so the split passes cost little beside the products); HSR_HALVES=0/1 overrides
    the rows' part (sweeps)."""
    if prec not in ("tf32", "tf32x3") or not rank or not SMALL_D_MAX < d <= HALVES_MAX_D:
        return 0
    override = os.environ.get("HSR_HALVES")
    on = override == "1" if override else col_norms(rows_per_column_set)
    return (3 if prec == "tf32x3" else 1) if on else 0


def precision_words(l2: bool, machine: str = "cuda9", rank: bool = False, d: int | None = None,
                    rows: int | None = None, ranked: bool | None = None) -> str:
    """explain()'s line on an fp32 key: the precision that runs and why (with d and the
    rows meeting each column set, whether fp16 halves rank it: halves). ranked: the key
    only ranks the pairs (ranks_only; an L2 pair's always does)."""
    mode = torch.get_float32_matmul_precision()
    ranked = l2 if ranked is None else ranked
    if not machine.startswith("cuda"):
        return "  fp32 rows: the IEEE fp32 dot (not on a GPU)"
    if not ranked:
        return (f"  fp32 rows: the IEEE fp32 dot (CUDA cores) under any float32 matmul precision (now {mode!r}): "
                "this key is its own value (a cosine, or a dot with a per-column term in its key)")
    prec = precision(torch.float32, True, "cuda")
    kind = "three TF32 products (tf32x3)" if prec == "tf32x3" else "one TF32 product"
    accuracy = f"float32 matmul precision {mode!r}; 'highest' takes tf32x3's accuracy, 'high' and 'medium' TF32's"
    if not l2:
        return (f"  fp32 rows: the dot key ranks the pairs as {kind} on the tensor cores ({accuracy}); "
                "the selected pair's value is its IEEE fp32 dot, formed again at its index")
    pieces = "three fp16 products of hi and lo halves" if prec == "tf32x3" else "one fp16 product"
    if d is not None and rows is not None and halves(prec, rank, d, rows):
        kind = (f"{pieces} of rows scaled by powers of two (the held rows one each; as many bits as {prec}, "
                f"at twice its rate)")
    elif d is not None and rows is not None:
        kind += (f" ({pieces} of rows scaled by powers of two take a ranking key where d <= {HALVES_MAX_D} "
                 f"and the column norms come from a pre-pass)")
    return (f"  fp32 rows: the key's expansion as {kind} on the tensor cores ({accuracy}); "
            "the selected pair's value comes from its exact differences")


SPLIT_K = 16  # the split rows' width: 3 products of pieces a coordinate and 3 norm pieces fit d <= 4
# One direction on the H100 (bench/results/h100-chamfer-2026-11-24-split-pass/split_check.json),
# with the index / without:
# 10K x 10K 0.48 / 0.52 ms against 0.26 / 0.17 on the CUDA cores (host-bound), 30K x 30K
# 0.31 / 0.24 against 0.39 / 0.24, 60K 0.71 / 0.67 against 1.33 / 0.96, 100K 1.52 / 1.46
# against 3.52 / 2.04. So from 30K x 30K; between 10K and 30K it is not measured.
SPLIT_MIN_PAIRS = 8 * 10**8


def split_pass(device, d: int, pairs: int) -> bool:
    """Whether a nearest-point term (squared or plain L2 on a few coordinates)
    runs DOT_MODE 3: its key |b|^2 - 2<a, b> as one fp16 dot of split rows on
    the tensor cores, each tile reduced to its rows' min, then each row's
    candidate tiles (its best, a close runner-up, the first near-tied one)
    searched with the exact fp32 key
    (bench/NOTES.md, session 15, experiment chamfer_mma, in git history at c3907b4: 100K points on an H100,
    1.52 ms against 3.52 with the index and 1.46 against 2.04 without). On CUDA for
    3 d + 3 <= SPLIT_K and at least SPLIT_MIN_PAIRS pairs. HSR_SPLIT=1 or 0
    forces it (the interpreter's tests force it on)."""
    forced = os.environ.get("HSR_SPLIT")
    if 3 * d + 3 > SPLIT_K or d == 0:
        return False
    if forced in ("0", "1"):
        return forced == "1"
    return getattr(device, "type", device) == "cuda" and pairs >= SPLIT_MIN_PAIRS


def both_ways_fused(device, pairs: int, need_idx: bool) -> bool:
    """Whether both_ways runs one fused pass (else the two calls). Measured on
    the H100 (bench/NOTES.md, session 7): without indices the fused forward
    is 1.35x faster at 1e8 pairs (10K x 10K) and 0.55x at 1e10 (100K x 100K:
    two cross-warp reductions and a branch per tile). Session 14 took the
    per-tile block-wide reductions out (10K 0.126 ms against 0.162 for the two
    calls; 100K still 4.59 against 3.97). With indices, Triton 3.6 miscompiled
    the block-wide test that skipped the columns' merge (wrong indices, then
    an illegal access in the backward); merging every tile it is right and no
    faster than the two calls (H200: 10K 0.395 ms against 0.408, 100K 14.9
    against 3.6; bench/NOTES.md, session 23). So on CUDA: no indices and at
    most 1e8 pairs (HSR_BOTH_WAYS_INDEX=1 runs the indexed one). HSR_BOTH_WAYS=fused|separate forces the choice
    without indices, for measuring. The interpreter always fuses: the tests
    check the fused kernels against the two calls."""
    if getattr(device, "type", device) != "cuda":
        return True
    if need_idx:
        return os.environ.get("HSR_BOTH_WAYS_INDEX") == "1"
    forced = os.environ.get("HSR_BOTH_WAYS")  # "fused" or "separate": for measuring the two
    if forced in ("fused", "separate"):
        return forced == "fused"
    return pairs <= 10**8


def both_ways_shared_grads(mode: str, differentiable, operands) -> bool:
    """Whether both_ways_sum's backward adds both ways into one fp32 buffer per
    operand (a zeroing and two kernels, no second buffers, no additions): where
    the backward is atomic and only the two operands take gradients."""
    return mode == "atomic" and tuple(differentiable) == tuple(operands)


def both_ways_blocks(size_r: int, size_c: int, need_idx: bool) -> tuple[int, int, int]:
    """(BLOCK_R, BLOCK_C, warps) of a both-ways forward (a few coordinates on the
    CUDA cores). HSR_BOTH_BLOCKS="r,c,w" (or "r,c,w;r,c,w": without;with the
    saved index) overrides, for block sweeps (experiment both_ways_blocks, in git history at c3907b4)."""
    override = os.environ.get("HSR_BOTH_BLOCKS")
    if override:
        parts = override.split(";")
        r, c, w = (int(v) for v in parts[-1 if need_idx else 0].split(","))
        return r, c, w
    if interpreting():
        return min(32, next_pow2(size_r)), min(32, next_pow2(size_c)), 4
    # with indices: the best in bench/results/h100-both-ways-2026-11-23; without:
    # h100-chamfer-2026-11-24-both-ways (columns across all 8 warps)
    return (64, 32, 4) if need_idx else (32, 256, 8)


# Rows per chunk of an autotuned forward with an outer sum over many cells that runs one
# program per (cell, chunk), 0 for none (HSR_SPLIT_ROWS overrides). In a hand-written kernel at
# ColPali's 1024 x 1024 (H100) 128-row chunks with each cell's chunks neighbours in
# launch order took 0.52 ms against 0.61 for one program looping over the chunks
# (bench/results/h100-forward-variants-2026-11-24, experiment forward_variants "split", in git history at c3907b4); in the generated
# kernel, whose registers allow one program per SM, it did not pay (bench/NOTES.md, v15).
SPLIT_ROWS = 0

# An outer reduction over long rows in few cells (Hausdorff: B = 4 clouds of 20K points; a
# sum over B = 8 clouds of 8192) would run a handful of programs: its rows go in chunks of
# FEW_CELLS_ROWS across programs where the cells number fewer than FEW_CELLS (a few per SM).
# A sum adds the chunks' partials in chunk order; a max or min merges their (value, row) in
# chunk order (the module's *_merge kernel). At 8 x 8192 points (H100, bench/NOTES.md,
# session 19): the sum 4.45 ms in 8 programs, 0.251 / 0.276 / 0.356 in chunks of 64 / 128 /
# 256 rows; the max 2.91, 0.255 / 0.281 / 0.370.
FEW_CELLS = 1024
FEW_CELLS_ROWS = 64
# On the split pass (the nearest point on the tensor cores) a chunk searches its rows' candidate
# tiles after the dot: Hausdorff, 4 x 20K points (H100, bench/NOTES.md, session 21), took 0.429 /
# 0.362 / 0.459 / 0.614 ms in chunks of 64 / 128 / 256 / 512 rows; Chamfer written as a spec, a
# mean over 8 x 8192 points on the CUDA cores, 0.517 / 0.758 / 0.737 / 15.8.
FEW_CELLS_SPLIT_ROWS = 128


def _few_cells_rows(split_pass: bool) -> int:
    return FEW_CELLS_SPLIT_ROWS if split_pass else FEW_CELLS_ROWS


ONE_LOOP_COLS = 1024  # selected-axis lengths up to which the general loop takes its last tile in the loop


def one_loop(cols: int) -> bool:
    """Whether the general loop runs its last, partial tile of the selected axis inside
    the tile loop (every tile masked by the bounds), rather than after it (the full tiles
    unmasked, then the partial one on its own). After the loop, the partial tile's loads
    wait on their own, outside the loop's pipeline: at 300 columns in tiles of 64, one tile
    in five. Measured on an H200 (bench/results/h200-batched-2026-11-27/), fp16 MaxSim,
    in the loop / after it: 64 x 10000 documents of 32 x 300, masked, 8.24 / 10.55 ms at the
    shipped config; 16 x 5000 of 32 x 180 0.569 / 0.633; 64 x 20000 of 32 x 120 9.28 /
    10.36; 32 x 3000 of 32 x 256 (no partial tile) 0.637 / 0.629. HSR_ONE_LOOP=0/1
    overrides (sweeps)."""
    override = os.environ.get("HSR_ONE_LOOP")
    if override:
        return override == "1"
    return cols % 128 != 0 and cols <= ONE_LOOP_COLS  # a multiple of 128 leaves no partial tile


def one_loop_words(term, cols: int | None, tma_masked: bool = False) -> str:
    """explain()'s line on where the general loop takes its last, partial tile (one_loop);
    tma_masked: the loop built for TMA with a mask on the selected axis, which takes a half
    tile first and keeps the partial one after the loop."""
    if tma_masked:
        return (f"  last, partial tile of {term.c!r} (general loop): after the loop, a half tile first where "
                f"the rest fits (TMA loads, a mask on {term.c!r})")
    rule = (f"in the tile loop where {term.c!r} is not a multiple of 128 and at most {ONE_LOOP_COLS} long, "
            f"else after the loop")
    if cols is None:
        return f"  last, partial tile of {term.c!r} (general loop): {rule}"
    return (f"  last, partial tile of {term.c!r} (general loop): {'in the tile loop' if one_loop(cols) else 'after the loop'}"
            f" ({cols} long; {rule})")


def tma_masked(term, f: dict) -> bool:
    """Whether the general loop is the TMA one with a mask on the selected axis (emit's `masked`)."""
    return not f["tma"] and any(c.kind == "mask" and c.axis == term.c for c in term.conds)


STACKED_FIRST_BYTES = 8 << 20  # the stacked operand's bytes up to which its blocks lead the launch order


def stacked_first(a_bytes: int) -> bool:
    """Whether the general loop's stacked blocks (several queries in one A tile) are
    neighbours in launch order, the other cells after them. With the other cells first
    (a program per document, the next one the next document), the programs running at
    once hold one block of queries and many documents: each B tile is read from memory
    once per block of queries. With the blocks first, the programs running at once share
    their documents, each B tile is read from memory once and from L2 by the other blocks,
    and A is read from L2, where it fits: STACKED_FIRST_BYTES, a sixth of an H100's L2.
    Measured on an H200 (bench/results/h200-batched-2026-11-27/), fp16 MaxSim, blocks
    first / documents first: 64 queries x 10000 documents of 32 x 300, masked (768 MB of
    documents), 8.24 / 8.96 ms at the shipped config, 5.26 / 5.92 at 4 queries a block and
    4 warps; 32 x 3000 of 32 x 256 0.637 / 0.818; 128 x 2000 of 64 x 500 8.50 / 9.22."""
    return a_bytes <= STACKED_FIRST_BYTES


def stacked_first_words(term, a_bytes: int | None) -> str:
    """explain()'s line on the stacked general loop's launch order (stacked_first)."""
    rule = (f"the blocks of {term.a.name} rows lead the launch order where {term.a.name} holds at most "
            f"{STACKED_FIRST_BYTES >> 20} MiB (each {term.b.name} tile read from memory once, from L2 by the "
            f"other blocks), else the other cells do")
    if a_bytes is None:
        return f"  launch order (general loop, stacked): {rule}"
    first = stacked_first(a_bytes)
    return (f"  launch order (general loop, stacked): {'the stacked blocks first' if first else 'the other cells first'}"
            f" ({a_bytes / (1 << 20):.1f} MiB of {term.a.name}; {rule})")


PERSIST_MAX_ROWS = 64  # rows of the stacked operand's row axis a persistent program holds: one row block
PERSIST_PROGRAMS_PER_SM = 2  # persistent programs launched per multiprocessor
PERSIST_MIN_CELLS = 8  # per persistent program: fewer cells than this, and a program per cell runs


def persistent_blockers(term) -> list[str]:
    """Why the stacked general loop cannot run persistent programs (each keeping one
    block of the stacked axis, its A tile loaded once, and walking a run of the other
    cells); empty where it can. The A tile and everything read with it must stay the same
    along the run: A and the conditions and per-row terms on its rows vary over the
    stacked axis alone among the grid axes (a packed A's offsets are the stacked axis's;
    a packed B's rows are found per cell, as a program per cell finds them)."""
    g = stacking_axis(term)
    if g is None:
        return ["no stacked axis"]
    why = []
    if tuple(term.a.grid_axes) != (g,):
        why.append(f"{term.a.name} varies over {', '.join(x for x in term.a.grid_axes if x != g)} besides {g!r}")
    rows = {g, term.r}
    if any(c.axis == term.r and not set(c.axes) <= rows for c in term.conds):
        why.append(f"a condition on {term.r!r} varies over another output axis")
    if any(s.side == "row" and not set(s.axes) <= rows for s in term.sides):
        why.append(f"a per-row term varies over another output axis")
    return why


def persistent(rows: int, cells: int, sms: int, split: int = 0, tma: bool = False) -> bool:
    """Whether the stacked general loop runs persistent programs (persistent_blockers
    being empty): where one row block holds a stacked value's rows (rows <= PERSIST_MAX_ROWS,
    no split of them, no TMA loads) and the cells (values of the stacked axis x the other
    cells) give each of PERSIST_PROGRAMS_PER_SM programs a multiprocessor at least
    PERSIST_MIN_CELLS. A program per cell pays its A tile's loads and its pipeline's
    start again for every cell: 17 us a cell at 64 queries x 10000 documents of 32 x 300
    (5.27 ms on an H200), where its dots take 5; the stand-alone persistent kernel took
    3.37 ms (bench/results/h200-batched-2026-11-27/batched_probe.json). HSR_PERSIST=0/1
    overrides the cell count (sweeps)."""
    if rows > PERSIST_MAX_ROWS or split or tma:
        return False
    override = os.environ.get("HSR_PERSIST")
    if override:
        return override == "1"
    return cells >= PERSIST_MIN_CELLS * PERSIST_PROGRAMS_PER_SM * sms


def persistent_programs(blocks: int, other_cells: int, sms: int) -> int:
    """Persistent programs for blocks of the stacked axis x other_cells: a whole number
    of runs per block (each block's programs side by side, so that the programs running
    at once share their B tiles), at most one run per cell, about PERSIST_PROGRAMS_PER_SM
    a multiprocessor. Measured on an H200 (bench/results/h200-persistent-2026-11-27/), 64 x
    10000 documents of 32 x 300: 16 queries a block (512 rows, 8 warps) 3.78-3.79 ms at 1 to 4
    programs a multiprocessor; 4 queries (128 rows, 4 warps) 9.13 at 1, 5.05 at 2, 4.86 at 4;
    but 64 x 20000 of 32 x 120 at hsr's pick 4.71 at 2 and 7.41 at 4 (another run)."""
    return blocks * max(1, min(other_cells, (PERSIST_PROGRAMS_PER_SM * sms) // max(blocks, 1)))


STACKED_MIN_PROGRAMS = 0.5  # per multiprocessor: a call of fewer programs halves its stacked block
STACKED_GROW_PROGRAMS = 1.5  # per multiprocessor: a call that doubled still launches this many doubles it


def stacked_block(block: int, programs, sms: int, fits=lambda b: True) -> int:
    """The stacked block (values of the stacked axis a program holds) a call of the
    general loop runs, given its config's block and programs(block), the programs it
    launches: halved while they number fewer than STACKED_MIN_PROGRAMS a multiprocessor;
    else doubled while the doubled block launches fewer programs, still at least
    STACKED_GROW_PROGRAMS a multiprocessor, and fits(block) allows it. A key's config
    holds no count of the other cells. Tuned at many documents it holds 16 queries a
    program, and a call of few documents leaves the GPU idle. H200 (132 multiprocessors),
    fp16 d 128, ms at 16, 8, 4, 2 queries a program (bench/results/h200-stacked-fill-2026-11-28/):
    16 x 32 of 32 x 4096 0.113 / 0.065 / **0.046** / 0.059 (32 / 64 / 128 / 256 programs);
    16 x 64 of 32 x 1024 0.036 / **0.023** / 0.028; 64 x 8 of 32 x 2048 0.061 / 0.036 /
    **0.026** / 0.033; where 128 programs ran already (32 x 32 of 64 x 2048 at 8, 64 x
    32 of 32 x 512 at 16) halving was slower. Tuned at few documents it holds 2, and a
    call of many re-reads each document for every pair of queries: 8 x 120 of 32 x 1024
    0.0311 at 2 (480 programs), 0.0246 at 4; 8 x 240 0.0498 / 0.0402 at 8; 32 x 60 of
    32 x 512 0.0294 / 0.0255 at 8 (240 programs); seed 37's fp32 64 x 14 of 32 x 1024
    tuned 4 against a key's 1 (1.46x; bench/results/h200-stacked-warps-2026-11-28/)."""
    start = block
    while block > 1 and programs(block) < STACKED_MIN_PROGRAMS * sms:
        block //= 2
    if block == start:
        while fits(block * 2) and STACKED_GROW_PROGRAMS * sms <= programs(block * 2) < programs(block):
            block *= 2
    return block


STACKED_WAVE_MIN_K = 128  # a contraction longer than this takes the one-wave step (wave_block)
STACKED_WAVE_WARPS = 8  # the warps of a tile the one-wave step doubled


def wave_block(block: int, programs, sms: int, fits=lambda b: False) -> int:
    """The stacked block doubled once more where the call launches between one and two programs a
    multiprocessor: the doubled block runs in one wave (at most one program a multiprocessor), its
    most loaded multiprocessor doing the work it did before (two programs of half the queries), and
    each document is read once for twice the queries. fits(block) says whether the doubled tile may
    take it (the caller: 16-bit rows, a contraction longer than STACKED_WAVE_MIN_K, the tile at
    STACKED_WAVE_WARPS). H200, ms at the block stacked_block gave and doubled (8 warps), one run:
    fp16 8 x 61 of 32 x 2000 at d 160 0.0618 / 0.0426 (244 / 122 programs); bf16 16 x 40 of
    32 x 2000 at d 768 0.239 / 0.184; fp16 32 x 20 of 32 x 2000 at d 1024 0.299 / 0.231; fp16 8 x 120
    of 32 x 4096 at d 384 0.230 / 0.223 (bench/results/h200-long-wide-stacked-2026-11-28/long_wide_*
    _warps_columns.jsonl); at d 128 level or slower (8 x 120 of 32 x 1024 0.0244 / 0.0245, 8 x 60
    0.0175 / 0.0185; bench/results/h200-stacked-warps-2026-11-28/)."""
    if sms < programs(block) <= 2 * sms and programs(block * 2) < programs(block) and fits(block * 2):
        return block * 2
    return block


def persistent_block(block: int, values: int, fits=lambda b: True) -> int:
    """The stacked block a persistent call runs (dispatch.persistent): its config's block,
    doubled while the stacked axis's `values` then take fewer blocks and fits(block) allows
    it. A persistent program reads each document of its run once for its block of queries,
    and the programs number the same whatever the block: 8 x 500 documents of 32 x 1024
    (fp16 d 128, H200) ran 0.0989 ms at 2 queries a program (its key's), 0.0705 at 8
    (bench/results/h200-stacked-warps-2026-11-28/)."""
    while fits(block * 2) and -(-values // (block * 2)) < -(-values // block):
        block *= 2
    return block


def stacked_block_words(term) -> str:
    """explain()'s line on the stacked general loop's block of the stacked axis (stacked_block)."""
    return (f"  stacked block (general loop): the config's values of {stacking_axis(term)!r} a program, halved "
            f"while the call launches fewer than {STACKED_MIN_PROGRAMS:g} programs a multiprocessor, else doubled "
            f"while it still launches {STACKED_GROW_PROGRAMS:g} or more (persistent programs: while it takes fewer "
            f"blocks), where a query's rows fit one row block and the tile fits; 16-bit rows of a contraction longer "
            f"than {STACKED_WAVE_MIN_K} double once more, at {STACKED_WAVE_WARPS} warps, where the call launches "
            f"one to two programs a multiprocessor (one wave after)")


def persistent_words(term, sizes: dict | None, sms: int) -> str:
    """explain()'s line on the stacked general loop's persistent programs."""
    why = persistent_blockers(term)
    if why:
        return f"  persistent programs (general loop, stacked): no ({'; '.join(why)})"
    rule = (f"each keeps a block of {stacking_axis(term)!r} (its {term.a.name} tile loaded once) and walks "
            f"a run of the other cells, where {term.r!r} is at most {PERSIST_MAX_ROWS} long and the cells "
            f"give {PERSIST_PROGRAMS_PER_SM} programs a multiprocessor {PERSIST_MIN_CELLS} or more; else a "
            f"program per cell")
    if sizes is None or term.r not in sizes:
        return f"  persistent programs (general loop, stacked): {rule}"
    cells = math.prod(sizes.get(g, 1) for g in term.grid)
    on = persistent(sizes[term.r], cells, sms)
    return f"  persistent programs (general loop, stacked): {'yes' if on else 'no'} ({cells} cells; {rule})"


def split_rows(cells: int, rows: int, cols: int, autotuned: bool, split_pass: bool = False) -> int:
    """Rows per chunk where a forward with an outer sum splits the outer axis
    over programs, 0 where it does not: FEW_CELLS_ROWS (FEW_CELLS_SPLIT_ROWS on the
    split pass) where the cells are few, else SPLIT_ROWS (HSR_SPLIT_ROWS=n forces n). With fixed blocks (the interpreter,
    HSR_AUTOTUNE=0) the chunk is the fixed block, min(64, rows): tests reach it."""
    forced = os.environ.get("HSR_SPLIT_ROWS")
    if not autotuned:
        chunk = min(64, next_pow2(rows))
    elif forced is not None:
        chunk = int(forced)
    else:
        chunk = _few_cells_rows(split_pass) if cells < FEW_CELLS and cols > 0 else SPLIT_ROWS
    return chunk if chunk and rows > chunk else 0


def outer_split(cells: int, rows: int, cols: int, autotuned: bool, split_pass: bool = False) -> int:
    """Rows per chunk where an unstacked outer max, min or mean splits its rows
    over programs (FEW_CELLS_ROWS where the cells are few, FEW_CELLS_SPLIT_ROWS on the
    split pass), 0 where it does not. With
    fixed blocks (the interpreter, HSR_AUTOTUNE=0) the chunk is the fixed block,
    min(64, rows): tests reach it. HSR_OUTER_SPLIT=n forces n rows a chunk (0: off),
    for measuring."""
    forced = os.environ.get("HSR_OUTER_SPLIT")
    if forced is not None:
        chunk = int(forced)
    elif not autotuned:
        chunk = min(64, next_pow2(rows))
    else:
        chunk = _few_cells_rows(split_pass) if cells < FEW_CELLS and cols > 0 else 0
    return chunk if chunk and rows > chunk else 0


# The lean forward (bench/NOTES.md, v16): specs of MaxSim's form (masks given only to an
# outer sum) run a kernel that carries nothing but the running max (and index), one program per
# (cell, chunk of rows: LEAN_BLOCKS), with TMA loads on Hopper. It runs where the rows are
# at least LEAN_MIN_ROWS (HSR_LEAN_MIN_ROWS overrides; 0 turns it off), on GPUs of
# compute capability 9 and later (Hopper; not yet measured elsewhere), and under the
# interpreter with LOAD LEAN_INTERPRET_LOAD (1: descriptors, 0: pointers).
LEAN_MIN_ROWS = int(os.environ.get("HSR_LEAN_MIN_ROWS", 128))
# Fewer rows (a ColBERT query's 32) take it too where the rows' operand holds at most
# LEAN_FEW_CELLS row sets (one or two queries against many documents). Measured on an H200
# (bench/results/h200-lean-short-rows-2026-11-26): at 32 x 300, 1.16x the general loop at
# Nq = 1, 1.23x at 2, 0.67x from 4 (its stacking shares each document tile among queries),
# 0.71x on 512 packed pairs (public calls then host-bound); 1.20x on the packed rerank; a training
# step at Nq = 1 the same. Row sets that share no columns (columns_shared: packed pairs) run lean at
# any count: do_bench, check launch patched out, 128 / 512 pairs 10.6 / 15.6 us lean against
# 13.2 / 21.9 general (bench/results/h200-varlen-small-2026-11-26).
LEAN_FEW_CELLS = 2
LEAN_INTERPRET_LOAD = 1
LEAN_INTERPRET_COLS = 64  # columns a tile under the interpreter
# (rows per chunk, columns per tile, warps, stages) on a GPU, for chunks of more than 64
# rows; 64 rows and 4 warps at or below. From the hand-written kernel's best at ColPali
# and visual (bench/results/h100-forward-variants-2026-11-24: 128 x 64, 8 warps, 3 stages, with TMA).
LEAN_BLOCKS = (128, 64, 8, 3)
LEAN_SMALL_BLOCKS = (64, 64, 4, 3)  # chunks of at most 64 rows (one warp group's wgmma rows)
# At most 32 rows: one warp group's product swapped (lean_swap: b a^T, the 64 columns on wgmma's M side, the
# rows its N), where a 64-row tile would be half padding and 2 warps run mma v2, which has no fp8 products.
# H200, one query of 32 x 128 unless said, do_bench ms, before (2 warps of 32 rows; fp8 64 rows at 4 warps, as
# 16-bit queries did where the call launched 2 to 3 programs a multiprocessor) / swapped
# (bench/results/h200-lean-swap-2026-11-29/): stored fp8 300 tokens x 10000 0.1446 / 0.1197, 512 x 20000 0.356 /
# 0.314, d 64 0.140 / 0.080; int8 level (0.1205 / 0.1197); fp16 8 x 16 of 8192 0.0409 / 0.0371, 4 x 40 of 8000 at
# d 96 0.0567 / 0.0502, one query of 300 or 1024 tokens level. Held out (h200-lean-swap-held-out-2026-11-29/): fp8
# faster or level on 6 of 6 (50000 x 120 0.365 / 0.263); int8 level on 4, 24 x 700 0.065 / 0.068, 2 x 1500 of
# 400 0.079 / 0.103; 16-bit faster on 4 of 8 (a cosine's 2000 x 300 0.090 / 0.063, 16 x 8 of 3000 0.023 /
# 0.021), level on 3, 8 x 20 of 2048 0.035 / 0.039; the Gaussian's L2 key 0.051 / 0.041 and 0.102 / 0.070, one
# level. A tile that its rows' width cuts below 64 columns (d 256: 0.083 / 0.088) keeps LEAN_TINY_MMA2_BLOCKS.
LEAN_TINY_BLOCKS = (32, 64, 4, 3)
LEAN_TINY_MMA2_BLOCKS = (32, 64, 2, 3)
LEAN_SWAP_MAX_ROWS = 32  # the rows a swapped product holds on wgmma's N side (a 64-row tile would be half padding)
LEAN_SWAP_MIN_COLS = 64  # wgmma's M a warp group
# The general loop's tile of a computed operand (formed in the kernel, never a TMA tile) takes its product
# swapped too, where a config's row block holds at most LEAN_SWAP_MAX_ROWS rows and its column tile at least
# LEAN_SWAP_MIN_COLS (the kernel decides from its blocks, the tuned config's, by these two constants, which emit
# renders into it): the formed tile on the MMA's M side, wgmma where mma v2 ran.
# H200, one query of 32 x 128 against 100000 documents of 2-bit codes, ms, unswapped / swapped: the residual
# spec 7.04 / 6.81, without normalize 6.85 / 6.52, the centroid term alone 3.13 / 3.17 (one process each;
# bench/results/h200-general-swap-formed-2026-11-29/). Not a projection's tile (maxsim_from_hidden's: the formed
# tile an MMA's own result), whose swapped product has not run on a GPU yet.
GENERAL_SWAP_FORMED = True
# An L2 key carries its index through the loop (its value comes from the selected pair's differences): at
# 128 x 64 and 8 warps that loop takes 254 registers a thread, MaxSim's 77. In 64-row chunks of 4 warps
# its programs overlap better: H200, 1 query of 1024 tokens x 512 documents of 1024, the Gaussian MaxSim
# 0.495 ms against 0.579; 128 x 1024, 1000 documents 0.207 against 0.221; 512 x 2048, 200 documents
# 0.212 against 0.247; 96 x 300 0.104 against 0.107 (MaxSim itself slower so: 0.227 against 0.215;
# bench/results/h200-l2-blocks-2026-11-27/variants.md, table 3; bench/NOTES.md, session 29).
LEAN_L2_BLOCKS = (64, 64, 4, 3)
# int8 and fp8 rows from LEAN_BYTE_MIN_ROWS rows: a tile of 128 columns is 128 bytes a row, as fp16's 64.
# H200, one query against stored documents (bench/results/h200-lean-quantized-2026-11-27/, lean_quant_probe.json
# and sweep_*.jsonl): 1024 x 1024 of 1000 int8 0.333 ms against LEAN_BLOCKS' 0.422, fp8 0.34 against 0.39-0.45;
# 256 x 2048 of 300 int8 0.065 against 0.082, fp8 0.067 against 0.079; 200 x 800 of 1500 int8 0.140 against
# 0.168. Where LEAN_BLOCKS' one chunk holds the rows it wins (128 x 1024 of 1000 int8 0.102-0.110 against
# 0.135-0.150; 96 x 300 of 2000), and at 32 rows LEAN_TINY_BLOCKS.
LEAN_BYTE_BLOCKS = (64, 128, 4, 3)
LEAN_BYTE_MIN_ROWS = LEAN_BLOCKS[0] + 1
# A program of at most 64 rows streams column tiles of at most LEAN_TILE_BYTES (columns x the padded
# contraction x the element's bytes: fp16's 64 x 128): past it the columns halve. H200, one fp16 query,
# do_bench ms, rule before / halved (bench/results/h200-wide-lean-2026-11-28/wide_lean_probe.jsonl):
# 1 x 1000 of 32 x 300 at d = 256 0.0636 / 0.0532 (late-interaction-kernels 0.0521), d = 192 0.0561 /
# 0.0453, d = 160 0.0548 / 0.0421; 1 x 3000 of 24 x 180 at 256 0.111 / 0.083; 64 x 300 at 256 0.065 /
# 0.058; d = 128 keeps 64 (0.0331 against 0.0361 at 32). 128-row programs gain nothing steady: not them. The
# Gaussian MaxSim (an L2 key): 0.105 against 0.174 at 32 x 300, d = 256; 3.5% slower at 64 rows
# (wide_lean_gaussian.jsonl beside it).
LEAN_TILE_BYTES = 64 * 128 * 2
LEAN_DIMS = (16, 32, 64, 128, 256)
# the rows the lean forward reads: 16-bit floats, and int8 and fp8 (e4m3) rows on their tensor cores,
# whose tiles take at least 32 coordinates (a shorter contraction reads zeros past its end)
QUANTIZED_DTYPES = {"int8": "int8", "fp8": "float8_e4m3fn"}  # a quantized operand's rows, as torch names them
LEAN_DTYPES = ("float16", "bfloat16", *QUANTIZED_DTYPES.values())
BYTE_ROWS = {v: k for k, v in QUANTIZED_DTYPES.items()}  # torch's name of 1-byte rows -> "int8" / "fp8"
# Few cells, long rows (bench/NOTES.md, session 28): where a lean forward's programs
# (cells x chunks of rows) are fewer than PART_PROGRAMS_PER_SM per multiprocessor, its
# selected axis splits into parts of at least PART_MIN_COLS columns, a program each, and a
# second launch merges a row's parts in order. The interpreter counts INTERPRET_SMS.
PART_MIN_COLS = 1024
PART_PROGRAMS_PER_SM = 2
INTERPRET_SMS = 4
EXPLAIN_SMS = 132  # explain(sizes) on "cuda9": an H100 SXM's multiprocessors
_capability: dict = {}
_sm_count: dict = {}


def _index(device: torch.device) -> int:
    """A CUDA device's index (the current one where it names none)."""
    return device.index if device.index is not None else torch.cuda.current_device()


def multiprocessors(device: torch.device) -> int:
    """The device's streaming multiprocessors, asked once per device (INTERPRET_SMS off a GPU)."""
    if device.type != "cuda":
        return INTERPRET_SMS
    index = _index(device)
    n = _sm_count.get(index)
    if n is None:
        n = _sm_count[index] = torch.cuda.get_device_properties(index).multi_processor_count
    return n


def column_parts(programs: int, cols: int, block_c: int, sms: int) -> tuple[int, int]:
    """(parts, columns a part, a multiple of block_c) of a lean forward's selected axis:
    one part where its programs fill the sms multiprocessors or the row is short; else enough parts to
    fill it, none shorter than PART_MIN_COLS. A part's partial (value, index) merge in
    order, so the result is the one-part result, bit for bit."""
    want = PART_PROGRAMS_PER_SM * sms
    if programs >= want or cols < 2 * PART_MIN_COLS:
        return 1, cols
    parts = min(-(-want // programs), cols // PART_MIN_COLS)
    per_part = -(-cols // parts)
    part_len = -(-per_part // block_c) * block_c  # whole tiles
    return -(-cols // part_len), part_len


# The general loop's selected axis in parts (outer none: the k-means assignment, a nearest point's
# index). The row block is autotuned after the host decides, so the programs are counted at
# GENERAL_PART_ROWS rows a program and a part is a whole number of GENERAL_PART_ALIGN columns (the
# pools' widest column block; any block serves, a part's last tile may read past it).
GENERAL_PART_ROWS = 128
GENERAL_PART_ALIGN = 256


def general_parts_blockers(term) -> list[str]:
    """Why a term's general loop cannot split its selected axis across programs; empty where
    its module carries the split (COL_PARTS). Each part writes its rows' (value, index) and the
    value that ranked them; a merge takes each row's best part in order."""
    why = []
    if term.outer != "none":
        why.append(f"an outer {term.outer} (its rows' chunks split instead)")
    if term.ties:
        why.append("the epilogue is flat at the selection (its ties are searched over the whole axis)")
    if tuple(term.out_axes) != (*term.grid, term.r):
        why.append(f"the output's axes are not ({', '.join((*term.grid, term.r))}) in that order")
    if any(axis == term.r for _name, axis, _outer, _cu in term.packing):
        why.append(f"the output is packed ({term.r!r} is ragged: its rows are not cells x {term.r!r})")
    return why


def general_parts(cells: int, rows: int, cols: int, sms: int, tuned: bool = True,
                  excluded: bool = False) -> tuple[int, int]:
    """(parts, columns a part) of the general loop's selected axis (column_parts) for `cells` cells of
    `rows` rows: tuned, programs of GENERAL_PART_ROWS rows and parts of whole GENERAL_PART_ALIGN
    columns (the tuner picks the blocks after this); else the fixed blocks the host launches
    (min(64, next_pow2) of each axis). One part where `excluded` (the split pass: its loop has no
    part bounds) or HSR_COL_PARTS=0 (to measure against)."""
    if excluded or os.environ.get("HSR_COL_PARTS") == "0":
        return 1, cols
    block_r, block_c = (GENERAL_PART_ROWS, GENERAL_PART_ALIGN) if tuned else \
        (min(64, next_pow2(rows)), min(64, next_pow2(cols)))
    return column_parts(cells * -(-rows // block_r), cols, block_c, sms)


def general_parts_words(term, cells: int, rows: int, cols: int, machine: str) -> str:
    """explain()'s line on the general loop's split of its selected axis (general_parts)."""
    why = general_parts_blockers(term)
    if why:
        return f"  selected axis {term.c!r} (general loop): whole in each program ({'; '.join(why)})"
    on_gpu = machine.startswith("cuda")
    sms = EXPLAIN_SMS if on_gpu else INTERPRET_SMS
    parts, part_len = general_parts(cells, rows, cols, sms, tuned=on_gpu)
    programs = cells * -(-rows // (GENERAL_PART_ROWS if on_gpu else min(64, next_pow2(rows))))
    if parts == 1:
        return (f"  selected axis {term.c!r} (general loop): whole in each of about {programs} programs (split where "
                f"they are fewer than {PART_PROGRAMS_PER_SM * sms} and it has at least {2 * PART_MIN_COLS} columns)")
    return (f"  selected axis {term.c!r} (general loop): {parts} parts of {part_len} columns across programs "
            f"(about {programs} x {parts}: few rows, long selected axis, {sms} multiprocessors), each row's parts "
            f"merged in order (not on the split pass, whose loop has no part bounds)")


def parts_words(axis: str, cells: int, rows: int, cols: int, machine: str, l2: bool = False,
                byte: str = "", row_bytes: int = 0) -> str:
    """explain()'s line on the lean forward's split of its selected axis (column_parts),
    for `cells` output cells of `rows` rows on `machine` (an sm90 GPU counts EXPLAIN_SMS)."""
    if machine.startswith("cuda"):
        sms = EXPLAIN_SMS
        programs, parts, part_len = gpu_lean_launch(rows, cols, cells, sms, l2, byte, row_bytes)
    else:
        sms, programs = INTERPRET_SMS, cells * -(-rows // min(64, next_pow2(rows)))
        parts, part_len = column_parts(programs, cols, min(LEAN_INTERPRET_COLS, next_pow2(cols)), sms)
    if parts == 1:
        return (f"  selected axis {axis!r}: whole in each of {programs} programs (split where they are fewer "
                f"than {PART_PROGRAMS_PER_SM * sms}, {PART_PROGRAMS_PER_SM} a multiprocessor, and it has at least "
                f"{2 * PART_MIN_COLS} columns)")
    return (f"  selected axis {axis!r}: {parts} parts of {part_len} columns across programs ({programs} x {parts}: "
            f"few cells, long rows, {sms} multiprocessors), each part's (value, index) merged in order")


def lean_tile_words(rows: int, machine: str, l2: bool = False, byte: str = "", row_bytes: int = 0) -> str:
    """explain()'s line on the lean forward's tile on a GPU (_gpu_lean_tile) and why."""
    if not machine.startswith("cuda"):
        return "  lean tile: the interpreter's small blocks (a GPU's: by the rows, the key, the rows' format and width)"
    (block_r, block_c, warps, stages), why = _gpu_lean_tile(rows, l2, byte, row_bytes)
    return f"  lean tile: {block_r} rows x {block_c} columns, {warps} warps, {stages} stages ({why})"


def _major(device: torch.device) -> int:
    """The compute capability's major number of a CUDA device, asked once per device."""
    index = _index(device)
    major = _capability.get(index)
    if major is None:
        major = _capability[index] = torch.cuda.get_device_capability(index)[0]
    return major


def row_matrix(x: torch.Tensor) -> torch.Tensor | None:
    """x [..., rows, k] as one [cells x rows, k] matrix without a copy, or None
    where its layout does not allow it (or the rows do not fit int32 coordinates)."""
    if x.numel() == 0 or x.stride(-1) != 1 or x.numel() // x.shape[-1] >= 2 ** 31:
        return None
    try:
        return x.view(-1, x.shape[-1])
    except RuntimeError:  # the leading axes do not merge into one stride
        return None


def columns_shared(term) -> bool:
    """Whether several row sets read the same columns: the rows' operand has a grid
    axis that the columns' does not (in-batch MaxSim's queries share each
    document). Where not (N packed pairs, each query its own document), the
    general loop's stacking has nothing to share, and short rows run lean too."""
    return bool(set(term.a.grid_axes) - set(term.b.grid_axes))


def lean_call_blockers(rows: int, cols: int, d: int, dtype: str, machine: str, cells: int = 1,
                       shared: bool = True, out_cells: int | None = None, sms: int = EXPLAIN_SMS,
                       l2: bool = False) -> list[str]:
    """Why a call of a lean-form term does not run the lean forward; empty where it
    does. machine (see `where`): "interpreter", "cpu" (no kernels), or "cuda" with
    the compute capability's major number ("cuda9"); cells: how many row sets
    the rows' operand holds (its grid axes' sizes multiplied); shared: whether
    they share columns (columns_shared); out_cells: the output cells (default
    cells), on a GPU of sms multiprocessors; l2: the key is an L2 pair's (its blocks)."""
    why = []
    if LEAN_MIN_ROWS <= 0:
        why.append("the lean forward is off (HSR_LEAN_MIN_ROWS=0)")
    elif rows < LEAN_MIN_ROWS and cells > LEAN_FEW_CELLS and shared and not _few_long(
            rows, cols, out_cells or cells, sms, l2, BYTE_ROWS.get(dtype, ""), lean_row_bytes(d, dtype)):
        why.append(f"{rows} rows < {LEAN_MIN_ROWS} in {cells} row sets (more than {LEAN_FEW_CELLS}) that share "
                   f"columns, with {out_cells or cells} cells enough to fill the GPU or rows shorter than "
                   f"{2 * PART_MIN_COLS}")
    if cols < 1:
        why.append("no columns")
    if dtype not in LEAN_DTYPES:
        why.append(f"{dtype} rows (fp16, bf16, int8 and fp8 only)")
    if not LEAN_DIMS[0] <= d <= LEAN_DIMS[-1]:
        # (sizes other than LEAN_DIMS read through pointers, padded to a power of two: at d = 96, 128 x 1024,
        # 1 x 1000 documents, 0.078 ms against the general loop's 0.100, H200, bench/NOTES.md session 28)
        why.append(f"a contraction of {d}, not from {LEAN_DIMS[0]} to {LEAN_DIMS[-1]}")
    if machine == "cpu":
        why.append("no kernels on the CPU without TRITON_INTERPRET=1")
    elif machine.startswith("cuda") and int(machine[4:]) < 9:
        why.append(f"compute capability {machine[4:]}.x (measured on sm90 only)")
    return why


def _few_long(rows: int, cols: int, out_cells: int, sms: int, l2: bool = False, byte: str = "",
              row_bytes: int = 0) -> bool:
    """Few cells, long rows: the lean forward splits the selected axis in parts
    (column_parts), which beats the general loop's stacking of row sets there
    (bench/NOTES.md, session 28: 8 x 16 documents of 2048 and 8192 tokens)."""
    return gpu_lean_launch(rows, cols, out_cells, sms, l2, byte, row_bytes)[1] > 1


def gpu_lean_launch(rows: int, cols: int, out_cells: int, sms: int, l2: bool = False, byte: str = "",
                    row_bytes: int = 0) -> tuple[int, int, int]:
    """(programs before the split, parts, columns a part) of a lean call on a GPU at its
    rows' tile (_gpu_lean_blocks): out_cells x chunks, and column_parts' split of the selected axis."""
    block_r, block_c = _gpu_lean_blocks(rows, l2, byte, row_bytes)[:2]
    programs = out_cells * -(-rows // block_r)
    return (programs, *column_parts(programs, cols, block_c, sms))


def _gpu_lean_blocks(rows: int, l2: bool = False, byte: str = "", row_bytes: int = 0) -> tuple[int, int, int, int]:
    """(rows, columns, warps, stages) of a lean program on a GPU (l2: an L2 pair's key;
    byte: "int8" or "fp8" rows, else ""; row_bytes: a tile row's bytes, lean_row_bytes)."""
    return _gpu_lean_tile(rows, l2, byte, row_bytes)[0]


def lean_row_bytes(d: int, dtype: str) -> int:
    """The bytes of one row of a lean tile: the contraction padded as lean_block_k pads it,
    times the element's bytes (dtype as torch names it, without "torch.")."""
    byte = dtype in BYTE_ROWS
    return next_pow2(d, 32 if byte else 16) * (1 if byte else 2)


def _gpu_lean_tile(rows: int, l2: bool = False, byte: str = "", row_bytes: int = 0) -> tuple[tuple[int, int, int, int], str]:
    """_gpu_lean_blocks' blocks and why, for explain(); a program of at most 64 rows
    takes columns of at most LEAN_TILE_BYTES a tile where row_bytes is given."""
    (block_r, block_c, warps, stages), why = _gpu_lean_rows_tile(rows, l2, byte)
    if block_r <= 64 and row_bytes and block_c * row_bytes > LEAN_TILE_BYTES:
        block_c = max(16, LEAN_TILE_BYTES // row_bytes)
        why += f"; {block_c} columns: rows of {row_bytes} bytes, a column tile of at most {LEAN_TILE_BYTES // 1024} KB"
        if block_r <= LEAN_SWAP_MAX_ROWS and warps >= 4 and block_c < LEAN_SWAP_MIN_COLS:
            warps = LEAN_TINY_MMA2_BLOCKS[2]
            why += f", {warps} warps (a swapped product takes {LEAN_SWAP_MIN_COLS})"
    if lean_swap(block_r, block_c, warps):
        why += "; the product swapped, the columns on one warp group's M side"
    return (block_r, block_c, warps, stages), why


def _gpu_lean_rows_tile(rows: int, l2: bool = False, byte: str = "") -> tuple[tuple[int, int, int, int], str]:
    """The lean tile by the rows, the key and the rows' format, and why."""
    if rows > 64:
        if l2:
            return LEAN_L2_BLOCKS, "an L2 key's index through the loop, in smaller chunks"
        if byte and rows >= LEAN_BYTE_MIN_ROWS:
            return LEAN_BYTE_BLOCKS, f"{byte} rows past one 128-row chunk: 128 one-byte columns a tile"
        return LEAN_BLOCKS, "more than 64 rows"
    if rows > 32:
        return LEAN_SMALL_BLOCKS, "at most 64 rows, one warp group's"
    return LEAN_TINY_BLOCKS, "at most 32 rows"


def lean_swap(block_r: int, block_c: int, warps: int) -> bool:
    """Whether a lean program takes its product as b a^T (the kernel's SWAP): a tile of at
    most LEAN_SWAP_MAX_ROWS rows and LEAN_SWAP_MIN_COLS columns or more at 4 warps or more puts the columns
    on the MMA's M side, so that Hopper's wgmma (64 rows a warp group) holds no padding rows
    (under the interpreter too, whose tiles of at most 32 rows take 4 warps)."""
    return block_r <= LEAN_SWAP_MAX_ROWS and block_c >= LEAN_SWAP_MIN_COLS and warps >= 4


def where(device: torch.device) -> str:
    """What runs a device's kernels, for the per-call rules: "interpreter", "cpu",
    or "cuda" and the compute capability's major number."""
    if device.type == "cuda":
        return f"cuda{_major(device)}"
    return "interpreter" if interpreting() else "cpu"


def lean_blocks(a: torch.Tensor, b: torch.Tensor, rows: int, cols: int, cells: int = 1, shared: bool = True,
                l2: bool = False):
    """(BLOCK rows, BLOCK cols, warps, stages, LOAD, a rows, b rows) for the lean
    forward of a [.., rows, k] (cells row sets, sharing columns or not) and b
    [.., cols, k], or None where it does not apply (lean_call_blockers, or a
    layout that is not one row matrix each); l2: the key is an L2 pair's."""
    b_cells = b.numel() // max(cols * b.shape[-1], 1)
    out_cells = cells * b_cells if shared else max(cells, b_cells)
    if b.dtype != a.dtype or lean_call_blockers(rows, cols, a.shape[-1], str(a.dtype).removeprefix("torch."),
                                                where(a.device), cells, shared, out_cells,
                                                multiprocessors(a.device), l2):
        return None
    a_rows, b_rows = row_matrix(a), row_matrix(b)
    if a_rows is None or b_rows is None:
        return None
    if a.device.type == "cuda":
        # TMA where the rows are many; short rows are small calls, and Triton 3.6 encodes a
        # descriptor on the host at every launch (about 25 us a call, bench/results/
        # h200-lean-short-rows-2026-11-26/host.md): pointer loads there, as fast on the GPU
        load = int(rows >= LEAN_MIN_ROWS and a.shape[-1] in LEAN_DIMS and a.shape[-1] >= lean_block_k(a) and all(
            m.data_ptr() % 16 == 0 and m.stride(0) * m.element_size() % 16 == 0 for m in (a_rows, b_rows)))
        byte = BYTE_ROWS.get(str(a.dtype).removeprefix("torch."), "")
        row_bytes = lean_block_k(a) * a.element_size()
        block_r, block_c, warps, stages = _gpu_lean_tile(rows, l2, byte, row_bytes)[0]
        return block_r, block_c, warps, stages, load, a_rows, b_rows
    # (a descriptor's block is a power of two, and the whole contraction)
    load = LEAN_INTERPRET_LOAD if a.shape[-1] in LEAN_DIMS and a.shape[-1] >= lean_block_k(a) else 0
    return min(64, next_pow2(rows)), min(LEAN_INTERPRET_COLS, next_pow2(cols)), 4, 2, load, a_rows, b_rows


def lean_block_k(a: torch.Tensor) -> int:
    """The lean forward's tile of the contraction: its size padded to a power of
    two, at least 32 for int8 and fp8 rows (their dots take K >= 32)."""
    return next_pow2(a.shape[-1], 32 if a.element_size() == 1 else 16)


def offsets_foldable(term) -> bool:
    """Whether the lean forward's programs can check a packed term's offsets: every
    offsets' axis is a grid axis (each sequence has its programs) and its ragged
    axis is the rows' or the columns' (whose ends the programs take from them)."""
    return bool(term.packing) and all(outer in term.grid and axis in (term.r, term.c)
                                      for _name, axis, outer, _cu in term.packing)


def offsets_check_fold(owed: bool, lean: bool, programs: int, device: torch.device) -> int:
    """How a packed call's owed offsets' check runs (ragged.OWED): folded into the
    lean forward's kernel, where every program checks its own sequences before it
    reads them (1: a device assert, the kernel compiled with debug on; 2: under
    the interpreter, which skips asserts, a flag that torch._assert_async reads),
    or 0: one check launch before the forward (ragged.check_on_device). Folding
    needs a program for every sequence: a grid of none (no rows) checks nothing.
    It spares a launch: 4-5 us of a small call's GPU time (bench/results/
    h200-varlen-small-2026-11-26: the check launch patched out, 28.7 -> 24.7 us on the
    packed rerank)."""
    if not owed or not lean or programs <= 0:
        return 0
    return 1 if device.type == "cuda" and not interpreting() else 2


# The long contraction (DOT_MODE 1, Splade's H = 768) through TMA loads on Hopper: both
# operands as tensor descriptors over (grid axes, rows, contraction), fixed blocks. From
# bench/results/h100-splade-2026-11-24-tma/splade_persistent_round2.log (Splade's head, H100, hand
# kernels): 256 x 128 tiles, 8 warps, 3 stages, 0.621 ms without the index and 0.665 with
# it, against 0.697 and 0.800 for the generated kernel's autotuned pointer loads in the same
# run. With a mask the tiles stop at the last kept position (v21). Taken from LONG_TMA_MIN rows x
# columns (smaller products keep the autotuned tiles); HSR_TMA=0 turns it off, HSR_TMA=1
# takes it at any size. Under the interpreter it runs by default (small blocks), so the
# tests reach it.
LONG_TMA_BLOCKS = (256, 128, 8, 3)
LONG_TMA_MIN = (256, 128)


def tma_call_blockers(rows: int, cols: int, d: int, dtype: str, machine: str) -> list[str]:
    """Why a call of a TMA-form term keeps pointer loads; empty where it takes TMA.
    fp32 only under the interpreter (the tests' integer data): on the GPU fp32
    keeps its IEEE dot. A descriptor's rows are multiples of 16 bytes (of d
    contiguous values; long_tma checks the actual strides)."""
    mode, why = os.environ.get("HSR_TMA", ""), []
    size = {"float16": 2, "bfloat16": 2, "float32": 4}.get(dtype, 1)
    if d * size % 16:
        why.append(f"rows of {d * size} bytes, not a multiple of 16")
    if mode == "0":
        why.append("TMA is off (HSR_TMA=0)")
    if dtype not in ("float16", "bfloat16") and not (machine == "interpreter" and dtype == "float32"):
        why.append(f"{dtype} rows")
    if machine == "cpu":
        why.append("no kernels on the CPU without TRITON_INTERPRET=1")
    elif machine.startswith("cuda"):
        if int(machine[4:]) < 9:
            why.append(f"compute capability {machine[4:]}.x (no TMA)")
        if mode != "1" and (rows < LONG_TMA_MIN[0] or cols < LONG_TMA_MIN[1]):
            why.append(f"{rows} x {cols} rows, under {LONG_TMA_MIN[0]} x {LONG_TMA_MIN[1]}")
    return why


def long_tma(a: torch.Tensor, b: torch.Tensor, rows: int, cols: int):
    """(BLOCK rows, BLOCK cols, warps, stages) for TMA loads of a long contraction's
    a [.., rows, k] and b [.., cols, k] (views in the descriptors' axis order), or
    None where they do not apply: tma_call_blockers, or a layout a descriptor cannot
    take (the contraction not contiguous, strides or base not 16-byte aligned)."""
    if b.dtype != a.dtype or tma_call_blockers(rows, cols, a.shape[-1], str(a.dtype).removeprefix("torch."),
                                                   where(a.device)):
        return None
    for x in (a, b):
        if x.stride(-1) != 1 or x.data_ptr() % 16 or any(
                s <= 0 or s * x.element_size() % 16 for s in x.stride()[:-1]):
            return None
    if a.device.type != "cuda":
        # (columns from 32: the last tile may run at half width, and a dot takes 16 and more)
        return min(64, next_pow2(rows)), min(64, next_pow2(cols, 32)), 4, 2
    return LONG_TMA_BLOCKS


# -- the choice in words ----------------------------------------------------------

# How a computed operand's codes are read (hsr.emit_rows; H100, the residual ops at 1024 x 200 / 1024 /
# 8192 tokens, bench/results/h100-residual-formation-2026-11-27/): 4-bit codes a byte at a time, split
# by a reshape (0.33 against 0.36 ms at 1024 x 1024, 1.21 against 1.39 at 512 x 8192); 1- and 2-bit
# codes a load a code, where the reshape of 4 (or 8) codes a byte cost more than it saved (0.25 against
# 0.28, 0.83 against 0.93). Tables of at most 2^ROWS_SELECT_BITS entries read at codes: their entries
# loaded once a tile and picked by the codes' bits, not gathered a coordinate at a time (2-bit: 0.25
# against 0.29 ms, 0.83 against 1.03; 4-bit tables by 15 selects were slower: 0.44 against 0.33).
# Read when a module is rendered; HSR_ROWS_BYTES_BITS ("4", "2,4", "" ...) and HSR_ROWS_SELECT_BITS
# override them, for sweeps.
ROWS_BYTES_ONCE_BITS = tuple(int(b) for b in os.environ.get("HSR_ROWS_BYTES_BITS", "4").split(",") if b)
ROWS_SELECT_BITS = int(os.environ.get("HSR_ROWS_SELECT_BITS", "2"))


# A projection in a computed operand (<H[j, t, :], W[d, :]>) is formed on the tensor cores, the
# contracted axis PROJECTION_BLOCK at a time; its rows block is at least 16 (tl.dot's least).
PROJECTION_BLOCK = 32
# The inputs of a computed operand get their gradient from its rows formed again in torch at the rows
# MaxSim's backward reached (hsr.row_grads): where the selections could reach more than
# 1 / ROWS_DENSE_SHARE of the rows, every row is formed instead (two GEMMs, no selection of rows).
ROWS_DENSE_SHARE = 4


GATHER_PROGRAMS = 1024  # programs the gather backward of a projected operand aims for (about 8 an SM)


def gather_rows(rows: int, d: int) -> int:
    """Rows of the gathering operand one backward program takes (its loop over
    the other side is a chain of dependent loads: more, smaller programs hide
    it). Measured on an H100 (bench/NOTES.md, session 8): at d = 128, 8 rows
    against 32 made the gather 2.1x faster at ColBERT B=128, 1.46x at B=512,
    1.2x at ColPali B=32; at Splade's d = 768 (six chunks of d per program) 8
    rows made the deterministic step 12% slower, so longer rows keep 32."""
    return min(8 if d <= 128 else 32, next_pow2(rows))


GATHER_PART_CELLS = 16  # loaded rows: the fewest other cells a part of a gather backward walks
GATHER_MIN_WALK = 256  # loaded rows: the walk (other cells a program) that parts shorten; shorter ones stay whole
GATHER_SMS_EXPLAINED = 132  # explain(sizes) counts an H100's multiprocessors


def gather_parts(programs: int, n_other: int, formed: bool = True, sms: int = 0, scatter: bool = True) -> int:
    """Parts the other cells of a gather backward split into across programs, each
    part's partial of the gathering side's gradient added in a fixed order after.
    Formed rows (a projection formed again at each selection: a GEMM of a few rows,
    not a load): enough programs to fill the GPU. Loaded rows: where the pass also
    scatters (scatter: "atomic", an fp32 atomic add a selection in the walk), the
    programs (a block of rows each) are fewer than the sms multiprocessors and each
    would walk at least GATHER_MIN_WALK cells, as many as make GATHER_PROGRAMS, none
    walking fewer than GATHER_PART_CELLS cells. Measured in one process (H200, bf16
    steps; bench/NOTES.md, session 51): atomic 1 x 1000 documents of 32 x 300 0.71 ms
    against 1.26 in one part, 8 x 1000 0.70 / 1.31, 1 x 256 of 32 x 8192 0.78 / 1.04;
    walks of 128-300 cells level or up to 0.1 ms slower (the partials' buffer and
    sum), and "deterministic", whose walk only loads, 0.02-0.12 ms slower."""
    if formed:
        return max(1, min(n_other, -(-GATHER_PROGRAMS // max(programs, 1))))
    if not scatter or programs >= sms or n_other < GATHER_MIN_WALK or os.environ.get("HSR_GATHER_PARTS") == "0":
        return 1  # (HSR_GATHER_PARTS=0: loaded rows in one part, to measure)
    return max(1, min(n_other // GATHER_PART_CELLS, -(-GATHER_PROGRAMS // max(programs, 1))))


# maxsim_from_hidden (H200, bf16, 32 query tokens, the shipped tuned configs, one process, ms, fused / GEMM
# first). Forward (bench/results/h200-hidden-record-2026-11-27/): one query against 512 x 2048 hidden rows of
# 768 0.646 / 1.162; 1024 x 2048 1.25 / 2.26; 256 x 4096 of 384 0.348 / 1.003; 128 x 1024 0.117 / 0.179; 16
# queries against 512 x 2048 1.56 / 1.31 (512 query rows a program against the projection formed in the loop).
# Training step, its backward kept whole with the normalisation's in the kernel
# (bench/results/h200-hidden-host-kernel-norm-2026-11-29/): 1 x 32 x 512 1.03 / 1.75, 2 x 64 x 512 of 384
# 0.96 / 1.37 (both held out), 1 x 128 x 1024 1.00 / 1.63, 1 x 512 x 2048 1.50 / 2.74, 1 x 1024 x 2048 2.89 /
# 5.51; 16 queries against 128 x 1024 1.15 / 1.46, 512 x 2048 7.42 / 7.86, 256 x 4096 of 384 3.77 / 4.73: fused
# wherever measured, up to 16 queries (before, at 2^17 rows the backward's host work was not paid back).
HIDDEN_FUSED_MAX_QUERY_ROWS = 64  # a forward's
HIDDEN_FUSED_MAX_TRAIN_QUERY_ROWS = 512  # a training step's: the most measured


def hidden_fused(device: str, query_rows: int, d_out: int, training: bool, deterministic: bool = False) -> bool:
    """maxsim_from_hidden: the projection formed in the MaxSim kernel (the spec
    ops/maxsim_hidden.hsr) or one GEMM first. Fused where the query rows are few
    (a forward: HIDDEN_FUSED_MAX_QUERY_ROWS; a training step, whose backward the fused
    path makes cheaper: HIDDEN_FUSED_MAX_TRAIN_QUERY_ROWS) and, for a training step,
    no deterministic backward is asked (the fused one adds a selected row's gradients
    by atomics); HSR_HIDDEN ("fused", "unfused") overrides it."""
    env = os.environ.get("HSR_HIDDEN")
    if env:
        return env == "fused"
    if device != "cuda" or d_out > COMPUTED_MAX_D:
        return False
    if training:
        return query_rows <= HIDDEN_FUSED_MAX_TRAIN_QUERY_ROWS and not deterministic
    return query_rows <= HIDDEN_FUSED_MAX_QUERY_ROWS


# A dense gradient's zeros (grad H_d of a hidden-state step; hsr.zeros), H200, bf16, do_bench
# (fill_probe.py, in git at 185a32e; bench/results/h200-hidden-record-fused-rule-2026-11-29/): 1.61 GB
# torch.zeros 0.476 ms (3.4 TB/s), a Triton store of 4096 elements a program 0.354 (4.6 TB/s); 3.22 GB 0.951 /
# 0.702. Below a few hundred MB the launch, not the rate, is what a step pays: the kernel from 256 MB.
ZEROS_KERNEL_MIN_BYTES = 1 << 28


def zeros_by_kernel(device: str, nbytes: int) -> bool:
    """Whether a buffer of zeros is written by hsr.zeros' store kernel (large, on a GPU) or torch's fill
    (HSR_ZEROS_KERNEL=0: torch's fill always, to measure)."""
    return device == "cuda" and nbytes >= ZEROS_KERNEL_MIN_BYTES and os.environ.get("HSR_ZEROS_KERNEL") != "0"


def rows_bytes_once(bits: int) -> bool:
    """Whether n-bit codes packed along a computed operand's coordinates are read a byte at a time."""
    return bits in ROWS_BYTES_ONCE_BITS


def computed_words(b) -> str:
    """explain()'s line on a computed operand: what its rows are formed from, in the kernel."""
    parts, projected = [], set()
    for node in ir.walk(b.computed.rows.expr):
        if isinstance(node, ir.Pair):
            parts.append(f"{node.a.tensor.name} projected by {node.b.tensor.name} over {node.axis!r} "
                         f"(tensor cores, {PROJECTION_BLOCK} at a time)")
            projected |= {id(node.a), id(node.b)}
        elif isinstance(node, ir.Gather):
            bits = ir.CODE_BITS.get(node.index.kind)
            at = f"{node.index.name}'s {bits}-bit codes" if bits else node.index.name
            parts.append(f"{node.table.name} read at {at}")
        elif isinstance(node, ir.Load) and id(node) not in projected:
            parts.append(node.tensor.name)
    rows = b.computed.rows
    norm = ("" if not rows.normalize else ", L2-normalised" if not rows.for_cosine else
            ", L2-normalised (read by cosines only: a cosine of its rows is one of its normalised rows)")
    swap = (f"; where a config's row block holds at most {LEAN_SWAP_MAX_ROWS} rows and its column tile "
            f"{LEAN_SWAP_MIN_COLS} or more, the formed tile takes the MMA's M side (the product swapped)"
            ) if GENERAL_SWAP_FORMED and not projected else ""
    return (f"  computed operand {b.name}: its rows formed in the kernel, a tile at a time, from {', '.join(parts)}"
            f"{norm}; never written to memory (" + (f"{b.axes[-1]} in chunks of {COMPUTED_BLOCK_K}" if COMPUTED_BLOCK_K
                                                   else f"one tile of {b.axes[-1]}") + f", at most {COMPUTED_MAX_D}){swap}")


def scalar_bound(kind: str, axes, grid, stacked: str | None) -> bool:
    """A length bound the same for a whole program (its limit's axes all grid axes
    one program holds one value of): the tile loop can stop at it."""
    return kind == "bound" and set(axes) <= set(grid) - {stacked}


def forms(term, signature) -> dict:
    """The kernel families a term's module carries, and why the others are not:
    {stacked, lean (reasons against, [] where carried), both (reasons), split, tma (reasons)}."""
    stacked = stacking_axis(term)
    c_conds = [c for c in term.conds if c.axis == term.c]
    both = both_ways_blockers(term, signature, len(c_conds),
                              sum(scalar_bound(c.kind, c.axes, term.grid, stacked) for c in c_conds), bool(stacked))
    tma = tma_blockers(term, bool(stacked), not both)
    return dict(stacked=stacked, lean=lean_blockers(term, signature), both=both,
                split=split_form(term, both, bool(stacked)), tma=tma)


def forward_kernel(term, signature, sizes: dict | None = None, dtype: str = "float16",
                   machine: str = "cuda9") -> list[str]:
    """explain()'s lines on a term's forward kernel: the family that runs and what
    keeps a faster family out. Without sizes, the rule; with sizes ({axis: n}),
    a dtype and the machine it runs on (see `where`; default an sm90 GPU), the family a call
    of those sizes takes, from the same rules the call applies."""
    f = forms(term, signature)
    d = sizes.get(term.k) if sizes else None
    if term.a.quantized:  # the rows' own tensor cores: the lean loop, or the general one on those rows
        general = term.a.quantized
        dtype = QUANTIZED_DTYPES[term.a.quantized]
    elif term.pair == "l1":
        general = "elementwise"
    elif term.b.computed is not None:
        chunks = d is None or contraction(d, computed=True, pair=term.pair)[0] == 1
        general = "tiles-long" if chunks and not computed_whole(term.pair) else "tiles"
    elif d is not None:
        prec = precision(torch.float32, ranks_only(term), "cuda" if machine.startswith("cuda") else "cpu")
        three = dtype == "float32" and prec == "tf32x3" and not (
            sizes and halves(prec, term.key_is_prim, d, rows_per_column_set(term, sizes)))
        general = ("points", "tiles", "tiles-long")[(2, 0, 1).index(contraction(d, three_products=three)[0])]
    else:
        general = f"points (d <= {SMALL_D_MAX}), tiles (d <= 256) or tiles-long"
    lines = []
    if sizes is None:
        if not f["lean"]:
            lines.append(f"  forward kernel: lean ({FAMILIES['lean']}) for "
                         + (f"{term.a.quantized} rows" if term.a.quantized else "fp16/bf16 rows") + f", {term.k} from "
                         f"{LEAN_DIMS[0]} to {LEAN_DIMS[-1]} (TMA loads at {LEAN_DIMS}), at least {LEAN_MIN_ROWS} "
                         f"rows of {term.r!r} or "
                         + (f"at most {LEAN_FEW_CELLS} row sets of {term.a.name} (more where the rows are long "
                            f"and the cells few) "
                            if columns_shared(term) else
                            f"any number of row sets of {term.a.name} (they share no {term.b.name} rows) ")
                         + f"on sm90; else {general}")
            if term.pair in ("sqdist", "dist", "cos"):
                lines.append(col_norms_words(term, None, lean=True))
        else:
            more = []
            if not f["both"]:
                more.append("both-ways for a call of both directions"
                            + (", split from 8e8 pairs" if f["split"] else ""))
            if not f["tma"] and term.pair != "l1":
                more.append(f"tiles-tma for {term.k} > 256 (fp16/bf16, sm90)")
            lines.append(f"  forward kernel: {general}" + "".join(f"; {m}" for m in more))
            if term.pair != "l1":
                lines.append(row_slot_words(term.pair in ("sqdist", "dist"), stacked=stacking_axis(term) is not None))
            if term.pair == "cos":
                lines.append(register_cap_words("cuda9"))
            lines.append(one_loop_words(term, None, tma_masked(term, f)))
            if term.pair in ("sqdist", "dist"):
                lines.append(col_norms_words(term, None))
                lines.append(shift_16bit_words(term, None))
    else:
        rows, cols = sizes.get(term.r, 0), sizes.get(term.c, 0)
        pairs = rows * cols
        for g in term.grid:
            pairs *= sizes.get(g, 1)
        cells = 1  # the row sets of the rows' operand
        for g in term.a.grid_axes:
            cells *= sizes.get(g, 1)
        out_cells = max(pairs // max(rows * cols, 1), 1)
        l2 = term.pair in ("sqdist", "dist")
        lean_call = lean_call_blockers(rows, cols, d, dtype, machine, cells, columns_shared(term), out_cells,
                                       EXPLAIN_SMS if machine.startswith("cuda") else INTERPRET_SMS, l2) \
            if not f["lean"] else []
        place = "cuda" if machine.startswith("cuda") else machine
        if not f["lean"] and not lean_call:
            family = "lean"
        elif general == "points" and f["split"] and split_pass(place, d, pairs):
            family = "split"
        elif general == "tiles-long" and not f["tma"] and not tma_call_blockers(rows, cols, d, dtype, machine):
            family = "tiles-tma"
        else:
            family = general
        if family == "lean" and term.outer == "mean" and term.conds:  # emit._lean: a mean's masks need counts
            lines.append(f"  forward kernel: lean ({FAMILIES['lean']}) where no mask is given; "
                         f"given a mask: {general} ({FAMILIES[general]})")
        else:
            lines.append(f"  forward kernel: {family} ({FAMILIES[family]})")
        if family in ("tiles", "tiles-long", "tiles-tma", "points", "elementwise", "int8", "fp8") and cols:
            lines.append(one_loop_words(term, cols, tma_masked(term, f)))
        if family in ("tiles", "tiles-long", "tiles-tma") and term.pair != "l1":
            ranked_fp32 = dtype == "float32" and not l2 and ranks_only(term) and exact_at_selection(
                torch.float32, precision(torch.float32, True, place), contraction(d)[0] if d else 0)
            g = stacking_axis(term)
            lines.append(row_slot_words(l2, ranked_fp32, sizes.get(g, 1) * rows if g else None, cols, g is not None))
            if term.pair == "cos":
                lines.append(register_cap_words(machine))
            if l2:
                lines.append(col_norms_words(term, sizes))
                if dtype in ("float16", "bfloat16", None):
                    lines.append(shift_16bit_words(term, sizes))
        if family in ("tiles", "tiles-long", "points", "elementwise", "int8", "fp8") and cols and term.outer == "none":
            lines.append(general_parts_words(term, out_cells, rows, cols, machine))
        if not f["both"] and family != "split":
            lines.append("  both directions in one call: both-ways" + (
                "" if place != "cuda" else " up to 1e8 pairs without indices"))
        if lean_call:
            lines.append(f"  not lean for this call: {'; '.join(lean_call)}")
        elif family == "lean":
            row_bytes = lean_row_bytes(d, dtype) if d else 0
            lines.append(parts_words(term.c, out_cells, rows, cols, machine, l2, term.a.quantized, row_bytes))
            lines.append(lean_tile_words(rows, machine, l2, term.a.quantized, row_bytes))
            if l2 or term.pair == "cos":
                lines.append(col_norms_words(term, sizes, lean=True))
            if l2 and dtype in ("float16", "bfloat16", None):
                lines.append(shift_16bit_words(term, sizes, lean=True))
    if dtype == "float32" and term.pair != "l1" and (d is None or d > SMALL_D_MAX) and not term.a.quantized:
        lines.append(precision_words(term.pair in ("sqdist", "dist"), machine, term.key_is_prim, d,
                                     rows_per_column_set(term, sizes) if sizes else None, ranks_only(term)))
    if f["lean"] and term.pair != "l1" and (d is None or d > SMALL_D_MAX):
        lines.append(f"  not lean: {'; '.join(f['lean'])}")
    if term.b.computed is not None:
        lines.append(computed_words(term.b))
    if term.packing:
        lines.append("  offsets' checks (max_seqlen given, on a GPU): " + (
            "in the lean forward's kernel (a device assert), else one check launch before the forward"
            if not f["lean"] and offsets_foldable(term) else "one check launch before the forward"))
    if f["stacked"]:
        lines.append(f"  stacking (general loop): values of {f['stacked']!r} share each {term.b.name} tile")
        a_bytes = None
        if sizes is not None and all(a in sizes for a in term.a.axes):
            a_bytes = math.prod(sizes[a] for a in term.a.axes) * (4 if dtype == "float32" else 2)
        lines.append(stacked_first_words(term, a_bytes))
        lines.append(persistent_words(term, sizes, EXPLAIN_SMS if machine.startswith("cuda") else INTERPRET_SMS))
        lines.append(stacked_block_words(term))
    elif term.outer in ("sum", "mean", "max", "min"):
        lines.append(f"  outer {term.outer}: rows of {term.r!r} in chunks of {FEW_CELLS_ROWS} "
                     f"({FEW_CELLS_SPLIT_ROWS} on the split pass) across programs "
                     f"where cells are fewer than {FEW_CELLS} (general loop), merged in chunk order")
    return lines

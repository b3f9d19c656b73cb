"""hsr.dispatch: the rules that choose a kernel, and explain()'s account of them.

explain() must name the family that actually runs: each case below runs a call
through the interpreter, records the forward kernel it launched, and compares it
with the family `explain(shapes)` names for the same call.
"""

import pytest
import torch

import hsr
from hsr import dispatch, launcher
from hsr.cli import bundled_spec

MAXSIM = """
Q[i, s, d]: float
D[j, t, d]: float
score[i, j] = sum_s max_t <Q_s, D_t>
"""
WEIGHTED = """
Q[i, s, d]: float
D[j, t, d]: float
w[i, s]: float
score[i, j] = sum_s w_s * max_t <Q_s, D_t>
"""
SPLADE = """
H[b, s, h]: float
W[v, h]: float
bias[v]: float
rep[b, v] = max_s log1p(relu(<H_s, W_v> + bias_v))
"""
NEAREST = """
X[b, n, d]: float
Y[b, m, d]: float
dist[b, n] = min_m ||X_n - Y_m||^2
"""
COLUMN_TERM = """
Q[i, s, d]: float
D[j, t, d]: float
c[j, t]: float
score[i, j] = sum_s max_t (<Q_s, D_t> + c_t)
"""
COSINE_COLUMN_TERM = COLUMN_TERM.replace("<Q_s, D_t>", "cos(Q_s, D_t)")
L1 = """
P[b, n, d]: float
R[b, m, d]: float
dist[b, n] = min_m ||P_n - R_m||_1
"""


def _launched(monkeypatch):
    """The family of each forward kernel launched, from its name and flags."""
    seen = []
    plain = launcher.launch

    def spy(kernel, grid, *args, **kwargs):
        name = getattr(kernel, "fn", kernel).__name__
        if name.endswith("_fwd_lean"):
            seen.append("lean")
        elif name.endswith("_fwd_both"):
            seen.append("both-ways")
        elif name.endswith("_fwd"):
            mode = kwargs["DOT_MODE"]
            seen.append({3: "split", 2: "points", 0: "tiles"}.get(mode) or
                        ("tiles-tma" if kwargs.get("TMA") else "tiles-long"))
        return plain(kernel, grid, *args, **kwargs)
    monkeypatch.setattr(launcher, "launch", spy)
    return seen


def _general_launches(monkeypatch):
    """(flags, programs) of each general forward (*_fwd) launched."""
    seen = []
    plain = launcher.launch

    def spy(kernel, grid, *args, **kwargs):
        if getattr(kernel, "fn", kernel).__name__.endswith("_fwd"):
            seen.append((kwargs, (grid(kwargs) if callable(grid) else grid)[0]))
        return plain(kernel, grid, *args, **kwargs)
    monkeypatch.setattr(launcher, "launch", spy)
    return seen


def _said(op, sizes, dtype, device="cpu") -> str:
    line = next(x for x in op.explain(sizes, dtype, device).splitlines() if x.strip().startswith("forward kernel:"))
    return line.split(":", 1)[1].split()[0]


CASES = [  # (spec, sizes, dtype, what the pair makes of them under the interpreter)
    (MAXSIM, dict(i=2, j=3, s=8, t=5, d=16), torch.float16, "lean"),
    (MAXSIM, dict(i=2, j=3, s=8, t=5, d=16), torch.float32, "tiles"),
    (MAXSIM, dict(i=2, j=3, s=8, t=5, d=24), torch.float16, "lean"),  # pointer loads, padded to 32
    (WEIGHTED, dict(i=2, j=3, s=8, t=5, d=16), torch.float16, "lean"),
    (COLUMN_TERM, dict(i=2, j=3, s=8, t=5, d=16), torch.float16, "lean"),
    (COSINE_COLUMN_TERM, dict(i=2, j=3, s=8, t=5, d=16), torch.float16, "tiles"),
    (SPLADE, dict(b=2, s=5, h=24, v=6), torch.float32, "tiles"),
    (SPLADE, dict(b=1, s=3, h=272, v=4), torch.float16, "tiles-tma"),
    (NEAREST, dict(b=2, n=6, m=7, d=3), torch.float32, "points"),
    (L1, dict(b=2, n=6, m=7, d=3), torch.float32, "elementwise"),
]


def _inputs(op, sizes, dtype, device):
    gen = torch.Generator().manual_seed(0)
    out = []
    for t in op.program.tensors:
        x = torch.randint(-3, 4, [sizes[a] for a in t.axes], generator=gen).to(dtype)
        out.append(x.to(device))
    return out


@pytest.mark.parametrize("case", range(len(CASES)))
def test_explain_names_the_forward_kernel_that_runs(case, monkeypatch, device):
    if device != "cpu":
        pytest.skip("the families a GPU call takes depend on its sizes and machine: bench/specs.py reports them")
    spec, sizes, dtype, expected = CASES[case]
    monkeypatch.setattr(dispatch, "LEAN_MIN_ROWS", 4)
    op = hsr.compile(spec)
    seen = _launched(monkeypatch)
    op(*_inputs(op, sizes, dtype, device))
    assert _said(op, sizes, dtype) == expected
    # an L1 pair's elementwise loop is the general kernel's DOT_MODE 2 (unrolled) or 0
    assert seen and seen[0] == expected or (expected == "elementwise" and seen[0] in ("points", "tiles"))


def test_explain_names_the_split_pass_where_it_runs(monkeypatch, device):
    if device != "cpu":
        pytest.skip("interpreter only")
    monkeypatch.setenv("HSR_SPLIT", "1")
    op = hsr.compile(NEAREST)
    sizes = dict(b=1, n=9, m=11, d=3)
    seen = _launched(monkeypatch)
    op(*_inputs(op, sizes, torch.float32, device))
    assert seen[-1] == "split" == _said(op, sizes, torch.float32)


def test_the_rule_without_sizes_says_what_blocks_the_lean_forward():
    text = hsr.compile(COSINE_COLUMN_TERM).explain()
    assert "forward kernel: points (d <= 8), tiles (d <= 256) or tiles-long" in text
    assert "not lean: the selection's key is not the plain cos; per-column terms (c) on a cos key" in text
    for spec in (MAXSIM, WEIGHTED, COLUMN_TERM):  # a dot's key takes per-column terms on the tile
        text = hsr.compile(spec).explain()
        assert "forward kernel: lean" in text and "not lean" not in text


def test_a_call_says_why_it_is_not_lean():
    op = hsr.compile(MAXSIM)
    text = op.explain(dict(i=64, j=1000, s=32, t=300, d=128), torch.float16)
    assert "forward kernel: tiles " in text
    assert f"not lean for this call: 32 rows < {dispatch.LEAN_MIN_ROWS} in 64 row sets" in text
    # few queries against many documents: nothing for the general loop to stack
    text = op.explain(dict(i=dispatch.LEAN_FEW_CELLS, j=1000, s=32, t=300, d=128), torch.float16)
    assert "forward kernel: lean" in text and "not lean" not in text
    text = op.explain(dict(i=1, j=1000, s=1024, t=300, d=96), "bfloat16")  # pointer loads: any d to 256
    assert "forward kernel: lean" in text
    text = op.explain(dict(i=1, j=1000, s=1024, t=300, d=384), "bfloat16")
    assert "not lean for this call: a contraction of 384" in text


def test_few_cells_split_a_long_selected_axis_in_parts():
    """dispatch.column_parts: a split only where the programs cannot fill the GPU and the
    row is long; the parts cover the row, none empty, each a whole number of tiles and
    at least PART_MIN_COLS long; explain(sizes) names the split that a call takes."""
    sms, tile = 132, 64
    assert dispatch.column_parts(2 * sms, 1 << 14, tile, sms) == (1, 1 << 14)  # the GPU is full
    assert dispatch.column_parts(8, 2 * dispatch.PART_MIN_COLS - 1, tile, sms)[0] == 1  # too short to split
    for programs, cols in ((1, 16384), (32, 16384), (32, 5000), (200, 8192), (1, 2048)):
        parts, part_len = dispatch.column_parts(programs, cols, tile, sms)
        assert parts > 1 and part_len % tile == 0 and part_len >= dispatch.PART_MIN_COLS
        assert (parts - 1) * part_len < cols <= parts * part_len
        assert programs * parts <= dispatch.PART_PROGRAMS_PER_SM * sms + programs
    op = hsr.compile(MAXSIM)
    text = op.explain(dict(i=1, j=32, s=32, t=16384, d=128), torch.float16)
    assert "forward kernel: lean" in text and "selected axis 't': 9 parts of 1856 columns" in text
    text = op.explain(dict(i=1, j=1000, s=32, t=300, d=128), torch.float16)
    assert "selected axis 't': whole in each of 1000 programs" in text


def test_the_general_loop_splits_a_long_selected_axis_where_rows_are_few(monkeypatch):
    """dispatch.general_parts: the k-means assignment of 1000 points against 100000 centres
    splits the centres across programs on a GPU, in whole tiles of the pools' widest block;
    a million points do not; explain(sizes) says so. An outer reduction, a flat epilogue or an
    output whose axes are not (grid, rows) keeps the axis whole and says why."""
    parts, part_len = dispatch.general_parts(1, 1000, 100000, 132)
    assert parts > 1 and part_len % dispatch.GENERAL_PART_ALIGN == 0 and (parts - 1) * part_len < 100000
    assert dispatch.general_parts(1, 1 << 20, 100000, 132) == (1, 100000)
    assert dispatch.general_parts(1, 1000, 100000, 132, excluded=True) == (1, 100000)
    monkeypatch.setenv("HSR_COL_PARTS", "0")
    assert dispatch.general_parts(1, 1000, 100000, 132) == (1, 100000)
    monkeypatch.delenv("HSR_COL_PARTS")
    assign = hsr.compile("X[n, d]: float\nC[k, d]: float\nassign[n] = argmin_k ||X_n - C_k||^2\n")
    assert f"selected axis 'k' (general loop): {parts} parts of {part_len} columns" in \
        assign.explain(dict(n=1000, k=100000, d=64), "float16")
    assert "selected axis 'k' (general loop): whole in each of about 8192 programs" in \
        assign.explain(dict(n=1 << 20, k=100000, d=64), "float16")
    transposed = hsr.compile("P[b, n, d]: float\nR[b, m, d]: float\nnn[n, b] = min_m ||P_n - R_m||^2\n")
    assert "the output's axes are not (b, n) in that order" in transposed.explain(dict(b=2, n=100, m=5000, d=16))


def test_an_l2_key_runs_the_lean_loop_in_smaller_chunks():
    """An L2 key carries its index through the lean loop (dispatch.LEAN_L2_BLOCKS): 64-row
    chunks of 4 warps where MaxSim's take 128 rows of 8; short rows keep the common blocks."""
    assert dispatch._gpu_lean_blocks(1024, l2=True) == dispatch.LEAN_L2_BLOCKS
    assert dispatch._gpu_lean_blocks(1024) == dispatch.LEAN_BLOCKS
    for byte in ("int8", "fp8"):
        assert dispatch._gpu_lean_blocks(1024, byte=byte) == dispatch.LEAN_BYTE_BLOCKS  # 1-byte rows, many
        assert dispatch._gpu_lean_blocks(128, byte=byte) == dispatch.LEAN_BLOCKS
    # at 32 rows, every format and key takes one warp group's product swapped (its 64 columns on wgmma's M side)
    for byte in ("fp8", "int8", ""):
        assert dispatch._gpu_lean_blocks(32, byte=byte) == dispatch.LEAN_TINY_BLOCKS
    assert dispatch._gpu_lean_blocks(32, l2=True) == dispatch.LEAN_TINY_BLOCKS
    fp8 = hsr.compile(bundled_spec("maxsim_fp8")).explain(dict(i=1, j=10000, s=32, t=300, d=128), "fp8")
    assert ("lean tile: 32 rows x 64 columns, 4 warps, 3 stages (at most 32 rows; the product swapped, the columns "
            "on one warp group's M side)") in fp8
    assert "lean tile: 32 rows x 64 columns, 4 warps" in hsr.compile(MAXSIM).explain(
        dict(i=1, j=1000, s=32, t=300, d=128), torch.float16)
    sizes = dict(i=1, j=1000, s=1024, t=300, d=128)
    gaussian = hsr.compile(MAXSIM.replace("<Q_s, D_t>", "exp(-||Q_s - D_t||^2)"))
    assert "whole in each of 16000 programs" in gaussian.explain(sizes, torch.float16)
    assert "whole in each of 8000 programs" in hsr.compile(MAXSIM).explain(sizes, torch.float16)


def test_a_short_query_takes_its_product_swapped_where_a_warp_group_fills():
    """dispatch.lean_swap: a lean tile of at most 32 rows at 4 warps takes b a^T where its column
    tile fills wgmma's 64 rows; a tile that its rows' width cuts below 64 columns runs 2 warps
    unswapped, as does a 64-row tile."""
    assert dispatch.lean_swap(32, 64, 4) and dispatch.lean_swap(16, 128, 4)
    assert not dispatch.lean_swap(32, 32, 4) and not dispatch.lean_swap(32, 64, 2) and not dispatch.lean_swap(64, 64, 4)
    wide = dispatch._gpu_lean_blocks(32, row_bytes=dispatch.lean_row_bytes(256, "float16"))
    assert wide == (32, 32, 2, 3) and not dispatch.lean_swap(*wide[:3])
    assert dispatch.lean_swap(*dispatch._gpu_lean_blocks(32, byte="fp8", row_bytes=256)[:3])
    text = hsr.compile(MAXSIM).explain(dict(i=1, j=1000, s=32, t=300, d=256), torch.float16)
    assert "32 columns: rows of 512 bytes, a column tile of at most 16 KB, 2 warps (a swapped product takes 64)" in text
    few = hsr.compile(MAXSIM).explain(dict(i=8, j=16, s=32, t=8192, d=128), torch.float16)  # few programs too
    assert "lean tile: 32 rows x 64 columns, 4 warps, 3 stages (at most 32 rows; the product swapped" in few


def test_wide_rows_of_few_query_rows_take_narrower_column_tiles():
    """dispatch.LEAN_TILE_BYTES: a program of at most 64 rows streams column tiles of at most
    64 x 128 fp16 coordinates; past that (d above 128 in 16 bits) the columns halve, by the
    padded width and the element's bytes. 128-row programs and 1-byte rows of 256 keep theirs."""
    for d, cols in ((64, 64), (128, 64), (160, 32), (256, 32)):
        for rows in (24, 32, 48, 64):
            assert dispatch._gpu_lean_blocks(rows, row_bytes=dispatch.lean_row_bytes(d, "float16"))[1] == cols
    assert dispatch._gpu_lean_blocks(128, row_bytes=dispatch.lean_row_bytes(256, "bfloat16")) == dispatch.LEAN_BLOCKS
    assert dispatch._gpu_lean_blocks(32, byte="int8", row_bytes=dispatch.lean_row_bytes(256, "int8"))[1] == 64
    assert dispatch._gpu_lean_blocks(1024, l2=True, row_bytes=512)[1] == 32  # an L2 key's 64-row chunks
    wide = hsr.compile(MAXSIM).explain(dict(i=1, j=1000, s=32, t=300, d=256), torch.float16)
    assert "lean tile: 32 rows x 32 columns, 2 warps, 3 stages (at most 32 rows; 32 columns: rows of 512 bytes" in wide
    assert "lean tile: 32 rows x 64 columns" in hsr.compile(MAXSIM).explain(dict(i=1, j=1000, s=32, t=300, d=96),
                                                                            torch.float16)


def test_the_general_loop_keeps_one_slot_per_row_where_no_index_is_carried(monkeypatch):
    """dispatch.row_slot: without an index the general loop's running max is one per row
    (each tile reduced at once); with one (a gradient, an L2 key) a slot per tile column.
    The flag a call launches is the rule's, and explain() says which."""
    slots = []
    plain = launcher.launch

    def spy(kernel, grid, *args, **kwargs):
        if getattr(kernel, "fn", kernel).__name__.endswith("_fwd"):
            slots.append((kwargs["DOT_MODE"], kwargs["NEED_IDX"], kwargs["ROW_SLOT"]))
        return plain(kernel, grid, *args, **kwargs)
    monkeypatch.setattr(launcher, "launch", spy)
    monkeypatch.delenv("HSR_ROW_SLOT", raising=False)
    sizes = dict(i=2, j=3, s=8, t=5, d=16)
    op = hsr.compile(COSINE_COLUMN_TERM)  # (a dot's column term runs lean)
    Q, D, c = _inputs(op, sizes, torch.float16, "cpu")
    with torch.no_grad():
        op(Q, D, c)
    op(Q.requires_grad_(True), D, c)
    hsr.compile(NEAREST)(*_inputs(hsr.compile(NEAREST), dict(b=2, n=6, m=7, d=16), torch.float16, "cpu"))
    assert slots == [(0, False, True), (0, True, False), (0, True, False)]
    assert dispatch.row_slot(1, True) and not dispatch.row_slot(2, False)
    monkeypatch.setenv("HSR_ROW_SLOT", "0")
    assert not dispatch.row_slot(0, False)
    assert "one per row, each tile reduced at once" in op.explain(sizes, torch.float16)
    assert "index is always carried" in hsr.compile(NEAREST).explain(dict(b=2, n=6, m=7, d=16), torch.float16)


def test_a_cosine_key_without_an_index_hints_a_register_cap_on_sm90(monkeypatch):
    """dispatch.register_cap: the general forward of a cosine key launches with the register
    hint (hsr.launcher takes the cap where the kernel allows it) where it carries no index,
    and without it where it does; on sm90 only. The call passes the rule's hint (here as on
    an sm90: the interpreter takes none), and explain() says so."""
    hints = []
    plain, rule = launcher.launch, dispatch.register_cap

    def spy(kernel, grid, *args, **kwargs):
        if getattr(kernel, "fn", kernel).__name__.endswith("_fwd"):
            hints.append(kwargs.get("reg_cap"))
        return plain(kernel, grid, *args, **kwargs)
    monkeypatch.setattr(launcher, "launch", spy)
    monkeypatch.setattr(dispatch, "register_cap", lambda pair, need_idx, machine: rule(pair, need_idx, "cuda9"))
    monkeypatch.delenv("HSR_REG_CAP", raising=False)
    sizes = dict(i=2, j=3, s=8, t=5, d=16)
    op = hsr.compile(COSINE_COLUMN_TERM)
    Q, D, c = _inputs(op, sizes, torch.float16, "cpu")
    with torch.no_grad():
        op(Q, D, c)
    op(Q.requires_grad_(True), D, c)
    hint = (dispatch.REG_CAP, dispatch.REG_CAP_SLACK)
    assert hints == [hint, None]
    assert rule("cos", False, "cuda9") == {"reg_cap": hint}
    assert rule("cos", True, "cuda9") == rule("dot", False, "cuda9") == rule("cos", False, "cuda8") == {}
    assert rule("cos", False, "interpreter") == {}
    monkeypatch.setenv("HSR_REG_CAP", "0")
    assert rule("cos", False, "cuda9") == {}
    monkeypatch.setenv("HSR_REG_CAP", "1")
    assert rule("cos", True, "cuda9") == {"reg_cap": hint} and rule("sqdist", True, "cuda9") == {}
    assert f"capped at {dispatch.REG_CAP} a thread" in op.explain(sizes, torch.float16)


def test_an_l2_key_reads_its_column_norms_from_a_pre_pass_where_many_rows_meet_them(monkeypatch):
    """dispatch.col_norms: where at least COL_NORMS_ROWS rows meet each column set (the
    rows and the grid axes the columns' operand lacks), the general loop's L2 key reads the
    columns' norms from a pre-pass; the flag a call launches is the rule's, and explain() says which."""
    flags = []
    plain = launcher.launch

    def spy(kernel, grid, *args, **kwargs):
        if getattr(kernel, "fn", kernel).__name__.endswith("_fwd"):
            flags.append(kwargs["COL_NORMS"])
        return plain(kernel, grid, *args, **kwargs)
    monkeypatch.setattr(launcher, "launch", spy)
    monkeypatch.delenv("HSR_COL_NORMS", raising=False)
    monkeypatch.setattr(dispatch, "COL_NORMS_ROWS", 7)
    op = hsr.compile(NEAREST)
    for n in (6, 8):  # 6 rows meet each Y (b is Y's own), then 8
        op(*_inputs(op, dict(b=2, n=n, m=7, d=16), torch.float32, "cpu"))
    assert flags == [False, True]
    monkeypatch.setattr(dispatch, "COL_NORMS_ROWS", 512)
    assert "from a pre-pass (1048576 rows meet each Y row set" in op.explain(dict(b=1, n=1 << 20, m=1024, d=128))
    assert "formed from each tile (300 rows" in op.explain(dict(b=4, n=300, m=1024, d=128))
    monkeypatch.setenv("HSR_COL_NORMS", "0")
    assert not dispatch.col_norms(1 << 20)


def test_a_lean_gaussian_forms_its_column_norms_from_its_tiles_where_few_rows_meet_them(monkeypatch):
    """dispatch.col_norms(lean=True): the lean forward's L2 key reads a pre-pass's column
    norms from LEAN_COL_NORMS_ROWS rows a column set, else forms them from its tiles (and
    launches no pre-pass); explain() says which."""
    flags, kernels = [], []
    plain = launcher.launch

    def spy(kernel, grid, *args, **kwargs):
        kernels.append(getattr(kernel, "fn", kernel).__name__)
        if kernels[-1].endswith("_fwd_lean"):
            flags.append(kwargs["COL_NORMS"])
        return plain(kernel, grid, *args, **kwargs)
    monkeypatch.setattr(launcher, "launch", spy)
    monkeypatch.delenv("HSR_COL_NORMS", raising=False)
    monkeypatch.setattr(dispatch, "LEAN_COL_NORMS_ROWS", 7)
    op = hsr.compile(MAXSIM.replace("<Q_s, D_t>", "exp(-||Q_s - D_t||^2)"))
    for s in (6, 8):
        kernels.clear()
        op(*_inputs(op, dict(i=1, j=3, s=s, t=5, d=16), torch.float16, "cpu"))
        assert any(k.endswith("_row_norms") for k in kernels) == (s == 8), kernels
    assert flags == [False, True]
    monkeypatch.setattr(dispatch, "LEAN_COL_NORMS_ROWS", 256)
    words = op.explain(dict(i=1, j=1000, s=32, t=300, d=128), torch.float16)
    assert "column norms (lean loop): formed from each tile (32 rows meet each D row set" in words


def test_few_contributions_to_many_rows_write_only_the_selected_rows():
    """dispatch.sparse_rows: at most one contribution in SPARSE_ROWS_PER_ENTRY rows of a
    large selection side: "auto" takes the deterministic backward, which writes the
    selected rows only; in-batch ColBERT and Chamfer keep their backwards."""
    assert dispatch.auto_backward(1, 32, 8192, cells=256, width=128) == "deterministic"  # a long-document rerank
    assert dispatch.deterministic_scatter(1, 32, 8192, cells=256, width=128) == "sparse"
    assert dispatch.auto_backward(128, 32, 300, cells=128, width=128) == "atomic"  # ColBERT in-batch
    assert dispatch.deterministic_scatter(128, 32, 300, cells=128, width=128) == "onehot"
    assert dispatch.auto_backward(1, 32, 16384, cells=32, width=128) == "atomic"  # too small to be worth its sort
    assert dispatch.auto_backward(1, 100_000, 100_000) == "atomic"  # Chamfer's 100K points
    op = hsr.compile(MAXSIM)
    assert '"auto" takes deterministic; "deterministic" scatters through sparse' in \
        op.explain(dict(i=1, j=256, s=32, t=8192, d=128))
    assert '"auto" takes atomic; "deterministic" scatters through onehot' in \
        op.explain(dict(i=128, j=128, s=32, t=300, d=128))


PAIRS = """
Q[n, s, d]: float
D[n, t, d]: float
score[n] = sum_s max_t <Q_s, D_t>
"""


def test_row_sets_that_share_no_columns_run_lean(monkeypatch, device):
    """Short rows in many row sets: the general loop where its stacking shares each
    column tile among them (MaxSim's queries), lean where every row set has its own
    columns (pairs): what explain() says and what runs."""
    if device != "cpu":
        pytest.skip("interpreter only")
    for spec, sizes, family in ((MAXSIM, dict(i=5, j=3, s=8, t=5, d=16), "tiles"),
                                (PAIRS, dict(n=5, s=8, t=5, d=16), "lean")):
        op = hsr.compile(spec)
        assert dispatch.columns_shared(op.plan.terms[0]) == (family == "tiles")
        seen = _launched(monkeypatch)
        op(*_inputs(op, sizes, torch.float16, device))
        assert seen[0] == family == _said(op, sizes, torch.float16)
        monkeypatch.undo()
    assert "in 5 row sets (more than 2) that share columns" in hsr.compile(MAXSIM).explain(dict(i=5, j=3, s=8, t=5, d=16), "float16")
    assert "any number of row sets of Q (they share no D rows)" in hsr.compile(PAIRS).explain()


def test_the_offsets_check_folds_into_a_lean_grid_only():
    cpu, cuda = torch.device("cpu"), torch.device("cuda")
    assert dispatch.offsets_check_fold(False, True, 10, cuda) == 0  # nothing owed
    assert dispatch.offsets_check_fold(True, False, 10, cuda) == 0  # not the lean kernel: a launch first
    assert dispatch.offsets_check_fold(True, True, 0, cuda) == 0  # no program to check anything
    assert dispatch.offsets_check_fold(True, True, 10, cpu) == 2  # the interpreter: a flag
    if not dispatch.interpreting():
        assert dispatch.offsets_check_fold(True, True, 10, cuda) == 1  # a device assert


def test_forms_follow_what_a_spec_is_not_its_name():
    """The same spec under other names and axis letters gets the same families."""
    renamed = MAXSIM.replace("Q", "Left").replace("D", "Right").replace("score", "sim")
    for text in (MAXSIM, renamed):
        f = dispatch.forms(hsr.compile(text).plan.terms[0], hsr.compile(text).plan.signature)
        assert f["lean"] == [] and f["stacked"] == "i" and f["both"] and f["tma"] == ["stacked outer axis"]
    f = dispatch.forms(hsr.compile(NEAREST).plan.terms[0], hsr.compile(NEAREST).plan.signature)
    assert f["both"] == [] and f["split"] and f["stacked"] is None


def test_hsr_explain_takes_shapes(capsys):
    from hsr.cli import main
    assert main(["explain", "ops/splade.hsr", "--plan-only", "--shapes", "b=32,s=256,h=768,v=30522"]) == 0
    out = capsys.readouterr().out
    assert "forward kernel: tiles-tma" in out and "@triton.jit" not in out
    with pytest.raises(SystemExit):
        main(["explain", "ops/splade.hsr", "--shapes", "b=x"])
    assert main(["explain", "splade", "--plan"]) == 0  # a bundled spec by name; the plan alone
    out = capsys.readouterr().out
    assert "forward kernel:" in out and "@triton.jit" not in out


@pytest.mark.parametrize("rule", ["split_rows", "outer_split"])
def test_few_cells_split_their_rows_by_the_pass_that_runs(monkeypatch, rule):
    """Few cells of long rows go in chunks across programs: 64 rows on the CUDA-core or
    tensor-core loop, 128 on the split pass; many cells, or fixed blocks, as before."""
    monkeypatch.delenv("HSR_SPLIT_ROWS", raising=False)
    monkeypatch.delenv("HSR_OUTER_SPLIT", raising=False)
    fn = getattr(dispatch, rule)
    assert fn(4, 20000, 20000, autotuned=True) == dispatch.FEW_CELLS_ROWS == 64
    assert fn(4, 20000, 20000, autotuned=True, split_pass=True) == dispatch.FEW_CELLS_SPLIT_ROWS == 128
    assert fn(4, 100, 20000, autotuned=True, split_pass=True) == 0  # one chunk: no split
    assert fn(4096, 20000, 20000, autotuned=True, split_pass=True) == dispatch.SPLIT_ROWS == 0
    assert fn(4, 20000, 20000, autotuned=False, split_pass=True) == 64


def test_explain_says_what_runs_on_this_machine():
    """The plan's last line names the device path: under the tests, Triton's interpreter."""
    op = hsr.compile("maxsim")
    last = op.explain().splitlines()[-1]
    assert "on this machine" in last and "Triton's interpreter" in last
    assert "tensor cores (tl.dot" not in op.explain()  # the pair line does not claim a GPU


KMEANS = """
X[n, d]: float
C[k, d]: float
assign[n] = argmin_k ||X_n - C_k||^2
"""


@pytest.mark.parametrize("mode, l2_key", [("highest", "tf32x3"), ("high", "tf32"), ("medium", "tf32")])
def test_fp32_keys_follow_the_float32_matmul_precision(monkeypatch, mode, l2_key):
    """A key that only ranks (an L2 key's value comes from the differences, a dot key's
    from its IEEE dot at the index) takes TF32 where PyTorch's float32 matmul precision
    allows; a key that is its own value (a cosine) stays IEEE; 16-bit rows and the
    interpreter are unaffected."""
    monkeypatch.setattr(torch, "get_float32_matmul_precision", lambda: mode)
    assert dispatch.precision(torch.float32, True, "cuda") == l2_key
    assert dispatch.precision(torch.float32, False, "cuda") == "ieee"
    assert dispatch.precision(torch.float16, True, "cuda") == "tf32"
    assert dispatch.precision(torch.float32, True, torch.device("cpu")) == "ieee"
    words = hsr.compile(KMEANS).explain({"n": 4096, "k": 1024, "d": 128}, torch.float32)
    assert f"float32 matmul precision {mode!r}" in words
    assert ("three TF32 products (tf32x3)" if l2_key == "tf32x3" else "one TF32 product (one fp16 product") in words
    sizes = {"i": 1, "j": 8, "s": 32, "t": 64, "d": 128}
    words = hsr.compile(MAXSIM).explain(sizes, torch.float32)
    assert f"the dot key ranks the pairs as {'three TF32 products' if l2_key == 'tf32x3' else 'one TF32'}" in words
    cosine = MAXSIM.replace("<Q_s, D_t>", "cos(Q_s, D_t)")
    assert f"(now {mode!r})" in hsr.compile(cosine).explain(sizes, torch.float32)
    assert "  fp32 rows:" not in hsr.compile(KMEANS).explain({"n": 4096, "k": 1024, "d": 128}, torch.float16)


def test_three_fp16_products_rank_where_many_rows_meet_each_centre(monkeypatch):
    """dispatch.halves: TF32's accuracy as one fp16 product of scaled rows and tf32x3's as
    three of their halves, for a ranking key of one tile where the columns' norms come from
    a pre-pass; explain() names it."""
    monkeypatch.delenv("HSR_HALVES", raising=False)
    many = dispatch.COL_NORMS_ROWS
    assert dispatch.halves("tf32x3", True, 64, many) == 3
    assert dispatch.halves("tf32", True, 64, many) == 1
    assert dispatch.halves("tf32x3", True, 64, many - 1) == 0  # few rows: splitting B would not pay
    assert dispatch.halves("tf32x3", True, 256, many) == 0  # past one tile's halves
    assert dispatch.halves("tf32x3", False, 64, many) == 0  # a key with terms: its norms from the tiles
    assert dispatch.halves("ieee", True, 64, many) == 0
    monkeypatch.setenv("HSR_HALVES", "1")
    assert dispatch.halves("tf32", True, 64, 8) == 1 and dispatch.halves("tf32x3", True, 64, 8) == 3
    monkeypatch.delenv("HSR_HALVES")
    monkeypatch.setattr(torch, "get_float32_matmul_precision", lambda: "highest")
    words = hsr.compile(KMEANS).explain({"n": many, "k": 1024, "d": 128}, torch.float32)
    assert "three fp16 products of hi and lo halves of rows scaled by powers of two" in words
    assert "tiles (the general tile loop (tensor cores, one tile" in words  # one tile, not tf32x3's chunks
    words = hsr.compile(KMEANS).explain({"n": 4096, "k": 1024, "d": 128}, torch.float32)
    assert "three TF32 products (tf32x3) (three fp16 products of hi and lo halves of rows scaled by powers" in words


def test_a_kept_call_follows_a_change_of_float32_matmul_precision(monkeypatch):
    """A kept (replayed) call's key holds the precision, so a change takes effect at once."""
    from hsr import kept
    x = torch.zeros(2, 3)
    monkeypatch.setattr(torch.Tensor, "is_cuda", property(lambda self: True))
    monkeypatch.setattr(launcher, "current_device", lambda: 0)
    keys = {}
    for mode in ("highest", "high"):
        monkeypatch.setattr(torch, "get_float32_matmul_precision", lambda mode=mode: mode)
        keys[mode] = kept.signature((x,), "auto")
    assert keys["highest"] != keys["high"]


def test_three_tf32_products_loop_over_chunks_past_64_coordinates(monkeypatch):
    """An fp32 key as three TF32 products keeps one tile up to 64 coordinates and
    loops over chunks of 32 past it; other keys keep one tile up to 256; explain
    names the family the rule gives."""
    assert dispatch.contraction(64, three_products=True) == (0, 64, 0)
    assert dispatch.contraction(128, three_products=True) == (1, 32, 0)
    assert dispatch.contraction(128) == (0, 128, 0)
    assert dispatch.contraction(3, three_products=True) == (2, 16, 3)
    op = hsr.compile(KMEANS)
    sizes = {"n": 4096, "k": 1024, "d": 128}
    for mode, family in (("highest", "tiles-long"), ("high", "tiles")):
        monkeypatch.setattr(torch, "get_float32_matmul_precision", lambda mode=mode: mode)
        assert f"forward kernel: {family} (" in op.explain(sizes, torch.float32), mode
        assert "forward kernel: tiles (" in op.explain(sizes, torch.float16), mode


def test_an_l2_key_of_many_short_row_sets_keeps_one_slot_a_row_in_the_stacked_loop(monkeypatch):
    """dispatch.row_slot: an L2 key's row sets that share columns run the stacked general loop
    (not the lean forward), with one slot a row once they stack ROW_SLOT_STACKED_ROWS rows (the
    stacked axis's values x the rows of each), a slot per column below; MaxSim's dot key carries
    no index there. The flag a call launches is the rule's; explain() names it with the count."""
    slots = []
    plain = launcher.launch

    def spy(kernel, grid, *args, **kwargs):
        name = getattr(kernel, "fn", kernel).__name__
        slots.append((name, kwargs.get("ROW_SLOT")))
        return plain(kernel, grid, *args, **kwargs)
    monkeypatch.setattr(launcher, "launch", spy)
    monkeypatch.delenv("HSR_ROW_SLOT", raising=False)
    monkeypatch.setattr(dispatch, "ROW_SLOT_STACKED_ROWS", 12)
    gaussian = hsr.compile(MAXSIM.replace("<Q_s, D_t>", "exp(-||Q_s - D_t||^2)"))
    for s_, want in ((4, True), (3, False)):  # 3 x 4 = 12 stacked rows: one slot a row; 3 x 3 = 9: a slot a column
        slots.clear()
        sizes = dict(i=3, j=2, s=s_, t=5, d=16)
        gaussian(*_inputs(gaussian, sizes, torch.float16, "cpu"))
        assert [row for name, row in slots if name.endswith("_fwd")] == [want], slots
        assert not any(name.endswith("_fwd_lean") for name, _ in slots)
        words = gaussian.explain(sizes, torch.float16)
        assert f"({3 * s_} stacked rows; one per row" in words
        assert ("running selection (general loop): one per row, each tile reduced at once (" in words) == want
    assert dispatch.row_slot(0, True, 12) and not dispatch.row_slot(0, True, 11) and not dispatch.row_slot(0, True)
    # a dot key carrying an index (a gradient): the same count, on a selected axis of at most ROW_SLOT_MAX_COLS
    long = dispatch.ROW_SLOT_MAX_COLS + 1
    assert dispatch.row_slot(0, True, 12, long - 1) and not dispatch.row_slot(0, True, 12, long)
    assert dispatch.row_slot(0, True, 12, long, l2=True)
    training = hsr.compile(MAXSIM).explain(dict(i=3, j=2, s=4, t=5, d=16), torch.float16)
    assert "where one is (training, an index output): one per row, each tile reduced at once (12 stacked rows;" in training
    kmeans = hsr.compile(KMEANS).explain({"n": 4096, "k": 1024, "d": 128}, torch.float16)
    assert "running selection (general loop): a slot per row and tile column (the index" in kmeans


def test_the_stacked_loop_reads_each_document_once_and_pipelines_its_last_tile(monkeypatch):
    """dispatch.stacked_first: where the queries fit in L2 their blocks lead the launch order;
    dispatch.one_loop: the last, partial tile of a short selected axis runs in the tile loop.
    explain() names both choices for a call."""
    monkeypatch.delenv("HSR_ONE_LOOP", raising=False)
    assert dispatch.one_loop(300) and dispatch.one_loop(1000)
    assert not dispatch.one_loop(256) and not dispatch.one_loop(1024) and not dispatch.one_loop(3000)
    monkeypatch.setenv("HSR_ONE_LOOP", "0")
    assert not dispatch.one_loop(300)
    monkeypatch.delenv("HSR_ONE_LOOP")
    assert dispatch.stacked_first(512 << 10) and not dispatch.stacked_first(64 << 20)
    text = hsr.compile(MAXSIM).explain(dict(i=64, j=10000, s=32, t=300, d=128), torch.float16)
    assert "launch order (general loop, stacked): the stacked blocks first (0.5 MiB of Q" in text
    assert "last, partial tile of 't' (general loop): in the tile loop (300 long" in text
    text = hsr.compile(MAXSIM).explain(dict(i=2048, j=1000, s=32, t=256, d=128), torch.float16)
    assert "the other cells first (16.0 MiB of Q" in text
    assert "after the loop (256 long" in text


def test_stacked_programs_persist_where_cells_are_many(monkeypatch):
    """dispatch.persistent: programs that keep a block of queries and walk runs of documents
    where one row block holds a query's rows and the cells give each program several; not
    where the queries' rows vary over another output axis or are packed. explain() says which."""
    monkeypatch.delenv("HSR_PERSIST", raising=False)
    sms = 132
    assert dispatch.persistent(32, 64 * 10000, sms)
    assert not dispatch.persistent(32, 64 * 10000, sms, split=16)
    assert not dispatch.persistent(128, 64 * 10000, sms)  # more rows than a row block holds
    assert not dispatch.persistent(32, 8 * 100, sms)  # too few cells to share
    monkeypatch.setenv("HSR_PERSIST", "1")
    assert dispatch.persistent(32, 8 * 100, sms) and not dispatch.persistent(128, 8 * 100, sms)
    monkeypatch.delenv("HSR_PERSIST")
    # a whole number of runs per block, about two programs a multiprocessor, no run without a cell
    assert dispatch.persistent_programs(4, 10000, sms) == 4 * 66
    assert dispatch.persistent_programs(3, 2, sms) == 6
    assert dispatch.persistent_programs(300, 10, sms) == 300
    maxsim = hsr.compile(MAXSIM)
    assert not dispatch.persistent_blockers(maxsim.plan.terms[0])
    text = maxsim.explain(dict(i=64, j=10000, s=32, t=300, d=128), torch.float16)
    assert "persistent programs (general loop, stacked): yes (640000 cells" in text
    text = maxsim.explain(dict(i=4, j=100, s=32, t=300, d=128), torch.float16)
    assert "persistent programs (general loop, stacked): no (400 cells" in text
    assert ("stacked block (general loop): the config's values of 'i' a program, halved while the call launches "
            "fewer than 0.5 programs a multiprocessor") in text
    batched = hsr.compile("""
        Q[b, i, s, d]: float
        D[b, j, t, d]: float
        out[b, i, j] = sum_s max_t <Q_s, D_t>
    """)
    assert "Q varies over b besides 'i'" in "; ".join(dispatch.persistent_blockers(batched.plan.terms[0]))
    assert "persistent programs (general loop, stacked): no (Q varies over b" in batched.explain()


def test_gather_rows_follow_the_measured_rule():
    """8 rows a backward program at d <= 128, 32 for longer rows (16 at least, as
    every block of the template)."""
    assert dispatch.gather_rows(32, 128) == 8 and dispatch.gather_rows(1024, 96) == 8
    assert dispatch.gather_rows(30522, 768) == 32 and dispatch.gather_rows(3, 768) == 16
    assert dispatch.gather_rows(1, 3) == 8


def test_explain_names_the_gather_backwards_parts():
    """explain(sizes) says where the atomic gather walks the documents in parts (one query against
    1000 documents: 4 programs) and where each program walks them all (512 in-batch queries)."""
    op = hsr.compile(bundled_spec("maxsim"))
    few = op.explain(dict(i=1, j=1000, s=32, t=300, d=128))
    many = op.explain(dict(i=512, j=512, s=32, t=300, d=128))
    assert "the gather: 4 programs of Q's rows, \"atomic\"'s (which scatters as it walks) the other cells in 62 parts" \
        in few, few
    assert "the gather: 2048 programs of Q's rows, each walking every other cell" in many, many

"""Run-time support of the generated modules: the blocks and buffers their host
code sizes, and the float64 paths through the reference evaluator.

Generated op modules import this module and torch/triton only: no parser,
no Jinja, no sympy on the hot path. It stands above hsr.reference, hsr.binding
and hsr.basics (whose names it hands on to the generated code), never below.
"""

from __future__ import annotations

import os
import warnings

import torch

from .basics import autotuning, cache_dir, interpreting, length_bucket, next_pow2, tuning_on_call  # noqa: F401
from .binding import CALL_FLOAT_DTYPES, INT_DTYPES, KERNEL_FLOAT_DTYPES, Signature, bind  # noqa: F401
from .dispatch import COMPUTED_MAX_D, row_matrix
from .errors import TensorError


def off_current_device(device: torch.device) -> bool:
    """A CUDA device other than the current one: Triton launches on the current
    device, so the generated entry points make the inputs' device current first."""
    return device.type == "cuda" and device.index is not None and device.index != torch.cuda.current_device()


BACKWARDS = ("auto", "atomic", "deterministic")


def check_rows(op_name: str, t: dict, sizes: dict, rows: tuple) -> None:
    """A call's computed operands checked before any kernel: their width, and
    their indices (int ones on the device where a host check would sync,
    torch._assert_async; n-bit codes by their table's size). rows: (name, axes,
    float input, gathers, k axis, definition, normalised), each gather (index
    input, table, gathered axis, code bits or 0)."""
    for name, _axes, _like, gathers, k, *_form in rows:
        if sizes[k] > COMPUTED_MAX_D:
            raise TensorError(f"{op_name}: the computed operand {name!r} has {sizes[k]} coordinates along {k!r}; "
                              f"its rows are formed one tile at a time, at most {COMPUTED_MAX_D}")
        for index, table, axis, bits in gathers:
            n, x = sizes[axis], t[index]
            if bits:
                if n < 1 << bits:
                    raise TensorError(f"{op_name}: {index!r} holds {bits}-bit codes (0 .. {(1 << bits) - 1}), but "
                                      f"{table!r} has {n} entries along {axis!r}; give it {1 << bits}")
                continue
            message = f"{op_name}: input {index!r} holds an index outside 0 .. {n - 1} (the size of {table}'s axis {axis!r})"
            if x.device.type == "cuda":
                torch._assert_async(((x >= 0) & (x < n)).all(), message)
            elif x.numel() and bool(((x < 0) | (x >= n)).any()):
                raise TensorError(message)


def stand_ins(t: dict, sizes: dict, rows: tuple) -> dict:
    """The call's tensors with a stand-in for each computed operand: a zero-stride
    tensor of its dtype and shape, which the host path reads for those alone (the
    kernels form its rows from its inputs)."""
    t = dict(t)
    for name, axes, like, *_rest in rows:
        t[name] = torch.empty((), dtype=t[like].dtype, device=t[like].device).expand(*[sizes[a] for a in axes])
    return t


def check_backward(op_name: str, backward) -> None:
    if backward not in BACKWARDS:
        raise TensorError(f"{op_name}: backward must be one of {', '.join(map(repr, BACKWARDS))}, got {backward!r}")


def require_fp8(device: torch.device) -> None:
    """fp8 dots need a GPU with fp8 tensor cores (compute capability 8.9 or
    more: Ada, Hopper); elsewhere a clear error, not one from inside Triton."""
    if device.type == "cuda" and torch.cuda.get_device_capability(device) < (8, 9):
        raise TensorError(f"fp8 rows need fp8 tensor cores (compute capability 8.9 or more, Hopper); "
                          f"{torch.cuda.get_device_name(device)} has none: use int8")


def inverse_blocks(d: int) -> tuple[int, int, int]:
    """(entries per step, BLOCK of the contraction, warps) of the inverse-index
    backward; HSR_INVERSE_BLOCKS="e,k,warps" overrides them, for measuring."""
    env = os.environ.get("HSR_INVERSE_BLOCKS")
    if env:
        e, k, w = (int(x) for x in env.split(","))
        return e, k, w
    return 16, min(128, next_pow2(d)), 4  # best or within 3% where the inverse index is chosen (bench/NOTES.md)


def index_dtype(selected: int) -> torch.dtype:
    """The saved index's dtype for a selection over `selected` positions: int16
    where every position and the two sentinels (-1 none, -2 row left out) fit,
    else int32. Training keeps it from forward to backward: at ColBERT B=512 it
    is B * B * Lq entries, 0.031 GiB as int32, as much as the lower peer holds
    beyond the gradients."""
    return torch.int16 if selected < 2**15 else torch.int32


INVERSE_CHUNK = (1 << 21, 1 << 19)  # entries at a time: counting sort, stable sort
COUNT_MAX_BINS = 4096


def count_blocks() -> tuple[int, int]:
    """(entries a program, entries a placing step) of the counting sort.

    The placing pass is a chain of dependent steps per program; a 32 x 32
    comparison a step, not 64 x 64, is what makes it fast, and larger blocks
    hold fewer per-block counts (bins / block * 8 bytes an entry: counts and
    offsets, int32). Measured on an H200 (bench/NOTES.md, session 13;
    experiment deterministic_blocks, in git history at c3907b4), deterministic steps, (1024, 64) ->
    (2048, 32): Splade 1.875 -> 1.814 ms, ColBERT B=512 5.660 -> 5.106,
    ColPali B=64 3.677 -> 3.303 at 0.039 -> 0.023 GiB; (1024, 32) within 0.1%
    of it but at ColPali (3.377), (512, 32) and (256, 32) slower and larger.
    HSR_COUNT_BLOCKS="block,sub" overrides them, for measuring."""
    env = os.environ.get("HSR_COUNT_BLOCKS")
    if env:
        block, sub = (int(x) for x in env.split(","))
        return block, sub
    return 2048, 32


def counting_bins(selected: int) -> int:
    """Bins of the inverse index's counting sort for a selection over `selected`
    rows (one more: selected nothing), a power of two of at least 32 as
    tl.histogram wants; 0 where that passes COUNT_MAX_BINS (Chamfer's clouds)
    and the stable sort builds the index. HSR_INVERSE_SORT=1 takes the sort
    everywhere (the tests compare the two)."""
    if os.environ.get("HSR_INVERSE_SORT") == "1":
        return 0
    bins = max(32, next_pow2(selected + 1))
    return bins if bins <= COUNT_MAX_BINS else 0


def inverse_chunk(counting: bool) -> int:
    """Saved index entries the inverse index takes at a time (whole cells of the
    selection side; at least one cell). The counting sort holds about 4 bytes an
    entry (the order, int32) and its per-block counts; torch.sort about 36 (the
    keys, their sorted copy, the int64 order, the sort's buffers). Unchunked,
    ColBERT B=512's 8.4M entries held 0.21 GiB through the sort, 2.9x
    late-interaction-kernels' whole step. HSR_INVERSE_CHUNK overrides both (the
    tests take small chunks)."""
    env = os.environ.get("HSR_INVERSE_CHUNK")
    return max(1, int(env)) if env else INVERSE_CHUNK[0 if counting else 1]


def onehot_blocks(selected: int, outer: int, d: int) -> tuple[int, int, int, int, int]:
    """(BLOCK of the selected rows, BLOCK of the outer rows, BLOCK of the
    contraction, warps, stages) of the tensor-core one-hot backward
    ("deterministic" for dot pairs: MaxSim, Splade). Measured on an H100 at the
    training and Splade shapes (bench/NOTES.md); HSR_ONEHOT_BLOCKS="c,r,k,warps,stages"
    overrides them, for measuring."""
    env = os.environ.get("HSR_ONEHOT_BLOCKS")
    if env:
        c, r, k, w, s = (int(x) for x in env.split(","))
        return c, r, k, w, s
    k = min(128, next_pow2(d))
    if outer <= 64:  # few outer rows per cell (ColBERT's 32 query tokens): 0.85 ms at ColBERT B=128
        return min(64, next_pow2(selected)), min(32, next_pow2(outer)), k, 4, 3
    # long outer axes (ColPali's 1024 query tokens, Splade's vocabulary): Splade 3.92 ms
    # (best of 8; (64, 64, 128, 4, 3) gave 4.10), ColPali B=32 2.31 ms (best 2.26)
    return min(128, next_pow2(selected)), 128, k, 8, 2


def split_blocks() -> tuple[int, int]:
    """(rows a program, warps) of the kernels that scale and write split rows."""
    return (64, 4) if interpreting() else (256, 4)


def l2_shift(a: torch.Tensor, b: torch.Tensor, a_axes, b_axes, shared, k: str,
             ragged_a=None, ragged_b=None, cu_a=None, cu_b=None):
    """(a, b, a - c, b - c) for the expansion |a - c|^2 + |b - c|^2 - 2<a - c, b - c> of an
    L2 pair (fp32 rows, DOT_MODE 0 and 1): the expansion rounds at about 2^-24 of its
    terms, so rows less a point of their own data keep the distances' digits however far
    from the origin the data sit. c is b's first row in each cell of the grid axes both
    operands carry (one c for all where none: k-means, MaxSim-like specs), its non-finite
    coordinates 0. The shifted rows keep the originals' strides (the kernel indexes both
    alike; an a or b whose layout empty_like does not keep comes back contiguous with its
    copy). Two elementwise passes: in the tile loop the shift cost a subtraction a tile on
    the dot's operand, 17x slower on the k-means assignment (bench/NOTES.md).

    Packed operands (ragged_*: (ragged axis, outer axis, offsets name), their axes as
    passed, cu_*: the offsets): each cell's c is b's first row of that sequence, and each
    packed row takes its own cell's c. No host sync."""
    a, b = a.detach(), b.detach()
    axes_c = list(b_axes)
    c = b
    if ragged_b is not None:  # each cell's first row: the ragged axis becomes the outer one
        axis, outer, _cu = ragged_b
        dim = axes_c.index(axis)
        first = cu_b[:-1].to(torch.int64).clamp(0, max(b.shape[dim] - 1, 0))
        c = c.index_select(dim, first) if b.shape[dim] else c.new_zeros(
            [first.shape[0] if n == dim else size for n, size in enumerate(c.shape)])
        axes_c[dim] = outer
    kept = [x for x in axes_c if x in shared or x == k]
    c = _first_rows(c, axes_c, kept)

    def less_c(x, x_axes, ragged, cu):
        here, cc = list(kept), c
        if ragged is not None and ragged[1] in here:  # each packed row takes its own cell's c
            axis, outer, _cu = ragged
            total = x.shape[x_axes.index(axis)]
            lengths = cu[1:] - cu[:-1]
            cells = torch.repeat_interleave(torch.arange(lengths.shape[0], device=x.device), lengths,
                                            output_size=total)
            cc = cc.index_select(here.index(outer), cells)
            here[here.index(outer)] = axis
        order = [here.index(ax) for ax in x_axes if ax in here]
        view = cc.permute(order).reshape([x.shape[i] if ax in here else 1 for i, ax in enumerate(x_axes)])
        out = torch.empty_like(x)
        if out.stride() != x.stride():
            x, out = x.contiguous(), torch.empty(x.shape, dtype=x.dtype, device=x.device)
        return x, torch.sub(x, view, out=out)

    (a, a_s), (b, b_s) = less_c(a, a_axes, ragged_a, cu_a), less_c(b, b_axes, ragged_b, cu_b)
    return a, b, a_s, b_s


def l2_point(a: torch.Tensor, k_dim: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(c, a, a - c) for an L2 pair whose other operand is computed in the kernel (its rows
    formed there less c, hsr.emit_rows): c is a's first row, its non-finite coordinates 0,
    one point for every cell (the expansion then keeps the distances' digits wherever the
    data sit, as l2_shift's does); a - c keeps a's strides (an a whose layout empty_like
    does not keep comes back contiguous, with its copy)."""
    a = a.detach()
    rows = a.movedim(k_dim, -1)
    c = rows.reshape(-1, rows.shape[-1])[0] if rows.numel() else a.new_zeros(rows.shape[-1])
    c = torch.nan_to_num(c, nan=0.0, posinf=0.0, neginf=0.0).contiguous()
    out = torch.empty_like(a)
    if out.stride() != a.stride():
        a, out = a.contiguous(), torch.empty(a.shape, dtype=a.dtype, device=a.device)
    view = c.view([-1 if n == k_dim else 1 for n in range(a.dim())])
    return c, a, torch.sub(a, view, out=out)


def _first_rows(b: torch.Tensor, axes, kept) -> torch.Tensor:
    """b's first row in each cell of the axes kept (the others indexed at 0), its
    non-finite coordinates 0: l2_shift's c."""
    c = b[tuple(slice(None) if x in kept else 0 for x in axes)] if b.numel() else \
        b.new_zeros([b.shape[axes.index(x)] for x in kept])
    return torch.nan_to_num(c, nan=0.0, posinf=0.0, neginf=0.0)


def l2_centre(b: torch.Tensor, b_axes, shared, k: str):
    """The shift l2_shift takes, where one row serves every cell (no grid axis shared by
    both operands, nothing packed); else None."""
    if any(x in shared for x in b_axes if x != k) or b.numel() == 0:
        return None
    return _first_rows(b.detach(), list(b_axes), [k]).contiguous()


def shift_16bit(a: torch.Tensor, b: torch.Tensor, a_k: int, b_k: int, sms: int):
    """(c, b, b - c, |b - c|^2, a, a - c) for 16-bit rows of an L2 key (dispatch.shifts_16bit;
    hsr.shift16): c [k] fp32 per coordinate, taken from b so that b - c is exact in b's dtype
    (0 where b's values span zero or a factor above 4), then a flag (1 where c is not 0 everywhere:
    what the forward tests); b's rows' squared norms in fp32 (the
    key's column norms); a - c in a's dtype, a row whose subtraction rounds marked with a NaN
    at its first coordinate (the kernel ranks it again from its differences), and nothing
    written where c is 0 everywhere (the kernel then reads a). The expansion on the shifted
    rows rounds at about 2^-24 of the rows' extent, not of their distance from the origin.
    Each operand comes back as one row matrix with k innermost (a copy where it was not one)
    beside its shifted rows, which keep its strides: the kernel indexes both alike. Three
    launches, no host sync; sms: the device's multiprocessors (the passes run a few waves)."""
    # (no view, move or detach where there is nothing to do: each is a step of a kept call's replay,
    # and the k-means assignment's rows need none; bench/NOTES.md, session 54)
    def rows_of(x, k):
        moved = x if k % x.dim() == x.dim() - 1 else x.movedim(k, -1)
        if row_matrix(moved) is None or torch.empty_like(moved).stride() != moved.stride():
            moved = moved.contiguous()
        return moved

    def shaped(x, shape):
        return x if x.shape == shape else x.view(shape)

    def moved_back(x, k):
        return x if k % x.dim() == x.dim() - 1 else x.movedim(-1, k)

    a_m, b_m = rows_of(a, a_k), rows_of(b, b_k)
    kk = b_m.shape[-1]
    c, b_s, norms, a_s = shift_16bit_rows(shaped(a_m, (a_m.numel() // kk, kk)), shaped(b_m, (b_m.numel() // kk, kk)),
                                          sms)
    return (c, moved_back(b_m, b_k), moved_back(shaped(b_s, b_m.shape), b_k), shaped(norms, b_m.shape[:-1]),
            moved_back(a_m, a_k), moved_back(shaped(a_s, a_m.shape), a_k))


def shift_16bit_rows(a: torch.Tensor, b: torch.Tensor, sms: int, pad: int = 0):
    """shift_16bit's passes on row matrices a, b [rows, k] whose strides empty_like keeps (the
    lean forward passes its own): (c, b - c, |b - c|^2 with pad zeros past them, a - c)."""
    from . import shift16
    a, b = (x.detach() if x.requires_grad else x for x in (a, b))  # (a detach is a replay's step too)
    return shift16.shift_rows(a, b, sms * shift16.WAVES, pad)


def split_halves(x: torch.Tensor, lo: bool, centre: torch.Tensor | None = None, norms: bool = False,
                 per_row: bool = False):
    """(hi, lo, 1 / s, norms) of fp32 rows for a key ranked on the fp16 tensor cores
    (dispatch.halves; hsr.halves): x less centre (or as it is) scaled by a power of two,
    the largest finite |coordinate| it covers into [2^13, 2^14), hi = fp16(x s), lo =
    fp16(x s - hi) (lo=False: hi again, unused); with norms, each row's squared norm of x
    less centre in fp32. hi and lo keep x's strides (the kernel indexes them with x's);
    1 / s is a one-element fp32 tensor, or with per_row one a row of x's row matrix (one
    launch, not two): no host sync. A non-finite coordinate stays non-finite in hi, so its
    row ranks again from its differences. x must be a row matrix whose strides empty_like
    keeps (halves_layout)."""
    from . import halves
    return halves.split(x, lo, centre, norms, per_row)


def halves_layout(x: torch.Tensor) -> bool:
    """Whether split_halves takes x: one [rows, k] matrix as a view, with strides that
    empty_like keeps (so that its halves index as x does)."""
    return row_matrix(x) is not None and torch.empty_like(x, dtype=torch.float16).stride() == x.stride()


def squared_norms(x: torch.Tensor, dim: int) -> torch.Tensor:
    """sum(x * x) over ``dim`` in fp32, exactly as the kernels would form it
    (not a rounded norm squared: equal rows must give equal values, or ties
    break on rounding). Chunked along the first axis to bound the fp32 copy."""
    if x.dim() < 2 or dim == 0 or x.numel() == 0:
        return x.float().square().sum(dim)
    step = max(1, (1 << 24) // max(1, x[0].numel()))
    if step >= x.shape[0]:  # one chunk: no copy through torch.cat (a launch fewer per call)
        return x.float().square().sum(dim)
    return torch.cat([x[i:i + step].float().square().sum(dim) for i in range(0, x.shape[0], step)]) \
        if x.shape[0] else x.float().square().sum(dim)


def reduce_to(buffer: torch.Tensor, buffer_axes, target_axes, sizes: dict) -> torch.Tensor:
    """Sum a gradient buffer laid out over ``buffer_axes`` down to a tensor over
    ``target_axes`` (a subset): the term was broadcast over the others."""
    buffer = buffer.reshape([sizes[a] for a in buffer_axes])
    extra = [n for n, a in enumerate(buffer_axes) if a not in target_axes]
    if extra:
        buffer = buffer.sum(dim=extra)
    kept = [a for a in buffer_axes if a in target_axes]
    return buffer.permute([kept.index(a) for a in target_axes]) if kept != list(target_axes) else buffer


_library_names: set = set()


def library_op_name(module_name: str, kernel: str) -> str:
    """A torch.library name, hsr::<module>_<kernel>, unique in this process:
    the same spec imported under two module names registers two ops."""
    stem = "".join(c if c.isalnum() else "_" for c in f"{module_name}_{kernel}")
    name, n = stem, 1
    while name in _library_names:
        n += 1
        name = f"{stem}_{n}"
    _library_names.add(name)
    return f"hsr::{name}"


_fallback_programs: dict = {}


def _program(spec: str, filename: str):
    """The checked program of a spec, parsed once per process (off the GPU hot path)."""
    program = _fallback_programs.get(spec)
    if program is None:
        from .check import check
        from .parse import parse

        program = _fallback_programs[spec] = check(parse(spec, filename))
    return program


_fallback_warned: list = []  # reference_fallback warns once a process


def reference_fallback(spec: str, filename: str, args: tuple, kwargs: dict):
    """Run a spec on CPU tensors with the float64 reference evaluator (fp32 out).

    The path for machines with no GPU and no interpreter; it parses the spec
    once per process, off the GPU hot path."""
    from .reference import evaluate

    if not _fallback_warned:
        _fallback_warned.append(True)
        warnings.warn("hsr: CPU tensors run the float64 reference evaluator (torch ops, chunked), not the kernels: "
                      "move them to a GPU, or set TRITON_INTERPRET=1 before triton is imported to run the kernels "
                      "through Triton's interpreter (this warning is given once)", RuntimeWarning, stacklevel=4)
    out = evaluate(_program(spec, filename), *args, **kwargs)
    return out if out.dtype == torch.int64 else out.to(torch.float32)


def float64(tensors: dict) -> bool:
    """Whether a bound call is a float64 one (bind keeps a call's float inputs
    one dtype, and only float inputs can be float64)."""
    for value in tensors.values():
        if value is not None and value.dtype == torch.float64:
            return True
    return False


def reference_float64(spec: str, filename: str, args: tuple, kwargs: dict, indices=None):
    """A float64 call: the float64 reference evaluator (torch ops, chunked, on
    the inputs' device), not the kernels; float64 out (int64 for argmax/argmin),
    differentiable through torch autograd. For checking (gradcheck) and small
    problems: it materialises the pairwise scores a chunk at a time.

    indices: the axes of forward_with_indices' index (the selection's grid axes,
    then its row axis): returns (out, idx int32 over them, -1 where nothing is
    selected or the row leaves the outer reduction), without autograd."""
    from .reference import evaluate, evaluate_selection

    program = _program(spec, filename)
    if indices is None:
        return evaluate(program, *args, **kwargs)
    with torch.no_grad():
        out, idx = evaluate_selection(program, tuple(indices), *args, **kwargs)
    return out, idx.to(torch.int32)

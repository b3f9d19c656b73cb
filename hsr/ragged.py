"""Packed inputs at run time: ragged axes (`Q[i, s by cu, d]`).

A packed input comes without the axis it is ragged in: sequence n of that axis
is its rows cu[n] .. cu[n + 1] - 1. Here: the offsets' checks and the ragged
axes' sizes (`bind`, for binding.bind), the packed tensor seen over its
declared axes (`view`: the kernels add cu[n] rows to its base), and packing
or unpacking a tensor laid out over the declared axes (`pack`, `unpack`).
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from . import launcher
from .errors import TensorError
from .basics import interpreting


# The key of binding.bind's sizes that says the offsets' device check is owed: the
# caller's forward folds it into its kernel or launches check_on_device first.
OWED = "offsets owed"
# Devices whose offsets are checked on the device where max_seqlen is given (tests add
# "cpu" to take the device path through the interpreter).
DEVICE_TYPES = ("cuda",)


def rows_key(offsets: str) -> str:
    """The key of binding.bind's sizes that holds the rows packed by these offsets."""
    return f"{offsets} rows"


def message(op_name: str, names) -> str:
    """The text of a failed device check of these offsets (by name)."""
    listed = ", ".join(repr(name) for name in names)
    return (f"{op_name}: offsets {listed} must start at 0, not decrease, end at the packed rows and hold no "
            "sequence longer than max_seqlen")


def bind(op_name, packing, tensors, sizes, totals, max_seqlen, check=True, defer=False):
    """Each ragged axis's size (its longest sequence) and the offsets' checks:
    they start at 0, never decrease, end at the packed rows, and no sequence is
    longer than a given max_seqlen. Where every ragged axis has a max_seqlen and
    the tensors are on a GPU, the checks run on the device (one launch and an
    asynchronous assert: the call never waits), or with defer are left owed
    (sizes[OWED]) to the caller's forward, which folds them into its kernel or
    launches them first; else one host sync reads the offsets and a failed check
    is a TensorError naming them.
    Under torch.compile (tracing) and where check is False (a custom op's fake, or
    its backward), the sizes come from max_seqlen alone, which every ragged axis
    then needs; the custom op checks the offsets when it runs."""
    ragged = {axis: cu for _name, axis, _outer, cu in packing}
    for axis in max_seqlen:
        if axis not in ragged:
            raise TensorError(f"{op_name}: max_seqlen names {axis!r}, which is not a ragged axis "
                              f"(ragged: {', '.join(sorted(ragged))})")
    entries = []
    for axis, cu_name in ragged.items():
        cu = tensors.get(cu_name)
        if cu is None:
            raise TensorError(f"{op_name}: missing offsets {cu_name!r}")
        limit = max_seqlen.get(axis)
        if limit is not None and (not isinstance(limit, (int, torch.SymInt)) or isinstance(limit, bool) or limit < 0):
            raise TensorError(f"{op_name}: max_seqlen[{axis!r}] must be an int >= 0, got {limit!r}")
        entries.append((axis, cu_name, cu, limit, totals.get(cu_name, (None, None))[0]))
    tracing = not check or torch.compiler.is_compiling()
    if tracing and any(limit is None for *_x, limit, _t in entries):
        missing = [axis for axis, _n, _cu, limit, _t in entries if limit is None]
        raise TensorError(f"{op_name}: under torch.compile, give max_seqlen for every ragged axis "
                          f"(missing: {', '.join(repr(a) for a in missing)}): inside a graph the sizes cannot "
                          "come from the offsets' values")
    if tracing or (all(limit is not None for *_x, limit, _t in entries) and entries[0][2].device.type in DEVICE_TYPES):
        if not tracing and defer:
            sizes[OWED] = True
        elif not tracing:
            check_on_device(op_name, [(cu_name, cu, limit, total) for _a, cu_name, cu, limit, total in entries])
        for axis, cu_name, _cu, limit, total in entries:
            sizes[axis] = limit if total is None else min(limit, total)  # no sequence is longer than all the rows
            if total is not None:
                sizes[rows_key(cu_name)] = total
        return
    stats = []
    for _axis, _name, cu, _limit, _total in entries:
        steps = cu[1:] - cu[:-1]
        longest = steps.max() if steps.numel() else cu.new_zeros(())
        shortest = steps.min() if steps.numel() else cu.new_zeros(())
        stats.append(torch.stack([cu[0], cu[-1], shortest, longest]).to(torch.int64))
    values = torch.stack(stats).tolist()  # the one sync
    for (axis, cu_name, _cu, limit, total), (first, last, shortest, longest) in zip(entries, values):
        if first != 0:
            raise TensorError(f"{op_name}: offsets {cu_name!r} must start at 0, got {first}")
        if shortest < 0:
            raise TensorError(f"{op_name}: offsets {cu_name!r} decrease (a sequence of length {shortest})")
        if total is not None and last != total:
            raise TensorError(f"{op_name}: offsets {cu_name!r} end at {last}, but the inputs packed by it "
                              f"hold {total} rows along {axis!r}")
        if limit is not None and longest > limit:
            raise TensorError(f"{op_name}: offsets {cu_name!r} hold a sequence of {longest} rows along {axis!r}, "
                              f"longer than max_seqlen[{axis!r}] = {limit}")
        total = last if total is None else total  # no packed input given: the offsets say how many rows
        sizes[axis] = longest if limit is None else min(limit, total)
        sizes[rows_key(cu_name)] = total


@triton.jit
def _offsets_check(ok_ptr, a_ptr, a_entries, a_total, a_limit, b_ptr, b_entries, b_total, b_limit,
                   A_TOTAL: tl.constexpr, TWO: tl.constexpr, B_TOTAL: tl.constexpr, BLOCK: tl.constexpr):
    """ok[0] = the offsets a (and b, where TWO) start at 0, never decrease, step at
    most their limit and end at their total (where given): one program."""
    good = _offsets_good(a_ptr, a_entries, a_total, a_limit, A_TOTAL, BLOCK)
    if TWO:
        good = good & _offsets_good(b_ptr, b_entries, b_total, b_limit, B_TOTAL, BLOCK)
    tl.store(ok_ptr, good)


@triton.jit(debug=True)  # device_assert is compiled in where debug is on
def _offsets_assert(a_ptr, a_entries, a_total, a_limit, b_ptr, b_entries, b_total, b_limit,
                    A_TOTAL: tl.constexpr, TWO: tl.constexpr, B_TOTAL: tl.constexpr, BLOCK: tl.constexpr,
                    MESSAGE: tl.constexpr):
    """_offsets_check's test as a device-side assert: no flag to write and read."""
    good = _offsets_good(a_ptr, a_entries, a_total, a_limit, A_TOTAL, BLOCK)
    if TWO:
        good = good & _offsets_good(b_ptr, b_entries, b_total, b_limit, B_TOTAL, BLOCK)
    tl.device_assert(good, MESSAGE)


@triton.jit
def _offsets_good(cu_ptr, n_entries, total, limit, HAS_TOTAL: tl.constexpr, BLOCK: tl.constexpr):
    good = tl.load(cu_ptr) == 0
    if HAS_TOTAL:
        good = good & (tl.load(cu_ptr + n_entries - 1) == total)
    for start in range(0, n_entries - 1, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        here = offs < n_entries - 1
        lo = tl.load(cu_ptr + offs, mask=here, other=0).to(tl.int64)
        hi = tl.load(cu_ptr + offs + 1, mask=here, other=0).to(tl.int64)
        bad = here & ((hi < lo) | (hi - lo > limit))
        good = good & (tl.sum(bad.to(tl.int32), axis=0) == 0)
    return good


def owed(packing, tensors, sizes) -> list:
    """The entries of check_on_device for offsets whose check bind left owed (none
    where it did not): each ragged axis's size stands for its max_seqlen (the
    smaller of it and the packed rows, the same test where the offsets end there)."""
    if not sizes.get(OWED):
        return []
    entries = {}
    for _name, axis, _outer, cu in packing:
        entries.setdefault(cu, (cu, tensors[cu], sizes[axis], sizes.get(rows_key(cu))))
    return list(entries.values())


def check_on_device(op_name: str, entries) -> None:
    """The offsets' checks without a host sync (entries: (name, offsets,
    max_seqlen, packed rows or None)), one launch for two tensors of offsets:
    on a GPU a device-side assert where a check does not hold (it fails the
    call's stream and the process's CUDA context, as torch._assert_async does);
    elsewhere (the interpreter, which skips device asserts) a flag that
    torch._assert_async reads."""
    text = message(op_name, [name for name, *_x in entries])
    for n in range(0, len(entries), 2):
        pair = entries[n:n + 2]
        args = []
        for _name, cu, limit, total in pair + pair[:1] * (2 - len(pair)):
            args += [cu, cu.shape[0], total if total is not None else 0, limit]
        flags = dict(A_TOTAL=pair[0][3] is not None, TWO=len(pair) == 2, B_TOTAL=pair[-1][3] is not None, BLOCK=1024)
        if pair[0][1].device.type == "cuda" and not interpreting():
            launcher.launch(_offsets_assert, (1,), *args, **flags, MESSAGE=text)
            continue
        ok = torch.empty(1, dtype=torch.bool, device=pair[0][1].device)
        launcher.launch(_offsets_check, (1,), ok, *args, **flags)
        torch._assert_async(ok, text)


def strides(x, axes, ragged) -> tuple:
    """x's strides over its declared axes: a packed tensor's outer axis has stride 0
    (the kernels add its sequence's first row, offsets[n] rows, to the base), the
    others its own. Metadata only: no torch op, no step of a kept call."""
    if ragged is None:
        return tuple(x.stride())
    axis, outer, _cu = ragged
    held = [a for a in axes if a != outer]
    return tuple(0 if a == outer else x.stride(held.index(a)) for a in axes)


def pack(x, axes, ragged, offsets, total: int):
    """The packed form of x, laid out over its declared axes (a per-row gradient
    buffer or a ragged output, [outer, ragged] rows), `total` rows: sequence n's
    first len_n rows, one after another. No host sync."""
    axis, outer, _cu = ragged
    order = [axes.index(outer), axes.index(axis)] + [n for n, a in enumerate(axes) if a not in (outer, axis)]
    x = x.permute(order)
    lengths = offsets[1:] - offsets[:-1]
    seq = torch.repeat_interleave(torch.arange(lengths.shape[0], device=x.device), lengths, output_size=total)
    pos = torch.arange(total, device=x.device) - offsets[:-1].to(torch.int64)[seq]
    out = x[seq, pos]
    held = [a for a in axes if a != outer]
    now = [axis] + [a for a in axes if a not in (outer, axis)]
    return out.permute([now.index(a) for a in held])


def unpack(x, axes, ragged, offsets, size: int):
    """Padded form of a packed x over its declared axes (zeros past each
    sequence's length), differentiable: the reference evaluator's view of it."""
    axis, outer, _cu = ragged
    held = [a for a in axes if a != outer]
    x = x.movedim(held.index(axis), 0)
    n = offsets.shape[0] - 1
    starts = offsets[:-1].to(torch.int64)
    lengths = offsets[1:].to(torch.int64) - starts
    pos = torch.arange(size, device=x.device)
    rows = (starts[:, None] + pos[None, :]).clamp(0, max(x.shape[0] - 1, 0))
    keep = pos[None, :] < lengths[:, None]
    if x.shape[0] == 0:
        out = x.new_zeros((n, size, *x.shape[1:]))
        if x.requires_grad:  # still in x's graph: its gradient is empty, not absent
            out = out + x.sum() * 0
    else:
        out = x[rows.reshape(-1)].reshape(n, size, *x.shape[1:])
        keep_b = keep.reshape(n, size, *([1] * (x.dim() - 1)))
        out = torch.where(keep_b, out, torch.zeros((), dtype=out.dtype, device=out.device))
    now = [outer, axis] + [a for a in held if a != axis]
    return out.permute([now.index(a) for a in axes])

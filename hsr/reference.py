"""The reference evaluator: interprets the typed IR with torch in float64.

It materialises every pairwise score (chunked along the longest output axis
to bound memory) and is the oracle of every test. Selections take the lowest
index among ties; an empty selection gives index -1 and value 0; NaN
propagates. Gradients flow through the selected index only, because the
selected value is a gather at that index.
"""

from __future__ import annotations

import math

import torch

from . import ir
from .errors import TensorError
from .ragged import pack, rows_key, unpack
from .binding import bind

_CHUNK_BYTES = 1 << 28
_FNS = {
    "relu": torch.relu, "log1p": torch.log1p, "exp": torch.exp, "log": torch.log,
    "sqrt": torch.sqrt, "abs": torch.abs, "sigmoid": torch.sigmoid, "tanh": torch.tanh,
    "softplus": torch.nn.functional.softplus,
}
_EPS = 1e-12  # as torch.nn.functional.normalize


def evaluate(program: ir.Program, *args, return_indices: bool = False, **kwargs):
    """Evaluate the spec on tensors (positional in declaration order, or by name).

    Returns the output in float64 (int64 for argmax/argmin). With
    ``return_indices`` also a dict {reduction position: index tensor} of every
    selection's chosen index, as (tensor, axes).
    """
    tensors, sizes, offsets = _bind(program, args, kwargs)
    d = program.definition
    chunk_axis = max(d.axes, key=lambda a: sizes[a]) if d.axes else None
    outs, idx_parts = [], {}
    for lo, hi in _chunks(program, sizes, chunk_axis):
        ev = _Evaluator(program, tensors, sizes, chunk_axis, lo, hi)
        value, axes = ev.eval(d.expr)
        outs.append(ev.align(value, axes, d.axes))
        for key, (t, t_axes) in ev.indices.items():
            idx_parts.setdefault(key, []).append((t, t_axes))
    out = torch.cat(outs, dim=d.axes.index(chunk_axis)) if len(outs) > 1 else outs[0]
    for t in program.tensors:  # an output over a ragged axis comes packed, like the inputs
        if t.ragged and t.ragged[0] in d.axes:
            cu = t.ragged[2]
            out = pack(out, d.axes, t.ragged, offsets[cu], sizes[rows_key(cu)])
            break
    if not return_indices:
        return out
    indices = {}
    for key, parts in idx_parts.items():
        axes = parts[0][1]
        cat_dim = axes.index(chunk_axis) if chunk_axis in axes else None
        joined = torch.cat([p for p, _ in parts], dim=cat_dim) if cat_dim is not None else parts[0][0]
        indices[key] = (joined, axes)
    return out, indices


def evaluate_selection(program: ir.Program, axes: tuple, *args, **kwargs):
    """(out, idx) as a generated module's forward_with_indices gives them: idx
    (int64) is the chosen position of the selection whose index lies over
    ``axes`` (its grid axes, then its row axis, in that order), -1 where it
    selects nothing or where the row leaves the outer reduction (a mask or a
    length bound on the row axis)."""
    out, indices = evaluate(program, *args, return_indices=True, **kwargs)
    found = [(idx, idx_axes) for idx, idx_axes in indices.values() if set(idx_axes) == set(axes)]
    if len(found) != 1:
        raise TensorError(f"{program.definition.name}: no single selection indexed over [{', '.join(axes)}]")
    idx, idx_axes = found[0]
    idx = idx.permute(*[idx_axes.index(a) for a in axes])
    row = axes[-1]
    outer = [node for node in _reduces(program.definition.expr) if node.axis == row and node.conds]
    if outer:
        tensors, sizes, _offsets = _bind(program, args, kwargs)
        ev = _Evaluator(program, tensors, sizes, None, 0, 0)
        for node in outer:
            valid, v_axes = ev.valid(node, ())
            kept = ev.align(valid, v_axes, axes) if set(v_axes) <= set(axes) else None
            if kept is not None:
                idx = torch.where(kept.to(idx.device), idx, -1)
    return out, idx


def _bind(program: ir.Program, args: tuple, kwargs: dict) -> tuple[dict, dict]:
    """(tensors, sizes, offsets): the call's tensors with packed inputs unpacked
    (zeros past each sequence's end, which its length bound leaves out) and
    offsets as lengths; the offsets as given (int64), by name."""
    kwargs = dict(kwargs)
    max_seqlen = kwargs.pop("max_seqlen", None)
    signature = tuple((t.name, t.axes, t.kind, t.default) for t in program.tensors)
    packing = tuple((t.name, *t.ragged) for t in program.tensors if t.ragged)
    dtypes = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
    tensors, sizes = bind(program.definition.name, signature, args, kwargs, float_dtypes=dtypes,
                          one_float_dtype=False, packing=packing, max_seqlen=max_seqlen)
    for t in program.tensors:
        if t.ragged and tensors[t.name] is not None:
            cu = tensors[t.ragged[2]]
            tensors[t.name] = unpack(tensors[t.name], t.axes, t.ragged, cu, sizes[t.ragged[0]])
    offsets = {}
    for t in program.rows:  # computed operands, formed whole (the kernels form them a tile at a time)
        tensors[t.name] = _rows(program.definition.name, t, tensors, sizes)
    for t in program.tensors:
        if t.kind == ir.OFFSETS:
            cu = offsets[t.name] = tensors[t.name].to(torch.int64)
            tensors[t.name] = cu[1:] - cu[:-1]
    return tensors, sizes, offsets


def _rows(op_name: str, t: ir.Tensor, tensors: dict, sizes: dict) -> torch.Tensor:
    """A computed operand's rows over its axes, in float64 (packed axes unpacked)."""
    def ev(node):
        if isinstance(node, ir.Const):
            return torch.tensor(node.value, dtype=torch.float64), ()
        if isinstance(node, ir.Load):
            return tensors[node.tensor.name].to(torch.float64), node.tensor.axes
        if isinstance(node, ir.Gather):
            return _gather(op_name, node, tensors, sizes)
        if isinstance(node, ir.Pair):  # a projection: sum over the contracted axis
            (x, xa), (y, ya) = ev(node.a), ev(node.b)
            full = tuple(dict.fromkeys(a for a in xa + ya if a != node.axis))
            letters = {a: chr(97 + n) for n, a in enumerate(full + (node.axis,))}
            spec = "".join(letters[a] for a in xa) + "," + "".join(letters[a] for a in ya) + "->" + \
                "".join(letters[a] for a in full)
            return torch.einsum(spec, x, y), full
        args = [ev(a) for a in node.args]
        if node.fn == "neg":
            return -args[0][0], args[0][1]
        full = tuple(dict.fromkeys(args[0][1] + args[1][1]))
        x, y = (_Evaluator.align(v, axes, full) for v, axes in args)
        return {"+": torch.add, "-": torch.sub, "*": torch.mul, "/": torch.div}[node.fn](x, y), full
    value, axes = ev(t.rows.expr)
    value = _Evaluator.align(value.to(next(v.device for v in tensors.values() if v is not None)), axes, t.axes)
    value = value.expand(*[sizes[a] for a in t.axes]).contiguous()
    if t.rows.normalize:  # as torch.nn.functional.normalize over the last axis
        value = value / value.norm(dim=-1, keepdim=True).clamp_min(_EPS)
    return value


def codes(packed: torch.Tensor, bits: int, size: int) -> torch.Tensor:
    """n-bit codes (int64) unpacked from bytes along the last axis, LSB-first:
    code f sits in byte f // (8 // bits), at bit (f % (8 // bits)) * bits."""
    per = 8 // bits
    f = torch.arange(size, device=packed.device)
    byte = packed.to(torch.int64)[..., f // per]
    return (byte >> ((f % per) * bits)) & ((1 << bits) - 1)


def _gather(op_name: str, node: ir.Gather, tensors: dict, sizes: dict) -> tuple:
    table, ix = tensors[node.table.name], node.index
    index = tensors[ix.name].to(torch.int64)
    if ix.kind in ir.CODE_BITS:
        index = codes(tensors[ix.name], ir.CODE_BITS[ix.kind], sizes[ix.axes[-1]])
    n = sizes[node.axis]
    if index.numel() and (int(index.min()) < 0 or int(index.max()) >= n):
        raise TensorError(f"{op_name}: input {ix.name!r} holds an index outside 0 .. {n - 1} "
                          f"(the size of {node.table.name}'s axis {node.axis!r})")
    rest = tuple(a for a in node.table.axes if a != node.axis)
    full = tuple(dict.fromkeys(ix.axes + rest))
    shape = [sizes[a] for a in full]
    picks = []
    for a in node.table.axes:
        if a == node.axis:
            picks.append(_Evaluator.align(index, ix.axes, full).expand(shape))
        else:
            picks.append(_Evaluator.align(torch.arange(sizes[a], device=index.device), (a,), full).expand(shape))
    return table.to(torch.float64)[tuple(picks)], full


def _reduces(node):
    """Every reduction of an expression, outermost first."""
    if isinstance(node, ir.Reduce):
        yield node
        yield from _reduces(node.body)
    elif isinstance(node, ir.Apply):
        for arg in node.args:
            yield from _reduces(arg)


def _chunks(program: ir.Program, sizes: dict, chunk_axis) -> list:
    """Ranges of the output's longest axis (every output cell is computed on
    its own) so that each chunk's pairwise scores take about _CHUNK_BYTES; a
    scalar output is one chunk."""
    if chunk_axis is None:
        return [(0, 1)]
    axes_used = {a for t in program.tensors for a in t.axes}
    total = 8 * math.prod(max(sizes[a], 1) for a in axes_used)
    n0 = sizes[chunk_axis]
    per = max(1, int(n0 * _CHUNK_BYTES // max(total, 1)))
    return [(lo, min(lo + per, n0)) for lo in range(0, max(n0, 1), per)] if n0 else [(0, 0)]


class _Evaluator:
    """Evaluates named-axis values: (tensor, axes tuple)."""

    def __init__(self, program, tensors, sizes, chunk_axis, lo, hi):
        self.program, self.sizes = program, dict(sizes)
        self.chunk_axis = chunk_axis
        self.tensors = {}
        for name, t in tensors.items():
            decl = program.tensor(name)
            if t is not None and chunk_axis in decl.axes:
                t = t.narrow(decl.axes.index(chunk_axis), lo, hi - lo)
            self.tensors[name] = t
        # constants and omitted inputs' defaults live on the inputs' device
        self.device = next((t.device for t in tensors.values() if t is not None), torch.device("cpu"))
        if chunk_axis is not None:
            self.sizes[chunk_axis] = hi - lo
        self.indices = {}

    @staticmethod
    def align(t: torch.Tensor, axes: tuple, target: tuple) -> torch.Tensor:
        """Permute and unsqueeze t (over axes) to broadcast against target."""
        order = [axes.index(a) for a in target if a in axes]
        t = t.permute(*order) if order != list(range(len(order))) else t
        shape, it = [], iter(t.shape)
        for a in target:
            shape.append(next(it) if a in axes else 1)
        return t.reshape(shape)

    def load(self, node: ir.Load) -> tuple:
        t = self.tensors[node.tensor.name]
        if t is None:  # an omitted float input: its declared default, everywhere
            return torch.tensor(float(node.tensor.default), dtype=torch.float64, device=self.device), ()
        return t.to(torch.float64), node.tensor.axes

    def eval(self, node) -> tuple:
        if isinstance(node, ir.Const):
            return torch.tensor(node.value, dtype=torch.float64, device=self.device), ()
        if isinstance(node, ir.Load):
            return self.load(node)
        if isinstance(node, ir.Pair):
            return self.pair(node)
        if isinstance(node, ir.Apply):
            return self.apply(node)
        return self.reduce(node)

    def pair(self, node: ir.Pair) -> tuple:
        (a, a_axes), (b, b_axes) = self.load(node.a), self.load(node.b)
        k = node.axis
        out_axes = tuple(x for x in a_axes if x != k) + tuple(x for x in b_axes if x != k and x not in a_axes)
        full = out_axes + (k,)
        if node.kind == "cos":
            a = a / a.norm(dim=a_axes.index(k), keepdim=True).clamp_min(_EPS)
            b = b / b.norm(dim=b_axes.index(k), keepdim=True).clamp_min(_EPS)
        if node.kind in ("dot", "cos"):
            letters = {x: chr(ord("a") + i) for i, x in enumerate(full)}
            sub = lambda axes: "".join(letters[x] for x in axes)
            return torch.einsum(f"{sub(a_axes)},{sub(b_axes)}->{sub(out_axes)}", a, b), out_axes
        diff = self.align(a, a_axes, full) - self.align(b, b_axes, full)
        if node.kind == "l1":
            return diff.abs().sum(-1), out_axes
        sq = (diff * diff).sum(-1)
        if node.kind == "sqdist":
            return sq, out_axes
        zero = sq == 0  # the gradient of a distance at 0 is 0, as torch.cdist has it; NaN stays NaN
        return torch.where(zero, 0.0, torch.where(zero, 1.0, sq).sqrt()), out_axes

    def apply(self, node: ir.Apply) -> tuple:
        vals = [self.eval(a) for a in node.args]
        axes = tuple(dict.fromkeys(x for _, ax in vals for x in ax))
        ts = [self.align(t, ax, axes) for t, ax in vals]
        fn = node.fn
        if fn == "+":
            return ts[0] + ts[1], axes
        if fn == "-":
            return ts[0] - ts[1], axes
        if fn == "*":
            return ts[0] * ts[1], axes
        if fn == "/":
            return ts[0] / ts[1], axes
        if fn == "neg":
            return -ts[0], axes
        if fn == "pow":
            return ts[0] ** node.param, axes
        return _FNS[fn](ts[0]), axes

    def valid(self, node: ir.Reduce, axes: tuple) -> tuple:
        """The bool mask of positions every condition keeps, and its axes."""
        size = self.sizes[node.axis]
        valid, v_axes = torch.ones(size, dtype=torch.bool), (node.axis,)
        for c in node.conds:
            if isinstance(c, ir.Mask):
                m = self.tensors[c.tensor.name]
                if m is None:
                    continue
                m_axes = c.tensor.axes
            else:
                ar = torch.arange(size)
                lim = c.limit if isinstance(c.limit, int) else self.tensors[c.limit.name]
                if lim is None:
                    continue
                if isinstance(lim, int):
                    m, m_axes = ar < lim, (node.axis,)
                else:
                    l_axes = c.limit.axes
                    m = self.align(ar, (node.axis,), l_axes + (node.axis,)) < lim.cpu().unsqueeze(-1)
                    m_axes = l_axes + (node.axis,)
            m = m.cpu()
            union = tuple(dict.fromkeys(v_axes + m_axes))
            valid = self.align(valid, v_axes, union) & self.align(m, m_axes, union)
            v_axes = union
        return valid, v_axes

    def reduce(self, node: ir.Reduce) -> tuple:
        value, axes = self.eval(node.body)
        valid, v_axes = self.valid(node, axes)
        union = tuple(dict.fromkeys(axes + v_axes))
        value = self.align(value, axes, union).expand(*[self.sizes[a] for a in union])
        valid = self.align(valid.to(value.device), v_axes, union).expand(value.shape)
        p = union.index(node.axis)
        rest = union[:p] + union[p + 1:]
        op = node.op
        if op == "sum":
            return torch.where(valid, value, 0.0).sum(p), rest
        if op == "mean":
            total = torch.where(valid, value, 0.0).sum(p)
            count = valid.sum(p)
            return torch.where(count > 0, total / count.clamp_min(1), 0.0), rest
        lowest = op in ("min", "argmin")
        if value.shape[p] == 0:  # nothing to select: index -1, value 0
            shape = value.shape[:p] + value.shape[p + 1:]
            idx = torch.full(shape, -1, dtype=torch.int64, device=value.device)
            self.indices[(node.pos.line, node.pos.col)] = (idx, rest)
            return (idx, rest) if op.startswith("arg") else (value.sum(p) * 0.0, rest)
        fill = math.inf if lowest else -math.inf
        key = torch.where(valid, value, fill).detach()
        idx = (key.argmin(p) if lowest else key.argmax(p)).unsqueeze(p)
        # An all-(+/-)inf row can pick a masked position: fall back to the first valid one.
        picked_ok = valid.gather(p, idx)
        first_valid = valid.to(torch.int8).argmax(p).unsqueeze(p)
        idx = torch.where(picked_ok, idx, first_valid)
        any_valid = valid.any(p)
        chosen = value.gather(p, idx).squeeze(p)
        idx = torch.where(any_valid, idx.squeeze(p), -1)
        self.indices[(node.pos.line, node.pos.col)] = (idx, rest)
        if op.startswith("arg"):
            return idx, rest
        return torch.where(any_valid, chosen, 0.0), rest

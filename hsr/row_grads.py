"""The gradients of a computed operand's inputs, from the gradient of its rows.

The kernels never write a computed operand's rows (hsr.emit_rows forms them a
tile at a time). Its backward forms them again here, in torch, from the
definition the module carries as data (hsr.emit._rows_expr), and lets autograd
take them back to the inputs: a projection's H, W and bias, a gather's table.
Where the selections are few against the rows (at most 1 /
dispatch.ROWS_DENSE_SHARE of them: a query of 32 tokens against documents of
1024), the gather backward writes one gradient row a selection and only the
selected rows are formed, duplicates and all (their gradients add up), never a
gradient over every row; else it scatters over the operand's rows (fp32
atomics) and every row is formed, as two GEMMs. Which one follows from the
shapes, so nothing waits for the GPU.
"""

from __future__ import annotations

import torch

from . import dispatch

EPS = 1e-12  # torch.nn.functional.normalize's


def compact(selections: int, n_rows: int) -> bool:
    """Whether the rows' gradient comes a row a selection (few selections: their rows
    formed again, duplicates and all) or over every row (atomics, then every row formed)."""
    return selections * dispatch.ROWS_DENSE_SHARE <= n_rows


def selected_rows(idx: torch.Tensor, grid: list, c: str, row_axes: tuple, sizes: dict) -> torch.Tensor:
    """The flat row of the computed operand (over its row axes) each selection of idx
    ([grid..., R], -1 or -2 where none: row 0, whose compact gradient is zero) took."""
    idx = idx.view(*[sizes[a] for a in grid], -1)
    flat = torch.zeros((), dtype=torch.int64, device=idx.device)
    for a in row_axes:
        if a == c:
            part = idx.clamp_min(0).to(torch.int64)
        else:
            shape = [1] * idx.dim()
            shape[grid.index(a)] = sizes[a]
            part = torch.arange(sizes[a], device=idx.device).view(shape)
        flat = flat * sizes[a] + part
    return flat.reshape(-1)


def grads(entry: tuple, t: dict, sizes: dict, grad_rows: torch.Tensor, at=None) -> dict:
    """{input name: gradient} of the computed operand ``entry`` (a module's ROWS
    entry), for each float input it reads. grad_rows: its rows' gradient, fp32, over
    the operand's shape (every row formed again); or, with ``at`` = (idx, grid axes,
    selected axis), one row a selection ([selections, width], compact: those rows only)."""
    name, axes, _like, _gathers, k, expr, normalize = entry
    row_axes, width = axes[:-1], sizes[k]
    g = grad_rows.reshape(-1, width)
    floats = sorted(_floats(expr))
    if not floats:
        return {}
    if at is not None:  # a row a selection: formed again at each (the gradients of duplicates add up)
        flat = selected_rows(at[0], at[1], at[2], row_axes, sizes)
    else:  # over the operand's rows: every row formed (two GEMMs for a projection)
        flat = torch.arange(g.shape[0], device=g.device)
    at = {}
    rest = flat
    for a in reversed(row_axes):
        at[a] = rest % sizes[a]
        rest = rest // sizes[a]
    leaves = {n: t[n].detach().requires_grad_(True) for n in floats}
    with torch.enable_grad():
        rows = _Former(leaves, t, sizes, at, k, None if at is None else flat, row_axes).value(expr).expand(g.shape[0], width)
        if normalize:
            rows = rows / torch.linalg.vector_norm(rows, dim=-1, keepdim=True).clamp_min(EPS)
        torch.autograd.backward(rows, g)
    return {n: (x.grad if x.grad is not None else torch.zeros_like(x)).to(t[n].dtype) for n, x in leaves.items()}


def _floats(expr) -> set:
    """The float inputs a definition reads (gathers' tables, loads, projections' two sides)."""
    kind = expr[0]
    if kind == "load":
        return {expr[1]}
    if kind == "gather":
        return {expr[1]}
    if kind == "project":
        return {expr[1], expr[3]}
    if kind == "const":
        return set()
    return set().union(*(_floats(a) for a in expr[1:]))


class _Former:
    """Rows [n, width] (or broadcastable to it) of a definition at the rows ``at``
    ({row axis: index [n]}), the last axis k whole; fp32, a projection's product in
    its inputs' dtype (as torch.nn.Linear)."""

    def __init__(self, leaves, t, sizes, at, k, flat, row_axes):
        self.leaves, self.t, self.sizes, self.at, self.k = leaves, t, sizes, at, k
        self.flat, self.row_axes = flat, row_axes  # flat None: every row, in order

    def rows_of(self, x, axes, last):
        """x's rows [n, size of ``last``] (or [n, 1]), where x carries row axes and at most
        ``last`` besides: a view or one index_select of the flattened rows (whose backward
        is an index_add), not an index tensor an element."""
        mine = [a for a in self.row_axes if a in axes]
        x = x.permute(*[axes.index(a) for a in mine], *([axes.index(last)] if last in axes else []))
        x = x.reshape(-1, self.sizes[last] if last in axes else 1)
        if self.flat is None and len(mine) == len(self.row_axes):
            return x
        flat = torch.zeros_like(next(iter(self.at.values())))
        for a in mine:
            flat = flat * self.sizes[a] + self.at[a]
        return x.index_select(0, flat)

    def by_rows(self, axes, last) -> bool:
        """Whether an input's axes are row axes and at most ``last`` (rows_of takes it)."""
        return all(a in self.at or a == last for a in axes) and any(a in self.at for a in axes)

    def pick(self, axis, extra=None):
        """The index along ``axis``: a row axis's [n, 1], k's [1, width], else ``extra``."""
        if axis in self.at:
            return self.at[axis][:, None]
        if axis == self.k:
            return torch.arange(self.sizes[axis], device=next(iter(self.at.values())).device)[None, :]
        return extra

    def value(self, e):
        kind = e[0]
        if kind == "const":
            return torch.tensor(float(e[1]), dtype=torch.float32, device=next(iter(self.at.values())).device)
        if kind == "load":
            x = self.leaves.get(e[1], self.t[e[1]])
            if self.by_rows(e[2], self.k):
                return self.rows_of(x, e[2], self.k).float()
            return x[tuple(self.pick(a) for a in e[2])].float()
        if kind == "gather":
            _, table, table_axes, axis, index, index_axes, bits = e
            ix = self.t[index]
            if bits:  # n-bit codes packed along the index's last axis, LSB-first
                last = index_axes[-1]
                per = 8 // bits
                byte = ix[tuple(self.pick(a) if a != last else self.pick(a) // per for a in index_axes)]
                ix = (byte.to(torch.int64) >> ((self.pick(last) % per) * bits)) & ((1 << bits) - 1)
            else:
                ix = ix[tuple(self.pick(a) for a in index_axes)].to(torch.int64)
            x = self.leaves.get(table, self.t[table])
            if len(table_axes) == 2 and table_axes[1] == self.k and table_axes[0] == axis and ix.shape[1] == 1:
                return x.index_select(0, ix[:, 0]).float()  # a row of the table a row: C[codes[j, t], d]
            return x[tuple(ix if a == axis else self.pick(a) for a in table_axes)].float()
        if kind == "project":  # rows [n, h] times the weight [k, h]
            _, a, a_axes, b, b_axes, h = e
            x = self.rows_of(self.leaves.get(a, self.t[a]), a_axes, h)  # (check_rows: every row axis, and h)
            w = self.leaves.get(b, self.t[b]).permute(b_axes.index(self.k), b_axes.index(h))
            return (x @ w.to(x.dtype).T).float()
        args = [self.value(a) for a in e[1:]]
        if kind == "neg":
            return -args[0]
        return {"+": torch.add, "-": torch.sub, "*": torch.mul, "/": torch.div}[kind](*args)

"""The gradients of a computed operand's inputs, from the gradient of its rows.

The kernels never write a computed operand's rows (hsr.emit_rows forms them a
tile at a time). The gather backward writes their gradient (an L2-normalised
operand's taken back through the normalisation there, from the row and norm it
holds); here, in torch and by hand (no autograd: this runs inside custom ops
and is replayed with the backward as one kept call), it goes on to the inputs of
the definition the module carries as data (hsr.emit._rows_expr): a projection's
H, W and bias, a gather's table. Nothing is formed again but what a product or a
quotient needs and a projection's input rows. Where the selections are few
against the rows (at most 1 / dispatch.ROWS_DENSE_SHARE of them: a query of 32
tokens against documents of 1024), the gather backward writes one gradient row a
selection and only the selected rows are read, duplicates and all (their
gradients add up), never a gradient over every row; else it scatters over the
operand's rows (fp32 atomics) and every row is read. Which one follows from the
shapes, so nothing waits for the GPU.
"""

from __future__ import annotations

import torch

from . import dispatch, zeros

EPS = 1e-12  # torch.nn.functional.normalize's


def compact(selections: int, n_rows: int) -> bool:
    """Whether the rows' gradient comes a row a selection (few selections: their rows
    formed again, duplicates and all) or over every row (atomics, then every row formed)."""
    return selections * dispatch.ROWS_DENSE_SHARE <= n_rows


def n_rows(entry: tuple, sizes: dict) -> int:
    """How many rows a computed operand has (its axes but the last)."""
    n = 1
    for a in entry[1][:-1]:
        n *= sizes[a]
    return n


def selected_rows(idx: torch.Tensor, grid: list, c: str, row_axes: tuple, sizes: dict) -> torch.Tensor:
    """The flat row of the computed operand (over its row axes) each selection of idx
    ([grid..., R], -1 or -2 where none: row 0, whose compact gradient is zero) took.
    (Few torch steps: each runs again on every backward.)"""
    idx = idx.view(*[sizes[a] for a in grid], -1)
    strides, stride = {}, 1
    for a in reversed(row_axes):
        strides[a], stride = stride, stride * sizes[a]
    flat = idx.clamp_min(0)
    if strides[c] != 1:
        flat = flat * strides[c]
    for a in row_axes:  # each grid axis's part: an arange by its stride
        if a != c:
            shape = [1] * idx.dim()
            shape[grid.index(a)] = sizes[a]
            flat = flat + torch.arange(0, sizes[a] * strides[a], strides[a], device=idx.device).view(shape)
    if flat.dtype != torch.int64:
        flat = flat.to(torch.int64)
    return flat.expand_as(idx).reshape(-1)


def _held(e, ragged: dict):
    """A definition with each packed input's axes as passed (its outer axis dropped)."""
    def axes(name, ax):
        return tuple(a for a in ax if a != ragged[name][1]) if name in ragged else ax
    kind = e[0]
    if kind == "load":
        return ("load", e[1], axes(e[1], e[2]))
    if kind == "gather":
        _, table, table_axes, axis, index, index_axes, bits = e
        return ("gather", table, axes(table, table_axes), axis, index, axes(index, index_axes), bits)
    if kind == "project":
        _, a, a_axes, b, b_axes, h = e
        return ("project", a, axes(a, a_axes), b, axes(b, b_axes), h)
    if kind == "const":
        return e
    return (kind, *(_held(x, ragged) for x in e[1:]))


def grads(entry: tuple, t: dict, sizes: dict, grad_rows: torch.Tensor, at=None, packed=None,
          before_norm: bool = False) -> dict:
    """{input name: gradient} of the computed operand ``entry`` (a module's ROWS
    entry), for each float input it reads. grad_rows: its rows' gradient, fp32, over
    the operand's shape; or, with ``at`` = (idx, grid axes, selected axis[, rows]), one row a
    selection ([selections, width], compact: those rows only; 0 where idx has none, as the
    gather backward writes it, but past a packed sequence's end); rows: each selection's flat
    row over the operand's axes but the last, where the gather backward wrote them (else
    selected_rows forms them from idx).
    packed: (ragged axis, outer axis, offsets' name, the module's RAGGED) where the
    operand is packed (then compact): its packed inputs are read as passed, each
    selection at its sequence's first row plus its position. before_norm: grad_rows is already
    the gradient of the rows before their L2 normalisation (the backward kernel took it through:
    the rows are then not formed again, only a projection's inputs read at them)."""
    name, axes, _like, _gathers, k, expr, normalize = entry
    row_axes, width = axes[:-1], sizes[k]
    g = grad_rows.reshape(-1, width)
    if not _floats(expr):
        return {}
    if packed is not None:  # a row a selection: none past a packed sequence's end (-2: never visited
        # by the backward, those rows hold whatever was there; elsewhere it writes 0 where none was selected)
        g = torch.where(at[0].reshape(-1, 1) >= 0, g, 0.0)
    index = {}
    if packed is not None:  # the packed row each selection took, and its sequence
        axis, outer, cu, ragged = packed
        idx, grid, _c = at
        idx = idx.view(*[sizes[a] for a in grid], -1)
        shape = [1] * idx.dim()
        shape[grid.index(outer)] = sizes[outer]
        seq = torch.arange(sizes[outer], device=idx.device).view(shape).expand_as(idx)
        flat = (t[cu].to(torch.int64)[seq] + idx.clamp_min(0)).reshape(-1)
        index[outer], index[axis] = seq.reshape(-1), flat
        expr, row_axes = _held(expr, ragged), (axis,)
    elif at is not None:  # a row a selection: formed again at each (the gradients of duplicates add up)
        given = at[3] if len(at) > 3 else None  # (the gather backward wrote them: no steps here)
        flat = given if given is not None else selected_rows(at[0], at[1], at[2], row_axes, sizes)
    else:  # over the operand's rows: every row formed (two GEMMs for a projection)
        flat = torch.arange(g.shape[0], device=g.device)
    former = _Former(t, sizes, index, k, None if at is None and packed is None else flat, row_axes, flat)
    if normalize and not before_norm:  # y = x / max(|x|, eps): dx = (g - y <y, g>) / |x|, or g / eps
        rows = former.value(expr).expand(g.shape[0], width)
        norm = torch.linalg.vector_norm(rows, dim=-1, keepdim=True)
        held = norm.clamp_min(EPS)
        y = rows / held
        g = torch.where(norm > EPS, torch.addcmul(g, y, torch.linalg.vecdot(y, g).unsqueeze(-1), value=-1), g) / held
    former.back(expr, g)
    return {n: former.grads[n].to(t[n].dtype) if n in former.grads else torch.zeros_like(t[n])
            for n in sorted(_floats(expr))}


def _floats(expr) -> set:
    """The float inputs a definition reads (gathers' tables, loads, projections' two sides)."""
    kind = expr[0]
    if kind in ("load", "gather"):
        return {expr[1]}
    if kind == "project":
        return {expr[1], expr[3]}
    if kind == "const":
        return set()
    return set().union(*(_floats(a) for a in expr[1:]))


def _permuted(x: torch.Tensor, perm) -> torch.Tensor:
    """x.permute(*perm), or x itself where perm keeps the order (no step to replay)."""
    return x if list(perm) == list(range(x.dim())) else x.permute(*perm)


def _fit(g: torch.Tensor, shape) -> torch.Tensor:
    """g [n, width] summed over the dimensions a value [1 or n, 1 or width] was broadcast along."""
    for dim in (0, 1):
        if shape[dim] == 1 and g.shape[dim] != 1:
            g = g.sum(dim, keepdim=True)
    return g


class _Former:
    """A definition's rows [n, width] (or broadcastable to it) at the rows ``index``
    ({row axis: [n]}), the last axis k whole, in fp32 (a projection's product in its
    inputs' dtype, as torch.nn.Linear); then, by hand (no autograd: this runs inside
    custom ops too), each float input's gradient from the rows' (``back``), in fp32."""

    def __init__(self, t, sizes, index, k, flat, row_axes, rows):
        self.t, self.sizes, self._index, self.k = t, sizes, index, k
        self.flat, self.row_axes = flat, row_axes  # flat None: every row, in order
        self.rows = rows  # each row's flat index over row_axes (index's entries come from it where asked)
        self.device = rows.device
        self.memo, self.grads = {}, {}

    def index(self, axis):
        """Each row's index along a row axis ([n]), decomposed from the flat rows at first use."""
        if axis not in self._index:
            rest = self.rows
            for a in reversed(self.row_axes):
                if a == axis:
                    self._index[a] = rest % self.sizes[a]
                    break
                rest = rest // self.sizes[a]
        return self._index[axis]

    # -- reading inputs at the rows, and adding into their gradients ----------------------

    def _layout(self, axes, last):
        """(permutation putting x's row axes first and ``last`` after, its row axes, the flat row of each of the n rows)."""
        mine = [a for a in self.row_axes if a in axes]
        perm = [axes.index(a) for a in mine] + ([axes.index(last)] if last in axes else [])
        if self.flat is None and len(mine) == len(self.row_axes):
            return perm, mine, None
        if len(mine) == len(self.row_axes):
            return perm, mine, self.flat
        flat = self.index(mine[0])
        for a in mine[1:]:
            flat = flat * self.sizes[a] + self.index(a)
        return perm, mine, flat

    def rows_of(self, x, axes, last):
        """x's rows [n, size of ``last``] (or [n, 1]): a view, or one index_select of its flattened rows."""
        perm, _mine, flat = self._layout(axes, last)
        x = _permuted(x, perm).reshape(-1, self.sizes[last] if last in axes else 1)
        return x if flat is None else x.index_select(0, flat)

    def add_rows(self, name, axes, last, g):
        """rows_of's backward: g [n, ...] added into name's gradient at those rows, in
        the input's dtype (as autograd's index_select backward: a hidden-state tensor's
        gradient is its size, and an fp32 one would be twice that)."""
        perm, _mine, flat = self._layout(axes, last)
        x = self.t[name]
        buf = zeros.zeros([x.shape[p] for p in perm], x.dtype, x.device)  # (a hidden state's: large)
        rows = buf.view(-1, self.sizes[last] if last in axes else 1)
        g = g.to(x.dtype)
        if flat is None:
            rows.add_(g.expand_as(rows))
        else:
            rows.index_add_(0, flat, g.expand(flat.shape[0], rows.shape[1]).contiguous())
        self.add(name, _permuted(buf, [perm.index(d) for d in range(len(perm))]))

    def add(self, name, grad, fresh=True):
        """Add into name's gradient (kept in the first one's dtype: fp32, or the input's for rows);
        fresh: grad is this call's own tensor (else it is copied before anything adds to it)."""
        if name in self.grads:
            self.grads[name] += grad
        else:
            self.grads[name] = grad if fresh else grad.clone()

    def pick(self, axis):
        """The index along ``axis``: a row axis's [n, 1], k's [1, width]."""
        if axis in self.row_axes or axis in self._index:
            return self.index(axis)[:, None]
        return torch.arange(self.sizes[axis], device=self.device)[None, :]

    def by_rows(self, axes) -> bool:
        """Whether an input's axes are row axes and at most k (rows_of takes it)."""
        return all(a in self.row_axes or a == self.k for a in axes) and any(a in self.row_axes for a in axes)

    def code(self, e):
        """A gather's index at each row [n, 1] (or [n, width] for codes along k)."""
        _, _table, _table_axes, _axis, index, index_axes, bits = e
        ix = self.t[index]
        if bits:  # n-bit codes packed along the index's last axis, LSB-first
            last, per = index_axes[-1], 8 // bits
            byte = ix[tuple(self.pick(a) if a != last else self.pick(a) // per for a in index_axes)]
            return (byte.to(torch.int64) >> ((self.pick(last) % per) * bits)) & ((1 << bits) - 1)
        return ix[tuple(self.pick(a) for a in index_axes)].to(torch.int64)

    def table_at(self, e):
        """(indices into the table, whether it is one table row a row, read by index_select)."""
        _, _table, table_axes, axis, *_rest = e
        ix = self.code(e)
        if len(table_axes) == 2 and table_axes == (axis, self.k) and ix.shape[1] == 1:
            return ix[:, 0], True
        return tuple(ix if a == axis else self.pick(a) for a in table_axes), False

    # -- the two passes ------------------------------------------------------------------------

    def value(self, e):
        key = id(e)
        if key not in self.memo:
            self.memo[key] = self._value(e)
        return self.memo[key]

    def _value(self, e):
        kind = e[0]
        if kind == "const":
            return torch.tensor(float(e[1]), dtype=torch.float32, device=self.device).view(1, 1)
        if kind == "load":
            x = self.t[e[1]]
            if self.by_rows(e[2]):
                return self.rows_of(x, e[2], self.k).float()
            if tuple(e[2]) == (self.k,):
                return x.float().view(1, -1)
            return x[tuple(self.pick(a) for a in e[2])].float()
        if kind == "gather":
            at, one_row = self.table_at(e)
            x = self.t[e[1]]
            return (x.index_select(0, at) if one_row else x[at]).float()
        if kind == "project":  # rows [n, h] times the weight [k, h]
            _, a, a_axes, b, b_axes, h = e
            x = self.held(e)
            w = _permuted(self.t[b], (b_axes.index(self.k), b_axes.index(h)))
            return (x @ w.to(x.dtype).t()).float()
        args = [self.value(a) for a in e[1:]]
        if kind == "neg":
            return -args[0]
        return {"+": torch.add, "-": torch.sub, "*": torch.mul, "/": torch.div}[kind](*args)

    def held(self, e):
        """A projection's rows of its first input [n, h], read once (check_rows: every row axis, and h)."""
        key = ("rows", id(e))
        if key not in self.memo:
            _, a, a_axes, _b, _b_axes, h = e
            self.memo[key] = self.rows_of(self.t[a], a_axes, h)
        return self.memo[key]

    def back(self, e, g):
        """Add the gradient g (of e's value, broadcast to [n, width]) into the inputs e reads."""
        kind = e[0]
        if kind == "const":
            return
        if kind == "load":
            name, axes = e[1], e[2]
            along_k = tuple(axes) == (self.k,)  # (its value's shape known: not formed for it)
            fitted = _fit(g, (1, self.sizes[self.k]) if along_k else self.value(e).shape)
            if self.by_rows(axes):
                self.add_rows(name, axes, self.k, fitted)
            elif along_k:
                self.add(name, fitted.reshape(-1), fresh=fitted is not g)
            else:
                buf = torch.zeros(self.t[name].shape, dtype=torch.float32, device=self.device)
                idx = torch.broadcast_tensors(*(self.pick(a) for a in axes), fitted)[:-1]
                buf.index_put_(idx, fitted.expand(idx[0].shape), accumulate=True)
                self.add(name, buf)
            return
        if kind == "gather":
            name = e[1]
            g = _fit(g, self.value(e).shape)
            at, one_row = self.table_at(e)
            buf = torch.zeros(self.t[name].shape, dtype=torch.float32, device=self.device)
            if one_row:
                buf.index_add_(0, at, g.expand(at.shape[0], buf.shape[1]).contiguous())
            else:
                idx = torch.broadcast_tensors(*at, g)[:-1]
                buf.index_put_(idx, g.expand(idx[0].shape), accumulate=True)
            self.add(name, buf)
            return
        if kind == "project":
            _, a, a_axes, b, b_axes, h = e
            x = self.held(e)
            w = _permuted(self.t[b], (b_axes.index(self.k), b_axes.index(h)))
            gd = g.to(x.dtype)
            self.add_rows(a, a_axes, h, gd @ w.to(x.dtype))
            gw = gd.t() @ x  # [k, h], in the rows' dtype (fp32 accumulation, rounded once, as the weight's own)
            self.add(b, gw if b_axes.index(self.k) == 0 else gw.t())
            return
        if kind == "neg":
            self.back(e[1], -g)
            return
        left, right = e[1], e[2]
        if kind == "+":
            self.back(left, g)
            self.back(right, g)
        elif kind == "-":
            self.back(left, g)
            self.back(right, -g)
        elif kind == "*":  # (the values only where the gradient needs them)
            lv, rv = self.value(left), self.value(right)
            self.back(left, g * rv)
            self.back(right, g * lv)
        else:
            lv, rv = self.value(left), self.value(right)
            self.back(left, g / rv)
            self.back(right, -g * lv / (rv * rv))

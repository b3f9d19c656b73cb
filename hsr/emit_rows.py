"""Stage 4, emit, for computed operands: the Triton lines that form a tile of a
computed operand's rows from its inputs (hsr.check_rows), on chip.

A tile is [rows, coordinates]: the rows at ``at`` (the tile's positions of the
selected axis, or a row block's selected positions in the backward), the
coordinates at ``ks``. Each input is read at its own strides: grid axes from the
program's cell (its base, as the operand's would be), the selected axis at
``at``, the contraction axis at ``ks``, a table's gathered axis at an index's
value. n-bit codes are unpacked LSB-first from their bytes. The lines end with
``out`` holding the tile in the operand's dtype, 0 where a row or coordinate is
out of bounds.
"""

from __future__ import annotations

from . import dispatch, ir


def rows_inputs(b) -> list[dict]:
    """The kernel parameters of a computed operand's inputs: {name, axes, rank, strides}."""
    return [dict(name=x.name, axes=list(x.axes), rank=len(x.axes),
                 strides=", ".join(f"stride_{x.name}_{a}" for a in x.axes)) for x in b.rows_inputs]


def table_axes(b) -> list[str]:
    """The axes whose sizes a computed operand's tile reads: its tables' gathered axes
    (they bound the indices) and its projections' contracted axes (their loops' ends)."""
    return list(dict.fromkeys(n.axis for n in ir.walk(b.computed.rows.expr) if isinstance(n, (ir.Gather, ir.Pair))))


def projects(b) -> bool:
    """Whether a computed operand's rows are a projection (tl.dot: a rows block of 16 at least)."""
    return any(isinstance(n, ir.Pair) for n in ir.walk(b.computed.rows.expr))


def rows_tile(term, base, at: str, ok: str, ks: str, k_ok: str, out: str, dtype: str,
              norms: str | None = None, shape: tuple | None = None, shift: str | None = None,
              prefix: str = "rx") -> list[str]:
    """The lines that leave the tile of ``term.b`` (a computed operand) in ``out``.
    base(name, axes): the offset of an input's program cell (emit's _offset).
    norms: a chunk of the coordinates (the contraction in chunks): the tile is left
    unnormalised and its rows' squared norms are added to ``norms``, for the caller
    to normalise the chunks' sum (<a, b / |b|> = <a, b> / |b|).
    shape: (rows' block, coordinates' block, first coordinate), constexpr names: where
    given, codes packed along the coordinates are read a byte at a time.
    shift: a vector of the coordinates at ``ks`` (fp32) taken from each formed row before
    its cast (an L2 pair's rows less a point of the data, hsr.runtime.l2_shift).
    prefix: the lines' own names (a tile formed after a loop that formed another keeps
    a name's shape in each)."""
    t = term.b.computed
    c, k = term.c, term.k
    names = iter(range(1000))
    rx_ok = f"{prefix}_ok"
    lines = [f"# spec line {t.rows.line}: {t.rows.text}  ({t.name}'s rows, formed on chip)",
             f"{rx_ok} = {ok}[:, None] & {k_ok}[None, :]"]

    def place(x: ir.Tensor, axis: str, index: str | None = None) -> str:
        if axis == c:
            return f"{at}.to(tl.int64)[:, None] * stride_{x.name}_{axis}"
        if axis == k:
            return f"{ks}[None, :] * stride_{x.name}_{axis}"
        return f"{index}.to(tl.int64) * stride_{x.name}_{axis}"

    def mask(x: ir.Tensor) -> str:
        rows, cols = c in x.axes, k in x.axes
        return rx_ok if rows and cols else f"{ok}[:, None]" if rows else f"{k_ok}[None, :]" if cols else "True"

    def pointer(x: ir.Tensor, gathered: str | None = None, index: str | None = None) -> str:
        grid = [a for a in x.axes if a not in (c, k, gathered)]
        parts = [f"{x.name}_ptr + {base(x.name, grid)}"]
        parts += [place(x, a, index) for a in x.axes if a in (c, k) or a == gathered]
        return " + ".join(parts)

    def code(x: ir.Tensor) -> str:
        """An index input's values: ints, or n-bit codes unpacked from their bytes (LSB-first)."""
        name = f"{prefix}_{next(names)}"
        if x.kind not in ir.CODE_BITS:
            lines.append(f"{name} = tl.load({pointer(x)}, mask={mask(x)}, other=0).to(tl.int32)")
            return name
        bits = ir.CODE_BITS[x.kind]
        last = x.axes[-1]
        pos = at if last == c else ks
        per = 8 // bits
        grid = [a for a in x.axes if a not in (c, k)]
        parts = [f"{x.name}_ptr + {base(x.name, grid)}"]
        if shape and last == k and c in x.axes and dispatch.rows_bytes_once(bits):
            # a byte at a time: [rows, block / per] bytes, each split into its per codes, LSB-first
            rows, block, k0 = shape
            at_byte = f"({k0}) // {per} + tl.arange(0, {block} // {per})"
            parts += [place(x, c), f"({at_byte})[None, :] * stride_{x.name}_{last}"]
            lines.append(f"{name} = tl.load({' + '.join(parts)}, mask={ok}[:, None] & (({at_byte}) < "
                         f"(size_{k} * {bits} + 7) // 8)[None, :], other=0).to(tl.int32)")
            lines.append(f"{name} = tl.reshape(({name}[:, :, None] >> (tl.arange(0, {per}) * {bits})[None, None, :]) "
                         f"& {(1 << bits) - 1}, [{rows}, {block}])  # {x.name}: {bits}-bit codes, {per} a byte, "
                         f"LSB-first")
            return name
        shape_ = "[:, None]" if last == c else "[None, :]"
        for a in x.axes:
            if a == last:
                parts.append(f"({pos} // {per}).to(tl.int64){shape_} * stride_{x.name}_{a}")
            elif a in (c, k):
                parts.append(place(x, a))
        lines.append(f"{name} = tl.load({' + '.join(parts)}, mask={mask(x)}, other=0).to(tl.int32)")
        if bits < 8:
            lines.append(f"{name} = ({name} >> (({pos} % {per}) * {bits}){shape_}) & {(1 << bits) - 1}  "
                         f"# {x.name}: {bits}-bit codes, {per} a byte, LSB-first")
        return name

    def project(node: ir.Pair) -> str:
        """<H[.., c, :], W[k, :]>: H's rows times W's, the contracted axis a block at a
        time on the tensor cores (IEEE products for fp32, as torch.nn.Linear at "highest")."""
        x, w, h = node.a.tensor, node.b.tensor, node.axis
        block = dispatch.PROJECTION_BLOCK
        name, a_, b_ = (f"{prefix}_{next(names)}" for _ in range(3))
        x_at = " + ".join([f"{x.name}_ptr + {base(x.name, [a for a in x.axes if a not in (c, h)])}"]
                          + [f"{prefix}_{h}[None, :] * stride_{x.name}_{h}" if a == h else place(x, a)
                             for a in x.axes if a in (c, h)])
        w_at = " + ".join([f"{w.name}_ptr"] + [f"{prefix}_{h}[:, None] * stride_{w.name}_{h}" if a == h
                                              else f"{ks}[None, :] * stride_{w.name}_{a}" for a in w.axes])
        lines.extend([
            f"{name} = tl.zeros({rx_ok}.shape, tl.float32)  # <{x.name}, {w.name}> over {h!r}, {block} at a time",
            f"for {prefix}_{h}0 in range(0, size_{h}, {block}):",
            f"    {prefix}_{h} = {prefix}_{h}0 + tl.arange(0, {block})",
            f"    {a_} = tl.load({x_at}, mask={ok}[:, None] & ({prefix}_{h} < size_{h})[None, :], other=0.0)",
            f"    {b_} = tl.load({w_at}, mask={k_ok}[None, :] & ({prefix}_{h} < size_{h})[:, None], other=0.0).to({a_}.dtype)",
            f"    if RX_FP32 or {x.name}_ptr.dtype.element_ty == tl.float32:  # (RX_FP32: the interpreter's bf16)",
            f"        {name} = tl.dot({a_}.to(tl.float32), {b_}.to(tl.float32), {name}, input_precision=\"ieee\")",
            f"    else:",
            f"        {name} = tl.dot({a_}, {b_}, {name})",
        ])
        return name

    def value(node) -> str:
        if isinstance(node, ir.Const):
            return repr(float(node.value))
        if isinstance(node, ir.Load):
            x = node.tensor
            name = f"{prefix}_{next(names)}"
            lines.append(f"{name} = tl.load({pointer(x)}, mask={mask(x)}, other=0.0).to(tl.float32)")
            return name
        if isinstance(node, ir.Gather) and len(node.table.axes) == 1 and \
                ir.CODE_BITS.get(node.index.kind, 99) <= dispatch.ROWS_SELECT_BITS:
            # a small table: its entries loaded once (scalars), each code's picked by its bits
            ix = code(node.index)
            x, bits = node.table, ir.CODE_BITS[node.index.kind]
            level = [f"tl.load({x.name}_ptr + {i} * stride_{x.name}_{node.axis}).to(tl.float32)"
                     for i in range(1 << bits)]
            for b in range(bits):
                level = [f"tl.where(({ix} & {1 << b}) != 0, {level[i + 1]}, {level[i]})" for i in range(0, len(level), 2)]
            name = f"{prefix}_{next(names)}"
            lines.append(f"{name} = {level[0]}  # {x.name} at {node.index.name}'s codes, by their bits")
            return name
        if isinstance(node, ir.Gather):
            ix = code(node.index)
            x = node.table
            rows, cols = c in node.axes, k in node.axes
            m = rx_ok if rows and cols else f"{ok}[:, None]" if rows else f"{k_ok}[None, :]"
            # an index out of the table's range reads nothing (the op checks them before any kernel runs)
            m = f"{m} & ({ix} >= 0) & ({ix} < size_{node.axis})"
            name = f"{prefix}_{next(names)}"
            lines.append(f"{name} = tl.load({pointer(x, node.axis, ix)}, mask={m}, other=0.0).to(tl.float32)")
            return name
        if isinstance(node, ir.Pair):
            return project(node)
        if node.fn == "neg":
            return f"(-{value(node.args[0])})"
        left, right = (value(a) for a in node.args)
        return f"({left} {node.fn} {right})"

    expr = value(t.rows.expr)
    lines.append(f"{out} = tl.where({rx_ok}, {expr}, 0.0)")
    if norms and t.rows.normalize:
        lines.append(f"{norms} += tl.sum({out} * {out}, axis=1)  # this chunk's share of the rows' squared norms")
    elif t.rows.normalize:
        lines.append(f"{out}_inv = 1.0 / tl.maximum(tl.sqrt(tl.sum({out} * {out}, axis=1)), 1e-12)  # 1 / each row's norm")
        lines.append(f"{out} = {out} * {out}_inv[:, None]  # L2-normalised, as torch.nn.functional.normalize")
    if shift:
        lines.append(f"{out} = tl.where({rx_ok}, {out} - {shift}[None, :], 0.0)  # less the L2 pair's shift")
    lines.append(f"{out} = {out}.to({dtype})")
    return lines

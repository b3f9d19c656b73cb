"""Stage 4, emit: render a kernel plan into the source of a Python module.

The output is deterministic byte for byte (no time stamps, no dict-order
surprises) and says which spec line each part came from.
"""

from __future__ import annotations

import ast

from . import __version__
from .errors import source_lines
from .ir import CODE_BITS, Const, Gather, Load, Pair, walk
from .plan import Plan, TermPlan, lowering_id
from .templating import environment
from . import dispatch, emit_rows
from .dispatch import SMALL_D_MAX, SPLIT_K


def emit(plan: Plan, source: str, filename: str) -> str:
    """The module source for a plan; ``filename`` is named in its header."""
    context = dict(out=plan.out, signature=repr(plan.signature), combine=plan.combine,
                   ragged=repr({name: (axis, outer, cu) for name, axis, outer, cu in plan.packing}),
                   packed=bool(plan.packing),
                   # an output over a ragged axis comes packed: (ragged axis, outer axis, offsets)
                   packed_out=next((repr((x, o, cu)) for _n, x, o, cu in plan.packing if x in plan.axes), None),
                   index_out=plan.index_out, out_axes=list(plan.axes),
                   terms=[_term_context(t, plan, source) for t in plan.terms],
                   differentiable=repr(tuple(dict.fromkeys(n for t in plan.terms for n in t.differentiable))),
                   rows=repr(_rows(plan)))
    names = [name for name, _axes, _kind, _default in plan.signature]
    context.update(op_params=", ".join(f"{n}: torch.Tensor" if d is None else f"{n}: Optional[torch.Tensor]"
                                       for n, _a, _k, d in plan.signature),
                   op_names=", ".join(names) + ("," if len(names) == 1 else ""))
    context.update(version=__version__, filename=filename, spec_literal=_py_string(source),
                   spec_lines=[_comment_line(line.rstrip()) for line in source_lines(source.strip("\n"))],
                   plan_lines=plan.explain().splitlines(), family=plan.family)
    text = environment().get_template("module.py.jinja").render(**context)
    text = "\n".join(line.rstrip() for line in text.split("\n")).rstrip("\n") + "\n"
    while "\n\n\n\n" in text:
        text = text.replace("\n\n\n\n", "\n\n\n")
    ast.parse(text)  # a template bug shows here, not at import time
    return text


def _rows(plan: Plan) -> tuple:
    """runtime.with_rows's description of each computed operand a plan reads."""
    out = {}
    for t in plan.terms:
        b = t.b.computed
        if b is None or b.name in out:
            continue
        floats = t.b.rows_floats
        gathers = tuple(dict.fromkeys((n.index.name, n.table.name, n.axis, CODE_BITS.get(n.index.kind, 0))
                                      for n in walk(b.rows.expr) if isinstance(n, Gather)))
        out[b.name] = (b.name, b.axes, floats[0], gathers, b.axes[-1], _rows_expr(b.rows.expr), b.rows.normalize)
    return tuple(out.values())


def _rows_expr(node) -> tuple:
    """A computed operand's definition as data, for hsr.row_grads to take its rows' gradient to its inputs in torch."""
    if isinstance(node, Const):
        return ("const", node.value)
    if isinstance(node, Load):
        return ("load", node.tensor.name, node.tensor.axes)
    if isinstance(node, Gather):
        return ("gather", node.table.name, node.table.axes, node.axis, node.index.name, node.index.axes,
                CODE_BITS.get(node.index.kind, 0))
    if isinstance(node, Pair):
        return ("project", node.a.tensor.name, node.a.tensor.axes, node.b.tensor.name, node.b.tensor.axes, node.axis)
    return (node.fn, *(_rows_expr(a) for a in node.args))


def _plain(text: str) -> bool:
    """True when text can sit in a comment or a triple-quoted literal unchanged."""
    return all(c.isprintable() or c == "\t" for c in text)


def _comment_line(line: str) -> str:
    return line if _plain(line) else repr(line)[1:-1]


def _py_string(text: str) -> str:
    """A readable Python literal of the spec: triple-quoted where that is exact."""
    lines = text.split("\n")
    exact = all(_plain(line) and line == line.rstrip() for line in lines)
    if not exact or '"""' in text or "\\" in text or text.endswith('"'):
        return repr(text)
    return '"""\\\n' + text + '"""'


def _packed_offset(tensor: str, axes, mapping: dict, prefix: str = "stride", packing: dict | None = None) -> str:
    """``i * stride_Q_i + offs_s[:, None] * stride_Q_s``: the axes in mapping. A
    packed tensor (packing: {tensor: (ragged axis, outer axis, offsets)}) adds its
    sequence's first row, ``cu[i]`` rows (its outer axis's stride is 0)."""
    terms = [f"{mapping[a]} * {prefix}_{tensor}_{a}" for a in axes if a in mapping]
    ragged = (packing or {}).get(tensor)
    if ragged and ragged[1] in axes and ragged[1] in mapping:
        axis, outer, cu = ragged
        terms.append(f"tl.load({cu}_ptr + tl.minimum({mapping[outer]}, size_{outer})).to(tl.int64) * {prefix}_{tensor}_{axis}")
    return " + ".join(terms) or "0"


def _ragged_length(cu: str, n: str, outer: str) -> str:
    """Sequence n's length, offsets[n + 1] - offsets[n]; n clamped to the last
    sequence (a stacked tile's rows past it are left out anyway)."""
    at = f"tl.minimum({n}, size_{outer} - 1)"
    return f"(tl.load({cu}_ptr + {at} + 1) - tl.load({cu}_ptr + {at}))"


def _ragged_end(axis: str, packing: dict) -> str:
    """The end of an axis in a program: its size, or for a ragged axis its
    sequence's length (at most the size)."""
    for r_axis, outer, cu in packing.values():
        if r_axis == axis:
            return f"tl.minimum({_ragged_length(cu, f'pid_{outer}', outer)}, size_{axis}).to(tl.int32)"
    return f"size_{axis}"


def _decompose(var: str, axes, blocked: str | None = None) -> list[str]:
    """Statements splitting a flat row-major index into one pid_<axis> per axis;
    the ``blocked`` axis counts blocks of BLOCK_<AXIS> (pid_<axis>_block)."""
    axes = list(axes)
    if not axes:
        return []
    stmts, rest = [], var
    for n, axis in enumerate(reversed(axes)):
        name = f"pid_{axis}_block" if axis == blocked else f"pid_{axis}"
        size = f"tl.cdiv(size_{axis}, BLOCK_{axis.upper()})" if axis == blocked else f"size_{axis}"
        if n == len(axes) - 1:
            stmts.append(f"{name} = {rest}")
        else:
            stmts.append(f"{name} = {rest} % {size}")
            nxt = f"rest_{axis}"
            stmts.append(f"{nxt} = {rest} // {size}")
            rest = nxt
    return stmts


def _blocked_first(var: str, axes, blocked: str) -> list[str]:
    """_decompose with the blocked axis's blocks varying fastest (the others row-major
    after them): the launch order of dispatch.stacked_first."""
    size = f"tl.cdiv(size_{blocked}, BLOCK_{blocked.upper()})"
    others = [a for a in axes if a != blocked]
    head = [f"pid_{blocked}_block = {var} % {size}"]
    if not others:
        return head
    return head + [f"rest_{blocked} = {var} // {size}"] + _decompose(f"rest_{blocked}", others)


def _wide(var: str, axes) -> list[str]:
    """_decompose of a loop counter, widened to int64 first: the pid_<axis> it
    gives multiply strides, and a ColPali corpus passes 2^31 elements."""
    if not axes:
        return []
    return [f"{var}64 = tl.cast({var}, tl.int64)"] + _decompose(f"{var}64", axes)


def _flat(axes, rename: dict | None = None) -> str:
    """The flat row-major index of pid_<axis> over axes (rename: another name for an axis's)."""
    expr = ""
    for axis in axes:
        pid = (rename or {}).get(axis, f"pid_{axis}")
        expr = pid if not expr else f"({expr}) * size_{axis} + {pid}"
    return expr or "0"


def _guard(conds: list) -> str:
    """When full tiles need the where-conditions applied: never (''), always
    ('True'), or when an optional input is given ('HAS_x or HAS_y')."""
    if not conds:
        return ""
    if any(not c["optional"] for c in conds):
        return "True"
    return " or ".join(f"HAS_{c['name']}" for c in conds)


def _both_ways(t: TermPlan, why: list, c_bounds: list, grid_map: dict) -> dict | None:
    """The context of the both-ways pass (dispatch.both_ways_blockers), or None
    where the term has none: the swapped call's bounds go on the rows."""
    if why:
        return None
    bounds = []
    for c in c_bounds:
        sw = dict(c, axis=t.r, name=f"{c['name']}_sw" if c["name"] else None, text=f"{t.r} < {c['name'] or c['literal']}")
        if c["name"]:
            sw["offset"] = _packed_offset(sw["name"], c["axes"], grid_map)
            sw["limit"] = f"tl.load({sw['name']}_ptr + {sw['offset']})"
        bounds.append(sw)
    return dict(bounds=bounds,
                tensors=[c["name"] for c in c_bounds if c["name"]],
                out_row=f"offs_{t.c} * ostride_{t.r}")


def _lean(t: TermPlan, plan: Plan) -> dict | None:
    """The context of the lean forward, or None where the term has none
    (dispatch.lean_blockers says why)."""
    if dispatch.lean_blockers(t, plan.signature):
        return None
    decls = {name: (axes, default) for name, axes, _kind, default in plan.signature}
    # an outer sum, max or min takes masks (no count needed); a mean runs lean only without any
    conds = [c for c in t.conds if not c.ragged]
    masked = conds if t.outer != "mean" else ()
    # a packed operand (its grid axis is its offsets' axis): its sequence's first row and length
    packed = {name: (axis, cu) for name, axis, _outer, cu in t.packing}
    starts, ends = {}, {}
    for key, op, axis, cell in (("a", t.a, t.r, _flat(t.a.grid_axes)), ("b", t.b, t.c, _flat(t.b.grid_axes))):
        if packed.get(op.name, (None,))[0] == axis:
            starts[key] = f"tl.load({packed[op.name][1]}_ptr + {cell}).to(tl.int32)"
            ends[key] = f"{axis}_end"
        else:
            starts[key] = f"({cell}) * size_{axis}"
            ends[key] = f"size_{axis}"
    # the offsets' checks folded into the kernel (dispatch.offsets_foldable, offsets_check_fold):
    # each program checks its own sequences
    from . import ragged  # (Triton: only where a spec packs)

    cols = [s for s in t.sides if s.side == "col"]
    checks = [dict(cu=cu, axis=axis, outer=outer) for cu, (axis, outer) in
              {cu: (axis, outer) for _n, axis, outer, cu in t.packing}.items()]
    fold = dispatch.offsets_foldable(t)
    return dict(checks=checks if fold else [], fold=fold,
                offsets_message=ragged.message(plan.out, [c["cu"] for c in checks]),
                shared=dispatch.columns_shared(t),
                a_cell=_flat(t.a.grid_axes), b_cell=_flat(t.b.grid_axes), a_cells=_py_sizes(t.a.grid_axes),
                a_start=starts["a"], b_start=starts["b"], end_r=ends["a"], end_c=ends["b"],
                ragged_r=ends["a"] != f"size_{t.r}", ragged_c=ends["b"] != f"size_{t.c}",
                offsets=list(dict.fromkeys(cu for _n, _x, _o, cu in t.packing)),
                runs=" and ".join(f't["{c.name}"] is None' for c in conds) if not masked and conds else "True",
                masks=[c.name for c in masked],
                mask_strides=[", ".join(f"stride_{c.name}_{a}" for a in decls[c.name][0]) for c in masked],
                mask_ranks=[len(decls[c.name][0]) for c in masked],
                side_strides=[", ".join(f"stride_{s.name}_{a}" for a in s.axes) for s in t.sides if s.axes],
                c_guard=" or ".join(f"HAS_{c.name}" for c in masked if c.axis == t.c),
                grid_sizes="".join(f"size_{g}, " for g in t.grid),
                # a cosine's or L2 pair's column norms (from the *_row_norms pre-pass, or the tile's own:
                # dispatch.col_norms), a tile at a time
                tile_args=(" bsq, COL_NORMS," if t.pair in ("cos", "sqdist", "dist") else "")
                + "".join(f" col_{s.name}," for s in cols),
                tile_params=(" bsq, COL_NORMS: tl.constexpr," if t.pair in ("cos", "sqdist", "dist") else "")
                + "".join(f" col_{s.name}," for s in cols),
                # a dot's key formed on the tile from the dot and the columns' terms (a scale, a bias)
                key=t.key if t.pair == "dot" and not t.key_is_prim else "",
                grid_size_args="".join(f'sizes["{g}"], ' for g in t.grid))


def _py_sizes(axes) -> str:
    return " * ".join(f'sizes["{g}"]' for g in axes) or "1"


def _term_context(t: TermPlan, plan: Plan, source: str) -> dict:
    lines = source_lines(source)
    form = dispatch.forms(t, plan.signature)
    blocked = form["stacked"]
    decls = {name: (axes, kind, default) for name, axes, kind, default in plan.signature}
    grid_map = {g: f"pid_{g}" for g in t.grid}
    packing = {name: (axis, outer, cu) for name, axis, outer, cu in t.packing}
    packing.update({f"aux_{x}": packing[op.name] for x, op in (("asq", t.a), ("bsq", t.b)) if op.name in packing})
    if t.b.name in packing:  # an L2 key's column norms (cn) are packed as their rows
        packing["cn"] = packing[t.b.name]

    def _offset(tensor, axes, mapping, prefix="stride"):
        return _packed_offset(tensor, axes, mapping, prefix, packing)

    cond_tensors = sorted({c.name for c in t.conds if c.name}, key=list(decls).index)
    conds = {t.r: [], t.c: []}
    for c in t.conds:
        mapping = dict(grid_map)
        mapping[c.axis] = f"offs_{c.axis}"
        text = c.name if c.kind == "mask" else f"{c.axis} < {c.name or c.literal}"
        offset = _offset(c.name, c.axes, mapping) if c.name else ""
        if c.ragged:  # sequence n's length: cu[n + 1] - cu[n]
            text = f"{c.axis} < {c.name}[{c.axes[0]} + 1] - {c.name}[{c.axes[0]}] ({c.axis} ragged)"
            limit = _ragged_length(c.name, mapping[c.axes[0]], c.axes[0])
        elif c.kind == "bound":
            limit = f"tl.load({c.name}_ptr + {offset})" if c.name else str(c.literal)
        else:
            limit = ""
        conds[c.axis].append(dict(
            kind=c.kind, name=c.name, axis=c.axis, literal=c.literal, line=c.line, text=text, axes=c.axes,
            optional=bool(c.name and decls[c.name][2] is not None), limit=limit, ragged=c.ragged,
            offset=offset))
    aux = []
    for name, op, axis in (("asq", t.a, t.r), ("bsq", t.b, t.c)):
        if name in t.aux:
            axes = tuple(x for x in op.axes if x != t.k)
            held = [x for x in op.axes if op.name not in packing or x != packing[op.name][1]]
            dim = held.index(t.k)  # in the tensor as passed (a packed one has no outer axis)
            aux.append(dict(name=name, axes=axes, operand=op.name, k_dim=dim,
                            base=_offset(f"aux_{name}", [x for x in axes if x != axis], grid_map)))
    # an L2 key's column norms from a pre-pass (dispatch.col_norms): B's axes less the contraction
    cn = None
    if t.pair in ("sqdist", "dist"):
        axes = tuple(x for x in t.b.axes if x != t.k)
        held = [x for x in t.b.axes if t.b.name not in packing or x != packing[t.b.name][1]]
        cn = dict(axes=list(axes), k_dim=held.index(t.k), strides=", ".join(f"stride_cn_{a}" for a in axes),
                  base=_offset("cn", [x for x in axes if x != t.c], grid_map))
    sides = []
    for s in t.sides:
        axis = t.r if s.side == "row" else t.c
        sides.append(dict(name=s.name, side=s.side, axes=s.axes, axis=axis,
                          optional=decls[s.name][2] is not None, default=repr(float(s.default or 0.0)),
                          base=_offset(s.name, [x for x in s.axes if x != axis], grid_map),
                          row=f"offs_{axis} * stride_{s.name}_{axis}" if axis in s.axes else "0",
                          # the next tile's (the lean forward loads a column term a tile ahead)
                          next=f"(offs_{axis} + BLOCK_{axis.upper()}) * stride_{s.name}_{axis}" if axis in s.axes else "0",
                          sel=f"sel_safe * stride_{s.name}_{axis}" if axis in s.axes else "0",
                          cells_py=_py_sizes((t.a if s.side == "row" else t.b).grid_axes)))
    sizes = list(dict.fromkeys(list(t.grid) + [t.r, t.c, t.k]))
    strided = [(t.a.name, t.a.axes), (t.b.name, t.b.axes)]
    strided += [(f"aux_{a['name']}", a["axes"]) for a in aux]
    strided += [(s["name"], s["axes"]) for s in sides]
    strided += [(n, decls[n][0]) for n in cond_tensors]
    stride_params = [", ".join(f"stride_{n}_{a}" for a in axes) for n, axes in strided if axes]
    other = [g for g in t.grid if g not in t.a.grid_axes]
    other_b = [g for g in t.grid if g not in t.b.grid_axes]
    optional = [n for n in dict.fromkeys([c for c in cond_tensors] + [s["name"] for s in sides])
                if decls[n][2] is not None]
    c_bounds = [c for c in conds[t.c] if dispatch.scalar_bound(c["kind"], c["axes"], t.grid, blocked)]
    out_axes = list(t.out_axes)
    ostride = {g: f"ostride_{g}" for g in out_axes}
    out_base = " + ".join(f"pid_{g} * {ostride[g]}" for g in t.grid) or "0"
    weights = dict(t.weights)
    both = _both_ways(t, form["both"], c_bounds, grid_map)
    # the nearest point on the tensor cores (dispatch.split_pass): L2 pairs of the both-ways
    # shape, whose operands each carry every grid axis
    split = form["split"]
    tma = None if form["tma"] else _tma(t)
    return dict(
        P=t.name, out=plan.out, grid=list(t.grid), R=t.r, C=t.c, K=t.k, A=t.a.name, B=t.b.name,
        outer=t.outer, select=t.select, index_out=t.index_out, has_backward=bool(t.differentiable),
        pair=t.pair, line=t.line, spec_line=t.spec_line,
        pair_line=t.pair_line, pair_text=lines[t.pair_line - 1].strip(),
        differentiable=repr(t.differentiable), differentiable_names=list(t.differentiable),
        sizes=[f"size_{s}" for s in sizes],
        stride_params=stride_params, cond_tensors=cond_tensors, optional=optional,
        cond_tensor_info=[dict(name=n, kind=decls[n][1], rank=len(decls[n][0])) for n in cond_tensors],
        conds_r=conds[t.r], conds_c=conds[t.c], aux=aux, cn=cn,
        sides=sides, row_sides=[s for s in sides if s["side"] == "row"],
        col_sides=[s for s in sides if s["side"] == "col"],
        quantized=t.a.quantized, key=t.key, key_is_prim=t.key_is_prim, key_linear=t.key_linear,
        cos=t.pair == "cos",
        swap_rows=dispatch.LEAN_SWAP_MAX_ROWS, swap_cols=dispatch.LEAN_SWAP_MIN_COLS,  # (dispatch.GENERAL_SWAP_FORMED)
        h=t.h, post=t.post, value=t.value, weights=weights, ties=t.ties,
        row_grads=t.row_grads, col_grads=dict(t.col_grads), need_x=t.need_x, uses_value=t.uses_value,
        uniform=t.uniform, weighted=t.weighted, prim={"l1": "l1", "sqdist": "sq", "dist": "sq"}.get(t.pair, "dot"),
        l2=t.pair in ("sqdist", "dist"), key_sel=t.key_sel,
        # fp32 rows may rank this dot key on the tensor cores, its value formed again at the index (EXACT_SEL)
        ranked_dot=t.pair == "dot" and dispatch.ranks_only(t), a_axes=list(t.a.axes), b_axes=list(t.b.axes),
        shared_axes=[g for g in t.grid if g in t.a.grid_axes and g in t.b.grid_axes],
        # x (the primitive) carried through the tile loop; L2 pairs recompute it at the selection
        track_x=t.need_x and not t.key_is_prim and t.pair not in ("sqdist", "dist"),
        decompose_cell=_decompose("cell", t.grid, blocked),
        decompose_cell_g_first=_blocked_first("cell", t.grid, blocked) if blocked else [],
        G=blocked or "", ROWS=f"BLOCK_{blocked.upper()} * BLOCK_{t.r.upper()}" if blocked else f"BLOCK_{t.r.upper()}",
        decompose_cell_flat=_decompose("cell", t.grid),
        pair_uses_b=any(w in weights for w in ("l1", "sq", "bsq", "ib")),
        decompose_a=_decompose("a_cell", t.a.grid_axes),
        decompose_other=_wide("other", other),
        decompose_b=_decompose("b_cell", t.b.grid_axes),
        decompose_other_b=_wide("other", other_b),
        n_other=" * ".join(f"size_{g}" for g in other) or "1",
        n_cells_kernel=" * ".join(f"size_{g}" for g in t.grid) or "1",
        n_other_b=" * ".join(f"size_{g}" for g in other_b) or "1",
        n_other_py=_py_sizes(other), n_other_b_py=_py_sizes(other_b), b_cells_py=_py_sizes(t.b.grid_axes),
        a_cells_py=_py_sizes(t.a.grid_axes), cells_py=_py_sizes(t.grid),
        b_cell_expr=_flat(t.b.grid_axes),
        a_grid_axes=list(t.a.grid_axes), b_grid_axes=list(t.b.grid_axes),
        a_base=_offset(t.a.name, t.a.grid_axes, grid_map),
        b_base=_offset(t.b.name, t.b.grid_axes, grid_map),
        da_base=_offset(t.a.name, t.a.grid_axes, grid_map, "dstride"),
        db_base=_offset(t.b.name, t.b.grid_axes, grid_map, "dstride"),
        da_strides=[f"dstride_{t.a.name}_{a}" for a in t.a.axes],
        db_strides=[f"dstride_{t.b.name}_{a}" for a in t.b.axes],
        ostrides=[ostride[g] for g in out_axes], out_base=out_base,
        out_row=f"offs_{t.r} * ostride_{t.r}" if t.outer == "none" else "0",
        size_args=", ".join(f'sizes["{s}"]' for s in sizes),
        shape_args="".join(f'sizes["{g}"], ' for g in out_axes).rstrip(" "),
        c_bounds=c_bounds, both=both, split=split, split_k=SPLIT_K,
        a_perm=[t.a.axes.index(a) for a in (*t.grid, t.r, t.k)] if split else None,
        b_perm=[t.b.axes.index(a) for a in (*t.grid, t.c, t.k)] if split else None,
        c_guard=_guard([c for c in conds[t.c] if not dispatch.scalar_bound(c["kind"], c["axes"], t.grid, blocked)]),
        small_d_max=SMALL_D_MAX,
        fill="-inf" if t.select == "max" else "inf",
        better=">" if t.select == "max" else "<", combine="maximum" if t.select == "max" else "minimum",
        ofill="-inf" if t.outer == "max" else "inf", obetter=">" if t.outer == "max" else "<",
        ocombine="maximum" if t.outer == "max" else "minimum",
        cell_expr=_flat(t.grid),
        # a stacked forward's output cells of its block ({G} values): pid_{G}_out, so that pid_{G} keeps the rows'
        out_cell_expr=_flat(t.grid, {blocked: f"pid_{blocked}_out"}) if blocked else "",
        # persistent programs (dispatch.persistent_blockers): a block of the stacked axis, a run of the other cells
        persist=bool(blocked) and not split and not dispatch.persistent_blockers(t),
        decompose_run=_decompose("run_cell", [g for g in t.grid if g != blocked]),
        n_run_cells=" * ".join(f"size_{g}" for g in t.grid if g != blocked) or "1",
        # packed inputs (ragged axes): each program's sequence ends at its length
        packing=[dict(name=n, axis=x, outer=o, cu=cu) for n, x, o, cu in t.packing],
        offsets=list(dict.fromkeys(cu for _n, _x, _o, cu in t.packing)),
        end_R=_ragged_end(t.r, packing), end_C=_ragged_end(t.c, packing),
        # a stacked tile's rows end per row (end_R is a vector there): its loop runs to the size
        loop_end_R=f"size_{t.r}" if blocked else _ragged_end(t.r, packing),
        ragged_r=any(x == t.r for x, _o, _cu in packing.values()),
        ragged_c=any(x == t.c for x, _o, _cu in packing.values()),
        lean=_lean(t, plan), tma=tma, lowering=lowering_id(t, plan.signature),
        # a computed operand (B): its inputs, its tables' gathered axes, and the lines of a tile of its rows
        rows=t.b.computed is not None and dict(
            name=t.b.name, inputs=emit_rows.rows_inputs(t.b), sizes=emit_rows.table_axes(t.b),
            normalize=t.b.computed.rows.normalize, projects=emit_rows.projects(t.b),
            floats=list(t.b.rows_floats),
            ragged=list(t.b.computed.ragged) if t.b.computed.ragged else None,  # (axis, outer axis, offsets)
            # the gather backward writes each selection's row of the operand (row-major over its axes but the
            # last) beside its compact gradient row: where those axes are its grid axes then the selected one,
            # and nothing is packed (a packed term's rows go through row_grads' packed path)
            flat_rows=not packing and list(t.b.axes) == [*t.b.grid_axes, t.c, t.k],
            tile=lambda at, ok, ks, k_ok, out, dtype, norms=None, shape=None, shift=None, prefix="rx": "\n".join(
                emit_rows.rows_tile(t, lambda name, axes: _offset(name, axes, grid_map), at, ok, ks, k_ok, out, dtype,
                                    norms, shape, shift, prefix))),
        # one program per (cell, chunk of rows): an outer sum (dispatch.split_rows), or an
        # unstacked outer max, min or mean (dispatch.outer_split, partials merged on the host)
        row_split=t.outer == "sum" or (t.outer in ("max", "min", "mean") and not blocked),
        # outer none: the selected axis in parts across programs, merged in order (dispatch.general_parts)
        col_parts=not dispatch.general_parts_blockers(t),
    )


def _tma(t: TermPlan) -> dict:
    """The context of TMA loads for the long contraction (DOT_MODE 1,
    dispatch.tma_blockers, dispatch.long_tma): each operand as a tensor descriptor
    over (its grid axes, rows, contraction), loaded a block of rows at a time."""
    sides = {}
    for key, op, axis in (("a", t.a, t.r), ("b", t.b, t.c)):
        grid = [g for g in t.grid if g in op.grid_axes]
        order = (*grid, axis, t.k)
        sides[f"{key}_perm"] = [op.axes.index(a) for a in order]
        sides[f"{key}_coords"] = "".join(f"pid_{g}.to(tl.int32), " for g in grid)
        sides[f"{key}_lead"] = "1, " * len(grid)  # the descriptor's block: one value of each grid axis
    return sides

"""Stage 2, check, for computed operands: a definition before the output's, such as

    D[j, t, d] = normalize(C[codes[j, t], d] + w[res[j, t, d]])

defines rows that the kernels form a tile at a time and never write to memory.
Its body reads float inputs at its own axes, gathers (a table read at the value
of an int or n-bit code input), projections (``<H[j, t, :], W[d, :]>``, a
Linear layer's product contracting an axis of its own), numbers, + - * /, and
may be L2-normalised over its last axis (the axis a pair contracts) by
``normalize(...)`` around it all.
"""

from __future__ import annotations

from . import ir
from . import syntax as S

FORMS = ("inputs at the row's axes, gathers such as C[codes[j, t], d], projections such as <H[j, t, :], W[d, :]>, "
         "numbers, + - * /, and normalize(...) around it all")


def row_definition(ck, d: S.Definition) -> ir.Tensor:
    """The computed operand ``d`` defines, as a Tensor carrying its Rows."""
    if d.name in ck.tensors or d.name in ck.rows:
        raise ck.error(f"{d.name!r} is already defined", d.pos, "give the computed operand a name of its own")
    if d.conds:
        raise ck.error(f"a computed operand ({d.name}) takes no where-conditions", d.conds[0].pos,
                       "put masks and length bounds on the output's definition, over the axis they restrict")
    if len(set(d.axes)) != len(d.axes):
        raise ck.error(f"{d.name!r} names an axis twice", d.pos, "each axis is named once")
    if len(d.axes) < 2:
        raise ck.error(f"computed operand {d.name!r} needs a row axis and a contraction axis", d.pos,
                       f"as in {d.name}[j, t, d] = C[codes[j, t], d]")
    scope = frozenset(d.axes)
    body, normalize = d.expr, False
    if isinstance(body, S.Call) and body.fn == "normalize":
        if len(body.args) != 1:
            raise ck.error("normalize takes one argument", body.pos, f"as in normalize(C[codes[j, t], {d.axes[-1]}])")
        body, normalize = body.args[0], True
    expr = _expr(ck, body, scope, d.name, d.axes[-1])
    missing = [a for a in d.axes if a not in expr.axes]
    if missing:
        raise ck.error(f"axis {missing[0]!r} of {d.name} does not appear in its definition", d.pos,
                       "every axis of a computed operand is an axis of something it reads")
    contracted = d.axes[-1]
    if contracted in ck.ragged:
        raise ck.error(f"the last axis of {d.name} ({contracted!r}) is ragged", d.pos,
                       "the last axis is the one a pair contracts: a row's coordinates")
    ragged = next(((a, *ck.ragged[a]) for a in d.axes if a in ck.ragged), None)
    if ragged and ragged[1] not in d.axes:
        raise ck.error(f"{d.name} is ragged in {ragged[1]!r}, which it must also carry", d.pos,
                       f"as in {d.name}[{ragged[1]}, {ragged[0]}, ...]")
    lines = ck.spec.source.splitlines()
    text = lines[d.pos.line - 1].strip() if 0 < d.pos.line <= len(lines) else ""
    return ir.Tensor(d.name, d.axes, ir.FLOAT, None, d.pos, ragged, ir.Rows(expr, normalize, d.pos.line, text))


def _expr(ck, e, scope: frozenset, name: str, last: str):
    if isinstance(e, S.Num):
        return ir.Const(e.value, e.pos)
    if isinstance(e, S.Ref):
        return _ref(ck, e, scope)
    if isinstance(e, S.Binary):
        return ir.Apply(e.op, (_expr(ck, e.left, scope, name, last), _expr(ck, e.right, scope, name, last)), e.pos)
    if isinstance(e, S.Neg):
        return ir.Apply("neg", (_expr(ck, e.operand, scope, name, last),), e.pos)
    if isinstance(e, S.Dot):
        return _projection(ck, e, scope, last)
    what = {S.Reduce: "a reduction", S.Norm: "a norm", S.Pow: "a power"}.get(type(e))
    if isinstance(e, S.Call):
        what = "normalize inside the expression" if e.fn == "normalize" else f"the function {e.fn}"
    raise ck.error(f"{what or 'this'} is not part of a computed operand ({name})", getattr(e, "pos", S.Pos(1, 1)),
                   f"a computed operand reads {FORMS}")


def _ref(ck, r: S.Ref, scope: frozenset):
    if r.index is None:
        raise ck.error(f"write {r.name!r} with its axes in a computed operand", r.pos,
                       "as in C[codes[j, t], d] or scale[j, t]: every axis named")
    t = _input(ck, r)
    if t.kind != ir.FLOAT:
        raise ck.error(f"{t.name!r} is {t.kind}; a computed operand's values come from float inputs", r.pos,
                       f"an {t.kind} input indexes a table, as in C[{t.name}[{', '.join(t.axes)}], d]")
    _arity(ck, t, r)
    gathers = [(i, x) for i, x in enumerate(r.index) if isinstance(x, S.Ref)]
    if len(gathers) > 1:
        raise ck.error(f"{t.name} is read at two indices", gathers[1][1].pos, "a table is read along one axis")
    for declared, given in zip(t.axes, r.index):
        if not isinstance(given, S.Ref):
            _axis(ck, t, declared, given, scope, r.pos)
    ck.used.add(t.name)
    if not gathers:
        return ir.Load(t, None, r.pos)
    at, ix = gathers[0]
    axis = t.axes[at]
    if axis in scope:
        raise ck.error(f"{t.name}'s axis {axis!r} is read at an index, but {axis!r} is also an axis here", ix.pos,
                       f"name the table's gathered axis apart from the operand's axes, as in C[c, d]")
    if ix.index is None:
        raise ck.error(f"write the index {ix.name!r} with its axes", ix.pos, f"as in {t.name}[{ix.name}[j, t], ...]")
    it = ck.lookup(ix.name, ix.pos)
    if it.kind != ir.INT and it.kind not in ir.CODE_BITS:
        raise ck.error(f"{it.name!r} is {it.kind}, but an index is int or n-bit codes (uint1, uint2, uint4, uint8)",
                       ix.pos, f"declare it as {it.name}[{', '.join(it.axes)}]: int")
    if it.ragged is None and any(a in ck.ragged for a in it.axes):
        raise ck.error(f"{it.name!r} is read along a ragged axis, but is not packed", ix.pos,
                       "declare it packed by the same offsets")
    _arity(ck, it, ix)
    for declared, given in zip(it.axes, ix.index):
        if isinstance(given, S.Ref):
            raise ck.error("an index is read at the operand's axes, not at another index", given.pos,
                           "one level of gather: table[index[j, t], d]")
        _axis(ck, it, declared, given, scope, ix.pos)
    ck.used.add(it.name)
    return ir.Gather(t, axis, it, r.pos)


def _projection(ck, e: S.Dot, scope: frozenset, last: str) -> ir.Pair:
    """``<H[j, t, :], W[d, :]>``: rows of H times a weight W over an axis of their
    own (':' or its declared name), as torch.nn.Linear forms them. W is shared by
    every row: it carries the operand's last axis and the contracted one only."""
    sides = []
    for side in (e.a, e.b):
        if not isinstance(side, S.Ref) or side.index is None:
            raise ck.error("a projection reads two inputs with their axes written out", getattr(side, "pos", e.pos),
                           "as in <H[j, t, :], W[d, :]>, ':' marking the axis it contracts")
        t = _input(ck, side)
        if t.kind != ir.FLOAT:
            raise ck.error(f"{t.name!r} is {t.kind}; a projection multiplies float inputs", side.pos,
                           f"declare {t.name} as float")
        _arity(ck, t, side)
        contracted = [a for a, given in zip(t.axes, side.index) if given == ":" or given not in scope]
        if len(contracted) != 1 or any(isinstance(x, S.Ref) for x in side.index):
            raise ck.error(f"{t.name} needs exactly one axis to contract, written ':'", side.pos,
                           "as in <H[j, t, :], W[d, :]>: the other axes are the computed operand's")
        for declared, given in zip(t.axes, side.index):
            if declared != contracted[0]:
                _axis(ck, t, declared, given, scope, side.pos)
            elif given not in (":", declared):
                raise ck.error(f"{t.name}'s axis {declared!r} is indexed as {given!r}", side.pos,
                               f"write ':' or {declared!r}")
        if contracted[0] in ck.ragged:
            raise ck.error(f"{t.name}'s contracted axis {contracted[0]!r} is ragged", side.pos,
                           "a projection contracts a row's coordinates, never a ragged axis")
        ck.used.add(t.name)
        sides.append(ir.Load(t, contracted[0], side.pos))
    a, b = sides
    if a.contracted != b.contracted:
        raise ck.error(f"the projection contracts {a.contracted!r} on one side and {b.contracted!r} on the other",
                       e.pos, "name the contracted axis alike in both declarations, so that its sizes match")
    rows, weight = (a, b) if last not in a.axes else (b, a)
    if rows.axes != scope - {last}:
        raise ck.error(f"the projected rows {rows.tensor.name} carry every axis of the computed operand but its last "
                       f"({', '.join(sorted(scope - {last}))})", rows.pos,
                       f"as in <H[j, t, :], W[{last}, :]>: one hidden row per operand row")
    if weight.axes != {last}:
        raise ck.error(f"a projection is rows times a weight that carries the operand's last axis ({last!r}) "
                       f"and the contracted one only", e.pos,
                       f"as in <H[j, t, :], W[{last}, :]>, W shared by every row (torch.nn.Linear's weight)")
    return ir.Pair("dot", rows, weight, a.contracted, e.pos)


def _input(ck, r: S.Ref) -> ir.Tensor:
    """The input r names: a declared one (a computed operand reads no other)."""
    t = ck.lookup(r.name, r.pos)
    if t.rows is not None:
        raise ck.error(f"{t.name!r} is a computed operand; one cannot read another", r.pos,
                       "write its definition into this one")
    return t


def _arity(ck, t: ir.Tensor, r: S.Ref) -> None:
    if len(r.index) != len(t.axes):
        raise ck.error(f"{t.name} has {len(t.axes)} axes, indexed with {len(r.index)}", r.pos,
                       f"{t.name} is declared [{', '.join(t.axes)}]")


def _axis(ck, t: ir.Tensor, declared: str, given: str, scope: frozenset, pos: S.Pos) -> None:
    if given == ":":
        raise ck.error(f"':' has no place in a computed operand ({t.name})", pos,
                       "name each axis: the pair that reads the operand contracts its last axis")
    if given != declared:
        raise ck.error(f"{t.name}'s axis {declared!r} is indexed as {given!r}", pos,
                       f"use the declared axis name {declared!r} (renaming is not supported)")
    if given not in scope:
        raise ck.error(f"axis {given!r} is not an axis of the computed operand", pos,
                       "a computed operand reads its inputs at its own axes (and tables at an index)")

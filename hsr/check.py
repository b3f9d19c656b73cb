"""Stage 2, check: AST to typed IR.

Resolves names and axes, types every node, attaches ``where`` conditions to
the reductions they restrict. Every error names the line and column.
"""

from __future__ import annotations

from dataclasses import is_dataclass, replace

from . import ir
from . import syntax as S
from .check_rows import row_definition
from .errors import SpecError, source_lines


# "backward" is a keyword option of every compiled op; the others name the
# generated kernels' own buffers (out_ptr, idx_ptr, ..., row_cell), which an
# input's pointer or per-row value would shadow.
RESERVED = ("backward", "out", "idx", "stat", "xsel", "grad", "aux_asq", "aux_bsq", "cell")


def check(spec: S.Spec) -> ir.Program:
    return _Checker(spec).program()


class _Checker:
    def __init__(self, spec: S.Spec):
        self.spec = spec
        self.tensors: dict[str, ir.Tensor] = {}
        self.rows: dict[str, ir.Tensor] = {}  # computed operands (check_rows), by name
        self.used: set[str] = set()

    def error(self, message: str, pos: S.Pos, hint: str) -> SpecError:
        return SpecError(message, source=self.spec.source, filename=self.spec.filename,
                         line=pos.line, col=pos.col, hint=hint)

    # -- declarations -------------------------------------------------------
    def program(self) -> ir.Program:
        for decl in self.spec.declarations:
            self.declare(decl)
        self.ragged = self.packings()
        defs = self.spec.definitions
        if not defs:
            last = len(source_lines(self.spec.source.rstrip("\n"))) or 1
            raise self.error("the spec defines no output", S.Pos(last, 1),
                             "add a definition such as  out[i, j] = sum_s max_t <Q_s, D_t>")
        for d in defs[:-1]:  # computed operands: every definition before the output's
            if any(True for _ in _reductions(d.expr)):
                raise self.error(f"a second definition ({defs[-1].name!r}); a spec has one output", defs[-1].pos,
                                 "write one spec per output; a sum of terms goes in one definition (a definition "
                                 "before the output's defines a computed operand's rows, without reductions)")
            self.rows[d.name] = row_definition(self, d)
        reads: dict[str, set] = {}  # by the name read: D, or D_t (the short form)
        for name, kinds in _pair_reads(defs[-1].expr).items():
            name = name if name in self.rows else name.rpartition("_")[0]
            reads.setdefault(name, set()).update(kinds)
        for name, t in list(self.rows.items()):
            if not t.rows.normalize and reads.get(name) == {"cos"}:
                # a cosine of its rows is one of its normalised rows: normalised in the kernels, so that
                # the backward takes each selected row's norm as 1 (the rows are never written to memory)
                self.rows[name] = replace(t, rows=replace(t.rows, normalize=True, for_cosine=True))
        definition = self.definition(defs[-1])
        for t in (*self.tensors.values(), *self.rows.values()):
            if t.name not in self.used:
                what = "defined" if t.rows else "declared"
                raise self.error(f"{t.name!r} is {what} but never used", t.pos,
                                 f"remove the {'definition' if t.rows else 'declaration'} or use it in the output's")
        return ir.Program(tuple(self.tensors.values()), definition, self.spec.source, self.spec.filename,
                          rows=tuple(self.rows.values()))

    def declare(self, decl: S.Declaration) -> None:
        if decl.name in self.tensors:
            raise self.error(f"{decl.name!r} is declared twice", decl.pos, "each input is declared once; rename one")
        if decl.name in RESERVED:
            why = ("an op takes backward= as an option" if decl.name == "backward"
                   else "the generated kernels use it for a buffer of their own")
            raise self.error(f"{decl.name!r} is a reserved name", decl.pos, f"{why}; name the input otherwise")
        if len(set(decl.axes)) != len(decl.axes):
            raise self.error(f"{decl.name!r} names an axis twice: [{', '.join(decl.axes)}]", decl.pos,
                             "axis names are sizes: give each axis of a tensor its own name")
        if not decl.axes and decl.type != "int":
            raise self.error(f"{decl.name!r} has no axes", decl.pos, "declare its axes, as in w[s]: float")
        if decl.type == ir.OFFSETS and len(decl.axes) != 1:
            raise self.error(f"offsets {decl.name!r} must have one axis, the sequences'", decl.pos,
                             f"as in {decl.name}[i]: offsets (N + 1 entries for N sequences)")
        default = decl.default
        allowed = {"bool": ("all",), "int": ("full",)}.get(decl.type, ())
        if default is not None:
            ok = default in allowed or (decl.type == "float" and isinstance(default, float))
            if not ok:
                want = {"bool": "'all'", "int": "'full'", "float": "a number"}[decl.type]
                raise self.error(f"{default!r} is not a default for a {decl.type} input", decl.pos,
                                 f"a {decl.type} input's default is {want}")
        self.tensors[decl.name] = ir.Tensor(decl.name, decl.axes, decl.type, default, decl.pos,
                                            self.ragged_axis(decl))

    def ragged_axis(self, decl: S.Declaration) -> tuple | None:
        """(axis, outer axis, offsets) of a declaration's `axis by offsets`, checked."""
        if not decl.ragged:
            return None
        if len(decl.ragged) > 1:
            _axis, _cu, pos = decl.ragged[1]
            raise self.error(f"{decl.name!r} has two ragged axes", pos,
                             "a tensor is packed along one ragged axis")
        axis, cu_name, pos = decl.ragged[0]
        if decl.type == ir.OFFSETS:
            raise self.error(f"offsets {decl.name!r} cannot be ragged", pos, f"declare it as {decl.name}[i]: offsets")
        if cu_name not in self.tensors:
            raise self.error(f"{cu_name!r} is not declared", pos,
                             f"declare the offsets first, as in {cu_name}[i]: offsets")
        cu = self.tensors[cu_name]
        if cu.kind != ir.OFFSETS:
            raise self.error(f"{cu_name!r} is {cu.kind}, but a ragged axis is packed by offsets", pos,
                             f"declare it as {cu_name}[{', '.join(cu.axes)}]: offsets")
        outer = cu.axes[0]
        if outer == axis or outer not in decl.axes:
            raise self.error(f"{decl.name!r} is ragged in {outer!r} (the axis of {cu_name}), "
                             f"which it must also carry", pos,
                             f"as in {decl.name}[{outer}, {axis} by {cu_name}, ...]")
        self.used.add(cu_name)
        return (axis, outer, cu_name)

    def packings(self) -> dict:
        """{ragged axis: (outer axis, offsets tensor)}: every input carrying a ragged
        axis is packed by the same offsets."""
        ragged = {}
        for t in self.tensors.values():
            if t.ragged:
                axis, outer, cu = t.ragged
                if ragged.setdefault(axis, (outer, cu)) != (outer, cu):
                    raise self.error(f"axis {axis!r} is ragged by {ragged[axis][1]!r} and by {cu!r}", t.pos,
                                     "inputs that share a ragged axis share its offsets")
        for t in self.tensors.values():
            for axis in t.axes:
                if axis in ragged and t.kind != ir.OFFSETS and not t.ragged:
                    outer, cu = ragged[axis]
                    raise self.error(f"axis {axis!r} is ragged, but {t.name!r} declares it plain", t.pos,
                                     f"pack {t.name} too: {t.name}[..., {axis} by {cu}, ...]")
        return ragged

    # -- the definition -----------------------------------------------------
    def definition(self, d: S.Definition) -> ir.Definition:
        if d.name in self.tensors or d.name in self.rows:
            what = "declared as an input" if d.name in self.tensors else "a computed operand"
            raise self.error(f"{d.name!r} is already {what}", d.pos, "give the output a name of its own")
        if len(set(d.axes)) != len(d.axes):
            raise self.error(f"output {d.name!r} names an axis twice", d.pos, "each output axis is named once")
        known = {a for t in (*self.tensors.values(), *self.rows.values()) for a in t.axes}
        for axis in d.axes:
            if axis not in known:
                raise self.error(f"output axis {axis!r} is not an axis of any input", d.pos,
                                 "output axes are axes of the declared inputs")
        reduced = {r.axis for r in _reductions(d.expr)}
        conds = tuple(self.condition(c, set(d.axes), reduced) for c in d.conds)
        conds += self.ragged_bounds(d, reduced)
        expr = self.expr(d.expr, frozenset(d.axes), conds, top=True)
        if not any(isinstance(node, ir.Reduce) for node in ir.walk(expr)):
            raise self.error("the definition reduces over nothing", d.pos,
                             "a hard-selection reduction starts with a reduction such as sum_s or max_t")
        missing = set(d.axes) - expr.axes
        if missing:
            raise self.error(f"output axis {sorted(missing)[0]!r} does not appear in the expression", d.pos,
                             "every output axis must be an axis of some tensor the expression reads")
        return ir.Definition(d.name, d.axes, expr, conds, d.pos)

    def ragged_bounds(self, d: S.Definition, reduced: set) -> tuple:
        """A ragged axis is bounded by its sequence's length in every reduction over
        it (a length bound whose limit is the offsets), and the axis it is ragged in
        is an output axis. An output over a ragged axis comes packed like its inputs."""
        bounds = []
        for axis, (outer, cu) in self.ragged.items():
            decl = next(t for t in self.tensors.values() if t.ragged and t.ragged[0] == axis)
            if outer not in d.axes and (axis in reduced or outer in reduced or axis in d.axes):
                raise self.error(f"{axis!r} is ragged in {outer!r}, which is not an output axis", d.pos,
                                 f"make {outer} an output axis: each of its sequences is one output cell")
            if axis in reduced:
                bounds.append(ir.Bound(axis, self.tensors[cu], decl.pos))
        return tuple(bounds)

    def condition(self, c: S.Cond, out_axes: set, reduced: set) -> ir.Cond:
        if isinstance(c, S.MaskCond):
            t = self.lookup(c.name, c.pos)
            if t.kind != ir.BOOL:
                raise self.error(f"{c.name!r} is {t.kind}, but a where-mask must be bool", c.pos,
                                 "for a length bound write  t < lengths[j]")
            if c.axes is not None and c.axes != t.axes:
                raise self.error(f"{c.name} is declared [{', '.join(t.axes)}], not [{', '.join(c.axes)}]", c.pos,
                                 f"write {c.name}[{', '.join(t.axes)}] or just {c.name}")
            over = [a for a in t.axes if a in reduced]
            if len(over) != 1:
                raise self.error(f"mask {c.name!r} must name exactly one reduced axis, it names {len(over)}",
                                 c.pos, f"reduced axes here: {', '.join(sorted(reduced)) or 'none'}")
            stray = [a for a in t.axes if a not in reduced and a not in out_axes]
            if stray:
                raise self.error(f"axis {stray[0]!r} of mask {c.name!r} is neither an output nor a reduced axis", c.pos,
                                 "a mask's axes are output axes plus the one reduced axis it restricts")
            self.used.add(t.name)
            return ir.Mask(t, over[0], c.pos)
        if c.axis not in reduced:
            raise self.error(f"{c.axis!r} is not a reduced axis, so it cannot be bounded", c.pos,
                             f"reduced axes here: {', '.join(sorted(reduced)) or 'none'}")
        if isinstance(c.bound, int):
            return ir.Bound(c.axis, c.bound, c.pos)
        t = self.lookup(c.bound, c.pos)
        if t.kind != ir.INT:
            raise self.error(f"bound {t.name!r} is {t.kind}, but a length bound must be int", c.pos,
                             f"declare it as {t.name}[{', '.join(t.axes)}]: int")
        if c.bound_axes is not None and c.bound_axes != t.axes:
            raise self.error(f"{t.name} is declared [{', '.join(t.axes)}], not [{', '.join(c.bound_axes)}]", c.pos,
                             f"write {t.name}[{', '.join(t.axes)}] or just {t.name}")
        stray = [a for a in t.axes if a not in out_axes]
        if stray:
            raise self.error(f"length bound {t.name!r} varies over {stray[0]!r}, which is not an output axis", c.pos,
                             "a length bound may vary over output axes only")
        self.used.add(t.name)
        return ir.Bound(c.axis, t, c.pos)

    # -- expressions --------------------------------------------------------
    def lookup(self, name: str, pos: S.Pos) -> ir.Tensor:
        if name in self.rows:
            return self.rows[name]
        if name not in self.tensors:
            raise self.error(f"{name!r} is not declared", pos,
                             f"declare it first, as in {name}[i, s]: float")
        return self.tensors[name]

    def expr(self, e: S.Expr, scope: frozenset, conds: tuple, top: bool = False) -> ir.Expr:
        if isinstance(e, S.Num):
            return ir.Const(e.value, e.pos)
        if isinstance(e, S.Ref):
            return self.load(e, scope, pair=False)
        if isinstance(e, S.Reduce):
            return self.reduce(e, scope, conds, top)
        if isinstance(e, S.Dot):
            return self.pair("dot", e.a, e.b, scope, e.pos)
        if isinstance(e, S.Norm):
            return self.norm(e, scope, squared=False)
        if isinstance(e, S.Pow):
            if isinstance(e.base, S.Norm) and e.base.kind == "2" and e.exponent == 2:
                return self.norm(e.base, scope, squared=True)
            return ir.Apply("pow", (self.expr(e.base, scope, conds),), e.pos, e.exponent)
        if isinstance(e, S.Binary):
            return ir.Apply(e.op, (self.expr(e.left, scope, conds), self.expr(e.right, scope, conds)), e.pos)
        if isinstance(e, S.Neg):
            return ir.Apply("neg", (self.expr(e.operand, scope, conds),), e.pos)
        if isinstance(e, S.Call):
            if e.fn == "cos":
                if len(e.args) != 2:
                    raise self.error("cos takes two rows: cos(A, B)", e.pos, "as in cos(Q_s, D_t)")
                return self.pair("cos", e.args[0], e.args[1], scope, e.pos)
            if e.fn not in ir.UNARY_FNS:
                raise self.error(f"unknown function {e.fn!r}", e.pos,
                                 "functions: cos " + " ".join(ir.UNARY_FNS))
            if len(e.args) != 1:
                raise self.error(f"{e.fn} takes one argument, not {len(e.args)}", e.pos, f"as in {e.fn}(x)")
            return ir.Apply(e.fn, (self.expr(e.args[0], scope, conds),), e.pos)
        raise self.error("unsupported expression", getattr(e, "pos", S.Pos(1, 1)),
                         "see the language section of the README")

    def reduce(self, e: S.Reduce, scope: frozenset, conds: tuple, top: bool) -> ir.Reduce:
        if e.op.startswith("arg") and not top:
            raise self.error(f"{e.op}_{e.axis} must be the whole definition", e.pos,
                             "an index cannot feed arithmetic; write  idx[i, s] = argmax_t ...")
        if e.axis in scope:
            raise self.error(f"axis {e.axis!r} is already bound here", e.pos,
                             "an axis is reduced once and is not also an output axis")
        body = self.expr(e.body, scope | {e.axis}, conds)
        if e.axis not in body.axes:
            raise self.error(f"{e.op}_{e.axis} reduces over {e.axis!r}, but its operand does not depend on it",
                             e.pos, "a reduction takes the product term after it; check the axis name")
        mine = tuple(c for c in conds if _cond_axis(c) == e.axis)
        return ir.Reduce(e.op, e.axis, body, mine, e.pos)

    def norm(self, e: S.Norm, scope: frozenset, squared: bool) -> ir.Pair:
        inner = e.inner
        if not (isinstance(inner, S.Binary) and inner.op == "-"):
            raise self.error("a pairwise norm is written ||A - B||", e.pos, "as in ||P_n - R_m||^2")
        kind = "l1" if e.kind == "1" else ("sqdist" if squared else "dist")
        return self.pair(kind, inner.left, inner.right, scope, e.pos)

    def pair(self, kind: str, a: S.Expr, b: S.Expr, scope: frozenset, pos: S.Pos) -> ir.Pair:
        for side in (a, b):
            if not isinstance(side, S.Ref):
                raise self.error("a pairwise score takes two tensor rows, as in <Q_s, D_t>",
                                 getattr(side, "pos", pos), "apply arithmetic outside the score: w_s * <Q_s, D_t>")
        la, lb = self.load(a, scope, pair=True), self.load(b, scope, pair=True)
        if la.contracted is None or lb.contracted is None:
            side = a if la.contracted is None else b
            raise self.error(f"{side.name} has no axis left over to contract", side.pos,
                             "the contraction axis is the one axis of both rows that nothing else binds")
        if la.contracted != lb.contracted:
            raise self.error(f"the rows contract different axes ({la.contracted!r} and {lb.contracted!r})", pos,
                             "both rows must leave the same axis unbound")
        if la.contracted in self.ragged:
            raise self.error(f"the contraction axis {la.contracted!r} is ragged", pos,
                             "a ragged axis is one of the rows' axes, never the one a pair contracts")
        computed = next((x for x in (la, lb) if x.tensor.rows is not None), None)
        if computed is not None and kind == "cos" and not computed.tensor.rows.normalize:
            # (the backward takes each selected row's norm as 1: a normalised operand's)
            raise self.error(f"{computed.tensor.name} is a computed operand read by a cosine and another pair", pos,
                             f"write normalize(...) around {computed.tensor.name}'s whole definition, or read it "
                             "by cosines only")
        kinds = [x.tensor.kind for x in (la, lb)]
        low = next((k for k in kinds if k in ir.QUANTIZED), None)
        if low and (kind != "dot" or kinds[0] != kinds[1]):
            side = a if kinds[0] != low else b
            raise self.error(f"{low} rows meet only {low} rows, in a dot <A, B> ({low} tensor cores)",
                             side.pos if kind == "dot" else pos,
                             f"declare both operands {low} (per-row scales as float inputs), or neither")
        return ir.Pair(kind, la, lb, la.contracted, pos)

    def load(self, r: S.Ref, scope: frozenset, pair: bool) -> ir.Load:
        t, bound = self.resolve(r, scope)
        left = [a for a in t.axes if a not in scope and a not in bound]
        if t.kind in ir.QUANTIZED and not pair:
            raise self.error(f"{t.name!r} is {t.kind} (quantized rows); it enters only a dot <A, B>", r.pos,
                             "scale the score outside it, as in s_t * <Q_s, D_t>, with float scales")
        if t.rows is not None and not pair:
            raise self.error(f"{t.name!r} is a computed operand; it enters only a dot <A, B>", r.pos,
                             f"as in <Q_s, {t.name}_t>")
        if t.kind not in (ir.FLOAT, *ir.QUANTIZED):
            raise self.error(f"{t.name!r} is {t.kind}; only float inputs enter arithmetic", r.pos,
                             "bool inputs are masks (where ...), int inputs are length bounds, "
                             "offsets pack a ragged axis (Q[i, s by cu, d])")
        if not pair and left:
            raise self.error(f"axis {left[0]!r} of {t.name} is not bound", r.pos,
                             f"bind it with a reduction such as sum_{left[0]}, or make it an output axis")
        if pair and len(left) > 1:
            raise self.error(f"{t.name} leaves {len(left)} axes unbound ({', '.join(left)}); a row leaves one",
                             r.pos, "bind the others with reductions or output axes")
        self.used.add(t.name)
        return ir.Load(t, left[0] if left else None, r.pos)

    def resolve(self, r: S.Ref, scope: frozenset) -> tuple[ir.Tensor, set]:
        """Find the tensor a reference names and the axes it binds explicitly."""
        if r.index is not None:
            t = self.lookup(r.name, r.pos)
            if len(r.index) != len(t.axes):
                raise self.error(f"{t.name} has {len(t.axes)} axes, indexed with {len(r.index)}", r.pos,
                                 f"{t.name} is declared [{', '.join(t.axes)}]")
            bound = set()
            for declared, given in zip(t.axes, r.index):
                if isinstance(given, S.Ref):
                    raise self.error(f"{t.name} is read at an index ({given.name}) in the output's definition",
                                     given.pos, "gathers define a computed operand, as in "
                                     "D[j, t, d] = C[codes[j, t], d], which the output then reads")
                if given == ":":
                    continue
                if given != declared:
                    raise self.error(f"{t.name}'s axis {declared!r} is indexed as {given!r}", r.pos,
                                     f"use the declared axis name {declared!r} (renaming is not supported)")
                if given not in scope:
                    raise self.error(f"axis {given!r} is not bound here", r.pos,
                                     f"a reduction such as sum_{given}, or an output axis, binds it; ':' marks the contraction axis")
                bound.add(given)
            free = [a for a, g in zip(t.axes, r.index) if g == ":"]
            for a in t.axes:
                if a in scope and a in free:
                    raise self.error(f"axis {a!r} is bound here and cannot be contracted with ':'", r.pos,
                                     "contract an axis that no output or reduction binds")
            return t, bound
        if r.name in self.tensors or r.name in self.rows:
            return self.lookup(r.name, r.pos), set()
        base, sep, axis = r.name.rpartition("_")
        if sep and (base in self.tensors or base in self.rows):
            t = self.lookup(base, r.pos)
            if axis not in t.axes:
                raise self.error(f"{base} has no axis {axis!r}", r.pos,
                                 f"{base} is declared [{', '.join(t.axes)}]")
            if axis not in scope:
                raise self.error(f"axis {axis!r} is not bound here", r.pos,
                                 f"a reduction such as sum_{axis} or an output axis binds it")
            return t, {axis}
        raise self.error(f"{r.name!r} is not declared", r.pos,
                         f"declare it first, as in {base or r.name}[...]: float")


def _pair_reads(e) -> dict[str, set]:
    """The names each pairwise score of an expression reads: {name: {"cos", "dot", "norm"}}."""
    reads: dict[str, set] = {}

    def children(x):
        for value in (vars(x).values() if is_dataclass(x) else x if isinstance(x, tuple) else ()):
            if is_dataclass(value) or isinstance(value, tuple):
                yield value

    def walk(x, kind=None):
        kind = kind or ("cos" if isinstance(x, S.Call) and x.fn == "cos" else "dot" if isinstance(x, S.Dot) else
                        "norm" if isinstance(x, S.Norm) else None)
        if kind and isinstance(x, S.Ref):
            reads.setdefault(x.name, set()).add(kind)
        for child in children(x):
            walk(child, kind)
    walk(e)
    return reads


def _reductions(e: S.Expr):
    if isinstance(e, S.Reduce):
        yield e
        yield from _reductions(e.body)
    elif isinstance(e, (S.Binary,)):
        yield from _reductions(e.left)
        yield from _reductions(e.right)
    elif isinstance(e, S.Neg):
        yield from _reductions(e.operand)
    elif isinstance(e, S.Pow):
        yield from _reductions(e.base)
    elif isinstance(e, S.Call):
        for a in e.args:
            yield from _reductions(a)


def _cond_axis(c: ir.Cond) -> str:
    return c.axis

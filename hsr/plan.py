"""Stage 3, plan: recognise the hard-selection normal form and choose kernels.

    out[G] = OUTER_r post( SELECT_c pre( pair(A_r, B_c), row_r, col_c ) )

- OUTER is sum, mean, max, min, or absent (then r is an output axis, tiled
  inside a program: Splade's vocabulary).
- SELECT is max, min, argmax or argmin over c, an axis of B only.
- pair is <A, B>, cos(A, B), ||A - B||^2, ||A - B|| or ||A - B||_1.
- pre and post are elementwise in the pair, per-row terms (axes of A: w_s,
  bias_v) and, in pre, per-column terms (axes of B).
- A definition may add, subtract and scale several normal forms (Chamfer's
  two directions): each becomes its own kernels.

``pre`` is split with sympy into a key the tile loop computes and a monotone
function applied once per selected value (hoisting); a decreasing one flips
max and min. The backward's derivatives come from sympy too. Anything else is
rejected with an error naming the part of the normal form it breaks.
"""

from __future__ import annotations

import hashlib
import math
import operator
import re
from dataclasses import dataclass, field, replace

import sympy as sp

from . import dispatch, ir
from . import symbolic as S
from .errors import PlanError, TensorError

NORMAL_FORM = "out[G] = OUTER_r post(SELECT_c pre(pair(A_r, B_c)))"
OUTERS = ("sum", "mean", "max", "min", "none")
PAIR_TEXT = {"dot": "<{a}, {b}>", "cos": "cos({a}, {b})", "sqdist": "||{a} - {b}||^2",
             "dist": "||{a} - {b}||", "l1": "||{a} - {b}||_1"}
FLIP = {"max": "min", "min": "max"}
EXPLAIN_SIZE = 128  # explain(sizes): an axis the sizes leave out is taken as this many


def spec_axes(signature, terms=()) -> tuple[str, ...]:
    """The axes of a spec's declarations (and of its terms'), in order of first appearance."""
    axes = [a for _name, decl_axes, *_ in signature for a in decl_axes]
    for t in terms:
        axes += [*t.out_axes, *t.a.axes, *t.b.axes, *t.grid, t.r, t.c, t.k]
    return tuple(dict.fromkeys(axes))


def explain_sizes(axes, sizes) -> tuple[dict | None, str | None]:
    """explain()'s sizes ({axis: n}) checked against the spec's axes: (a size for
    every axis, a line naming the axes they leave out, taken as EXPLAIN_SIZE, or
    None). An axis the spec does not have, or a size that is not a whole number
    >= 0, is a TensorError naming the spec's axes. None stays None (the rule,
    without sizes)."""
    if sizes is None:
        return None, None
    known = ", ".join(axes)
    try:
        given = dict(sizes)
    except (TypeError, ValueError):
        raise TensorError(f"explain: sizes map the spec's axes ({known}) to sizes, as {{{axes[0]!r}: 8}}; "
                          f"got {type(sizes).__name__}") from None
    full = {}
    for name, n in given.items():
        if name not in axes:
            raise TensorError(f"explain: no axis {name!r} in this spec; its axes are {known}")
        try:
            if isinstance(n, bool):
                raise TypeError
            full[name] = operator.index(n)
        except TypeError:
            full[name] = -1
        if full[name] < 0:
            raise TensorError(f"explain: the size of axis {name!r} must be a whole number >= 0, got {n!r}")
    missing = [a for a in axes if a not in full]
    full.update(dict.fromkeys(missing, EXPLAIN_SIZE))
    if not missing:
        return full, None
    if len(missing) == 1:
        return full, f"  axis {missing[0]} not given: taken as {EXPLAIN_SIZE}"
    return full, f"  axes {', '.join(missing)} not given: taken as {EXPLAIN_SIZE} each"


@dataclass(frozen=True)
class Operand:
    name: str
    axes: tuple[str, ...]        # declared axes, in order
    grid_axes: tuple[str, ...]   # the program-grid axes it carries, in declared order
    quantized: str = ""          # "int8" or "fp8": rows for those tensor cores (not differentiable)
    # a computed operand (hsr.check_rows): the Tensor with its definition; its rows are formed in the
    # kernel from its inputs (rows_inputs), and it has no gradient of its own
    computed: object = field(default=None, compare=False, repr=False)

    @property
    def rows_inputs(self) -> tuple:
        """The inputs a computed operand's rows read, in order of first reading."""
        if self.computed is None:
            return ()
        found = []
        for node in ir.walk(self.computed.rows.expr):
            if isinstance(node, ir.Load):
                found.append(node.tensor)
            elif isinstance(node, ir.Gather):
                found += [node.index, node.table]
        return tuple(dict.fromkeys(found))

    @property
    def rows_floats(self) -> tuple:
        """The names of a computed operand's float inputs: those its gradient reaches (hsr.row_grads)."""
        return tuple(x.name for x in self.rows_inputs if x.kind == ir.FLOAT)


@dataclass(frozen=True)
class Condition:
    """A where-condition on r or c: a bool mask, or ``axis < limit`` where the
    limit is an int tensor (``name``) or a literal (``literal``)."""
    kind: str                    # "mask" or "bound"
    axis: str
    name: str | None
    axes: tuple[str, ...]
    literal: int | None
    line: int
    # a ragged axis's length: name is its offsets, the limit offsets[n + 1] - offsets[n] (out of repr, so
    # that lowering ids from before ragged axes stay; lowering_id adds the packing where there is one)
    ragged: bool = field(default=False, repr=False)


@dataclass(frozen=True)
class Side:
    """A per-row (side "row", axes of A) or per-column (side "col", axes of B)
    float input read next to the pair; ``default`` when the input is optional."""
    name: str
    axes: tuple[str, ...]
    side: str
    default: float | None


@dataclass(frozen=True)
class TermPlan:
    """One normal form: the kernels of one term of the definition."""
    name: str                    # prefix of its kernels
    out_axes: tuple[str, ...]    # the definition's axes
    grid: tuple[str, ...]        # one program per value (and per r block when outer is none)
    outer: str                   # sum, mean, max, min or none
    select: str                  # max or min, after hoisting (what the tile loop keeps)
    written_select: str          # as the spec writes it
    index_out: bool              # argmax/argmin: the output is the index
    pair: str
    r: str
    c: str
    k: str
    a: Operand
    b: Operand
    conds: tuple[Condition, ...]
    sides: tuple[Side, ...]
    aux: tuple[str, ...]         # row norms the pair needs before the kernel: "asq" (of A), "bsq" (of B), for cos
    key: str                     # Triton code of the tile's key
    key_is_prim: bool            # the key is the pair primitive itself (dot, l1 or sq)
    key_is_cos: bool             # the key is a cosine's dot * ib (its row norm hoisted out)
    key_linear: tuple | None     # (alpha, beta code): key = alpha * dot + beta, alpha a number (dot pairs)
    h: str                       # the hoisted epilogue, in "best"
    hoisted: str                 # sympy text of h, for explain
    post: str                    # Triton code of post, in "value"
    value: str                   # pre at the selection, in the backward's names
    key_sel: str                 # the key at the selection, from x_best (L2: its exact value) and the columns there
    weights: tuple               # ((symbol, code of d out / d symbol per unit grad)), backward
    row_grads: tuple             # ((name, direct code, through-selection code))
    col_grads: tuple             # ((name, code))
    ties: tuple | None           # h flat somewhere (not L2): (code of "h flat at best", code of h on the tile's key)
    need_x: bool                 # the backward needs the primitive at the selection
    uses_value: bool             # the backward needs v = pre at the selection
    uniform: bool                # d out / d dot is the same for every row of a cell
    weighted: bool               # the selected row's gradient is a weight times the other row (dot only)
    line: int
    spec_line: str
    pair_line: int
    # ((input, ragged axis, outer axis, offsets)): the packed inputs the term reads (out of repr: see Condition)
    packing: tuple = field(default=(), repr=False)

    def conds_on(self, axis: str) -> tuple[Condition, ...]:
        return tuple(c for c in self.conds if c.axis == axis)

    @property
    def differentiable(self) -> tuple[str, ...]:
        if self.index_out or self.a.quantized:  # a quantized dot serves inference: no gradient at all
            return ()
        rows = tuple(o.name for o in (self.a, self.b) if o.computed is None)
        return rows + self.b.rows_floats + tuple(s.name for s in self.sides)

    def explain(self, signature=(), sizes: dict | None = None, dtype: str = "float16",
                where: str = "cuda9") -> list[str]:
        sizes, unsized = explain_sizes(spec_axes(signature, (self,)), sizes)
        pair = PAIR_TEXT[self.pair].format(a=self.a.name, b=self.b.name)
        grid = ", ".join(self.grid) or "(scalar)"
        tiled = f" x blocks of {self.r!r}" if self.outer == "none" else ""
        lines = [f"  kernels {self.name}_*: one program per ({grid}){tiled}",
                 f"  pair: {pair} over axis {self.k!r}"
                 + (" (elementwise)" if self.pair == "l1" else
                    ", int8 rows on the int8 tensor cores (exact int32 products, fp32 sums)" if self.a.quantized == "int8"
                    else ", fp8 (e4m3) rows on the fp8 tensor cores (fp32 accumulation)" if self.a.quantized else
                    ", tl.dot with fp32 accumulation (the tensor cores on a GPU)")]
        if unsized:
            lines.insert(0, unsized)
        if self.aux:
            lines.append("  norms: the forward forms them from its tiles; the backward takes them once per row, "
                         "before its kernels")
        if self.pair in ("sqdist", "dist") and self.b.computed is not None:
            lines.append(f"  exact at any offset: |a-c|^2 + |b-c|^2 - 2<a-c, b-c> ranks the pairs, with c "
                         f"{self.a.name}'s first row (fp32 rows: {self.a.name} less c before the kernel, each "
                         f"{self.b.name} row formed less c in the kernel; 16-bit rows unshifted, exact near the origin "
                         f"only; norms from the tiles), then the selected pair's value comes from its differences, "
                         f"{self.b.name}'s selected row formed again whole")
        elif self.pair in ("sqdist", "dist"):
            lines.append("  exact at any offset: up to 8 coordinates, the key from the differences a - b (CUDA cores); "
                         "longer rows, |a-c|^2 + |b-c|^2 - 2<a-c, b-c> with c a row of B in each shared cell "
                         "(fp32 rows, shifted before the kernel, the dot on a GPU as three TF32 products, or one where "
                         "the float32 matmul precision is not 'highest', or as many fp16 products of rows scaled "
                         "by powers of two (see 'fp32 rows' below); 16-bit rows "
                         "less a per-coordinate shift where 'fp16/bf16 rows' below says so, else unshifted; "
                         "norms from the tiles) ranks the pairs, then the selected pair's value comes from "
                         "its differences")
        key = self.key.replace("[None, :]", "").replace("[:, None]", "")
        lines.append(f"  tile loop keeps the running {self.select} of {key} over {self.c!r} "
                     f"({self.b.name} rows streamed in tiles; lowest index wins ties)")
        if self.ties:
            which = "the index" if self.index_out else "the index forward_with_indices reports"
            lines.append(f"  ties: where the epilogue is flat at the selection ({self.ties[0]}), {which} is the "
                         f"lowest whose epilogue value ties, from a second pass over the tiles")
        if self.hoisted != "key":
            turn = "" if self.select == self.written_select else f", so {self.written_select} became {self.select}"
            lines.append(f"  epilogue hoisted after the selection (monotone, sympy){turn}: {self.hoisted}")
        if self.index_out:
            lines.append(f"  output: the index arg{self.written_select} (int64, -1 when nothing is selected)")
        elif self.outer == "none":
            lines.append(f"  no outer reduction: one value per {self.r!r}")
        else:
            lines.append(f"  outer: {self.outer} over {self.r!r} ({self.a.name} rows in a tile), one store per cell")
        for c in self.conds:
            if c.ragged:
                n = c.axes[0]
                lines.append(f"  {c.axis!r} ragged by {c.name}: packed rows, sequence {n}'s {c.name}[{n}] .. "
                             f"{c.name}[{n} + 1] - 1 (no padding read, tiles end at its length)")
                continue
            what = f"mask {c.name}" if c.kind == "mask" else f"{c.axis} < {c.name or c.literal}"
            lines.append(f"  where {what}: positions of {c.axis!r} left out")
        if self.a.quantized:
            lines.append(f"  no backward: {self.a.quantized} rows serve inference (train on float tensors)")
        elif self.b.computed is not None:
            through = " taken back through their L2 normalisation" if self.b.computed.rows.normalize else ""
            lines.append(f"  backward: {self.a.name} by gather, {self.b.name}'s rows formed again at the saved "
                         f"int32 index; where {', '.join(self.b.rows_floats)} need a gradient, the gather writes "
                         f"{self.b.name}'s rows' gradient{through}, a row a selection where the selections are at most "
                         f"1 / {dispatch.ROWS_DENSE_SHARE} of the rows, else over every row by fp32 atomics, and "
                         f"hsr.row_grads takes it on to them in torch (in the same kept call)")
        elif not self.index_out:
            lines.append(f"  backward: {self.a.name} by gather, {self.b.name} by fp32 atomic scatter (\"atomic\") "
                         f"or destination-owned (\"deterministic\": the index sorted by selected row, or "
                         f"one-hot tiles; only the selected rows where they are few, dispatch.sparse_rows, which "
                         f"\"auto\" takes), from the saved int32 index")
            if any(c.ragged and c.axis == self.c for c in self.conds):
                lines.append(f"  auto backward: atomic ({self.c!r} is ragged: a short sequence's rows collect many "
                             f"contributions, which would set the inverse index's time)")
            elif sizes:
                lines.append(dispatch.backward_words(self, sizes))
        lines.extend(dispatch.forward_kernel(self, signature, sizes, dtype, where))
        lines.append(f"  tuned configs keyed by lowering {lowering_id(self, signature)}")
        return lines


@dataclass(frozen=True)
class Plan:
    """A whole definition: its terms and how they combine."""
    out: str
    axes: tuple[str, ...]
    index_out: bool
    terms: tuple[TermPlan, ...]
    combine: str                 # Python over t0, t1, ... (the terms' outputs)
    signature: tuple
    line: int
    spec_line: str
    packing: tuple = ()          # ((input, ragged axis, outer axis, offsets)) of every packed input

    @property
    def family(self) -> str:
        return "select_reduce"

    @property
    def spec_axes(self) -> tuple[str, ...]:
        """Every axis of the spec, in order of first appearance: the names explain(sizes) takes."""
        return spec_axes(self.signature, self.terms)

    def explain(self, sizes: dict | None = None, dtype: str = "float16", where: str = "cuda9") -> str:
        """The plan in words; with sizes ({axis: n}), a dtype and where it runs
        (dispatch.where), the forward kernel a call of those sizes takes. An axis
        the sizes leave out is taken as EXPLAIN_SIZE (and the text says so); one
        the spec does not have is a TensorError."""
        sizes, unsized = explain_sizes(self.spec_axes, sizes)
        lines = [f"{self.out}[{', '.join(self.axes)}]  (spec line {self.line}: {self.spec_line})",
                 "  family: select_reduce"]
        if unsized:
            lines.append(unsized)
        if len(self.terms) > 1:
            lines.append(f"  {len(self.terms)} normal forms, combined on the host: {self.combine}")
        for n, term in enumerate(self.terms):
            if len(self.terms) > 1:
                lines.append(f"  term t{n}:")
            lines.extend(term.explain(self.signature, sizes, dtype, where))
        return "\n".join(lines)


def lowering_id(term: TermPlan, signature) -> str:
    """What a term's autotuned forward kernel is: the key of its tuned configs
    (hsr.autotune), shared by every spec of the same lowering whatever its names.
    "<outer>_<select>_<pair>[_<int8|fp8>][_<rows|projected>]-<12 hex digits>", the digits a SHA-256
    of the plan with names by role (_by_role), the kinds and defaults of the
    inputs it reads and the forms that change that kernel (stacking, split pass,
    TMA loads).

    The plan is hashed, not the kernel's text, so that a template edit keeps the
    ids and the configs shipped for them. Every plan field but names, lines and
    spec text counts, fields added later included: specs share an id only where
    their kernels are the same up to names. Where two per-row (or per-column)
    terms meet in one expression, sympy orders them by name, so a renamed spec
    may get another id: a tuning more, never another kernel's config."""
    renamed, names = _by_role(term)
    decls = {name: (kind, default) for name, _axes, kind, default in signature}
    forms = dispatch.forms(term, signature)
    axes = _role_axes(term)
    text = repr((renamed, tuple((names[n], *decls.get(n, ("rows", None))) for n in names),
                 axes.get(forms["stacked"]), forms["split"], not forms["tma"]))
    if term.packing:
        text += repr(renamed.packing)
    if term.b.computed is not None:  # the computed operand's form, by node kinds and code widths
        text += repr(rows_form(term.b.computed))
    select = ("arg" if term.index_out else "") + term.select
    words = "_".join(w for w in (term.outer, select, term.pair, term.a.quantized, formed_word(term))
                     if w not in ("none", ""))
    return f"{words}-{hashlib.sha256(text.encode()).hexdigest()[:12]}"


def formed_word(term: TermPlan) -> str:
    """The lowering id's word for an operand formed in the kernel: "projected" (a projection
    on the tensor cores inside the tile), "rows" (gathers, codes, sums), "" (none). The config
    predictor weighs a neighbour of another word as far (hsr.autotune.DISTANCE_WEIGHTS["formed"])."""
    if term.b.computed is None:
        return ""
    return "projected" if any(isinstance(n, ir.Pair) for n in ir.walk(term.b.computed.rows.expr)) else "rows"


def _role_axes(term: TermPlan) -> dict:
    return {term.r: "r", term.c: "c", term.k: "k", **{g: f"g{n}" for n, g in enumerate(term.grid)}}


def rows_form(t: ir.Tensor) -> tuple:
    """A computed operand's definition without names: what its kernel code depends on."""
    def form(node):
        if isinstance(node, ir.Gather):
            return ("gather", node.index.kind, node.table.axes.index(node.axis), len(node.table.axes))
        if isinstance(node, ir.Load):
            return ("load", len(node.tensor.axes))
        if isinstance(node, ir.Const):
            return ("const", node.value)
        if isinstance(node, ir.Pair):  # a projection: rows times a weight
            return ("project", len(node.a.tensor.axes), len(node.b.tensor.axes))
        return (node.fn, *(form(a) for a in node.args))
    return form(t.rows.expr), t.rows.normalize


def _by_role(term: TermPlan) -> tuple[TermPlan, dict]:
    """(the term with no lines or spec text and names by role, {input: role}):
    axes r, c, k, and g0, g1... in grid order; operands A, B; per-row and
    per-column terms S0, S1... as the expression reads them; condition inputs
    M0, M1..., the rows' first (not in declaration order, which only permutes
    the kernel's parameters)."""
    t, axes = term, _role_axes(term)
    conds = tuple(c for c in t.conds if c.axis == t.r) + tuple(c for c in t.conds if c.axis == t.c)
    inputs = dict.fromkeys(c.name for c in conds if c.name)
    names = {t.a.name: "A", t.b.name: "B", **{s.name: f"S{n}" for n, s in enumerate(t.sides)},
             **{name: f"M{n}" for n, name in enumerate(inputs)}}
    tokens = {f"{side}_{s.name}{sel}": f"{side}_{names[s.name]}{sel}"
              for s in t.sides for side, sel in (("row", ""), ("col", ""), ("col", "_sel"))}

    def code(text: str) -> str:
        return re.sub(r"\w+", lambda m: tokens.get(m.group(), m.group()), text)

    def on(xs) -> tuple:
        return tuple(axes[x] for x in xs)

    def operand(o: Operand) -> Operand:
        return replace(o, name=names[o.name], axes=on(o.axes), grid_axes=on(o.grid_axes))

    renamed = replace(
        t, name="", line=0, spec_line="", pair_line=0, hoisted="", out_axes=on(t.out_axes), grid=on(t.grid),
        r="r", c="c", k="k", a=operand(t.a), b=operand(t.b),
        conds=tuple(replace(c, axis=axes[c.axis], name=names.get(c.name), axes=on(c.axes), line=0) for c in conds),
        sides=tuple(replace(s, name=names[s.name], axes=on(s.axes)) for s in t.sides),
        key=code(t.key), h=code(t.h), post=code(t.post), value=code(t.value), key_sel=code(t.key_sel),
        key_linear=t.key_linear and (t.key_linear[0], code(t.key_linear[1])),
        weights=tuple((w, code(x)) for w, x in t.weights),
        row_grads=tuple((names[n], code(x), code(y)) for n, x, y in t.row_grads),
        col_grads=tuple((names[n], code(x)) for n, x in t.col_grads),
        packing=tuple((names.get(n, n), axes.get(x, x), axes.get(o, o), names.get(cu, cu)) for n, x, o, cu in t.packing))
    return renamed, names


def plan(program: ir.Program) -> Plan:
    return _Planner(program).plan()


class _Planner:
    def __init__(self, program: ir.Program):
        self.program = program
        self.terms: list[TermPlan] = []

    def reject(self, part: str, message: str, pos, hint: str | None = None) -> PlanError:
        return PlanError(f"{part}: {message}", source=self.program.source, filename=self.program.filename,
                         line=pos.line, col=pos.col, hint=hint or f"the normal form is {NORMAL_FORM}")

    def plan(self) -> Plan:
        d = self.program.definition
        combine = self.combine(d.expr)
        index_out = any(t.index_out for t in self.terms)
        if index_out and len(self.terms) > 1:
            raise self.reject("OUTER", "an index output cannot be combined with other terms", d.expr.pos)
        return Plan(out=d.name, axes=d.axes, index_out=index_out, terms=tuple(self.terms), combine=combine,
                    signature=tuple((t.name, t.axes, t.kind, t.default) for t in self.program.tensors),
                    packing=self.packing({t.name for t in self.program.tensors}),
                    line=d.pos.line, spec_line=self.program.line(d.pos))

    # -- the combination of terms ----------------------------------------------
    def combine(self, e) -> str:
        if isinstance(e, ir.Reduce):
            n = len(self.terms)
            self.terms.append(self.term(e, f"{self.program.definition.name}" + (f"_t{n}" if n else "")))
            return f"t{n}"
        if isinstance(e, ir.Const):
            if not math.isfinite(e.value):
                raise self.reject("OUTER", f"the number {e.value} is not finite", e.pos,
                                  "write a finite constant (fp32 holds up to about 3.4e38)")
            return repr(float(e.value))
        if isinstance(e, ir.Apply) and e.fn in ("+", "-", "*", "/"):
            left, right = (self.combine(a) for a in e.args)
            if e.fn in ("*", "/") and not (_constant(e.args[1]) or (e.fn == "*" and _constant(e.args[0]))):
                raise self.reject("OUTER", f"terms are combined by + and -, or scaled by numbers; "
                                  f"not multiplied ({e.fn}) by another term", e.pos)
            return f"({left} {e.fn} {right})"
        if isinstance(e, ir.Apply) and e.fn == "neg":
            return f"(-{self.combine(e.args[0])})"
        what = "a function of the outer reduction" if isinstance(e, ir.Apply) else "an expression outside the reductions"
        raise self.reject("OUTER", f"{what} is not supported; the definition is a sum of OUTER_r reductions",
                          e.pos, "write the function in your own code, around the op's output")

    # -- one normal form --------------------------------------------------------
    def term(self, root: ir.Reduce, name: str) -> TermPlan:
        d = self.program.definition
        inner = [n for n in ir.walk(root.body) if isinstance(n, ir.Reduce)]
        if root.op in ("argmax", "argmin") or not inner:
            outer, select, post_expr = None, root, None
        else:
            outer = root
            if outer.op not in ("sum", "mean", "max", "min"):
                raise self.reject("OUTER", f"{outer.op} cannot be an outer reduction", outer.pos)
            if len(inner) != 1:
                raise self.reject("SELECT", "one selection per term; a second reduction sits inside "
                                  f"{outer.op}_{outer.axis}", inner[1].pos)
            select, post_expr = inner[0], outer.body
            if select.op.startswith("arg"):
                raise self.reject("SELECT", "an index cannot be reduced", select.pos)
        if select.op not in ("max", "min", "argmax", "argmin"):
            pos = select.pos
            raise self.reject("SELECT", f"{select.op}_{select.axis} must apply to a max or min selection"
                              if outer is None else f"{select.op}_{select.axis} is not a selection (max, min)", pos)
        pairs = [n for n in ir.walk(select.body) if isinstance(n, ir.Pair)]
        if isinstance(select.body, ir.Reduce) or any(isinstance(n, ir.Reduce) for n in ir.walk(select.body)):
            raise self.reject("SELECT", "a reduction inside a selection is not a normal form", select.body.pos)
        if len(pairs) != 1:
            what = "no pairwise score" if not pairs else "two pairwise scores"
            raise self.reject("pair", f"the selection must apply to one pairwise score; it has {what}",
                              select.pos)
        pair = pairs[0]
        c, k = select.axis, pair.axis
        a_load, b_load = pair.a, pair.b
        if c in a_load.tensor.axes and c not in b_load.tensor.axes:
            a_load, b_load = b_load, a_load
        if c not in b_load.tensor.axes or c in a_load.tensor.axes:
            raise self.reject("pair", f"exactly one of {a_load.tensor.name} and {b_load.tensor.name} must carry "
                              f"the selected axis {c!r}", pair.pos, "one row comes from the selected axis")
        if a_load.tensor.rows is not None:
            raise self.reject("pair", f"the computed operand {a_load.tensor.name} is read on the outer side; "
                              f"computed rows are the selected side's (the axis {c!r} a max or min runs over)",
                              a_load.pos, "swap the roles, or pass the outer side's rows as a stored input")
        out_axes = d.axes
        if outer is not None:
            r = outer.axis
            if r not in a_load.tensor.axes or r in b_load.tensor.axes:
                raise self.reject("pair", f"{a_load.tensor.name} must carry {r!r} and {b_load.tensor.name} must not",
                                  a_load.pos, "one row comes from the outer axis, the other from the selected one")
            grid = out_axes
        else:
            own = [x for x in a_load.tensor.axes if x in out_axes and x not in b_load.tensor.axes]
            if not own:
                raise self.reject("pair", f"{a_load.tensor.name} carries no output axis of its own to tile",
                                  a_load.pos, f"give {a_load.tensor.name} an axis the output keeps, as in W[v, h]")
            r = own[-1]
            grid = tuple(x for x in out_axes if x != r)
        for load, mine in ((a_load, r), (b_load, c)):
            stray = [x for x in load.tensor.axes if x not in out_axes and x not in (mine, k)]
            if stray:
                raise self.reject("pair", f"axis {stray[0]!r} of {load.tensor.name} is neither an output axis, "
                                  f"{mine!r} nor the contraction axis", load.pos)
        for g in out_axes:
            if g not in a_load.tensor.axes and g not in b_load.tensor.axes:
                raise self.reject("G", f"output axis {g!r} is carried by neither {a_load.tensor.name} "
                                  f"nor {b_load.tensor.name}", d.pos)
        conds = tuple(self.condition(x) for x in (outer.conds if outer else ()) + select.conds)
        a, b = self.operand(a_load, grid), self.operand(b_load, grid)
        return self.algebra(name, root, outer, select, pair, post_expr, a, b, r, c, k, grid, conds)

    # -- the epilogues, with sympy ----------------------------------------------
    def algebra(self, name, root, outer, select, pair, post_expr, a, b, r, c, k, grid, conds) -> TermPlan:
        d = self.program.definition
        sides: dict[str, Side] = {}
        dot, l1 = sp.Symbol("dot", real=True), sp.Symbol("l1", nonnegative=True)
        sq = sp.Symbol("sq", nonnegative=True)  # ||a - b||^2: exact differences, or the expansion on shifted rows
        asq, bsq = sp.Symbol("asq", nonnegative=True), sp.Symbol("bsq", nonnegative=True)
        ia, ib = sp.Symbol("ia", positive=True), sp.Symbol("ib", positive=True)
        v = sp.Symbol("v", real=True)
        prim = {"dot": dot, "cos": dot * ia * ib, "sqdist": sq, "dist": S.ClampedSqrt(sq), "l1": l1}[pair.kind]
        aux = ("asq", "bsq") if pair.kind == "cos" else ()

        def side(load: ir.Load, where: str) -> sp.Symbol:
            t = load.tensor
            is_col = c in t.axes
            if is_col and where == "post":
                raise self.reject("post", f"{t.name} varies over the selected axis {c!r}, which the selection "
                                  "has already reduced", load.pos)
            owner = b if is_col else a
            stray = [x for x in t.axes if x not in owner.axes or x == k]
            if stray:
                part = "pre" if where == "pre" else "post"
                raise self.reject(part, f"{t.name} varies over {stray[0]!r}, which {owner.name} does not carry; "
                                  f"a per-{'column' if is_col else 'row'} term's axes are axes of {owner.name}",
                                  load.pos)
            if t.name in (a.name, b.name):
                raise self.reject(where, f"{t.name} is read both as a row of the pair and as a term", load.pos)
            default = float(t.default) if isinstance(t.default, (int, float)) else None
            sides[t.name] = Side(t.name, t.axes, "col" if is_col else "row", default)
            return sp.Symbol(f"{'col' if is_col else 'row'}_{t.name}", real=True)

        def to_sympy(e, where):
            if isinstance(e, ir.Const):
                if not math.isfinite(e.value):
                    raise self.reject(where, f"the number {e.value} is not finite", e.pos,
                                      "write a finite constant (fp32 holds up to about 3.4e38)")
                return sp.Integer(int(e.value)) if float(e.value).is_integer() else sp.Float(e.value)
            if isinstance(e, ir.Load):
                return side(e, where)
            if e is pair:
                return prim
            if e is select:
                return v
            if isinstance(e, ir.Apply):
                args = [to_sympy(x, where) for x in e.args]
                if e.fn == "+":
                    return args[0] + args[1]
                if e.fn == "-":
                    return args[0] - args[1]
                if e.fn == "*":
                    return args[0] * args[1]
                if e.fn == "/":
                    return args[0] / args[1]
                if e.fn == "neg":
                    return -args[0]
                if e.fn == "pow":
                    p = e.param
                    if not math.isfinite(p):
                        raise self.reject(where, f"the exponent {p} is not finite", e.pos,
                                          "write a finite exponent")
                    return args[0] ** (sp.Integer(int(p)) if float(p).is_integer() else sp.Float(p))
                return S.UNARY[e.fn](args[0])
            raise self.reject(where, "unexpected expression here", e.pos)

        pre = to_sympy(select.body, "pre")
        post = to_sympy(post_expr, "post") if post_expr is not None else v
        dependent = {dot, l1, sq, bsq, ib} | {s for s in pre.free_symbols if s.name.startswith("col_")}
        index_out = select.op.startswith("arg")
        # an index output selects on the raw key under a non-strict epilogue too (relu), its
        # ties in the epilogue then resolved by a second pass (`ties`); an L2 pair's selected
        # value comes from its differences after the loop, so there the epilogue stays strict
        key, h, direction = S.hoist(pre, dependent, strict=index_out and pair.kind in ("sqdist", "dist"))
        written = select.op.removeprefix("arg")
        selected = written if direction > 0 else FLIP[written]
        if index_out and outer is not None:
            raise self.reject("SELECT", "an index cannot be reduced", select.pos)

        tile = {"dot": "dot", "l1": "l1", "sq": "sq", "asq": "asq[:, None]", "bsq": "bsq[None, :]",
                "ia": "ia[:, None]", "ib": "ib[None, :]"}
        row_level = {"dot": "x_sel", "l1": "x_sel", "sq": "x_sel", "asq": "asq", "bsq": "bsq_sel", "ia": "ia", "ib": "ib_sel",
                     "v": "v", "key": "best"}
        for s in sides.values():
            tile[f"{s.side}_{s.name}"] = f"{s.side}_{s.name}" + ("[:, None]" if s.side == "row" else "[None, :]")
            row_level[f"{s.side}_{s.name}"] = f"row_{s.name}" if s.side == "row" else f"col_{s.name}_sel"
        key_linear = None
        if pair.kind in ("dot", "cos") and key != dot:
            alpha, beta = sp.diff(key, dot), key.subs(dot, 0)
            if alpha.is_Number and alpha != 0 and sp.expand(key - alpha * dot - beta) == 0:
                key_linear = (repr(float(alpha)), S.triton_code(beta, tile))
        try:
            key_code = S.triton_code(key, tile)
            h_code = S.triton_code(h, row_level)
            post_code = S.triton_code(post, {**row_level, "v": "value"})
            value_code = S.triton_code(pre, row_level)
            key_sel = S.triton_code(key, {**row_level, "dot": "x_best", "l1": "x_best", "sq": "x_best"})
            dpost_dv = sp.diff(post, v)
            ties = None
            if pair.kind not in ("sqdist", "dist") and S.flat_somewhere(h, key):  # where h is flat: the lowest index of its value
                ties = (f"({S.triton_code(sp.diff(h, S.KEY), row_level)}) == 0",
                        S.triton_code(h, {**tile, "key": "key"}))
            grads_needed = [] if index_out else self.derivatives(pre, post, v, sides)
        except NotImplementedError as err:  # a function sympy turned into something we do not print
            raise self.reject("pre", f"cannot lower this epilogue ({err})", select.body.pos)
        weights = tuple((sym, S.triton_code(expr, row_level)) for sym, expr in grads_needed[0]) if grads_needed else ()
        row_grads = tuple((nm, S.triton_code(direct, row_level), S.triton_code(through, row_level))
                          for nm, direct, through in grads_needed[1]) if grads_needed else ()
        col_grads = tuple((nm, S.triton_code(expr, row_level)) for nm, expr in grads_needed[2]) if grads_needed else ()
        used = set()
        if grads_needed:
            for _, e in grads_needed[0] + [(None, x) for _, x in grads_needed[2]]:
                used |= e.free_symbols
            for _, x, y in grads_needed[1]:
                used |= x.free_symbols | y.free_symbols
        uses_value = v in used
        need_x = bool({dot, l1, sq} & (used | (pre.free_symbols if uses_value else set())))
        uniform = (pair.kind == "dot" and outer is not None and outer.op in ("sum", "mean")
                   and sp.diff(pre, dot) == 1 and dpost_dv.is_Number and not need_x
                   and all(s.side != "col" for s in sides.values()))
        return TermPlan(
            name=name, out_axes=d.axes, grid=grid, outer=outer.op if outer else "none", select=selected,
            written_select=written, index_out=index_out, pair=pair.kind, r=r, c=c, k=k, a=a, b=b, conds=conds,
            sides=tuple(sides.values()), aux=aux, key=key_code, key_is_prim=key in (dot, l1, sq),
            key_is_cos=pair.kind == "cos" and sp.expand(key - dot * ib) == 0, key_linear=key_linear, h=h_code,
            hoisted=str(h), post=post_code, value=value_code, key_sel=key_sel, weights=weights, row_grads=row_grads,
            col_grads=col_grads, ties=ties, need_x=need_x, uses_value=uses_value, uniform=bool(uniform),
            weighted=pair.kind == "dot" and not uniform and {w for w, _ in weights} == {"dot"},
            line=root.pos.line, spec_line=self.program.line(root.pos), pair_line=pair.pos.line,
            packing=self.packing({a.name, b.name, *sides, *(x.name for x in conds if x.name),
                                  *(x.name for x in b.rows_inputs)}))

    def packing(self, read: set) -> tuple:
        return tuple((t.name, *t.ragged) for t in self.program.tensors + self.program.rows
                     if t.ragged and t.name in read)

    @staticmethod
    def derivatives(pre, post, v, sides):
        """(weights, row grads, col grads) per unit gradient of a row's value:
        weights: d out / d primitive (dot, l1, sq, asq, bsq, ia, ib) through the
        selection; row grads: (name, direct d post / d term, d pre / d term
        through the selection); col grads: (name, d out / d term)."""
        dv = sp.diff(post, v)
        weights = []
        for sym in sorted(pre.free_symbols, key=lambda s: s.name):
            if sym.name in ("dot", "l1", "sq", "asq", "bsq", "ia", "ib"):
                w = dv * sp.diff(pre, sym)
                if w != 0:
                    weights.append((sym.name, w))
        rows, cols = [], []
        for s in sides.values():
            sym = sp.Symbol(f"{s.side}_{s.name}", real=True)
            if s.side == "row":
                rows.append((s.name, sp.diff(post, sym), dv * sp.diff(pre, sym)))
            else:
                cols.append((s.name, dv * sp.diff(pre, sym)))
        return weights, rows, cols

    @staticmethod
    def operand(load: ir.Load, grid) -> Operand:
        t = load.tensor
        return Operand(t.name, t.axes, tuple(x for x in t.axes if x in grid),
                       t.kind if t.kind in ir.QUANTIZED else "", computed=t if t.rows is not None else None)

    def condition(self, cond: ir.Cond) -> Condition:
        if isinstance(cond, ir.Mask):
            t = cond.tensor
            return Condition("mask", cond.axis, t.name, t.axes, None, cond.pos.line)
        if isinstance(cond.limit, int):
            return Condition("bound", cond.axis, None, (), cond.limit, cond.pos.line)
        t = cond.limit
        return Condition("bound", cond.axis, t.name, t.axes, None, cond.pos.line, ragged=t.kind == ir.OFFSETS)


def _constant(e) -> bool:
    return all(not isinstance(n, (ir.Load, ir.Pair, ir.Reduce)) for n in ir.walk(e))

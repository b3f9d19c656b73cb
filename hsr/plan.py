"""Stage 3, plan: recognise the hard-selection normal form and choose a kernel.

    out[G] = OUTER_r SELECT_c pair(A[.., r, :], B[.., c, :])   where conds

This version accepts OUTER in {sum, mean}, SELECT in {max, min} and the pair
scores <A, B> and cos(A, B). A is the row operand (it carries r), B the
selection operand (it carries c); every output axis is a grid axis and must
be carried by A or B. Anything else is rejected with an error that names the
part of the normal form it breaks.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import ir
from .errors import PlanError

NORMAL_FORM = "out[G] = OUTER_r SELECT_c pair(A_r, B_c)  (OUTER: sum, mean; SELECT: max, min; pair: <A, B>, cos(A, B))"


@dataclass(frozen=True)
class Operand:
    name: str
    axes: tuple[str, ...]        # declared axes, in order
    grid_axes: tuple[str, ...]   # the output axes it carries, in declared order


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


@dataclass(frozen=True)
class KernelPlan:
    out: str
    grid: tuple[str, ...]
    outer: str
    select: str
    pair: str
    r: str
    c: str
    k: str
    a: Operand
    b: Operand
    conds: tuple[Condition, ...]
    signature: tuple
    line: int
    spec_line: str
    pair_line: int

    @property
    def family(self) -> str:
        return "select_reduce"

    def conds_on(self, axis: str) -> tuple[Condition, ...]:
        return tuple(c for c in self.conds if c.axis == axis)

    def explain(self) -> str:
        pair = {"dot": f"<{self.a.name}, {self.b.name}>", "cos": f"cos({self.a.name}, {self.b.name})"}[self.pair]
        grid = ", ".join(self.grid) or "(scalar)"
        lines = [
            f"{self.out}[{', '.join(self.grid)}]  (spec line {self.line}: {self.spec_line})",
            f"  family: select_reduce, one program per output cell ({grid})",
            f"  pair: {pair} over axis {self.k!r}, on the tensor cores (tl.dot, fp32 accumulation)",
            f"  select: {self.select} over {self.c!r} ({self.b.name} rows streamed in tiles, running "
            f"{self.select} and arg{self.select} in registers, lowest index wins ties)",
            f"  outer: {self.outer} over {self.r!r} ({self.a.name} rows held in a tile), one store per cell",
        ]
        for c in self.conds:
            what = f"mask {c.name}" if c.kind == "mask" else f"{c.axis} < {c.name or c.literal}"
            lines.append(f"  where {what}: positions of {c.axis!r} left out of the {self.outer if c.axis == self.r else self.select}")
        lines.append(f"  backward: {self.a.name} by gather (one program per row block), "
                     f"{self.b.name} by fp32 atomic scatter, fused in one pass; from the saved "
                     f"int32 arg{self.select} [{', '.join(self.grid + (self.r,))}]")
        return "\n".join(lines)


def plan(program: ir.Program) -> KernelPlan:
    return _Planner(program).plan()


class _Planner:
    def __init__(self, program: ir.Program):
        self.program = program

    def reject(self, part: str, message: str, pos, hint: str | None = None) -> PlanError:
        return PlanError(f"{part}: {message}", source=self.program.source, filename=self.program.filename,
                         line=pos.line, col=pos.col, hint=hint or f"the normal form is {NORMAL_FORM}")

    def plan(self) -> KernelPlan:
        d = self.program.definition
        outer = d.expr
        if not isinstance(outer, ir.Reduce):
            what = ("a sum of normal forms" if isinstance(outer, ir.Apply) and outer.fn in ("+", "-")
                    else "an expression around the outer reduction")
            raise self.reject("OUTER", f"{what} is not supported yet; the definition must be one "
                              "OUTER_r reduction", outer.pos)
        if outer.op not in ("sum", "mean"):
            what = "a selection with no outer reduction" if outer.op.startswith("arg") or isinstance(
                outer.body, (ir.Pair, ir.Apply)) else f"an outer {outer.op}"
            raise self.reject("OUTER", f"{what} is not supported yet; OUTER must be sum or mean", outer.pos)
        select = outer.body
        if isinstance(select, ir.Apply):
            raise self.reject("post", "an epilogue between the outer reduction and the selection is not "
                              "supported yet", select.pos)
        if not isinstance(select, ir.Reduce) or select.op not in ("max", "min"):
            pos = getattr(select, "pos", outer.pos)
            raise self.reject("SELECT", f"{outer.op}_{outer.axis} must apply to a max or min selection", pos)
        pair = select.body
        if isinstance(pair, ir.Apply):
            raise self.reject("pre", "a function of the pairwise score is not supported yet", pair.pos)
        if not isinstance(pair, ir.Pair):
            raise self.reject("pair", "the selection must apply to a pairwise score", select.pos)
        if pair.kind not in ("dot", "cos"):
            raise self.reject("pair", f"the pairwise score {pair.kind} is not supported yet; "
                              "use <A, B> or cos(A, B)", pair.pos)
        r, c, k = outer.axis, select.axis, pair.axis
        a_load, b_load = pair.a, pair.b
        if c in a_load.axes and r in b_load.axes:
            a_load, b_load = b_load, a_load
        for load, mine, other in ((a_load, r, c), (b_load, c, r)):
            axes = load.tensor.axes
            if mine not in axes or other in axes:
                raise self.reject("pair", f"{load.tensor.name} must carry exactly one of {r!r} and {c!r}",
                                  load.pos, "one row comes from the outer axis, the other from the selected one")
        grid = d.axes
        for load, own in ((a_load, r), (b_load, c)):
            stray = [x for x in load.tensor.axes if x not in grid and x not in (own, k)]
            if stray:
                raise self.reject("pair", f"axis {stray[0]!r} of {load.tensor.name} is neither an output axis, "
                                  f"{own!r} nor the contraction axis", load.pos)
        for g in grid:
            if g not in a_load.tensor.axes and g not in b_load.tensor.axes:
                raise self.reject("G", f"output axis {g!r} is carried by neither {a_load.tensor.name} "
                                  f"nor {b_load.tensor.name}", d.pos)
        conds = tuple(self.condition(x) for x in outer.conds + select.conds)
        return KernelPlan(
            out=d.name, grid=grid, outer=outer.op, select=select.op, pair=pair.kind, r=r, c=c, k=k,
            a=self.operand(a_load, grid), b=self.operand(b_load, grid), conds=conds,
            signature=tuple((t.name, t.axes, t.kind, t.default) for t in self.program.tensors),
            line=d.pos.line, spec_line=self.program.line(d.pos), pair_line=pair.pos.line)

    @staticmethod
    def operand(load: ir.Load, grid) -> Operand:
        t = load.tensor
        return Operand(t.name, t.axes, tuple(a for a in t.axes if a in grid))

    def condition(self, cond: ir.Cond) -> Condition:
        if isinstance(cond, ir.Mask):
            t = cond.tensor
            return Condition("mask", cond.axis, t.name, t.axes, None, cond.pos.line)
        if isinstance(cond.limit, int):
            return Condition("bound", cond.axis, None, (), cond.limit, cond.pos.line)
        t = cond.limit
        return Condition("bound", cond.axis, t.name, t.axes, None, cond.pos.line)

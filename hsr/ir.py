"""The typed IR: what a checked spec means.

Every expression node knows its free axes (the axes its value varies over) and
its position in the spec, so later stages can both reason about it and point
back at the line it came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from .errors import source_lines
from .syntax import Pos

FLOAT, BOOL, INT, INT8, FP8, OFFSETS = "float", "bool", "int", "int8", "fp8", "offsets"
QUANTIZED = (INT8, FP8)  # rows for the low-precision tensor cores; dots only
# n-bit codes, packed LSB-first along the last axis: code f of a row sits in byte
# f // (8 // n), at bit (f % (8 // n)) * n (a uint8 tensor of ceil(size * n / 8) bytes)
CODE_BITS = {"uint1": 1, "uint2": 2, "uint4": 4, "uint8": 8}

REDUCE_OPS = ("sum", "mean", "max", "min", "argmax", "argmin")
SELECT_OPS = ("max", "min", "argmax", "argmin")
PAIR_KINDS = ("dot", "cos", "sqdist", "dist", "l1")
UNARY_FNS = ("relu", "log1p", "exp", "log", "sqrt", "abs", "sigmoid", "tanh", "softplus")


@dataclass(frozen=True)
class Tensor:
    """A declared input. ``default`` is None (required), 'all' (bool mask),
    'full' (int length: the whole axis) or a number (float). ``ragged`` is
    (axis, outer axis, offsets name) where one axis is ragged (``s by cu``): the
    tensor is passed packed, without the outer axis, and sequence n of the outer
    axis is its rows cu[n] .. cu[n + 1] - 1."""
    name: str
    axes: tuple[str, ...]
    kind: str
    default: Union[str, float, None]
    pos: Pos
    ragged: tuple | None = None
    rows: "Rows | None" = None  # a computed operand: its definition (never an input)

    @property
    def optional(self) -> bool:
        return self.default is not None


@dataclass(frozen=True)
class Const:
    value: float
    pos: Pos
    axes: frozenset = frozenset()


@dataclass(frozen=True)
class Load:
    """A float tensor read at the current axes; ``contracted`` is the axis left
    over for the enclosing pairwise score (None outside one)."""
    tensor: Tensor
    contracted: str | None
    pos: Pos

    @property
    def axes(self) -> frozenset:
        return frozenset(a for a in self.tensor.axes if a != self.contracted)


@dataclass(frozen=True)
class Gather:
    """``table[..., index[...], ...]``: the table read along ``axis`` at the value
    of an int or code input (a PLAID centroid ``C[codes[j, t], d]``, a bucket
    weight ``w[res[j, t, d]]``), inside a computed operand's definition."""
    table: Tensor
    axis: str
    index: Tensor
    pos: Pos

    @property
    def axes(self) -> frozenset:
        return frozenset(a for a in self.table.axes if a != self.axis) | frozenset(self.index.axes)


@dataclass(frozen=True)
class Rows:
    """A computed operand's definition: ``expr`` over its axes (gathers, loads,
    numbers and + - * /), L2-normalised over the last axis where ``normalize``.
    The kernels form its rows a tile at a time, on chip."""
    expr: "Expr"
    normalize: bool
    line: int
    text: str
    for_cosine: bool = False  # normalised by the check, not as written: only cosines read it


@dataclass(frozen=True)
class Pair:
    """A pairwise score of two rows over the contraction axis."""
    kind: str
    a: Load
    b: Load
    axis: str
    pos: Pos

    @property
    def axes(self) -> frozenset:
        return self.a.axes | self.b.axes


@dataclass(frozen=True)
class Apply:
    """Elementwise: fn is one of + - * / neg pow or a name in UNARY_FNS;
    ``param`` holds pow's exponent."""
    fn: str
    args: tuple
    pos: Pos
    param: float | None = None

    @property
    def axes(self) -> frozenset:
        out = frozenset()
        for a in self.args:
            out |= a.axes
        return out


@dataclass(frozen=True)
class Mask:
    """A bool tensor; False positions leave every reduction over ``axis``."""
    tensor: Tensor
    axis: str
    pos: Pos


@dataclass(frozen=True)
class Bound:
    """``axis < limit``: limit is an int tensor (indexed by output axes) or an int;
    an offsets tensor cu bounds a ragged axis by its sequence's length cu[n + 1] - cu[n]."""
    axis: str
    limit: Union[Tensor, int]
    pos: Pos


Cond = Union[Mask, Bound]


@dataclass(frozen=True)
class Reduce:
    op: str
    axis: str
    body: "Expr"
    conds: tuple = ()
    pos: Pos = Pos(1, 1)

    @property
    def axes(self) -> frozenset:
        return self.body.axes - {self.axis}


Expr = Union[Const, Load, Gather, Pair, Apply, Reduce]


@dataclass(frozen=True)
class Definition:
    name: str
    axes: tuple[str, ...]
    expr: Expr
    conds: tuple
    pos: Pos

    @property
    def kind(self) -> str:
        return INT if isinstance(self.expr, Reduce) and self.expr.op.startswith("arg") else FLOAT


@dataclass(frozen=True)
class Program:
    """A checked spec: its inputs in declaration order, its computed operands
    (``rows``, each a Tensor with its definition) and its one output definition."""
    tensors: tuple[Tensor, ...]
    definition: Definition
    source: str
    filename: str
    axis_order: tuple[str, ...] = field(default=())
    rows: tuple[Tensor, ...] = ()

    def tensor(self, name: str) -> Tensor:
        return next(t for t in self.tensors + self.rows if t.name == name)

    def line(self, pos: Pos) -> str:
        lines = source_lines(self.source)
        return lines[pos.line - 1].strip() if 0 < pos.line <= len(lines) else ""


def walk(expr: Expr):
    """Yield every node of an expression, parents first."""
    yield expr
    if isinstance(expr, Gather):
        return
    if isinstance(expr, Pair):
        yield from walk(expr.a)
        yield from walk(expr.b)
    elif isinstance(expr, Apply):
        for arg in expr.args:
            yield from walk(arg)
    elif isinstance(expr, Reduce):
        yield from walk(expr.body)

"""The abstract syntax tree of a spec: what was written, with positions.

Nothing here knows about types or axes; ``check`` turns it into the typed IR.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union


@dataclass(frozen=True)
class Pos:
    line: int
    col: int


@dataclass(frozen=True)
class Num:
    value: float
    pos: Pos


@dataclass(frozen=True)
class Ref:
    """A tensor reference: ``Q_s`` (short form, ``suffix`` set), ``w`` (bare) or
    ``Q[i, s, :]`` (explicit, ``index`` set; ':' marks the contraction axis).
    An index entry may itself be a Ref: ``C[codes[j, t], d]`` reads table C at
    the value of codes (a gather, in a computed operand's definition)."""
    name: str
    pos: Pos
    index: tuple | None = None


@dataclass(frozen=True)
class Call:
    fn: str
    args: tuple["Expr", ...]
    pos: Pos


@dataclass(frozen=True)
class Dot:
    a: "Expr"
    b: "Expr"
    pos: Pos


@dataclass(frozen=True)
class Norm:
    """``||x||`` (kind "2") or ``||x||_1`` (kind "1"); ``||x||^2`` is a Pow of it."""
    inner: "Expr"
    kind: str
    pos: Pos


@dataclass(frozen=True)
class Pow:
    base: "Expr"
    exponent: float
    pos: Pos


@dataclass(frozen=True)
class Binary:
    op: str  # one of + - * /
    left: "Expr"
    right: "Expr"
    pos: Pos


@dataclass(frozen=True)
class Neg:
    operand: "Expr"
    pos: Pos


@dataclass(frozen=True)
class Reduce:
    op: str  # sum mean max min argmax argmin
    axis: str
    body: "Expr"
    pos: Pos


Expr = Union[Num, Ref, Call, Dot, Norm, Pow, Binary, Neg, Reduce]


@dataclass(frozen=True)
class MaskCond:
    name: str
    axes: tuple[str, ...] | None
    pos: Pos


@dataclass(frozen=True)
class BoundCond:
    """``axis < bound``: bound is an int literal or a (possibly indexed) name."""
    axis: str
    bound: Union[int, str]
    bound_axes: tuple[str, ...] | None
    pos: Pos


Cond = Union[MaskCond, BoundCond]


@dataclass(frozen=True)
class Declaration:
    name: str
    axes: tuple[str, ...]
    type: str  # float bool int int8 fp8 offsets uint1 uint2 uint4 uint8
    default: Union[str, float, None]
    pos: Pos
    ragged: tuple = ()  # ((axis, offsets name, Pos of the offsets name), ...): `s by cu_q`


@dataclass(frozen=True)
class Definition:
    name: str
    axes: tuple[str, ...]
    expr: Expr
    conds: tuple[Cond, ...]
    pos: Pos


@dataclass(frozen=True)
class Spec:
    declarations: tuple[Declaration, ...]
    definitions: tuple[Definition, ...]
    source: str
    filename: str

"""Stage 1, parse: spec text to the AST of ``hsr.syntax``, positions kept."""

from __future__ import annotations

import functools
from importlib import resources

import lark

from . import syntax as S
from .errors import SpecError, source_lines

_REDUCE_OPS = ("argmax", "argmin", "mean", "sum", "max", "min")

_TOKEN_WORDS = {
    "NAME": "a name", "INT": "an integer", "DECIMAL": "a number", "REDUCE": "a reduction",
    "LSQB": "'['", "RSQB": "']'", "LPAR": "'('", "RPAR": "')'", "COMMA": "','",
    "COLON": "':'", "EQUAL": "'='", "PLUS": "'+'", "MINUS": "'-'", "STAR": "'*'",
    "SLASH": "'/'", "LESSTHAN": "'<'", "MORETHAN": "'>'", "_NL": "end of line",
    "TYPE": "a type (float, bool, int, int8, fp8, offsets, uint1, uint2, uint4, uint8)", "BY": "'by'", "WHERE": "'where'", "CIRCUMFLEX": "'^'",
    "__ANON_0": "'||'", "NORM1": "'_1'", "$END": "end of input",
}


@functools.lru_cache(maxsize=1)
def _parser() -> lark.Lark:
    grammar = resources.files("hsr").joinpath("grammar.lark").read_text()
    return lark.Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=False)


def parse(source: str, filename: str = "<spec>") -> S.Spec:
    """Parse spec text; raise SpecError with a position on any syntax error."""
    try:
        tree = _parser().parse(source if source.endswith("\n") else source + "\n")
    except lark.exceptions.UnexpectedInput as err:
        raise _syntax_error(err, source, filename) from None
    builder = _Builder(source, filename)
    decls, defs = [], []
    for node in tree.children:
        item = builder.statement(node)
        (decls if isinstance(item, S.Declaration) else defs).append(item)
    return S.Spec(tuple(decls), tuple(defs), source, filename)


def _syntax_error(err: lark.exceptions.UnexpectedInput, source: str, filename: str) -> SpecError:
    line, col = max(getattr(err, "line", 1) or 1, 1), max(getattr(err, "column", 1) or 1, 1)
    if isinstance(err, lark.exceptions.UnexpectedToken):
        tok = err.token
        if tok.type == "$END":
            lines = source_lines(source.rstrip("\n"))
            line, col = len(lines), len(lines[-1]) + 1
            what = "the spec ends too early"
        elif tok.type == "_NL":
            what = "the line ends too early"
        else:
            what = f"unexpected {str(tok)!r}"
        expected = sorted({_TOKEN_WORDS.get(e, e) for e in err.expected})
        hint = "expected " + ", ".join(expected[:8]) if expected else None
        return SpecError(what, source=source, filename=filename, line=line, col=col, hint=hint)
    if isinstance(err, lark.exceptions.UnexpectedCharacters):
        char = source_lines(source)[line - 1][col - 1:col]
        return SpecError(f"unexpected character {char!r}", source=source, filename=filename,
                         line=line, col=col, hint="names are letters, digits and '_'; "
                         "operators are + - * / ^ < > || and reductions are written op_axis")
    return SpecError("cannot parse the spec", source=source, filename=filename, line=line, col=col)


class _Builder:
    """Turns lark trees into AST nodes; checks what the grammar cannot say."""

    def __init__(self, source: str, filename: str):
        self.source, self.filename = source, filename

    def error(self, message: str, pos: S.Pos, hint: str | None = None) -> SpecError:
        return SpecError(message, source=self.source, filename=self.filename,
                         line=pos.line, col=pos.col, hint=hint)

    @staticmethod
    def pos(item) -> S.Pos:
        meta = getattr(item, "meta", None)
        if meta is not None and not getattr(meta, "empty", True):
            return S.Pos(meta.line, meta.column)
        return S.Pos(getattr(item, "line", 1) or 1, getattr(item, "column", 1) or 1)

    def statement(self, node: lark.Tree):
        if node.data == "declaration":
            name, axes, type_tok, *rest = node.children
            default = None
            if rest:
                value = rest[0].children[0]
                default = self.number(value) if isinstance(value, lark.Tree) else str(value)
                if rest[0].data == "negative":
                    default = -default
            names, ragged = [], []
            for item in axes.children:  # decl_axis: NAME, or NAME "by" NAME (a ragged axis)
                names.append(str(item.children[0]))
                if len(item.children) == 3:
                    cu = item.children[2]
                    ragged.append((names[-1], str(cu), self.pos(cu)))
            return S.Declaration(str(name), tuple(names), str(type_tok), default, self.pos(name), tuple(ragged))
        name, axes, expr, *rest = node.children
        conds = tuple(self.cond(c) for c in rest if isinstance(c, lark.Tree))
        for item in axes.children:
            if len(item.children) == 3:
                raise self.error("an output's axes are not ragged", self.pos(item.children[1]),
                                 "'by' packs an input's axis, in its declaration")
        out_axes = tuple(str(item.children[0]) for item in axes.children)
        return S.Definition(str(name), out_axes, self.expr(expr), conds, self.pos(name))

    def index(self, node: lark.Tree) -> tuple:
        """An index list's entries: axis names, ':' or a gather's nested reference."""
        out = []
        for item in node.children:
            if item.data == "gather":
                name, inner = item.children
                out.append(S.Ref(str(name), self.pos(name), self.index(inner)))
            else:
                out.append(str(item.children[0]))
        return tuple(out)

    def axis_list(self, node: lark.Tree) -> tuple[str, ...]:
        return tuple(str(t) for t in node.children)

    def number(self, node: lark.Tree) -> float:
        return float(str(node.children[0]))

    def cond(self, node: lark.Tree) -> S.Cond:
        if node.data == "mask_cond":
            name, *axes = node.children
            return S.MaskCond(str(name), self.axis_list(axes[0]) if axes else None, self.pos(name))
        axis, bound = node.children
        first, *axes = bound.children
        if first.type == "INT":
            return S.BoundCond(str(axis), int(str(first)), None, self.pos(axis))
        return S.BoundCond(str(axis), str(first), self.axis_list(axes[0]) if axes else None, self.pos(axis))

    def expr(self, node) -> S.Expr:
        if isinstance(node, lark.Token):  # a bare name never reaches here; kept for safety
            return S.Ref(str(node), self.pos(node))
        kind, kids, pos = node.data, node.children, self.pos(node)
        if kind == "number":
            return S.Num(self.number(node), pos)
        if kind == "short_ref":
            return S.Ref(str(kids[0]), self.pos(kids[0]))
        if kind == "explicit_ref":
            return S.Ref(str(kids[0]), self.pos(kids[0]), self.index(kids[1]))
        if kind == "call":
            return S.Call(str(kids[0]), tuple(self.expr(k) for k in kids[1:]), self.pos(kids[0]))
        if kind == "dot":
            return S.Dot(self.expr(kids[0]), self.expr(kids[1]), pos)
        if kind == "norm":
            norm_kind = "1" if len(kids) > 1 else "2"
            return S.Norm(self.expr(kids[0]), norm_kind, pos)
        if kind == "pow":
            return S.Pow(self.expr(kids[0]), self.number(kids[1]), pos)
        if kind in ("add", "sub", "mul", "div"):
            op = {"add": "+", "sub": "-", "mul": "*", "div": "/"}[kind]
            return S.Binary(op, self.expr(kids[0]), self.expr(kids[1]), pos)
        if kind == "neg":
            return S.Neg(self.expr(kids[0]), pos)
        if kind == "reduction":
            token = kids[0]
            op, _, axis = str(token).partition("_")
            return S.Reduce(op, axis, self.expr(kids[1]), self.pos(token))
        raise self.error(f"unsupported construct {kind!r}", pos)  # grammar and builder disagree

"""Stage 1, parse: spec text to the AST of ``hsr.syntax``, with positions.

Valid specs give the expected trees (declarations, defaults, comments, line
continuations, references, pairwise scores, precedence, where-conditions);
syntax errors are ``SpecError``s that point at the spot; and no mutation of a
bundled spec makes the front end raise anything but a ``SpecError``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hsr import syntax as S
from hsr.check import check
from hsr.errors import SpecError
from hsr.parse import parse

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = sorted((ROOT / "ops").glob("maxsim*.hsr"))
BUNDLED_TEXT = [p.read_text() for p in BUNDLED]

HEAD = "Q[i, s, d]: float\nD[j, t, d]: float\n"


def definition(source: str) -> S.Definition:
    spec = parse(source, "t.hsr")
    assert len(spec.definitions) == 1
    return spec.definitions[0]


def expr_of(body: str, head: str = HEAD) -> S.Expr:
    return definition(head + f"out[i, j] = {body}\n").expr


def strip_pos(node):
    """The tree without positions, as nested tuples, for structural comparison."""
    if isinstance(node, S.Num):
        return ("num", node.value)
    if isinstance(node, S.Ref):
        return ("ref", node.name, node.index)
    if isinstance(node, S.Call):
        return ("call", node.fn, *map(strip_pos, node.args))
    if isinstance(node, S.Dot):
        return ("dot", strip_pos(node.a), strip_pos(node.b))
    if isinstance(node, S.Norm):
        return ("norm", node.kind, strip_pos(node.inner))
    if isinstance(node, S.Pow):
        return ("pow", strip_pos(node.base), node.exponent)
    if isinstance(node, S.Binary):
        return (node.op, strip_pos(node.left), strip_pos(node.right))
    if isinstance(node, S.Neg):
        return ("neg", strip_pos(node.operand))
    if isinstance(node, S.Reduce):
        return (f"{node.op}_{node.axis}", strip_pos(node.body))
    raise AssertionError(f"unexpected node {node!r}")


def ref(name, index=None):
    return ("ref", name, index)


QS_DT = ("dot", ref("Q_s"), ref("D_t"))


def assert_error_format(err: SpecError, source: str, filename: str, *, hint: bool = True) -> None:
    """file:line:col: message / the source line / a caret under col / hint: ..."""
    assert err.line >= 1 and err.col >= 1
    text = str(err)
    assert text.startswith(f"{filename}:{err.line}:{err.col}: "), text
    rows = text.split("\n")
    lines = source.split("\n")
    assert err.line <= len(lines), text
    assert err.source_line == lines[err.line - 1]
    assert rows[1] == "    " + err.source_line, text
    assert rows[2] == "    " + " " * (err.col - 1) + "^", text
    assert err.col <= len(err.source_line) + 1, text
    if hint:
        assert len(rows) >= 4 and rows[3].startswith("hint: ") and len(rows[3]) > len("hint: "), text


# -- valid specs ----------------------------------------------------------------

@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.name)
def test_bundled_specs_parse(path):
    spec = parse(path.read_text(), path.name)
    assert spec.filename == path.name
    defined = [d.name for d in spec.definitions]  # a computed operand's definition (D), then the output's
    assert [d.name for d in spec.declarations if d.type != "offsets"][:1] == ["Q"]
    assert "D" in [d.name for d in spec.declarations] or defined[:-1] == ["D"]
    assert defined[-1] == "score" and len(defined) <= 2
    assert spec.source == path.read_text()


def test_maxsim_tree():
    source = (ROOT / "ops" / "maxsim.hsr").read_text()
    spec = parse(source, "maxsim.hsr")
    decls = {d.name: d for d in spec.declarations}
    assert decls["Q"] == S.Declaration("Q", ("i", "s", "d"), "float", None, S.Pos(3, 1))
    assert decls["D"] == S.Declaration("D", ("j", "t", "d"), "float", None, S.Pos(4, 1))
    assert decls["qmask"] == S.Declaration("qmask", ("i", "s"), "bool", "all", S.Pos(5, 1))
    assert decls["dmask"] == S.Declaration("dmask", ("j", "t"), "bool", "all", S.Pos(6, 1))
    (d,) = spec.definitions
    assert (d.name, d.axes, d.pos) == ("score", ("i", "j"), S.Pos(8, 1))
    assert strip_pos(d.expr) == ("sum_s", ("max_t", QS_DT))
    assert d.conds == (S.MaskCond("qmask", None, S.Pos(8, 45)), S.MaskCond("dmask", None, S.Pos(8, 52)))
    # positions point at the tokens
    line = source.splitlines()[7]
    assert d.expr.pos == S.Pos(8, line.index("sum_s") + 1)
    assert d.expr.body.pos == S.Pos(8, line.index("max_t") + 1)
    assert d.expr.body.body.pos == S.Pos(8, line.index("<") + 1)
    assert d.expr.body.body.a.pos == S.Pos(8, line.index("Q_s") + 1)
    assert d.expr.body.body.b.pos == S.Pos(8, line.index("D_t") + 1)


@pytest.mark.parametrize("text, type_, default", [
    ("m[i, s]: bool = all", "bool", "all"),
    ("n[i]: int = full", "int", "full"),
    ("w[s]: float = 1.5", "float", 1.5),
    ("w[s]: float = -1.5", "float", -1.5),
    ("w[s]: float = 2", "float", 2.0),
    ("w[s]: float = 1e-3", "float", 1e-3),
    ("w[s]: float = 0.", "float", 0.0),
    ("w[s]: float", "float", None),
    ("n[]: int", "int", None),
])
def test_declaration_defaults(text, type_, default):
    spec = parse(text + "\n", "t.hsr")
    (decl,) = spec.declarations
    assert decl.type == type_
    assert decl.default == default
    assert isinstance(decl.default, type(default))


def test_comments_blank_lines_and_indentation():
    source = (
        "# a leading comment\n"
        "\n"
        "   # an indented comment\n"
        "Q[i, s, d]: float   # trailing comment\n"
        "\n\n"
        "D[j, t, d]: float\n"
        "  score[i, j] = sum_s max_t <Q_s, D_t>  # here\n"
        "# trailing\n"
    )
    spec = parse(source, "t.hsr")
    assert [d.name for d in spec.declarations] == ["Q", "D"]
    (d,) = spec.definitions
    assert d.pos == S.Pos(8, 3)
    assert strip_pos(d.expr) == ("sum_s", ("max_t", QS_DT))


def test_no_trailing_newline_and_crlf():
    a = parse(HEAD + "out[i, j] = sum_s max_t <Q_s, D_t>", "t.hsr")
    b = parse((HEAD + "out[i, j] = sum_s max_t <Q_s, D_t>\n").replace("\n", "\r\n"), "t.hsr")
    assert strip_pos(a.definitions[0].expr) == strip_pos(b.definitions[0].expr) == ("sum_s", ("max_t", QS_DT))
    assert b.definitions[0].pos == S.Pos(3, 1)


def test_line_continuation():
    source = HEAD + "qmask[i, s]: bool = all\nout[i, j] = sum_s \\\n    max_t <Q_s, D_t> \\\n  where qmask\n"
    spec = parse(source, "t.hsr")
    (d,) = spec.definitions
    assert d.pos == S.Pos(4, 1)
    assert strip_pos(d.expr) == ("sum_s", ("max_t", QS_DT))
    assert d.expr.body.pos == S.Pos(5, 5)   # positions count the physical lines
    assert d.conds == (S.MaskCond("qmask", None, S.Pos(6, 9)),)


def test_empty_spec_parses_to_nothing():
    for source in ("", "\n\n", "# only a comment\n", "  \n# c\n\n"):
        spec = parse(source, "t.hsr")
        assert spec.declarations == () and spec.definitions == ()


# -- references and pairwise scores -------------------------------------------------

def test_short_and_explicit_refs():
    assert strip_pos(expr_of("sum_s max_t <Q[i, s, :], D[j, t, :]>")) == (
        "sum_s", ("max_t", ("dot", ref("Q", ("i", "s", ":")), ref("D", ("j", "t", ":")))))
    assert strip_pos(expr_of("sum_s max_t <Q_s, D[j, t, :]>")) == (
        "sum_s", ("max_t", ("dot", ref("Q_s"), ref("D", ("j", "t", ":")))))
    # a bare name is a reference too; underscores inside names are kept whole
    assert strip_pos(expr_of("sum_s max_t <q_emb_s, D_t> * w")) == (
        "sum_s", ("max_t", ("*", ("dot", ref("q_emb_s"), ref("D_t")), ref("w"))))


@pytest.mark.parametrize("body, pair", [
    ("<Q_s, D_t>", ("dot", ref("Q_s"), ref("D_t"))),
    ("cos(Q_s, D_t)", ("call", "cos", ref("Q_s"), ref("D_t"))),
    ("||Q_s - D_t||^2", ("pow", ("norm", "2", ("-", ref("Q_s"), ref("D_t"))), 2.0)),
    ("||Q_s - D_t||", ("norm", "2", ("-", ref("Q_s"), ref("D_t")))),
    ("||Q_s - D_t||_1", ("norm", "1", ("-", ref("Q_s"), ref("D_t")))),
])
def test_pairwise_scores(body, pair):
    assert strip_pos(expr_of(f"sum_s min_t {body}")) == ("sum_s", ("min_t", pair))


def test_norm_position_and_kinds():
    e = expr_of("sum_s min_t ||Q_s - D_t||_1")
    norm = e.body.body
    assert isinstance(norm, S.Norm) and norm.kind == "1"
    line = "out[i, j] = sum_s min_t ||Q_s - D_t||_1"
    assert norm.pos == S.Pos(3, line.index("||") + 1)


# -- precedence ---------------------------------------------------------------------

def test_reduction_takes_the_product_term_after_it():
    # sum_s w_s * max_t f  is  sum_s (w_s * (max_t f))
    e = expr_of("sum_s w_s * max_t <Q_s, D_t>")
    assert strip_pos(e) == ("sum_s", ("*", ref("w_s"), ("max_t", QS_DT)))


def test_sum_of_reductions_is_a_sum():
    # sum_n a + sum_m b  is  (sum_n a) + (sum_m b)
    e = expr_of("sum_n a + sum_m b")
    assert strip_pos(e) == ("+", ("sum_n", ref("a")), ("sum_m", ref("b")))
    e = expr_of("sum_n a - sum_m b")
    assert strip_pos(e) == ("-", ("sum_n", ref("a")), ("sum_m", ref("b")))


def test_chamfer_shape():
    e = expr_of("mean_n min_m ||P_n - R_m||^2 + mean_m min_n ||R_m - P_n||^2")
    sq = lambda a, b: ("pow", ("norm", "2", ("-", ref(a), ref(b))), 2.0)  # noqa: E731
    assert strip_pos(e) == ("+", ("mean_n", ("min_m", sq("P_n", "R_m"))),
                            ("mean_m", ("min_n", sq("R_m", "P_n"))))


@pytest.mark.parametrize("body, tree", [
    ("a + b * c", ("+", ref("a"), ("*", ref("b"), ref("c")))),
    ("a - b - c", ("-", ("-", ref("a"), ref("b")), ref("c"))),
    ("a / b * c", ("*", ("/", ref("a"), ref("b")), ref("c"))),
    ("(a + b) * c", ("*", ("+", ref("a"), ref("b")), ref("c"))),
    ("-a * b", ("*", ("neg", ref("a")), ref("b"))),
    ("- sum_s a", ("neg", ("sum_s", ref("a")))),
    ("a ^ 2 * b", ("*", ("pow", ref("a"), 2.0), ref("b"))),
    ("2.5 * a", ("*", ("num", 2.5), ref("a"))),
    ("max_s log1p(relu(<H_s, W_v> + bias_v))",
     ("max_s", ("call", "log1p", ("call", "relu", ("+", ("dot", ref("H_s"), ref("W_v")), ref("bias_v")))))),
    ("sum_s (w_s * max_t f) + c", ("+", ("sum_s", ("*", ref("w_s"), ("max_t", ref("f")))), ref("c"))),
])
def test_precedence(body, tree):
    assert strip_pos(expr_of(body)) == tree


def test_reduction_tokens():
    for op in ("sum", "mean", "max", "min", "argmax", "argmin"):
        e = expr_of(f"{op}_t2 x")
        assert isinstance(e, S.Reduce) and (e.op, e.axis) == (op, "t2")
    # a name that merely starts like a reduction is a name
    assert strip_pos(expr_of("summary + maximum")) == ("+", ref("summary"), ref("maximum"))


# -- where ------------------------------------------------------------------------

def test_where_masks_and_bounds():
    d = definition(HEAD + "out[i, j] = sum_s max_t <Q_s, D_t> where qmask, dmask[j, t], t < dlen[j], s < qlen, t < 16\n")
    line = "out[i, j] = sum_s max_t <Q_s, D_t> where qmask, dmask[j, t], t < dlen[j], s < qlen, t < 16"
    assert d.conds == (
        S.MaskCond("qmask", None, S.Pos(3, line.index("qmask") + 1)),
        S.MaskCond("dmask", ("j", "t"), S.Pos(3, line.index("dmask") + 1)),
        S.BoundCond("t", "dlen", ("j",), S.Pos(3, line.index("t < dlen") + 1)),
        S.BoundCond("s", "qlen", None, S.Pos(3, line.index("s < qlen") + 1)),
        S.BoundCond("t", 16, None, S.Pos(3, line.index("t < 16") + 1)),
    )


def test_where_is_a_keyword():
    d = definition(HEAD + "out[i, j] = sum_s max_t <Q_s, D_t>where qmask\n")
    assert [c.name for c in d.conds] == ["qmask"]


# -- syntax errors -------------------------------------------------------------------

@pytest.mark.parametrize("source, line, col, needle", [
    (HEAD + "out[i, j] = sum_s max_t <Q_s, D_t> $\n", 3, 36, "unexpected character '$'"),
    (HEAD + "out[i, j] = sum_s max_t <Q_s, D_t\n", 3, 34, "the line ends too early"),
    (HEAD + "out[i, j] = sum_s max_t <Q_s, D_t> where\n", 3, 41, "the line ends too early"),
    (HEAD + "out[i, j] = sum_s max_t <Q_s, D_t> +", 3, 37, "ends too early"),
    (HEAD + "out[i, j] = sum_s max_t <Q_s, D_t> + \\", 3, 39, "the spec ends too early"),
    (HEAD + "out[i, j] = sum_s max_t <Q_s D_t>\n", 3, 30, "unexpected 'D_t'"),
    ("Q[i, s, d]: double\n", 1, 13, "unexpected 'double'"),
    ("Q[i, s, d] float\n", 1, 12, "unexpected 'float'"),
    ("Q[i, s d]: float\n", 1, 8, "unexpected 'd'"),
    ("\n\nQ[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = sum_s max_t <Q_s, D_t>)\n", 5, 35, "unexpected ')'"),
    (HEAD + "out[i, j] = sum_s max_t <Q_s, D_t> where 3\n", 3, 42, "unexpected '3'"),
    (HEAD + "out[i, j] = sum_ max_t <Q_s, D_t>\n", 3, 18, "unexpected 'max_t'"),  # sum_ is a name
    ("Q[i, s, d]: float D[j, t, d]: float\n", 1, 19, "unexpected 'D'"),
])
def test_syntax_errors(source, line, col, needle):
    with pytest.raises(SpecError) as info:
        parse(source, "bad.hsr")
    err = info.value
    assert type(err) is SpecError
    assert (err.line, err.col) == (line, col), str(err)
    assert needle in err.message, str(err)
    assert_error_format(err, source, "bad.hsr")


def test_syntax_error_hint_lists_what_was_expected():
    with pytest.raises(SpecError) as info:
        parse(HEAD + "out[i, j] = sum_s max_t <Q_s, D_t\n", "bad.hsr")
    assert "'>'" in info.value.hint
    with pytest.raises(SpecError) as info:
        parse("Q[i, s, d]: \n", "bad.hsr")
    assert "a type (float, bool, int, int8, fp8, offsets, uint1, uint2, uint4, uint8)" in info.value.hint


def test_the_type_hint_lists_every_type_the_grammar_accepts():
    """The hint's types are the grammar's TYPE terminal, each of which the checker takes."""
    grammar = (ROOT / "hsr" / "grammar.lark").read_text()
    declared = re.findall(r'"(\w+)"', re.search(r"^TYPE:(.*)$", grammar, re.M).group(1))
    with pytest.raises(SpecError) as info:
        parse("Q[i, s, d]: flaot\n", "bad.hsr")
    listed = re.search(r"a type \(([^)]*)\)", info.value.hint).group(1).split(", ")
    assert sorted(listed) == sorted(declared) and {"int8", "fp8", "offsets"} <= set(listed)
    for kind in listed:
        assert parse(f"x[i]: {kind}\n").declarations[0].type == kind


def test_syntax_error_default_filename():
    with pytest.raises(SpecError) as info:
        parse("Q[i, s, d]: float $\n")
    assert str(info.value).startswith("<spec>:1:19: ")


def test_syntax_error_is_not_chained_to_lark():
    with pytest.raises(SpecError) as info:
        parse("Q[i, s, d]: float $\n", "bad.hsr")
    assert info.value.__cause__ is None and info.value.__suppress_context__


# A comment may hold any character. Errors must still quote the line that the
# line number names; str.splitlines() also breaks lines at \f, \v, \x1c-\x1e,
# \x85, U+2028, U+2029 and a lone \r, which the grammar (and editors' line
# numbers) do not.
@pytest.mark.parametrize("sep", ["\x0c", "\x0b", "\x85", "\u2028", "\r"],
                         ids=["formfeed", "vtab", "nel", "u2028", "lone-cr"])
def test_error_quotes_the_right_line_after_odd_separator_in_comment(sep):
    source = f"# page one{sep}page two\n" + HEAD + "out[i, j] = sum_s max_t <Q_s, D_t> $\n"
    with pytest.raises(SpecError) as info:
        parse(source, "bad.hsr")
    err = info.value
    assert (err.line, err.col) == (4, 36)
    assert err.source_line == "out[i, j] = sum_s max_t <Q_s, D_t> $"


# -- robustness: random mutations of the bundled specs -----------------------------------

# Characters the grammar cares about, and some it does not. The line separators
# other than \n are covered by the test above.
_GRAMMAR_CHARS = list("abdijkstwxyzQDRP_01239.e[](),:<>|=+-*/^#\\ \t\n") + ["where ", "sum_", "max_", "||", "_1", "cos("]
_ODD = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_INSERTS = st.one_of(st.sampled_from(_GRAMMAR_CHARS),
                     st.characters(blacklist_categories=("Cs",), blacklist_characters=_ODD))


@st.composite
def mutated_spec(draw):
    source = draw(st.sampled_from(BUNDLED_TEXT))
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["delete", "insert", "replace"]))
        if kind == "insert":
            at = draw(st.integers(0, len(source)))
            source = source[:at] + draw(_INSERTS) + source[at:]
        elif source:
            at = draw(st.integers(0, len(source) - 1))
            source = source[:at] + ("" if kind == "delete" else draw(_INSERTS)) + source[at + 1:]
    return source


@given(mutated_spec())
def test_mutations_give_a_program_or_a_spec_error(source):
    try:
        spec = parse(source, "mut.hsr")
    except SpecError as err:
        assert type(err) is SpecError
        assert_error_format(err, source, "mut.hsr", hint=True)
        return
    try:
        check(spec)
    except SpecError as err:
        # the hint of check errors is covered in test_check
        assert_error_format(err, source, "mut.hsr", hint=False)


@given(st.lists(st.sampled_from(_GRAMMAR_CHARS), max_size=40).map("".join))
def test_arbitrary_text_gives_a_program_or_a_spec_error(source):
    try:
        check(parse(source, "any.hsr"))
    except SpecError as err:
        assert_error_format(err, source, "any.hsr", hint=False)


@pytest.mark.parametrize("source", BUNDLED_TEXT, ids=[p.name for p in BUNDLED])
def test_every_single_deletion_of_a_bundled_spec(source):
    """Exhaustive for one kind of mutation: each character deleted in turn."""
    for at in range(len(source)):
        mutated = source[:at] + source[at + 1:]
        try:
            check(parse(mutated, "del.hsr"))
        except SpecError as err:
            assert_error_format(err, mutated, "del.hsr", hint=False)


def test_error_message_regex():
    with pytest.raises(SpecError) as info:
        parse(HEAD + "out[i, j] = sum_s max_t <Q_s, D_t> @\n", "x/y.hsr")
    assert re.match(r"^x/y\.hsr:3:36: unexpected character '@'\n    out\[i, j\] = .*\n {39}\^\nhint: ", str(info.value))


def test_ragged_declarations():
    spec = parse("cu_q[i]: offsets\nQ[i, s by cu_q, d]: float\nw[s by cu_q, i]: float\n"
                 "D[j, t, d]: float\nx[i, j] = sum_s w_s * max_t <Q_s, D_t>\n")
    decls = {d.name: d for d in spec.declarations}
    assert decls["cu_q"].type == "offsets" and decls["cu_q"].ragged == ()
    assert decls["Q"].axes == ("i", "s", "d") and decls["Q"].ragged == (("s", "cu_q", S.Pos(2, 11)),)
    assert decls["w"].axes == ("s", "i") and decls["w"].ragged[0][:2] == ("s", "cu_q")
    assert decls["D"].ragged == ()


def test_by_on_an_output_axis_is_an_error():
    with pytest.raises(SpecError) as info:
        parse("cu[i]: offsets\nQ[i, s by cu, d]: float\nD[j, t, d]: float\nx[i, s by cu] = max_t <Q_s, D_t>\n")
    assert (info.value.line, info.value.col) == (4, 8) and "not ragged" in info.value.message

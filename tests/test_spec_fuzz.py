"""Fuzzing the front stages (parse, check, plan) with random spec text.

Whatever the text, the front end either gives a kernel plan or raises a
``SpecError`` (an ``HsrError``) that points into the text: positive line and
column, the line at most one past the last, and the message quoting the source
line. Never a lark, sympy, jinja or Python-internal exception. No kernels run
here, so the example counts are high.

Three sources of text: (a) random sequences of the language's tokens and some
stray characters, (b) grammar-shaped random specs (declarations and a
definition built from random expressions, so that check and plan get exercised
too), and (c) mutations of the bundled specs ``ops/*.hsr``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hsr.check import check
from hsr.errors import HsrError, SpecError, source_lines
from hsr.parse import parse
from hsr.plan import plan

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = sorted((ROOT / "ops").glob("*.hsr")) + sorted((ROOT / "examples").glob("**/*.hsr"))
BUNDLED_TEXT = [p.read_text() for p in BUNDLED]


def front(text: str, filename: str = "fuzz.hsr"):
    """parse -> check -> plan; a SpecError must point into the text."""
    try:
        return plan(check(parse(text, filename)))
    except HsrError as err:
        assert_points_into(err, text, filename)
        return None


def assert_points_into(err: HsrError, text: str, filename: str) -> None:
    assert isinstance(err, SpecError), f"{type(err).__name__} is an HsrError but not a SpecError: {err}"
    line, col = err.line, err.col
    assert type(line) is int and type(col) is int, (line, col)
    lines = source_lines(text)
    assert 1 <= line <= len(lines) + 1, f"line {line} outside the text ({len(lines)} lines):\n{err}"
    assert col >= 1, f"column {col}:\n{err}"
    message = str(err)
    assert message.startswith(f"{filename}:{line}:{col}: "), message
    if line <= len(lines):
        quoted = lines[line - 1]
        assert quoted in message, f"the message does not quote line {line} ({quoted!r}):\n{message}"
        assert col <= len(quoted) + 1, f"column {col} past the end of line {line} ({quoted!r}):\n{message}"


def test_bundled_specs_plan():
    assert BUNDLED, "no bundled specs found"
    for path, text in zip(BUNDLED, BUNDLED_TEXT):
        if path.parent.name == "ops":
            assert front(text, path.name) is not None, path.name


# -- (a) random token soup -----------------------------------------------------------------------

NAMES = ["Q", "D", "P", "R", "H", "W", "x", "y", "out", "score", "cd", "rep", "bias", "w", "qmask", "dmask",
         "dlen", "plen", "i", "j", "s", "t", "d", "n", "m", "b", "v", "k", "float", "bool", "int", "all",
         "full", "cos", "relu", "log1p", "exp", "log", "sqrt", "abs", "sigmoid", "tanh", "softplus", "foo",
         "Q_s", "D_t", "P_n", "R_m", "H_s", "W_v", "bias_v", "w_s", "dlen_j", "backward", "where", "sum",
         "max", "argmin", "sum_", "_", "where_s"]
PUNCT = ["[", "]", ",", ":", "=", "+", "-", "*", "/", "<", ">", "(", ")", "||", "|", "^", "_1", "^2",
         "||_1", "[:]", ":,"]
NUMBERS = ["0", "1", "2", "3.5", "1e3", "2.", "0.5e-2", "10", "007", "1e", "99999999999999999999", "1e999"]
REDUCE = ["sum_s", "max_t", "argmin_x", "mean_n", "min_m", "argmax_t", "max_v", "sum_i", "min_d",
          "mean_s", "argmax_j", "max_s"]
LAYOUT = ["\n", "\n", "\n\n", "  ", "\t", "# comment\n", "#\n", "\\\n", "\r\n", " \\\n  "]
STRAY = ["$", "@", "!", "?", "~", "`", "'", '"', "&", "%", ";", "{", "}", ".", "é", "\x00", "\u00a0",
         "\x0c", "\u2028", "\r", "λ", "\ufeff"]

_token = st.one_of(
    st.sampled_from(NAMES), st.sampled_from(PUNCT), st.sampled_from(NUMBERS), st.sampled_from(REDUCE),
    st.sampled_from(LAYOUT), st.sampled_from(STRAY),
)
_sep = st.sampled_from(["", " ", " ", " ", "\n"])

token_soup = st.lists(st.tuples(_token, _sep), max_size=40).map(lambda ts: "".join(t + s for t, s in ts))

# a plausible head, so the soup after it gets past the declarations more often
HEADS = ["", "Q[i, s, d]: float\nD[j, t, d]: float\n",
         "P[b, n, d]: float\nR[b, m, d]: float\nplen[b]: int = full\n",
         "H[b, s, h]: float\nW[v, h]: float\nbias[v]: float = 0\nmask[b, s]: bool = all\n"]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(HEADS), token_soup)
def test_token_soup(head, soup):
    front(head + soup)


# -- (b) grammar-shaped random specs ---------------------------------------------------------------

AXES = ["i", "j", "s", "t", "d", "n", "m", "b", "v"]
TENSORS = ["Q", "D", "P", "R", "w", "mask", "len"]

# A coherent world: the structured generator references these tensors with
# their own axes most of the time, and declares only what the text uses (an
# unused declaration is an error of its own), so that check and plan see many
# well-formed programs.
WORLD = {
    "Q": "Q[i, s, d]: float", "D": "D[j, t, d]: float", "w": "w[t]: float = 0", "u": "u[s]: float",
    "qmask": "qmask[i, s]: bool = all", "dmask": "dmask[j, t]: bool = all", "dlen": "dlen[j]: int = full",
    "qlen": "qlen[i]: int",
}
WORLD_REFS = ["Q_s", "D_t", "Q[i, s, :]", "D[j, t, :]", "w_t", "u_s", "w", "Q_t", "D_s", "Q[i, :, d]"]
WORLD_PAIRS = [("Q_s", "D_t"), ("D_t", "Q_s"), ("Q[i, s, :]", "D[j, t, :]"), ("Q_s", "Q_s"), ("Q_s", "w_t")]
WORLD_CONDS = ["qmask", "dmask", "t < dlen[j]", "s < qlen[i]", "t < 3", "qmask[i, s]", "t < dlen", "d < 2"]


@st.composite
def declaration(draw):
    name = draw(st.sampled_from(TENSORS))
    axes = draw(st.lists(st.sampled_from(AXES), min_size=0, max_size=4))
    type_ = draw(st.sampled_from(["float", "float", "bool", "int"]))
    default = draw(st.sampled_from(["", "", " = all", " = full", " = 0", " = -1.5", " = 2", " = none"]))
    return f"{name}[{', '.join(axes)}]: {type_}{default}"


@st.composite
def leaf(draw):
    kind = draw(st.integers(0, 6))
    if kind == 0:
        return draw(st.sampled_from(["1", "2", "0.5", "3e-1"]))
    if kind == 1:
        return draw(st.sampled_from(WORLD_REFS))
    a, b = draw(st.sampled_from(WORLD_PAIRS))
    return draw(st.sampled_from([f"<{a}, {b}>", f"||{a} - {b}||^2", f"||{a} - {b}||", f"||{a} - {b}||_1",
                                 f"cos({a}, {b})", f"<{a}, {b}>", f"||{a} - {b}||^2"]))


def _extend(inner):
    return st.one_of(
        st.tuples(st.sampled_from(["max_t", "min_t", "argmax_t", "sum_s", "mean_s", "max_s", "min_s", "sum_t",
                                   "argmin_t", "sum_d", "max_j", "mean_t"]), inner)
        .map(lambda t: f"{t[0]} {t[1]}"),
        st.tuples(inner, st.sampled_from(["+", "-", "*", "/"]), inner).map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
        st.tuples(st.sampled_from(["relu", "log1p", "exp", "log", "sqrt", "abs", "sigmoid", "tanh", "softplus",
                                   "cos", "foo"]), inner)
        .map(lambda t: f"{t[0]}({t[1]})"),
        inner.map(lambda e: f"({e})"),
        inner.map(lambda e: f"-{e}"),
        st.tuples(inner, st.sampled_from(["2", "0.5", "3", "-1", "0"])).map(lambda t: f"({t[0]})^{t[1]}"),
    )


expression = st.recursive(leaf(), _extend, max_leaves=5)


@st.composite
def structured_spec(draw):
    """Mostly the coherent world above; sometimes random declarations too."""
    out_axes = draw(st.sampled_from(["i, j", "i, j", "i, j", "j, i", "i", "j", "", "i, j, s", "i, t"]))
    expr = draw(expression)
    if draw(st.integers(0, 2)) == 0:   # put a selection and an outer reduction on top, as real specs have
        outer = draw(st.sampled_from(["sum_s", "mean_s", "max_s"]))
        expr = f"{outer} {draw(st.sampled_from(['max_t', 'min_t']))} {expr}"
    where = draw(st.lists(st.sampled_from(WORLD_CONDS), max_size=2, unique=True))
    definition = f"out[{out_axes}] = {expr}"
    if where:
        definition += " where " + ", ".join(where)
    used = [name for name in WORLD if re.search(rf"\b{name}(?![A-Za-z0-9])", definition)]
    lines = [WORLD[name] for name in used]
    if draw(st.integers(0, 4)) == 0:
        lines += draw(st.lists(declaration(), min_size=1, max_size=3))
    lines = draw(st.permutations(lines)) if draw(st.booleans()) else lines
    lines.insert(draw(st.integers(0, len(lines))) if draw(st.integers(0, 5)) == 0 else len(lines), definition)
    if draw(st.integers(0, 19)) == 0:
        lines.append(definition)   # a second definition
    return "\n".join(lines) + draw(st.sampled_from(["\n", "", "\n\n"]))


# The normal form with random choices in its slots: many of these plan, the
# rest are rejected by check or plan with a position.
@st.composite
def normal_form_spec(draw):
    outer = draw(st.sampled_from(["sum", "mean", "max", "min", "sum", "mean", "argmax"]))
    select = draw(st.sampled_from(["max", "min"] * 4 + ["argmax", "argmin", "sum"]))
    pair = draw(st.sampled_from(["<Q_s, D_t>", "<D_t, Q_s>", "cos(Q_s, D_t)", "||Q_s - D_t||^2",
                                 "||Q_s - D_t||", "||Q_s - D_t||_1", "-<Q_s, D_t>", "relu(<Q_s, D_t>)",
                                 "log1p(relu(<Q_s, D_t> + w_t))", "exp(-||Q_s - D_t||^2)", "<Q_s, D_t> * 2",
                                 "<Q[i, s, :], D[j, t, :]>", "<Q_s, D_t> + w_t", "<Q_s, D_t> - u_s",
                                 "sigmoid(<Q_s, D_t>)", "1 / (1 + ||Q_s - D_t||)", "(<Q_s, D_t>)^2",
                                 "-||Q_s - D_t||_1 * 0.5", "tanh(<Q_s, D_t> / 3)", "sqrt(||Q_s - D_t||^2)"]))
    outs = draw(st.sampled_from(["i, j"] * 6 + ["j, i", "i", "j", "", "i, j, s"]))
    if outs == "i, j, s" or draw(st.integers(0, 9)) == 0:
        body = f"{select}_t {pair}"
    else:
        body = f"{outer}_s {select}_t {pair}"
    post = draw(st.sampled_from(["", "", "", "relu", "exp", "log1p"]))
    if post:
        body = f"{outer}_s {post}({select}_t {pair})"
    if draw(st.integers(0, 4)) == 0:
        swapped = pair.replace("Q_s", "@").replace("D_t", "Q_s").replace("@", "D_t")
        body = f"{body} + {outer}_t {select}_s {swapped}"
    conds = draw(st.lists(st.sampled_from(["qmask", "dmask", "t < dlen[j]", "s < qlen[i]", "s < 4", "t < 2"]
                                          + ["t < dlen", "d < 3"]), max_size=3, unique=True))
    definition = f"out[{outs}] = {body}" + (" where " + ", ".join(conds) if conds else "")
    used = [name for name in WORLD if re.search(rf"\b{name}(?![A-Za-z0-9])", definition)]
    return "\n".join([WORLD[name] for name in used] + [definition]) + "\n"


@settings(max_examples=300, deadline=None)
@given(structured_spec())
def test_grammar_shaped_specs(text):
    front(text)


@settings(max_examples=300, deadline=None)
@given(normal_form_spec())
def test_normal_form_variants(text):
    front(text)


# -- (c) mutations of the bundled specs --------------------------------------------------------------

_TOKENS = re.compile(r"\|\||[A-Za-z_][A-Za-z0-9_]*|[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|\s+|.", re.S)
_INSERTS = st.one_of(_token, st.characters(blacklist_categories=("Cs",)))


@st.composite
def mutated_spec(draw):
    text = draw(st.sampled_from(BUNDLED_TEXT))
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["delete_char", "insert_char", "replace_char", "swap_chars",
                                     "delete_token", "insert_token", "replace_token", "swap_tokens",
                                     "duplicate_line", "drop_line", "swap_lines"]))
        if kind.endswith("_char") or kind == "swap_chars":
            units = list(text)
        elif kind.endswith("_token") or kind == "swap_tokens":
            units = _TOKENS.findall(text)
        else:
            units = text.split("\n")
        if not units:
            units = [""]
        at = draw(st.integers(0, len(units) - 1))
        if kind.startswith("delete") or kind == "drop_line":
            del units[at]
        elif kind.startswith("insert"):
            units.insert(draw(st.integers(0, len(units))), draw(_INSERTS))
        elif kind.startswith("replace"):
            units[at] = draw(_INSERTS)
        elif kind.startswith("swap"):
            other = draw(st.integers(0, len(units) - 1))
            units[at], units[other] = units[other], units[at]
        else:  # duplicate_line
            units.insert(at, units[at])
        text = ("\n" if kind.endswith("line") or kind == "swap_lines" else "").join(units)
    return text


@settings(max_examples=400, deadline=None)
@given(mutated_spec())
def test_mutated_bundled_specs(text):
    front(text)


# -- hand-picked edge cases ----------------------------------------------------------------------------

EDGES = [
    "", "\n", "#", "# only a comment", "\\", "\\\n", "\r\n\r\n", "\t", "\ufeffQ[i]: float",
    "out[] = 1", "out[i] = i", "Q[]: float\nout[] = Q", "Q[i, s, d]: float\nout[i] = sum_s Q_s",
    "Q[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = sum_s max_t <Q_s, D_t> where",
    "Q[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = sum_s max_t <Q_s, D_t> where t < 0",
    "Q[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = sum_s max_t <Q_s, D_t> where t < 99999999999999999999999",
    "Q[i, s, d]: float = 1e999\nD[j, t, d]: float\nout[i, j] = sum_s max_t <Q_s, D_t>",
    "Q[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = sum_s max_t (<Q_s, D_t>)^0",
    "Q[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = sum_s max_t <Q_s, D_t> + 1e999",
    "Q[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = sum_s max_t <Q_s, D_t> / 1e-999",
    "Q[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = sum_s max_t <Q_s, D_t> / 0",
    "Q[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = sum_s max_t log(-<Q_s, D_t>)",
    "Q[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = sum_s max_t ||Q_s - D_t||^-1",
    "Q[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = sum_s max_t ||Q_s - D_t||^0.5",
    "Q[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = sum_s max_t ||Q_s + D_t||",
    "Q[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = sum_s max_t ||Q_s - Q_s||",
    "Q[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = sum_s max_t <Q_s, Q_s>",
    "Q[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = sum_s max_t max_t <Q_s, D_t>",
    "Q[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = sum_s sum_s max_t <Q_s, D_t>",
    "Q[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = argmax_s argmax_t <Q_s, D_t>",
    "Q[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = sum_s max_t <Q_s, D_t> + sum_s max_t <Q_s, D_t>",
    "Q[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = sum_s max_t <Q_s, D_t> * sum_s max_t <Q_s, D_t>",
    "Q[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = 2 * sum_s max_t <Q_s, D_t> - 1",
    "Q[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = sum_s exp(max_t <Q_s, D_t>)",
    "Q[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = sum_s max_t <relu(Q_s), D_t>",
    "Q[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = sum_s max_t <Q_s, <Q_s, D_t>>",
    "Q[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = sum_s max_t <Q[i, s, :], D[j, :, d]>",
    "Q[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = sum_s max_t <Q[:, s, :], D_t>",
    "Q[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = sum_s max_t <Q[i, s, d], D_t>",
    "Q[i, s, d]: float\nD[i, t, d]: float\nout[i] = sum_s max_t <Q_s, D_t>",
    "Q[i, s, d]: float\nD[i, t, d]: float\nout[i, i] = sum_s max_t <Q_s, D_t>",
    "Q[s, s, d]: float\nD[j, t, d]: float\nout[j] = sum_s max_t <Q_s, D_t>",
    "Q[i, s, d]: float\nD[j, t, e]: float\nout[i, j] = sum_s max_t <Q_s, D_t>",
    "Q[i, s, d]: bool\nD[j, t, d]: float\nout[i, j] = sum_s max_t <Q_s, D_t>",
    "Q[i, s, d]: int = all\nD[j, t, d]: float\nout[i, j] = sum_s max_t <Q_s, D_t>",
    "Q[i, s, d]: float\nD[j, t, d]: float\nm[i]: bool\nout[i, j] = sum_s max_t <Q_s, D_t> where m",
    "Q[i, s, d]: float\nD[j, t, d]: float\nm[s, t]: bool\nout[i, j] = sum_s max_t <Q_s, D_t> where m",
    "Q[i, s, d]: float\nD[j, t, d]: float\nl[j]: float\nout[i, j] = sum_s max_t <Q_s, D_t> where t < l",
    "Q[i, s, d]: float\nD[j, t, d]: float\nl[t]: int\nout[i, j] = sum_s max_t <Q_s, D_t> where t < l",
    "Q[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = sum_s max_t <Q_s, D_t> where d < 3",
    "Q[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = sum_s max_t <Q_s, D_t> where i < 3",
    "Q[i, s, d]: float\nD[j, t, d]: float\nbackward[i]: float\nout[i, j] = sum_s max_t <Q_s, D_t>",
    "Q[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = sum_s max_t <Q_s, D_t>\nout2[i] = 1",
    "Q[i, s, d]: float\nD[j, t, d]: float\nQ[i, j] = sum_s max_t <Q_s, D_t>",
    "Q[i, s, d]: float\nD[j, t, d]: float\n\n\n\nout[i, j] = \\\n  sum_s \\\n  max_t <Q_s, D_t> \\\n  where qm",
    "Q[i, s, d]: float\r\nD[j, t, d]: float\r\nout[i, j] = sum_s max_t <Q_s, D_t> $\r\n",
    "Q[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = sum_s max_t <Q_s, D_t>  # \x0c\u2028 odd separators\n$",
    "P[b, n, d]: float\nR[b, m, d]: float\ncd[b] = mean_n min_m ||P_n - R_m||^2 + mean_m min_n ||R_m - P_n||^2",
    "P[b, n, d]: float\nR[b, m, d]: float\ncd[b] = max_n min_m ||P_n - R_m|| ",
    "P[b, n, d]: float\nR[b, m, d]: float\ncd[b] = max(max_n min_m ||P_n - R_m||, max_m min_n ||R_m - P_n||)",
    "H[b, s, h]: float\nW[v, h]: float\nbias[v]: float = 0\nmask[b, s]: bool = all\n"
    "rep[b, v] = max_s log1p(relu(<H_s, W_v> + bias_v)) where mask",
    "H[b, s, h]: float\nW[v, h]: float\nrep[b, v] = max_s log1p(relu(<H_s, W_v>)) - log(<H_s, W_v>)",
    "H[b, s, h]: float\nW[v, h]: float\nrep[b, v] = max_s sigmoid(-<H_s, W_v>)",
    "H[b, s, h]: float\nW[v, h]: float\nrep[b, v] = max_s tanh(<H_s, W_v>) * <H_s, W_v>",
    "H[b, s, h]: float\nW[v, h]: float\nrep[b, v] = max_s exp(<H_s, W_v>) / 0",
    "H[b, s, h]: float\nW[v, h]: float\nrep[b, v] = max_s (<H_s, W_v>)^2",
    "H[b, s, h]: float\nW[v, h]: float\nrep[b, v] = max_s (<H_s, W_v>)^3",
    "H[b, s, h]: float\nW[v, h]: float\nrep[b, v] = max_s sqrt(<H_s, W_v>)",
    "H[b, s, h]: float\nW[v, h]: float\nrep[b, v] = max_s 1 / <H_s, W_v>",
    "H[b, s, h]: float\nW[v, h]: float\nrep[b, v] = argmax_s <H_s, W_v>",
    "H[b, s, h]: float\nW[v, h]: float\nrep[b, v] = max_s <H_s, W_v> + max_s <H_s, W_v>",
]


@pytest.mark.parametrize("text", EDGES, ids=range(len(EDGES)))
def test_edge_cases(text):
    front(text)


# Constants that overflow to infinity (found by this fuzzer: they once reached
# the sympy printer and raised OverflowError); the planner now names them.
INFINITE = [
    "<Q_s, D_t> ^ 1e999",
    "<Q_s, D_t> * 1e999",
    "exp(<Q_s, D_t> * 1e999)",
    "||Q_s - D_t||^1e308",
    "tanh(1e999 * <Q_s, D_t>)",
]


@pytest.mark.parametrize("body", INFINITE)
def test_infinite_constants(body):
    front(f"Q[i, s, d]: float\nD[j, t, d]: float\nout[i, j] = sum_s max_t {body}\n")

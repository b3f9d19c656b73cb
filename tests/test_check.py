"""Stage 2, check: AST to typed IR.

Each checker error is a ``SpecError`` at a known line and column with a
message that says what is wrong; the typed IR of the bundled MaxSim spec has
the expected shape (reductions, pair, contraction axis, masks attached to the
reductions they restrict).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hsr import ir
from hsr.check import check
from hsr.errors import SpecError
from hsr.parse import parse

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = sorted(p for p in (ROOT / "ops").glob("maxsim*.hsr") if not p.stem.endswith(("int8", "fp8")))

HEAD = "Q[i, s, d]: float\nD[j, t, d]: float\n"


def checked(source: str, filename: str = "t.hsr") -> ir.Program:
    return check(parse(source, filename))


def check_error(source: str) -> SpecError:
    with pytest.raises(SpecError) as info:
        checked(source, "c.hsr")
    err = info.value
    assert type(err) is SpecError, type(err)
    return err


def col_of(source: str, line: int, needle: str, offset: int = 0) -> int:
    """1-based column of the first occurrence of needle on a 1-based line, plus offset."""
    return source.split("\n")[line - 1].index(needle) + 1 + offset


# (id, source, line, column (int, or (needle, offset) on that line), message substring, has a hint)
CASES = [
    ("undeclared-short-ref", HEAD + "out[i, j] = sum_s max_t <Q_s, X_t>\n",
     3, ("X_t", 0), "'X_t' is not declared"),
    ("undeclared-bare-name", HEAD + "out[i, j] = sum_s max_t <Q_s, D_t> * w\n",
     3, ("w", 0), "'w' is not declared"),
    ("undeclared-explicit", HEAD + "out[i, j] = sum_s max_t <Q_s, E[j, t, :]>\n",
     3, ("E[", 0), "'E' is not declared"),
    ("undeclared-mask", HEAD + "out[i, j] = sum_s max_t <Q_s, D_t> where qm\n",
     3, ("qm", 0), "'qm' is not declared"),
    ("unknown-function", HEAD + "out[i, j] = sum_s max_t foo(<Q_s, D_t>)\n",
     3, ("foo", 0), "unknown function 'foo'"),
    ("unknown-axis-short-ref", HEAD + "out[i, j] = sum_s max_t <Q_x, D_t>\n",
     3, ("Q_x", 0), "Q has no axis 'x'"),
    ("axis-not-bound-short-ref", HEAD + "w[u]: float\nout[i, j] = sum_s max_t <Q_s, D_t> * w_u\n",
     4, ("w_u", 0), "axis 'u' is not bound here"),
    ("axis-not-bound-bare", HEAD + "w[s]: float\nout[i, j] = w * sum_s max_t <Q_s, D_t>\n",
     4, ("w", 0), "axis 's' of w is not bound"),
    ("axis-not-bound-explicit", HEAD + "out[i, j] = sum_s max_t <Q[i, :, d], D_t>\n",
     3, ("Q[", 0), "axis 'd' is not bound here"),
    ("reduce-without-dependence", HEAD + "w[u]: float\nout[i, j] = sum_s max_t max_u <Q_s, D_t>\n",
     4, ("max_u", 0), "max_u reduces over 'u', but its operand does not depend on it"),
    ("axis-bound-twice", HEAD + "out[i, j] = sum_s max_s <Q_s, D_t>\n",
     3, ("max_s", 0), "axis 's' is already bound here"),
    ("output-axis-missing", HEAD + "w[u]: float\nout[i, j, u] = sum_s max_t <Q_s, D_t>\n",
     4, 1, "output axis 'u' does not appear in the expression"),
    ("output-axis-unknown", HEAD + "out[i, x] = sum_s max_t <Q_s, D_t>\n",
     3, 1, "output axis 'x' is not an axis of any input"),
    ("declared-but-unused", HEAD + "w[s]: float\nout[i, j] = sum_s max_t <Q_s, D_t>\n",
     3, 1, "'w' is declared but never used"),
    ("mask-of-int", HEAD + "dlen[j]: int = full\nout[i, j] = sum_s max_t <Q_s, D_t> where dlen\n",
     4, ("dlen", 0), "'dlen' is int, but a where-mask must be bool"),
    ("mask-of-float", HEAD + "w[j, t]: float\nout[i, j] = sum_s max_t <Q_s, D_t> where w\n",
     4, ("where w", 6), "'w' is float, but a where-mask must be bool"),
    ("bound-of-float", HEAD + "dlen[j]: float\nout[i, j] = sum_s max_t <Q_s, D_t> where t < dlen[j]\n",
     4, ("where t", 6), "bound 'dlen' is float, but a length bound must be int"),
    ("bound-of-bool", HEAD + "dm[j]: bool\nout[i, j] = sum_s max_t <Q_s, D_t> where t < dm\n",
     4, ("where t", 6), "bound 'dm' is bool, but a length bound must be int"),
    ("bound-on-unreduced-axis", HEAD + "out[i, j] = sum_s max_t <Q_s, D_t> where d < 4\n",
     3, ("where d", 6), "'d' is not a reduced axis, so it cannot be bounded"),
    ("mask-naming-no-reduced-axis", HEAD + "m[i, j]: bool = all\nout[i, j] = sum_s max_t <Q_s, D_t> where m\n",
     4, ("where m", 6), "mask 'm' must name exactly one reduced axis, it names 0"),
    ("mask-naming-two-reduced-axes", HEAD + "m[s, t]: bool\nout[i, j] = sum_s max_t <Q_s, D_t> where m\n",
     4, ("where m", 6), "mask 'm' must name exactly one reduced axis, it names 2"),
    ("mask-axes-misnamed", HEAD + "m[j, t]: bool\nout[i, j] = sum_s max_t <Q_s, D_t> where m[t, j]\n",
     4, ("m[", 0), "m is declared [j, t], not [t, j]"),
    ("two-definitions", HEAD + "out[i, j] = sum_s max_t <Q_s, D_t>\nout2[i, j] = sum_s max_t <Q_s, D_t>\n",
     4, 1, "a second definition ('out2'); a spec has one output"),
    ("no-definition", HEAD, 2, 1, "the spec defines no output"),
    ("no-definition-empty", "", 1, 1, "the spec defines no output"),
    ("bad-default-bool", HEAD + "qmask[i, s]: bool = full\nout[i, j] = sum_s max_t <Q_s, D_t> where qmask\n",
     3, 1, "'full' is not a default for a bool input"),
    ("bad-default-int", HEAD + "n[j]: int = 3\nout[i, j] = sum_s max_t <Q_s, D_t> where t < n\n",
     3, 1, "3.0 is not a default for a int input"),
    ("bad-default-float", "Q[i, s, d]: float = all\nD[j, t, d]: float\nout[i, j] = sum_s max_t <Q_s, D_t>\n",
     1, 1, "'all' is not a default for a float input"),
    ("renamed-explicit-index", HEAD + "out[i, j] = sum_s max_t <Q[i, x, :], D[j, t, :]>\n",
     3, ("Q[", 0), "Q's axis 's' is indexed as 'x'"),
    ("explicit-index-count", HEAD + "out[i, j] = sum_s max_t <Q[i, s], D_t>\n",
     3, ("Q[", 0), "Q has 3 axes, indexed with 2"),
    ("pair-operand-not-a-row", HEAD + "out[i, j] = sum_s max_t <Q_s * 2, D_t>\n",
     3, ("Q_s", 0), "a pairwise score takes two tensor rows"),
    ("cos-operand-not-a-row", HEAD + "out[i, j] = sum_s max_t cos(Q_s, 2)\n",
     3, ("2", 0), "a pairwise score takes two tensor rows"),
    ("rows-contract-different-axes", "Q[i, s, d]: float\nD[j, t, e]: float\nout[i, j] = sum_s max_t <Q_s, D_t>\n",
     3, ("<", 0), "the rows contract different axes ('d' and 'e')"),
    ("row-leaves-two-axes", "Q[i, s, d, e]: float\nD[j, t, d]: float\nout[i, j] = sum_s max_t <Q_s, D_t>\n",
     3, ("Q_s", 0), "Q leaves 2 axes unbound (d, e); a row leaves one"),
    ("row-leaves-nothing", HEAD + "out[i, j] = sum_s sum_d max_t <Q_s, D_t>\n",
     3, ("Q_s", 0), "Q_s has no axis left over to contract"),
    ("int-in-arithmetic", HEAD + "n[s]: int\nout[i, j] = sum_s n_s * max_t <Q_s, D_t>\n",
     4, ("n_s", 0), "'n' is int; only float inputs enter arithmetic"),
    ("arg-inside-arithmetic", HEAD + "out[i, j] = sum_s argmax_t <Q_s, D_t>\n",
     3, ("argmax_t", 0), "argmax_t must be the whole definition"),
    ("no-reduction", HEAD + "out[i, j, s, t] = <Q_s, D_t>\n",
     3, 1, "the definition reduces over nothing"),
    ("declared-twice", HEAD + "Q[i, s, d]: float\nout[i, j] = sum_s max_t <Q_s, D_t>\n",
     3, 1, "'Q' is declared twice"),
    ("output-is-an-input", HEAD + "Q[i, j] = sum_s max_t <Q_s, D_t>\n",
     3, 1, "'Q' is already declared as an input"),
    ("unary-arity", HEAD + "out[i, j] = sum_s max_t exp(<Q_s, D_t>, 1)\n",
     3, ("exp", 0), "exp takes one argument, not 2"),
    ("int8-in-arithmetic", "Q[i, s, d]: int8\nD[j, t, d]: int8\nw[j, t]: int8\n"
     "out[i, j] = sum_s max_t w_t * <Q_s, D_t>\n", 4, ("w_t", 0), "enters only a dot"),
    ("int8-meets-float", "Q[i, s, d]: int8\nD[j, t, d]: float\nout[i, j] = sum_s max_t <Q_s, D_t>\n",
     3, ("D_t", 0), "int8 rows meet only int8 rows"),  # the caret on the float row
    ("fp8-meets-int8", "Q[i, s, d]: fp8\nD[j, t, d]: int8\nout[i, j] = sum_s max_t <Q_s, D_t>\n",
     3, ("D_t", 0), "fp8 rows meet only fp8 rows"),
    ("int8-distance", "Q[i, s, d]: int8\nD[j, t, d]: int8\nout[i, j] = sum_s min_t ||Q_s - D_t||^2\n",
     3, ("||", 0), "in a dot <A, B>"),
]


def _column(source, line, col):
    return col if isinstance(col, int) else col_of(source, line, *col)


@pytest.mark.parametrize("source, line, col, needle", [c[1:5] for c in CASES], ids=[c[0] for c in CASES])
def test_checker_error(source, line, col, needle):
    err = check_error(source)
    assert needle in err.message, str(err)
    assert (err.line, err.col) == (line, _column(source, line, col)), str(err)
    text = str(err)
    assert text.startswith(f"c.hsr:{err.line}:{err.col}: ")
    rows = text.split("\n")
    assert rows[1] == "    " + (source.split("\n")[line - 1] if source else "")
    assert rows[2] == "    " + " " * (err.col - 1) + "^"


# DESIGN.md: every check error carries line:col, the source line with a caret, and a hint.
@pytest.mark.parametrize("source", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_checker_error_has_a_hint(source):
    err = check_error(source)
    assert err.hint and str(err).split("\n")[3] == f"hint: {err.hint}"


# -- the DESIGN's own examples ---------------------------------------------------------

CHAMFER = "P[b, n, x]: float\nR[b, m, x]: float\ncd[b] = mean_n min_m ||P_n - R_m||^2 + mean_m min_n ||R_m - P_n||^2\n"


@pytest.mark.parametrize("source", [
    "H[b, s, h]: float\nW[v, h]: float\nbias[v]: float\nrep[b, v] = max_s log1p(relu(<H_s, W_v> + bias_v))\n",
    HEAD + "w[i, s]: float = 1\nscore[i, j] = sum_s w_s * max_t <Q_s, D_t>\n",
    "P[b, n, x]: float\nR[b, m, x]: float\nh[b] = max_n min_m ||P_n - R_m||\n",
    "X[n, d]: float\nC[k, d]: float\na[n] = argmin_k ||X_n - C_k||^2\n",
    HEAD + "score[i, j] = sum_s max_t exp(-||Q_s - D_t||^2)\n",
    HEAD + "qlen[i]: int = full\ndlen[j]: int\nscore[i, j] = mean_s min_t ||Q_s - D_t||_1 where s < qlen[i], t < dlen\n",
], ids=["splade", "weighted-maxsim", "hausdorff", "kmeans", "exp-dist", "bounds-l1"])
def test_design_examples_check(source):
    program = checked(source)
    assert isinstance(program.definition.expr, ir.Reduce)


def test_sum_of_reductions_checks():
    """Chamfer, DESIGN.md's own example: the checker accepts a sum of reductions
    (the planner is the stage that rejects it, by name)."""
    program = checked(CHAMFER)
    expr = program.definition.expr
    assert isinstance(expr, ir.Apply) and expr.fn == "+"
    left, right = expr.args
    assert (left.op, left.axis, left.body.op, left.body.axis) == ("mean", "n", "min", "m")
    assert (right.op, right.axis, right.body.op, right.body.axis) == ("mean", "m", "min", "n")
    assert expr.axes == frozenset({"b"})


# -- the typed IR of ops/maxsim.hsr ----------------------------------------------------

@pytest.fixture(scope="module")
def maxsim() -> ir.Program:
    path = ROOT / "ops" / "maxsim.hsr"
    return check(parse(path.read_text(), path.name))


def test_maxsim_tensors(maxsim):
    assert [(t.name, t.axes, t.kind, t.default) for t in maxsim.tensors] == [
        ("Q", ("i", "s", "d"), "float", None),
        ("D", ("j", "t", "d"), "float", None),
        ("qmask", ("i", "s"), "bool", "all"),
        ("dmask", ("j", "t"), "bool", "all"),
    ]
    assert [t.optional for t in maxsim.tensors] == [False, False, True, True]
    assert maxsim.tensor("Q").pos.line == 3
    assert maxsim.filename == "maxsim.hsr"


def test_maxsim_ir(maxsim):
    d = maxsim.definition
    assert (d.name, d.axes, d.kind, d.pos.line) == ("score", ("i", "j"), "float", 8)
    outer = d.expr
    assert isinstance(outer, ir.Reduce) and (outer.op, outer.axis) == ("sum", "s")
    assert outer.axes == frozenset({"i", "j"})
    select = outer.body
    assert isinstance(select, ir.Reduce) and (select.op, select.axis) == ("max", "t")
    assert select.axes == frozenset({"i", "j", "s"})
    pair = select.body
    assert isinstance(pair, ir.Pair) and pair.kind == "dot" and pair.axis == "d"
    assert pair.axes == frozenset({"i", "j", "s", "t"})
    assert isinstance(pair.a, ir.Load) and pair.a.tensor.name == "Q" and pair.a.contracted == "d"
    assert isinstance(pair.b, ir.Load) and pair.b.tensor.name == "D" and pair.b.contracted == "d"
    assert pair.a.axes == frozenset({"i", "s"}) and pair.b.axes == frozenset({"j", "t"})
    assert [type(n).__name__ for n in ir.walk(outer)] == ["Reduce", "Reduce", "Pair", "Load", "Load"]
    line = maxsim.source.splitlines()[7]
    assert maxsim.line(d.pos) == line.strip()
    assert outer.pos.col == line.index("sum_s") + 1 and select.pos.col == line.index("max_t") + 1


def test_maxsim_masks_attach_to_their_reductions(maxsim):
    d = maxsim.definition
    outer, select = d.expr, d.expr.body
    (qm,) = outer.conds
    (dm,) = select.conds
    assert isinstance(qm, ir.Mask) and qm.tensor.name == "qmask" and qm.axis == "s"
    assert isinstance(dm, ir.Mask) and dm.tensor.name == "dmask" and dm.axis == "t"
    assert d.conds == (qm, dm)


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.name)
def test_bundled_specs_check(path):
    program = check(parse(path.read_text(), path.name))
    pair = program.definition.expr.body.body
    assert pair.kind == ("cos" if "cos" in path.stem else "dot") and pair.axis == "d"


@pytest.mark.parametrize("kind", ["int8", "fp8"])
def test_quantized_specs_check(kind):
    program = checked((ROOT / "ops" / f"maxsim_{kind}.hsr").read_text())
    kinds = {t.name: t.kind for t in program.tensors}
    assert kinds == {"Q": kind, "D": kind, "qscale": "float", "dscale": "float", "qmask": "bool", "dmask": "bool"}


def test_kd_spec_masks_and_axes():
    program = checked((ROOT / "ops" / "maxsim_kd.hsr").read_text())
    d = program.definition
    assert d.axes == ("i", "k")
    pair = d.expr.body.body
    assert pair.b.tensor.axes == ("i", "k", "t", "d")
    assert pair.b.axes == frozenset({"i", "k", "t"})
    assert [c.tensor.name for c in d.expr.conds] == ["qmask"]
    assert [c.tensor.name for c in d.expr.body.conds] == ["dmask"]


def test_bounds_attach_to_their_reductions():
    program = checked(HEAD + "qlen[i]: int = full\ndlen[j]: int\n"
                      "out[i, j] = sum_s max_t <Q_s, D_t> where s < qlen[i], t < dlen, t < 7\n")
    outer, select = program.definition.expr, program.definition.expr.body
    (qb,) = outer.conds
    assert isinstance(qb, ir.Bound) and qb.axis == "s" and qb.limit.name == "qlen"
    db, lit = select.conds
    assert db.axis == "t" and db.limit.name == "dlen" and db.limit.default is None
    assert lit.axis == "t" and lit.limit == 7
    assert program.tensor("qlen").default == "full"


def test_explicit_refs_check_like_short_refs():
    a = checked(HEAD + "out[i, j] = sum_s max_t <Q_s, D_t>\n").definition.expr
    b = checked(HEAD + "out[i, j] = sum_s max_t <Q[i, s, :], D[j, t, :]>\n").definition.expr
    strip = lambda e: [(type(n).__name__, getattr(n, "op", None), getattr(n, "axis", None),  # noqa: E731
                        getattr(n, "kind", None), n.axes) for n in ir.walk(e)]
    assert strip(a) == strip(b)


def test_pairwise_kinds():
    kinds = {
        "<Q_s, D_t>": "dot", "cos(Q_s, D_t)": "cos", "||Q_s - D_t||^2": "sqdist",
        "||Q_s - D_t||": "dist", "||Q_s - D_t||_1": "l1",
    }
    for text, kind in kinds.items():
        pair = checked(HEAD + f"out[i, j] = sum_s min_t {text}\n").definition.expr.body.body
        assert isinstance(pair, ir.Pair) and pair.kind == kind and pair.axis == "d", text
    cubed = checked(HEAD + "out[i, j] = sum_s min_t ||Q_s - D_t||^3\n").definition.expr.body.body
    assert isinstance(cubed, ir.Apply) and cubed.fn == "pow" and cubed.param == 3.0
    assert cubed.args[0].kind == "dist"


def test_argmax_definition_is_int():
    program = checked(HEAD + "idx[i, j, s] = argmax_t <Q_s, D_t>\n")
    assert program.definition.kind == "int"


@pytest.mark.parametrize("name", ["backward", "out", "idx", "stat", "xsel", "grad", "aux_asq", "aux_bsq", "cell"])
def test_reserved_input_names(name):
    source = f"{name}[i, s, d]: float\nD[j, t, d]: float\nscore[i, j] = sum_s max_t <{name}_s, D_t>\n"
    err = check_error(source)
    assert (err.line, err.col) == (1, 1)
    assert "reserved" in err.message and "name the input otherwise" in err.hint


RAGGED_HEAD = "cu_q[i]: offsets\ncu_d[j]: offsets\n"


@pytest.mark.parametrize("text, line, col, needle", [
    ("Q[i, s by cu_x, d]: float\nD[j, t, d]: float\nx[i, j] = sum_s max_t <Q_s, D_t>\n", 3, 11, "'cu_x' is not declared"),
    ("Q[i, s by cu_d, d]: float\nD[j, t, d]: float\nx[i, j] = sum_s max_t <Q_s, D_t>\n", 3, 11, "must also carry"),
    ("Q[i, s by cu_q, d]: float\nm[i, s]: bool\nD[j, t by cu_d, d]: float\n"
     "x[i, j] = sum_s max_t <Q_s, D_t> where m\n", 4, 1, "declares it plain"),
    ("Q[i, s by cu_q, d by cu_q]: float\nD[j, t, d]: float\nx[i, j] = sum_s max_t <Q_s, D_t>\n", 3, 22, "two ragged axes"),
    ("Q[i, s by cu_q, d]: float\nD[j, t by cu_d, d]: float\nx[j] = sum_i sum_s max_t <Q_s, D_t>\n", 5, 1, "not an output axis"),
    ("Q[i, s, d]: float\nD[j, t, d by cu_d]: float\nx[i, j] = sum_s max_t <Q_s, D_t>\n", 3, 1, "declares it plain"),
])
def test_ragged_errors_are_positioned(text, line, col, needle):
    source = RAGGED_HEAD + text
    with pytest.raises(SpecError) as info:
        checked(source)
    err = info.value
    assert needle in err.message, str(err)
    assert (err.line, err.col) == (line, col), str(err)


def test_ragged_axis_gets_its_length_bound():
    program = checked(RAGGED_HEAD + "Q[i, s by cu_q, d]: float\nD[j, t by cu_d, d]: float\n"
                      "x[i, j] = sum_s max_t <Q_s, D_t>\n")
    outer = program.definition.expr
    assert [(c.axis, c.limit.name) for c in outer.conds] == [("s", "cu_q")]
    assert [(c.axis, c.limit.name) for c in outer.body.conds] == [("t", "cu_d")]
    assert program.tensor("Q").ragged == ("s", "i", "cu_q")

"""Stage 3, plan: the hard-selection normal form and the kernel plan.

The bundled specs give the expected ``KernelPlan`` fields; everything else is
a ``PlanError`` whose message names the part of the normal form it breaks
(OUTER, post, SELECT, pre, pair).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from hsr.check import check
from hsr.errors import PlanError, SpecError
from hsr.parse import parse
from hsr.plan import Condition, KernelPlan, Operand, plan

ROOT = Path(__file__).resolve().parent.parent
HEAD = "Q[i, s, d]: float\nD[j, t, d]: float\n"


def plan_of(source: str, filename: str = "p.hsr") -> KernelPlan:
    return plan(check(parse(source, filename)))


def plan_file(name: str) -> KernelPlan:
    path = ROOT / "ops" / name
    return plan_of(path.read_text(), path.name)


# -- the bundled specs -------------------------------------------------------------

def test_maxsim_plan():
    p = plan_file("maxsim.hsr")
    assert (p.out, p.grid, p.outer, p.select, p.pair) == ("score", ("i", "j"), "sum", "max", "dot")
    assert (p.r, p.c, p.k) == ("s", "t", "d")
    assert p.a == Operand("Q", ("i", "s", "d"), ("i",))
    assert p.b == Operand("D", ("j", "t", "d"), ("j",))
    assert p.conds == (
        Condition("mask", "s", "qmask", ("i", "s"), None, 8),
        Condition("mask", "t", "dmask", ("j", "t"), None, 8),
    )
    assert p.conds_on("s") == p.conds[:1] and p.conds_on("t") == p.conds[1:]
    assert p.signature == (
        ("Q", ("i", "s", "d"), "float", None), ("D", ("j", "t", "d"), "float", None),
        ("qmask", ("i", "s"), "bool", "all"), ("dmask", ("j", "t"), "bool", "all"),
    )
    assert (p.line, p.pair_line) == (8, 8)
    assert p.spec_line == "score[i, j] = sum_s max_t <Q_s, D_t>  where qmask, dmask"
    assert p.family == "select_reduce"


def test_maxsim_cos_plan():
    p = plan_file("maxsim_cos.hsr")
    assert (p.grid, p.outer, p.select, p.pair, p.r, p.c, p.k) == (("i", "j"), "sum", "max", "cos", "s", "t", "d")
    assert (p.a.name, p.b.name) == ("Q", "D")
    assert [(c.kind, c.axis, c.name) for c in p.conds] == [("mask", "s", "qmask"), ("mask", "t", "dmask")]
    assert p.line == 7


@pytest.mark.parametrize("name, pair", [("maxsim_kd.hsr", "dot"), ("maxsim_kd_cos.hsr", "cos")])
def test_maxsim_kd_plans(name, pair):
    p = plan_file(name)
    assert (p.out, p.grid, p.outer, p.select, p.pair) == ("score", ("i", "k"), "sum", "max", pair)
    assert (p.r, p.c, p.k) == ("s", "t", "d")
    assert p.a == Operand("Q", ("i", "s", "d"), ("i",))
    assert p.b == Operand("D", ("i", "k", "t", "d"), ("i", "k"))
    assert p.conds == (
        Condition("mask", "s", "qmask", ("i", "s"), None, 8),
        Condition("mask", "t", "dmask", ("i", "k", "t"), None, 8),
    )


def test_plan_is_deterministic_and_hashable():
    assert plan_file("maxsim.hsr") == plan_file("maxsim.hsr")
    assert hash(plan_file("maxsim.hsr")) == hash(plan_file("maxsim.hsr"))


# -- variants that plan ---------------------------------------------------------------

def test_swapped_operands_plan_with_a_as_the_outer_side():
    p = plan_of(HEAD + "score[i, j] = sum_s max_t <D_t, Q_s>\n")
    assert (p.a.name, p.b.name) == ("Q", "D")
    assert (p.r, p.c) == ("s", "t")
    assert p.a.grid_axes == ("i",) and p.b.grid_axes == ("j",)
    straight = plan_of(HEAD + "score[i, j] = sum_s max_t <Q_s, D_t>\n")
    assert p == dataclasses.replace(straight, spec_line="score[i, j] = sum_s max_t <D_t, Q_s>")


def test_swapped_cos_operands():
    p = plan_of(HEAD + "score[i, j] = sum_s max_t cos(D_t, Q_s)\n")
    assert (p.a.name, p.b.name, p.pair) == ("Q", "D", "cos")


def test_selection_side_first_in_the_signature():
    """The operand roles follow the reductions, not the declaration order."""
    p = plan_of("D[j, t, d]: float\nQ[i, s, d]: float\nscore[i, j] = sum_t max_s <D_t, Q_s>\n")
    assert (p.a.name, p.r, p.b.name, p.c) == ("D", "t", "Q", "s")
    assert p.signature[0][0] == "D"


def test_mean_min_and_explicit_refs():
    p = plan_of(HEAD + "score[i, j] = mean_s min_t <Q[i, s, :], D[j, t, :]>\n")
    assert (p.outer, p.select, p.pair, p.k) == ("mean", "min", "dot", "d")


def test_grid_order_follows_the_output():
    p = plan_of(HEAD + "score[j, i] = sum_s max_t <Q_s, D_t>\n")
    assert p.grid == ("j", "i")
    assert p.a.grid_axes == ("i",) and p.b.grid_axes == ("j",)


def test_scalar_output():
    p = plan_of("Q[s, d]: float\nD[t, d]: float\nscore[] = sum_s max_t <Q_s, D_t>\n")
    assert p.grid == () and p.a.grid_axes == () and p.b.grid_axes == ()


def test_bound_conditions():
    p = plan_of(HEAD + "qlen[i]: int = full\ndlen[j]: int\n\n"
                "score[i, j] = sum_s max_t <Q_s, D_t> \\\n   where s < qlen[i], t < dlen, t < 16\n")
    assert p.conds == (
        Condition("bound", "s", "qlen", ("i",), None, 7),
        Condition("bound", "t", "dlen", ("j",), None, 7),
        Condition("bound", "t", None, (), 16, 7),
    )
    assert p.line == 6


def test_mixed_masks_and_bounds_keep_their_order_per_reduction():
    p = plan_of(HEAD + "dmask[j, t]: bool = all\nqlen[i]: int\n"
                "score[i, j] = sum_s max_t <Q_s, D_t> where dmask, s < qlen[i]\n")
    # outer conditions first, then the selection's
    assert [(c.kind, c.axis) for c in p.conds] == [("bound", "s"), ("mask", "t")]


# -- rejections ----------------------------------------------------------------------

REJECTIONS = [
    ("outer-max", HEAD + "score[i, j] = max_s max_t <Q_s, D_t>\n",
     "OUTER", "an outer max", "max_s"),
    ("outer-min", HEAD + "score[i, j] = min_s max_t <Q_s, D_t>\n",
     "OUTER", "an outer min", "min_s"),
    ("no-outer-argmax", HEAD + "idx[i, j, s] = argmax_t <Q_s, D_t>\n",
     "OUTER", "a selection with no outer reduction", "argmax_t"),
    ("no-outer-max", HEAD + "best[i, j, s] = max_t <Q_s, D_t>\n",
     "OUTER", "a selection with no outer reduction", "max_t"),
    ("splade-no-outer", "H[b, s, h]: float\nW[v, h]: float\nbias[v]: float\n"
     "rep[b, v] = max_s log1p(relu(<H_s, W_v> + bias_v))\n",
     "OUTER", "a selection with no outer reduction", "max_s"),
    ("sum-of-normal-forms", "P[b, n, x]: float\nR[b, m, x]: float\n"
     "cd[b] = mean_n max_m <P_n, R_m> + mean_m max_n <R_m, P_n>\n",
     "OUTER", "a sum of normal forms", "mean_n"),  # the sum's position is where it starts
    ("expression-around-outer", HEAD + "score[i, j] = 2 * sum_s max_t <Q_s, D_t>\n",
     "OUTER", "an expression around the outer reduction", "2 *"),
    ("epilogue", HEAD + "score[i, j] = sum_s log1p(max_t <Q_s, D_t>)\n",
     "post", "an epilogue between the outer reduction and the selection", "log1p"),
    ("weighted-epilogue", HEAD + "w[i, s]: float\nscore[i, j] = sum_s w_s * max_t <Q_s, D_t>\n",
     "post", "an epilogue", "w_s"),
    ("outer-sum-of-sum", HEAD + "score[i, j] = sum_s sum_t <Q_s, D_t>\n",
     "SELECT", "sum_s must apply to a max or min selection", "sum_t"),
    ("select-argmax", HEAD + "score[i, j] = sum_s argmax_t <Q_s, D_t>\n",
     None, "argmax_t must be the whole definition", "argmax_t"),  # the checker's, not the planner's
    ("pre-function", HEAD + "score[i, j] = sum_s max_t exp(<Q_s, D_t>)\n",
     "pre", "a function of the pairwise score", "exp"),
    ("sqdist", HEAD + "score[i, j] = sum_s min_t ||Q_s - D_t||^2\n",
     "pair", "the pairwise score sqdist is not supported yet", "||"),
    ("dist", HEAD + "score[i, j] = sum_s min_t ||Q_s - D_t||\n",
     "pair", "the pairwise score dist is not supported yet", "||"),
    ("l1", HEAD + "score[i, j] = sum_s min_t ||Q_s - D_t||_1\n",
     "pair", "the pairwise score l1 is not supported yet", "||"),
    ("select-not-a-pair", "W[i, j, s, t]: float\nscore[i, j] = sum_s max_t W[i, j, s, t]\n",
     "pair", "the selection must apply to a pairwise score", "max_t"),
    ("operand-carries-both", "Q[i, s, d]: float\nD[j, s, t, d]: float\nscore[i, j] = sum_s max_t <Q_s, D_t>\n",
     "pair", "D must carry exactly one of 's' and 't'", "D_t"),
]


@pytest.mark.parametrize("source, part, needle, at", [r[1:] for r in REJECTIONS], ids=[r[0] for r in REJECTIONS])
def test_rejections(source, part, needle, at):
    with pytest.raises(SpecError) as info:
        plan_of(source, "r.hsr")
    err = info.value
    assert needle in err.message, str(err)
    if part is None:
        assert type(err) is SpecError
        return
    assert type(err) is PlanError
    assert err.message.startswith(f"{part}: "), str(err)
    lines = source.split("\n")
    line = next(n for n, text in enumerate(lines, 1) if "=" in text and "[" in text.split("=")[0]
                and ":" not in text.split("=")[0])
    assert (err.line, err.col) == (line, lines[line - 1].index(at) + 1), str(err)
    text = str(err)
    assert text.startswith(f"r.hsr:{err.line}:{err.col}: {part}: ")
    rows = text.split("\n")
    assert rows[2] == "    " + " " * (err.col - 1) + "^"
    assert rows[3].startswith("hint: ")


def test_plan_error_hint_states_the_normal_form():
    with pytest.raises(PlanError) as info:
        plan_of(HEAD + "score[i, j] = max_s max_t <Q_s, D_t>\n")
    assert "OUTER_r SELECT_c pair(A_r, B_c)" in info.value.hint


def test_plan_error_is_a_spec_error():
    assert issubclass(PlanError, SpecError)


# -- explain ------------------------------------------------------------------------

def test_explain_maxsim():
    text = plan_file("maxsim.hsr").explain()
    first = text.splitlines()[0]
    assert first.startswith("score[i, j]") and "spec line 8" in first
    assert "select: max over 't'" in text
    assert "outer: sum over 's'" in text
    assert "pair: <Q, D> over axis 'd'" in text
    assert "where mask qmask: positions of 's' left out of the sum" in text
    assert "where mask dmask: positions of 't' left out of the max" in text
    assert "argmax [i, j, s]" in text


def test_explain_cos_min_mean_bounds():
    p = plan_of(HEAD + "dlen[j]: int\nscore[i, j] = mean_s min_t cos(Q_s, D_t) where t < dlen, s < 4\n")
    text = p.explain()
    assert text.startswith("score[i, j]")
    assert "select: min over 't'" in text and "outer: mean over 's'" in text
    assert "cos(Q, D)" in text
    assert "where t < dlen: positions of 't' left out of the min" in text
    assert "where s < 4: positions of 's' left out of the mean" in text


def test_explain_scalar_output():
    p = plan_of("Q[s, d]: float\nD[t, d]: float\nscore[] = sum_s max_t <Q_s, D_t>\n")
    assert "(scalar)" in p.explain()

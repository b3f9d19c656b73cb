"""Stage 3, plan: the hard-selection normal form and the kernel plan.

The bundled specs give the expected ``TermPlan`` fields; the accepted forms
(epilogues, terms, outer reductions, index outputs) give their hoisting and
backward plan; everything else is a ``PlanError`` whose message names the part
of the normal form it breaks (OUTER, post, SELECT, pre, pair).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from hsr.check import check
from hsr.errors import PlanError, SpecError
from hsr.parse import parse
from hsr.plan import Condition, Operand, Plan, TermPlan, plan

ROOT = Path(__file__).resolve().parent.parent
HEAD = "Q[i, s, d]: float\nD[j, t, d]: float\n"
PTS = "P[b, n, x]: float\nR[b, m, x]: float\n"


def plan_of(source: str, filename: str = "p.hsr") -> Plan:
    return plan(check(parse(source, filename)))


def term_of(source: str) -> TermPlan:
    p = plan_of(source)
    assert len(p.terms) == 1
    return p.terms[0]


def plan_file(name: str) -> Plan:
    path = ROOT / "ops" / name
    return plan_of(path.read_text(), path.name)


# -- the bundled specs -------------------------------------------------------------

def test_maxsim_plan():
    whole = plan_file("maxsim.hsr")
    assert (whole.out, whole.axes, whole.combine, whole.index_out) == ("score", ("i", "j"), "t0", False)
    p = whole.terms[0]
    assert (p.name, p.grid, p.outer, p.select, p.pair) == ("score", ("i", "j"), "sum", "max", "dot")
    assert (p.r, p.c, p.k) == ("s", "t", "d")
    assert p.a == Operand("Q", ("i", "s", "d"), ("i",))
    assert p.b == Operand("D", ("j", "t", "d"), ("j",))
    assert p.conds == (
        Condition("mask", "s", "qmask", ("i", "s"), None, 8),
        Condition("mask", "t", "dmask", ("j", "t"), None, 8),
    )
    assert p.conds_on("s") == p.conds[:1] and p.conds_on("t") == p.conds[1:]
    assert whole.signature == (
        ("Q", ("i", "s", "d"), "float", None), ("D", ("j", "t", "d"), "float", None),
        ("qmask", ("i", "s"), "bool", "all"), ("dmask", ("j", "t"), "bool", "all"),
    )
    assert (p.line, p.pair_line) == (8, 8)
    assert p.spec_line == "score[i, j] = sum_s max_t <Q_s, D_t>  where qmask, dmask"
    assert whole.family == "select_reduce"
    # no epilogue: the key is the dot itself, and the backward is the plain one
    assert (p.key, p.key_is_prim, p.hoisted, p.need_x, p.uniform, p.weighted) == ("dot", True, "key", False, True, False)
    assert p.weights == (("dot", "1.0"),) and p.aux == () and p.sides == ()


def test_maxsim_cos_plan():
    p = plan_file("maxsim_cos.hsr").terms[0]
    assert (p.grid, p.outer, p.select, p.pair, p.r, p.c, p.k) == (("i", "j"), "sum", "max", "cos", "s", "t", "d")
    assert (p.a.name, p.b.name) == ("Q", "D")
    assert [(c.kind, c.axis, c.name) for c in p.conds] == [("mask", "s", "qmask"), ("mask", "t", "dmask")]
    assert p.line == 7
    # cos = dot * ia * ib: the row's own norm ia is positive, so it leaves the tile loop
    assert p.aux == ("asq", "bsq") and p.hoisted == "ia*key"


@pytest.mark.parametrize("name, pair", [("maxsim_kd.hsr", "dot"), ("maxsim_kd_cos.hsr", "cos")])
def test_maxsim_kd_plans(name, pair):
    p = plan_file(name).terms[0]
    assert (p.name, p.grid, p.outer, p.select, p.pair) == ("score", ("i", "k"), "sum", "max", pair)
    assert (p.r, p.c, p.k) == ("s", "t", "d")
    assert p.a == Operand("Q", ("i", "s", "d"), ("i",))
    assert p.b == Operand("D", ("i", "k", "t", "d"), ("i", "k"))
    assert p.conds == (
        Condition("mask", "s", "qmask", ("i", "s"), None, 8),
        Condition("mask", "t", "dmask", ("i", "k", "t"), None, 8),
    )


def test_splade_plan():
    p = plan_file("splade.hsr").terms[0]
    assert (p.outer, p.r, p.c, p.k, p.grid) == ("none", "v", "s", "h", ("b",))
    assert (p.a.name, p.b.name) == ("W", "H")
    assert p.sides[0].name == "bias" and p.sides[0].side == "row" and p.sides[0].default == 0.0
    assert p.key == "dot" and p.hoisted == "Log1p(Relu(key + row_bias))" and p.select == "max"
    assert p.differentiable == ("W", "H", "bias")


def test_chamfer_plans():
    both = plan_file("chamfer.hsr")
    assert both.combine == "(t0 + t1)" and [t.name for t in both.terms] == ["cd", "cd_t1"]
    first, second = both.terms
    assert (first.a.name, first.b.name, first.r, first.c) == ("X", "Y", "n", "m")
    assert (second.a.name, second.b.name, second.r, second.c) == ("Y", "X", "m", "n")
    for t in both.terms:
        assert t.outer == "mean" and t.select == "min" and t.pair == "sqdist"
        # the key is the squared distance itself (exact differences, or the expansion on
        # shifted rows): no norms before the kernel, no relu to hoist
        assert t.key == "sq" and t.hoisted == "key" and t.key_is_prim
        assert t.key_linear is None and t.aux == () and t.key_sel == "x_best"
    point = plan_file("chamfer_point.hsr").terms[0]
    assert (point.outer, point.grid, point.r) == ("none", ("b",), "n")
    assert plan_file("chamfer_point_l1.hsr").terms[0].key == "l1"


def test_plan_is_deterministic_and_hashable():
    assert plan_file("maxsim.hsr") == plan_file("maxsim.hsr")
    assert hash(plan_file("maxsim.hsr")) == hash(plan_file("maxsim.hsr"))


# -- variants that plan ---------------------------------------------------------------

def test_swapped_operands_plan_with_a_as_the_outer_side():
    p = term_of(HEAD + "score[i, j] = sum_s max_t <D_t, Q_s>\n")
    assert (p.a.name, p.b.name) == ("Q", "D")
    assert (p.r, p.c) == ("s", "t")
    assert p.a.grid_axes == ("i",) and p.b.grid_axes == ("j",)
    straight = term_of(HEAD + "score[i, j] = sum_s max_t <Q_s, D_t>\n")
    assert p == dataclasses.replace(straight, spec_line="score[i, j] = sum_s max_t <D_t, Q_s>")


def test_swapped_cos_operands():
    p = term_of(HEAD + "score[i, j] = sum_s max_t cos(D_t, Q_s)\n")
    assert (p.a.name, p.b.name, p.pair) == ("Q", "D", "cos")


def test_selection_side_first_in_the_signature():
    """The operand roles follow the reductions, not the declaration order."""
    whole = plan_of("D[j, t, d]: float\nQ[i, s, d]: float\nscore[i, j] = sum_t max_s <D_t, Q_s>\n")
    p = whole.terms[0]
    assert (p.a.name, p.r, p.b.name, p.c) == ("D", "t", "Q", "s")
    assert whole.signature[0][0] == "D"


def test_mean_min_and_explicit_refs():
    p = term_of(HEAD + "score[i, j] = mean_s min_t <Q[i, s, :], D[j, t, :]>\n")
    assert (p.outer, p.select, p.pair, p.k) == ("mean", "min", "dot", "d")


def test_grid_order_follows_the_output():
    p = term_of(HEAD + "score[j, i] = sum_s max_t <Q_s, D_t>\n")
    assert p.grid == ("j", "i")
    assert p.a.grid_axes == ("i",) and p.b.grid_axes == ("j",)


def test_scalar_output():
    p = term_of("Q[s, d]: float\nD[t, d]: float\nscore[] = sum_s max_t <Q_s, D_t>\n")
    assert p.grid == () and p.a.grid_axes == () and p.b.grid_axes == ()


def test_bound_conditions():
    p = term_of(HEAD + "qlen[i]: int = full\ndlen[j]: int\n\n"
                "score[i, j] = sum_s max_t <Q_s, D_t> \\\n   where s < qlen[i], t < dlen, t < 16\n")
    assert p.conds == (
        Condition("bound", "s", "qlen", ("i",), None, 7),
        Condition("bound", "t", "dlen", ("j",), None, 7),
        Condition("bound", "t", None, (), 16, 7),
    )
    assert p.line == 6


def test_mixed_masks_and_bounds_keep_their_order_per_reduction():
    p = term_of(HEAD + "dmask[j, t]: bool = all\nqlen[i]: int\n"
                "score[i, j] = sum_s max_t <Q_s, D_t> where dmask, s < qlen[i]\n")
    # outer conditions first, then the selection's
    assert [(c.kind, c.axis) for c in p.conds] == [("bound", "s"), ("mask", "t")]


# -- the rest of the normal form ------------------------------------------------------

@pytest.mark.parametrize("outer", ["max", "min"])
def test_outer_max_and_min(outer):
    p = term_of(PTS + f"h[b] = {outer}_n min_m ||P_n - R_m||\n")
    assert (p.outer, p.select, p.pair) == (outer, "min", "dist")
    assert p.hoisted == "ClampedSqrt(key)"


def test_selection_with_no_outer_tiles_the_row_axis():
    p = term_of(HEAD + "best[i, j, s] = max_t <Q_s, D_t>\n")
    assert (p.outer, p.grid, p.r) == ("none", ("i", "j"), "s")


def test_index_output():
    whole = plan_of("X[n, x]: float\nC[k, x]: float\nassign[n] = argmin_k ||X_n - C_k||^2\n")
    p = whole.terms[0]
    assert whole.index_out and p.index_out and p.differentiable == ()
    # the squared distance is the key: the index selects on it directly
    assert p.key == "sq" and p.hoisted == "key" and p.select == "min"


def test_a_decreasing_epilogue_flips_the_selection():
    p = term_of("X[n, x]: float\nY[m, x]: float\nsim[n] = max_m exp(-||X_n - Y_m||^2 / 2)\n")
    assert (p.written_select, p.select) == ("max", "min")
    assert p.hoisted == "exp(-key/2)"


def test_monotone_over_the_keys_own_range():
    """1 / (1 + x) has a pole at -1 but a distance is never negative: hoisted; over a
    dot (any sign) it stays in the loop."""
    p = term_of(HEAD + "score[i, j] = sum_s min_t 1 / (1 + ||Q_s - D_t||^2)\n")
    assert (p.key, p.select, p.hoisted) == ("sq", "max", "1/(key + 1)")
    p = term_of(HEAD + "score[i, j] = sum_s min_t 1 / (1 + <Q_s, D_t>)\n")
    assert p.hoisted == "key" and p.key != "dot"


def test_a_non_monotone_epilogue_stays_in_the_loop():
    p = term_of(HEAD + "score[i, j] = sum_s max_t abs(<Q_s, D_t> - 1)\n")
    assert p.hoisted == "key" and "tl.abs" in p.key and p.need_x
    assert p.key_linear is None  # not linear in the dot: formed after it


def test_a_key_linear_in_the_dot_with_a_number_for_slope():
    assert term_of(HEAD + "score[i, j] = sum_s max_t (3 * <Q_s, D_t> + 1)\n").key_linear is None  # key: the dot
    p = term_of(HEAD + "c[j, t]: float\nscore[i, j] = sum_s max_t (2 * <Q_s, D_t> + c_t)\n")
    assert p.key_linear[0] == "2.0" and "col_c" in p.key_linear[1]
    assert term_of(HEAD + "score[i, j] = sum_s max_t cos(Q_s, D_t)\n").key_linear is None  # slope ia * ib
    assert plan_file("maxsim.hsr").terms[0].key_linear is None  # the key is the dot itself


def test_row_and_column_terms():
    p = term_of(HEAD + "w[i, s]: float\nc[j, t]: float = 0\n"
                "score[i, j] = mean_s w_s * tanh(max_t (<Q_s, D_t> + c_t))\n")
    assert [(s.name, s.side, s.default) for s in p.sides] == [("c", "col", 0.0), ("w", "row", None)]
    assert "col_c" in p.key and p.differentiable == ("Q", "D", "c", "w")
    assert p.col_grads and p.row_grads and not p.uniform
    assert p.weighted  # a weight per row (w_s, tanh' at the selection): it goes into the one-hot tile


def test_only_a_dot_pair_is_weighted():
    assert not term_of(HEAD + "score[i, j] = sum_s max_t cos(Q_s, D_t)\n").weighted
    assert not term_of(HEAD + "score[i, j] = sum_s min_t ||Q_s - D_t||^2\n").weighted
    assert term_of(HEAD + "score[i, j] = max_s max_t <Q_s, D_t>\n").weighted


def test_combinations_of_terms():
    p = plan_of(PTS + "cd[b] = 0.5 * (mean_n min_m ||P_n - R_m||^2 - 2 * sum_m min_n ||R_m - P_n||^2)\n")
    assert p.combine == "(0.5 * (t0 - (2.0 * t1)))"


# -- rejections ----------------------------------------------------------------------

REJECTIONS = [
    ("function-around-outer", HEAD + "score[i, j] = sqrt(sum_s max_t <Q_s, D_t>)\n",
     "OUTER", "a function of the outer reduction", "sqrt"),
    ("product-of-terms", PTS + "cd[b] = (sum_n min_m <P_n, R_m>) * (sum_m min_n <R_m, P_n>)\n",
     "OUTER", "not multiplied", "(sum_n"),
    ("outer-sum-of-sum", HEAD + "score[i, j] = sum_s sum_t <Q_s, D_t>\n",
     "SELECT", "sum_t is not a selection", "sum_t"),
    ("two-selections", HEAD + "E[k, u, d]: float\nscore[i, j, k] = sum_s max_t max_u (<Q_s, D_t> + <Q_s, E_u>)\n",
     "SELECT", "one selection per term", "max_u"),
    ("select-argmax", HEAD + "score[i, j] = sum_s argmax_t <Q_s, D_t>\n",
     None, "argmax_t must be the whole definition", "argmax_t"),  # the checker's, not the planner's
    ("select-not-a-pair", "W[i, j, s, t]: float\nscore[i, j] = sum_s max_t W[i, j, s, t]\n",
     "pair", "it has no pairwise score", "max_t"),
    ("two-pairs", HEAD + "score[i, j] = sum_s max_t <Q_s, D_t> * <Q_s, D_t>\n",
     "pair", "it has two pairwise scores", "max_t"),
    ("operand-carries-both", "Q[i, s, d]: float\nD[j, s, t, d]: float\nscore[i, j] = sum_s max_t <Q_s, D_t>\n",
     "pair", "Q must carry 's' and D must not", "Q_s"),
    ("row-term-off-the-row-side", HEAD + "w[j, s]: float\nscore[i, j] = sum_s w_s * max_t <Q_s, D_t>\n",
     "post", "w varies over 'j', which Q does not carry", "w_s"),
    ("nothing-to-tile", "q[d]: float\nD[j, t, d]: float\nbest[j] = max_t <q, D_t>\n",
     "pair", "q carries no output axis of its own", "q"),
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
        plan_of(HEAD + "score[i, j] = sum_s sum_t <Q_s, D_t>\n")
    assert "OUTER_r post(SELECT_c pre(pair(A_r, B_c)))" in info.value.hint


def test_plan_error_is_a_spec_error():
    assert issubclass(PlanError, SpecError)


# -- explain ------------------------------------------------------------------------

def test_explain_maxsim():
    text = plan_file("maxsim.hsr").explain()
    first = text.splitlines()[0]
    assert first.startswith("score[i, j]") and "spec line 8" in first
    assert "running max of dot over 't'" in text
    assert "outer: sum over 's'" in text
    assert "pair: <Q, D> over axis 'd'" in text
    assert "where mask qmask: positions of 's' left out" in text
    assert "where mask dmask: positions of 't' left out" in text
    assert "saved int32 index" in text


def test_explain_hoisting_and_terms():
    text = plan_file("chamfer.hsr").explain()
    assert "2 normal forms, combined on the host: (t0 + t1)" in text
    assert "exact at any offset" in text
    dist = plan_of(PTS + "h[b] = max_n min_m ||P_n - R_m||\n").explain()
    assert "epilogue hoisted after the selection (monotone, sympy): ClampedSqrt(key)" in dist
    flipped = plan_of("X[n, x]: float\nY[m, x]: float\nsim[n] = max_m exp(-||X_n - Y_m||^2)\n").explain()
    assert "so max became min" in flipped


def test_explain_scalar_output():
    p = plan_of("Q[s, d]: float\nD[t, d]: float\nscore[] = sum_s max_t <Q_s, D_t>\n")
    assert "(scalar)" in p.explain()


# -- lowering ids (what keys tuned configs) -------------------------------------------

MAXSIM = HEAD + "qmask[i, s]: bool = all\ndmask[j, t]: bool = all\n" \
    "score[i, j] = sum_s max_t <Q_s, D_t> where qmask, dmask\n"
RENAMED = """# the same lowering: other names, declaration order, formatting and comments
doc_mask[doc, tok]: bool = all
Docs[doc, tok, h]: float
Queries[q, qt, h]: float   # queries
query_mask[q, qt]: bool = all

# a blank line, then the definition on a later line
sim[q, doc] =  sum_qt   max_tok <Queries[q, qt, :], Docs_tok>   where doc_mask, query_mask
"""


def lowering(source: str) -> list[str]:
    from hsr.plan import lowering_id
    p = plan_of(source)
    return [lowering_id(t, p.signature) for t in p.terms]


def test_a_lowering_id_ignores_names_and_formatting():
    (maxsim,) = lowering(MAXSIM)
    assert lowering(RENAMED) == [maxsim]
    assert maxsim.startswith("sum_max_dot-") and len(maxsim.split("-")[1]) == 12
    assert lowering((ROOT / "ops" / "maxsim.hsr").read_text()) == [maxsim]  # the bundled spec, with its comments
    weighted = HEAD + "w[i, s]: float\nb[j, t]: float\nscore[i, j] = sum_s w_s * max_t (<Q_s, D_t> + b_t)\n"
    renamed = HEAD + "zeta[i, s]: float\na[j, t]: float\nscore[i, j] = sum_s zeta_s * max_t (<Q_s, D_t> + a_t)\n"
    assert lowering(renamed) == lowering(weighted)  # per-row and per-column terms by role too
    # Chamfer's two directions: one kernel, two prefixes (cd, cd_t1), operands and bounds swapped
    first, second = lowering((ROOT / "ops" / "chamfer.hsr").read_text())
    assert first == second


PLAIN = HEAD + "score[i, j] = sum_s max_t <Q_s, D_t>\n"
OTHER_LOWERINGS = {
    "weighted": HEAD + "w[i, s]: float\nqmask[i, s]: bool = all\ndmask[j, t]: bool = all\n"
                       "score[i, j] = sum_s w_s * max_t <Q_s, D_t> where qmask, dmask\n",
    "min": MAXSIM.replace("max_t", "min_t"),
    "cos": MAXSIM.replace("<Q_s, D_t>", "cos(Q_s, D_t)"),
    "sqdist": MAXSIM.replace("<Q_s, D_t>", "||Q_s - D_t||^2"),
    "unmasked": PLAIN,
    "one-mask": HEAD + "dmask[j, t]: bool = all\nscore[i, j] = sum_s max_t <Q_s, D_t> where dmask\n",
    "required-mask": MAXSIM.replace("qmask[i, s]: bool = all", "qmask[i, s]: bool"),
    "outer-max": MAXSIM.replace("sum_s", "max_s"),
    "outer-min": MAXSIM.replace("sum_s", "min_s"),
    "outer-mean": MAXSIM.replace("sum_s", "mean_s"),
    "unmasked-outer-max": PLAIN.replace("sum_s", "max_s"),
    "epilogue": MAXSIM.replace("max_t <Q_s, D_t>", "max_t exp(<Q_s, D_t>)"),
    "scaled": MAXSIM.replace("sum_s max_t", "sum_s 2 * max_t"),
    "column-term": HEAD + "b[j, t]: float\nscore[i, j] = sum_s max_t (<Q_s, D_t> + b_t)\n",
    "int8": HEAD.replace("float", "int8") + "score[i, j] = sum_s max_t <Q_s, D_t>\n",
    "kd": "Q[i, s, d]: float\nD[i, k, t, d]: float\nscore[i, k] = sum_s max_t <Q_s, D_t>\n",
    "one-query": "Q[s, d]: float\nD[j, t, d]: float\nscore[j] = sum_s max_t <Q_s, D_t>\n",
    "argmax": HEAD + "score[i, j, s] = argmax_t <Q_s, D_t>\n",
    "splade": "H[b, s, h]: float\nW[v, h]: float\nrep[b, v] = max_s <H_s, W_v>\n",
}


@pytest.mark.parametrize("name", OTHER_LOWERINGS)
def test_a_lowering_id_changes_with_the_lowering(name):
    assert lowering(OTHER_LOWERINGS[name]) != lowering(MAXSIM)


def test_lowering_ids_of_different_lowerings_all_differ():
    ids = [lowering(s)[0] for s in OTHER_LOWERINGS.values()]
    assert len(set(ids)) == len(ids)


def test_a_lowering_id_says_its_operand_is_formed_in_the_kernel():
    """The id's words name a computed operand's kind (the config predictor reads them)."""
    codes = HEAD.replace("D[j, t, d]: float\n", "") + "C[c, d]: float\ncodes[j, t]: int\n" \
        "D[j, t, d] = C[codes[j, t], d]\nscore[i, j] = sum_s max_t <Q_s, D_t>\n"
    projected = HEAD.replace("D[j, t, d]: float\n", "") + "H[j, t, h]: float\nW[d, h]: float\n" \
        "D[j, t, d] = <H[j, t, :], W[d, :]>\nscore[i, j] = sum_s max_t <Q_s, D_t>\n"
    assert lowering(codes)[0].startswith("sum_max_dot_rows-")
    assert lowering(projected)[0].startswith("sum_max_dot_projected-")
    assert lowering(PLAIN)[0].startswith("sum_max_dot-")


def test_explain_names_the_lowering():
    from hsr.plan import lowering_id
    p = plan_file("maxsim.hsr")
    lines = [x for x in p.explain().splitlines() if "tuned configs" in x]
    assert lines == [f"  tuned configs keyed by lowering {lowering_id(p.terms[0], p.signature)}"]


# -- explain(sizes): the names are the spec's axes; a missing one takes a stated default --------

SPEC_FILES = sorted((ROOT / "examples").glob("*.hsr")) + sorted((ROOT / "ops").glob("*.hsr"))


def test_explain_takes_partial_sizes_of_every_spec():
    """Every example and bundled spec, with no size, one, all but one, and all of
    them, on each machine explain knows: the forward kernel is named, the axes
    left out are named with the size they are taken as, and nothing raises."""
    from hsr.plan import EXPLAIN_SIZE

    for path in SPEC_FILES:
        p = plan_of(path.read_text(), path.name)
        axes = p.spec_axes
        assert set(p.axes) <= set(axes) and all(a in axes for _, decl, *_ in p.signature for a in decl)
        partial = [{}, *({a: 5} for a in axes), *({b: 7 for b in axes if b != a} for a in axes)]
        for sizes in [*partial, dict.fromkeys(axes, 3)]:
            missing = [a for a in axes if a not in sizes]
            for dtype in ("float16", "float32"):
                for where in ("cuda9", "interpreter", "cpu"):
                    text = p.explain(sizes, dtype, where)
                    assert text.count("forward kernel:") == len(p.terms), (path.name, sizes, text)
                    if not missing:
                        assert "not given" not in text, (path.name, sizes)
                    elif len(missing) == 1:
                        assert f"axis {missing[0]} not given: taken as {EXPLAIN_SIZE}" in text, (path.name, sizes)
                    else:
                        assert f"axes {', '.join(missing)} not given: taken as {EXPLAIN_SIZE} each" in text
        assert "not given" not in p.explain()  # the rule, without sizes, says nothing of sizes


def test_explain_refuses_an_axis_the_spec_does_not_have():
    from hsr.errors import HsrError, TensorError

    p = plan_file("maxsim.hsr")
    with pytest.raises(TensorError) as err:
        p.explain({"i": 8, "zz": 3})
    assert isinstance(err.value, HsrError) and isinstance(err.value, ValueError)
    assert "'zz'" in str(err.value) and "i, s, d, j, t" in str(err.value)
    for bad in (-1, 2.5, "8", True):
        with pytest.raises(TensorError, match="axis 'd' must be a whole number >= 0"):
            p.explain({"d": bad})
    with pytest.raises(TensorError, match="sizes map the spec's axes"):
        p.explain([1, 2])
    # the same sizes given in full, or by a term on its own, name the same kernel
    full = dict(i=8, j=10, s=128, t=128, d=128)
    assert p.explain({"i": 8, "j": 10}).replace("  axes s, d, t not given: taken as 128 each\n", "") == p.explain(full)
    term = p.terms[0]
    assert term.explain(p.signature, {"i": 8, "j": 10})[0] == "  axes s, d, t not given: taken as 128 each"

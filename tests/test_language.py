"""Random specs from the whole normal form, compiled and checked against the
float64 reference: values, indices and gradients, through the interpreter
(or on CUDA with HSR_TEST_DEVICE=cuda).

Hypothesis writes a spec from parts (pairwise score, epilogue before and after
the selection, per-row and per-column terms, masks, outer reduction or none,
index outputs, a sum of two terms), draws shapes off powers of two, and
compares every float input's gradient for a drawn backward mode.
"""

from __future__ import annotations

import math
import re

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import examples

import hsr

PAIRS = {"dot": "<{a}, {b}>", "cos": "cos({a}, {b})", "sqdist": "||{a} - {b}||^2",
         "dist": "||{a} - {b}||", "l1": "||{a} - {b}||_1"}
# {p}: the pairwise score; {col}: a per-column term of the selected side; {row}: a per-row term
PRES = ["{p}", "-{p}", "exp(-{p} / 4)", "log1p(relu({p}))", "tanh({p})", "abs({p} - 1)",
        "{p} + {col}", "sigmoid({p} + {col})", "softplus({p}) * 2", "({p})^2", "relu({p} + {row})",
        "{row} * {p}"]
POSTS = ["{v}", "{row} * {v}", "{v} + {row}", "sigmoid({v})", "2 * {v} - 1"]
LAYOUTS = {
    # name: (A decl, B decl, row term decl, col term decl, A mask, B mask, grid of a term with an outer reduction)
    "points": ("P[b, n, x]: float", "R[b, m, x]: float", "w[b, n]: float", "c[b, m]: float",
               "pm[b, n]: bool = all", "rm[b, m]: bool = all", ("b",), "n", "m", ("b", "n")),
    "retrieval": ("Q[i, s, x]: float", "D[j, t, x]: float", "w[i, s]: float", "c[j, t]: float",
                  "qm[i, s]: bool = all", "dm[j, t]: bool = all", ("i", "j"), "s", "t", ("i", "j", "s")),
}


OUTERS = ["sum", "mean", "max", "min", "none", "none", "index"]


@st.composite
def specs(draw, layouts=None, pairs=None, outers=None, pres=None, masks=True):
    """(spec text, whether its output is an index). The keywords narrow a slot's
    choices (test_dispatch_families.py steers specs toward a kernel family with
    them): layouts, pairs, outers (of OUTERS), pres (a function of the drawn
    select, "max" or "min", to the pre-selection epilogues of PRES allowed with
    it), masks=False for none; left out, every choice."""
    layout = draw(st.sampled_from(sorted(LAYOUTS) if layouts is None else layouts))
    a_decl, b_decl, row_decl, col_decl, a_mask, b_mask, grid, r, c, rows_grid = LAYOUTS[layout]
    a, b = a_decl.split("[")[0], b_decl.split("[")[0]
    row, col = row_decl.split("[")[0], col_decl.split("[")[0]
    pair = draw(st.sampled_from(sorted(PAIRS) if pairs is None else pairs))
    outer = draw(st.sampled_from(OUTERS if outers is None else outers))
    select = draw(st.sampled_from(["max", "min"]))
    pre = "{p}" if outer == "index" else draw(st.sampled_from(PRES if pres is None else pres(select)))
    post = draw(st.sampled_from(POSTS)) if outer not in ("none", "index") else "{v}"
    p = PAIRS[pair].format(a=f"{a}_{r}", b=f"{b}_{c}")
    body = pre.format(p=p, col=f"{col}_{c}", row=f"{row}_{r}")
    decls = [a_decl, b_decl]
    conds = []
    if "{col}" in pre:
        decls.append(col_decl)
    if "{row}" in pre or "{row}" in post:
        decls.append(row_decl)
    if masks and draw(st.booleans()):
        decls.append(b_mask)
        conds.append(b_mask.split("[")[0])
    if outer in ("none", "index"):
        op = "argmax" if select == "max" else "argmin"
        term = f"{op if outer == 'index' else select}_{c} ({body})"
        axes = rows_grid
    else:
        if masks and draw(st.booleans()):
            decls.append(a_mask)
            conds.append(a_mask.split("[")[0])
        sel = f"{select}_{c} ({body})"
        term = f"{outer}_{r} (" + post.format(v=f"({sel})", row=f"{row}_{r}") + ")"
        axes = grid
    expr = term
    if layout == "points" and outer not in ("none", "index") and "{row}" not in pre + post \
            and "{col}" not in pre and not conds and draw(st.booleans()):
        other = PAIRS[pair].format(a=f"{b}_{c}", b=f"{a}_{r}")
        expr = f"{term} + 0.5 * {outer}_{c} {select}_{r} {other}"
    where = f"  where {', '.join(conds)}" if conds else ""
    text = "\n".join(decls) + f"\n\nout[{', '.join(axes)}] = {expr}{where}\n"
    return text, outer == "index"


SIZES = st.fixed_dictionaries({
    "b": st.integers(1, 2), "n": st.integers(1, 19), "m": st.integers(1, 23), "x": st.integers(1, 20),
    "i": st.integers(1, 2), "j": st.integers(1, 3), "s": st.integers(1, 9), "t": st.integers(1, 37),
})


def _inputs(op, sizes, seed, device):
    """Random inputs; for an unsquared distance, points on two offset grids instead.

    ||a - b|| is computed as sqrt(|a|^2 + |b|^2 - 2<a, b>): the expansion's
    rounding, about 1e-7 of |a|^2 + |b|^2, is amplified by the square root's
    derivative where two points nearly coincide (README, known gaps). On the
    grids (multiples of 1/4, and of 1/4 plus 1/8 for the first operand) every
    product and sum is exact and no two points of A and B coincide, so values,
    ties and gradients are exact; the other pairs keep normal draws."""
    gen = torch.Generator().manual_seed(seed)
    dist = re.search(r"\|\|[^|]+\|\|(?!\^|_)", op.module.SPEC) is not None
    args = []
    for n, t in enumerate(op.program.tensors):
        shape = [sizes[a] for a in t.axes]
        if t.kind == "float" and dist:
            args.append(torch.randint(-8, 9, shape, generator=gen) / 4.0 + (0.125 if n == 0 else 0.0))
        elif t.kind == "float":
            args.append(torch.randn(shape, generator=gen))
        else:
            args.append(torch.rand(shape, generator=gen) > 0.25)
    return args


def _pair_scores(text, args):
    """float64 scores [..., r, c] of an index spec (whose selected term is the pair
    itself), masked positions at -inf for argmax, +inf for argmin."""
    a, b = args[0].double(), args[1].double()
    if not text.startswith("P"):  # retrieval: Q[i, s, x], D[j, t, x] -> [i, j, s, t]
        a, b = a[:, None], b[None]
    a, b = a[..., :, None, :], b[..., None, :, :]
    if "cos(" in text:
        eps = 1e-12
        scores = (a * b).sum(-1) / (a.norm(dim=-1).clamp_min(eps) * b.norm(dim=-1).clamp_min(eps))
    elif "||_1" in text:
        scores = (a - b).abs().sum(-1)
    elif "||^2" in text:
        scores = ((a - b) ** 2).sum(-1)
    elif "||" in text:
        scores = ((a - b) ** 2).sum(-1).sqrt()
    else:
        scores = (a * b).sum(-1)
    if "where" in text:  # the selected side's mask: [b, m] or [j, t]
        keep = args[2] if text.startswith("P") else args[2][None]
        scores = scores.masked_fill(~keep[..., None, :], -math.inf if "argmax" in text else math.inf)
    return scores


def _check_index(text, args, got, want):
    """The kernel's index is the reference's, or ties it to rounding: two scores
    that round apart in fp32 may be equal in float64 (cos of 1-d vectors is +-1
    for all), and either index is then right."""
    if torch.equal(got, want):
        return
    scores = _pair_scores(text, args)
    best = scores.amax(-1) if "argmax" in text else scores.amin(-1)
    assert torch.equal(got < 0, want < 0), f"{text}\n{got}\n{want}"  # -1: nothing to select
    at = scores.gather(-1, got.clamp_min(0)[..., None])[..., 0]
    tol = 1e-5 * max(1.0, scores[scores.isfinite()].abs().max().item() if scores.isfinite().any() else 1.0)
    near = ((at - best).abs() <= tol) | (got < 0)
    assert near.all(), f"{text}\n{got}\n{want}\nscores at got {at}\nbest {best}"


@pytest.fixture(scope="module")
def spec_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("hsr-cache")


@settings(max_examples=examples(40))
@given(specs(), SIZES, st.integers(0, 2**31 - 1))
def test_random_specs_match_the_reference(spec_cache, device, backward, spec, sizes, seed):
    text, index_out = spec
    op = hsr.compile(text, cache_dir=spec_cache)
    args = _inputs(op, sizes, seed, device)
    ref_args = [x.double().requires_grad_() if x.is_floating_point() else x for x in args]
    ref = op.reference(*ref_args)
    mine_args = [x.to(device).requires_grad_() if x.is_floating_point() else x.to(device) for x in args]
    out = op(*mine_args, backward=backward)
    assert out.shape == ref.shape, text
    if index_out:
        assert out.dtype == torch.int64
        _check_index(text, args, out.cpu(), ref)
        return
    scale = max(ref.abs().max().item() if ref.numel() else 0.0, 1.0)
    err = (out.detach().cpu().double() - ref.detach()).abs().max().item() if ref.numel() else 0.0
    assert err <= 2e-4 * scale, f"{text}\nvalue error {err}\n{out}\n{ref}"
    weights = torch.randn(ref.shape, generator=torch.Generator().manual_seed(seed + 1), dtype=torch.float64)
    floats = [x for x in mine_args if x.is_floating_point()]
    ref_floats = [x for x in ref_args if x.is_floating_point()]
    mine = torch.autograd.grad((out.double() * weights.to(device)).sum(), floats, allow_unused=True)
    theirs = torch.autograd.grad((ref * weights).sum(), ref_floats, allow_unused=True)
    for t, g, want in zip([t for t in op.program.tensors if t.kind == "float"], mine, theirs):
        want = torch.zeros_like(ref_floats[0]) if want is None else want
        g = torch.zeros_like(want) if g is None else g.detach().cpu().double()
        bound = 2e-3 * max(want.abs().max().item() if want.numel() else 0.0, 1.0)
        gerr = (g - want).abs().max().item() if want.numel() else 0.0
        assert gerr <= bound, f"{text}\ngrad {t.name} ({backward}): error {gerr}\n{g}\n{want}"

"""Every forward family the dispatch can choose, reached by random specs and
checked against the float64 reference through the interpreter.

For each family of dispatch.FAMILIES, hypothesis draws random specs of the normal
form from test_language's strategy, its slots narrowed only as far as the family
needs (the lean forward an outer reduction, in 16-bit, int8 or fp8 rows; tiles-long a
stacked outer axis; split and both-ways a min of a plain L2 or L1 pair per point;
elementwise an L1 pair; int8 and fp8 the same specs on quantized operands), then
sizes, a dtype and the switches that reach it here (a contraction of 16 or 32 in
fp16/bf16 for lean, over 256 for the long ones, at most 8 for points, HSR_SPLIT=1
for split). The family a call takes is recorded from the kernels it launches
(test_dispatch's spy), never assumed from the target. Each case checks values,
the index where the output is one, and every float input's gradient against
``op.reference`` (float64), and that ``op.explain(sizes)`` names the family that
ran. The families reached are counted: the test fails if one never ran.

All ten families run through the interpreter. int8 and fp8 are the general tile
loop on quantized rows (no gradient); the lean forward takes quantized rows too. both-ways is never what ``op(...)`` runs (a
spec that writes both directions, Chamfer's sum, has outer reductions and runs one
general kernel per term): it is the module's ``both_ways(X, Y)``, the call of both
directions, made where the drawn spec's module carries it.
"""

from __future__ import annotations

import collections

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from profiles import examples

import hsr
from hsr import dispatch
from test_dispatch import _launched
from test_language import PAIRS, PRES, SIZES, _check_index, _inputs, specs

EXAMPLES = examples(20)  # per family (20 nominal: 200 cases, about 100 s on 2 cores)

FLOATS = [torch.float32, torch.float16, torch.bfloat16]
VALUE_TOL = 2e-4  # of max(|reference|, 1), as test_language (fp32 outputs; the reference takes the rounded inputs)
GRAD_TOL = {torch.float32: 2e-3, torch.float16: 1e-2, torch.bfloat16: 3e-2}  # 16-bit gradients, as test_splade
LEAN_MIN_ROWS = 4  # the lean forward's row threshold here (128 on a GPU), as test_dispatch
NOT_L1 = sorted(set(PAIRS) - {"l1"})
OUTER = ["sum", "mean", "max", "min"]
# pre-selection epilogues that keep a min of the plain pair (a decreasing one under a max)
NEAREST = {"min": ["{p}", "log1p(relu({p}))", "tanh({p})", "softplus({p}) * 2", "({p})^2"],
           "max": ["-{p}", "exp(-{p} / 4)"]}
PER_POINT = dict(layouts=["points"], outers=["none"], pres=NEAREST.get, masks=False)
SHORT = st.one_of(st.integers(9, 40), st.sampled_from([64, 129, 256]))
LONG = st.integers(257, 290)
ALIGNED = st.integers(33, 36).map(lambda k: 8 * k)  # rows of 16-byte multiples in every dtype: TMA takes them

# family: (spec slots, contraction sizes, dtypes)
FAMILIES = {
    "lean": (dict(pairs=NOT_L1, outers=OUTER), st.sampled_from([16, 32]),
             st.sampled_from([torch.float16, torch.bfloat16, "int8", "fp8"])),
    "tiles": (dict(pairs=NOT_L1), SHORT, st.sampled_from(FLOATS)),
    # a stacked outer axis (in-batch retrieval) keeps TMA out; one value per row does not
    "tiles-long": (dict(layouts=["retrieval"], pairs=NOT_L1, outers=OUTER), LONG, st.sampled_from(FLOATS)),
    "tiles-tma": (dict(pairs=NOT_L1, outers=["none", "index"]), ALIGNED, st.sampled_from(FLOATS)),
    "points": (dict(pairs=NOT_L1), st.integers(1, dispatch.SMALL_D_MAX), st.sampled_from(FLOATS)),
    "split": (dict(PER_POINT, pairs=["dist", "sqdist"]), st.integers(1, 4), st.sampled_from(FLOATS)),
    "both-ways": (dict(PER_POINT, pairs=["dist", "sqdist", "l1"]), st.integers(1, dispatch.SMALL_D_MAX),
                  st.sampled_from(FLOATS)),
    "elementwise": (dict(pairs=["l1"]), st.one_of(st.integers(1, 40), LONG), st.sampled_from(FLOATS)),
    "int8": (dict(pairs=["dot"]), st.one_of(st.integers(1, 40), LONG), st.just("int8")),
    "fp8": (dict(pairs=["dot"]), st.one_of(st.integers(1, 40), LONG), st.just("fp8")),
}
OPERANDS = ("P[b, n, x]", "R[b, m, x]", "Q[i, s, x]", "D[j, t, x]")
ROWS = {"P": "n", "Q": "s"}  # each layout's row axis


@st.composite
def cases(draw, target):
    slots, contraction, dtypes = FAMILIES[target]
    dtype = draw(dtypes)
    if dtype in ("int8", "fp8"):  # quantized rows meet in a dot only
        slots = dict(slots, pairs=["dot"])
    text, index_out = draw(specs(**slots))
    if dtype in ("int8", "fp8"):  # the same spec on quantized operands (they enter only the dot)
        for operand in OPERANDS:
            text = text.replace(f"{operand}: float", f"{operand}: {dtype}")
    sizes = dict(draw(SIZES), x=draw(contraction))
    if target == "lean":
        row = ROWS[text[0]]
        sizes[row] = max(sizes[row], LEAN_MIN_ROWS)
    backward = draw(st.sampled_from(["atomic", "deterministic-inverse", "deterministic-onehot"]))
    return dict(target=target, text=text, index_out=index_out, sizes=sizes, dtype=dtype, backward=backward,
                seed=draw(st.integers(0, 2**31 - 1)))


def _family(op, launched: str) -> str:
    """The dispatch family of a forward the spy saw: an L1 pair's general kernel is the
    elementwise loop, quantized rows' general loop the int8 or fp8 family (as forward_kernel says)."""
    term = op.plan.terms[0]
    if term.a.quantized and launched != "lean":
        return term.a.quantized
    if term.pair == "l1" and launched not in ("lean", "both-ways"):
        return "elementwise"
    return launched


def _sized(op, sizes: dict) -> dict:
    """The sizes of the spec's own axes (explain refuses an axis the spec does not have)."""
    return {a: n for a, n in sizes.items() if a in op.plan.spec_axes}


def _named(op, sizes, dtype, masked=False) -> list[str]:
    """The forward families explain(sizes) names, one per term; masked: the one it
    names for a call that gives the masks (a mean runs lean only without them)."""
    lines = op.explain(_sized(op, sizes), dtype, "cpu").splitlines()
    named = []
    for line in lines:
        if line.strip().startswith("forward kernel:"):
            given = line.split("given a mask:", 1)
            named.append((given[1] if masked and len(given) == 2 else line.split(":", 1)[1]).split()[0])
    return named


def _args(op, sizes, seed, dtype):
    """test_language's inputs in the drawn dtype (one for every float input);
    quantized operands as small integers (int8) or their fp8 rounding."""
    args = _inputs(op, sizes, seed, "cpu")
    gen = torch.Generator().manual_seed(seed + 2)
    out = []
    for t, x in zip(op.program.tensors, args):
        if t.kind in ("int8", "fp8"):  # (test_language draws floats and masks only)
            x = torch.randn([sizes[a] for a in t.axes], generator=gen)
            x = (x * 4).round().to(torch.int8) if t.kind == "int8" else x.to(torch.float8_e4m3fn)
        elif x.is_floating_point() and isinstance(dtype, torch.dtype):
            x = x.to(dtype)
        out.append(x)
    return out


def _close_values(text, got, want, what):
    assert got.shape == want.shape, f"{text}\n{what}: shape {tuple(got.shape)}, reference {tuple(want.shape)}"
    scale = max(want.abs().max().item() if want.numel() else 0.0, 1.0)
    err = (got.detach().cpu().double() - want.detach()).abs().max().item() if want.numel() else 0.0
    assert err <= VALUE_TOL * scale, f"{text}\n{what}: value error {err}\n{got}\n{want}"


def _close_grads(text, names, mine, theirs, dtype, what):
    for name, g, want in zip(names, mine, theirs):
        g = torch.zeros_like(want) if g is None else g.detach().cpu().double()
        bound = GRAD_TOL[dtype] * max(want.abs().max().item() if want.numel() else 0.0, 1.0)
        gerr = (g - want).abs().max().item() if want.numel() else 0.0
        assert gerr <= bound, f"{text}\ngrad {name} ({what}): error {gerr}\n{g}\n{want}"


def _check_call(op, case, args):
    """op(*args): values, the index or the gradients, against the reference."""
    text, dtype = case["text"], case["dtype"]
    floats = [i for i, (t, x) in enumerate(zip(op.program.tensors, args)) if t.kind == "float"]
    grad = not case["index_out"] and isinstance(dtype, torch.dtype)  # quantized rows: no gradient
    ref_args = [x.double().requires_grad_() if grad and i in floats else x for i, x in enumerate(args)]
    ref = op.reference(*ref_args)
    mine_args = [x.clone().requires_grad_() if grad and i in floats else x for i, x in enumerate(args)]
    out = op(*mine_args, backward=case["backward"].partition("-")[0])
    if case["index_out"]:
        assert out.dtype == torch.int64 and out.shape == ref.shape, text
        _check_index(text, args, out, ref)
        return
    _close_values(text, out, ref, "value")
    if not grad:
        return
    weights = torch.randn(ref.shape, generator=torch.Generator().manual_seed(case["seed"] + 1), dtype=torch.float64)
    mine = torch.autograd.grad((out.double() * weights).sum(), [mine_args[i] for i in floats], allow_unused=True)
    theirs = torch.autograd.grad((ref * weights).sum(), [ref_args[i] for i in floats], allow_unused=True)
    theirs = [torch.zeros_like(ref_args[i]) if w is None else w for i, w in zip(floats, theirs)]
    _close_grads(text, [op.program.tensors[i].name for i in floats], mine, theirs, dtype, case["backward"])


def _check_both_ways(op, case, args):
    """module.both_ways(A, B): both directions from one pass, against the reference
    each way round (A to B and B to A), values and gradients."""
    text, dtype = case["text"], case["dtype"]
    a, b = (x.clone().requires_grad_() for x in args)
    ra, rb = (x.double().requires_grad_() for x in args)
    out, out_sw = op.module.both_ways(a, b, backward=case["backward"].partition("-")[0])
    ref, ref_sw = op.reference(ra, rb), op.reference(rb, ra)
    _close_values(text, out, ref, "value")
    _close_values(text, out_sw, ref_sw, "value, operands swapped")
    gen = torch.Generator().manual_seed(case["seed"] + 1)
    w, w_sw = (torch.randn(r.shape, generator=gen, dtype=torch.float64) for r in (ref, ref_sw))
    mine = torch.autograd.grad((out.double() * w).sum() + (out_sw.double() * w_sw).sum(), (a, b))
    theirs = torch.autograd.grad((ref * w).sum() + (ref_sw * w_sw).sum(), (ra, rb))
    _close_grads(text, [t.name for t in op.program.tensors], mine, theirs, dtype, f"both ways, {case['backward']}")


@pytest.fixture(scope="module")
def spec_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("hsr-cache")


@pytest.mark.filterwarnings("ignore:overflow encountered in exp:RuntimeWarning")  # random exp epilogues of large scores: inf, as the reference
def test_random_specs_reach_every_family(spec_cache, device, monkeypatch):
    if device != "cpu":
        pytest.skip("the interpreter's families (a GPU call's depend on its sizes and machine)")
    assert set(FAMILIES) == set(dispatch.FAMILIES), "a family was added to dispatch: make random specs reach it"
    monkeypatch.setattr(dispatch, "LEAN_MIN_ROWS", LEAN_MIN_ROWS)
    seen = _launched(monkeypatch)
    counts: collections.Counter = collections.Counter()

    def check(case):
        for name in ("HSR_SPLIT", "HSR_SCATTER", "HSR_INVERSE_CHUNK", "HSR_COUNT_BLOCKS"):
            monkeypatch.delenv(name, raising=False)
        if case["target"] == "split":
            monkeypatch.setenv("HSR_SPLIT", "1")
        scatter = case["backward"].partition("-")[2]
        if scatter:  # as conftest's backward fixture
            monkeypatch.setenv("HSR_SCATTER", scatter)
            if scatter == "inverse":
                monkeypatch.setenv("HSR_INVERSE_CHUNK", "40")
                monkeypatch.setenv("HSR_COUNT_BLOCKS", "32,16")
        text, sizes = case["text"], case["sizes"]
        op = hsr.compile(text, cache_dir=spec_cache)
        args = _args(op, sizes, case["seed"], case["dtype"])
        dtype = case["dtype"] if isinstance(case["dtype"], torch.dtype) else torch.float32
        seen.clear()
        if case["target"] == "both-ways" and hasattr(op.module, "both_ways"):
            _check_both_ways(op, case, args)
            ran = [_family(op, f) for f in seen]
            assert ran == ["both-ways"], f"{text}\nboth_ways launched {seen}"
            said = op.explain(_sized(op, sizes), dtype, "cpu")
            assert "both directions in one call: both-ways" in said, f"{text}\n{said}"
        else:
            _check_call(op, case, args)
            ran = [_family(op, f) for f in seen]
            assert len(ran) == len(op.plan.terms), f"{text}\none forward a term, launched {seen}"
            said = _named(op, sizes, dtype, masked=True)  # the cases give every input
            assert sorted(said) == sorted(ran), f"{text}\n{sizes}: explain says {said}, ran {ran}"
        counts.update(ran)

    for target in FAMILIES:
        run = settings(derandomize=True, max_examples=EXAMPLES, deadline=None, database=None,
                       suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])(
            given(cases(target))(check))
        run()
    print(f"\nforward families launched by {EXAMPLES} random specs a family: {dict(sorted(counts.items()))}")
    missing = [f for f in FAMILIES if not counts[f]]
    assert not missing, f"never reached: {missing}; reached {dict(counts)}"


# -- what the random specs found (minimal reproductions) ------------------------------------------------

MEAN_WITH_MASK = """
Q[i, s, x]: float
D[j, t, x]: float
qm[i, s]: bool = all
out[i, j] = mean_s max_t <Q_s, D_t>  where qm
"""


def test_explain_names_the_forward_of_a_mean_given_its_masks(spec_cache, device, monkeypatch):
    if device != "cpu":
        pytest.skip("interpreter only")
    monkeypatch.setattr(dispatch, "LEAN_MIN_ROWS", LEAN_MIN_ROWS)
    op = hsr.compile(MEAN_WITH_MASK, cache_dir=spec_cache)
    sizes = dict(i=2, j=3, s=8, t=5, x=16)
    gen = torch.Generator().manual_seed(0)
    q, d = torch.randn(2, 8, 16, generator=gen).half(), torch.randn(3, 5, 16, generator=gen).half()
    seen = _launched(monkeypatch)
    op(q, d)
    assert seen == ["lean"] == _named(op, sizes, torch.float16)  # no mask: the lean forward, as explain says
    seen.clear()
    op(q, d, torch.rand(2, 8, generator=gen) < 0.7)
    named = _named(op, sizes, torch.float16, masked=True)
    assert seen == named == ["tiles"], f"ran {seen}, explain says {named} given a mask"


SPLADE = """
H[b, s, h]: float
W[v, h]: float
bias[v]: float
rep[b, v] = max_s log1p(relu(<H_s, W_v> + bias_v))
"""


def test_explain_names_pointer_loads_for_rows_tma_cannot_take(spec_cache, device, monkeypatch):
    if device != "cpu":
        pytest.skip("interpreter only")
    op = hsr.compile(SPLADE, cache_dir=spec_cache)
    gen = torch.Generator().manual_seed(0)
    seen = _launched(monkeypatch)
    for h, expected in ((272, "tiles-tma"), (270, "tiles-long")):  # rows of 544 and 540 bytes
        sizes = dict(b=1, s=3, h=h, v=4)
        seen.clear()
        op(*(torch.randn([sizes[a] for a in t.axes], generator=gen).half() for t in op.program.tensors))
        assert seen == [expected], (h, seen)
        assert _named(op, sizes, torch.float16) == [expected], (h, _named(op, sizes, torch.float16))


L1_EPILOGUE = """
P[b, n, x]: float
R[b, m, x]: float
out[b, n] = min_m tanh(||P_n - R_m||_1)
"""


def test_both_ways_l1_epilogue_gradient_of_the_swapped_direction(spec_cache, device):
    if device != "cpu":
        pytest.skip("on CUDA both_ways with gradients runs the two calls (dispatch.both_ways_fused)")
    op = hsr.compile(L1_EPILOGUE, cache_dir=spec_cache)
    P = torch.tensor([[[0.0], [1.0]]], device=device, requires_grad=True)
    R = torch.tensor([[[0.25]]], device=device, requires_grad=True)
    _, out_sw = op.module.both_ways(P, R)  # op(R, P): R's one point to its nearest of P (0.0, at 0.25)
    got = torch.autograd.grad(out_sw.sum(), (P, R))
    want = torch.autograd.grad(op(R, P).sum(), (P, R))  # tanh'(0.25) = 0.94; both_ways gives 1.0
    for g, w in zip(got, want):
        assert torch.allclose(g, w), (got, want)

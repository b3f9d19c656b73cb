"""Edge values (issue 7) through every bundled op and a few compiled user
specs, each with its documented behaviour (README, "Edge values and errors"):

- empty axes: a sum or mean over nothing is 0, a selection over nothing is
  value 0, index -1 and no gradient, an empty contraction (d = 0) makes every
  pair 0 (a tie: index 0), an empty grid gives an empty output;
- all-masked rows: 0, index -1, no gradient;
- NaN: propagates to the outputs it reaches (the selection takes the first
  NaN, as torch.max does); masked or padded positions never reach a value or
  a gradient, whatever they hold;
- inf: values as the float64 reference; a -inf score is never selected while
  anything else is, exactly as if masked;
- huge fp16 values: fp32 accumulation keeps values finite and fp32-accurate;
  fp16 gradients are inf exactly where the true gradient is beyond fp16's range;
- ties: the lowest index wins, forward and backward;
- determinism: forward outputs and backward="deterministic" gradients are
  bitwise reproducible.

Known bugs are xfail(strict=True), with the reason; remove the mark with the fix.
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis.control import currently_in_test_context
from hypothesis import strategies as st
from profiles import examples

from hsr_subjects import ALL, subjects
from hsr.ops import chamfer_distance, maxsim, splade_max

FP16_MAX_ROUNDED = 65520.0   # the smallest magnitude that rounds to inf in fp16


@pytest.fixture(scope="module")
def ops(tmp_path_factory):
    return subjects(ALL, tmp_path_factory.mktemp("hsr-cache"))


def _xfail(reason, raises=AssertionError):
    return pytest.mark.xfail(strict=True, reason=reason, raises=raises)


def _grads(out, leaves, seed=0):
    """Gradients of a random weighting of out (zeros for an unused leaf)."""
    outs = list(out) if isinstance(out, tuple) else [out]
    gen = torch.Generator().manual_seed(seed)
    total = sum((o.double() * torch.randn(o.shape, generator=gen, dtype=torch.float64).to(o.device)).sum()
                for o in outs)
    if not total.requires_grad:
        return [torch.zeros_like(t) for t in leaves]
    got = torch.autograd.grad(total, leaves, allow_unused=True)
    return [torch.zeros_like(t) if g is None else g for g, t in zip(got, leaves)]


def _leaves(*tensors, device="cpu"):
    return [t.clone().to(device).requires_grad_() for t in tensors]


# -- empty axes ---------------------------------------------------------------------------------------

MAXSIM_EMPTY = [  # (name, Q shape, D shape, expected output shape)
    ("Nq", (0, 3, 8), (4, 5, 8), (0, 4)), ("Nd", (2, 3, 8), (0, 5, 8), (2, 0)),
    ("Lq", (2, 0, 8), (4, 5, 8), (2, 4)), ("Ld", (2, 3, 8), (4, 0, 8), (2, 4)),
    ("d", (2, 3, 0), (4, 5, 0), (2, 4)), ("kd-Nq", (0, 3, 8), (0, 2, 5, 8), (0, 2)),
    ("kd-K", (2, 3, 8), (2, 0, 5, 8), (2, 0)), ("kd-Lq", (2, 0, 8), (2, 2, 5, 8), (2, 2)),
    ("kd-Ld", (2, 3, 8), (2, 2, 0, 8), (2, 2)), ("kd-d", (2, 3, 0), (2, 2, 5, 0), (2, 2)),
    ("one-query-Lq", (0, 8), (4, 5, 8), (4,)),
]


def _maxsim_empty_params():
    for name, q, d, out in MAXSIM_EMPTY:
        for normalize in (False, True):
            marks = []
            yield pytest.param(q, d, out, normalize, id=f"{name}-{'cos' if normalize else 'dot'}", marks=marks)


@pytest.mark.parametrize("q_shape, d_shape, out_shape, normalize", list(_maxsim_empty_params()))
def test_maxsim_empty_axes(device, q_shape, d_shape, out_shape, normalize, backward):
    """Lq = 0: a sum over nothing, 0. Ld = 0: a max over nothing, 0 and no
    gradient. d = 0: every dot is 0, the score 0. Nq, Nd, K = 0: an empty
    result. Gradients have the inputs' shapes and are 0."""
    Q, D = _leaves(torch.randn(q_shape), torch.randn(d_shape), device=device)
    out = maxsim(Q, D, normalize=normalize, backward=backward)
    assert out.shape == out_shape and out.dtype == torch.float32
    assert (out == 0).all()
    for leaf, grad in zip((Q, D), _grads(out, [Q, D])):
        assert grad.shape == leaf.shape and (grad == 0).all()


@pytest.mark.parametrize("spec", ["maxsim", "maxsim_kd"])
def test_maxsim_indices_of_empty_selections_and_contractions(ops, device, spec):
    """Ld = 0: nothing to select, index -1. d = 0: every dot is 0, a tie
    that the lowest index wins: index 0."""
    subject = ops[spec]
    d_lead = (2, 3) if spec == "maxsim_kd" else (3,)
    out, idx = subject.forward_with_indices(torch.randn(2, 4, 8).to(device), torch.randn(*d_lead, 0, 8).to(device))
    assert (out == 0).all() and (idx == -1).all() and idx.shape == (2, 3, 4)
    out, idx = subject.forward_with_indices(torch.randn(2, 4, 0).to(device), torch.randn(*d_lead, 5, 0).to(device))
    assert (out == 0).all() and (idx == 0).all()


CHAMFER_EMPTY = [("B", (0, 3, 3), (0, 5, 3)), ("P1", (2, 0, 3), (2, 5, 3)), ("P2", (2, 3, 3), (2, 0, 3)),
                 ("P1-and-P2", (2, 0, 3), (2, 0, 3)), ("D", (2, 3, 0), (2, 4, 0))]


def _chamfer_empty_params():
    for name, x, y in CHAMFER_EMPTY:
        for norm in (1, 2):
            marks = []
            yield pytest.param(x, y, norm, id=f"{name}-norm{norm}", marks=marks)


@pytest.mark.parametrize("x_shape, y_shape, norm", list(_chamfer_empty_params()))
def test_chamfer_empty_axes(device, x_shape, y_shape, norm):
    """An empty cloud: its points' terms are absent (mean over none: 0), the
    other cloud's points search nothing (0, no gradient). D = 0: every
    distance is 0. B = 0: the batch mean of nothing is 0. Always in the graph."""
    for point in ("mean", "sum", "max", None):
        for batch in ((None,) if point is None else ("mean", "sum", None)):
            x, y = _leaves(torch.randn(x_shape), torch.randn(y_shape), device=device)
            out = chamfer_distance(x, y, norm=norm, point_reduction=point, batch_reduction=batch)
            outs = list(out) if isinstance(out, tuple) else [out]
            want = [(x_shape[0], x_shape[1]), (y_shape[0], y_shape[1])] if point is None else \
                [() if batch else (x_shape[0],)]
            assert [tuple(o.shape) for o in outs] == want, (point, batch)
            assert all((o == 0).all() and o.requires_grad for o in outs), (point, batch)
            for leaf, grad in zip((x, y), _grads(out, [x, y])):
                assert grad.shape == leaf.shape and (grad == 0).all(), (point, batch)


def _splade_empty_params():
    for name, h, w in [("B", (0, 3, 8), (6, 8)), ("L", (2, 0, 8), (6, 8)), ("V", (2, 3, 8), (0, 8)),
                       ("H", (2, 3, 0), (6, 0))]:
        for activation in ("log1p_relu", "relu"):
            yield pytest.param(h, w, activation, id=f"{name}-{activation}")


@pytest.mark.parametrize("h_shape, w_shape, activation", list(_splade_empty_params()))
def test_splade_empty_axes(device, h_shape, w_shape, activation, backward):
    """L = 0: no token, 0 and no gradient. H = 0: every logit is the bias, so
    rep[b, v] = act(bias[v]), and bias's gradient is act'(bias) summed over b.
    B, V = 0: an empty result."""
    gen = torch.Generator().manual_seed(1)
    h, w, b = torch.randn(h_shape, generator=gen), torch.randn(w_shape, generator=gen), \
        torch.randn(w_shape[0], generator=gen)
    leaves = _leaves(h, w, b, device=device)
    out = splade_max(*leaves, activation=activation, backward=backward)
    refs = [t.double().requires_grad_() for t in (h, w, b)]
    z = torch.einsum("blh,vh->blv", refs[0], refs[1]) + refs[2]
    act = torch.log1p(torch.relu(z)) if activation == "log1p_relu" else torch.relu(z)
    ref = act.max(1).values if h_shape[1] else act.sum(1)          # no token: 0
    assert out.shape == ref.shape == (h_shape[0], w_shape[0])
    assert torch.allclose(out.cpu().double(), ref, rtol=1e-5, atol=1e-6)
    for got, want in zip(_grads(out, leaves), _grads(ref, refs)):
        assert torch.allclose(got.cpu().double(), want, rtol=1e-5, atol=1e-6), (got, want)


USER_EMPTY = [  # (spec, {input: shape}, what it gives)
    pytest.param("kmeans_assign", {"X": (0, 2), "C": (3, 2)}, "empty"),
    pytest.param("kmeans_assign", {"X": (4, 2), "C": (0, 2)}, "index -1"),
    ("kmeans_assign", {"X": (4, 0), "C": (3, 0)}, "index 0"),
    pytest.param("hausdorff", {"P": (0, 4, 3), "R": (0, 5, 3)}, "empty"),
    ("hausdorff", {"P": (2, 0, 3), "R": (2, 5, 3)}, "0"),
    ("hausdorff", {"P": (2, 4, 3), "R": (2, 0, 3)}, "0"),
    ("hausdorff", {"P": (2, 4, 0), "R": (2, 5, 0)}, "0"),
    ("soft_nearest", {"X": (2, 4, 3), "Y": (2, 0, 3)}, "0"),
    ("soft_nearest", {"X": (2, 4, 0), "Y": (2, 5, 0)}, "1"),
    ("weighted_maxsim", {"Q": (2, 0, 8), "D": (3, 5, 8), "w": (2, 0)}, "0"),
    ("weighted_maxsim", {"Q": (2, 3, 8), "D": (3, 0, 8), "w": (2, 3)}, "0"),
    ("outer_max_cos", {"A": (2, 0, 8), "B": (2, 5, 8)}, "0"),
    ("col_term_bound", {"Q": (2, 3, 8), "D": (2, 0, 8), "c": (2, 0)}, "0"),
    ("col_term_bound", {"Q": (2, 3, 0), "D": (2, 4, 0), "c": (2, 4)}, "max c"),
]


@pytest.mark.parametrize("spec, shapes, gives", USER_EMPTY,
                         ids=lambda v: v if isinstance(v, str) else "-".join(f"{k}{list(s)}" for k, s in v.items()))
def test_compiled_specs_empty_axes(ops, device, spec, shapes, gives):
    """Values, indices and gradients as the reference, which the semantics fix:
    a selection over nothing gives 0 as the spec writes its term (soft_nearest's
    exp(-d/2) over no point is 0, not 1) and index -1; d = 0 makes every
    distance 0 (soft_nearest: exp(0) = 1; an argmin tie: index 0)."""
    subject = ops[spec]
    gen = torch.Generator().manual_seed(2)
    values = {n: torch.randn(s, generator=gen) for n, s in shapes.items()}
    leaves = dict(zip(values, _leaves(*values.values(), device=device)))
    out = subject.run(**leaves)
    if gives == "empty":
        assert out.numel() == 0
    elif gives in ("0", "1"):
        assert (out == float(gives)).all() and out.dtype == torch.float32
    elif gives.startswith("index"):
        assert out.dtype == torch.int64 and (out == int(gives.split()[1])).all()
    sizes = {a: n for name, axes, _, _ in subject.signature if name in shapes for a, n in zip(axes, shapes[name])}
    selections = [t.c for t in subject.op.plan.terms] + \
        [t.r for t in subject.op.plan.terms if t.outer in ("max", "min")]
    if all(sizes[a] for a in selections):   # the reference cannot select from nothing (see below)
        refs = {n: v.double().requires_grad_() for n, v in values.items()}
        ref = subject.op.reference(**refs)
        assert out.shape == ref.shape
        assert torch.allclose(out.cpu().double(), ref.double(), rtol=1e-5, atol=1e-6)
        want = _grads(ref, list(refs.values())) if out.is_floating_point() else []
    else:
        want = [torch.zeros(v.shape, dtype=torch.float64) for v in values.values()]
    if out.is_floating_point():
        for n, got, w in zip(values, _grads(out, list(leaves.values())), want):
            assert torch.allclose(got.cpu().double(), w, rtol=1e-5, atol=1e-6), (n, got, w)


@pytest.mark.parametrize("spec, shapes", [("hausdorff", {"P": (2, 4, 3), "R": (2, 0, 3)}),
                                          ("weighted_maxsim", {"Q": (2, 3, 8), "D": (3, 0, 8), "w": (2, 3)})])
def test_reference_of_a_selection_over_an_empty_axis(ops, spec, shapes):
    subject = ops[spec]
    values = {n: torch.randn(s) for n, s in shapes.items()}
    assert torch.equal(subject.op.reference(**values).to(subject.run(**values).dtype), subject.run(**values))


# -- all-masked rows ----------------------------------------------------------------------------------

@settings(max_examples=examples(10), deadline=None)
@given(st.booleans(), st.integers(1, 3), st.integers(1, 6), st.integers(1, 9), st.data())
def test_maxsim_all_masked_rows(ops, device, per_query, nq, lq, ld, data):
    """Drawn masks with whole rows masked: a query with no real token scores 0
    against everything, a document with no real token scores 0; neither passes
    a gradient, and their selections are index -1."""
    gen = torch.Generator().manual_seed(data.draw(st.integers(0, 2**31 - 1)))
    lead = (nq, 2) if per_query else (data.draw(st.integers(1, 3)),)
    Q, D = torch.randn(nq, lq, 8, generator=gen), torch.randn(*lead, ld, 8, generator=gen)
    qm = torch.rand(nq, lq, generator=gen) < 0.6
    dm = torch.rand(*lead, ld, generator=gen) < 0.6
    empty_q = data.draw(st.integers(0, nq - 1))
    qm[empty_q] = False
    dm.view(-1, ld)[data.draw(st.integers(0, dm.numel() // ld - 1))] = False
    Qk, Dk = _leaves(Q, D, device=device)
    out = maxsim(Qk, Dk, qm.to(device), dm.to(device), backward=data.draw(st.sampled_from(["atomic", "deterministic"])))
    no_doc = ~dm.any(-1)                                   # [Nd] or [Nq, K]
    assert (out[empty_q] == 0).all()
    assert (out.cpu()[no_doc.expand(out.shape)] == 0).all()
    gq, gd = _grads(out, [Qk, Dk])
    assert (gq[empty_q] == 0).all() and (gq.cpu()[~qm] == 0).all()
    assert (gd.cpu()[~dm] == 0).all()
    spec = ops["maxsim_kd" if per_query else "maxsim"]
    _, idx = spec.forward_with_indices(Q.to(device), D.to(device), qm.to(device), dm.to(device))
    idx = idx.cpu()
    assert (idx[empty_q] == -1).all()
    no_doc_cells = no_doc if per_query else no_doc[None, :].expand(nq, -1)
    assert (idx[no_doc_cells] == -1).all()


@pytest.mark.parametrize("spec, masked, gives", [
    ("hausdorff", {"pmask": 0}, 0.0), ("hausdorff", {"rmask": 1}, 0.0),
    ("soft_nearest", {"ymask": 0}, 0.0), ("chamfer_l1", {"rmask": 1}, 0.0),
    ("argmax_masked", {"dmask": 1}, -1),
])
def test_compiled_specs_all_masked_rows(ops, device, spec, masked, gives):
    """A whole masked row: the selection over nothing is 0 as the spec writes
    it (soft_nearest's max of exp(-d/2) is 0, not exp(0)), index -1, and the
    row's data get no gradient."""
    subject = ops[spec]
    gen = torch.Generator().manual_seed(3)
    good = subject.inputs(subject.sizes(), gen)
    (mask_name, row), = masked.items()
    good[mask_name][row] = False
    floats = [n for n in good if good[n].is_floating_point()]
    leaves = dict(zip(floats, _leaves(*(good[n] for n in floats), device=device)))
    args = {**{n: v.to(device) for n, v in good.items()}, **leaves}
    out = subject.run(**args)
    ref = subject.op.reference(**good)
    assert torch.equal(out.cpu(), ref.to(out.dtype)) if out.dtype == torch.int64 else \
        torch.allclose(out.cpu().double(), ref, rtol=1e-5, atol=1e-6)
    mask_axes = dict((n, axes) for n, axes, _, _ in subject.signature)[mask_name]
    out_axes = subject.op.plan.axes
    cell = [slice(None)] * len(out_axes)
    if mask_axes[0] in out_axes:
        cell[out_axes.index(mask_axes[0])] = row
    assert (out[tuple(cell)] == gives).all()
    if out.dtype != torch.int64:
        masked_out = torch.zeros(out.shape, dtype=torch.float64)
        masked_out[tuple(cell)] = 1.0
        grads = torch.autograd.grad((out.double() * masked_out.to(device)).sum(), list(leaves.values()),
                                    allow_unused=True)
        assert all(g is None or (g == 0).all() for g in grads)


# -- NaN --------------------------------------------------------------------------------------------

def _reference_indices(subject, inputs):
    """The reference's chosen index of the selection that forward_with_indices
    reports, laid out as it does: [grid axes..., outer axis]."""
    term = subject.op.plan.terms[0]
    want = [*term.grid, term.r] if term.r not in term.grid else list(term.grid)
    _, indices = subject.op.reference(**inputs, return_indices=True)
    for idx, axes in indices.values():
        if set(axes) == set(want):
            return idx.permute(*[axes.index(a) for a in want])
    raise AssertionError(f"no selection over {want} in {[a for _, a in indices.values()]}")


def _same(got, want):
    """Equal values, NaN where the reference has NaN (tolerance: fp32 vs float64)."""
    got = got.detach().cpu().double()
    return torch.equal(torch.isnan(got), torch.isnan(want)) and \
        torch.allclose(got, want.detach(), rtol=1e-4, atol=1e-4, equal_nan=True)


NAN_CASES = [  # (spec, input, position)
    ("maxsim", "Q", (0, 1, 2)), ("maxsim", "D", (1, 3, 0)), ("maxsim_cos", "D", (1, 3, 0)),
    ("maxsim_kd", "D", (1, 0, 2, 5)), ("maxsim_kd_cos", "Q", (0, 2, 1)),
    ("chamfer_point", "X", (1, 2, 0)), ("chamfer_point", "Y", (0, 1, 2)), ("chamfer_point_l1", "Y", (0, 1, 2)),
    ("chamfer", "Y", (1, 0, 1)), ("splade", "H", (1, 2, 3)), ("splade_relu", "W", (2, 5)),
    ("splade", "bias", (3,)), ("kmeans_assign", "X", (1, 0)), ("kmeans_assign", "C", (2, 1)),
    ("hausdorff", "R", (0, 1, 1)),
    ("outer_max_cos", "A", (1, 0, 4)), ("argmax_masked", "D", (1, 0, 3)),
]


@pytest.mark.parametrize("spec, name, position", NAN_CASES, ids=lambda v: v if isinstance(v, str) else None)
def test_nan_reaches_the_outputs_the_reference_says(ops, device, spec, name, position):
    """A NaN makes NaN exactly the outputs whose selection or reduction reads
    it; the selection is the first NaN (as torch.max/argmax), so indices equal
    the reference's too."""
    subject = ops[spec]
    good = subject.inputs(subject.sizes(), torch.Generator().manual_seed(4), masks=False)
    good[name][position] = float("nan")
    out = subject.run(**{n: v.to(device) for n, v in good.items()})
    ref = subject.op.reference(**good)
    assert torch.isnan(ref).any() if ref.is_floating_point() else True
    if out.dtype == torch.int64:
        assert torch.equal(out.cpu(), ref)
    else:
        assert _same(out, ref), (out, ref)
    if subject.has_indices and name != "bias":   # a NaN bias: see test_hoisted_epilogue_ties_keep_the_lowest_index
        _, idx = subject.forward_with_indices(**{n: v.to(device) for n, v in good.items()})
        idx, ref_idx = idx.cpu().long(), _reference_indices(subject, good)
        if ref.is_floating_point() and ref.shape == ref_idx.shape:  # one selection per output: the NaN ones
            idx, ref_idx = idx[torch.isnan(ref)], ref_idx[torch.isnan(ref)]
        assert torch.equal(idx, ref_idx)


def test_nan_gradients_stay_in_the_outputs_it_reaches(device, backward):
    """A NaN in document 1 (MaxSim) or sequence 1 (Splade): the other
    documents' (sequences') gradients are those of a run without the NaN."""
    gen = torch.Generator().manual_seed(12)
    Q, D = torch.randn(2, 3, 16, generator=gen), torch.randn(3, 5, 16, generator=gen)
    H, W = torch.randn(3, 4, 8, generator=gen), torch.randn(6, 8, generator=gen)
    for fn, a, b, grad_of in ((maxsim, Q, D, 1), (splade_max, H, W, 0)):
        runs = []
        for poison in (False, True):
            x, y = a.clone(), b.clone()
            target = y if grad_of == 1 else x
            if poison:
                target[1, 2, 3] = float("nan")
            leaves = _leaves(x, y, device=device)
            out = fn(*leaves, backward=backward)
            runs.append((out.detach().cpu(), _grads(out, leaves)[grad_of].cpu()))
        (clean, g_clean), (dirty, g_dirty) = runs
        assert torch.isnan(dirty).any() and not torch.isnan(clean).any()
        others = [0, 2]
        if backward == "deterministic":
            assert torch.equal(g_dirty[others], g_clean[others]), fn.__name__
        else:  # fp32 atomics add in any order on a GPU: equal up to rounding
            assert torch.allclose(g_dirty[others], g_clean[others], rtol=1e-6, atol=1e-6), fn.__name__


def _masked_fill_check(subject, device, fill, seed, sides=("a", "b")):
    """NaN or inf at masked (or beyond-length) positions: the values and
    every gradient are those of 0 there, bitwise."""
    gen = torch.Generator().manual_seed(seed)
    good = subject.inputs(subject.sizes(), gen)
    dirty = {n: v.clone() for n, v in good.items()}
    axes_of = {n: axes for n, axes, _, _ in subject.signature}
    for term in subject.op.plan.terms:
        for cond in term.conds:
            side = "b" if cond.axis == term.c else "a"
            if side not in sides:
                continue
            operand = term.b if side == "b" else term.a
            if cond.kind == "mask":
                keep, keep_axes = good[cond.name], axes_of[cond.name]
            else:                  # a length bound: positions before the length
                size = good[operand.name].shape[operand.axes.index(cond.axis)]
                keep = torch.arange(size) < good[cond.name][..., None]
                keep_axes = (*axes_of[cond.name], cond.axis)
            shape = good[operand.name].shape
            present = [a for a in operand.axes if a in keep_axes]
            keep = keep.permute(*[keep_axes.index(a) for a in present])
            keep = keep.reshape([shape[i] if a in keep_axes else 1 for i, a in enumerate(operand.axes)])
            good[operand.name] = good[operand.name].masked_fill(~keep, 0.0)
            dirty[operand.name] = dirty[operand.name].masked_fill(~keep, fill)
    left_out = any(not torch.equal(good[n], dirty[n]) for n in good)            # some position is left out
    if currently_in_test_context():
        assume(left_out)
    else:
        assert left_out, "the fixed seed leaves no position out: the check would test nothing"
    results = []
    for args in (good, dirty):
        leaves = dict(zip(subject.differentiable, _leaves(*(args[n] for n in subject.differentiable), device=device)))
        out = subject.run(**{**{n: v.to(device) for n, v in args.items()}, **leaves})
        results.append([out.detach(), *_grads(out, list(leaves.values()))])
    for a, b in zip(*results):
        assert torch.equal(a, b), (subject.name, fill, a, b)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # NaN/inf fed on purpose: numpy warns in the interpreter
@settings(max_examples=examples(12), deadline=None)
@given(st.sampled_from(["maxsim", "maxsim_kd", "splade", "hausdorff", "soft_nearest", "chamfer_l1",
                        "weighted_maxsim", "col_term_bound", "maxsim_cos", "maxsim_kd_cos"]),
       st.sampled_from([float("nan"), float("inf"), -float("inf")]), st.integers(0, 2**31 - 1))
def test_masked_positions_never_reach_values_or_gradients(ops, device, spec, fill, seed):
    """Masks and length bounds on either side."""
    _masked_fill_check(ops[spec], device, fill, seed, ("a", "b"))


@pytest.mark.parametrize("spec", ["maxsim_cos", "maxsim_kd_cos", "hausdorff"])
def test_masked_outer_rows_of_normed_pairs_pass_no_nan(ops, device, spec):
    _masked_fill_check(ops[spec], device, float("nan"), 0, ("a",))


# -- inf ------------------------------------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # NaN/inf fed on purpose: numpy warns in the interpreter
@pytest.mark.parametrize("normalize", [False, True])
def test_maxsim_minus_inf_score_is_never_selected(ops, device, normalize):
    """A document token whose every score is -inf (an inf coordinate against
    positive query coordinates) is never the max while a finite one exists:
    values and gradients as if it were masked."""
    gen = torch.Generator().manual_seed(5)
    Q, D = torch.rand(2, 3, 8, generator=gen) + 0.1, torch.randn(3, 6, 8, generator=gen)
    D[1, 2, 4] = -float("inf")
    dm = torch.ones(3, 6, dtype=torch.bool)
    dm[1, 2] = False
    clean = D.clone()
    clean[1, 2] = 0.0
    Qa, Da = _leaves(Q, D, device=device)
    Qb, Db = _leaves(Q, clean, device=device)
    a = maxsim(Qa, Da, normalize=normalize)
    b = maxsim(Qb, Db, d_mask=dm.to(device), normalize=normalize)
    if normalize:  # cos: -inf / inf is NaN, as torch.nn.functional.normalize gives; the reference agrees
        ref = ops["maxsim_cos"].op.reference(Q, D)
        assert _same(a, ref)
        return
    assert torch.equal(a, b)
    for ga, gb in zip(_grads(a, [Qa, Da]), _grads(b, [Qb, Db])):
        assert torch.equal(ga, gb)  # the -inf token's own gradient is 0


def _inf_params():
    for spec, name, position, sign in [
        ("maxsim", "D", (1, 3, 2), 1), ("maxsim", "Q", (0, 1, 2), -1), ("maxsim_kd", "D", (0, 1, 2, 3), 1),
        ("splade_relu", "bias", (3,), 1), ("splade_relu", "H", (0, 1, 2), 1),
        ("splade", "bias", (3,), 1), ("splade", "H", (0, 1, 2), 1),
        ("chamfer_point", "Y", (0, 2, 1), 1), ("chamfer_point_l1", "Y", (0, 2, 1), 1),
        ("chamfer", "Y", (1, 0, 1), 1), ("kmeans_assign", "C", (1, 0), 1), ("hausdorff", "P", (0, 1, 1), 1),
    ]:
        yield pytest.param(spec, name, position, sign, id=f"{spec}-{name}{'+' if sign > 0 else '-'}inf")


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # NaN/inf fed on purpose: numpy warns in the interpreter
@pytest.mark.parametrize("spec, name, position, sign", list(_inf_params()))
def test_inf_values_match_the_reference(ops, device, spec, name, position, sign):
    """Values (and indices) with an inf input equal the float64 reference's:
    +inf scores are selected, -inf ones are not, a point at infinity is never
    the nearest."""
    subject = ops[spec]
    good = subject.inputs(subject.sizes(), torch.Generator().manual_seed(6), masks=False)
    for n, v in good.items():   # positive data: inf meets a positive coordinate (inf - inf in an expansion)
        good[n] = v.abs() + 0.1 if v.is_floating_point() else v
    good[name][position] = sign * float("inf")
    out = subject.run(**{n: v.to(device) for n, v in good.items()})
    ref = subject.op.reference(**good)
    if out.dtype == torch.int64:
        assert torch.equal(out.cpu(), ref)
    else:
        assert _same(out, ref), (out, ref)


@pytest.mark.parametrize("spec", ["splade", "splade_relu"])
def test_hoisted_epilogue_ties_keep_the_lowest_index(ops, device, spec):
    """relu flat at the selection: the raw key's argmax is 1, but every token ties at 0 in
    the term as written, and forward_with_indices reports the lowest (a second pass)."""
    H = torch.tensor([[[3.0], [1.0], [2.0]]])       # logits -3, -1, -2: relu makes them all 0, a tie
    W = torch.tensor([[-1.0]])
    bias = torch.zeros(1)
    out, idx = ops[spec].forward_with_indices(H.to(device), W.to(device), bias.to(device))
    assert out.item() == 0.0
    assert _reference_indices(ops[spec], {"H": H, "W": W, "bias": bias}).item() == 0
    assert idx.item() == 0


def test_reference_with_an_omitted_default_float_input(ops):
    H, W = torch.randn(1, 3, 4), torch.randn(5, 4)
    assert torch.allclose(ops["splade"].op.reference(H, W), ops["splade"].op.reference(H, W, torch.zeros(5)))


# -- huge magnitudes in fp16 ----------------------------------------------------------------------------

def _huge(shape, gen, scale=6e4):
    return ((torch.rand(shape, generator=gen) * 2 - 1) * scale).half()


def _fp16_gradient_matches(got, want):
    """fp16 gradients: inf (with the sign) exactly where the true gradient
    rounds to inf in fp16, fp16-accurate elsewhere."""
    got = got.cpu()
    beyond = want.abs() >= FP16_MAX_ROUNDED
    assert torch.equal(torch.isinf(got), beyond), (got, want)
    assert torch.equal(torch.sign(got[beyond]).double(), torch.sign(want[beyond]))
    assert torch.allclose(got[~beyond].double(), want[~beyond], rtol=2e-3, atol=1e-3)


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # values beyond fp16 on purpose: numpy warns in the interpreter
@pytest.mark.parametrize("spec", ["maxsim", "maxsim_kd", "weighted_maxsim", "splade", "splade_relu",
                                  "chamfer_point", "chamfer_point_l1", "hausdorff"])
def test_huge_fp16_inputs(ops, device, spec, backward):
    """Values near fp16's max (6e4): products overflow fp16 but accumulate in
    fp32, so outputs are finite and as accurate as fp32 allows (relative to
    the terms' size: |x|^2 + |y|^2 for squared distances, whose expansion
    cancels). Gradients come back in fp16: inf where the true gradient exceeds
    fp16's range, accurate elsewhere."""
    subject = ops[spec]
    gen = torch.Generator().manual_seed(7)
    sizes = subject.sizes()
    inputs = {}
    for name, axes, kind, _ in subject.signature:
        if kind == "float":
            inputs[name] = _huge([sizes[a] for a in axes], gen)
    leaves = dict(zip(inputs, _leaves(*inputs.values(), device=device)))
    out = subject.run(**leaves, backward=backward)
    refs = {n: v.double().requires_grad_() for n, v in inputs.items()}
    ref = subject.op.reference(**refs)
    assert torch.isfinite(out).all()
    if subject.points:
        scale = max(v.double().square().sum(-1).max().item() for v in inputs.values()) * 2
        assert ((out.cpu().double() - ref).abs() <= 1e-6 * scale).all()
        _, idx = subject.forward_with_indices(**{n: v.to(device) for n, v in inputs.items()})
        assert torch.equal(idx.cpu().long(), _reference_indices(subject, inputs)), "another nearest neighbour"
    else:
        assert torch.allclose(out.cpu().double(), ref, rtol=1e-6, atol=1e-6)
    weights = torch.randn(ref.shape, generator=gen, dtype=torch.float64)
    got = torch.autograd.grad((out.double() * weights.to(device)).sum(), list(leaves.values()))
    want = torch.autograd.grad((ref * weights).sum(), list(refs.values()))
    for g, w, leaf in zip(got, want, leaves.values()):
        assert g.dtype == torch.float16 and g.shape == leaf.shape
        _fp16_gradient_matches(g, w)


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # values beyond fp16 on purpose: numpy warns in the interpreter
def test_fp16_gradient_overflow_is_where_the_true_gradient_overflows(device, scatter):
    """MaxSim's grad D of one document token that every query token selects:
    the sum of many 6e4 rows is beyond fp16; the gradient is inf there and
    exact elsewhere, with either backward."""
    Q = torch.full((1, 4, 16), 3e4, dtype=torch.float16)
    D = torch.zeros(2, 3, 16, dtype=torch.float16)
    D[:, 0] = 1.0                                  # token 0 wins for every query token
    for backward in ("atomic", "deterministic"):
        Qk, Dk = _leaves(Q, D, device=device)
        maxsim(Qk, Dk, backward=backward).sum().backward()
        assert torch.isinf(Dk.grad[:, 0]).all() and (Dk.grad[:, 0] > 0).all()   # 4 x 3e4 = 1.2e5
        assert (Dk.grad[:, 1:] == 0).all()
        assert (Qk.grad == 2.0).all()                 # one per document


# -- ties -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("normalize", [False, True])
@pytest.mark.parametrize("per_query", [False, True])
def test_maxsim_ties_go_to_the_first_token(ops, device, normalize, per_query, backward):
    """Identical document tokens (copies of integer rows, so every score is
    exact and bitwise equal, whatever order a tile sums in): token 0 of the
    tie is selected, and gets the whole gradient."""
    gen = torch.Generator().manual_seed(8)
    lead = (2, 2) if per_query else (3,)
    row = torch.randint(-3, 4, (16,), generator=gen).float()
    Q = row + torch.randint(-1, 2, (2, 4, 16), generator=gen)   # every query token prefers the row
    D = -row + torch.randint(-1, 2, (*lead, 40, 16), generator=gen)
    for t in (1, 5, 33):                                        # 33: in another tile of 32
        D[..., t, :] = row
    Qk, Dk = _leaves(Q, D, device=device)
    out = maxsim(Qk, Dk, normalize=normalize, backward=backward)
    out.sum().backward()
    grad = Dk.grad.cpu()
    assert (grad[..., 1, :] != 0).any(dim=-1).all()
    assert (grad[..., 5, :] == 0).all() and (grad[..., 33, :] == 0).all()
    spec = ops[f"maxsim{'_kd' if per_query else ''}{'_cos' if normalize else ''}"]
    _, idx = spec.forward_with_indices(Q.to(device), D.to(device))
    assert (idx == 1).all()


@pytest.mark.parametrize("activation", ["log1p_relu", "relu"])
def test_splade_ties_go_to_the_first_token(device, activation, backward):
    """Tokens 1, 4 and 5 are copies, the others zero vectors, and the bias
    keeps every logit positive: for each v the first of the tied tokens that
    wins (1, or 0 among the zeros) takes the whole gradient."""
    gen = torch.Generator().manual_seed(9)
    h = torch.zeros(2, 6, 8)
    h[:, [1, 4, 5]] = torch.randn(2, 1, 8, generator=gen)
    w = torch.randn(7, 8, generator=gen)
    b = torch.full((7,), 50.0)
    leaves = _leaves(h, w, b, device=device)
    out = splade_max(*leaves, activation=activation, backward=backward)
    gh = _grads(out, leaves)[0].cpu()
    assert (gh[:, [2, 3, 4, 5]] == 0).all()
    wins = torch.einsum("bh,vh->bv", h[:, 1], w) > 0            # the copies beat the zero tokens
    assert all((gh[i, 1] != 0).any() == wins[i].any() for i in range(2))
    assert all((gh[i, 0] != 0).any() == (~wins[i]).any() for i in range(2))


def test_compiled_ties_go_to_the_lowest_index(ops, device, backward):
    """argmin over equidistant centroids gives the first; an outer max over
    points at equal distances sends its gradient to the first point only."""
    X = torch.tensor([[0.0, 0.0], [5.0, 5.0]])
    C = torch.tensor([[9.0, 9.0], [1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [5.0, 6.0], [6.0, 5.0]])
    assert ops["kmeans_assign"].run(X.to(device), C.to(device)).cpu().tolist() == [1, 4]
    P = torch.tensor([[[0.0, 0.0], [10.0, 0.0], [3.0, 0.0]]])    # points 0 and 1 are both 1 from R
    R = torch.tensor([[[1.0, 0.0], [9.0, 0.0], [3.0, 0.0]]])
    Pk, Rk = _leaves(P, R, device=device)
    h = ops["hausdorff"].run(Pk, Rk, backward=backward)
    assert h.item() == 1.0
    h.sum().backward()
    assert Pk.grad.cpu().tolist() == [[[-1.0, 0.0], [0.0, 0.0], [0.0, 0.0]]]
    assert Rk.grad.cpu().tolist() == [[[1.0, 0.0], [0.0, 0.0], [0.0, 0.0]]]


# -- determinism --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ALL)
def test_forward_and_deterministic_backward_are_bitwise_reproducible(ops, device, scatter, name, monkeypatch):
    """Two runs on the same inputs: torch.equal outputs (and indices), and
    with backward="deterministic" torch.equal gradients. Larger shapes on a GPU,
    where atomics would reorder sums. In the second run the inverse index takes one
    selection-side cell at a time and a stable sort instead of its counting sort
    (which the first run takes in small blocks): neither changes a bit."""
    subject = ops[name]
    sizes = subject.sizes(base=2 if device == "cpu" else 24)
    if device != "cpu":
        sizes = {a: (64 if a in subject.contracted and not subject.points else s) for a, s in sizes.items()}
    good = subject.inputs(sizes, torch.Generator().manual_seed(10))
    runs = []
    # first run: the counting sort in blocks of 32 entries placed 16 at a time (several blocks a cell)
    monkeypatch.setenv("HSR_COUNT_BLOCKS", "32,16")
    for second in (False, True):
        if second:
            monkeypatch.setenv("HSR_INVERSE_CHUNK", "1")
            monkeypatch.setenv("HSR_INVERSE_SORT", "1")
        leaves = dict(zip(subject.differentiable, _leaves(*(good[n] for n in subject.differentiable),
                                                           device=device)))
        out = subject.run(**{**{n: v.to(device) for n, v in good.items()}, **leaves}, backward="deterministic")
        grads = torch.autograd.grad(out.sum(), list(leaves.values())) if leaves else []
        indices = subject.forward_with_indices(**{n: v.to(device) for n, v in good.items()})[1] \
            if subject.has_indices else None
        runs.append((out.detach(), indices, *grads))
    for a, b in zip(*runs):
        assert (a is None and b is None) or torch.equal(a, b)


@pytest.mark.parametrize("op", ["maxsim", "maxsim-cos", "maxsim-kd", "chamfer-1", "chamfer-2", "splade-log1p_relu",
                                "splade-relu"])
def test_front_ends_are_bitwise_reproducible(device, op):
    gen = torch.Generator().manual_seed(11)
    big = device != "cpu"     # on a GPU: enough contention for atomics to reorder sums
    nq, lq, ld, d = (8, 32, 300, 64) if big else (3, 5, 7, 16)
    if op.startswith("maxsim"):
        lead = (nq, 4) if op == "maxsim-kd" else (2 * nq,)
        inputs = (torch.randn(nq, lq, d, generator=gen), torch.randn(*lead, ld, d, generator=gen))
        call = lambda *t, **k: maxsim(*t, normalize=op == "maxsim-cos", **k)  # noqa: E731
    elif op.startswith("chamfer"):
        p1, p2 = (2000, 1500) if big else (9, 8)
        inputs = (torch.rand(2, p1, 3, generator=gen), torch.rand(2, p2, 3, generator=gen))
        call = lambda *t, **k: chamfer_distance(*t, norm=int(op[-1]), **k)  # noqa: E731
    else:
        v = 3000 if big else 20
        inputs = (torch.randn(4, lq, d, generator=gen), torch.randn(v, d, generator=gen) / d ** 0.5,
                  torch.randn(v, generator=gen))
        call = lambda *t, **k: splade_max(*t, activation=op.split("-", 1)[1], **k)  # noqa: E731
    runs = []
    for _ in range(2):
        leaves = _leaves(*inputs, device=device)
        out = call(*leaves, backward="deterministic")
        runs.append((out.detach(), *torch.autograd.grad(out.sum(), leaves)))
    for a, b in zip(*runs):
        assert torch.equal(a, b)

"""Ragged axes (`s by cu`): packed inputs against the float64 reference, through
the interpreter (or on CUDA with HSR_TEST_DEVICE=cuda): values, indices and
gradients, for random specs of the whole normal form with a ragged row axis
(an output over it comes packed), a ragged selected axis or both, lengths from
0 up, int32 and int64 offsets."""

from __future__ import annotations

import re

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import examples

import hsr
from hsr import dispatch, kept, launcher, ragged
from hsr.errors import TensorError
from test_dispatch import _general_launches, _launched
from test_language import LAYOUTS, specs

# per layout: the outer axis of its rows and of its columns, and the axes they carry
RAGGED_OF = {"points": {"n": "b", "m": "b"}, "retrieval": {"s": "i", "t": "j"}}


def raggedize(text: str, axes: set) -> str:
    """The spec with each axis of `axes` ragged: every declaration carrying it packs
    it by offsets cu_<axis> over its outer axis (declared first)."""
    layout = "points" if text.startswith("P[") else "retrieval"
    decls = []
    for axis in sorted(axes):
        outer = RAGGED_OF[layout][axis]
        decls.append(f"cu_{axis}[{outer}]: offsets")
        text = re.sub(rf"^(\w+)\[([^\]]*)\b{axis}\b([^\]]*)\]:", rf"\1[\2{axis} by cu_{axis}\3]:", text, flags=re.M)
    return "\n".join(decls) + "\n" + text


def offsets(lengths, dtype=torch.int32) -> torch.Tensor:
    return torch.tensor([0] + torch.tensor(lengths, dtype=torch.int64).cumsum(0).tolist(), dtype=dtype)


def packed_inputs(op, sizes: dict, lengths: dict, seed: int, dtype=torch.int32, far: float = 0.0) -> list:
    """Random inputs of op, packed inputs [sum of lengths, ...]; offsets of `dtype`;
    floats shifted by `far` (coordinates far from the origin)."""
    gen = torch.Generator().manual_seed(seed)
    dist = re.search(r"\|\|[^|]+\|\|(?!\^|_)", op.module.SPEC) is not None
    args = []
    for n, t in enumerate(op.program.tensors):
        if t.kind == "offsets":
            args.append(offsets(lengths[t.name], dtype))
            continue
        if t.ragged:
            axis, outer, cu = t.ragged
            shape = [sum(lengths[cu]) if a == axis else sizes[a] for a in t.axes if a != outer]
        else:
            shape = [sizes[a] for a in t.axes]
        if t.kind == "float" and dist:  # see test_language._inputs: exact values on two offset grids
            args.append(torch.randint(-8, 9, shape, generator=gen) / 4.0 + (0.125 if n % 2 else 0.0) + far)
        elif t.kind == "float":
            args.append(torch.randn(shape, generator=gen) + far)
        else:
            args.append(torch.rand(shape, generator=gen) > 0.25)
    return args


def check(op, args, device, backward, tol=2e-4, **kw):
    """Values and every float input's gradient against the reference."""
    ref_args = [x.double().requires_grad_() if x.is_floating_point() else x for x in args]
    ref = op.reference(*ref_args, **kw)
    mine = [x.to(device).requires_grad_() if x.is_floating_point() else x.to(device) for x in args]
    out = op(*mine, backward=backward, **kw)
    assert out.shape == ref.shape
    if out.dtype == torch.int64:
        return out, ref
    scale = max(ref.abs().max().item() if ref.numel() else 0.0, 1.0)
    err = (out.detach().cpu().double() - ref.detach()).abs().max().item() if ref.numel() else 0.0
    assert err <= tol * scale, f"{op.module.SPEC}\nvalue error {err}\n{out}\n{ref}"
    weights = torch.randn(ref.shape, generator=torch.Generator().manual_seed(7), dtype=torch.float64)
    floats = [x for x in mine if x.is_floating_point()]
    ref_floats = [x for x in ref_args if x.is_floating_point()]
    got = torch.autograd.grad((out.double() * weights.to(device)).sum(), floats, allow_unused=True)
    want = torch.autograd.grad((ref * weights).sum(), ref_floats, allow_unused=True)
    for g, w, x in zip(got, want, ref_floats):
        w = torch.zeros_like(x) if w is None else w
        g = torch.zeros_like(w) if g is None else g.detach().cpu().double()
        assert g.shape == x.shape  # packed, as passed
        bound = 10 * tol * max(w.abs().max().item() if w.numel() else 0.0, 1.0)
        assert (g - w).abs().max().item() <= bound if w.numel() else True, f"{op.module.SPEC}\n{g}\n{w}"
    return out, ref


@pytest.fixture(scope="module")
def spec_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("hsr-cache")


LENGTHS = st.lists(st.integers(0, 11), min_size=1, max_size=3)


@settings(max_examples=examples(30), deadline=None)
@given(specs(), st.sampled_from(["rows", "cols", "both"]), st.data(), st.integers(0, 2**31 - 1))
def test_random_ragged_specs_match_the_reference(spec_cache, device, backward, spec, which, data, seed):
    text, _index_out = spec
    layout = "points" if text.startswith("P[") else "retrieval"
    _a, _b, _w, _c, _am, _bm, _grid, r, c, _rows_grid = LAYOUTS[layout]
    axes = {"rows": {r}, "cols": {c}, "both": {r, c}}[which]  # an output over a ragged row axis comes packed
    op = hsr.compile(raggedize(text, axes), cache_dir=spec_cache)
    outer = RAGGED_OF[layout]
    sizes = {"b": data.draw(st.integers(1, 3)), "i": data.draw(st.integers(1, 3)), "j": data.draw(st.integers(1, 3)),
             "x": data.draw(st.integers(1, 20))}
    lengths = {f"cu_{a}": data.draw(st.lists(st.integers(0, 11), min_size=sizes[outer[a]], max_size=sizes[outer[a]]))
               for a in axes}
    for a in {r, c} - axes:
        sizes[a] = data.draw(st.integers(1, 9))
    dtype = data.draw(st.sampled_from([torch.int32, torch.int64]))
    out, ref = check(op, packed_inputs(op, sizes, lengths, seed, dtype), device, backward)
    if out.dtype == torch.int64:
        assert torch.equal((out.cpu() < 0), (ref < 0)), op.module.SPEC


LEAN_PRES = ["{p}", "-{p}", "exp(-{p} / 4)", "log1p(relu({p}))"]  # monotone: the key stays the plain pair


@settings(max_examples=examples(25), deadline=None)
@given(specs(pairs=["dot", "cos", "sqdist", "dist"], outers=["sum", "max", "min"], pres=lambda select: LEAN_PRES,
             masks=False),
       st.sampled_from(["rows", "cols", "both"]), st.sampled_from([torch.float16, torch.bfloat16]), st.data(),
       st.integers(0, 2**31 - 1))
def test_ragged_specs_run_the_lean_forward(spec_cache, device, backward, spec, which, dtype, data, seed):
    """Packed operands on the lean forward (16-bit rows, a power-of-two contraction, few
    row sets to each column set): values, indices and gradients against the reference,
    and the lean kernel is the one that ran."""
    text, _index_out = spec
    layout = "points" if text.startswith("P[") else "retrieval"
    r, c = LAYOUTS[layout][7:9]
    axes = {"rows": {r}, "cols": {c}, "both": {r, c}}[which]
    op = hsr.compile(raggedize(text, axes), cache_dir=spec_cache)
    outer = RAGGED_OF[layout]
    sizes = {"b": data.draw(st.integers(1, 3)), "i": data.draw(st.integers(1, 3)), "j": data.draw(st.integers(1, 3)),
             "x": data.draw(st.sampled_from([16, 32]))}
    lengths = {f"cu_{a}": data.draw(st.lists(st.integers(0, 70), min_size=sizes[outer[a]], max_size=sizes[outer[a]]))
               for a in axes}
    for a in {r, c} - axes:
        sizes[a] = data.draw(st.integers(1, 70))
    args = [x.to(dtype) if x.is_floating_point() else x for x in packed_inputs(op, sizes, lengths, seed)]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dispatch, "LEAN_MIN_ROWS", 1)
        seen = _launched(mp)
        check(op, args, device, backward, tol=1e-3)
    if all(x.numel() for x in args if x.is_floating_point()):  # (no rows at all: the general loop)
        assert seen and seen[0] == "lean", f"{op.module.SPEC}\n{seen}"


WEIGHTED = """\
cu_q[i]: offsets
cu_d[j]: offsets
Q[i, s by cu_q, d]: float
D[j, t by cu_d, d]: float
w[i, s by cu_q]: float

score[i, j] = sum_s w_s * max_t <Q_s, D_t>
"""

PAIRWISE = """\
cu_q[n]: offsets
cu_d[n]: offsets
Q[n, s by cu_q, d]: float
D[n, t by cu_d, d]: float

score[n] = sum_s max_t <Q_s, D_t>
"""


@pytest.mark.parametrize("lq, ld", [([3, 0, 2, 5], [1, 4, 0, 7]), ([1], [1]), ([0, 0], [0, 3]), ([6], [9, 1, 1])])
@pytest.mark.parametrize("dtype", [torch.int32, torch.int64])
def test_weighted_maxsim_packed(spec_cache, device, backward, lq, ld, dtype):
    op = hsr.compile(WEIGHTED, cache_dir=spec_cache)
    args = packed_inputs(op, {"d": 16}, {"cu_q": lq, "cu_d": ld}, 3, dtype)
    out, ref = check(op, args, device, backward)
    assert out.shape == (len(lq), len(ld))
    # an empty sequence is an all-masked one: its row of scores is 0
    for n, length in enumerate(lq):
        if length == 0:
            assert (out[n] == 0).all()


@settings(max_examples=examples(4))
@given(st.lists(st.integers(0, 40), min_size=3, max_size=5), st.lists(st.integers(0, 60), min_size=1, max_size=7),
       st.integers(0, 10**6))
def test_persistent_programs_over_packed_rows(spec_cache, device, lq, ld, seed):
    """The stacked loop's persistent programs (dispatch.persistent) on packed queries and
    documents: each program's block of queries ends at its sequences' lengths, each cell
    of its run finds its document's rows; values and gradients as the reference, empty
    sequences among them."""
    op = hsr.compile(WEIGHTED, cache_dir=spec_cache)
    args = packed_inputs(op, {"d": 16}, {"cu_q": lq, "cu_d": ld}, seed)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HSR_PERSIST", "1")
        launches = _general_launches(mp)
        kept.forget()
        check(op, args, device, "atomic")
    kept.forget()
    assert any(kw["PERSIST"] for kw, _programs in launches)


def test_pairwise_scores_each_pair(spec_cache, device, backward):
    op = hsr.compile(PAIRWISE, cache_dir=spec_cache)
    lq, ld = [2, 5, 0, 1], [7, 1, 3, 0]
    args = packed_inputs(op, {"d": 8}, {"cu_q": lq, "cu_d": ld}, 5)
    out, _ref = check(op, args, device, backward)
    cq, cd, Q, D = args
    for n in range(4):
        q, d = Q[cq[n]:cq[n + 1]].double(), D[cd[n]:cd[n + 1]].double()
        want = (q @ d.T).max(1).values.sum() if len(q) and len(d) else torch.tensor(0.0)
        assert abs(out[n].item() - want.item()) < 1e-4


def test_max_seqlen_spares_the_sync_and_agrees(spec_cache, device):
    op = hsr.compile(WEIGHTED, cache_dir=spec_cache)
    args = [x.to(device) for x in packed_inputs(op, {"d": 16}, {"cu_q": [3, 1], "cu_d": [2, 6, 0]}, 1)]
    plain = op(*args)
    given_ = op(*args, max_seqlen={"s": 3, "t": 6})
    larger = op(*args, max_seqlen={"s": 8, "t": 9})
    assert torch.equal(plain, given_) and torch.equal(plain, larger)


def test_packed_indices_leave_out_the_rows_past_the_end(spec_cache, device):
    text = WEIGHTED.replace("w[i, s by cu_q]: float\n", "").replace("w_s * ", "")
    op = hsr.compile(text, cache_dir=spec_cache)
    args = [x.to(device) for x in packed_inputs(op, {"d": 16}, {"cu_q": [3, 1], "cu_d": [2, 0]}, 2)]
    out, idx = op.module.forward_with_indices(*args)
    assert idx.shape == (2, 2, 3)  # [i, j, s]: s to the longest query
    assert (idx[1, :, 1:] == -1).all()  # query 1 has one token
    assert (idx[:, 1] == -1).all()  # document 1 is empty: nothing selected
    ref_out, ref_idx = op.module.forward_with_indices(*[x.double() if x.is_floating_point() else x for x in args])
    assert torch.equal(idx.cpu(), ref_idx.cpu())


def test_same_shapes_other_offsets(spec_cache, device):
    """A repeated call signature with other offsets (kept calls replay by shape)."""
    op = hsr.compile(WEIGHTED, cache_dir=spec_cache)
    for lq, ld in (([3, 2], [4, 1]), ([1, 4], [0, 5]), ([5, 0], [2, 3])):
        args = packed_inputs(op, {"d": 16}, {"cu_q": lq, "cu_d": ld}, 4)
        mine = op(*[x.to(device) for x in args])
        want = op.reference(*[x.double() if x.is_floating_point() else x for x in args])
        assert (mine.cpu().double() - want).abs().max() < 1e-4


def test_non_contiguous_packed_rows(spec_cache, device):
    op = hsr.compile(WEIGHTED, cache_dir=spec_cache)
    cq, cd, Q, D, w = packed_inputs(op, {"d": 16}, {"cu_q": [3, 2], "cu_d": [4, 1]}, 6)
    Qs = torch.randn(Q.shape[0], 32)[:, ::2]  # every other column: stride 2 along d
    ws = torch.rand(w.shape[0] * 2)[::2]
    check(op, [cq, cd, Qs, D, ws], device, "atomic")


@pytest.mark.parametrize("d", [3, 16])
def test_packed_clouds_far_from_the_origin(spec_cache, device, backward, d):
    text = """\
cu_p[b]: offsets
cu_r[b]: offsets
P[b, n by cu_p, x]: float
R[b, m by cu_r, x]: float

cd[b] = mean_n min_m ||P_n - R_m||^2 + mean_m min_n ||R_m - P_n||^2
"""
    op = hsr.compile(text, cache_dir=spec_cache)
    args = packed_inputs(op, {"x": d}, {"cu_p": [5, 0, 9], "cu_r": [3, 4, 7]}, 8, far=1000.0)
    check(op, args, device, backward, tol=1e-5)


def test_hausdorff_and_masks_on_packed_rows(spec_cache, device, backward):
    text = """\
cu_q[i]: offsets
cu_d[j]: offsets
Q[i, s by cu_q, d]: float
D[j, t by cu_d, d]: float
dm[j, t by cu_d]: bool = all

h[i, j] = max_s min_t ||Q_s - D_t||^2  where dm
"""
    op = hsr.compile(text, cache_dir=spec_cache)
    args = packed_inputs(op, {"d": 5}, {"cu_q": [4, 1], "cu_d": [3, 0, 6]}, 9)
    check(op, args, device, backward)


def test_ragged_selected_axis_of_a_tiled_output(spec_cache, device, backward):
    """Splade's head over packed sequences: the selected axis is ragged."""
    text = """\
cu[b]: offsets
H[b, s by cu, h]: float
W[v, h]: float
bias[v]: float

rep[b, v] = max_s log1p(relu(<H_s, W_v> + bias_v))
"""
    op = hsr.compile(text, cache_dir=spec_cache)
    args = packed_inputs(op, {"h": 16, "v": 37}, {"cu": [5, 0, 12]}, 10)
    out, _ref = check(op, args, device, backward)
    assert (out[1] == 0).all()


def test_explain_names_the_packing(spec_cache):
    op = hsr.compile(WEIGHTED, cache_dir=spec_cache)
    text = op.explain()
    assert "'s' ragged by cu_q" in text and "forward kernel: lean" in text and "not lean" not in text
    assert "offsets' checks (max_seqlen given, on a GPU): in the lean forward's kernel" in text
    mean = hsr.compile(WEIGHTED.replace("sum_s", "mean_s"), cache_dir=spec_cache).explain()
    assert "not lean: an outer mean over a ragged 's'" in mean
    assert "offsets' checks (max_seqlen given, on a GPU): one check launch before the forward" in mean


@pytest.mark.parametrize("cq, why", [
    ([0, 3, 2], "decrease"),
    ([0, 2, 4], "end at 4"),
    ([1, 2, 5], "start at 0"),
])
def test_bad_offsets_raise(spec_cache, cq, why):
    op = hsr.compile(WEIGHTED, cache_dir=spec_cache)
    _cq, cd, Q, D, w = packed_inputs(op, {"d": 16}, {"cu_q": [2, 3], "cu_d": [4]}, 1)
    with pytest.raises(TensorError, match=why):
        op(torch.tensor(cq, dtype=torch.int32), cd, Q, D, w)


def test_bad_packed_calls_raise(spec_cache):
    op = hsr.compile(WEIGHTED, cache_dir=spec_cache)
    cq, cd, Q, D, w = packed_inputs(op, {"d": 16}, {"cu_q": [2, 3], "cu_d": [4]}, 1)
    with pytest.raises(TensorError, match="longer than max_seqlen"):
        op(cq, cd, Q, D, w, max_seqlen={"s": 2})
    with pytest.raises(TensorError, match="not a ragged axis"):
        op(cq, cd, Q, D, w, max_seqlen={"d": 2})
    with pytest.raises(TensorError, match=r"'Q' must have 2 axes \[s, d\], packed"):
        op(cq, cd, Q[None], D, w)
    with pytest.raises(TensorError, match="offsets 'cu_q' must be int32 or int64"):
        op(cq.float(), cd, Q, D, w)
    with pytest.raises(TensorError, match="'w' packs 4 rows"):
        op(cq, cd, Q, D, w[:4])


def _device_checked(mp):
    """Offsets checked on the device where max_seqlen is given, on the CPU too (the
    interpreter): [(kernel name, CHECK_OFFSETS)] of each launch, and the separate
    check launches (ragged.check_on_device) counted. Kept calls are forgotten, so
    that each call runs as written (a replay launches without launcher.launch)."""
    kept.forget()
    mp.setattr(kept, "call", lambda table, key, inputs, fn, *args, **kwargs: fn(*args, **kwargs))
    mp.setattr(ragged, "DEVICE_TYPES", ("cuda", "cpu"))
    seen, plain, real = [], launcher.launch, ragged.check_on_device

    def spy(kernel, grid, *args, **kwargs):
        seen.append((getattr(kernel, "fn", kernel).__name__, kwargs.get("CHECK_OFFSETS")))
        return plain(kernel, grid, *args, **kwargs)

    def check(*args):
        seen.append(("check_on_device", None))
        return real(*args)
    mp.setattr(launcher, "launch", spy)
    mp.setattr(ragged, "check_on_device", check)
    return seen


BAD_OFFSETS = {  # a mutation of good offsets (and max_seqlen) -> what the check must refuse
    "decreases": lambda cu, longest: (torch.cat([cu[:1], cu[2:3], cu[1:2], cu[3:]]) if len(cu) > 3 and cu[2] > cu[1]
                                      else None, longest),
    "ends past the rows": lambda cu, longest: (torch.cat([cu[:-1], cu[-1:] + 1]), longest + 1),
    "ends before the rows": lambda cu, longest: (torch.cat([cu[:-1], cu[-1:] - 1]) if cu[-1] > cu[-2] else None,
                                                 longest),
    "starts past 0": lambda cu, longest: (cu + 1, longest),
    "longer than max_seqlen": lambda cu, longest: (cu, longest - 1) if longest > 0 else (None, 0),
}


@settings(max_examples=examples(20), deadline=None)
@given(st.lists(st.integers(0, 40), min_size=1, max_size=5), st.lists(st.integers(0, 70), min_size=1, max_size=5),
       st.sampled_from([torch.int32, torch.int64]), st.sampled_from(sorted(BAD_OFFSETS)), st.integers(0, 2**31 - 1))
def test_offsets_check_folds_into_the_lean_kernel(spec_cache, device, lq, ld, dtype, bad, seed):
    """Packed pairs on the lean forward with max_seqlen: each program checks its own
    sequences' offsets in the kernel (no check launch). Good offsets give the host-checked
    call's values; each kind of bad offsets fails the call."""
    if device != "cpu":
        pytest.skip("the interpreter's flag (a GPU's device assert: test_ragged, in a subprocess)")
    n = min(len(lq), len(ld))
    lq, ld = lq[:n], ld[:n]
    op = hsr.compile(PAIRWISE, cache_dir=spec_cache)
    cq, cd, Q, D = packed_inputs(op, {"d": 16}, {"cu_q": lq, "cu_d": ld}, seed, dtype)
    Q, D = Q.half(), D.half()
    limits = {"s": max(lq), "t": max(ld)}
    want = op(cq, cd, Q, D, max_seqlen=limits)  # checked on the host
    with pytest.MonkeyPatch.context() as mp:
        seen = _device_checked(mp)
        got = op(cq, cd, Q, D, max_seqlen=limits)
        assert torch.equal(got, want)
        if max(lq) > 0 and max(ld) > 0:  # (no rows or no columns: not lean, the check launched apart)
            assert seen == [("score_fwd_lean", 2)], seen
        else:
            assert seen[0] == ("check_on_device", None), seen
        cu, longest = BAD_OFFSETS[bad](cd, limits["t"])
        if cu is not None:
            with pytest.raises(RuntimeError, match="offsets 'cu_q', 'cu_d' must start at 0"):
                op(cq, cu.to(dtype), Q, D, max_seqlen=dict(limits, t=longest))


def test_an_owed_check_off_the_lean_kernel_runs_first(spec_cache, device):
    """Where the lean forward does not run (fp32 rows), the owed check is one launch
    before the forward kernel, once for a spec of two terms."""
    if device != "cpu":
        pytest.skip("the interpreter's device path on CPU tensors (on a GPU: test_ragged, in a subprocess)")
    op = hsr.compile(PAIRWISE, cache_dir=spec_cache)
    both = hsr.compile(PAIRWISE.replace("sum_s max_t <Q_s, D_t>", "sum_s max_t <Q_s, D_t> + sum_t max_s <D_t, Q_s>"),
                       cache_dir=spec_cache)
    cq, cd, Q, D = packed_inputs(op, {"d": 16}, {"cu_q": [3, 0, 5], "cu_d": [4, 2, 6]}, 2)
    limits = {"s": 5, "t": 6}
    with pytest.MonkeyPatch.context() as mp:
        seen = _device_checked(mp)
        assert torch.allclose(op(cq, cd, Q, D, max_seqlen=limits).double(),
                              op.reference(cq, cd, Q.double(), D.double()), atol=1e-4)
        assert seen[0] == ("check_on_device", None) and [s[0] for s in seen].count("check_on_device") == 1, seen
        assert all(name != "score_fwd_lean" for name, _ in seen)
        seen.clear()
        assert torch.allclose(both(cq, cd, Q, D, max_seqlen=limits).double(),
                              both.reference(cq, cd, Q.double(), D.double()), atol=1e-4)
        assert [s[0] for s in seen].count("check_on_device") == 1, seen
        with pytest.raises(RuntimeError, match="offsets 'cu_q', 'cu_d' must start at 0"):
            op(cq, torch.tensor([0, 4, 3, 12], dtype=torch.int32), Q, D, max_seqlen=limits)


def test_per_point_output_comes_packed(spec_cache, device, backward):
    """An output over a ragged axis: one value per point of every packed cloud."""
    text = """\
cu_x[b]: offsets
cu_y[b]: offsets
X[b, n by cu_x, k]: float
Y[b, m by cu_y, k]: float

dist[b, n] = min_m ||X_n - Y_m||^2
"""
    op = hsr.compile(text, cache_dir=spec_cache)
    args = packed_inputs(op, {"k": 3}, {"cu_x": [5, 0, 9], "cu_y": [3, 4, 0]}, 8, far=1000.0)
    out, _ref = check(op, args, device, backward, tol=1e-5)
    assert out.shape == (14,)
    assert (out[5:] == 0).all()  # the last cloud of y is empty: nothing nearest, 0
    index = hsr.compile(text.replace("dist[b, n] = min_m", "nn[b, n] = argmin_m"), cache_dir=spec_cache)
    got = index(*[x.to(device) for x in args])
    assert torch.equal(got.cpu(), index.reference(*[x.double() if x.is_floating_point() else x for x in args]))
    assert (got[5:] == -1).all()


def test_a_ragged_selected_axis_in_parts(monkeypatch, spec_cache, device, backward):
    """The general loop's selected axis in parts (dispatch.general_parts, forced) where it is
    ragged: a part past a cloud's end selects nothing and the merge passes it over; values,
    gradients and indices as the reference, far from the origin, an empty cloud included. A
    packed output (the rows' axis ragged) keeps the axis whole, and explain() says why."""
    from hsr import dispatch
    monkeypatch.setattr(dispatch, "PART_MIN_COLS", 1)
    monkeypatch.setattr(dispatch, "INTERPRET_SMS", 10**6)
    monkeypatch.setattr(dispatch, "GENERAL_PART_ALIGN", 64)
    monkeypatch.setenv("HSR_TMA", "0")
    taken = []
    real = dispatch.general_parts
    monkeypatch.setattr(dispatch, "general_parts", lambda *a, **k: taken.append(real(*a, **k)) or taken[-1])
    text = """\
cu_y[b]: offsets
X[b, n, k]: float
Y[b, m by cu_y, k]: float

dist[b, n] = min_m ||X_n - Y_m||^2
"""
    op = hsr.compile(text, cache_dir=spec_cache)
    args = packed_inputs(op, {"b": 3, "n": 6, "k": 5}, {"cu_y": [150, 0, 70]}, 5, far=1000.0)
    out, _ref = check(op, args, device, backward, tol=1e-5)
    assert taken and taken[-1][0] > 1 or device != "cpu"
    assert (out[1] == 0).all()  # the empty cloud: nothing nearest, 0
    index = hsr.compile(text.replace("dist[b, n] = min_m", "nn[b, n] = argmin_m"), cache_dir=spec_cache)
    got = index(*[x.to(device) for x in args])
    assert torch.equal(got.cpu(), index.reference(*[x.double() if x.is_floating_point() else x for x in args]))
    packed = hsr.compile(text.replace("X[b, n, k]", "X[b, n by cu_y, k]"), cache_dir=spec_cache)
    assert "the output is packed ('n' is ragged" in packed.explain(dict(b=3, n=150, m=150, k=5))


def test_packed_column_norms_from_a_pre_pass(monkeypatch, spec_cache, device, backward):
    """dispatch.col_norms on packed clouds: each sequence's norms at its own offset."""
    monkeypatch.setenv("HSR_COL_NORMS", "1")
    text = """\
cu_x[b]: offsets
cu_y[b]: offsets
X[b, n by cu_x, k]: float
Y[b, m by cu_y, k]: float

dist[b, n] = min_m ||X_n - Y_m||^2
"""
    op = hsr.compile(text, cache_dir=spec_cache)
    args = packed_inputs(op, {"k": 20}, {"cu_x": [5, 0, 9], "cu_y": [3, 4, 7]}, 8, far=1000.0)
    check(op, args, device, backward, tol=1e-5)


PACKED = """\
cu_q[i]: offsets
cu_d[j]: offsets
Q[i, s by cu_q, d]: float
D[j, t by cu_d, d]: float

score[i, j] = sum_s max_t <Q_s, D_t>
"""


def test_the_gather_backward_walks_packed_documents_in_parts(spec_cache, device, monkeypatch):
    """The atomic gather's parts (dispatch.gather_parts, its walk and part scaled down to these
    sizes) over packed queries and documents, empty ones among them: gradients as the reference."""
    monkeypatch.setattr(dispatch, "GATHER_MIN_WALK", 8)
    monkeypatch.setattr(dispatch, "GATHER_PART_CELLS", 4)
    parts, plain = [], launcher.launch

    def spy(kernel, grid, *args, **kwargs):
        if getattr(kernel, "fn", kernel).__name__ == "score_bwd":
            parts.append(grid[2])
        return plain(kernel, grid, *args, **kwargs)
    monkeypatch.setattr(launcher, "launch", spy)
    op = hsr.compile(PACKED, cache_dir=spec_cache)
    lengths = [(5 * n) % 8 for n in range(30)]  # 0 to 7 tokens, some empty
    args = packed_inputs(op, {"d": 16}, {"cu_q": [6], "cu_d": lengths}, 4)
    kept.forget()
    check(op, args, device, "atomic")
    assert parts and min(parts) > 1, parts

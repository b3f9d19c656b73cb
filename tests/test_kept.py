"""hsr.kept: a call whose signature was seen before replays its allocations and
launches, and gives what the path as written gives; anything in the signature
that changes misses."""

import hypothesis.strategies as st
import pytest
import torch
from hypothesis import given

import hsr
import hsr.ops
from hsr import kept
from hsr.errors import TensorError
from hsr.generated import chamfer_point, maxsim

MASKED = """
X[b, n, k]: float
Y[b, m, k]: float
ymask[b, m]: bool = all
w[b, n]: float = 1.0

h[b] = sum_n w_n * max_m exp(-||X_n - Y_m||^2) where ymask
"""


def _entries(table):
    return {k: v for k, v in table.entries.items()}


def _plain(module, *args, backward="auto", **kwargs):
    return module._apply(args, kwargs, backward)


@given(nq=st.integers(1, 3), nd=st.integers(1, 4), lq=st.integers(1, 9), ld=st.integers(1, 9),
       d=st.sampled_from([3, 16, 20]), masked=st.booleans(), seed=st.integers(0, 2**16))
def test_a_hit_gives_what_the_plain_path_gives(device, nq, nd, lq, ld, d, masked, seed):
    g = torch.Generator().manual_seed(seed)
    q, doc = torch.randn(nq, lq, d, generator=g), torch.randn(nd, ld, d, generator=g)
    m = torch.rand(nd, ld, generator=g) > 0.4 if masked else None
    q, doc, m = (x.to(device) if x is not None else None for x in (q, doc, m))
    kept.forget()
    first = maxsim.apply(q, doc, dmask=m)
    assert len(maxsim._KEPT.entries) == 1
    replay = next(iter(maxsim._KEPT.entries.values()))
    assert isinstance(replay, kept.Replay)
    # new values, same signature: the replay, against the plain path on the same inputs
    q2 = torch.randn(nq, lq, d, generator=g).to(device)
    again = maxsim.apply(q2, doc, dmask=m)
    assert len(maxsim._KEPT.entries) == 1
    torch.testing.assert_close(again, _plain(maxsim, q2, doc, dmask=m), rtol=0, atol=0)
    torch.testing.assert_close(maxsim.apply(q, doc, dmask=m), first, rtol=0, atol=0)


def test_a_compiled_spec_with_optional_inputs_and_an_l2_pair(device):
    op = hsr.compile(MASKED)
    g = torch.Generator().manual_seed(1)
    x, y = torch.randn(2, 7, 3, generator=g).to(device), torch.randn(2, 5, 3, generator=g).to(device)
    mask = (torch.rand(2, 5, generator=g) > 0.3).to(device)
    w = torch.rand(2, 7, generator=g).to(device)
    for call in ((x, y), (x, y, mask), (x, y, mask, w)):
        first = op(*call)
        second = op(*(c + 1.0 if c.dtype == torch.float32 else c for c in call))
        ref = op.reference(*(c.cpu() + 1.0 if c.dtype == torch.float32 else c.cpu() for c in call))
        torch.testing.assert_close(second.cpu(), ref.float(), rtol=1e-4, atol=1e-5)
        torch.testing.assert_close(op(*call), first, rtol=0, atol=0)


@pytest.mark.parametrize("change", ["stride", "dtype", "shape", "alignment", "grad_mode", "keyword"])
def test_a_changed_signature_misses(device, change):
    q, doc = torch.randn(2, 4, 16, device=device), torch.randn(3, 6, 16, device=device)
    m = torch.ones(3, 6, dtype=torch.bool, device=device)
    kept.forget()
    maxsim.apply(q, doc, dmask=m)
    before = _entries(maxsim._KEPT)
    if change == "stride":  # the same values, another layout
        other = doc.transpose(0, 1).contiguous().transpose(0, 1)
        assert not other.is_contiguous()
        got, want = maxsim.apply(q, other, dmask=m), _plain(maxsim, q, doc, dmask=m)
    elif change == "dtype":
        got, want = maxsim.apply(q.half(), doc.half(), dmask=m), _plain(maxsim, q.half(), doc.half(), dmask=m)
    elif change == "shape":
        got, want = maxsim.apply(q[:, :3], doc, dmask=m), _plain(maxsim, q[:, :3].contiguous(), doc, dmask=m)
    elif change == "alignment":  # 4 bytes off a 16-byte boundary: Triton specialises on it
        flat = torch.randn(q.numel() + 1, device=device)
        shifted = flat[1:].view(q.shape)
        shifted.copy_(q)
        assert shifted.data_ptr() % 16 != 0
        got, want = maxsim.apply(shifted, doc, dmask=m), _plain(maxsim, q, doc, dmask=m)
    elif change == "grad_mode":
        with torch.no_grad():
            got, want = maxsim.apply(q, doc, dmask=m), _plain(maxsim, q, doc, dmask=m)
    else:
        got, want = maxsim.apply(q, doc, None, m), _plain(maxsim, q, doc, None, m)
    after = _entries(maxsim._KEPT)
    assert len(after) == len(before) + 1, "a changed signature must be a new entry"
    torch.testing.assert_close(got, want, rtol=0, atol=0)


def test_the_device_is_in_the_signature():
    x = torch.zeros(2, 3)
    assert kept.signature((x,)) != kept.signature((x.to("meta"),))


@pytest.mark.parametrize("backward", ["atomic", "deterministic"])
def test_gradients_through_kept_signatures(device, backward):
    """A call that needs a gradient carries autograd, so apply runs as written;
    its forward and backward inside autograd are kept and replayed: values and
    gradients against the float64 reference on new values each time."""
    ref = hsr.compile("ops/maxsim.hsr").reference
    g = torch.Generator().manual_seed(3)
    kept.forget()
    for _ in range(3):
        q = torch.randn(2, 4, 16, generator=g).to(device).requires_grad_()
        doc = torch.randn(3, 6, 16, generator=g).to(device).requires_grad_()
        out = maxsim.apply(q, doc, backward=backward)
        (out * torch.arange(1.0, 7.0, device=device).view(2, 3)).sum().backward()
        q64, d64 = (x.detach().cpu().double().requires_grad_() for x in (q, doc))
        want = ref(q64, d64)
        (want * torch.arange(1.0, 7.0).double().view(2, 3)).sum().backward()
        torch.testing.assert_close(out.detach().cpu().double(), want.detach(), rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(q.grad.cpu().double(), q64.grad, rtol=1e-4, atol=1e-5)
        torch.testing.assert_close(doc.grad.cpu().double(), d64.grad, rtol=1e-4, atol=1e-5)
    assert kept.PLAIN in maxsim._KEPT.entries.values()
    assert any(isinstance(r, kept.Replay) for r in maxsim._KEPT_BOUND.entries.values())  # the checks, replayed
    assert any(isinstance(r, kept.Replay) for r in maxsim._score_KEPT_FORWARD.entries.values())
    assert any(isinstance(r, kept.Replay) for r in maxsim._score_KEPT_BACKWARD.entries.values())


def test_the_checks_of_a_gradient_call_are_replayed_for_packed_inputs(device):
    """A packed call with gradients: on a GPU its checks (the offsets' device check,
    with max_seqlen) come from a replay after the second call. New offsets and
    values each time: values and gradients as the plain path gives them."""
    from hsr.generated import maxsim_varlen
    g = torch.Generator().manual_seed(5)
    kept.forget()
    for lengths in ([3, 1, 4], [2, 2, 4], [0, 5, 3]):
        cu = torch.tensor([0, *torch.tensor(lengths).cumsum(0).tolist()], dtype=torch.int32).to(device)
        q = torch.randn(sum(lengths), 16, generator=g).to(device)
        doc = torch.randn(sum(lengths), 16, generator=g).to(device)
        grads = []
        for plain in (False, True):
            qk, dk = q.clone().requires_grad_(), doc.clone().requires_grad_()
            call = maxsim_varlen._apply if plain else (lambda a, k, b, m: maxsim_varlen.apply(*a, backward=b, max_seqlen=m))
            out = call((cu, cu.clone(), qk, dk), {}, "deterministic", {"s": 5, "t": 5})  # bitwise reproducible
            (out * torch.arange(1.0, 10.0, device=device).view(3, 3)).sum().backward()
            grads.append((out.detach(), qk.grad, dk.grad))
        for x, y in zip(*grads):
            torch.testing.assert_close(x, y, rtol=0, atol=0)
    # on a GPU the offsets are checked on the device: a replay; on the CPU one host read checks them
    want = kept.Replay if device == "cuda" else type(kept.PLAIN)
    assert [type(r) for r in maxsim_varlen._KEPT_BOUND.entries.values()] == [want]


def test_both_ways_is_kept(device):
    g = torch.Generator().manual_seed(4)
    a, b = torch.randn(2, 50, 3, generator=g).to(device), torch.randn(2, 40, 3, generator=g).to(device)
    kept.forget()
    chamfer_point.both_ways(a, b)
    a2 = a + 0.5
    got = chamfer_point.both_ways(a2, b)
    want = chamfer_point._both_ways(a2, b, None, None, "auto")
    assert isinstance(next(iter(chamfer_point._KEPT_BOTH.entries.values())), kept.Replay)
    for x, y in zip(got, want):
        torch.testing.assert_close(x, y, rtol=0, atol=0)


def test_a_path_that_computes_is_not_replayed(monkeypatch):
    """CPU tensors without the interpreter run the reference evaluator: torch
    arithmetic, so the signature runs as written each time."""
    monkeypatch.setenv("TRITON_INTERPRET", "0")
    q, doc = torch.randn(1, 3, 8), torch.randn(2, 4, 8)
    maxsim.apply(q, doc)
    assert list(maxsim._KEPT.entries.values()) == [kept.PLAIN]
    torch.testing.assert_close(maxsim.apply(q, doc), _plain(maxsim, q, doc), rtol=0, atol=0)


def test_inputs_sharing_memory_are_recorded_again(device):
    x = torch.randn(2, 5, 16, device=device)
    kept.forget()
    maxsim.apply(x, x)  # Q and D the same tensor: which one a launch read cannot be told
    assert not maxsim._KEPT.entries
    y = torch.randn(2, 5, 16, device=device)
    torch.testing.assert_close(maxsim.apply(x, y), _plain(maxsim, x, y), rtol=0, atol=0)


def test_forget_drops_every_kept_call(device):
    import sys
    front = sys.modules["hsr.ops.maxsim"]  # the front end's table (hsr.ops.maxsim is also the function)
    q, doc = torch.randn(1, 3, 8, device=device), torch.randn(2, 4, 8, device=device)
    hsr.ops.maxsim(q, doc)
    maxsim.apply(q, doc)
    assert maxsim._KEPT.entries and front._KEPT.entries
    kept.forget()
    assert not maxsim._KEPT.entries and not front._KEPT.entries


def test_bad_input_still_raises_named_errors(device):
    q = torch.randn(1, 3, 8, device=device)
    hsr.ops.maxsim(q, torch.randn(2, 4, 8, device=device))
    with pytest.raises(TensorError, match="D"):
        maxsim.apply(q, torch.randn(2, 4, 9, device=device))
    with pytest.raises(TensorError):
        maxsim.apply(q, [1, 2])


def _held_tensors(obj, seen=None):
    """Every tensor with data (or descriptor with a base) reachable from a Replay's steps."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return []
    seen.add(id(obj))
    if isinstance(obj, torch.Tensor):
        return [obj] if obj.numel() else []
    if type(obj).__name__ == "TensorDescriptor":
        return [obj.base] if obj.base is not None else []
    if isinstance(obj, (list, tuple)):
        return [t for x in obj for t in _held_tensors(x, seen)]
    if isinstance(obj, dict):
        return [t for x in obj.values() for t in _held_tensors(x, seen)]
    if isinstance(obj, (kept.Replay, kept._Op, kept._Launch)):
        return [t for x in vars(obj).values() for t in _held_tensors(x, seen)]
    return []


@pytest.mark.parametrize("lean", [False, True], ids=["general", "lean-descriptors"])
def test_a_kept_call_holds_none_of_the_tensors_it_was_recorded_with(device, monkeypatch, lean):
    from hsr import dispatch
    # the lean forward at any row count, its tiles through TMA descriptors; or off
    monkeypatch.setattr(dispatch, "LEAN_MIN_ROWS", 1 if lean else 0)
    monkeypatch.setattr(dispatch, "LEAN_INTERPRET_LOAD", 1)
    q, doc = torch.randn(2, 4, 16, device=device).half(), torch.randn(3, 6, 16, device=device).half()
    kept.forget()
    maxsim.apply(q, doc)
    replay = next(iter(maxsim._KEPT.entries.values()))
    assert isinstance(replay, kept.Replay)
    assert any(isinstance(step, kept._Launch) and step.descriptors for step in replay.program) == lean
    assert not _held_tensors(replay)  # not the inputs, not a view of them, not an output
    q2, doc2 = torch.randn(2, 4, 16, device=device).half(), torch.randn(3, 6, 16, device=device).half()
    torch.testing.assert_close(maxsim.apply(q2, doc2), _plain(maxsim, q2, doc2), rtol=0, atol=0)


class _FakeCompiled:
    function, packed_metadata = "fn", "meta"

    def __init__(self, log):
        self.log = log

    def run(self, *args):
        self.log.append(args[9:])  # past the grid, stream, function, metadata and hooks


class _FakeKernel:
    """A JIT function as hsr.launcher sees it: a signature and [grid](...)."""

    def __init__(self, log):
        import inspect
        self.signature = inspect.signature(lambda x_ptr, m_ptr, out_ptr, y_ptr, n, BLOCK=16: None)  # noqa: N803
        self.compiled = _FakeCompiled(log)

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.compiled


def _compiled_launches(monkeypatch):
    """(log, kernel): launches as on a GPU (compiled, recorded by a replay), into a fake kernel's log."""
    monkeypatch.setattr(hsr.launcher, "interpreting", lambda: False)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: True)
    monkeypatch.setattr(hsr.launcher, "current_stream", lambda device=None: 7)
    log = []
    return log, _FakeKernel(log)


def test_a_replay_launches_on_the_bases_of_views_only_a_launch_reads(monkeypatch):
    """Views at their base's address that only a compiled launch reads are not
    replayed (the launch takes the base), nor is an op whose result nothing
    reads; a view at another address, and the result's view, are."""
    log, kernel = _compiled_launches(monkeypatch)

    def path(x, m):
        out = torch.empty(4)
        m.view(torch.uint8)  # made and never read
        hsr.launcher.launch(kernel, (1,), x.view(-1), m.view(torch.uint8), out, x.view(-1)[1:], 5)
        flat = out.view(-1)  # a view a launch reads and the result holds: replayed
        hsr.launcher.launch(kernel, (1,), x, m, flat, x, 6)
        return out.view(2, 2), flat

    table = kept.Table()
    x, m = torch.arange(6.0).reshape(2, 3), torch.ones(6, dtype=torch.bool)
    kept.call(table, kept.signature((x, m)), (x, m), path, x, m)
    replay = table.get(kept.signature((x, m)))
    assert isinstance(replay, kept.Replay)
    ops = [s.func.__name__ for s in replay.program if isinstance(s, kept._Op)]
    assert ops == ["empty", "view", "__getitem__", "view", "view"]  # x.view(-1) for x[1:], the result's views
    x2, m2 = torch.arange(6.0, 12.0).reshape(2, 3), torch.zeros(6, dtype=torch.bool)
    got = kept.call(table, kept.signature((x2, m2)), (x2, m2), path, x2, m2)
    args = log[-2]
    assert args[0] is x2 and args[1] is m2  # the bases, not views
    assert args[3].data_ptr() == x2.data_ptr() + 4 and args[4:] == (5, 16)
    assert got[0].shape == (2, 2) and got[0].data_ptr() == args[2].data_ptr()
    assert got[1].shape == (4,) and log[-1][2] is got[1]


def test_a_replay_runs_no_step_for_an_op_that_returned_its_argument(monkeypatch):
    """contiguous() of a contiguous tensor and to() of its own dtype return the tensor
    itself (the signature fixes that they will again): no step. A detach() that only
    a compiled launch reads is a view like the others: the launch takes its base."""
    log, kernel = _compiled_launches(monkeypatch)

    def path(x, m):
        rows = x.detach().reshape(-1, 3).contiguous().to(torch.float32)
        out = torch.empty(4)
        hsr.launcher.launch(kernel, (1,), rows, m, out, x.contiguous(), 5)
        return out

    table = kept.Table()
    x, m = torch.arange(6.0).reshape(2, 3), torch.ones(6, dtype=torch.bool)
    kept.call(table, kept.signature((x, m)), (x, m), path, x, m)
    replay = table.get(kept.signature((x, m)))
    assert [s.func.__name__ for s in replay.program if isinstance(s, kept._Op)] == ["empty"]
    x2 = torch.arange(6.0, 12.0).reshape(2, 3)
    got = kept.call(table, kept.signature((x2, m)), (x2, m), path, x2, m)
    assert log[-1][0] is x2 and log[-1][3] is x2 and log[-1][2] is got


@pytest.mark.parametrize("form", ["one query, 1-D mask", "batch, 2-D masks", "one document", "K candidates",
                                  "integer mask"])
def test_the_maxsim_front_end_is_kept(device, form):
    """hsr.ops.maxsim replays its whole path (the front end's views included) on
    a repeated signature, with new values: what the path as written gives."""
    from hsr.ops import maxsim as front  # the module: hsr.ops.maxsim is also the function's name
    import sys
    module = sys.modules["hsr.ops.maxsim"]
    gen = torch.Generator().manual_seed(5)

    def inputs():
        r = lambda *shape: torch.randn(*shape, generator=gen).to(device)  # noqa: E731
        b = lambda *shape: (torch.rand(*shape, generator=gen) < 0.7).to(device)  # noqa: E731
        return {"one query, 1-D mask": lambda: (r(5, 16), r(3, 7, 16), b(5), b(7)),
                "batch, 2-D masks": lambda: (r(2, 5, 16), r(3, 7, 16), b(2, 5), b(3, 7)),
                "one document": lambda: (r(2, 5, 16), r(7, 16), None, b(7)),
                "K candidates": lambda: (r(2, 5, 16), r(2, 3, 7, 16), None, b(2, 3, 7)),
                "integer mask": lambda: (r(2, 5, 16), r(3, 7, 16), None, b(3, 7).int())}[form]()

    module._KEPT.entries.clear()
    first = inputs()
    front(first[0], first[1], first[2], first[3])
    key = kept.signature(first, False, "auto", "float")
    assert isinstance(module._KEPT.entries.get(key), kept.Replay)
    again = inputs()
    got = front(*again)
    want = module._maxsim(*again, False, "auto", "float")
    assert got.shape == want.shape and torch.allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", ["chamfer", "chamfer lengths", "chamfer one way, tuple", "chamfer per point",
                                  "splade", "splade bias and mask"])
def test_the_chamfer_and_splade_front_ends_are_kept(device, case):
    """chamfer_distance and splade_max replay their whole path on a repeated
    signature without gradients: on new values, what the path as written gives."""
    import sys
    gen = torch.Generator().manual_seed(6)
    r = lambda *shape: torch.randn(*shape, generator=gen).to(device)  # noqa: E731
    lens = lambda n, top: torch.randint(0, top + 1, (n,), generator=gen).to(device)  # noqa: E731
    chamfer = sys.modules["hsr.ops.chamfer"]
    splade = sys.modules["hsr.ops.splade"]
    calls = {
        "chamfer": (chamfer, lambda: ((r(2, 9, 3), r(2, 7, 3)), {})),
        "chamfer lengths": (chamfer, lambda: ((r(2, 9, 3), r(2, 7, 3), lens(2, 9), lens(2, 7)), {})),
        "chamfer one way, tuple": (chamfer, lambda: ((r(2, 9, 3), r(2, 7, 3)),
                                                     dict(single_directional=True, return_tuple=True))),
        "chamfer per point": (chamfer, lambda: ((r(2, 9, 3), r(2, 7, 3)),
                                                dict(point_reduction=None, batch_reduction=None))),
        "splade": (splade, lambda: ((r(2, 5, 16), r(40, 16)), {})),
        "splade bias and mask": (splade, lambda: ((r(2, 5, 16), r(40, 16).half(), r(40)),
                                                  dict(attention_mask=(lens(10, 1).view(2, 5) > 0).int()))),
    }
    module, make = calls[case]
    front = module.chamfer_distance if module is chamfer else module.splade_max
    module._KEPT.entries.clear()
    args, kwargs = make()
    front(*args, **kwargs)
    assert any(isinstance(v, kept.Replay) for v in module._KEPT.entries.values())
    args, kwargs = make()
    got = front(*args, **kwargs)
    kept.forget()
    want = front(*args, **kwargs)  # as written: the table was just emptied
    got, want = (x if isinstance(x, tuple) else (x,) for x in (got, want))
    for g, w in zip(got, want):
        assert (g is None) == (w is None)
        if g is not None:
            assert g.shape == w.shape and torch.allclose(g, w, rtol=1e-5, atol=1e-5)

"""Tensor arguments (hsr/runtime.py, ``bind``): every bundled generated module
and a few compiled user specs refuse a tensor that does not fit the spec with
an hsr.errors.TensorError (a ValueError) that names the argument and, for
sizes, the spec's axis, before any kernel runs. Layouts that are not errors
(transposed, strided, broadcast with stride 0) give the reference's values
and gradients."""

from __future__ import annotations

import pytest
import torch

from hsr_subjects import ALL, forbid_kernels, subjects
from hsr import dispatch, runtime
from hsr.errors import TensorError


@pytest.fixture(scope="module")
def ops(tmp_path_factory):
    return subjects(ALL, tmp_path_factory.mktemp("hsr-cache"))


@pytest.fixture
def no_kernels(monkeypatch):
    forbid_kernels(monkeypatch)


# -- bind itself -------------------------------------------------------------------------

SIG = (("A", ("i", "s", "d"), "float", None), ("B", ("j", "t", "d"), "float", None),
       ("keep", ("j", "t"), "bool", "all"), ("blen", ("j",), "int", "full"),
       ("w", ("i", "s"), "float", 1.0))


def _bind(*args, **kwargs):
    return runtime.bind("out", SIG, args, kwargs)


def _error(*args, **kwargs) -> str:
    with pytest.raises(TensorError) as err:
        _bind(*args, **kwargs)
    assert isinstance(err.value, ValueError)
    return str(err.value)


def test_bind_returns_tensors_and_sizes():
    A, B = torch.randn(2, 3, 4), torch.randn(5, 6, 4)
    tensors, sizes = _bind(A, B, blen=torch.tensor([1, 2, 3, 4, 5], dtype=torch.int32))
    assert sizes == {"i": 2, "s": 3, "d": 4, "j": 5, "t": 6}
    assert tensors["A"] is A and tensors["keep"] is None and tensors["w"] is None


@pytest.mark.parametrize("call, words", [
    (lambda: _error(), ["missing input 'A'", "[i, s, d]"]),
    (lambda: _error(torch.randn(2, 3, 4)), ["missing input 'B'"]),
    (lambda: _error(*[torch.randn(1)] * 6), ["takes 5 inputs", "got 6"]),
    (lambda: _error(torch.randn(2, 3, 4), torch.randn(5, 6, 4), bias=torch.randn(5)), ["unknown input 'bias'"]),
    (lambda: _error(torch.randn(2, 3, 4), torch.randn(5, 6, 4), A=torch.randn(2, 3, 4)), ["'A' given twice"]),
    (lambda: _error([[1.0]], torch.randn(5, 6, 4)), ["'A'", "torch.Tensor", "list"]),
    (lambda: _error(torch.randn(2, 3), torch.randn(5, 6, 4)), ["'A'", "3 axes [i, s, d]", "(2, 3)"]),
    (lambda: _error(torch.randn(2, 3, 4), torch.randn(5, 6, 7)),
     ["axis 'd'", "'B'", "(dim 2)", "size 7", "'A' gives 'd' size 4"]),
    (lambda: _error(torch.randn(2, 3, 4), torch.randn(5, 6, 4), torch.ones(5, 7, dtype=torch.bool)),
     ["axis 't'", "'keep'", "size 7", "'B' gives 't' size 6"]),
    (lambda: _error(torch.randn(2, 3, 4), torch.randn(5, 6, 4), torch.ones(5, dtype=torch.bool)),
     ["'keep'", "2 axes [j, t]"]),
    (lambda: _error(torch.randn(2, 3, 4), torch.randn(5, 6, 4), blen=torch.ones(4, dtype=torch.int64)),
     ["axis 'j'", "'blen'", "size 4", "'B' gives 'j' size 5"]),
    (lambda: _error(torch.randn(2, 3, 4), torch.randn(5, 6, 4), blen=torch.ones(5, 1, dtype=torch.int64)),
     ["'blen'", "1 axes [j]"]),
], ids=["none", "missing", "too-many", "unknown", "twice", "not-a-tensor", "rank", "size", "mask-size",
        "mask-rank", "length-size", "length-rank"])
def test_bind_errors_name_the_argument_and_axis(call, words):
    message = call()
    assert message.startswith("out: ")
    for word in words:
        assert word in message, (word, message)


@pytest.mark.parametrize("name, value, words", [
    ("A", torch.ones(2, 3, 4, dtype=torch.int32), ["'A'", "float tensor", "int32"]),
    ("A", torch.ones(2, 3, 4, dtype=torch.int64), ["'A'", "float tensor", "int64"]),
    ("A", torch.ones(2, 3, 4, dtype=torch.float64), ["'A'", "float tensor", "float64"]),
    ("A", torch.ones(2, 3, 4, dtype=torch.bool), ["'A'", "float tensor", "bool"]),
    ("A", torch.ones(2, 3, 4, dtype=torch.complex64), ["'A'", "float tensor", "complex64"]),
    ("keep", torch.ones(5, 6), ["mask 'keep'", "torch.bool", "float32"]),
    ("keep", torch.ones(5, 6, dtype=torch.uint8), ["mask 'keep'", "torch.bool", "uint8"]),
    ("blen", torch.ones(5), ["length 'blen'", "int32 or int64", "float32"]),
    ("blen", torch.ones(5, dtype=torch.bool), ["length 'blen'", "int32 or int64", "bool"]),
    ("blen", torch.ones(5, dtype=torch.int16), ["length 'blen'", "int32 or int64", "int16"]),
    ("w", torch.ones(2, 3, dtype=torch.float16), ["'w'", "float16", "share one dtype"]),
])
def test_bind_refuses_dtypes(name, value, words):
    args = {"A": torch.randn(2, 3, 4), "B": torch.randn(5, 6, 4)}
    args[name] = value
    message = _error(**args)
    for word in words:
        assert word in message, (word, message)


def test_bind_accepts_what_the_reference_accepts():
    """The reference evaluator binds with float64 and mixed float dtypes allowed."""
    dtypes = runtime.KERNEL_FLOAT_DTYPES + (torch.float64,)
    _, sizes = runtime.bind("out", SIG, (torch.randn(2, 3, 4).double(), torch.randn(5, 6, 4).half()), {},
                            float_dtypes=dtypes, one_float_dtype=False)
    assert sizes["d"] == 4
    for dtype in runtime.KERNEL_FLOAT_DTYPES:  # every kernel dtype, one per call
        _bind(torch.randn(2, 3, 4).to(dtype), torch.randn(5, 6, 4).to(dtype), w=torch.ones(2, 3).to(dtype))


@pytest.mark.parametrize("name", ["B", "keep", "blen", "w"])
def test_bind_refuses_a_second_device(name):
    args = {"A": torch.randn(2, 3, 4), "B": torch.randn(5, 6, 4), "keep": torch.ones(5, 6, dtype=torch.bool),
            "blen": torch.ones(5, dtype=torch.int64), "w": torch.ones(2, 3)}
    args[name] = args[name].to("meta")
    message = _error(**args)
    assert f"'{name}' is on meta" in message and "cpu" in message


def test_bind_needs_every_axis_size():
    sig = (("A", ("i", "d"), "float", None), ("m", ("i", "t"), "bool", "all"))
    with pytest.raises(TensorError, match="size of axis 't' is unknown"):
        runtime.bind("out", sig, (torch.randn(2, 3),), {})


def test_bind_takes_any_layout():
    """Strides are the kernels' business: bind checks shapes, never contiguity."""
    base = torch.randn(4, 8, 6)
    A = base.permute(2, 0, 1)[:, ::2, ::3]           # [6, 2, 3], no stride 1
    B = torch.randn(1, 1, 3).expand(5, 7, 3)          # stride 0
    tensors, sizes = _bind(A, B)
    assert sizes == {"i": 6, "s": 2, "d": 3, "j": 5, "t": 7}
    assert tensors["A"] is A and tensors["B"] is B


# -- every op: wrong tensors raise TensorError before any kernel runs ------------------------------

def _variants(value, kind):
    """Wrong dtypes for an input of this kind: (label, tensor, words in the message)."""
    if kind == "float":  # (float64 is a call's dtype: the reference evaluator's, tests/test_float64.py)
        return [(dt, value.to(dt), ["float tensor"]) for dt in (torch.int32, torch.int64, torch.bool)]
    if kind == "bool":
        return [(dt, value.to(dt), ["mask", "torch.bool"]) for dt in (torch.float32, torch.int64, torch.uint8)]
    return [(dt, value.to(dt), ["length", "int32 or int64"]) for dt in (torch.float32, torch.bool)]


@pytest.mark.parametrize("name", ALL)
def test_wrong_tensors_raise_before_any_kernel(ops, name, no_kernels):
    subject = ops[name]
    sizes = subject.sizes()
    good = subject.inputs(sizes, torch.Generator().manual_seed(0))
    names = [entry[0] for entry in subject.signature]
    users = {}  # axis -> inputs that carry it
    for n, axes, _, _ in subject.signature:
        for a in axes:
            users.setdefault(a, []).append(n)

    def refused(args, words, what):
        with pytest.raises(TensorError) as err:
            subject.run(**args)
        message = str(err.value)
        for word in words:
            assert word in message, f"{name}, {what}: {word!r} not in {message!r}"
        return message

    for n, axes, kind, _ in subject.signature:
        # wrong rank, both ways
        refused({**good, n: good[n][None]}, [f"'{n}'", f"{len(axes)} axes [{', '.join(axes)}]"], f"{n} rank+1")
        if good[n].dim():
            refused({**good, n: good[n][0]}, [f"'{n}'", f"{len(axes)} axes"], f"{n} rank-1")
        # wrong size of each axis that another input also carries
        for dim, axis in enumerate(axes):
            if len(users[axis]) < 2:
                continue
            shape = list(good[n].shape)
            shape[dim] += 1
            wrong = torch.zeros(shape, dtype=good[n].dtype)
            message = refused({**good, n: wrong}, [f"axis '{axis}'", f"size {shape[dim]}", f"size {sizes[axis]}"],
                              f"{n} axis {axis}")
            assert f"'{n}'" in message and any(f"'{other}'" in message for other in users[axis] if other != n)
        # wrong dtypes
        for label, value, words in _variants(good[n], kind):
            refused({**good, n: value}, [f"'{n}'", *words], f"{n} as {label}")
        # not a tensor
        refused({**good, n: good[n].tolist()}, [f"'{n}'", "torch.Tensor"], f"{n} as a list")
        # on another device than the first input
        if n != names[0]:
            refused({**good, n: good[n].to("meta")}, [f"'{n}' is on meta", "cpu"], f"{n} on meta")
    first = names[0]
    refused({**good, first: good[first].to("meta")}, ["is on cpu", "meta"], f"{first} on meta")
    floats = [n for n, _, kind, _ in subject.signature if kind == "float"]
    if len(floats) > 1:
        refused({**good, floats[-1]: good[floats[-1]].half()}, [f"'{floats[-1]}'", "share one dtype"], "mixed")
        for n in floats:  # float64 beside fp32: refused too, naming the input
            refused({**good, n: good[n].double()}, [f"'{n}'", "float64", "share one dtype"], f"{n} float64")
    required = [n for n, _, _, default in subject.signature if default is None]
    refused({n: v for n, v in good.items() if n != required[-1]}, [f"missing input '{required[-1]}'"], "missing")
    with pytest.raises(TensorError, match="backward must be one of"):
        subject.run(**good, backward="fastest")


# -- layouts that are not errors: values and gradients ----------------------------------------------

def _garbage(dtype):
    return {torch.bool: True, torch.int64: 10**6, torch.int32: 10**6}.get(dtype, float("nan"))


def _stepped(base):
    """A view of base's values with stride 2 on every axis, the gaps filled
    with garbage (NaN for floats) that a wrong stride would read."""
    big = torch.full([2 * n for n in base.shape], _garbage(base.dtype), dtype=base.dtype, device=base.device)
    return big, (slice(None, None, 2),) * base.dim()


def _leaves(subject, good, layout, dtype=torch.float64, device="cpu"):
    """(leaf tensors to take gradients of, the op's arguments) for a layout.

    "transposed": strides in reverse order; "stepped": stride 2 everywhere
    (garbage between); "broadcast": each input expanded with stride 0 from
    size 1 along its first axis that is neither selected nor contracted (no
    new ties), so the leaf's gradient is the sum over that axis."""
    leaves, args = {}, {}
    for name, axes, kind, _ in subject.signature:
        value = (good[name].to(dtype) if kind == "float" else good[name]).to(device)
        grad = kind == "float" and name in subject.differentiable
        if layout == "transposed":
            rev = list(range(value.dim()))[::-1]
            leaf = value.permute(rev).contiguous().requires_grad_(grad)
            arg = leaf.permute(rev)
        elif layout == "stepped":
            big, index = _stepped(value)
            big[index] = value
            leaf = big.requires_grad_(grad)
            arg = leaf[index]
        else:
            dims = [n for n, a in enumerate(axes) if a not in subject.selected | subject.contracted]
            if not dims:
                leaf = value.clone().requires_grad_(grad)
                arg = leaf
            else:
                leaf = value.narrow(dims[0], 0, 1).clone().requires_grad_(grad)
                arg = leaf.expand(value.shape)
        leaves[name], args[name] = leaf, arg
    return leaves, args


@pytest.mark.parametrize("layout", ["transposed", "stepped", "broadcast"])
@pytest.mark.parametrize("name", ALL)
def test_layouts_give_the_reference_values_and_gradients(ops, device, name, layout):
    subject = ops[name]
    gen = torch.Generator().manual_seed(1)
    good = subject.inputs(subject.sizes(), gen)
    mine, args = _leaves(subject, good, layout, torch.float32, device)
    theirs, ref_args = _leaves(subject, good, layout, torch.float64)
    if layout != "broadcast":
        assert not any(a.is_contiguous() for a in args.values() if a.dim() > 1)
    else:
        assert any(0 in a.stride() for a in args.values())
    out = subject.run(**args)
    ref = subject.op.reference(**ref_args)
    if ref.dtype == torch.int64:
        assert torch.equal(out.cpu(), ref)
        return
    assert torch.allclose(out.cpu().double(), ref, rtol=1e-4, atol=1e-4), (out, ref)
    weights = torch.randn(ref.shape, generator=gen, dtype=torch.float64)
    (out.double() * weights.to(out.device)).sum().backward()
    (ref * weights).sum().backward()
    for n in subject.differentiable:
        got, want = mine[n].grad, theirs[n].grad
        assert got is not None and got.shape == mine[n].shape, n
        assert torch.allclose(got.cpu().double(), want, rtol=1e-4, atol=1e-4), (n, got, want)


# -- the Splade front end passes its tensors to bind as they are ---------------------------------------------

@pytest.mark.parametrize("args, kwargs, words", [
    ((torch.ones(2, 3, 8, dtype=torch.int32), torch.randn(6, 8)), {}, ["'H'", "float tensor", "int32"]),
    ((torch.randn(2, 3, 8), torch.randn(6, 7)), {}, ["axis 'h'", "'W'", "size 7", "size 8"]),
    ((torch.randn(2, 3, 8), torch.randn(6, 8)), {"bias": torch.randn(5)}, ["axis 'v'", "'bias'", "size 5"]),
    ((torch.randn(2, 3, 8), torch.randn(6, 8)), {"bias": torch.ones(6, dtype=torch.int64)}, ["'bias'", "int64"]),
    ((torch.randn(2, 3, 8), torch.randn(6, 8)), {"attention_mask": torch.ones(2, 4)}, ["axis 's'", "'mask'"]),
    ((torch.randn(2, 3, 8), torch.randn(6, 8, device="meta")), {}, ["'W' is on meta"]),
    ((torch.randn(2, 3, 8), torch.randn(6, 8)), {"attention_mask": torch.ones(2, 3, device="meta")},
     ["'mask' is on meta"]),
    ((torch.randn(3, 8), torch.randn(6, 8)), {}, ["'H'", "3 axes [b, s, h]"]),
    (([[0.0]], torch.randn(6, 8)), {}, ["hidden must be a torch.Tensor"]),
], ids=["int", "h", "bias-size", "int-bias", "mask-size", "meta-W", "meta-mask", "rank", "list"])
def test_splade_front_end_errors_before_any_kernel(monkeypatch, args, kwargs, words):
    """The messages name the spec's inputs (H, W, bias, mask) and axes."""
    from hsr.ops import splade_max
    forbid_kernels(monkeypatch)
    with pytest.raises(TensorError) as err:
        splade_max(*args, **kwargs)
    for word in words:
        assert word in str(err.value), (word, str(err.value))


def test_contraction_modes():
    """A few coordinates unroll on the CUDA cores; up to 256 one tensor-core
    tile (int8 and fp8 tiles at least 32 deep: Triton's dot needs K >= 32 on a
    GPU, which the interpreter does not check); longer ones go in chunks."""
    assert dispatch.contraction(3) == (2, 16, 3) and dispatch.contraction(8) == (2, 16, 8)
    assert dispatch.contraction(16) == (0, 16, 0) and dispatch.contraction(16, quantized=True) == (0, 32, 0)
    assert dispatch.contraction(100, quantized=True) == (0, 128, 0)
    assert dispatch.contraction(768) == (1, 64, 0)


def test_both_ways_fuses_where_measured_faster(monkeypatch):
    """Fused on CUDA only without indices and up to 1e8 pairs (bench/NOTES.md,
    session 7); always in the interpreter, whose tests check it."""
    cuda, cpu = torch.device("cuda"), torch.device("cpu")
    monkeypatch.delenv("HSR_BOTH_WAYS_INDEX", raising=False)
    monkeypatch.delenv("HSR_BOTH_WAYS", raising=False)
    assert dispatch.both_ways_fused(cuda, 10**8, False) and not dispatch.both_ways_fused(cuda, 10**10, False)
    assert not dispatch.both_ways_fused(cuda, 100, True)
    assert dispatch.both_ways_fused(cpu, 10**10, True)
    monkeypatch.setenv("HSR_BOTH_WAYS_INDEX", "1")
    assert dispatch.both_ways_fused(cuda, 100, True)


def test_both_ways_choice_can_be_forced_for_measuring(monkeypatch):
    """HSR_BOTH_WAYS=fused|separate overrides the size rule without indices only;
    any other value leaves the rule alone."""
    cuda = torch.device("cuda")
    monkeypatch.delenv("HSR_BOTH_WAYS_INDEX", raising=False)
    monkeypatch.setenv("HSR_BOTH_WAYS", "fused")
    assert dispatch.both_ways_fused(cuda, 10**10, False) and not dispatch.both_ways_fused(cuda, 100, True)
    monkeypatch.setenv("HSR_BOTH_WAYS", "separate")
    assert not dispatch.both_ways_fused(cuda, 100, False)
    monkeypatch.setenv("HSR_BOTH_WAYS", "yes")
    assert dispatch.both_ways_fused(cuda, 100, False) and not dispatch.both_ways_fused(cuda, 10**10, False)


def test_counting_sort_blocks_follow_the_measured_rule(monkeypatch):
    """2048-entry blocks placed 32 at a time (the H200's best at every
    measured shape); HSR_COUNT_BLOCKS overrides."""
    monkeypatch.delenv("HSR_COUNT_BLOCKS", raising=False)
    assert runtime.count_blocks() == (2048, 32)
    monkeypatch.setenv("HSR_COUNT_BLOCKS", "64,16")
    assert runtime.count_blocks() == (64, 16)


def test_cpu_tensors_without_the_interpreter_warn_once_that_the_reference_runs(monkeypatch):
    """With TRITON_INTERPRET unset, CPU tensors run the float64 reference evaluator:
    the first such call says so (a RuntimeWarning), later ones do not."""
    import warnings

    from hsr.ops import maxsim

    monkeypatch.setenv("TRITON_INTERPRET", "0")
    monkeypatch.setattr(runtime, "_fallback_warned", [])
    Q, D = torch.randn(1, 3, 8), torch.randn(2, 4, 8)
    with pytest.warns(RuntimeWarning, match="float64 reference evaluator"):
        first = maxsim(Q, D)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = maxsim(Q, D)
    assert torch.equal(first, again)
    assert torch.allclose(first.double(), torch.einsum("isd,jtd->ijst", Q.double(), D.double()).amax(-1).sum(-1),
                          atol=1e-5)

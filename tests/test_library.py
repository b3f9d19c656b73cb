"""The torch.library custom ops of generated modules: opcheck on every bundled
op, and torch.compile(fullgraph=True) through the front ends, against eager."""

import importlib
from pathlib import Path

import pytest
import torch

import hsr
from hsr import ops, runtime

ROOT = Path(__file__).resolve().parent.parent
# Specs with ragged axes (offsets) take packed inputs and max_seqlen, which _inputs does not draw: their
# custom ops have tests of their own below.
BUNDLED = sorted(p.stem for p in (ROOT / "ops").glob("*.hsr") if ": offsets" not in p.read_text())
UTILS = ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic")


def _inputs(signature, device, seed, grad=True, rows=()):
    """Random inputs for a signature: every axis of size 2 to 5, masks with a
    hole, lengths that cut some rows short; with a module's computed operands
    (rows, its ROWS), a code table as many entries as its codes take, each index
    within its table, n-bit codes as their packed bytes."""
    g = torch.Generator().manual_seed(seed)
    sizes = {axis: 1 << bits for _n, _a, _l, gathers, *_rest in rows for _i, _t, axis, bits in gathers if bits}
    for _name, axes, _kind, _default in signature:
        for axis in axes:
            sizes.setdefault(axis, int(torch.randint(2, 6, (1,), generator=g)))
    index_range = {index: sizes[axis] for _n, _a, _l, gathers, *_rest in rows for index, _t, axis, _b in gathers}
    values = []
    grad = grad and all(kind not in ("int8", "fp8") for _n, _a, kind, _d in signature)  # inference only
    for name, axes, kind, _default in signature:
        shape = [sizes[a] for a in axes]
        if kind.startswith("uint"):
            shape[-1] = -(-shape[-1] * int(kind[4:]) // 8)
            values.append(torch.randint(0, 256, shape, generator=g, dtype=torch.uint8).to(device))
        elif name in index_range:
            values.append(torch.randint(0, index_range[name], shape, generator=g).to(device))
        elif kind == "float":
            x = torch.randn(shape, generator=g, dtype=torch.float32).to(device)
            values.append(x.requires_grad_(grad))
        elif kind == "int8":
            values.append(torch.randint(-127, 128, shape, generator=g, dtype=torch.int8).to(device))
        elif kind == "fp8":
            values.append(torch.randn(shape, generator=g).to(torch.float8_e4m3fn).to(device))
        elif kind == "bool":
            values.append((torch.rand(shape, generator=g) > 0.25).to(device))
        else:
            values.append(torch.randint(0, 6, shape, generator=g).to(device))
    return values


def _term_ops(module):
    return [getattr(module, name) for name in dir(module)
            if name.endswith("_op") and isinstance(getattr(module, name), torch._library.custom_ops.CustomOpDef)]


@pytest.mark.parametrize("name", BUNDLED)
def test_opcheck_every_bundled_op(name, backward, device):
    module = importlib.import_module(f"hsr.generated.{name}")
    term_ops = _term_ops(module)
    assert term_ops, f"{name} registers no custom op"
    if name.endswith("fp8") and device == "cuda" and torch.cuda.get_device_capability() < (8, 9):
        pytest.skip("fp8 tensor cores need compute capability 8.9 or more")
    # torch's schema check compares fp8 inputs with torch.allclose, which fp8 lacks on the CPU
    utils = tuple(u for u in UTILS if u != "test_schema") if name.endswith("fp8") else UTILS
    for op in term_ops:
        args = _inputs(module.SIGNATURE, device, seed=len(name), rows=getattr(module, "ROWS", ()))
        result = torch.library.opcheck(op, (*args, True, backward), test_utils=utils)
        assert set(result.values()) == {"SUCCESS"}, result


def test_opcheck_without_gradients_and_with_absent_inputs(device):
    from hsr.generated import maxsim as module

    Q, D, _qmask, dmask = _inputs(module.SIGNATURE, device, seed=3, grad=False)
    result = torch.library.opcheck(module.score_op, (Q, D, None, dmask, False, "auto"), test_utils=UTILS)
    assert set(result.values()) == {"SUCCESS"}, result


def test_opcheck_an_index_output(cache_dir, device):
    op = hsr.compile(ROOT / "examples" / "kmeans_assign.hsr")
    term_ops = _term_ops(op.module)
    assert len(term_ops) == 1
    args = _inputs(op.module.SIGNATURE, device, seed=5, grad=False)
    result = torch.library.opcheck(term_ops[0], (*args, False, "auto"), test_utils=UTILS)
    assert set(result.values()) == {"SUCCESS"}, result


def test_backward_op_passes_opcheck(device):
    from hsr.generated import maxsim_cos as module

    Q, D, qmask, dmask = _inputs(module.SIGNATURE, device, seed=7, grad=False)
    out, idx, stat, xsel, *aux = module.score_op(Q, D, qmask, dmask, True, "atomic")
    grad_out = torch.randn_like(out)
    backward_op = module._score_op_grad
    result = torch.library.opcheck(backward_op, (Q, D, qmask, dmask, idx, stat, xsel, *aux, grad_out, "deterministic"),
                                   test_utils=("test_schema", "test_faketensor", "test_aot_dispatch_dynamic"))
    assert set(result.values()) == {"SUCCESS"}, result


def _compiled(fn):
    return torch.compile(fn, backend="aot_eager", fullgraph=True, dynamic=False)


def _grads_match(fn, args):
    """fn(*args) and its gradients, compiled with fullgraph=True and eager."""
    leaves = [a for a in args if isinstance(a, torch.Tensor) and a.requires_grad]
    torch._dynamo.reset()
    got = _compiled(fn)(*args)
    got_grads = torch.autograd.grad(got.sum(), leaves)
    want = fn(*args)
    want_grads = torch.autograd.grad(want.sum(), leaves)
    torch.testing.assert_close(got, want)
    for g, w in zip(got_grads, want_grads):
        torch.testing.assert_close(g, w)


@pytest.mark.parametrize("normalize", [False, True])
def test_compile_traces_maxsim(device, normalize):
    g = torch.Generator().manual_seed(0)
    Q = torch.randn(3, 5, 16, generator=g).to(device).requires_grad_()
    D = torch.randn(4, 7, 16, generator=g).to(device).requires_grad_()
    d_mask = (torch.rand(4, 7, generator=g) > 0.3).to(device)

    def contrastive(Q, D, d_mask):
        scores = ops.maxsim(Q, D, d_mask=d_mask, normalize=normalize)
        return torch.nn.functional.cross_entropy(scores, torch.arange(3, device=scores.device), reduction="none")

    _grads_match(contrastive, (Q, D, d_mask))


def test_compile_traces_chamfer_and_splade(device):
    g = torch.Generator().manual_seed(1)
    x = torch.randn(2, 9, 3, generator=g).to(device).requires_grad_()
    y = torch.randn(2, 6, 3, generator=g).to(device).requires_grad_()
    _grads_match(lambda x, y: ops.chamfer_distance(x, y, point_reduction="sum").reshape(1), (x, y))

    hidden = torch.randn(2, 5, 16, generator=g).to(device).requires_grad_()
    weight = torch.randn(11, 16, generator=g).to(device).requires_grad_()
    bias = torch.randn(11, generator=g).to(device).requires_grad_()
    mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], device=device)
    _grads_match(lambda h, w, b, m: ops.splade_max(h, w, b, m), (hidden, weight, bias, mask))


def test_compiled_graph_calls_the_custom_op(device):
    """fullgraph=True would raise on a graph break; the op must be in the graph."""
    from torch._dynamo.testing import CompileCounterWithBackend

    counter = CompileCounterWithBackend("aot_eager")
    Q = torch.randn(2, 4, 8, device=device)
    D = torch.randn(3, 5, 8, device=device)
    torch._dynamo.reset()
    fn = torch.compile(lambda Q, D: ops.maxsim(Q, D), backend=counter, fullgraph=True)
    torch.testing.assert_close(fn(Q, D), ops.maxsim(Q, D))
    assert counter.frame_count == 1
    graph = counter.graphs[0]
    assert any("hsr" in str(node.target) for node in graph.graph.nodes), graph.graph


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available() or runtime.interpreting(), reason="needs CUDA kernels")
def test_inductor_compiles_a_training_step():
    """The default backend (inductor) on the GPU, fullgraph, forward and backward."""
    g = torch.Generator().manual_seed(2)
    Q = torch.randn(4, 32, 128, generator=g).cuda().half().requires_grad_()
    D = torch.randn(4, 300, 128, generator=g).cuda().half().requires_grad_()
    labels = torch.arange(4, device="cuda")

    def step(Q, D):
        return torch.nn.functional.cross_entropy(ops.maxsim(Q, D) / 4.0, labels)

    torch._dynamo.reset()
    loss = torch.compile(step, fullgraph=True)(Q, D)
    grads = torch.autograd.grad(loss, (Q, D))
    want = step(Q, D)
    want_grads = torch.autograd.grad(want, (Q, D))
    torch.testing.assert_close(loss, want)
    for got, ref in zip(grads, want_grads):
        torch.testing.assert_close(got, ref, rtol=1e-2, atol=1e-3)


def _packed(lengths, d, seed, device):
    """Packed rows of sequences of these lengths and their int32 offsets."""
    g = torch.Generator().manual_seed(seed)
    cu = torch.tensor([0, *torch.tensor(lengths).cumsum(0).tolist()], dtype=torch.int32).to(device)
    return torch.randn(sum(lengths), d, generator=g).to(device).requires_grad_(), cu


@pytest.mark.parametrize("name", ["maxsim_varlen", "maxsim_pairs", "chamfer_packed"])
def test_opcheck_packed_specs(name, backward, device):
    """A packed spec's custom op takes its ragged axes' sizes (max_seqlen) as one
    more argument; its fake shapes come from them and the inputs' shapes."""
    module = importlib.import_module(f"hsr.generated.{name}")
    d = 3 if name.startswith("chamfer") else 8
    (A, cu_a), (B, cu_b) = _packed([3, 0, 5], d, 0, device), _packed([4, 2, 1], d, 1, device)
    args = (cu_a, cu_b, A, B)
    for op in _term_ops(module):
        result = torch.library.opcheck(op, (*args, True, backward, [5, 4]), test_utils=UTILS)
        assert all(v == "SUCCESS" for v in result.values()), result


def test_compile_traces_packed_maxsim(device):
    """maxsim_varlen and maxsim_pairs under torch.compile(fullgraph=True), with
    max_seqlen: values and gradients as eagerly."""
    (Q, cu_q), (D, cu_d) = _packed([3, 1, 4], 16, 2, device), _packed([5, 0, 2], 16, 3, device)
    _grads_match(lambda Q, D: ops.maxsim_varlen(Q, D, cu_q, cu_d, 4, 5), (Q, D))
    _grads_match(lambda Q, D: ops.maxsim_pairs(Q, D, cu_q, cu_d, 4, 5, normalize=True), (Q, D))


def test_compile_traces_a_packed_output(device):
    """Per-point distances over a ragged axis come packed, under torch.compile too."""
    from hsr.generated import chamfer_packed
    (x, cu_x), (y, cu_y) = _packed([4, 0, 3], 3, 4, device), _packed([2, 5, 1], 3, 5, device)
    _grads_match(lambda x, y: chamfer_packed.apply(cu_x, cu_y, x, y, max_seqlen={"n": 4, "m": 5}), (x, y))
    _grads_match(lambda x, y: ops.chamfer_distance(x, y, x_sizes=[4, 0, 3], y_sizes=[2, 5, 1]).reshape(1), (x, y))


def test_compile_without_max_seqlen_says_so(device):
    from hsr.errors import TensorError
    (Q, cu_q), (D, cu_d) = _packed([3, 1], 8, 6, device), _packed([2, 2], 8, 7, device)
    torch._dynamo.reset()
    with pytest.raises(Exception, match="max_seqlen") as caught:
        _compiled(lambda Q, D: ops.maxsim_varlen(Q, D, cu_q, cu_d))(Q, D)
    assert isinstance(caught.value, TensorError) or "TensorError" in repr(caught.value)

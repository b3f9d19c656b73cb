"""hsr.ops.splade_max and SpladeMaxPooling (the Splade / Sparton head) against
the eager formula in float64, through the Triton interpreter here (and on CUDA
with HSR_TEST_DEVICE=cuda):

    rep[b, v] = max over unmasked s of act(hidden[b, s] @ weight[v] + bias[v])

act = log1p(relu(.)) or relu; a row with no unmasked token gives 0 and passes no
gradient; the output is float32 [B, V] whatever the input dtype.
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from profiles import examples

from hsr.ops import SpladeMaxPooling, splade_max

ACTIVATIONS = ["log1p_relu", "relu"]
TOL = {torch.float32: 1e-4, torch.float16: 1e-2, torch.bfloat16: 3e-2}


def reference(hidden, weight, bias=None, mask=None, activation="log1p_relu", margins=None):
    """The eager formula in float64. ``margins`` collects, per (b, v) cell, how far
    the selection is from a tie or from relu's kink (where the kernels could
    legitimately pick another token or side)."""
    h, w = hidden.double(), weight.double()
    z = torch.einsum("blh,vh->blv", h, w)
    if bias is not None:
        z = z + bias.double()
    act = torch.log1p(torch.relu(z)) if activation == "log1p_relu" else torch.relu(z)
    keep = torch.ones(h.shape[:2], dtype=torch.bool) if mask is None else mask.cpu() != 0
    act = act.masked_fill(~keep[:, :, None], float("-inf"))
    out = act.max(dim=1).values                                  # first maximum wins
    out = torch.where(keep.any(1)[:, None], out, torch.zeros_like(out))
    if margins is not None:
        zz = z.detach().masked_fill(~keep[:, :, None], float("-inf"))
        top = zz.topk(min(2, zz.shape[1]), dim=1).values         # [B, k, V]
        first = top[:, 0]
        real = torch.isfinite(first)
        scale = 1 + first.abs()
        margins.append((first.abs() / scale)[real])              # off the kink
        if zz.shape[1] >= 2:
            gap = (first - top[:, 1]) / scale
            margins.append(gap[real & (first > 0)])             # below 0 every token gives 0 anyway
    return out


def _min(margins):
    flat = torch.cat([m.reshape(-1) for m in margins]) if margins else torch.empty(0)
    return flat.min().item() if flat.numel() else float("inf")


def _close(mine, ref, tol, what):
    mine = mine.detach().cpu().double()
    assert mine.shape == ref.shape, f"{what}: shape {tuple(mine.shape)}, expected {tuple(ref.shape)}"
    bound = tol * max(ref.abs().max().item() if ref.numel() else 0.0, 1.0)
    err = (mine - ref.detach()).abs().max().item() if ref.numel() else 0.0
    assert err <= bound, f"{what}: max abs error {err:.3g} > {bound:.3g}\n got {mine}\n expected {ref.detach()}"


def _data(b, l, h, v, gen, dtype, with_bias=True):
    hidden = torch.randn(b, l, h, generator=gen).to(dtype)
    weight = (torch.randn(v, h, generator=gen) / h ** 0.5).to(dtype)
    bias = (torch.randn(v, generator=gen) * 0.5).to(dtype) if with_bias else None
    return hidden, weight, bias


def _mask(kind, b, l, gen, empty_row):
    if kind is None:
        return None
    m = torch.rand(b, l, generator=gen) < 0.7
    if empty_row is not None:
        m[empty_row % b] = False
    return m if kind == "bool" else m.long()


def _check(hidden, weight, bias, mask, activation, device, tol, margin=None, backward="auto"):
    """Values and the gradients of hidden, weight and bias (of a random linear
    functional of the output) against the reference; returns the op's grads."""
    margins = []
    plain = reference(hidden, weight, bias, mask, activation, margins)
    if margin is not None:  # inside hypothesis tests: skip near-ties
        assume(_min(margins) > margin)
    gen = torch.Generator().manual_seed(99)
    g = torch.randn(plain.shape, generator=gen, dtype=torch.float64)

    leaves = [t.clone().to(device).requires_grad_() if t is not None else None for t in (hidden, weight, bias)]
    out = splade_max(*leaves, None if mask is None else mask.to(device), activation=activation, backward=backward)
    assert out.dtype == torch.float32
    assert out.shape == plain.shape
    _close(out, plain, tol, f"value ({activation}, {hidden.dtype})")
    wanted = [t for t in leaves if t is not None]
    grads = torch.autograd.grad((out.double() * g.to(device)).sum(), wanted, allow_unused=True)
    grads = [torch.zeros_like(t) if gr is None else gr for t, gr in zip(wanted, grads)]

    refs = [t.double().requires_grad_() if t is not None else None for t in (hidden, weight, bias)]
    ref = reference(*refs, mask, activation)
    ref_wanted = [t for t in refs if t is not None]
    ref_grads = torch.autograd.grad((ref * g).sum(), ref_wanted, allow_unused=True)
    ref_grads = [torch.zeros_like(t) if gr is None else gr for t, gr in zip(ref_wanted, ref_grads)]
    for name, mine, theirs, leaf in zip(("hidden", "weight", "bias"), grads, ref_grads, wanted):
        assert mine.dtype == leaf.dtype, f"grad {name} dtype {mine.dtype}, expected {leaf.dtype}"
        _close(mine, theirs, tol * 4, f"grad {name} ({activation}, {hidden.dtype}, backward={backward})")
    return out, grads


shapes = st.fixed_dictionaries({
    "b": st.integers(1, 3), "l": st.integers(1, 6), "h": st.integers(1, 8), "v": st.integers(1, 40),
    "activation": st.sampled_from(ACTIVATIONS), "bias": st.booleans(),
    "mask": st.sampled_from([None, "bool", "int"]), "empty_row": st.one_of(st.none(), st.integers(0, 2)),
    "seed": st.integers(0, 2**31 - 1),
})


@settings(max_examples=examples(25), deadline=None)
@given(shapes)
def test_fp32_values_and_gradients(device, case):
    gen = torch.Generator().manual_seed(case["seed"])
    hidden, weight, bias = _data(case["b"], case["l"], case["h"], case["v"], gen, torch.float32, case["bias"])
    mask = _mask(case["mask"], case["b"], case["l"], gen, case["empty_row"])
    _check(hidden, weight, bias, mask, case["activation"], device, TOL[torch.float32], 1e-4)


@settings(max_examples=examples(12), deadline=None)
@given(shapes, st.sampled_from([torch.float16, torch.bfloat16]))
def test_half_precision_inputs(device, case, dtype):
    gen = torch.Generator().manual_seed(case["seed"])
    hidden, weight, bias = _data(case["b"], case["l"], case["h"], case["v"], gen, dtype, case["bias"])
    mask = _mask(case["mask"], case["b"], case["l"], gen, case["empty_row"])
    _check(hidden, weight, bias, mask, case["activation"], device, TOL[dtype], 1e-3)


@pytest.mark.parametrize("activation", ACTIVATIONS)
@pytest.mark.parametrize("mask_dtype", [torch.bool, torch.int64])
def test_all_masked_row_gives_zero_and_no_gradient(device, activation, mask_dtype):
    gen = torch.Generator().manual_seed(3)
    hidden, weight, bias = _data(3, 5, 6, 11, gen, torch.float32)
    bias = bias.abs() + 1.0                      # every act(...) > 0: the 0 of row 1 is the empty row's
    mask = torch.ones(3, 5, dtype=torch.bool)
    mask[1] = False
    mask[2, 3:] = False
    mask = mask.to(mask_dtype)
    out, (gh, gw, gb) = _check(hidden, weight, bias, mask, activation, device, 1e-4)
    assert (out[1] == 0).all() and (out[0] > 0).all() and (out[2] > 0).all()
    assert (gh[1] == 0).all(), "the all-masked row passes no gradient to its tokens"
    assert (gh[2, 3:] == 0).all(), "masked tokens pass no gradient"
    # the empty row's output alone moves nothing
    leaves = [t.clone().to(device).requires_grad_() for t in (hidden, weight, bias)]
    only = splade_max(*leaves, mask.to(device), activation=activation)[1].sum()
    for t, gr in zip(leaves, torch.autograd.grad(only, leaves, allow_unused=True)):
        assert gr is None or (gr == 0).all()


def test_masked_tokens_do_not_count_even_when_they_would_win(device):
    hidden = torch.tensor([[[1.0], [100.0], [2.0]]], device=device)
    weight = torch.tensor([[1.0], [-1.0]], device=device)
    mask = torch.tensor([[True, False, True]], device=device)
    out = splade_max(hidden, weight, attention_mask=mask, activation="relu")
    assert out.cpu().tolist() == [[2.0, 0.0]]
    out = splade_max(hidden, weight, attention_mask=mask)
    assert torch.allclose(out.cpu(), torch.log1p(torch.tensor([[2.0, 0.0]])))


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_no_bias_and_no_mask(device, activation):
    gen = torch.Generator().manual_seed(4)
    hidden, weight, _ = _data(2, 4, 8, 9, gen, torch.float32, with_bias=False)
    out, grads = _check(hidden, weight, None, None, activation, device, 1e-4)
    assert len(grads) == 2
    # keyword call, as users write it
    again = splade_max(hidden.to(device), weight.to(device), bias=None, attention_mask=None, activation=activation)
    assert torch.equal(again.cpu(), out.cpu())


def test_odd_vocabulary_size(device):
    gen = torch.Generator().manual_seed(5)
    hidden, weight, bias = _data(2, 5, 8, 37, gen, torch.float32)
    mask = _mask("bool", 2, 5, gen, None)
    mask[:, 0] = True
    out, _ = _check(hidden, weight, bias, mask, "log1p_relu", device, 1e-4)
    assert out.shape == (2, 37)


@settings(max_examples=examples(10), deadline=None)
@given(shapes)
def test_atomic_and_deterministic_backwards_agree(device, scatter, case):
    gen = torch.Generator().manual_seed(case["seed"])
    hidden, weight, bias = _data(case["b"], case["l"], case["h"], case["v"], gen, torch.float32, case["bias"])
    mask = _mask(case["mask"], case["b"], case["l"], gen, case["empty_row"])
    _, atomic = _check(hidden, weight, bias, mask, case["activation"], device, 1e-4, 1e-4, backward="atomic")
    _, determ = _check(hidden, weight, bias, mask, case["activation"], device, 1e-4, 1e-4,
                       backward="deterministic")
    for a, b in zip(atomic, determ):
        assert torch.allclose(a.cpu(), b.cpu(), rtol=1e-5, atol=1e-6)


def test_deterministic_backward_is_bitwise_reproducible(device, scatter):
    gen = torch.Generator().manual_seed(6)
    hidden, weight, bias = _data(3, 6, 8, 40, gen, torch.float32)
    runs = []
    for _ in range(2):
        leaves = [t.clone().to(device).requires_grad_() for t in (hidden, weight, bias)]
        splade_max(*leaves, backward="deterministic").sum().backward()
        runs.append([t.grad.cpu() for t in leaves])
    assert all(torch.equal(a, b) for a, b in zip(*runs))


def test_non_contiguous_inputs(device):
    gen = torch.Generator().manual_seed(7)
    hidden_t = torch.randn(8, 4, 2, generator=gen)           # [H, L, B], permuted to [B, L, H]
    weight_big = torch.randn(20, 16, generator=gen) / 3      # rows ::2 and columns 4:12
    bias_big = torch.randn(40, generator=gen)
    hidden, weight, bias = hidden_t.permute(2, 1, 0), weight_big[::2, 4:12], bias_big[::4]
    assert not hidden.is_contiguous() and not weight.is_contiguous() and not bias.is_contiguous()
    out = splade_max(hidden.to(device), weight.to(device), bias.to(device))
    _close(out, reference(hidden, weight, bias), 1e-4, "value, non-contiguous")
    h = hidden_t.clone().to(device).requires_grad_()
    w = weight_big.clone().to(device).requires_grad_()
    bb = bias_big.clone().to(device).requires_grad_()
    splade_max(h.permute(2, 1, 0), w[::2, 4:12], bb[::4]).sum().backward()
    hr, wr, br = (t.clone().double().requires_grad_() for t in (hidden_t, weight_big, bias_big))
    reference(hr.permute(2, 1, 0), wr[::2, 4:12], br[::4]).sum().backward()
    for mine, ref in ((h.grad, hr.grad), (w.grad, wr.grad), (bb.grad, br.grad)):
        _close(mine, ref, 4e-4, "grad, non-contiguous")


# -- the sentence-transformers module -------------------------------------------------------------

def _module_weight_grad(module, weight):
    for p in module.parameters():
        if p.shape == weight.shape and p.grad is not None:
            return p.grad
    return weight.grad


@pytest.mark.parametrize("with_bias", [True, False])
@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_module_reads_and_writes_the_features_dict(device, with_bias, activation):
    gen = torch.Generator().manual_seed(8)
    hidden, weight, bias = _data(2, 5, 8, 13, gen, torch.float32, with_bias)
    mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]])          # int64, as tokenizers give it
    weight_p = torch.nn.Parameter(weight.clone().to(device))
    bias_p = torch.nn.Parameter(bias.clone().to(device)) if with_bias else None
    module = SpladeMaxPooling(weight_p, bias_p, activation_function=activation)
    assert isinstance(module, torch.nn.Module)
    h = hidden.clone().to(device).requires_grad_()
    features = {"token_embeddings": h, "attention_mask": mask.to(device), "input_ids": torch.zeros(2, 5)}
    result = module(features)
    assert isinstance(result, dict)
    rep = result["sentence_embedding"]
    assert rep.shape == (2, 13) and rep.dtype == torch.float32
    assert "input_ids" in result and result["token_embeddings"] is h
    ref_h, ref_w = hidden.double().requires_grad_(), weight.double().requires_grad_()
    ref = reference(ref_h, ref_w, bias, mask, activation)
    _close(rep, ref, 1e-4, "module value")
    direct = splade_max(hidden.to(device), weight.to(device), None if bias is None else bias.to(device),
                        mask.to(device), activation=activation)
    assert torch.allclose(rep.detach().cpu(), direct.cpu(), rtol=1e-6, atol=1e-6)
    rep.sum().backward()
    ref.sum().backward()
    _close(h.grad, ref_h.grad, 4e-4, "module grad hidden")
    _close(_module_weight_grad(module, weight), ref_w.grad, 4e-4, "module grad weight")


def test_module_default_is_log1p_relu_max(device):
    gen = torch.Generator().manual_seed(9)
    hidden, weight, bias = _data(1, 3, 4, 5, gen, torch.float32)
    module = SpladeMaxPooling(weight.to(device), bias.to(device))
    features = {"token_embeddings": hidden.to(device),
                "attention_mask": torch.ones(1, 3, dtype=torch.long, device=device)}
    rep = module(features)["sentence_embedding"]
    _close(rep, reference(hidden, weight, bias, None, "log1p_relu"), 1e-4, "module default")


@pytest.mark.parametrize("strategy", ["sum", "mean", "cls"])
def test_module_refuses_other_pooling(strategy):
    weight = torch.randn(5, 4)
    features = {"token_embeddings": torch.randn(1, 3, 4), "attention_mask": torch.ones(1, 3, dtype=torch.long)}
    with pytest.raises(ValueError):
        module = SpladeMaxPooling(weight, pooling_strategy=strategy)
        module(features)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device (run on the GPU machine)")
@pytest.mark.parametrize("vocab", [30522, 250002])
def test_full_vocabularies_on_the_gpu(vocab):
    """BERT's and XLM-R's vocabularies (the grid covers V=250002, a multiple of
    no block size), bf16, against the eager formula; values and gradients."""
    g = torch.Generator().manual_seed(vocab)
    hidden = (torch.randn(2, 24, 768, generator=g) * 0.5).to("cuda", torch.bfloat16).requires_grad_()
    weight = (torch.randn(vocab, 768, generator=g) * 0.05).to("cuda", torch.bfloat16).requires_grad_()
    bias = (torch.randn(vocab, generator=g) * 0.1).to("cuda", torch.bfloat16).requires_grad_()
    mask = torch.ones(2, 24, dtype=torch.bool, device="cuda")
    mask[1, 10:] = False
    out = splade_max(hidden, weight, bias, mask)
    assert out.shape == (2, vocab) and out.dtype == torch.float32
    z = torch.einsum("blh,vh->blv", hidden.float(), weight.float()) + bias.float()
    z = torch.log1p(torch.relu(z)).masked_fill(~mask[:, :, None], float("-inf"))
    want = z.amax(dim=1)
    assert (out - want).abs().max().item() <= 2e-2 * max(1.0, want.abs().max().item())
    grad = torch.randn(2, vocab, generator=g).cuda()
    got = torch.autograd.grad(out, (hidden, weight, bias), grad)
    ref = torch.autograd.grad(want, (hidden, weight, bias), grad)
    for a, b, name in zip(got, ref, ("hidden", "weight", "bias")):
        # relative to the whole gradient: a near tie in bf16 may pick another token for a few cells
        err = (a.float() - b.float()).norm() / b.float().norm()
        assert err.item() <= 2e-2, (name, err.item())

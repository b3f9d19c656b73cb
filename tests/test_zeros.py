"""hsr.zeros: the store kernel writes zeros over whatever a buffer held, at odd sizes
(through the interpreter); zeros() takes it only where dispatch.zeros_by_kernel says so."""

import pytest
import torch

from hsr import dispatch, zeros


@pytest.mark.parametrize("n", [1, zeros.BLOCK - 1, zeros.BLOCK + 3, 3 * zeros.BLOCK])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_the_store_kernel_overwrites_every_element(device, n, dtype):
    x = torch.full((n,), float("nan"), dtype=dtype, device=device)
    assert zeros.zero_(x) is x
    assert torch.equal(x.cpu(), torch.zeros(n, dtype=dtype))
    empty = torch.empty(0, dtype=dtype, device=device)
    assert zeros.zero_(empty).numel() == 0


def test_zeros_take_the_kernel_where_the_rule_says(monkeypatch):
    launched = []
    monkeypatch.setattr(zeros, "zero_", lambda x: launched.append(x.shape) or x.fill_(0))
    assert torch.equal(zeros.zeros((3, 5), torch.float32, torch.device("cpu")), torch.zeros(3, 5)) and not launched
    monkeypatch.setattr(dispatch, "zeros_by_kernel", lambda device, nbytes: nbytes == 60)
    assert torch.equal(zeros.zeros((3, 5), torch.float32, torch.device("cpu")), torch.zeros(3, 5)) and launched == [(3, 5)]


def test_the_rule_takes_large_buffers_on_a_gpu():
    assert dispatch.zeros_by_kernel("cuda", dispatch.ZEROS_KERNEL_MIN_BYTES)
    assert not dispatch.zeros_by_kernel("cuda", dispatch.ZEROS_KERNEL_MIN_BYTES - 1)
    assert not dispatch.zeros_by_kernel("cpu", 1 << 40)


@pytest.mark.parametrize("backward", ["atomic", "deterministic"])
def test_a_backward_whose_grad_d_zeros_come_from_the_kernel(device, monkeypatch, backward):
    """MaxSim's backward with grad D's buffer zeroed by the store kernel (as for a large one on a
    GPU), recorded and replayed on new values: the gradients of the plain path (bit for bit but
    where a GPU's fp32 atomics add in any order)."""
    from hsr import kept
    from hsr.ops import maxsim

    gen = torch.Generator().manual_seed(2)
    pairs = [(torch.randn(2, 5, 16, generator=gen), torch.randn(3, 7, 16, generator=gen)) for _ in range(3)]

    def grads(rule):
        monkeypatch.setattr(dispatch, "zeros_by_kernel", lambda device, nbytes: rule)
        kept.forget()
        out = []
        for q, d in pairs:
            q, d = q.to(device).requires_grad_(), d.to(device).requires_grad_()
            (maxsim(q, d, backward=backward) * torch.arange(1.0, 7.0, device=device).view(2, 3)).sum().backward()
            out.append((q.grad.cpu(), d.grad.cpu()))
        return out
    launched = []
    plain_zero = zeros.zero_
    monkeypatch.setattr(zeros, "zero_", lambda x: launched.append(1) or plain_zero(x))
    exact = backward == "deterministic" or device == "cpu"
    for got, want in zip(grads(True), grads(False)):
        for g, w in zip(got, want):
            assert torch.equal(g, w) if exact else torch.allclose(g, w, rtol=1e-6, atol=1e-6)
    assert launched  # (the first call's; replays launch the recorded kernel)

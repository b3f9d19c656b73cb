"""What the example scripts share: compare a kernel's result with the float64
oracle, and take an output with its gradients. Importing it sets
TRITON_INTERPRET=1 (unless set), before triton is imported."""

import os

os.environ.setdefault("TRITON_INTERPRET", "1")

import torch  # noqa: E402

TOL = 1e-4  # float32 kernels against a float64 oracle, relative to the largest value


def close(what, got, want):
    """Print and return whether got matches want to TOL of want's largest value."""
    got, want = got.detach().double(), want.detach().double()
    err = (got - want).abs().max().item() if want.numel() else 0.0
    bound = TOL * max(want.abs().max().item() if want.numel() else 0.0, 1.0)
    ok = got.shape == want.shape and err <= bound
    print(f"  {what:<28} max abs error {err:.1e}  {'ok' if ok else 'MISMATCH'}")
    return ok


def value_and_grads(fn, inputs, **masks):
    """fn(*inputs, **masks) and the gradients of its sum in each input."""
    out = fn(*inputs, **masks)
    return out, torch.autograd.grad(out.sum(), inputs)

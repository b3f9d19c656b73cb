"""Gaussian-kernel similarity to the nearest point, from examples/soft_nearest.hsr:

    sim[b, n] = max_m exp(-||X_n - Y_m||^2 / 2)  where ymask

exp(-u / 2) decreases in u, so the compiler (sympy) turns the max into a running
min of the squared distance in the tile loop, on the tensor cores through
|x|^2 + |y|^2 - 2<x, y>, and applies the exponential once per selected value.
A point whose Y cloud is all padding gets 0 (the selection term over no m),
not exp(-0) = 1. Runs on small random CPU tensors through Triton's interpreter
and checks values and the gradients in X and Y against the float64 reference
evaluator and against brute force. Exits non-zero on a mismatch.
"""

import sys
from pathlib import Path

from checking import close, value_and_grads  # sets TRITON_INTERPRET before triton is imported

import torch  # noqa: E402

import hsr  # noqa: E402

SPEC = Path(__file__).resolve().with_suffix(".hsr")


def brute_force(X, Y, ymask):
    """The Gaussian kernel matrix, its max over real points of Y, 0 for an empty Y."""
    k = torch.exp(-torch.cdist(X.double(), Y.double()).square() / 2)       # [B, N, M]
    k = k.masked_fill(~ymask[:, None, :], float("-inf"))
    return torch.where(ymask.any(1)[:, None], k.max(dim=2).values, 0.0)


def main() -> int:
    op = hsr.compile(SPEC)
    print(op.explain(), end="\n\n")
    gen = torch.Generator().manual_seed(0)
    B, N, M, d = 3, 7, 10, 4
    X = torch.randn(B, N, d, generator=gen)
    Y = torch.randn(B, M, d, generator=gen)
    ymask = torch.rand(B, M, generator=gen) < 0.8
    ymask[2] = False                                  # an empty cloud: every sim[2, n] is 0

    leaves = [t.clone().requires_grad_() for t in (X, Y)]
    sim, grads = value_and_grads(op, leaves, ymask=ymask)
    ref_leaves = [t.detach().double().requires_grad_() for t in leaves]
    ref, ref_grads = value_and_grads(op.reference, ref_leaves, ymask=ymask)

    print(f"Gaussian nearest similarity, X {tuple(X.shape)} -> Y {tuple(Y.shape)}:")
    ok = close("sim vs reference", sim, ref)
    for name, g, r in zip("XY", grads, ref_grads):
        ok &= close(f"grad {name} vs reference", g, r)
    ok &= close("sim vs brute force", sim, brute_force(X, Y, ymask))
    print(f"  over an empty Y: sim = {sim[2].abs().max().item():.1f}, grad Y = {grads[1][2].abs().max().item():.1f}")
    ok &= sim[2].abs().max().item() == 0.0
    print("OK" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

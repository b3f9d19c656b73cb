"""Directed and symmetric Hausdorff distance between point clouds, from
examples/hausdorff.hsr:

    h[b] = max_n min_m ||P_n - R_m||  where pmask, rmask

Runs on small random CPU tensors through Triton's interpreter and checks the op
against its float64 reference evaluator (values and gradients), then the
symmetric distance max(h(P, R), h(R, P)) against brute force torch code.
Exits non-zero on a mismatch.
"""

import sys
from pathlib import Path

from checking import close, value_and_grads  # sets TRITON_INTERPRET before triton is imported

import torch  # noqa: E402

import hsr  # noqa: E402

SPEC = Path(__file__).resolve().with_suffix(".hsr")


def brute_force(P, R, pmask, rmask):
    """Directed Hausdorff distance, float64, from the pairwise distance matrix."""
    dist = torch.cdist(P.double(), R.double())                       # [B, N, M]
    dist = dist.masked_fill(~rmask[:, None, :], float("inf"))
    nearest = dist.min(dim=2).values.masked_fill(~pmask, float("-inf"))
    return nearest.max(dim=1).values


def main() -> int:
    op = hsr.compile(SPEC)
    print(op.explain(), end="\n\n")
    gen = torch.Generator().manual_seed(0)
    B, N, M, d = 3, 10, 12, 3
    P = torch.randn(B, N, d, generator=gen)
    R = torch.randn(B, M, d, generator=gen) + 0.5
    pmask = torch.ones(B, N, dtype=torch.bool)
    rmask = torch.ones(B, M, dtype=torch.bool)
    pmask[1, 7:] = False   # cloud sizes differ inside the batch
    rmask[2, 9:] = False

    ok = True
    print(f"directed Hausdorff, P {tuple(P.shape)} -> R {tuple(R.shape)}, vs the float64 reference:")
    leaves = [P.clone().requires_grad_(), R.clone().requires_grad_()]
    h, (gP, gR) = value_and_grads(op, leaves, pmask=pmask, rmask=rmask)
    ref_leaves = [t.detach().double().requires_grad_() for t in leaves]
    ref, (rP, rR) = value_and_grads(op.reference, ref_leaves, pmask=pmask, rmask=rmask)
    ok &= close("h", h, ref)
    ok &= close("grad P", gP, rP)
    ok &= close("grad R", gR, rR)

    print("symmetric Hausdorff max(h(P, R), h(R, P)), vs brute force (torch.cdist):")
    leaves = [P.clone().requires_grad_(), R.clone().requires_grad_()]
    sym = torch.maximum(op(leaves[0], leaves[1], pmask=pmask, rmask=rmask),
                        op(leaves[1], leaves[0], pmask=rmask, rmask=pmask))
    gP, gR = torch.autograd.grad(sym.sum(), leaves)
    bf_leaves = [t.detach().double().requires_grad_() for t in leaves]
    bf = torch.maximum(brute_force(bf_leaves[0], bf_leaves[1], pmask, rmask),
                       brute_force(bf_leaves[1], bf_leaves[0], rmask, pmask))
    bP, bR = torch.autograd.grad(bf.sum(), bf_leaves)
    ok &= close("symmetric h", sym, bf)
    ok &= close("grad P", gP, bP)
    ok &= close("grad R", gR, bR)
    print(f"symmetric Hausdorff per batch: {[round(x, 4) for x in sym.tolist()]}")
    print("OK" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

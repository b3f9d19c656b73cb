"""Per-point L1 nearest-neighbour distance (one direction of an L1 Chamfer
distance), from examples/chamfer_l1.hsr:

    dist[b, n] = min_m ||P_n - R_m||_1  where rmask

No outer reduction: the output keeps n, which the kernel tiles inside each
program. ||.||_1 has no matrix-product form, so the pair is computed elementwise
in the tile loop. Runs on small random CPU tensors through Triton's interpreter
and checks values and the gradients in P and R against the float64 reference
evaluator and against brute force; the Chamfer loss (both directions, mean over
points) is then two calls. Exits non-zero on a mismatch.
"""

import sys
from pathlib import Path

from checking import close, value_and_grads  # sets TRITON_INTERPRET before triton is imported

import torch  # noqa: E402

import hsr  # noqa: E402

SPEC = Path(__file__).resolve().with_suffix(".hsr")


def brute_force(P, R, rmask):
    """The L1 distance matrix, its min over real points of R, 0 for an empty R."""
    l1 = (P.double()[:, :, None, :] - R.double()[:, None, :, :]).abs().sum(-1)   # [B, N, M]
    l1 = l1.masked_fill(~rmask[:, None, :], float("inf"))
    return torch.where(rmask.any(1)[:, None], l1.min(dim=2).values, 0.0)


def main() -> int:
    op = hsr.compile(SPEC)
    print(op.explain(), end="\n\n")
    gen = torch.Generator().manual_seed(0)
    B, N, M, d = 2, 9, 11, 3
    P = torch.randn(B, N, d, generator=gen)
    R = torch.randn(B, M, d, generator=gen)
    rmask = torch.ones(B, M, dtype=torch.bool)
    rmask[1, 6:] = False                              # clouds of different sizes

    leaves = [t.clone().requires_grad_() for t in (P, R)]
    dist, grads = value_and_grads(op, leaves, rmask=rmask)
    ref_leaves = [t.detach().double().requires_grad_() for t in leaves]
    ref, ref_grads = value_and_grads(op.reference, ref_leaves, rmask=rmask)

    print(f"L1 nearest distance per point, P {tuple(P.shape)} -> R {tuple(R.shape)}:")
    ok = close("dist vs reference", dist, ref)
    for name, g, r in zip("PR", grads, ref_grads):
        ok &= close(f"grad {name} vs reference", g, r)
    ok &= close("dist vs brute force", dist, brute_force(P, R, rmask))

    # the L1 Chamfer loss: both directions, each averaged over its real points
    pmask = torch.ones(B, N, dtype=torch.bool)
    def chamfer(fn):
        back = fn(R, P, pmask).masked_fill(~rmask, 0).sum(1) / rmask.sum(1)
        return fn(P, R, rmask).mean(1) + back
    loss = chamfer(lambda a, b, m: op(a, b, rmask=m))
    ok &= close("Chamfer vs brute force", loss, chamfer(brute_force))
    print(f"  L1 Chamfer loss per batch: {[round(x, 4) for x in loss.tolist()]}")
    print("OK" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

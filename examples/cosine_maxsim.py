"""Cosine MaxSim from examples/cosine_maxsim.hsr:

    score[i, j] = sum_s max_t cos(Q_s, D_t)

The compiler computes each row's norm once, keeps the running max of
<Q_s, D_t> / |D_t| in the tile loop (the 1/|Q_s| factor is hoisted out: it does
not change which t wins), and differentiates through the normalisation.
Runs on small random CPU tensors through Triton's interpreter and checks values
and the gradients in Q and D against the float64 reference evaluator, and the
values against cosine similarities computed with torch.nn.functional.normalize.
Exits non-zero on a mismatch.
"""

import sys
from pathlib import Path

from checking import close, value_and_grads  # sets TRITON_INTERPRET before triton is imported

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import hsr  # noqa: E402

SPEC = Path(__file__).resolve().with_suffix(".hsr")


def main() -> int:
    op = hsr.compile(SPEC)
    print(op.explain(), end="\n\n")
    gen = torch.Generator().manual_seed(0)
    Nq, Lq, Nd, Ld, d = 3, 5, 4, 8, 16
    # rows of very different norms: cosine must not care
    Q = torch.randn(Nq, Lq, d, generator=gen) * torch.rand(Nq, Lq, 1, generator=gen).mul(4).add(0.1)
    D = torch.randn(Nd, Ld, d, generator=gen) * torch.rand(Nd, Ld, 1, generator=gen).mul(4).add(0.1)

    leaves = [t.clone().requires_grad_() for t in (Q, D)]
    score, grads = value_and_grads(op, leaves)
    ref_leaves = [t.detach().double().requires_grad_() for t in leaves]
    ref, ref_grads = value_and_grads(op.reference, ref_leaves)
    cos = torch.einsum("isd,jtd->ijst", F.normalize(Q.double(), dim=-1), F.normalize(D.double(), dim=-1))
    brute = cos.max(dim=3).values.sum(dim=2)

    print(f"cosine MaxSim, Q {tuple(Q.shape)} x D {tuple(D.shape)}:")
    ok = close("score vs reference", score, ref)
    for name, g, r in zip("QD", grads, ref_grads):
        ok &= close(f"grad {name} vs reference", g, r)
    ok &= close("score vs F.normalize", score, brute)
    print(f"  every score is at most Lq = {Lq}: max {score.max().item():.3f}")
    ok &= score.max().item() <= Lq + 1e-5
    print("OK" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""Mean MaxSim from examples/masked_mean_maxsim.hsr:

    score[i, j] = mean_s max_t <Q_s, D_t>  where qmask, dmask

mean_s counts only the query tokens qmask keeps, so each query's score is on the
scale of one token's best match whatever its length. Runs on small random CPU
tensors through Triton's interpreter and checks values and the gradients in Q
and D against the float64 reference evaluator. Exits non-zero on a mismatch.
"""

import sys
from pathlib import Path

from checking import close, value_and_grads  # sets TRITON_INTERPRET before triton is imported

import torch  # noqa: E402

import hsr  # noqa: E402

SPEC = Path(__file__).resolve().with_suffix(".hsr")


def main() -> int:
    op = hsr.compile(SPEC)
    print(op.explain(), end="\n\n")
    gen = torch.Generator().manual_seed(0)
    Nq, Lq, Nd, Ld, d = 3, 7, 4, 9, 16
    Q = torch.randn(Nq, Lq, d, generator=gen)
    D = torch.randn(Nd, Ld, d, generator=gen)
    qmask = torch.rand(Nq, Lq, generator=gen) < 0.7
    qmask[0, :2] = True
    qmask[0, 2:] = False                             # a two-token query: the mean of two matches
    dmask = torch.rand(Nd, Ld, generator=gen) < 0.8

    leaves = [t.clone().requires_grad_() for t in (Q, D)]
    score, grads = value_and_grads(op, leaves, qmask=qmask, dmask=dmask)
    ref_leaves = [t.detach().double().requires_grad_() for t in leaves]
    ref, ref_grads = value_and_grads(op.reference, ref_leaves, qmask=qmask, dmask=dmask)

    print(f"mean MaxSim, Q {tuple(Q.shape)} x D {tuple(D.shape)}, vs the float64 reference:")
    ok = close("score", score, ref)
    for name, g, r in zip("QD", grads, ref_grads):
        ok &= close(f"grad {name}", g, r)
    two = (Q[0, :2] @ D.transpose(1, 2)).masked_fill(~dmask[:, None, :], float("-inf")).amax(-1).mean(-1)
    print(f"  the two-token query's scores are the mean of its two best matches: {two.tolist()}")
    ok &= torch.allclose(score[0].double(), two.double(), atol=1e-4)
    print("OK" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

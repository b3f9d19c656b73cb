"""Weighted MaxSim from examples/weighted_maxsim.hsr:

    score[i, j] = sum_s w_s * max_t <Q_s, D_t>  where qmask, dmask

w[i, s] weighs each query token (a per-row term of the normal form: the kernel
reads it next to the selected value, and the backward gives its gradient too).
Runs on small random CPU tensors through Triton's interpreter and checks values
and the gradients in Q, D and w against the float64 reference evaluator. Exits
non-zero on a mismatch.
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
    Nq, Lq, Nd, Ld, d = 3, 6, 4, 9, 16
    Q = torch.randn(Nq, Lq, d, generator=gen)
    D = torch.randn(Nd, Ld, d, generator=gen)
    w = torch.rand(Nq, Lq, generator=gen) + 0.5      # query-term importance
    qmask = torch.rand(Nq, Lq, generator=gen) < 0.8
    dmask = torch.rand(Nd, Ld, generator=gen) < 0.8
    dmask[2] = False                                 # a document with no real token scores 0

    leaves = [t.clone().requires_grad_() for t in (Q, D, w)]
    score, grads = value_and_grads(op, leaves, qmask=qmask, dmask=dmask)
    ref_leaves = [t.detach().double().requires_grad_() for t in leaves]
    ref, ref_grads = value_and_grads(op.reference, ref_leaves, qmask=qmask, dmask=dmask)

    print(f"weighted MaxSim, Q {tuple(Q.shape)} x D {tuple(D.shape)}, w {tuple(w.shape)}, vs the float64 reference:")
    ok = close("score", score, ref)
    for name, g, r in zip("QDw", grads, ref_grads):
        ok &= close(f"grad {name}", g, r)
    empty = score[:, 2].abs().max().item()
    print(f"  the all-masked document scores {empty:.1f}")
    ok &= empty == 0.0
    print("OK" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

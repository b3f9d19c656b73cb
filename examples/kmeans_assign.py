"""k-means with the assignment step compiled from examples/kmeans_assign.hsr:

    assign[n] = argmin_k ||X_n - C_k||^2

Runs a few Lloyd iterations on small random CPU data through Triton's
interpreter; at every iteration the int64 assignments must equal the float64
reference evaluator's and torch.cdist(...).argmin's. Exits non-zero on a
mismatch.
"""

import os
import sys
from pathlib import Path

os.environ.setdefault("TRITON_INTERPRET", "1")  # before triton (imported by hsr) is

import torch  # noqa: E402

import hsr  # noqa: E402

SPEC = Path(__file__).resolve().with_suffix(".hsr")


def main() -> int:
    op = hsr.compile(SPEC)
    print(op.explain(), end="\n\n")
    gen = torch.Generator().manual_seed(3)
    n, k, d, max_iters = 96, 4, 2, 10
    centers = 2 * torch.randn(k, d, generator=gen)
    X = centers[torch.randint(0, k, (n,), generator=gen)] + torch.randn(n, d, generator=gen)
    C = X[torch.randperm(n, generator=gen)[:k]].clone()   # k random points as the first centroids

    ok, previous = True, None
    print(f"Lloyd iterations, X {tuple(X.shape)}, {k} centroids:")
    for it in range(max_iters):
        assign = op(X, C)
        ref = op.reference(X, C)
        brute = torch.cdist(X.double(), C.double()).argmin(dim=1)
        good = assign.dtype == torch.int64 and torch.equal(assign, ref) and torch.equal(assign, brute)
        if not good:
            bad = (assign != brute).nonzero().flatten()[:5].tolist()
            print(f"  iteration {it}: MISMATCH ({assign.dtype}); at rows {bad}: op {assign[bad].tolist()}, "
                  f"reference {ref[bad].tolist()}, cdist argmin {brute[bad].tolist()}")
            ok = False
            break
        inertia = (X - C[assign]).square().sum().item()
        sizes = torch.bincount(assign, minlength=k).tolist()
        print(f"  iteration {it}: inertia {inertia:8.3f}, cluster sizes {sizes}, "
              f"assignments match the reference and cdist argmin")
        if previous is not None and torch.equal(assign, previous):
            print("  converged: no assignment changed")
            break
        previous = assign
        # the update step: each centroid moves to the mean of its points (an empty one stays)
        sums = torch.zeros_like(C).index_add_(0, assign, X)
        counts = torch.bincount(assign, minlength=k)
        C = torch.where(counts[:, None] > 0, sums / counts.clamp_min(1)[:, None], C)
    print("OK" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

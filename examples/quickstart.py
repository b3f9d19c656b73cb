"""Compile the bundled MaxSim spec, run it on random data, check it against the
float64 reference: on the GPU if there is one, through Triton's interpreter
otherwise."""

import os
import sys
from pathlib import Path

import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")  # before triton is imported

import hsr  # noqa: E402

SPEC = Path(__file__).resolve().parent.parent / "ops" / "maxsim.hsr"


def main() -> int:
    device = "cuda" if torch.cuda.is_available() else "cpu"
    op = hsr.compile(SPEC)
    print(op.explain(), end="\n\n")
    gen = torch.Generator().manual_seed(0)
    dtype = torch.float16 if device == "cuda" else torch.float32
    Q = torch.randn(4, 32, 128, generator=gen).to(device, dtype)
    D = torch.randn(16, 300, 128, generator=gen).to(device, dtype)
    d_mask = torch.rand(16, 300, generator=gen) < 0.9
    d_mask[3] = False  # a document with no real token scores 0
    Q.requires_grad_()

    scores = op(Q, D, dmask=d_mask.to(device))
    scores.sum().backward()
    Qr = Q.detach().cpu().double().requires_grad_()
    ref = op.reference(Qr, D.cpu(), dmask=d_mask)
    ref.sum().backward()

    err = ((scores.detach().cpu().double() - ref).norm() / ref.norm()).item()
    grad_err = ((Q.grad.cpu().double() - Qr.grad).norm() / Qr.grad.norm()).item()
    tol = 1e-2 if dtype == torch.float16 else 1e-5
    where = torch.cuda.get_device_name() if device == "cuda" else "the Triton interpreter (CPU)"
    print(f"MaxSim {tuple(Q.shape)} x {tuple(D.shape)} {str(dtype)[6:]} on {where}")
    print(f"relative error vs float64 reference: scores {err:.2e}, grad Q {grad_err:.2e} (tolerance {tol:.0e})")
    print(f"an all-masked document scores {scores[0, 3].item():.1f}")
    ok = err < tol and grad_err < tol and scores[0, 3].item() == 0.0
    print("OK" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

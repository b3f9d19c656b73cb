"""Where a training step's host time goes (GPU only): per-step wall time with the
GPU idle (host-bound) and a cProfile (tottime and cumtime) of the step's Python.

Cases: Chamfer, one pair of 10K points (fp32), forward + backward; ColBERT
B = 128 in-batch step padded with masks, and packed (maxsim_varlen, max_seqlen
given); the packed rerank forward (1 query, 1000 documents of 40 to 300).

    python3 bench/experiments/grad_host_profile.py [case,...] [--as-written]

--as-written: the checks of a call with gradients run as written every call
(each module's _bound and _both_bound), as before they were kept; without it,
they replay. Both are timed in interleaved rounds; the profile is of the kept one.
"""

import cProfile
import pstats
import sys
import time

import torch

import hsr.ops

g = torch.Generator(device="cuda").manual_seed(0)


def rnd(*shape, dtype=torch.float16):
    return torch.randn(*shape, device="cuda", generator=g).to(dtype)


def packed(lengths, d=128):
    cu = torch.zeros(len(lengths) + 1, dtype=torch.int32)
    cu[1:] = torch.cumsum(torch.tensor(lengths), 0)
    return rnd(int(cu[-1]), d), cu.cuda()


def padded(lengths, d=128):
    x = rnd(len(lengths), max(lengths), d)
    m = torch.arange(max(lengths))[None, :] < torch.tensor(lengths)[:, None]
    return x, m.cuda()


cpu = torch.Generator().manual_seed(0)
lq = torch.randint(1, 33, (128,), generator=cpu).tolist()
ld = torch.randint(1, 301, (128,), generator=cpu).tolist()
lr = torch.randint(40, 301, (1000,), generator=cpu).tolist()
P1 = rnd(1, 10000, 3, dtype=torch.float32).requires_grad_()
P2 = rnd(1, 10000, 3, dtype=torch.float32).requires_grad_()
Qp, cq = packed(lq)
Dp, cd = packed(ld)
Qp.requires_grad_(), Dp.requires_grad_()
Qd, qm = padded(lq)
Dd, dm = padded(ld)
Qd.requires_grad_(), Dd.requires_grad_()
Rq, cr = packed([32])
Rd, crd = packed(lr)
leaves = [P1, P2, Qp, Dp, Qd, Dd]


def step(fn):
    def call():
        fn().sum().backward()
        for x in leaves:
            x.grad = None
    return call


cases = {
    "chamfer10k_step": step(lambda: hsr.ops.chamfer_distance(P1, P2)),
    "colbert128_padded_step": step(lambda: hsr.ops.maxsim(Qd, Dd, qm, dm)),
    "colbert128_packed_step": step(lambda: hsr.ops.maxsim_varlen(Qp, Dp, cq, cd, 32, 300)),
    "rerank_packed_fwd": lambda: hsr.ops.maxsim_varlen(Rq, Rd, cr, crd, 32, 300),
    "rerank_packed_fwd_nosync_off": lambda: hsr.ops.maxsim_varlen(Rq, Rd, cr, crd),
}
from hsr import generated, kept  # noqa: E402

MODULES = [getattr(generated, m) for m in ("maxsim", "maxsim_varlen", "chamfer_point")]
KEPT = {m: (m._bound, getattr(m, "_both_bound", None)) for m in MODULES}


def as_written(on: bool) -> None:
    """Every module's checks as written (on) or kept (off)."""
    for m, (bound, both) in KEPT.items():
        m._bound = (lambda a, k, b, ms=None, key=None, m=m: m._bound_as_written(a, k, b, ms)) if on else bound
        if both is not None:
            m._both_bound = (lambda i, b, key, m=m: m._both_bound_as_written(i, b)) if on else both
    kept.forget()


def host_us(call, n=200):
    for _ in range(10):
        call()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        call()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) / n * 1e6, (time.perf_counter() - t0) / n * 1e6


args = [a for a in sys.argv[1:] if not a.startswith("--")]
only = args[0].split(",") if args else list(cases)
for name in only:
    call = cases[name]
    rounds = {"kept": [], "as written": []}
    for _ in range(5):
        for variant in rounds:
            as_written(variant == "as written")
            rounds[variant].append(host_us(call))
    as_written(False)
    for variant, times in rounds.items():
        host = sorted(h for h, _ in times)[2]
        wall = sorted(w for _, w in times)[2]
        print(f"== {name}, checks {variant}: host {host:.1f} us/call, wall {wall:.1f} us/call (median of 5 rounds)",
              flush=True)
    n = 200
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(n):
        call()
    prof.disable()
    torch.cuda.synchronize()
    st = pstats.Stats(prof)
    st.sort_stats("tottime").print_stats(18)
    st.sort_stats("cumtime").print_stats(25)

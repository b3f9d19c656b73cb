"""Where do the small packed calls' microseconds go, and what are their floors under
do_bench's L2 flush? (GPU only)

Shapes as bench/varlen.py: the packed rerank (one 32-token query against 1000
documents of 40..300 tokens, d = 128, fp16, 42 MB) and the pairs at N = 128 and
512 (query lengths 1..32, document lengths 1..300).

Each row is GPU time between two events around one call, after a flush of the L2:
  - do_bench: triton.testing.do_bench's medians (its flush zeroes 256 MB, leaving
    the L2 full of dirty lines that the call's reads write back as they evict them;
    where a call's host time exceeds the flush's GPU time, the host shows too);
  - read: a read of 256 MB as the flush (clean lines; a loop of its own, so a call
    whose host is slower than the flush is host-bound there).

Rows: hsr's public call as it runs (the offsets' check folded into the lean
kernel), with the check launched apart, with no check, on the general loop (with
and without the check); flash-maxsim's call; a read-only kernel over the same
documents (the memory system's floor) and the chain floor (each pair's program
loads its offsets, one tile and stores: the dependent loads of one program a
pair, nothing else); standalone one-program-a-sequence kernels at a few blocks,
warps and stages, with the check as a device assert (debug compile, no overflow
sanitiser) and without.

    python3 bench/experiments/varlen_small.py

Earlier versions of this script (bench/results/h200-varlen-small-2026-11-26/
flushes_and_configs.log, lean_vs_general_configs.log) also swept eviction hints
and more configs; their findings are in bench/NOTES.md.
"""

import contextlib
import statistics
import sys

import torch
import triton
import triton.language as tl

import hsr.dispatch
import hsr.kept
import hsr.launcher
import hsr.ragged
from hsr.ops import maxsim_pairs, maxsim_varlen

D = 128
REPS = 200


def _body(Q, D_, cu_q, cu_d, out, n_seq, total_q, total_d, limit_q, limit_d,
          SHARED_Q: tl.constexpr, LQ: tl.constexpr, K: tl.constexpr, BT: tl.constexpr, EVICT: tl.constexpr,
          CHECK: tl.constexpr, READ: tl.constexpr):
    n = tl.program_id(0)
    d0 = tl.load(cu_d + n)
    d1 = tl.load(cu_d + n + 1)
    if SHARED_Q:
        q0 = 0
        q1 = LQ
    else:
        q0 = tl.load(cu_q + n)
        q1 = tl.load(cu_q + n + 1)
    if CHECK:
        ok = (d0 >= 0) & (d1 >= d0) & (d1 <= total_d) & (d1 - d0 <= limit_d)
        if not SHARED_Q:
            ok = ok & (q0 >= 0) & (q1 >= q0) & (q1 <= total_q) & (q1 - q0 <= limit_q)
        if n == 0:
            ok = ok & (d0 == 0) & (tl.load(cu_d + n_seq) == total_d)
            if not SHARED_Q:
                ok = ok & (q0 == 0) & (tl.load(cu_q + n_seq) == total_q)
        tl.device_assert(ok, "offsets must start at 0, not decrease and end at the packed rows")
    offs_s = tl.arange(0, LQ)
    offs_k = tl.arange(0, K)
    offs_t = tl.arange(0, BT)
    nq = q1 - q0
    q = tl.load(Q + (q0 + offs_s).to(tl.int64)[:, None] * K + offs_k[None, :], mask=(offs_s < nq)[:, None], other=0.0)
    nd = d1 - d0
    best = tl.full([LQ, BT], float("-inf"), tl.float32)
    rbest = tl.full([BT, K], float("-inf"), tl.float32)
    full = (nd // BT) * BT
    for t0 in range(0, full, BT):
        d = tl.load(D_ + (d0 + t0 + offs_t).to(tl.int64)[:, None] * K + offs_k[None, :], eviction_policy=EVICT)
        if READ:
            rbest = tl.maximum(rbest, d.to(tl.float32))
        else:
            best = tl.maximum(best, tl.dot(q, tl.trans(d)))
    if full < nd:
        rows = full + offs_t
        d = tl.load(D_ + (d0 + rows).to(tl.int64)[:, None] * K + offs_k[None, :], mask=(rows < nd)[:, None],
                    other=0.0, eviction_policy=EVICT)
        if READ:
            rbest = tl.maximum(rbest, d.to(tl.float32))
        else:
            s = tl.dot(q, tl.trans(d))
            best = tl.maximum(best, tl.where((rows < nd)[None, :], s, float("-inf")))
    if READ:
        tl.store(out + n, tl.sum(tl.max(rbest, 1), 0))
    else:
        row = tl.max(best, 1)
        tl.store(out + n, tl.sum(tl.where((offs_s < nq) & (nd > 0), row, 0.0), 0))


plain = triton.jit(_body)
checked = triton.jit(debug=True)(_body)


def flushes():
    buf = torch.empty(256 * 2**20 // 4, dtype=torch.int32, device="cuda")
    sink = torch.empty((), dtype=torch.int64, device="cuda")
    return {"zero": lambda: buf.zero_(), "read": lambda: torch.sum(buf, 0, dtype=torch.int64, out=sink),
            "warm": lambda: None}


def gpu_us(fn, flush, reps=REPS):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for a, b in zip(starts, ends):
        flush()
        a.record()
        fn()
        b.record()
    torch.cuda.synchronize()
    return statistics.median(a.elapsed_time(b) for a, b in zip(starts, ends)) * 1000


def data(gen, n, lq, ld, dtype=torch.float16):
    def pack(lengths):
        rows = torch.randn(int(lengths.sum()), D, generator=gen).to(dtype)
        cu = torch.zeros(len(lengths) + 1, dtype=torch.int32)
        cu[1:] = lengths.cumsum(0)
        return rows.cuda(), cu.cuda()
    return pack(lq) + pack(ld) + (int(lq.max()), int(ld.max()))


def do_bench_us(fn):
    """The harness's measure: the median of three triton.testing.do_bench medians (its L2 flush)."""
    for _ in range(2):
        fn()
    torch.cuda.synchronize()
    return statistics.median(triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")
                             for _ in range(3)) * 1000


@contextlib.contextmanager
def patched(fold=True, check=True, lean=True):
    """hsr with the offsets' check kept out of the lean kernel (fold=False: one check
    launch first), with no check at all (check=False), or on the general loop (lean=False)."""
    saved = hsr.ragged.check_on_device, hsr.dispatch.offsets_check_fold, hsr.dispatch.lean_blocks
    if not fold or not check:
        hsr.dispatch.offsets_check_fold = lambda *a, **k: 0
    if not check:
        hsr.ragged.check_on_device = lambda *a, **k: None
    if not lean:
        hsr.dispatch.lean_blocks = lambda *a, **k: None
    hsr.kept.forget()
    try:
        yield
    finally:
        hsr.ragged.check_on_device, hsr.dispatch.offsets_check_fold, hsr.dispatch.lean_blocks = saved
        hsr.kept.forget()


@triton.jit
def chain_kernel(D_, cu_d, out, K: tl.constexpr, BT: tl.constexpr):
    """The dependent loads of a pair's program and nothing else: its offsets, then its
    first tile of document rows, then a store (a latency floor of one program a pair)."""
    n = tl.program_id(0)
    d0 = tl.load(cu_d + n)
    d1 = tl.load(cu_d + n + 1)
    rows = tl.arange(0, BT)
    offs_k = tl.arange(0, K)
    d = tl.load(D_ + (d0 + rows).to(tl.int64)[:, None] * K + offs_k[None, :], mask=(rows < d1 - d0)[:, None], other=0.0)
    tl.store(out + n, tl.sum(tl.max(d.to(tl.float32), 0), 0))


def main():
    print(torch.cuda.get_device_name(), "torch", torch.__version__, "triton", triton.__version__, flush=True)
    fl = flushes()
    gen = torch.Generator().manual_seed(0)
    try:
        from flash_maxsim.flash_maxsim_varlen import flash_maxsim_packed, flash_maxsim_varlen
    except Exception as e:  # noqa: BLE001
        print("no flash-maxsim:", e)
        flash_maxsim_packed = flash_maxsim_varlen = None
    cases = {}
    for n in (128, 512):
        lq, ld = torch.randint(1, 33, (n,), generator=gen), torch.randint(1, 301, (n,), generator=gen)
        cases[f"pairs{n}"] = data(gen, n, lq, ld)
    cases["rerank"] = data(gen, 1000, torch.tensor([32]), torch.randint(40, 301, (1000,), generator=gen))
    for case, (Q, cq, Dp, cd, mq, md) in cases.items():
        shared = case == "rerank"
        n = cd.shape[0] - 1
        print(f"\n== {case}: {n} sequences, {Dp.shape[0]} document rows ({Dp.numel() * 2 / 1e6:.1f} MB), "
              f"{Q.shape[0]} query rows", flush=True)
        if shared:
            hsr_call = lambda: maxsim_varlen(Q, Dp, cq, cd, 32, md)  # noqa: E731
            peer = (lambda: flash_maxsim_packed(Q, Dp, cd, md)) if flash_maxsim_packed else None  # noqa: E731
        else:
            hsr_call = lambda: maxsim_pairs(Q, Dp, cq, cd, mq, md)  # noqa: E731
            peer = (lambda: flash_maxsim_varlen(Q, Dp, cq, cd, mq, md)) if flash_maxsim_varlen else None  # noqa: E731
        with torch.no_grad():
            want = hsr_call().reshape(-1)
            calls = {"hsr call": ({}, hsr_call),
                     "hsr call, check launched apart": ({"fold": False}, hsr_call),
                     "hsr call, no check": ({"check": False}, hsr_call),
                     "hsr call, general loop": ({"lean": False}, hsr_call),
                     "hsr call, general loop, no check": ({"lean": False, "check": False}, hsr_call)}
            if peer:
                calls["flash call"] = ({}, peer)
            results = {}
            for name, (how, fn) in calls.items():
                with patched(**how):
                    got = fn().reshape(-1)
                    err = ((got - want).abs().max() / want.abs().max()).item()
                    results[name] = {"do_bench": do_bench_us(fn), "read": gpu_us(fn, fl["read"])}
                    print(f"  {name:44s} do_bench {results[name]['do_bench']:7.2f} us  read-flush "
                          f"{results[name]['read']:7.2f}  (rel err {err:.1e})", flush=True)
            out = torch.empty(n, device="cuda")

            def kernel(BT, warps, stages, evict="", check=False, read=False):
                kern = checked if check else plain
                extra = {"sanitize_overflow": False} if check else {}
                return lambda: kern[(n,)](Q, Dp, cq, cd, out, n, Q.shape[0], Dp.shape[0], mq, md, SHARED_Q=shared,
                                          LQ=32, K=D, BT=BT, EVICT=evict, CHECK=check, READ=read, num_warps=warps,
                                          num_stages=stages, **extra)
            rows = {"read only": kernel(64, 4, 3, read=True),
                    "chain floor": lambda: chain_kernel[(n,)](Dp, cd, out, K=D, BT=64, num_warps=4)}
            for bt, warps, stages in ((64, 2, 3), (64, 4, 3), (64, 2, 4)):
                rows[f"kernel BT={bt} w={warps} s={stages}"] = kernel(bt, warps, stages)
                rows[f"kernel BT={bt} w={warps} s={stages} + check"] = kernel(bt, warps, stages, check=True)
            for name, fn in rows.items():
                try:
                    fn()
                    torch.cuda.synchronize()
                    if name.startswith("kernel"):
                        err = ((out - want).abs().max() / want.abs().max()).item()
                        assert err < 1e-2, f"{name}: rel err {err}"
                    results[name] = {"do_bench": do_bench_us(fn)}
                except Exception as e:  # noqa: BLE001
                    print(f"  {name}: failed: {type(e).__name__}: {str(e)[:200]}", flush=True)
        print(f"  {'row':44s} {'do_bench':>9s} {'read':>8s}  (us)")
        for name, r in sorted(results.items(), key=lambda kv: kv[1]["do_bench"]):
            print(f"  {name:44s} {r['do_bench']:9.2f} {r.get('read', float('nan')):8.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Probe: how fast can many queries against many short documents go (issue 40's batched row)?

Stand-alone Triton kernels of MaxSim inference (sum_s max_t <Q_s, D_t>, a document mask), timed in
one process against hsr.ops.maxsim and flash-maxsim:
- cell: one program per (block of G queries, document), the Q tile loaded per program (hsr's stacked
  general loop has this schedule);
- nested: persistent programs, each keeps its Q tile and walks a run of documents, a tile loop each;
- flat: persistent programs, one loop over (document, tile) pairs, each document's epilogue under an
  if at its last tile, so that the next document's loads are in flight during it.
Prints ms and the share of the fp16 tensor-core peak (989 TFLOP/s dense, H100/H200 SXM), counting
the padded FLOPs (2 Nq Lq Nd Ld d).

    python3 bench/experiments/batched_probe.py --out DIR
"""

from __future__ import annotations

import argparse
import gc
import json
import os

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor


@triton.jit
def _cell(q_ptr, d_ptr, m_ptr, out_ptr, Nq, Nd, LQ: tl.constexpr, Ld, D: tl.constexpr,
          G: tl.constexpr, BLOCK_T: tl.constexpr):
    pid = tl.program_id(0)
    doc = pid % Nd
    qb = pid // Nd
    rows = tl.arange(0, G * LQ)
    qi = qb * G + rows // LQ
    offs_d = tl.arange(0, D)
    a = tl.load(q_ptr + (qi * LQ + rows % LQ).to(tl.int64)[:, None] * D + offs_d[None, :],
                mask=(qi < Nq)[:, None], other=0.0)
    best = tl.full([G * LQ], float("-inf"), tl.float32)
    for t0 in range(0, Ld, BLOCK_T):
        offs_t = t0 + tl.arange(0, BLOCK_T)
        t_in = offs_t < Ld
        at = (offs_t + doc * Ld).to(tl.int64)
        b = tl.load(d_ptr + at[:, None] * D + offs_d[None, :], mask=t_in[:, None], other=0.0)
        ok = tl.load(m_ptr + at, mask=t_in, other=0) != 0
        s = tl.dot(a, tl.trans(b))
        s = tl.where(ok[None, :], s, float("-inf"))
        best = tl.maximum(best, tl.max(s, axis=1))
    best = tl.where(best > float("-inf"), best, 0.0)
    tot = tl.sum(tl.reshape(best, [G, LQ]), axis=1)
    qo = qb * G + tl.arange(0, G)
    tl.store(out_ptr + qo.to(tl.int64) * Nd + doc, tot, mask=qo < Nq)


@triton.jit
def _nested(q_ptr, d_ptr, m_ptr, out_ptr, Nq, Nd, LQ: tl.constexpr, Ld, D: tl.constexpr,
            G: tl.constexpr, BLOCK_T: tl.constexpr, NQB: tl.constexpr):
    pid = tl.program_id(0)
    qb = pid % NQB
    grp = pid // NQB
    ngrp = tl.num_programs(0) // NQB
    lo = (grp * Nd) // ngrp
    hi = ((grp + 1) * Nd) // ngrp
    rows = tl.arange(0, G * LQ)
    qi = qb * G + rows // LQ
    offs_d = tl.arange(0, D)
    a = tl.load(q_ptr + (qi * LQ + rows % LQ).to(tl.int64)[:, None] * D + offs_d[None, :],
                mask=(qi < Nq)[:, None], other=0.0)
    qo = qb * G + tl.arange(0, G)
    for doc in range(lo, hi):
        best = tl.full([G * LQ], float("-inf"), tl.float32)
        for t0 in range(0, Ld, BLOCK_T):
            offs_t = t0 + tl.arange(0, BLOCK_T)
            t_in = offs_t < Ld
            at = (offs_t + doc * Ld).to(tl.int64)
            b = tl.load(d_ptr + at[:, None] * D + offs_d[None, :], mask=t_in[:, None], other=0.0)
            ok = tl.load(m_ptr + at, mask=t_in, other=0) != 0
            s = tl.dot(a, tl.trans(b))
            s = tl.where(ok[None, :], s, float("-inf"))
            best = tl.maximum(best, tl.max(s, axis=1))
        best = tl.where(best > float("-inf"), best, 0.0)
        tot = tl.sum(tl.reshape(best, [G, LQ]), axis=1)
        tl.store(out_ptr + qo.to(tl.int64) * Nd + doc, tot, mask=qo < Nq)


@triton.jit
def _flat(q_ptr, d_ptr, m_ptr, out_ptr, d_desc, Nq, Nd, LQ: tl.constexpr, Ld, D: tl.constexpr,
          G: tl.constexpr, BLOCK_T: tl.constexpr, NQB: tl.constexpr, TMA: tl.constexpr):
    pid = tl.program_id(0)
    qb = pid % NQB
    grp = pid // NQB
    ngrp = tl.num_programs(0) // NQB
    lo = (grp * Nd) // ngrp
    hi = ((grp + 1) * Nd) // ngrp
    rows = tl.arange(0, G * LQ)
    qi = qb * G + rows // LQ
    offs_d = tl.arange(0, D)
    a = tl.load(q_ptr + (qi * LQ + rows % LQ).to(tl.int64)[:, None] * D + offs_d[None, :],
                mask=(qi < Nq)[:, None], other=0.0)
    qo = qb * G + tl.arange(0, G)
    n_t = tl.cdiv(Ld, BLOCK_T)
    best = tl.full([G * LQ], float("-inf"), tl.float32)
    for it in range(0, (hi - lo) * n_t):
        doc = lo + it // n_t
        t0 = (it % n_t) * BLOCK_T
        offs_t = t0 + tl.arange(0, BLOCK_T)
        t_in = offs_t < Ld
        at = (offs_t + doc * Ld).to(tl.int64)
        if TMA:
            b = d_desc.load([(doc * Ld + t0).to(tl.int32), 0])
        else:
            b = tl.load(d_ptr + at[:, None] * D + offs_d[None, :], mask=t_in[:, None], other=0.0)
        ok = tl.load(m_ptr + at, mask=t_in, other=0) != 0
        s = tl.dot(a, tl.trans(b))
        s = tl.where(ok[None, :], s, float("-inf"))
        best = tl.maximum(best, tl.max(s, axis=1))
        if it % n_t == n_t - 1:
            fin = tl.where(best > float("-inf"), best, 0.0)
            tot = tl.sum(tl.reshape(fin, [G, LQ]), axis=1)
            tl.store(out_ptr + qo.to(tl.int64) * Nd + doc, tot, mask=qo < Nq)
            best = tl.full([G * LQ], float("-inf"), tl.float32)


def run(kind, Q, D, M, G, BLOCK_T, warps, stages, progs=None, tma=False):
    Nq, LQ, d = Q.shape
    Nd, Ld, _ = D.shape
    out = torch.empty(Nq, Nd, device=Q.device, dtype=torch.float32)
    nqb = triton.cdiv(Nq, G)
    if kind == "cell":
        _cell[(nqb * Nd,)](Q, D, M, out, Nq, Nd, LQ, Ld, d, G, BLOCK_T, num_warps=warps, num_stages=stages)
        return out
    sms = torch.cuda.get_device_properties(Q.device).multi_processor_count
    ngrp = max(1, (progs or sms) // nqb)
    if kind == "nested":
        _nested[(nqb * ngrp,)](Q, D, M, out, Nq, Nd, LQ, Ld, d, G, BLOCK_T, nqb, num_warps=warps, num_stages=stages)
        return out
    desc = TensorDescriptor.from_tensor(D.view(Nd * Ld, d), [BLOCK_T, d]) if tma else D
    _flat[(nqb * ngrp,)](Q, D, M, out, desc, Nq, Nd, LQ, Ld, d, G, BLOCK_T, nqb, tma,
                         num_warps=warps, num_stages=stages)
    return out


def held_out(out_dir):
    """The batched row and the held-out batches at hsr's pick, persistent programs against a program per cell."""
    import hsr.ops
    from hsr import autotune, kept
    torch.manual_seed(0)
    rows = []
    for nq, nd, lq, ld, masked in ((64, 10000, 32, 300, True), (16, 5000, 32, 180, True), (64, 2000, 48, 200, True),
                                   (128, 2000, 64, 500, True), (64, 20000, 32, 120, True), (8, 1000, 32, 300, False),
                                   (32, 3000, 32, 256, False), (3, 1000, 20, 300, False)):
        q = torch.nn.functional.normalize(torch.randn(nq, lq, 128, device="cuda"), dim=-1).half()
        dd = torch.nn.functional.normalize(torch.randn(nd, ld, 128, device="cuda"), dim=-1).half()
        m = (torch.arange(ld, device="cuda")[None, :] < torch.randint(ld // 2, ld + 1, (nd,), device="cuda")[:, None]) \
            if masked else None
        for persist in ("1", "0"):
            os.environ["HSR_PERSIST"] = persist
            kept.forget(launches=True)
            ms = triton.testing.do_bench(lambda: hsr.ops.maxsim(q, dd, d_mask=m), warmup=25, rep=150)
            picks = {str(k): autotune._describe(c) for t in gc.get_objects() if isinstance(t, autotune.Tuned)
                     for k, c in (*t.predicted.items(), *t.configs.items())}
            rows.append(dict(shape=[nq, nd, lq, ld, masked], persist=persist, ms=ms, picks=picks))
            print(f"{nq}x{nd} {lq}x{ld} mask {int(masked)} persist {persist} {ms:.3f} ms", flush=True)
        del q, dd, m
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "batched_held_out.json"), "w") as f:
        json.dump(dict(device=torch.cuda.get_device_name(), triton=triton.__version__, rows=rows), f, indent=1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=".")
    p.add_argument("--nd", type=int, default=10000)
    p.add_argument("--held-out", action="store_true", help="only the batched row and the held-out batches, at hsr's pick")
    args = p.parse_args()
    if args.held_out:
        return held_out(args.out)
    torch.manual_seed(0)
    dev = "cuda"
    Nq, Nd, Lq, Ld, d = 64, args.nd, 32, 300, 128
    Q = torch.nn.functional.normalize(torch.randn(Nq, Lq, d, device=dev), dim=-1).half()
    D = torch.nn.functional.normalize(torch.randn(Nd, Ld, d, device=dev), dim=-1).half()
    lens = torch.randint(Ld // 2, Ld + 1, (Nd,), device=dev)
    M = torch.arange(Ld, device=dev)[None, :] < lens[:, None]
    import hsr.ops
    from hsr import kept
    ref = hsr.ops.maxsim(Q, D, d_mask=M)
    flops = 2 * Nq * Lq * Nd * Ld * d
    rows = []

    def bench(name, fn):
        try:
            got = fn()
            err = (got - ref).abs().max().item()
            ms = triton.testing.do_bench(fn, warmup=50, rep=300)
        except Exception as e:  # noqa: BLE001
            print(f"{name}: failed {type(e).__name__}: {str(e)[:300]}")
            return
        rows.append(dict(name=name, ms=ms, err=err, peak=flops / ms / 1e9 / 989))
        print(f"{name:40s} {ms:8.3f} ms  {rows[-1]['peak']:.1%} of peak  max err {err:.2e}", flush=True)

    bench("hsr.ops.maxsim", lambda: hsr.ops.maxsim(Q, D, d_mask=M))
    from hsr import autotune
    print("hsr configs:", {str(k): autotune._describe(c) for kern in gc.get_objects()
                           if isinstance(kern, autotune.Tuned) for k, c in (*kern.predicted.items(), *kern.configs.items())})
    from hsr import dispatch
    original = autotune.Tuned.lookup
    # persistent programs (dispatch.persistent) against a program per cell, at hsr's pick and forced configs
    for cfg in (None, (32, 64, 16, 8, 3), (32, 64, 4, 4, 3), (32, 32, 8, 4, 4), (32, 64, 8, 4, 3)):
        def lookup(self, key, cfg=cfg):
            if cfg is None:
                return original(self, key)
            r, c, g, w, st = cfg
            return {"kwargs": {self.roles["BLOCK_R"]: r, self.roles["BLOCK_C"]: c, self.roles["BLOCK_G"]: g},
                    "num_warps": w, "num_stages": st}
        autotune.Tuned.lookup = lookup
        for persist in ("1", "0"):
            os.environ["HSR_PERSIST"] = persist
            kept.forget(launches=True)
            bench(f"hsr {cfg or 'predicted'} persist {persist}", lambda: hsr.ops.maxsim(Q, D, d_mask=M))
        if cfg in ((32, 64, 4, 4, 3), (32, 64, 8, 4, 3)):
            for per_sm in (1, 4):
                dispatch.PERSIST_PROGRAMS_PER_SM = per_sm
                os.environ["HSR_PERSIST"] = "1"
                kept.forget(launches=True)
                bench(f"hsr {cfg or 'predicted'} persist 1, {per_sm} a multiprocessor",
                      lambda: hsr.ops.maxsim(Q, D, d_mask=M))
            dispatch.PERSIST_PROGRAMS_PER_SM = 2
    autotune.Tuned.lookup = original
    os.environ.pop("HSR_PERSIST")
    kept.forget(launches=True)
    # unmasked, the same documents
    bench("hsr no mask", lambda: hsr.ops.maxsim(Q, D))
    try:
        import flash_maxsim as fm
        bench("flash_maxsim_batched", lambda: fm.flash_maxsim_batched(Q, D, doc_lengths=lens))
    except Exception as e:  # noqa: BLE001
        print("flash_maxsim:", e)
    for G, BT, w, s in ((16, 64, 8, 3),):
        bench(f"cell G{G} T{BT} w{w} s{s}", lambda: run("cell", Q, D, M, G, BT, w, s))
    for G, BT, w, s, pr in ((16, 64, 8, 3, None),):
        bench(f"nested G{G} T{BT} w{w} s{s} p{pr}", lambda: run("nested", Q, D, M, G, BT, w, s, pr))
    for G, BT, w, s, pr, tma in ((16, 64, 8, 3, None, False),):
        bench(f"flat G{G} T{BT} w{w} s{s} p{pr} tma{int(tma)}",
              lambda: run("flat", Q, D, M, G, BT, w, s, pr, tma))
    # other stacked shapes, held out (the switch only, at hsr's own config)
    for nq, nd, lq, ld, masked in ((16, 5000, 32, 180, True), (128, 2000, 64, 500, True), (8, 1000, 32, 300, False),
                                   (32, 3000, 32, 256, False), (4, 1000, 128, 1024, False), (64, 20000, 32, 120, True),
                                   (3, 1000, 20, 300, False), (64, 2000, 48, 200, True)):
        q = torch.nn.functional.normalize(torch.randn(nq, lq, d, device=dev), dim=-1).half()
        dd = torch.nn.functional.normalize(torch.randn(nd, ld, d, device=dev), dim=-1).half()
        m = (torch.arange(ld, device=dev)[None, :] < torch.randint(ld // 2, ld + 1, (nd,), device=dev)[:, None]) \
            if masked else None
        ref = hsr.ops.maxsim(q, dd, d_mask=m)
        flops = 2 * nq * lq * nd * ld * d
        for persist in ("1", "0"):
            os.environ["HSR_PERSIST"] = persist
            kept.forget(launches=True)
            bench(f"{nq}x{nd} {lq}x{ld} mask {int(masked)} persist {persist}", lambda: hsr.ops.maxsim(q, dd, d_mask=m))
        os.environ.pop("HSR_PERSIST")
        kept.forget(launches=True)
        bench(f"{nq}x{nd} {lq}x{ld} mask {int(masked)} as shipped", lambda: hsr.ops.maxsim(q, dd, d_mask=m))
        del q, dd, m
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "batched_probe.json"), "w") as f:
        json.dump(dict(shape=dict(Nq=Nq, Nd=Nd, Lq=Lq, Ld=Ld, d=d), device=torch.cuda.get_device_name(),
                       torch=torch.__version__, triton=triton.__version__, rows=rows), f, indent=1)


if __name__ == "__main__":
    main()

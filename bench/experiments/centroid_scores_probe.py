#!/usr/bin/env python3
"""Probe: one query against a corpus of 2-bit PLAID codes, scored from the query's centroid scores.

hsr.ops.maxsim_residual_varlen forms each token's row, normalize(C[code] + w[bits]), on chip: 128
gathers of a centroid row from L2 and a norm a token (1M documents of 150-300 tokens: 68.5 ms a query,
H100). Here <q, normalize(c + r)> = (S[code, q] + <q, r>) / |c + r| instead: S = C Q^T once a query
(32768 x 32), the inverse norm a token once for the corpus (as an index build would), and a tile of
tokens costs the residual's unpack, one [32, 128] x [128, 64] dot and a 32-value gather a token.

    python3 bench/experiments/centroid_scores_probe.py --check        # the interpreter, a small corpus
    python3 bench/experiments/centroid_scores_probe.py --docs 200000,1000000 --out DIR   # a GPU
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

if "--check" in sys.argv:
    os.environ["TRITON_INTERPRET"] = "1"
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

LQ, D, NBITS, CENTROIDS = 32, 128, 2, 32768


@triton.jit
def _scores(q_ptr, s_ptr, codes_ptr, res_ptr, inv_ptr, cu_ptr, w_ptr, out_ptr, n_docs,
            LQ: tl.constexpr, D: tl.constexpr, BLOCK_T: tl.constexpr, DOCS: tl.constexpr,
            T_MAJOR: tl.constexpr, REPEAT: tl.constexpr, ABLATE: tl.constexpr = 0, PREFETCH: tl.constexpr = False,
            PERM: tl.constexpr = False):
    """out[doc] = sum_s max_t (S[code_t, s] + <q_s, r_t>) * inv_t over the document's tokens (0 if none).
    DOCS: documents a program (q loaded once). T_MAJOR: tiles [tokens, query rows], so that a token's
    S row (LQ values, contiguous) is one coalesced gather. REPEAT: each coordinate loads its byte
    (L1 serves the repeats) rather than a [tokens, bytes, 4] reshape. ABLATE (token-major only), to find
    where the time goes: 1 no S gather, 2 neither residual nor dot (PLAID's centroid stage), 3 the dot of
    a constant residual (no unpack). PREFETCH: a tile's codes loaded one iteration ahead. PERM (token-major):
    the contraction in the order (f % 4, f // 4), four dots of 32 coordinates, each a byte tile's k-th code
    (coordinates 4p + k): an unpack elementwise on the bytes' tile, no [tokens, bytes, 4] reshape."""
    offs_s, offs_t, offs_d = tl.arange(0, LQ), tl.arange(0, BLOCK_T), tl.arange(0, D)
    offs_p = tl.arange(0, D // 4)
    if T_MAJOR:
        q = tl.load(q_ptr + offs_s[None, :] * D + offs_d[:, None])  # [D, LQ]
        q0 = tl.load(q_ptr + offs_s[None, :] * D + 4 * offs_p[:, None])  # [D / 4, LQ]: coordinates 4p + k
        q1 = tl.load(q_ptr + offs_s[None, :] * D + 4 * offs_p[:, None] + 1)
        q2 = tl.load(q_ptr + offs_s[None, :] * D + 4 * offs_p[:, None] + 2)
        q3 = tl.load(q_ptr + offs_s[None, :] * D + 4 * offs_p[:, None] + 3)
    else:
        q = tl.load(q_ptr + offs_s[:, None] * D + offs_d[None, :])  # [LQ, D]
    w0, w1, w2, w3 = tl.load(w_ptr), tl.load(w_ptr + 1), tl.load(w_ptr + 2), tl.load(w_ptr + 3)
    for k in range(DOCS):
        doc = tl.program_id(0) * DOCS + k
        if doc < n_docs:
            lo = tl.load(cu_ptr + doc)
            hi = tl.load(cu_ptr + doc + 1)
            best = tl.full([LQ], float("-inf"), tl.float32)
            ahead = tl.load(codes_ptr + lo + offs_t, mask=lo + offs_t < hi, other=0).to(tl.int64)
            for t0 in range(lo, hi, BLOCK_T):
                t = t0 + offs_t
                ok = t < hi
                if PREFETCH:
                    code = ahead
                    ahead = tl.load(codes_ptr + t + BLOCK_T, mask=t + BLOCK_T < hi, other=0).to(tl.int64)
                else:
                    code = tl.load(codes_ptr + t, mask=ok, other=0).to(tl.int64)
                # coordinate f sits in byte f // 4 at bit (f % 4) * 2 (LSB-first)
                if not PERM:  # (PERM unpacks its own way, below)
                    if REPEAT:
                        byte = tl.load(res_ptr + t.to(tl.int64)[:, None] * (D // 4) + (offs_d // 4)[None, :],
                                       mask=ok[:, None], other=0).to(tl.int32)
                        v = (byte >> (2 * (offs_d % 4))[None, :]) & 3
                    else:
                        byte = tl.load(res_ptr + t.to(tl.int64)[:, None] * (D // 4) + tl.arange(0, D // 4)[None, :],
                                       mask=ok[:, None], other=0).to(tl.int32)
                        v = tl.reshape((byte[:, :, None] >> (2 * tl.arange(0, 4))[None, None, :]) & 3, (BLOCK_T, D))
                    r = tl.where((v & 2) != 0, tl.where((v & 1) != 0, w3, w2),
                                 tl.where((v & 1) != 0, w1, w0)).to(q.dtype)
                inv = tl.load(inv_ptr + t, mask=ok, other=0.0)
                if T_MAJOR:
                    s_g = tl.load(s_ptr + code[:, None] * LQ + offs_s[None, :])  # [BLOCK_T, LQ]: a token's row
                    if ABLATE == 1:
                        s_g = tl.zeros([BLOCK_T, LQ], tl.float32)
                    if ABLATE == 2:
                        val = s_g * inv[:, None]
                    elif PERM:
                        byte = tl.load(res_ptr + t.to(tl.int64)[:, None] * (D // 4) + offs_p[None, :],
                                       mask=ok[:, None], other=0).to(tl.int32)
                        acc = s_g
                        for code_k in tl.static_range(4):  # (not k: the documents' loop's variable)
                            v = (byte >> (2 * code_k)) & 3
                            r = tl.where((v & 2) != 0, tl.where((v & 1) != 0, w3, w2),
                                         tl.where((v & 1) != 0, w1, w0)).to(q.dtype)
                            qk = q0 if code_k == 0 else q1 if code_k == 1 else q2 if code_k == 2 else q3
                            acc = tl.dot(r, qk, acc)
                        val = acc * inv[:, None]
                    elif ABLATE == 3:
                        val = (s_g + tl.dot(tl.full([BLOCK_T, D], 0.01, q.dtype), q)) * inv[:, None]
                    else:
                        val = (s_g + tl.dot(r, q)) * inv[:, None]
                    best = tl.maximum(best, tl.max(tl.where(ok[:, None], val, float("-inf")), axis=0))
                else:
                    s_g = tl.load(s_ptr + code[None, :] * LQ + offs_s[:, None])  # [LQ, BLOCK_T]
                    val = (s_g + tl.dot(q, tl.trans(r))) * inv[None, :]
                    best = tl.maximum(best, tl.max(tl.where(ok[None, :], val, float("-inf")), axis=1))
            tl.store(out_ptr + doc, tl.sum(tl.where(best > float("-inf"), best, 0.0), axis=0))


def unpack(res, w):
    """The residual rows [T, D] (float32) of 2-bit bytes [T, D / 4]."""
    shifts = torch.arange(0, 8, 2, device=res.device)
    return w.float()[((res.long()[:, :, None] >> shifts) & 3).reshape(res.shape[0], D)]


def inverse_norms(codes, res, C, w, chunk=1 << 20):
    """1 / |C[code] + r| a token (the index build's pass)."""
    return torch.cat([(C[codes[i:i + chunk].long()].float() + unpack(res[i:i + chunk], w)).norm(dim=1).reciprocal()
                      for i in range(0, codes.numel(), chunk)])


def scores(q, C, codes, res, inv, cu, w, block_t=64, docs=1, t_major=False, repeat=False, warps=4, s16=False,
           ablate=0, prefetch=False, perm=False):
    """Every document's MaxSim against q [LQ, D] (normalised), from the centroid scores."""
    s = (C.float() @ q.float().T).to(torch.float16 if s16 else torch.float32).contiguous()  # [CENTROIDS, LQ], once a query
    out = torch.empty(cu.numel() - 1, dtype=torch.float32, device=q.device)
    _scores[(triton.cdiv(out.numel(), docs),)](q, s, codes, res, inv, cu, w.float(), out, out.numel(), LQ=LQ, D=D,
                                               BLOCK_T=block_t, DOCS=docs, T_MAJOR=t_major, REPEAT=repeat, ABLATE=ablate, PREFETCH=prefetch, PERM=perm,
                                               num_warps=warps)
    return out


VARIANTS = [dict(block_t=bt, docs=dc, t_major=tm, repeat=rp, warps=wp)
            for tm in (False, True) for rp in (False, True) for bt in (64, 128) for wp in (4, 8) for dc in (1, 8)]
# --ablate: the best layout of the variants (bench/results/h200-centroid-scores-2026-11-28/) taken apart
BEST = dict(block_t=64, docs=8, t_major=True, repeat=False, warps=4)
ABLATIONS = [BEST, dict(BEST, prefetch=True), dict(BEST, ablate=1), dict(BEST, ablate=2), dict(BEST, ablate=3),
             dict(BEST, ablate=2, docs=1), dict(BEST, prefetch=True, s16=True)]
PERMS = [BEST, dict(BEST, perm=True), dict(BEST, perm=True, s16=True), dict(BEST, perm=True, block_t=128),
         dict(BEST, perm=True, warps=8, block_t=128), dict(BEST, perm=True, docs=1)]


def corpus(n_docs, device, gen):
    lengths = torch.randint(150, 301, (n_docs,), generator=gen, device=device)
    if n_docs <= 8:  # (the check: short documents, one empty)
        lengths = torch.randint(1, 140, (n_docs,), generator=gen, device=device)
        lengths[1] = 0
    cu = torch.zeros(n_docs + 1, dtype=torch.int64, device=device)
    cu[1:] = lengths.cumsum(0)
    total = int(cu[-1])
    C = torch.nn.functional.normalize(torch.randn(CENTROIDS, D, generator=gen, device=device), dim=-1).half()
    codes = torch.randint(0, CENTROIDS, (total,), generator=gen, device=device, dtype=torch.int32)
    res = torch.randint(0, 256, (total, D // 4), generator=gen, device=device, dtype=torch.uint8)
    w = torch.tensor([-0.03, -0.01, 0.01, 0.03], device=device).half()
    return C, codes, res, w, cu


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="a small corpus through the interpreter, against hsr's op")
    ap.add_argument("--docs", default="200000,1000000")
    ap.add_argument("--out", default="bench/results/centroid-scores")
    ap.add_argument("--ablate", action="store_true", help="ABLATIONS at every size, instead of the variants")
    ap.add_argument("--perm", action="store_true", help="PERMS (the contraction's order by code) at every size")
    args = ap.parse_args(argv)
    import hsr.ops
    device = "cpu" if args.check else "cuda"
    gen = torch.Generator(device=device).manual_seed(0)
    args.ablate = args.ablate or args.perm
    rows, ranked = [], PERMS if args.perm else ABLATIONS if args.ablate else VARIANTS
    for n_docs in ([6] if args.check else [int(n) for n in args.docs.split(",")]):
        C, codes, res, w, cu = corpus(n_docs, device, gen)
        q = torch.nn.functional.normalize(torch.randn(LQ, D, generator=gen, device=device), dim=-1).half()
        inv = inverse_norms(codes, res, C, w)
        op = lambda: hsr.ops.maxsim_residual_varlen(q, codes, res, cu, C, w, nbits=NBITS)  # noqa: E731
        want = op()
        bench = lambda f: round(triton.testing.do_bench(f, warmup=10, rep=60), 3)  # noqa: E731
        head = {"corpus docs": n_docs, "tokens": codes.numel(), "bytes a token": 4 + D // 4 + 4}
        if not args.check:
            head.update({"op ms": bench(op), "inverse norms ms (once)": bench(lambda: inverse_norms(codes, res, C, w))})
        print(json.dumps(head), flush=True)
        timed = []
        extra = [dict(ranked[0], s16=True)] if rows and not args.ablate else []
        for v in (ranked[::5] if args.check and not args.ablate else ranked) + extra:
            got = scores(q, C, codes, res, inv, cu, w, **v)
            row = dict(head, **v, err=float((got - want).abs().max()))
            if not args.check:
                row["probe ms"] = bench(lambda: scores(q, C, codes, res, inv, cu, w, **v))
                timed.append((row["probe ms"], v))
            print(json.dumps(row), flush=True)
            rows.append(row)
        if not args.ablate:
            ranked = [v for _, v in sorted(timed, key=lambda x: x[0])][:4] or ranked
    if not args.check:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / "centroid_scores_probe.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return 0 if all(r["err"] < (5e-2 if r.get("s16") else 2e-2) for r in rows if not r.get("ablate")) else 1


if __name__ == "__main__":
    sys.exit(main())

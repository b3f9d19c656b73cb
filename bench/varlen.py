#!/usr/bin/env python3
"""MaxSim on packed variable-length sequences: hsr against the peers' varlen.

Run on the GPU machine from the repository root:

    python3 bench/varlen.py --out DIR [--dtype fp16|bf16] [--quick] [--budget-s S]

Shapes (d = 128):

- ColBERT training steps, in-batch (Nq = Nd = B), B = 128 and 512: query
  lengths uniform in [1, 32], document lengths uniform in [1, 300] (the mean
  about half the maximum). Forward (no grad) and forward + backward of the sum
  of the [B, B] scores.
- Pairs: the same B queries and documents scored pair by pair ([B] scores),
  forward and forward + backward.
- Reranking: one query of 32 tokens against 1000 documents of 40 to 300
  tokens, forward only.

Variants, in one process, each called through its public function with the
host included (``triton.testing.do_bench`` medians) and its peak memory beyond
the inputs:

- ``hsr packed``: ``hsr.ops.maxsim_varlen`` / ``maxsim_pairs``, max_seqlen given;
- ``hsr padded``: ``hsr.ops.maxsim`` on the same data padded to the longest
  sequence, with masks (the padding made once, outside the timing);
- ``LIK varlen``: late-interaction-kernels' ``maxsim_varlen`` (in-batch and
  reranking; its pairs through the in-batch scores' diagonal are not timed);
- ``flash varlen``: flash-maxsim's ``flash_maxsim_varlen`` (pairs) and
  ``flash_maxsim_packed`` (reranking: one query against packed documents).

Every result is checked against a float64 reference of the packed data.
Writes varlen.json and varlen.md into --out.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys

from harness import Harness  # bench/harness.py, beside this script

D = 128
TRAIN = (("colbert128", 128), ("colbert512", 512))
LQ_MAX, LD_MAX = 32, 300
RERANK_DOCS, RERANK_LQ, RERANK_LD = 1000, 32, (40, 300)
TOL = 2e-2  # relative, fp16 / bf16 inputs, fp32 accumulation


def _lengths(torch, gen, n, lo, hi):
    return torch.randint(lo, hi + 1, (n,), generator=gen)


def _pack(torch, lengths, dtype, gen):
    rows = torch.randn(int(lengths.sum()), D, generator=gen).to(dtype)
    cu = torch.zeros(len(lengths) + 1, dtype=torch.int32)
    cu[1:] = lengths.cumsum(0)
    return rows, cu


def _pad(torch, rows, lengths):
    longest = int(lengths.max())
    out = rows.new_zeros(len(lengths), longest, rows.shape[1])
    mask = torch.arange(longest)[None, :] < lengths[:, None]
    out[mask] = rows
    return out, mask


def _reference(torch, Q, D_, cq, cd, pairs):
    """float64 scores [Nq, Nd] (or [N] for pairs) of the packed data, chunked."""
    q, d = Q.double(), D_.double()
    nq, nd = len(cq) - 1, len(cd) - 1
    if pairs:
        return torch.stack([(q[cq[n]:cq[n + 1]] @ d[cd[n]:cd[n + 1]].T).amax(1).sum() if cq[n + 1] > cq[n]
                            and cd[n + 1] > cd[n] else q.new_zeros(()) for n in range(nq)])
    sims = q @ d.T  # [total q, total d]
    out = q.new_zeros(nq, nd)
    for j in range(nd):
        block = sims[:, cd[j]:cd[j + 1]]
        if block.shape[1] == 0:
            continue
        best = block.amax(1)
        out[:, j] = torch.stack([best[cq[i]:cq[i + 1]].sum() for i in range(nq)])
    return out


def _rel(torch, got, want):
    got = got.detach().double().cpu()
    return float((got - want).norm() / want.norm().clamp_min(1e-12))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="bench/results")
    p.add_argument("--dtype", default="fp16", choices=("fp16", "bf16"))
    p.add_argument("--quick", action="store_true")
    p.add_argument("--budget-s", type=float, default=float(os.environ.get("HSR_BENCH_BUDGET_S", "300")))
    args = p.parse_args(argv)

    import torch
    import triton

    import hsr
    from hsr.ops import maxsim, maxsim_pairs, maxsim_varlen

    h = Harness(args)
    dev = "cuda"
    try:
        from late_interaction_kernels import maxsim_varlen as lik_varlen
    except Exception as e:  # noqa: BLE001
        print(f"note: late-interaction-kernels unavailable ({e})")
        lik_varlen = None
    try:
        from flash_maxsim.flash_maxsim_varlen import flash_maxsim_packed, flash_maxsim_varlen
    except Exception as e:  # noqa: BLE001
        print(f"note: flash-maxsim unavailable ({e})")
        flash_maxsim_varlen = flash_maxsim_packed = None

    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "triton": triton.__version__,
              "hsr": hsr.__version__, "python": platform.python_version(), "dtype": args.dtype, "rows": []}
    print(f"{result['device']}  torch {torch.__version__}  triton {triton.__version__}  {args.dtype}", flush=True)
    gen = torch.Generator().manual_seed(0)

    def row(table, shape, variant, rec):
        rec = dict(rec, table=table, shape=shape, variant=variant)
        result["rows"].append(rec)

    for name, b in (TRAIN[:1] if args.quick else TRAIN):
        lq, ld = _lengths(torch, gen, b, 1, LQ_MAX), _lengths(torch, gen, b, 1, LD_MAX)
        (Q, cq), (Dp, cd) = _pack(torch, lq, h.dtype, gen), _pack(torch, ld, h.dtype, gen)
        Qpad, qm = _pad(torch, Q, lq)
        Dpad, dm = _pad(torch, Dp, ld)
        print(f"{name}: B={b}, query tokens {int(lq.sum())} (mean {lq.float().mean():.1f}), document tokens "
              f"{int(ld.sum())} (mean {ld.float().mean():.1f}); padded {b * int(lq.max())} and {b * int(ld.max())}",
              flush=True)
        ref = _reference(torch, Q, Dp, cq.tolist(), cd.tolist(), False)
        ref_pairs = _reference(torch, Q, Dp, cq.tolist(), cd.tolist(), True)
        mq, md = int(lq.max()), int(ld.max())
        Q, Dp, cq, cd = Q.to(dev), Dp.to(dev), cq.to(dev), cd.to(dev)
        Qpad, qm, Dpad, dm = Qpad.to(dev), qm.to(dev), Dpad.to(dev), dm.to(dev)
        leaves = [x.requires_grad_() for x in (Q, Dp, Qpad, Dpad)]

        def check(want):
            return lambda out: {"rel_err_scores": _rel(torch, out, want)}

        def fwd_bwd(fn, grads):
            def call():
                out = fn()
                out.sum().backward()
                return out.detach()
            return call, grads

        variants = {
            "hsr packed": (lambda: maxsim_varlen(Q, Dp, cq, cd, mq, md), (Q, Dp)),
            "hsr padded": (lambda: maxsim(Qpad, Dpad, qm, dm), (Qpad, Dpad)),
        }
        if lik_varlen is not None:
            variants["LIK varlen"] = (lambda: lik_varlen(Q, Dp, cq, cd, mq, md), (Q, Dp))
        for variant, (fn, grads) in variants.items():
            rec = h.measure(f"{name} fwd {variant}", fn, check(ref), no_grad=True)
            row("in-batch forward", name, variant, rec)
            call, g = fwd_bwd(fn, grads)
            rec = h.measure(f"{name} step {variant}", call, check(ref), grad_to_none=leaves)
            row("in-batch training step", name, variant, rec)
        pair_variants = {"hsr packed": (lambda: maxsim_pairs(Q, Dp, cq, cd, mq, md), (Q, Dp))}
        if flash_maxsim_varlen is not None:
            pair_variants["flash varlen"] = (lambda: flash_maxsim_varlen(Q, Dp, cq, cd, mq, md), (Q, Dp))
        for variant, (fn, grads) in pair_variants.items():
            rec = h.measure(f"{name} pairs fwd {variant}", fn, check(ref_pairs), no_grad=True)
            row("pairs forward", name, variant, rec)
            call, g = fwd_bwd(fn, grads)
            rec = h.measure(f"{name} pairs step {variant}", call, check(ref_pairs), grad_to_none=leaves)
            row("pairs training step", name, variant, rec)
        del Q, Dp, Qpad, Dpad, leaves
        h.sync_and_free()

    # reranking: one query against 1000 packed documents, forward
    lq = torch.tensor([RERANK_LQ])
    ld = _lengths(torch, gen, RERANK_DOCS, *RERANK_LD)
    (Q, cq), (Dp, cd) = _pack(torch, lq, h.dtype, gen), _pack(torch, ld, h.dtype, gen)
    Dpad, dm = _pad(torch, Dp, ld)
    ref = _reference(torch, Q, Dp, cq.tolist(), cd.tolist(), False)[0]
    md = int(ld.max())
    Q, Dp, cq, cd, Dpad, dm = Q.to(dev), Dp.to(dev), cq.to(dev), cd.to(dev), Dpad.to(dev), dm.to(dev)
    print(f"rerank: 1 x {RERANK_LQ} against {RERANK_DOCS} documents, {int(ld.sum())} tokens (padded "
          f"{RERANK_DOCS * md})", flush=True)
    variants = {
        "hsr packed": lambda: maxsim_varlen(Q, Dp, cq, cd, RERANK_LQ, md)[0],
        "hsr padded": lambda: maxsim(Q, Dpad, None, dm),
    }
    if lik_varlen is not None:
        variants["LIK varlen"] = lambda: lik_varlen(Q, Dp, cq, cd, RERANK_LQ, md)[0]
    if flash_maxsim_packed is not None:
        variants["flash packed"] = lambda: flash_maxsim_packed(Q, Dp, cd, md)
    for variant, fn in variants.items():
        rec = h.measure(f"rerank fwd {variant}", fn, lambda out: {"rel_err_scores": _rel(torch, out, ref)},
                        no_grad=True)
        row("rerank forward", "rerank1000", variant, rec)

    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "varlen.json"), "w") as f:
        json.dump(result, f, indent=2, default=str)
    lines = [f"# Packed MaxSim ({result['device']}, torch {result['torch']}, triton {result['triton']}, {args.dtype})",
             "", "| table | shape | variant | ms | peak GiB | rel err |", "|---|---|---|---|---|---|"]
    for r in result["rows"]:
        if r.get("status") == "ok":
            lines.append(f"| {r['table']} | {r['shape']} | {r['variant']} | {r['ms']:.4f} | {r['peak_gib']:.3f} | "
                         f"{r.get('rel_err_scores', float('nan')):.1e} |")
        else:
            lines.append(f"| {r['table']} | {r['shape']} | {r['variant']} | {r.get('status')} | | |")
    with open(os.path.join(args.out, "varlen.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    bad = [r for r in result["rows"] if r.get("status") == "ok" and r.get("rel_err_scores", 0) > TOL]
    if bad:
        print(f"MISMATCH: {len(bad)} rows over {TOL}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.exit(main())

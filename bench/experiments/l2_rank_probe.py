#!/usr/bin/env python3
"""Probe: the general loop's L2 key (ranked by |b|^2 - 2<a, b>) with a slot per tile column
(HSR_ROW_SLOT=0) or per row (=1), the columns' norms from each tile (variant tile) or a pre-pass
(cn), in the general loop and the lean one (whose cosine key reads them too), or (lean) the lean
loop for any number of row sets: k-means (N = 1M)
against flash-kmeans, stacked Gaussian, min-distance and cosine MaxSim against MaxSim; do_bench
medians in one process, registers and spills. PROBE_CONFIGS "rows,cols,warps,stages;..." times k-means at fixed configs, PROBE_LEAN_L2 the
one-query rows at those dispatch.LEAN_L2_BLOCKS; PROBE_NO_KMEANS=1 skips k-means, PROBE_CHECK=1 checks min-distance against float64, PROBE_NO_MS=1 the MaxSim-like rows,
PROBE_DTYPES="fp16,bf16,fp32-high,fp32-highest" times those k-means dtypes at every shape, PROBE_KM="n,k,f;..."
and PROBE_MS="queries,documents,Lq,Ld;..." take other shapes. To compare,
run it again with an earlier package tree first on PYTHONPATH (--tag base --variants default).

    python3 bench/experiments/l2_rank_probe.py [--out DIR] [--tag NAME] [--variants default,row]
"""
import argparse
import gc
import json
import os

import torch
import triton
import triton.testing
from triton.runtime.jit import JITFunction

import hsr
from hsr import autotune, dispatch, kept
from hsr.ops import maxsim

KMEANS = "X[n, d]: float\nC[k, d]: float\nassign[n] = argmin_k ||X_n - C_k||^2\n"
DECL = "Q[i, s, d]: float\nD[j, t, d]: float\n"
KM_SHAPES = ((1 << 20, 1024, 64), (1 << 20, 1024, 128), (1 << 20, 4096, 128))
MS_SHAPES = ((1, 512, 1024, 1024), (1, 1000, 32, 300), (8, 1000, 32, 300), (32, 1000, 32, 300), (64, 10000, 32, 300))
SAMPLE = 8192
FORCED: dict = {}  # the config every k-means launch takes, where PROBE_CONFIGS names one


def _lookup(original):
    def lookup(self, key):
        if FORCED and "assign" in self.name:
            r, c, w, s = FORCED["cfg"]
            return {"kwargs": {self.roles["BLOCK_R"]: r, self.roles["BLOCK_C"]: c}, "num_warps": w, "num_stages": s}
        return original(self, key)
    return lookup


def bad_fraction(x, c, assign):
    xs, a = x[:SAMPLE].double(), assign[:SAMPLE].long()
    d = torch.cdist(xs, c.double()).square()
    best = d.min(1).values
    return float(((d.gather(1, a[:, None])[:, 0] - best) > 1e-3 * best + 1e-9).float().mean())


def timed(row, name, call, check=None):
    try:
        got = call()
        row[name] = round(triton.testing.do_bench(call), 4)
        if check is not None:
            row[name + "_bad"] = check(got)
    except Exception as e:  # noqa: BLE001 - one variant must not end the run
        row[name] = f"error: {type(e).__name__}: {str(e)[:200]}"


def kernels_seen():
    out = []
    for obj in gc.get_objects():
        if isinstance(obj, JITFunction) and obj.__name__.endswith(("_fwd", "_fwd_lean")):
            for caches in getattr(obj, "device_caches", {}).values():
                for k in caches[0].values():
                    consts = getattr(getattr(k, "src", None), "constants", {}) or {}
                    flags = {str(n): v for n, v in consts.items() if str(n) in ("('ROW_SLOT',)", "ROW_SLOT", "DOT_MODE")}
                    out.append(dict(kernel=obj.__name__, regs=getattr(k, "n_regs", None), spills=getattr(k, "n_spills", None),
                                    warps=k.metadata.num_warps, flags=str(flags)))
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=".")
    p.add_argument("--tag", default="this")
    p.add_argument("--variants", default="default,row")
    args = p.parse_args()
    autotune.Tuned.lookup = _lookup(autotune.Tuned.lookup)
    km = hsr.compile(KMEANS)
    ops = {"gaussian": hsr.compile(DECL + "score[i, j] = sum_s max_t exp(-||Q_s - D_t||^2)\n"),
           "min_dist": hsr.compile(DECL + "score[i, j] = sum_s min_t ||Q_s - D_t||^2\n"),
           "cosine": hsr.compile(DECL + "score[i, j] = sum_s max_t cos(Q_s, D_t)\n")}
    try:
        from flash_kmeans.assign_euclid_triton import euclid_assign_triton
    except Exception as e:  # noqa: BLE001
        euclid_assign_triton = None
        print("flash-kmeans:", e)
    configs = [tuple(int(v) for v in s.split(",")) for s in os.environ.get("PROBE_CONFIGS", "").split(";") if s]
    lean_blocks = [tuple(int(v) for v in s.split(",")) for s in os.environ.get("PROBE_LEAN_L2", "").split(";") if s]
    default_lean = dispatch.LEAN_L2_BLOCKS
    few_cells = dispatch.LEAN_FEW_CELLS
    km_shapes = KM_SHAPES if not os.environ.get("PROBE_NO_KMEANS") else ()
    if os.environ.get("PROBE_KM"):  # "n,k,f;...": other k-means shapes
        km_shapes = [tuple(int(v) for v in s.split(",")) for s in os.environ["PROBE_KM"].split(";") if s]
    ms_shapes = MS_SHAPES if not os.environ.get("PROBE_NO_MS") else ()
    picked = os.environ["PROBE_DTYPES"].split(",") if os.environ.get("PROBE_DTYPES") else None
    if os.environ.get("PROBE_MS"):  # "queries,documents,Lq,Ld;...": other MaxSim-like shapes
        ms_shapes = [tuple(int(v) for v in s.split(",")) for s in os.environ["PROBE_MS"].split(";") if s]
    rows = []
    g = torch.Generator(device="cuda").manual_seed(0)
    for variant in args.variants.split(","):
        os.environ.pop("HSR_ROW_SLOT", None)
        os.environ.pop("HSR_COL_NORMS", None)
        if variant == "row":
            os.environ["HSR_ROW_SLOT"] = "1"
        elif variant in ("cn", "tile"):  # the columns' norms from a pre-pass, or from each tile
            os.environ["HSR_COL_NORMS"] = "1" if variant == "cn" else "0"
        # lean: the lean forward for any number of row sets (dispatch.LEAN_FEW_CELLS), not the stacked loop
        dispatch.LEAN_FEW_CELLS = 1 << 30 if variant == "lean" else few_cells
        kept.forget()
        for n, k, f in km_shapes:
            x32 = torch.randn(n, f, device="cuda", generator=g)
            c32 = torch.randn(k, f, device="cuda", generator=g)
            for dt, mode in (("fp16", "highest"), ("bf16", "highest"), ("fp32", "high"), ("fp32", "highest")):
                if picked is not None:  # PROBE_DTYPES: these, at every shape
                    if (dt if dt != "fp32" else f"fp32-{mode}") not in picked:
                        continue
                elif dt == "bf16" and f != 128:
                    continue
                elif dt == "fp32" and (k, f) != (1024, 128):
                    continue
                torch.set_float32_matmul_precision(mode)
                x, c = {"fp16": (x32.half(), c32.half()), "bf16": (x32.bfloat16(), c32.bfloat16())}.get(dt, (x32, c32))
                for cfg in [None] + configs:
                    FORCED.clear()
                    if cfg:
                        FORCED["cfg"] = cfg
                    kept.forget()
                    row = dict(tag=args.tag, variant=variant, case=f"kmeans {n}x{k}x{f}", dtype=dt, mode=mode,
                               config=",".join(map(str, cfg)) if cfg else "predicted")
                    timed(row, "hsr", lambda: km(x, c), lambda a: bad_fraction(x, c, a))
                    if cfg is None and variant == args.variants.split(",")[0] and euclid_assign_triton is not None:
                        xb, cb = x[None], c[None]
                        xsq, csq = xb.float().square().sum(-1), cb.float().square().sum(-1)
                        timed(row, "flash_kmeans", lambda: euclid_assign_triton(xb, cb, xsq, c_sq=csq)[0],
                              lambda a: bad_fraction(x, c, a))
                    print(json.dumps(row), flush=True)
                    rows.append(row)
            FORCED.clear()
            torch.set_float32_matmul_precision("highest")
            del x32, c32
            torch.cuda.empty_cache()
        for nq, nd, lq, ld in ms_shapes:
            Q = torch.nn.functional.normalize(torch.randn(nq, lq, 128, device="cuda", generator=g), dim=-1).half()
            D = torch.nn.functional.normalize(torch.randn(nd, ld, 128, device="cuda", generator=g), dim=-1).half()
            for lean in [None] + lean_blocks:
                if lean and nq > 1:
                    continue
                if lean:
                    dispatch.LEAN_L2_BLOCKS = lean
                kept.forget()
                row = dict(tag=args.tag, variant=variant, case=f"maxsim {nq}x{nd} {lq}x{ld}", dtype="fp16",
                           config=",".join(map(str, lean)) if lean else "default")
                if not lean:
                    timed(row, "maxsim", lambda: maxsim(Q, D))
                    if nd >= 10000:  # the batched call of the off-grid table: 150 to 300 tokens, masked
                        lengths = torch.randint(150, ld + 1, (nd,), device="cuda", generator=g)
                        mask = torch.arange(ld, device="cuda")[None, :] < lengths[:, None]
                        timed(row, "maxsim_masked", lambda: maxsim(Q, D, d_mask=mask))
                for name, op in ops.items():
                    timed(row, name, lambda op=op: op(Q, D))
                if os.environ.get("PROBE_CHECK") and not lean:  # min-distance against float64, first 64 documents
                    got = ops["min_dist"](Q, D[:64]).double()
                    want = torch.stack([torch.cdist(Q[i].double(), D[:64].double()).square().min(-1).values.sum(-1)
                                        for i in range(nq)])
                    row["min_dist_err"] = float((got - want).abs().max() / want.abs().max())
                print(json.dumps(row), flush=True)
                rows.append(row)
            dispatch.LEAN_L2_BLOCKS = default_lean
            del Q, D
            torch.cuda.empty_cache()
    kernels = kernels_seen()
    print(json.dumps(kernels))
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, f"l2_rank_{args.tag}.json"), "w") as fh:
        json.dump({"tag": args.tag, "hsr": hsr.__file__, "torch": torch.__version__, "triton": triton.__version__,
                   "device": torch.cuda.get_device_name(), "rows": rows, "kernels": kernels}, fh, indent=1)


if __name__ == "__main__":
    main()

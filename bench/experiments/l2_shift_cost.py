#!/usr/bin/env python3
"""What the translation-exact L2 lowering costs on the tensor-core/FMA path (d > 8):
--spec kmeans, the k-means assignment (1M x 64 points, 1024 centres, fp32): the generated
kernel as it is, and with parts of it taken out by editing the generated source (for
measuring only: the edited variants are not exact far from the origin); --spec gaussian,
sum_s max_t exp(-||Q_s - D_t||^2) on 8 queries x 1000 documents of 32 x 300 tokens, d = 128,
fp16 (no shift: 16-bit rows; norms from the tiles).

    python3 bench/experiments/l2_shift_cost.py --out DIR [--spec kmeans|gaussian] [--base PKG_DIR]

--base: a package tree of an earlier commit (bench/run_gpu.sh's .base/pkg), timed in a
subprocess with the same data. Fixed blocks (HSR_AUTOTUNE=0) unless --tuned."""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

SPECS = {
    "kmeans": "X[n, d]: float\nC[k, d]: float\nassign[n] = argmin_k ||X_n - C_k||^2\n",
    "gaussian": "Q[i, s, d]: float\nD[j, t, d]: float\nscore[i, j] = sum_s max_t exp(-||Q_s - D_t||^2)\n",
}


def variants(src: str) -> dict:
    out = {"current": src}
    out["no_shift"] = src.replace("if dot_mode < 2 and X_.dtype == torch.float32:", "if False:")
    assert out["no_shift"] != src
    out["no_inf_fix"] = "\n".join(l for l in src.split("\n") if "sq = tl.where(sq == sq" not in l)
    return out


def load(src: str, name: str):
    path = Path(tempfile.mkdtemp()) / f"{name}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def data(torch, spec, n):
    g = torch.Generator().manual_seed(0)
    if spec == "kmeans":
        return torch.rand(n, 64, generator=g).cuda(), torch.rand(1024, 64, generator=g).cuda()
    q = torch.randn(8, 32, 128, generator=g).cuda().half() * 0.1
    return q, torch.randn(1000, 300, 128, generator=g).cuda().half() * 0.1


def time_call(fn):
    import triton.testing
    fn(), fn()
    return triton.testing.do_bench(fn, warmup=50, rep=300)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--base")
    p.add_argument("--tuned", action="store_true")
    p.add_argument("--only-base", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--n", type=int, default=1_000_000)
    p.add_argument("--spec", default="kmeans", choices=sorted(SPECS))
    args = p.parse_args()
    if not args.tuned:
        os.environ["HSR_AUTOTUNE"] = "0"
    import torch
    import hsr
    x, c = data(torch, args.spec, args.n)
    op = hsr.compile(SPECS[args.spec])
    rows = {}
    if args.only_base:
        print(json.dumps({"base": time_call(lambda: op(x, c))}))
        return
    ref = op(x, c)
    if args.spec == "gaussian":
        from hsr.ops import maxsim
        rows["bundled_maxsim"] = {"ms": time_call(lambda: maxsim(x, c))}
    for name, src in (variants(op.source) if args.spec == "kmeans" else {"current": op.source}).items():
        mod = load(src, f"{args.spec}_{name}")
        got = mod.apply(x, c)
        rows[name] = {"ms": time_call(lambda: mod.apply(x, c)), "same_as_current": bool(torch.equal(got, ref))}
        print(name, rows[name], flush=True)
    if args.base:
        env = dict(os.environ, PYTHONPATH=args.base + os.pathsep + os.environ.get("PYTHONPATH", ""),
                   HSR_CACHE_DIR=tempfile.mkdtemp())
        res = subprocess.run([sys.executable, __file__, "--out", args.out, "--only-base", "--n", str(args.n),
                              "--spec", args.spec]
                             + (["--tuned"] if args.tuned else []), env=env, capture_output=True, text=True)
        print(res.stdout[-2000:], res.stderr[-2000:])
        rows["base"] = {"ms": json.loads(res.stdout.strip().splitlines()[-1])["base"]}
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / f"l2_shift_cost_{args.spec}{'_tuned' if args.tuned else ''}.json").write_text(json.dumps(
        {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "rows": rows}, indent=1))
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()

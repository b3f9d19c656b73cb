"""Whether Chamfer's few-coordinate pair work belongs on the tensor cores: an
experiment (GPU only) that times the generated forward's tensor-core path on
split operands beside its CUDA-core path, in one process.

An fp32 coordinate is the exact sum of three bf16 pieces (8 + 8 + 8 significant
bits), and a product of two pieces is exact in fp32. So <x, y> over d = 3 is the
sum of the 27 piece products: a bf16 dot over K = 27 (padded to 32) of
x' = (x1, x1, x1, x2, x2, x2, x3, x3, x3) and y' = (y1, y2, y3, y1, y2, y3, ...),
per coordinate, accumulated in fp32 on the tensor cores. The generated
chamfer_point forward (dist[b, n] = min_m ||X_n - Y_m||^2) runs it unchanged:
DOT_MODE 0 over the split rows, with the squared norms of the fp32 rows. The
CUDA-core path does 3 FMAs and a min a pair (bench/NOTES.md, v10); this one
64 tensor-core FLOPs and a min.

    python3 bench/experiments/chamfer_split.py [--out DIR] [--sizes 10000,100000]

Prints, per size: ms of one direction (with and without the saved index) on
each path, the split's own cost, the largest difference of the distances from
float64, and how many chosen neighbours differ from the CUDA-core path's (ties
within rounding may). Writes chamfer_split.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform

import torch
import triton
import triton.testing

PIECES = 3


def split(x):
    """Three bf16 tensors whose sum is x (fp32) exactly."""
    pieces, rest = [], x.float()
    for _ in range(PIECES):
        p = rest.to(torch.bfloat16)
        pieces.append(p)
        rest = rest - p.float()
    return pieces


def split_rows(x, y, k=32):
    """(x', y'), bf16 rows with <x'_n, y'_m> = <x_n, y_m> to fp32 rounding."""
    xs, ys = split(x), split(y)
    a = torch.cat([xs[i] for i in range(PIECES) for _ in range(PIECES)], -1)
    b = torch.cat([ys[j] for _ in range(PIECES) for j in range(PIECES)], -1)
    pad = k - a.shape[-1]
    return torch.nn.functional.pad(a, (0, pad)), torch.nn.functional.pad(b, (0, pad))


def split_forward(gen, runtime, x, y, need_idx):
    """The generated forward over the split rows: (dist, idx)."""
    xa, yb = split_rows(x, y)
    nb, n, _ = x.shape
    m = y.shape[1]
    aux = [runtime.squared_norms(x, 2), runtime.squared_norms(y, 2)]
    out = torch.empty((nb, n), dtype=torch.float32, device=x.device)
    idx = torch.empty((nb, n), dtype=torch.int32, device=x.device) if need_idx else None
    xsel = torch.empty((nb, n), dtype=torch.float32, device=x.device) if need_idx else None
    args = (xa, yb, *aux, out, out, idx if need_idx else out, out, xsel if need_idx else out,
            nb, n, m, xa.shape[2], *xa.stride(), *yb.stride(), *(s for t in aux for s in t.stride()), 0,
            *out.stride(), runtime.length_bucket(n), runtime.length_bucket(m))
    flags = dict(HAS_ylen=False, BLOCK_D=xa.shape[2], NEED_IDX=need_idx, DOT_MODE=0, SMALL_D=0,
                 PRECISION="tf32", DOT_FP32=runtime.interpreting())
    kernel = gen._dist_kernel()
    if kernel is None:  # the interpreter: fixed blocks
        gen.launcher.launch(gen.dist_fwd, (nb, triton.cdiv(n, 32)), *args, BLOCK_N=32, BLOCK_M=32, **flags)
    else:
        kernel[lambda meta: (nb, triton.cdiv(n, meta["BLOCK_N"]))](*args, **flags)
    return out, idx


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.environ.get("OUT", "bench/results"))
    ap.add_argument("--sizes", default="10000,100000")
    args = ap.parse_args()
    from hsr import autotune, runtime
    import hsr.generated.chamfer_point as gen

    def bench(fn):
        fn()
        torch.cuda.synchronize()
        return triton.testing.do_bench(fn, warmup=10, rep=100, return_mode="median")

    head = f"{torch.cuda.get_device_name()}, torch {torch.__version__}, triton {triton.__version__}"
    print(head, flush=True)
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        g = torch.Generator(device="cuda").manual_seed(0)
        x = torch.randn(1, size, 3, device="cuda", generator=g)
        y = torch.randn(1, size, 3, device="cuda", generator=g)
        r = {"N=M": size}
        core, core_idx = gen.forward_with_indices(x, y)
        split_d, split_idx = split_forward(gen, runtime, x, y, True)
        ref = torch.cdist(x.double()[0], y.double()[0]).square().min(1).values[None] if size <= 20000 else None
        r["core_max_abs_err"] = (core.double() - ref).abs().max().item() if ref is not None else None
        r["split_max_abs_err"] = (split_d.double() - ref).abs().max().item() if ref is not None else None
        r["split_vs_core_max_abs"] = (split_d - core).abs().max().item()
        r["idx_differ"] = int((split_idx.view(-1) != core_idx.view(-1).to(torch.int32)).sum())
        r["core_ms"] = bench(lambda: gen.apply(x, y))
        r["core_idx_ms"] = bench(lambda: gen.forward_with_indices(x, y))
        r["split_ms"] = bench(lambda: split_forward(gen, runtime, x, y, False))
        r["split_idx_ms"] = bench(lambda: split_forward(gen, runtime, x, y, True))
        r["split_rows_ms"] = bench(lambda: split_rows(x, y))
        r["configs"] = str(autotune.chosen(gen.dist_fwd))
        rows.append(r)
        print(r, flush=True)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "chamfer_split.json"), "w") as f:
        json.dump({"meta": {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                            "triton": triton.__version__, "python": platform.python_version()}, "rows": rows}, f,
                  indent=1)


if __name__ == "__main__":
    main()

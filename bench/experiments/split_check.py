"""The split pass (DOT_MODE 3) against the CUDA-core pass on the GPU, one
direction of Chamfer at a few sizes: how many chosen neighbours differ, how far
their distances are from each other and from float64 (sizes up to 20K), and
the time of each (do_bench, median ms). GPU only.

    python3 bench/experiments/split_check.py --out DIR [--sizes 1000,10000,100000]

Writes split_check.json and prints one line a size."""

from __future__ import annotations

import argparse
import json
import os
import platform

import torch
import triton
import triton.testing


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.environ.get("OUT", "bench/results"))
    ap.add_argument("--sizes", default="1000,10000,100000")
    args = ap.parse_args()
    from hsr.generated import chamfer_point as gen
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        g = torch.Generator(device="cuda").manual_seed(0)
        x = torch.rand(1, size, 3, device="cuda", generator=g) * 2 - 1
        y = torch.rand(1, size + 13, 3, device="cuda", generator=g) * 2 - 1
        y[:, 500:600] = y[:, 0:100]  # exact ties in other tiles
        row = {"N": size}
        res = {}
        for flag in ("1", "0"):
            os.environ["HSR_SPLIT"] = flag
            res[flag] = gen.forward_with_indices(x, y)
            row[f"ms_idx_split{flag}"] = triton.testing.do_bench(lambda: gen.forward_with_indices(x, y), rep=200)
            row[f"ms_noidx_split{flag}"] = triton.testing.do_bench(lambda: gen.apply(x, y), rep=200)
        (v1, i1), (v0, i0) = res["1"], res["0"]
        row["idx_differ"] = int((i1 != i0).sum())
        row["max_value_diff"] = float((v1 - v0).abs().max())
        if size <= 20000:
            ref = torch.cdist(x[0].double(), y[0].double()).square().min(1)
            row["split_err_f64"] = float((v1[0].double() - ref.values).abs().max())
            row["core_err_f64"] = float((v0[0].double() - ref.values).abs().max())
            row["split_idx_vs_f64"] = int((i1[0].long() != ref.indices).sum())
            row["core_idx_vs_f64"] = int((i0[0].long() != ref.indices).sum())
        rows.append(row)
        print(row, flush=True)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "split_check.json"), "w") as f:
        json.dump({"meta": {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                            "triton": triton.__version__, "python": platform.python_version()}, "rows": rows}, f,
                  indent=1)


if __name__ == "__main__":
    main()

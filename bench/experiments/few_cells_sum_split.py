"""Does an outer sum over few long cells gain from splitting its rows over programs?
cd[b] = sum_n min_m ||P_n - R_m||^2 at B = 8 clouds of 8192 points (fp32, d = 3): 8 programs
without the split (dispatch.SPLIT_ROWS = 0 on a GPU since v15) against chunks of 128 rows
(HSR_SPLIT_ROWS=128, read per call). Also the outer max (Hausdorff's form), whose split is on."""
import os

import torch
import triton

import hsr

SUM = "P[b, n, d]: float\nR[b, m, d]: float\ncd[b] = sum_n min_m ||P_n - R_m||^2\n"
MAX = "P[b, n, d]: float\nR[b, m, d]: float\nh[b] = max_n min_m ||P_n - R_m||^2\n"
P = torch.randn(8, 8192, 3, device="cuda")
R = torch.randn(8, 8192, 3, device="cuda")
for name, text in (("sum", SUM), ("max", MAX)):
    op = hsr.compile(text)
    for rows in ("0", "64", "128", "256"):
        os.environ["HSR_SPLIT_ROWS" if name == "sum" else "HSR_OUTER_SPLIT"] = rows
        with torch.no_grad():
            want = op.reference(P.double(), R.double())
            got = op(P, R)
            err = ((got.double() - want).abs().max() / want.abs().max()).item()
            ms = triton.testing.do_bench(lambda: op(P, R))
        print(f"{name} chunk {rows:>3} rows: {ms:.3f} ms, rel err {err:.1e}", flush=True)

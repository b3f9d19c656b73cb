"""Where the lean outer max's time goes at 1 x 512 documents of 1024 x 1024 tokens (H100):
the public call, the merge of chunk partials alone, 64-row chunks, the general kernel, and
MaxSim's sum for scale. Run once with the merge as torch ops (ten launches, 0.238 ms of a
0.757 ms call: bench/results/h100-specs-2026-11-25/outer_max_lean.log); the merge is now
one kernel per module (*_merge)."""
import torch
import triton.testing

import hsr
from hsr import dispatch
from hsr.ops import maxsim

SPEC = "Q[i, s, d]: float\nD[j, t, d]: float\nscore[i, j] = max_s max_t <Q_s, D_t>\n"
op = hsr.compile(SPEC)
g = torch.Generator(device="cuda").manual_seed(0)
Q = torch.randn(1, 1024, 128, device="cuda", generator=g).half()
D = torch.randn(512, 1024, 128, device="cuda", generator=g).half()


def bench(fn):
    fn()
    torch.cuda.synchronize()
    return triton.testing.do_bench(fn, warmup=25, rep=100)


with torch.no_grad():
    print("explain:", [l for l in op.explain(dict(i=1, j=512, s=1024, t=1024, d=128)).splitlines() if "kernel" in l])
    print(f"outer max, public call: {bench(lambda: op(Q, D)):.4f} ms")
    print(f"maxsim (sum), public call: {bench(lambda: maxsim(Q, D)):.4f} ms")
    vals = torch.randn(512, 8, device="cuda")
    rows = torch.randint(0, 1024, (512, 8), device="cuda", dtype=torch.int32)
    out = torch.empty(1, 512, device="cuda")
    print(f"merge alone [512, 8]: {bench(lambda: op.module._score_merge(vals, rows, out, None)):.4f} ms")
    saved = dispatch.LEAN_BLOCKS
    dispatch.LEAN_BLOCKS = (64, 64, 4, 3)
    print(f"outer max, 64-row chunks: {bench(lambda: op(Q, D)):.4f} ms")
    dispatch.LEAN_BLOCKS = saved
    dispatch.LEAN_MIN_ROWS = 10**9
    print(f"outer max, general kernel (lean off): {bench(lambda: op(Q, D)):.4f} ms")

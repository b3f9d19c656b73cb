"""The textual forward (Nq = 1, B = 1000, 32 x 300, d = 128 fp16): the shipped
config against a full tuning of its key (every config of the pool, cache off),
do_bench of the public call, beside late-interaction-kernels in the same process.

    python3 bench/experiments/textual_configs.py [shipped|tuned]   (one process each)
"""

import os
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "shipped"
if mode == "tuned":
    os.environ.update(HSR_AUTOTUNE="1", HSR_AUTOTUNE_CACHE="0", HSR_TUNE_SECONDS="300")

import torch  # noqa: E402
import triton  # noqa: E402

import hsr.ops  # noqa: E402

g = torch.Generator(device="cuda").manual_seed(0)
Q = torch.randn(1, 32, 128, device="cuda", generator=g).half()
D = torch.randn(1000, 300, 128, device="cuda", generator=g).half()
hsr.ops.maxsim(Q, D)  # tunes (tuned) or takes the shipped config
torch.cuda.synchronize()
rows = {"hsr": lambda: hsr.ops.maxsim(Q, D)}
try:
    import late_interaction_kernels as lik
    rows["lik"] = lambda: lik.maxsim(Q[0], D)  # Q [Lq, d] -> [Nd]
except Exception as e:  # noqa: BLE001
    print("no LIK:", e)
with torch.no_grad():
    for _ in range(3):
        for name, fn in rows.items():
            print(f"{mode} {name}: do_bench {triton.testing.do_bench(fn, warmup=50, rep=300):.4f} ms", flush=True)

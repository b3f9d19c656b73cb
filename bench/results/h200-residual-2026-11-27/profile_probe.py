"""(bench/results/h200-residual-2026-11-27/profile_probe.py) torch.profiler's kernel times of one residual
call (1024 x 1024, nbits 2, packed), and the forward kernel's registers. Run from the repository root on a GPU."""
import sys
sys.path.insert(0, "bench")
import torch
import residual as R
import hsr.ops as ops
from hsr import generated

gen = torch.Generator().manual_seed(0)
q, codes, res, cu, cent, w, lengths = R.corpus(torch, 1024, 1024, 2, "cuda", gen)
longest = int(lengths.max())
call = lambda: ops.maxsim_residual_varlen(q, codes, res, cu, cent, w, nbits=2, max_seqlen_d=longest)
for _ in range(3):
    call()
torch.cuda.synchronize()
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA, torch.profiler.ProfilerActivity.CPU]) as prof:
    for _ in range(10):
        call()
    torch.cuda.synchronize()
print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=15))
k = generated.maxsim_residual2_varlen.score_fwd
for cache in getattr(k, "device_caches", {}).values():
    for c in cache[0].values():
        print("regs", c.n_regs, "spills", c.n_spills, "warps", c.metadata.num_warps, "shared", c.metadata.shared)

"""(bench/results/h200-residual-2026-11-27/chunk_probe.py) The residual op's forward with its rows formed
whole (HSR_COMPUTED_K=0) or in chunks of 32 / 64 coordinates, each tuned (HSR_AUTOTUNE=1, the shipped picks
off), do_bench ms. Run from the repository root on a GPU, once a chunk width:
    HSR_COMPUTED_K=32 HSR_AUTOTUNE=1 HSR_AUTOTUNE_CACHE=0 python3 .../chunk_probe.py"""
import json, os, sys
sys.path.insert(0, "bench")
import torch, triton
import residual as R
import hsr.ops as ops

gen = torch.Generator().manual_seed(0)
rows = []
for nbits in (2, 4):
    for nd, ld in ((1024, 200), (1024, 1024), (512, 8192)):
        q, codes, res, cu, cent, w, lengths = R.corpus(torch, nd, ld, nbits, "cuda", gen)
        longest = int(lengths.max())
        call = lambda: ops.maxsim_residual_varlen(q, codes, res, cu, cent, w, nbits=nbits, max_seqlen_d=longest)
        call(); torch.cuda.synchronize()
        ms = triton.testing.do_bench(call, warmup=25, rep=150, return_mode="median")
        rows.append(dict(k=os.environ.get("HSR_COMPUTED_K", "32"), nbits=nbits, Nd=nd, Ld=ld, ms=ms))
        print(rows[-1], flush=True)
out = os.environ.get("OUT", ".")
with open(os.path.join(out, f"chunk_probe_k{os.environ.get('HSR_COMPUTED_K', '32')}.json"), "w") as f:
    json.dump(rows, f, indent=1)

"""(bench/results/h200-residual-2026-11-27/pool_probe.py) The residual op's forward tuned over the sm90 pool
plus tiles of 32 rows at 8 warps and 256-token tiles (not in the pool), and each of those configs timed alone.
Run from the repository root on a GPU with HSR_AUTOTUNE=1 HSR_AUTOTUNE_CACHE=0."""
import json, os, sys
sys.path.insert(0, "bench")
import torch, triton
from hsr import autotune
EXTRA = [(32, 128, 8, 3), (32, 64, 8, 3), (32, 256, 8, 3), (32, 32, 4, 3), (32, 256, 4, 3), (32, 128, 8, 4),
         (32, 128, 4, 2), (16, 128, 4, 3)]
autotune.POOLS["sm90"] = tuple(autotune.POOLS["sm90"]) + tuple(EXTRA)
import residual as R
import hsr.ops as ops
from hsr import generated

gen = torch.Generator().manual_seed(0)
rows = []
for nbits in (2, 4):
    for nd, ld in ((1024, 200), (1024, 1024), (512, 8192)):
        q, codes, res, cu, cent, w, lengths = R.corpus(torch, nd, ld, nbits, "cuda", gen)
        longest = int(lengths.max())
        call = lambda: ops.maxsim_residual_varlen(q, codes, res, cu, cent, w, nbits=nbits, max_seqlen_d=longest)
        call(); torch.cuda.synchronize()
        ms = triton.testing.do_bench(call, warmup=25, rep=150, return_mode="median")
        rows.append(dict(nbits=nbits, Nd=nd, Ld=ld, ms=ms))
        print(rows[-1], flush=True)
with open(os.path.join(os.environ.get("OUT", "."), "pool_probe.json"), "w") as f:
    json.dump(rows, f, indent=1)

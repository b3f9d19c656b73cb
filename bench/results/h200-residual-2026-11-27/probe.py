"""(bench/results/h200-residual-2026-11-27/probe.py) Where the residual op's time goes: its forward's registers and spills at the predicted config, and
HSR_AUTOTUNE=1's pick, at 1024 x 1024 (nbits 2 and 4). Run from the repository root on a GPU."""
import os, sys, json
sys.path.insert(0, "bench")
import torch, triton
import residual as R
import hsr.ops as ops
from hsr import generated

gen = torch.Generator().manual_seed(0)
out = {}
for nbits in (2, 4):
    q, codes, res, cu, cent, w, lengths = R.corpus(torch, 1024, 1024, nbits, "cuda", gen)
    longest = int(lengths.max())
    call = lambda: ops.maxsim_residual_varlen(q, codes, res, cu, cent, w, nbits=nbits, max_seqlen_d=longest)
    call(); torch.cuda.synchronize()
    ms = triton.testing.do_bench(call, warmup=25, rep=150, return_mode="median")
    mod = getattr(generated, f"maxsim_residual{nbits}_varlen")
    kern = mod.score_fwd
    info = []
    for dev_cache in getattr(kern, "device_caches", {}).values():
        for k in dev_cache[0].values():
            info.append(dict(regs=k.n_regs, spills=k.n_spills, warps=k.metadata.num_warps,
                             consts={n: v for n, v in (k.src.constants.items() if hasattr(k.src, "constants") else [])
                                     if str(n).isupper() or "BLOCK" in str(n)} if False else None))
    out[nbits] = dict(ms=ms, kernels=info)
    print(nbits, ms, info, flush=True)
json.dump(out, open(os.path.join(os.environ.get("OUT", "."), "probe.json"), "w"), indent=1, default=str)

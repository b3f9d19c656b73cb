"""(bench/results/h200-residual-2026-11-27/batched_probe.py) 64 queries of 32 tokens against a corpus of
2-bit codes (bench/residual.py's corpus, 10000 documents of 150-300 tokens): the residual op's forward at its
predicted config, then tuned over the stacked pool (HSR_AUTOTUNE=1 HSR_AUTOTUNE_CACHE=0 in a second run).
do_bench ms. Run from the repository root on a GPU."""
import json, os, sys
sys.path.insert(0, "bench")
import torch, triton
import residual as R
import hsr.ops as ops

gen = torch.Generator().manual_seed(0)
rows = []
for nd in (10000, 50000):
    q, codes, res, cu, cent, w, lengths = R.corpus(torch, nd, 300, 2, "cuda", gen)
    Q = torch.randn(64, 32, 128, device="cuda", dtype=torch.bfloat16)
    call = lambda: ops.maxsim_residual_varlen(Q, codes, res, cu, cent, w, nbits=2, max_seqlen_d=300)
    call(); torch.cuda.synchronize()
    ms = triton.testing.do_bench(call, warmup=10, rep=60, return_mode="median")
    rows.append(dict(docs=nd, tuned=os.environ.get("HSR_AUTOTUNE", "0"), ms=ms, ms_per_query=ms / 64))
    print(rows[-1], flush=True)
with open(os.path.join(os.environ.get("OUT", "."), f"batched_{os.environ.get('HSR_AUTOTUNE', '0')}.json"), "w") as f:
    json.dump(rows, f, indent=1)

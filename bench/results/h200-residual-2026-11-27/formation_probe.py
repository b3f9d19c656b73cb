"""(bench/results/h200-residual-2026-11-27/formation_probe.py) The residual op's forward with each way of forming
its rows, compiled from the spec's text under the switches (HSR_ROWS_BYTES: codes a byte at a time;
HSR_ROWS_SELECT_BITS: small tables picked by the codes' bits), do_bench ms at the shipped configs.
Run from the repository root on a GPU, once a variant, each with an empty HSR_CACHE_DIR."""
import json, os, sys
sys.path.insert(0, "bench")
import torch, triton
import residual as R
import hsr
from hsr.ops import residual as ops_residual

gen = torch.Generator().manual_seed(0)
variant = f"bytes{os.environ.get('HSR_ROWS_BYTES', '1')}-select{os.environ.get('HSR_ROWS_SELECT_BITS', '2')}"
rows = []
for nbits in (2, 4):
    op = hsr.compile(ops_residual.spec_text(nbits, True))
    for nd, ld in ((1024, 200), (1024, 1024), (512, 8192)):
        q, codes, res, cu, cent, w, lengths = R.corpus(torch, nd, ld, nbits, "cuda", gen)
        q3 = torch.nn.functional.normalize(q.float(), dim=-1).half().unsqueeze(0)
        w16 = w.half()
        call = lambda: op(Q=q3, centroids=cent, cu=cu, codes=codes, residuals=res, bucket_weights=w16,
                          max_seqlen={"t": int(lengths.max())})
        call(); torch.cuda.synchronize()
        ms = triton.testing.do_bench(call, warmup=25, rep=150, return_mode="median")
        rows.append(dict(variant=variant, nbits=nbits, Nd=nd, Ld=ld, ms=ms))
        print(rows[-1], flush=True)
with open(os.path.join(os.environ.get("OUT", "."), f"formation_{variant}.json"), "w") as f:
    json.dump(rows, f, indent=1)

"""The lean forward on stored int8 / fp8 rows at fixed blocks: one query, d = 128,
do_bench medians of hsr.ops.maxsim (host included). Blocks forced by patching
dispatch's lean block tables (every row count takes the given blocks)."""
import json, os, sys, itertools
import torch, triton
import hsr, hsr.kept
from hsr import dispatch
from hsr.ops import maxsim, quantize_int8, quantize_fp8

out = sys.argv[1]
SHAPES = [(32, 300, 1000), (32, 300, 10000), (1024, 1024, 1000)]
CONFIGS = [None, (32, 128, 4, 3), (64, 64, 4, 3), (64, 128, 4, 3), (128, 128, 8, 3), (32, 256, 4, 3)]
rows = []
g = torch.Generator(device="cuda").manual_seed(0)
for lq, ld, nd in SHAPES:
    Q = torch.nn.functional.normalize(torch.randn(lq, 128, device="cuda", generator=g), dim=-1).half()
    D = torch.nn.functional.normalize(torch.randn(nd, ld, 128, device="cuda", generator=g), dim=-1).half()
    stored = {"fp16": D, "int8": quantize_int8(D), "fp8": quantize_fp8(D)}
    for kind, cfg in itertools.product(stored, CONFIGS):
        saved = (dispatch.LEAN_BLOCKS, dispatch.LEAN_SMALL_BLOCKS, dispatch.LEAN_TINY_BLOCKS)
        if cfg is not None:
            dispatch.LEAN_BLOCKS = dispatch.LEAN_SMALL_BLOCKS = dispatch.LEAN_TINY_BLOCKS = cfg
        hsr.kept.forget()
        try:
            maxsim(Q, stored[kind]); torch.cuda.synchronize()
            ms = triton.testing.do_bench(lambda: maxsim(Q, stored[kind]), warmup=25, rep=100, return_mode="median")
            err = None
        except Exception as e:  # noqa: BLE001
            ms, err = None, f"{type(e).__name__}: {str(e)[:200]}"
        dispatch.LEAN_BLOCKS, dispatch.LEAN_SMALL_BLOCKS, dispatch.LEAN_TINY_BLOCKS = saved
        rows.append(dict(shape=[lq, ld, nd], kind=kind, cfg=cfg, ms=ms, err=err))
        print(rows[-1], flush=True)
json.dump(rows, open(os.path.join(out, "lean_quant_probe.json"), "w"), indent=1)

"""The lean forward's blocks for stored int8 / fp8 rows: each config forced (dispatch's three
lean block tables patched) at a tuning set of shapes, and the rule's pick checked at held-out
shapes. One query (or a few), do_bench medians of hsr.ops.maxsim; one JSON line a timing."""
import json, sys
import torch, triton
import hsr.kept
from hsr import dispatch
from hsr.ops import maxsim, quantize_int8, quantize_fp8

TUNE = [(1, 32, 300, 1000, 128), (1, 32, 300, 10000, 128), (1, 1024, 1024, 1000, 128), (1, 128, 1024, 1000, 128),
        (1, 256, 2048, 300, 128), (1, 96, 300, 2000, 128)]
HELD = [(1, 512, 1024, 1000, 128), (1, 64, 180, 5000, 128), (1, 32, 512, 20000, 128), (1, 32, 300, 10000, 64),
        (2, 32, 300, 4000, 128), (1, 200, 800, 1500, 128), (1, 768, 512, 800, 128), (4, 48, 256, 3000, 128)]
CONFIGS = [None, (32, 64, 2, 3), (64, 64, 4, 3), (64, 128, 4, 3), (128, 64, 8, 3)]
which = sys.argv[1]
g = torch.Generator(device="cuda").manual_seed(0)
for nq, lq, ld, nd, d in (TUNE if which == "tune" else HELD):
    Q = torch.nn.functional.normalize(torch.randn(nq, lq, d, device="cuda", generator=g), dim=-1).half()
    D = torch.nn.functional.normalize(torch.randn(nd, ld, d, device="cuda", generator=g), dim=-1).half()
    for kind, corpus in (("fp16", D), ("int8", quantize_int8(D)), ("fp8", quantize_fp8(D))):
        for cfg in (CONFIGS if which == "tune" and kind != "fp16" else [None]):
            if cfg and lq <= 32 < cfg[0] or cfg and lq > 64 and cfg[0] < 64:
                continue
            saved = (dispatch.LEAN_BLOCKS, dispatch.LEAN_SMALL_BLOCKS, dispatch.LEAN_TINY_BLOCKS, dispatch.LEAN_BYTE_BLOCKS)
            if cfg:
                dispatch.LEAN_BLOCKS = dispatch.LEAN_SMALL_BLOCKS = dispatch.LEAN_TINY_BLOCKS = dispatch.LEAN_BYTE_BLOCKS = cfg
            hsr.kept.forget()
            ms = triton.testing.do_bench(lambda: maxsim(Q, corpus), warmup=20, rep=60, return_mode="median")
            (dispatch.LEAN_BLOCKS, dispatch.LEAN_SMALL_BLOCKS, dispatch.LEAN_TINY_BLOCKS, dispatch.LEAN_BYTE_BLOCKS) = saved
            print(json.dumps(dict(shape=[nq, lq, ld, nd, d], kind=kind, cfg=cfg, ms=ms)), flush=True)

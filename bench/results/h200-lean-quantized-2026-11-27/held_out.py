"""Stored int8 / fp8 against fp16 at shapes the lean blocks were not chosen on: one query
(or a few), d = 64 and 128, do_bench medians of hsr.ops.maxsim (host included), one line of
JSON a shape. Run once per package tree (this one, .base/pkg) in one device call."""
import json, sys
import torch, triton
from hsr.ops import maxsim, quantize_int8, quantize_fp8

SHAPES = [(1, 128, 1024, 1000, 128), (1, 512, 1024, 1000, 128), (1, 64, 180, 5000, 128), (1, 32, 512, 20000, 128),
          (1, 32, 300, 10000, 64), (1, 96, 300, 2000, 128), (2, 32, 300, 4000, 128), (1, 256, 2048, 300, 128)]
g = torch.Generator(device="cuda").manual_seed(0)
for nq, lq, ld, nd, d in SHAPES:
    Q = torch.nn.functional.normalize(torch.randn(nq, lq, d, device="cuda", generator=g), dim=-1).half()
    D = torch.nn.functional.normalize(torch.randn(nd, ld, d, device="cuda", generator=g), dim=-1).half()
    row = dict(shape=[nq, lq, ld, nd, d])
    ref = maxsim(Q, D).float()
    for kind, corpus in (("fp16", D), ("int8", quantize_int8(D)), ("fp8", quantize_fp8(D))):
        got = maxsim(Q, corpus)
        row[kind + "_rel_err"] = float((got - ref).abs().max() / ref.abs().mean())
        row[kind] = triton.testing.do_bench(lambda: maxsim(Q, corpus), warmup=25, rep=100, return_mode="median")
    print(json.dumps(row), flush=True)

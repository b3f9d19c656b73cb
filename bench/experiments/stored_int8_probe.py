"""Probe: a stored int8 corpus's call against fp16, and a packed batch with persistent programs on and off.

`maxsim(q, quantize_int8(d))` (only q quantized per call) against `maxsim(q, d)` in fp16 at one query
of 32 x 128 against 1000 and 10000 documents of 300 and 1024 x 1024 against 1000; the generated
`maxsim_int8` module on pre-quantized q, predicted and then tuned in the call (HSR_AUTOTUNE=1); and
`maxsim_varlen` of 64 queries of 32 against 10000 packed documents of 150 to 300 tokens with
HSR_PERSIST=1 and 0. do_bench medians of the public calls, ms, printed.

    python3 bench/experiments/stored_int8_probe.py
"""

import os

import torch
import triton

import hsr.ops
from hsr import generated, kept
from hsr.ops import quantize_int8


def bench(f):
    return triton.testing.do_bench(f, warmup=25, rep=150)


def main():
    torch.manual_seed(0)
    nq, nd, lq = 64, 10000, 32
    lens = torch.randint(150, 301, (nd,))
    cu_d = torch.cat([torch.zeros(1, dtype=torch.long), lens.cumsum(0)]).cuda()
    D = torch.nn.functional.normalize(torch.randn(int(lens.sum()), 128, device="cuda"), dim=-1).half()
    Q = torch.nn.functional.normalize(torch.randn(nq * lq, 128, device="cuda"), dim=-1).half()
    cu_q = torch.arange(0, nq * lq + 1, lq, device="cuda")
    for p in ("1", "0"):
        os.environ["HSR_PERSIST"] = p
        kept.forget(launches=True)
        print("varlen 64x10000 packed 150-300 persist", p, bench(lambda: hsr.ops.maxsim_varlen(Q, D, cu_q, cu_d, lq, 300)))
    os.environ.pop("HSR_PERSIST")
    del D
    m = generated.maxsim_int8
    for lq, ld, nd in ((32, 300, 1000), (32, 300, 10000), (1024, 1024, 1000)):
        q = torch.randn(lq, 128, device="cuda").half()
        d = torch.randn(nd, ld, 128, device="cuda").half()
        st, q8 = quantize_int8(d), quantize_int8(q)
        print(lq, ld, nd, "fp16 %.4f" % bench(lambda: hsr.ops.maxsim(q, d)),
              "int8 stored %.4f" % bench(lambda: hsr.ops.maxsim(q, st)), "quantize q %.4f" % bench(lambda: quantize_int8(q)))
        print("   int8 spec on quantized q", bench(lambda: m.apply(q8[0][None], st[0], q8[1][None], st[1])))
        os.environ["HSR_AUTOTUNE"] = "1"
        kept.forget(launches=True)
        m.apply(q8[0][None], st[0], q8[1][None], st[1])
        print("   tuned", bench(lambda: m.apply(q8[0][None], st[0], q8[1][None], st[1])))
        os.environ.pop("HSR_AUTOTUNE")
        del d, st


if __name__ == "__main__":
    main()

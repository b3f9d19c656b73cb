"""Where a stored int8 / fp8 call's time goes at mid-size shapes: do_bench of the public call
(the query quantized in it) against the generated op on a query quantized beforehand, and the
host's time a call (200 calls queued, GPU work included where it is longer), 3 repeats each."""
import json, time
import torch, triton
from hsr import generated
from hsr.ops import maxsim, quantize_int8, quantize_fp8

SHAPES = [(1, 128, 1024, 1000), (1, 96, 300, 2000), (1, 768, 512, 800), (1, 256, 2048, 300), (4, 48, 256, 3000)]
g = torch.Generator(device="cuda").manual_seed(0)
for shape in SHAPES:
    nq, lq, ld, nd = shape
    Q = torch.nn.functional.normalize(torch.randn(nq, lq, 128, device="cuda", generator=g), dim=-1).half()
    D = torch.nn.functional.normalize(torch.randn(nd, ld, 128, device="cuda", generator=g), dim=-1).half()
    row = dict(shape=shape)
    for kind, quant, mod in (("fp16", None, None), ("int8", quantize_int8, generated.maxsim_int8),
                             ("fp8", quantize_fp8, generated.maxsim_fp8)):
        corpus = D if quant is None else quant(D)
        calls = {"public": lambda: maxsim(Q, corpus)}
        if quant is not None:
            q8, qs = quant(Q)
            calls["op"] = lambda: mod.apply(q8, corpus[0], qs, corpus[1])
        for name, call in calls.items():
            call(); torch.cuda.synchronize()
            bench = [triton.testing.do_bench(call, warmup=20, rep=60, return_mode="median") for _ in range(3)]
            host = []
            for _ in range(3):
                torch.cuda.synchronize(); t0 = time.perf_counter()
                for _ in range(200):
                    call()
                t1 = time.perf_counter(); torch.cuda.synchronize()
                host.append((t1 - t0) / 200 * 1e3)
            row[f"{kind}_{name}"] = dict(bench=[round(x, 4) for x in bench], host=[round(x, 4) for x in host])
    print(json.dumps(row), flush=True)

"""cProfile of the host path: 300 calls of the int8 op (query quantized beforehand) and of
fp16 maxsim at one query of 128 tokens against 1000 documents of 1024 (TMA loads)."""
import cProfile, pstats, io
import torch
from hsr import generated
from hsr.ops import maxsim, quantize_int8

Q = torch.nn.functional.normalize(torch.randn(1, 128, 128, device="cuda"), dim=-1).half()
D = torch.nn.functional.normalize(torch.randn(1000, 1024, 128, device="cuda"), dim=-1).half()
q8, qs = quantize_int8(Q)
d8, ds = quantize_int8(D)
for name, call in (("int8_op", lambda: generated.maxsim_int8.apply(q8, d8, qs, ds)), ("fp16", lambda: maxsim(Q, D))):
    for _ in range(20):
        call()
    torch.cuda.synchronize()
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(300):
        call()
    pr.disable()
    torch.cuda.synchronize()
    s = io.StringIO()
    pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(14)
    print("=====", name, "\n", s.getvalue()[:3500], flush=True)

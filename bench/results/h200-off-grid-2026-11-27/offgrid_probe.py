"""Probe: narrow-96 lean vs general; batched 64 x 10000 predicted vs tuned (H200)."""
import json, os, sys, torch, triton.testing
from hsr import dispatch, kept, tune
from hsr.ops import maxsim
import late_interaction_kernels as lik
out = {}
def t(fn):
    kept.forget(launches=True); fn(); return round(triton.testing.do_bench(fn, warmup=25, rep=200), 4)
torch.manual_seed(0)
Q = torch.nn.functional.normalize(torch.randn(1, 128, 96, device="cuda"), dim=-1).half()
D = torch.nn.functional.normalize(torch.randn(1000, 1024, 96, device="cuda"), dim=-1).half()
with torch.no_grad():
    out["n96_default"] = t(lambda: maxsim(Q, D))
    real = dispatch.lean_call_blockers
    dispatch.lean_call_blockers = lambda rows, cols, d, *a, **k: [w for w in real(rows, cols, d, *a, **k) if "contraction" not in w]
    out["n96_lean"] = t(lambda: maxsim(Q, D))
    ref = maxsim(Q, D)
    dispatch.lean_call_blockers = real
    out["n96_err"] = (ref - maxsim(Q, D)).abs().max().item()
    out["n96_lik"] = t(lambda: lik.maxsim(Q, D))
    Q = torch.nn.functional.normalize(torch.randn(64, 32, 128, device="cuda"), dim=-1).half()
    D = torch.nn.functional.normalize(torch.randn(10000, 300, 128, device="cuda"), dim=-1).half()
    lens = torch.randint(150, 301, (10000,), device="cuda")
    dm = torch.arange(300, device="cuda")[None] < lens[:, None]
    out["b64_default"] = t(lambda: maxsim(Q, D, d_mask=dm))
    tune.tune("ops/maxsim.hsr", {"i": 64, "s": 32, "j": 10000, "t": 300, "d": 128}, "float16")
    out["b64_tuned"] = t(lambda: maxsim(Q, D, d_mask=dm))
print(json.dumps(out))
json.dump(out, open(os.path.join(sys.argv[1], "probe.json"), "w"))

"""Where a fresh process's first bundled call goes: import time, then a cProfile
(cumulative) of the first hsr.ops.maxsim call at the tiny shape. Run it twice in a
row: the second run has warm caches (Triton's and hsr's)."""

import cProfile
import pstats
import time

t0 = time.perf_counter()
import torch  # noqa: E402

t1 = time.perf_counter()
import hsr.ops  # noqa: E402

t2 = time.perf_counter()
q = torch.randn(32, 128, device="cuda").half()
d = torch.randn(4, 32, 128, device="cuda").half()
torch.cuda.synchronize()
t3 = time.perf_counter()
prof = cProfile.Profile()
prof.enable()
hsr.ops.maxsim(q, d)
torch.cuda.synchronize()
prof.disable()
t4 = time.perf_counter()
print(f"import torch {t1 - t0:.2f} s, import hsr.ops {t2 - t1:.2f} s, inputs {t3 - t2:.2f} s, first call {t4 - t3:.2f} s")
pstats.Stats(prof).sort_stats("cumulative").print_stats(30)

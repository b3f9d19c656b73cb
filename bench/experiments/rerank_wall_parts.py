"""Where the rerank call's wall time goes (GPU only): host time of 300 calls
back to back (before the synchronise), the wall time, and the kernels' time
(torch.profiler), for MaxSim of one query against Nd padded documents of 300
tokens, with and without the documents' mask, a 2-D or 3-D query.

    python3 bench/experiments/rerank_wall_parts.py
"""

import statistics
import time

import torch
from torch.profiler import ProfilerActivity, profile

from hsr.ops import maxsim

g = torch.Generator(device="cuda").manual_seed(0)
for nd in (100, 1000):
    D = torch.randn(nd, 300, 128, device="cuda", generator=g).half()
    q = torch.randn(32, 128, device="cuda", generator=g).half()
    lens = torch.randint(40, 301, (nd,), generator=torch.Generator().manual_seed(nd))
    mask = (torch.arange(300)[None] < lens[:, None]).cuda()
    cases = {
        "2-D q, mask": lambda: maxsim(q, D, d_mask=mask),
        "2-D q, no mask": lambda: maxsim(q, D),
        "3-D q, mask": lambda: maxsim(q[None], D, d_mask=mask),
    }
    with torch.no_grad():
        for name, fn in cases.items():
            for _ in range(20):
                fn()
            torch.cuda.synchronize()
            hosts, walls = [], []
            for _ in range(5):
                t0 = time.perf_counter()
                for _ in range(300):
                    fn()
                t1 = time.perf_counter()
                torch.cuda.synchronize()
                t2 = time.perf_counter()
                hosts.append((t1 - t0) / 300 * 1e6)
                walls.append((t2 - t0) / 300 * 1e6)
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(50):
                    fn()
                torch.cuda.synchronize()
            kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
            names = sorted({e.name[:40] for e in kernels})
            print(f"Nd {nd}, {name}: host {statistics.median(hosts):.1f} us, wall {statistics.median(walls):.1f} us, "
                  f"GPU {sum(e.device_time for e in kernels) / 50:.1f} us in {len(kernels) / 50:g} ops {names}")

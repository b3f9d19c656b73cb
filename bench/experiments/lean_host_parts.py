"""Host time of the lean MaxSim call's parts (session 19: the medium shape's call
went from 118 to 190 us of host time between the v5 commit and now)."""
import time

import torch
import triton
from triton.tools.tensor_descriptor import TensorDescriptor

import hsr.ops
from hsr import dispatch, launcher, runtime
import hsr.generated.maxsim as g

Q = torch.randn(1, 128, 128, device="cuda").half()
D = torch.randn(1000, 1024, 128, device="cuda").half()


def per_call(f, n=500):
    f()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        f()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) / n * 1e6


blocks = dispatch.lean_blocks(Q, D, 128, 1024)
a_rows, b_rows = blocks[5], blocks[6]
out = torch.empty(1, 1000, device="cuda")
t, sizes = runtime.bind(g.OUTPUT, g.SIGNATURE, (Q, D), {})
print(f"whole call              {per_call(lambda: hsr.ops.maxsim(Q, D)):7.1f} us")
print(f"_score_forward          {per_call(lambda: g._score_forward(t, sizes, False)):7.1f} us")
print(f"_score_forward_lean     {per_call(lambda: g._score_forward_lean(t, sizes, out, None, None, None, blocks, None, None)):7.1f} us")
print(f"runtime.bind            {per_call(lambda: runtime.bind(g.OUTPUT, g.SIGNATURE, (Q, D), {})):7.1f} us")
print(f"dispatch.lean_blocks    {per_call(lambda: dispatch.lean_blocks(Q, D, 128, 1024)):7.1f} us")
print(f"two descriptors         {per_call(lambda: (TensorDescriptor.from_tensor(a_rows, [128, 128]), TensorDescriptor.from_tensor(b_rows, [64, 128]))):7.1f} us")
ad, bd = TensorDescriptor.from_tensor(a_rows, [128, 128]), TensorDescriptor.from_tensor(b_rows, [64, 128])
args = (a_rows, b_rows, ad, bd, out, out, out, out, 1, 1000, 128, 1024, a_rows.stride(0), b_rows.stride(0), 1.0, 0, 0, 0, 0)
kw = dict(HAS_qmask=False, HAS_dmask=False, BLOCK_S=128, BLOCK_T=64, BLOCK_D=128, LOAD=1, DOT_FP32=False,
          NEED_IDX=False, num_warps=8, num_stages=3)
print(f"kernel[grid] direct     {per_call(lambda: g.score_fwd_lean[(1000,)](*args, **kw)):7.1f} us")
print(f"launcher.launch         {per_call(lambda: launcher.launch(g.score_fwd_lean, (1000,), *args, **kw)):7.1f} us")
print(f"torch.sum into out      {per_call(lambda: torch.empty(1000, 8, device='cuda').sum(1)):7.1f} us")

"""Host time of the Chamfer 10K step on the GPU machine: forward and backward apart, then cProfile (GPU only)."""
import cProfile, pstats, time, torch
from hsr.ops import chamfer_distance
n = 10000
g = torch.Generator(device="cuda").manual_seed(0)
x = torch.randn(1, n, 3, device="cuda", generator=g).requires_grad_()
y = torch.randn(1, n, 3, device="cuda", generator=g).requires_grad_()
def fwd():
    return chamfer_distance(x, y)
for _ in range(20):
    x.grad = y.grad = None; fwd().backward()
torch.cuda.synchronize()
for rnd in range(3):
    fw = bw = 0.0
    for _ in range(10):
        x.grad = y.grad = None
        t0 = time.perf_counter(); loss = fwd(); t1 = time.perf_counter(); loss.backward(); t2 = time.perf_counter()
        fw += t1 - t0; bw += t2 - t1
    torch.cuda.synchronize()
    print(f"host forward {fw / 10 * 1e6:.0f} us, backward {bw / 10 * 1e6:.0f} us a step")
    time.sleep(0.01)
pr = cProfile.Profile()
pr.enable()
for _ in range(10):
    x.grad = y.grad = None; fwd().backward()
pr.disable()
torch.cuda.synchronize()
pstats.Stats(pr).sort_stats("tottime").print_stats(35)

"""Where the indexed both-ways pass meets its illegal memory access on CUDA: the
fused forward with indices (no backward), then the step, each size in its own
process (an illegal access ends the CUDA context), checked against the two calls.

    python3 bench/experiments/both_ways_index_ima.py            # every size and part
    python3 bench/experiments/both_ways_index_ima.py N PART     # one (PART: fwd or step)
"""

import os
import subprocess
import sys


def one(n: int, part: str) -> None:
    import torch

    from hsr import kept
    from hsr.generated import chamfer_point

    g = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(1, n, 3, device="cuda", generator=g)
    y = torch.randn(1, n + 7, 3, device="cuda", generator=g)
    os.environ["HSR_BOTH_WAYS_INDEX"] = "0"
    kept.forget()
    if part == "fwd":
        # the module's own fused forward with indices, as BothFunction calls it
        from hsr import runtime
        tb, sizes = runtime.bind(chamfer_point.OUTPUT, chamfer_point.SIGNATURE, (x, y), {}, runtime.CALL_FLOAT_DTYPES)
        tb_sw, sizes_sw = runtime.bind(chamfer_point.OUTPUT, chamfer_point.SIGNATURE, (y, x), {}, runtime.CALL_FLOAT_DTYPES)
        fwd = next(v for k, v in vars(chamfer_point).items() if k.endswith("_forward_both"))
        out, saved, out_sw, saved_sw = fwd(tb, tb_sw, sizes, sizes_sw, True)
        torch.cuda.synchronize()
        want = chamfer_point.apply(x, y), chamfer_point.apply(y, x)
        print(f"n {n} fwd: ok, max |diff| {(out - want[0]).abs().max().item():.3g} "
              f"{(out_sw - want[1]).abs().max().item():.3g}", flush=True)
        return
    x.requires_grad_(), y.requires_grad_()
    a, b = chamfer_point.apply(x, y), chamfer_point.apply(y, x)
    (a.sum() + 2 * b.sum()).backward()
    want = x.grad.clone(), y.grad.clone()
    x.grad = y.grad = None
    os.environ["HSR_BOTH_WAYS_INDEX"] = "1"
    kept.forget()
    a, b = chamfer_point.both_ways(x, y, backward="atomic")
    torch.cuda.synchronize()
    print(f"n {n} step: forward ok", flush=True)
    (a.sum() + 2 * b.sum()).backward()
    torch.cuda.synchronize()
    print(f"n {n} step: ok, grad diffs {(x.grad - want[0]).abs().max().item():.3g} "
          f"{(y.grad - want[1]).abs().max().item():.3g}", flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 2:
        one(int(sys.argv[1]), sys.argv[2])
    else:
        for part in ("fwd", "step"):
            for n in (100, 1000, 3000, 10000, 30000):
                r = subprocess.run([sys.executable, __file__, str(n), part], capture_output=True, text=True,
                                   env=dict(os.environ, CUDA_LAUNCH_BLOCKING="1"))
                tail = (r.stdout + r.stderr).strip().splitlines()
                print(f"== n {n} {part}: rc {r.returncode}", *tail[-4:], sep="\n  ", flush=True)

"""The lean forward at 32 query rows with 32-row chunks (GPU only).

Session 12 timed the lean forward at 32 rows with 64-row chunks only (half of
each A tile wasted) and found it slower than the general loop; a standalone
one-program-a-document kernel of 32 rows (textual_flat.py) ran 31.7 us against
the general loop's 36.2. Here hsr.ops.maxsim itself, Nq = 1, B = 1000, fp16, with
dispatch.LEAN_MIN_ROWS = 32 and dispatch.LEAN_SMALL_BLOCKS set to each candidate,
LOAD as dispatch picks it (TMA) and forced to pointers, against the general loop,
in one process; do_bench median (L2 flushed), microseconds.

    python3 bench/experiments/lean_rows32.py
"""

import torch
import triton

from hsr import dispatch, kept
from hsr.ops import maxsim

SHAPES = {"textual": (32, 300, 128), "long-doc": (32, 1024, 128), "textual d64": (32, 300, 64),
          "16 x 300": (16, 300, 128), "64 x 300": (64, 300, 128)}
CANDIDATES = [(32, 64, 4, 2), (32, 64, 4, 3), (32, 64, 4, 4), (32, 128, 4, 2), (32, 128, 4, 3), (32, 64, 2, 3),
              (32, 32, 4, 4), (32, 128, 8, 3), (64, 64, 4, 3)]
lean_blocks = dispatch.lean_blocks


def pointers(*args):
    blocks = lean_blocks(*args)
    return None if blocks is None else (*blocks[:4], 0, *blocks[5:])


def main():
    print(torch.cuda.get_device_name(), torch.__version__, triton.__version__, flush=True)
    g = torch.Generator(device="cuda").manual_seed(0)
    for name, (lq, ld, d) in SHAPES.items():
        q = torch.randn(1, lq, d, device="cuda", generator=g).half()
        docs = torch.randn(1000, ld, d, device="cuda", generator=g).half()
        want = (q[0].float() @ docs.float().transpose(1, 2)).max(-1).values.sum(-1)
        dispatch.LEAN_MIN_ROWS = 10 ** 6
        kept.forget()
        maxsim(q, docs)
        maxsim(q, docs)
        general = triton.testing.do_bench(lambda: maxsim(q, docs), rep=200)
        print(f"== {name}: general loop {general * 1e3:.1f} us", flush=True)
        dispatch.LEAN_MIN_ROWS = 16
        for cand in CANDIDATES:
            for load in ("tma", "pointers"):
                dispatch.LEAN_SMALL_BLOCKS = cand
                dispatch.lean_blocks = lean_blocks if load == "tma" else pointers
                kept.forget()
                try:
                    got = maxsim(q, docs)
                    err = (got[0] - want).abs().max().item()
                    t = triton.testing.do_bench(lambda: maxsim(q, docs), rep=200)
                    print(f"{name} lean {cand} {load}: {t * 1e3:.1f} us ({general / t:.2f}x) err {err:.1e}",
                          flush=True)
                except Exception as e:  # noqa: BLE001
                    print(f"{name} lean {cand} {load}: {type(e).__name__} {str(e)[:200]}", flush=True)
        dispatch.lean_blocks = lean_blocks


if __name__ == "__main__":
    main()

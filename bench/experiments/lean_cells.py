"""Where short rows (32 query tokens) should run the lean forward: the general loop
stacks the row sets that share a column set (queries sharing a document), the lean
one does not (GPU only).

Each case is timed with dispatch.LEAN_FEW_CELLS at 10**9 (short rows always lean)
and at 0 (short rows never lean), in one process; do_bench medians (L2 flushed),
microseconds. Cases, fp16, d = 128, 32 query tokens, 300 document tokens:
  - maxsim forward, Nq queries against B documents (Nq = 1 .. 64 against 1000, in-batch 128 and 512);
  - maxsim training step (forward with the index, backward), Nq = 1, 4, 16 against 1000 and in-batch 128;
  - packed: the rerank forward (1 query, 1000 documents of 40 to 300 tokens, maxsim_varlen), the packed
    pairs forward (maxsim_pairs, N = 128 and 512), the in-batch packed forward and step (B = 128).

    python3 bench/experiments/lean_cells.py
"""

import torch
import triton

from hsr import dispatch, kept
from hsr.ops import maxsim, maxsim_pairs, maxsim_varlen

g = torch.Generator(device="cuda").manual_seed(0)
cpu = torch.Generator().manual_seed(0)


def rnd(*shape):
    return torch.randn(*shape, device="cuda", generator=g).half()


def packed(lengths):
    cu = torch.zeros(len(lengths) + 1, dtype=torch.int32)
    cu[1:] = torch.tensor(lengths).cumsum(0)
    return rnd(int(cu[-1]), 128), cu.cuda()


def timed(name, fn, leaves=()):
    def call():
        out = fn()
        if leaves:
            out.sum().backward()
            for x in leaves:
                x.grad = None
    times = {}
    for mode, few in (("lean", 10 ** 9), ("general", 0)):
        dispatch.LEAN_FEW_CELLS = few
        kept.forget()
        call()
        call()
        times[mode] = triton.testing.do_bench(call, rep=200) * 1e3
    print(f"{name}: lean {times['lean']:.1f} us, general {times['general']:.1f} us "
          f"(lean {times['general'] / times['lean']:.2f}x)", flush=True)


def main():
    print(torch.cuda.get_device_name(), torch.__version__, triton.__version__, flush=True)
    docs = rnd(1000, 300, 128)
    for nq in (1, 2, 4, 8, 16, 32, 64):
        q = rnd(nq, 32, 128)
        timed(f"forward Nq={nq} B=1000", lambda: maxsim(q, docs))
    for b in (128, 512):
        q, d = rnd(b, 32, 128), rnd(b, 300, 128)
        timed(f"forward in-batch B={b}", lambda: maxsim(q, d))
    for nq in (1, 4, 16):
        q = rnd(nq, 32, 128).requires_grad_()
        d = docs.clone().requires_grad_()
        timed(f"step Nq={nq} B=1000", lambda: maxsim(q, d), (q, d))
    q, d = rnd(128, 32, 128).requires_grad_(), rnd(128, 300, 128).requires_grad_()
    timed("step in-batch B=128", lambda: maxsim(q, d), (q, d))

    lr = torch.randint(40, 301, (1000,), generator=cpu).tolist()
    rq, crq = packed([32])
    rd, crd = packed(lr)
    timed("packed rerank 1 x 1000", lambda: maxsim_varlen(rq, rd, crq, crd, 32, 300))
    for n in (128, 512):
        lq = torch.randint(1, 33, (n,), generator=cpu).tolist()
        ld = torch.randint(1, 301, (n,), generator=cpu).tolist()
        pq, cq = packed(lq)
        pd, cd = packed(ld)
        timed(f"packed pairs N={n}", lambda: maxsim_pairs(pq, pd, cq, cd, 32, 300))
    lq = torch.randint(1, 33, (128,), generator=cpu).tolist()
    ld = torch.randint(1, 301, (128,), generator=cpu).tolist()
    pq, cq = packed(lq)
    pd, cd = packed(ld)
    timed("packed in-batch forward B=128", lambda: maxsim_varlen(pq, pd, cq, cd, 32, 300))
    pq.requires_grad_(), pd.requires_grad_()
    timed("packed in-batch step B=128", lambda: maxsim_varlen(pq, pd, cq, cd, 32, 300), (pq, pd))


if __name__ == "__main__":
    main()

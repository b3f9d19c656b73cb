"""Can one query against many short documents (textual: Nq = 1, B = 1000, 32 x 300,
d = 128, fp16; the packed rerank: 1000 documents of 40 to 300 tokens) run nearer its
HBM floor than one program a document? (GPU only)

Standalone kernels, every time a do_bench median (L2 flushed between calls):
  - read: each program reads its documents' tiles and keeps their elementwise max
    (no dot): the memory system's floor for this layout;
  - doc: one program a document (hsr's general loop, flash-maxsim's kernel);
  - flat: a persistent grid; each program owns a run of whole documents and walks
    their tiles as one flat loop (document = tile // tiles a document), so the
    pipeline's loads run on across document boundaries; a document's sum is stored
    when its last tile is done (a masked store, no branch);
  - nested: the same grid, a loop over documents around the tile loop.
Compared with hsr.ops.maxsim (and maxsim_varlen for the packed case) in the same run.

    python3 bench/experiments/textual_flat.py
"""

import torch
import triton
import triton.language as tl

import hsr.ops


@triton.jit
def doc_kernel(Q, D, out, Ld, LQ: tl.constexpr, K: tl.constexpr, BT: tl.constexpr, READ: tl.constexpr):
    doc = tl.program_id(0)
    offs_s = tl.arange(0, LQ)
    offs_k = tl.arange(0, K)
    offs_t = tl.arange(0, BT)
    q = tl.load(Q + offs_s[:, None] * K + offs_k[None, :])
    best = tl.full([LQ, BT], float("-inf"), tl.float32)
    rbest = tl.full([BT, K], float("-inf"), tl.float32)
    for t0 in range(0, Ld, BT):
        rows = t0 + offs_t
        d = tl.load(D + (doc * Ld + rows).to(tl.int64)[:, None] * K + offs_k[None, :], mask=(rows < Ld)[:, None],
                    other=0.0)
        if READ:
            rbest = tl.maximum(rbest, d.to(tl.float32))
        else:
            s = tl.dot(q, tl.trans(d))
            s = tl.where((rows < Ld)[None, :], s, float("-inf"))
            best = tl.maximum(best, s)
    if READ:
        tl.store(out + doc, tl.sum(tl.max(rbest, 1), 0))
    else:
        tl.store(out + doc, tl.sum(tl.max(best, 1), 0))


@triton.jit
def flat_kernel(Q, D, out, Ld, n_docs, docs_per_prog, TILES: tl.constexpr, LQ: tl.constexpr, K: tl.constexpr,
                BT: tl.constexpr, READ: tl.constexpr):
    pid = tl.program_id(0)
    doc0 = pid * docs_per_prog
    doc1 = tl.minimum(doc0 + docs_per_prog, n_docs)
    offs_s = tl.arange(0, LQ)
    offs_k = tl.arange(0, K)
    offs_t = tl.arange(0, BT)
    q = tl.load(Q + offs_s[:, None] * K + offs_k[None, :])
    best = tl.full([LQ, BT], float("-inf"), tl.float32)
    rbest = tl.full([BT, K], float("-inf"), tl.float32)
    for it in range(doc0 * TILES, doc1 * TILES):
        doc = it // TILES
        tile = it - doc * TILES
        rows = tile * BT + offs_t
        d = tl.load(D + (doc * Ld + rows).to(tl.int64)[:, None] * K + offs_k[None, :], mask=(rows < Ld)[:, None],
                    other=0.0)
        if READ:
            rbest = tl.where(tile == 0, d.to(tl.float32), tl.maximum(rbest, d.to(tl.float32)))
            total = tl.sum(tl.max(rbest, 1), 0)
        else:
            s = tl.dot(q, tl.trans(d))
            s = tl.where((rows < Ld)[None, :], s, float("-inf"))
            best = tl.where(tile == 0, s, tl.maximum(best, s))
            total = tl.sum(tl.max(best, 1), 0)
        tl.store(out + doc, total, mask=tile == TILES - 1)


@triton.jit
def flat_branch_kernel(Q, D, out, Ld, n_docs, docs_per_prog, TILES: tl.constexpr, LQ: tl.constexpr,
                       K: tl.constexpr, BT: tl.constexpr):
    """flat, the sum taken in a branch at a document's last tile only."""
    pid = tl.program_id(0)
    doc0 = pid * docs_per_prog
    doc1 = tl.minimum(doc0 + docs_per_prog, n_docs)
    offs_s = tl.arange(0, LQ)
    offs_k = tl.arange(0, K)
    offs_t = tl.arange(0, BT)
    q = tl.load(Q + offs_s[:, None] * K + offs_k[None, :])
    best = tl.full([LQ, BT], float("-inf"), tl.float32)
    for it in range(doc0 * TILES, doc1 * TILES):
        doc = it // TILES
        tile = it - doc * TILES
        rows = tile * BT + offs_t
        d = tl.load(D + (doc * Ld + rows).to(tl.int64)[:, None] * K + offs_k[None, :], mask=(rows < Ld)[:, None],
                    other=0.0)
        s = tl.dot(q, tl.trans(d))
        s = tl.where((rows < Ld)[None, :], s, float("-inf"))
        best = tl.where(tile == 0, s, tl.maximum(best, s))
        if tile == TILES - 1:
            tl.store(out + doc, tl.sum(tl.max(best, 1), 0))


@triton.jit
def nested_kernel(Q, D, out, Ld, n_docs, docs_per_prog, LQ: tl.constexpr, K: tl.constexpr, BT: tl.constexpr):
    pid = tl.program_id(0)
    doc0 = pid * docs_per_prog
    doc1 = tl.minimum(doc0 + docs_per_prog, n_docs)
    offs_s = tl.arange(0, LQ)
    offs_k = tl.arange(0, K)
    offs_t = tl.arange(0, BT)
    q = tl.load(Q + offs_s[:, None] * K + offs_k[None, :])
    for doc in range(doc0, doc1):
        best = tl.full([LQ, BT], float("-inf"), tl.float32)
        for t0 in range(0, Ld, BT):
            rows = t0 + offs_t
            d = tl.load(D + (doc * Ld + rows).to(tl.int64)[:, None] * K + offs_k[None, :],
                        mask=(rows < Ld)[:, None], other=0.0)
            s = tl.dot(q, tl.trans(d))
            s = tl.where((rows < Ld)[None, :], s, float("-inf"))
            best = tl.maximum(best, s)
        tl.store(out + doc, tl.sum(tl.max(best, 1), 0))


@triton.jit
def packed_flat_kernel(Q, D, out, cu, tile_doc, tile_row, n_tiles, tiles_per_prog, LQ: tl.constexpr,
                       K: tl.constexpr, BT: tl.constexpr):
    """Packed documents: a flat list of (document, first row) tiles, built on the host
    here; each program a run of tiles that starts on a document's first tile. A
    document's sum is stored at its last tile."""
    pid = tl.program_id(0)
    t_begin = pid * tiles_per_prog
    t_end = tl.minimum(t_begin + tiles_per_prog, n_tiles)
    offs_s = tl.arange(0, LQ)
    offs_k = tl.arange(0, K)
    offs_t = tl.arange(0, BT)
    q = tl.load(Q + offs_s[:, None] * K + offs_k[None, :])
    best = tl.full([LQ, BT], float("-inf"), tl.float32)
    for it in range(t_begin, t_end):
        doc = tl.load(tile_doc + it)
        r0 = tl.load(tile_row + it)
        end = tl.load(cu + doc + 1)
        rows = r0 + offs_t
        d = tl.load(D + rows.to(tl.int64)[:, None] * K + offs_k[None, :], mask=(rows < end)[:, None], other=0.0)
        s = tl.dot(q, tl.trans(d))
        s = tl.where((rows < end)[None, :], s, float("-inf"))
        first = r0 == tl.load(cu + doc)
        best = tl.where(first, s, tl.maximum(best, s))
        tl.store(out + doc, tl.sum(tl.max(best, 1), 0), mask=r0 + BT >= end)


@triton.jit
def packed_doc_kernel(Q, D, out, cu, max_len, LQ: tl.constexpr, K: tl.constexpr, BT: tl.constexpr):
    """Packed documents, one program a document, tiles to its own end."""
    doc = tl.program_id(0)
    start = tl.load(cu + doc)
    end = tl.load(cu + doc + 1)
    offs_s = tl.arange(0, LQ)
    offs_k = tl.arange(0, K)
    offs_t = tl.arange(0, BT)
    q = tl.load(Q + offs_s[:, None] * K + offs_k[None, :])
    best = tl.full([LQ, BT], float("-inf"), tl.float32)
    for r0 in range(start, end, BT):
        rows = r0 + offs_t
        d = tl.load(D + rows.to(tl.int64)[:, None] * K + offs_k[None, :], mask=(rows < end)[:, None], other=0.0)
        s = tl.dot(q, tl.trans(d))
        s = tl.where((rows < end)[None, :], s, float("-inf"))
        best = tl.maximum(best, s)
    tl.store(out + doc, tl.sum(tl.max(best, 1), 0))


def flat_schedule(lengths, cu, bt, progs):
    """(tile documents, tile first rows, tiles a run, runs) on the GPU: runs of whole
    documents of about n_tiles / progs tiles each, padded to the longest run with
    repeats of its last tile (a repeat changes nothing: max is idempotent)."""
    b = len(lengths)
    tiles = ((lengths + bt - 1) // bt).tolist()
    tile_doc = torch.repeat_interleave(torch.arange(b), torch.tensor(tiles))
    starts = torch.cat([torch.arange(tiles[i]) * bt + int(cu[i]) for i in range(b)])
    tpp = triton.cdiv(len(tile_doc), progs)
    cuts, acc = [0], 0
    for i in range(b):
        acc += tiles[i]
        if acc > cuts[-1] and (acc - cuts[-1] >= tpp or i == b - 1):
            cuts.append(acc)
    longest = max(e - a for a, e in zip(cuts, cuts[1:]))
    td, tr = [], []
    for a, e in zip(cuts, cuts[1:]):
        idx = list(range(a, e)) + [e - 1] * (longest - (e - a))
        td += tile_doc[idx].tolist()
        tr += starts[idx].tolist()
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    return (torch.tensor(td, dtype=torch.int32, device=dev), torch.tensor(tr, dtype=torch.int32, device=dev),
            longest, len(cuts) - 1)


def bench(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=200)


def textual(ld=300, b=1000):
    g = torch.Generator(device="cuda").manual_seed(0)
    q = torch.randn(32, 128, device="cuda", generator=g).half()
    d = torch.randn(b, ld, 128, device="cuda", generator=g).half()
    out = torch.empty(b, device="cuda")
    want = (q.float() @ d.float().transpose(1, 2)).max(-1).values.sum(-1)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    floor_us = d.numel() * 2 / 4.8e12 * 1e6
    print(f"== textual Nq=1 B={b} 32 x {ld} d=128 fp16: {d.numel() * 2 / 1e6:.1f} MB, {sms} SMs, "
          f"floor at 4.8 TB/s {floor_us:.1f} us (H100 3.35: {d.numel() * 2 / 3.35e12 * 1e6:.1f})", flush=True)
    t = bench(lambda: hsr.ops.maxsim(q[None], d))
    print(f"hsr.ops.maxsim: {t * 1e3:.1f} us", flush=True)
    for bt in (64, 128):
        for w in (4, 8):
            for st in (2, 3, 4, 5):
                if bt == 128 and st > 4:
                    continue
                try:
                    fn = lambda: doc_kernel[(b,)](q, d, out, ld, 32, 128, bt, False, num_warps=w, num_stages=st)
                    fn()
                    err = (out - want).abs().max().item()
                    t = bench(fn)
                    r = bench(lambda: doc_kernel[(b,)](q, d, out, ld, 32, 128, bt, True, num_warps=w, num_stages=st))
                    print(f"doc BT {bt} w {w} st {st}: {t * 1e3:.1f} us (read {r * 1e3:.1f}) err {err:.2e}", flush=True)
                except Exception as e:  # noqa: BLE001
                    print(f"doc BT {bt} w {w} st {st}: {type(e).__name__} {str(e)[:100]}")
    for bt in (64, 128):
        tiles = triton.cdiv(ld, bt)
        for per_sm in (1, 2, 3, 4):
            progs = sms * per_sm
            dpp = triton.cdiv(b, progs)
            progs = triton.cdiv(b, dpp)
            for w in (4, 8):
                for st in (3, 4):
                    try:
                        fn = lambda: flat_kernel[(progs,)](q, d, out, ld, b, dpp, tiles, 32, 128, bt, False,
                                                           num_warps=w, num_stages=st)
                        out.zero_()
                        fn()
                        err = (out - want).abs().max().item()
                        t = bench(fn)
                        fb = lambda: flat_branch_kernel[(progs,)](q, d, out, ld, b, dpp, tiles, 32, 128, bt,
                                                                  num_warps=w, num_stages=st)
                        out.zero_()
                        fb()
                        errb = (out - want).abs().max().item()
                        tb = bench(fb)
                        nb = lambda: nested_kernel[(progs,)](q, d, out, ld, b, dpp, 32, 128, bt, num_warps=w,
                                                             num_stages=st)
                        tn = bench(nb)
                        r = bench(lambda: flat_kernel[(progs,)](q, d, out, ld, b, dpp, tiles, 32, 128, bt, True,
                                                                num_warps=w, num_stages=st))
                        print(f"flat BT {bt} {per_sm}/SM ({progs} programs, {dpp} docs) w {w} st {st}: "
                              f"{t * 1e3:.1f} us err {err:.2e}; branch {tb * 1e3:.1f} err {errb:.2e}; "
                              f"nested {tn * 1e3:.1f}; read {r * 1e3:.1f}", flush=True)
                    except Exception as e:  # noqa: BLE001
                        print(f"flat BT {bt} {per_sm}/SM w {w} st {st}: {type(e).__name__} {str(e)[:200]}")


def rerank(b=1000):
    g = torch.Generator(device="cuda").manual_seed(1)
    cpu = torch.Generator().manual_seed(1)
    lengths = torch.randint(40, 301, (b,), generator=cpu)
    cu = torch.zeros(b + 1, dtype=torch.int32)
    cu[1:] = lengths.cumsum(0)
    q = torch.randn(32, 128, device="cuda", generator=g).half()
    d = torch.randn(int(cu[-1]), 128, device="cuda", generator=g).half()
    cuq = torch.tensor([0, 32], dtype=torch.int32, device="cuda")
    cud = cu.cuda()
    want = torch.stack([(q.float() @ d[cu[i]:cu[i + 1]].float().T).max(-1).values.sum() for i in range(b)])
    out = torch.empty(b, device="cuda")
    print(f"== rerank 1 query, {b} packed documents of 40..300: {d.numel() * 2 / 1e6:.1f} MB, floor at 4.8 TB/s "
          f"{d.numel() * 2 / 4.8e12 * 1e6:.1f} us", flush=True)
    t = bench(lambda: hsr.ops.maxsim_varlen(q, d, cuq, cud, 32, 300))
    print(f"hsr.ops.maxsim_varlen: {t * 1e3:.1f} us", flush=True)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for bt in (64, 128):
        for w in (4, 8):
            for st in (2, 3, 4):
                fn = lambda: packed_doc_kernel[(b,)](q, d, out, cud, 300, 32, 128, bt, num_warps=w, num_stages=st)
                out.zero_()
                fn()
                err = (out - want).abs().max().item()
                print(f"packed doc BT {bt} w {w} st {st}: {bench(fn) * 1e3:.1f} us err {err:.2e}", flush=True)
    for bt in (64, 128):
        for per_sm in (1, 2, 4):
            td, tr, longest, nprog = flat_schedule(lengths, cu, bt, sms * per_sm)
            for w in (4, 8):
                for st in (3, 4):
                    try:
                        fn = lambda: packed_flat_kernel[(nprog,)](q, d, out, cud, td, tr, len(td), longest, 32, 128,
                                                                  bt, num_warps=w, num_stages=st)
                        out.zero_()
                        fn()
                        err = (out - want).abs().max().item()
                        t = bench(fn)
                        print(f"packed flat BT {bt} {per_sm}/SM ({nprog} programs, {longest} tiles) w {w} st {st}: "
                              f"{t * 1e3:.1f} us err {err:.2e}", flush=True)
                    except Exception as e:  # noqa: BLE001
                        print(f"packed flat BT {bt} w {w} st {st}: {type(e).__name__} {str(e)[:200]}")


if __name__ == "__main__":
    print(torch.cuda.get_device_name(), torch.__version__, triton.__version__, flush=True)
    textual()
    rerank()

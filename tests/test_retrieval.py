"""MaxSim top-k retrieval over a streamed corpus (hsr.ops.retrieval).

Every result is checked against a brute force: float64 MaxSim of every query
against the whole corpus, then a stable sort (score descending, lower index
first on ties), padded with (-inf, -1) up to k. Inputs are small integers, so
the kernels' fp32 scores are exact and ties are real ties: results must be
equal, not close.

Most tests score through hsr's float64 reference evaluator (TRITON_INTERPRET
unset for the test: the interpreter costs ~50 ms a document); the ``kernel``
tests run the generated Triton kernels through the interpreter. The ``gpu``
tests (streaming from pinned memory, flat device memory) need CUDA and run
with ``HSR_TEST_DEVICE=cuda python -m pytest -m gpu tests/test_retrieval.py``.
The distributed test starts two gloo processes on this machine.
"""

from __future__ import annotations

import importlib
import os
import time
from pathlib import Path

import pytest
import torch

from hsr import runtime
from hsr.errors import TensorError
from hsr.ops import maxsim
from hsr.ops import retrieval
from hsr.ops.retrieval import maxsim_topk, maxsim_topk_distributed


# --------------------------------------------------------------------------- helpers

def _ints(shape, gen, dtype=torch.float32, lo=-3, hi=3):
    return torch.randint(lo, hi + 1, shape, generator=gen).to(dtype)


def _problem(seed, nq=3, lq=4, n=17, ld=5, d=8, dtype=torch.float32, masks=True, dups=True):
    gen = torch.Generator().manual_seed(seed)
    Q = _ints((nq, lq, d), gen, dtype)
    C = _ints((n, ld, d), gen, dtype)
    q_mask = (torch.rand(nq, lq, generator=gen) < 0.8) if masks else None
    c_mask = (torch.rand(n, ld, generator=gen) < 0.7) if masks else None
    if dups and n >= 6:  # exact ties, some across block boundaries, one a document with no token
        C[n - 1], C[n // 2], C[1] = C[2].clone(), C[2].clone(), C[2].clone()
        if c_mask is not None:
            c_mask[n - 1], c_mask[n // 2], c_mask[1] = c_mask[2], c_mask[2], c_mask[2]
            c_mask[4] = False
    return Q, C, q_mask, c_mask


def brute(Q, C, k, q_mask=None, c_mask=None, normalize=False):
    """(scores fp32 [Nq, k], indices int64 [Nq, k]) by float64 MaxSim and a stable sort."""
    Q64, C64 = Q.double(), C.double()
    if normalize:
        Q64 = Q64 / Q64.norm(dim=-1, keepdim=True).clamp_min(1e-12)
        C64 = C64 / C64.norm(dim=-1, keepdim=True).clamp_min(1e-12)
    S = torch.einsum("isd,jtd->ijst", Q64, C64)
    if c_mask is not None:
        S = S.masked_fill(~c_mask.bool()[None, :, None, :], float("-inf"))
    best = S.amax(-1) if S.shape[-1] else S.sum(-1)
    best = torch.where(torch.isinf(best), torch.zeros_like(best), best)   # no real token: 0
    if q_mask is not None:
        best = best * q_mask.bool()[:, None, :]
    scores = best.sum(-1)
    order = torch.sort(scores, dim=1, descending=True, stable=True)
    nq, n = scores.shape
    out_s = torch.full((nq, k), float("-inf"), dtype=torch.float32)
    out_i = torch.full((nq, k), -1, dtype=torch.int64)
    m = min(k, n)
    out_s[:, :m] = order.values[:, :m].float()
    out_i[:, :m] = order.indices[:, :m]
    return out_s, out_i


def _same(got, want):
    gs, gi = got
    ws, wi = want
    assert gs.dtype == torch.float32 and gi.dtype == torch.int64
    assert gs.shape == ws.shape and gi.shape == wi.shape
    assert torch.equal(gi.cpu(), wi), f"indices\n{gi}\n!=\n{wi}"
    assert torch.equal(gs.cpu(), ws), f"scores\n{gs}\n!=\n{ws}"


@pytest.fixture
def reference_scoring(monkeypatch):
    """CPU maxsim through hsr's float64 reference evaluator (fast), not the interpreter.
    The generated modules are imported first: triton.jit reads TRITON_INTERPRET when a
    module is imported, and one imported without it could not run on the interpreter
    in a later test of this process."""
    import hsr.generated
    for path in sorted(Path(hsr.generated.__file__).parent.glob("*.py")):
        importlib.import_module(f"hsr.generated.{path.stem}")
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)


@pytest.fixture
def kernel_scoring():
    if not runtime.interpreting():
        pytest.skip("the kernel tests run on CPU through TRITON_INTERPRET=1")


# --------------------------------------------------------------------------- the block loop (CPU)

@pytest.mark.parametrize("block_size", [1, 3, 7, 17, 40, None])
@pytest.mark.parametrize("masks", [True, False])
def test_matches_brute_force_any_block_size(reference_scoring, block_size, masks):
    Q, C, qm, cm = _problem(1, masks=masks)
    for k in (1, 5, 17):
        _same(maxsim_topk(Q, C, k, q_mask=qm, corpus_mask=cm, block_size=block_size),
              brute(Q, C, k, qm, cm))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_corpus(reference_scoring, dtype):
    Q, C, qm, cm = _problem(2, dtype=dtype)
    # Q in fp32 is cast to the corpus dtype (exact for small integers).
    _same(maxsim_topk(Q.float(), C, 6, q_mask=qm, corpus_mask=cm, block_size=4), brute(Q, C, 6, qm, cm))


def test_ties_go_to_the_lower_index_across_blocks(reference_scoring):
    gen = torch.Generator().manual_seed(3)
    Q = _ints((2, 3, 4), gen)
    a, b = _ints((1, 4, 4), gen), _ints((1, 4, 4), gen)
    same = a.repeat(20, 1, 1)                         # twenty identical documents: one tie
    two = torch.cat([a, b]).repeat(10, 1, 1)          # a, b, a, b, ...: two ties, interleaved
    for bs in (1, 3, 6, 20):
        s, i = maxsim_topk(Q, same, 8, block_size=bs)
        assert torch.equal(i, torch.arange(8).repeat(2, 1)) and (s == s[:, :1]).all()
        _same(maxsim_topk(Q, two, 14, block_size=bs), brute(Q, two, 14))


def test_k_larger_than_the_corpus_pads(reference_scoring):
    Q, C, qm, cm = _problem(4, n=6)
    s, i = maxsim_topk(Q, C, 10, q_mask=qm, corpus_mask=cm, block_size=4)
    _same((s, i), brute(Q, C, 10, qm, cm))
    assert (i[:, 6:] == -1).all() and (s[:, 6:] == float("-inf")).all()
    assert sorted(i[0, :6].tolist()) == list(range(6))


def test_corpus_smaller_than_one_block(reference_scoring):
    Q, C, qm, cm = _problem(5, n=4)
    _same(maxsim_topk(Q, C, 3, q_mask=qm, corpus_mask=cm, block_size=1000), brute(Q, C, 3, qm, cm))


def test_empty_corpus_and_empty_outputs(reference_scoring):
    gen = torch.Generator().manual_seed(6)
    Q = _ints((2, 3, 8), gen)
    s, i = maxsim_topk(Q, torch.empty(0, 5, 8), 4, corpus_mask=torch.ones(0, 5, dtype=torch.bool))
    assert s.shape == (2, 4) and (s == float("-inf")).all() and (i == -1).all()
    s, i = maxsim_topk(Q, _ints((5, 5, 8), gen), 0)
    assert s.shape == (2, 0) and i.shape == (2, 0) and i.dtype == torch.int64
    s, i = maxsim_topk(Q[:0], _ints((5, 5, 8), gen), 3)
    assert s.shape == (0, 3) and i.shape == (0, 3)


def test_one_query_and_cosine(reference_scoring):
    Q, C, qm, cm = _problem(7)
    s, i = maxsim_topk(Q[1], C, 5, q_mask=qm[1], corpus_mask=cm, block_size=4)
    want = brute(Q[1:2], C, 5, qm[1:2], cm)
    _same((s[None], i[None]), want)
    assert s.shape == (5,)
    # Cosine scores are not exact: the same ranking, values to float rounding.
    s, i = maxsim_topk(Q, C, 6, corpus_mask=cm, block_size=5, normalize=True)
    ws, wi = brute(Q, C, 6, None, cm, normalize=True)
    torch.testing.assert_close(s, ws, rtol=1e-5, atol=1e-5)
    full = maxsim(Q, C, None, cm, normalize=True)
    assert torch.equal(s, torch.gather(full, 1, i))


def test_integer_masks_and_non_contiguous_corpus(reference_scoring):
    Q, C, qm, cm = _problem(8, n=24)
    Cs, ms = C[::2], cm[::2]                       # every other document: not contiguous
    assert not Cs.is_contiguous()
    _same(maxsim_topk(Q, Cs, 7, q_mask=qm.int(), corpus_mask=ms.to(torch.uint8), block_size=5),
          brute(Q, Cs, 7, qm, ms))


def test_bad_arguments(reference_scoring):
    Q, C, qm, cm = _problem(9)
    with pytest.raises(TensorError, match="k must be"):
        maxsim_topk(Q, C, -1)
    with pytest.raises(TensorError, match="k must be"):
        maxsim_topk(Q, C, 2.0)
    with pytest.raises(TensorError, match="block_size"):
        maxsim_topk(Q, C, 2, block_size=0)
    with pytest.raises(TensorError, match="corpus_mask"):
        maxsim_topk(Q, C, 2, corpus_mask=cm[:, :2])
    with pytest.raises(TensorError, match="d = "):
        maxsim_topk(Q[..., :4], C, 2)
    with pytest.raises(TensorError, match=r"\[N, Ld, d\]"):
        maxsim_topk(Q, C[0], 2)
    with pytest.raises(TensorError, match="q_mask"):
        maxsim_topk(Q, C, 2, q_mask=qm[:, :1])


def test_keys_order_special_values_and_padding():
    """The packed keys: float order (NaN first, -0.0 == 0.0), then index, padding last."""
    vals = torch.tensor([[0.5, float("nan"), float("inf"), -0.0, 0.0, -1e-40, float("-inf"), -2.0, 3e38]])
    keys = retrieval._keys(vals, 7, retrieval.MAX_DOCS - torch.arange(9))
    s, i = retrieval._decode(keys)
    assert torch.equal(i, torch.arange(7, 16)[None])
    assert torch.equal(s[:, [0, 2, 5, 6, 7, 8]], vals[:, [0, 2, 5, 6, 7, 8]]) and torch.isnan(s[0, 1])
    assert s[0, 3].item() == 0.0 and s[0, 4].item() == 0.0
    merged = retrieval._merge(retrieval._pad_keys(1, 4, "cpu"), keys, 12)
    s, i = retrieval._decode(merged)
    assert i.tolist() == [[8, 9, 15, 7, 10, 11, 12, 14, 13, -1, -1, -1]]
    assert s[0, -1].item() == float("-inf") and s[0, 8].item() == float("-inf")  # a real -inf before padding


# --------------------------------------------------------------------------- the Triton kernels (interpreter)

@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_kernel_path_matches_brute_force(kernel_scoring, dtype):
    Q, C, qm, cm = _problem(10, nq=2, n=11, dtype=dtype)
    _same(maxsim_topk(Q, C, 13, q_mask=qm, corpus_mask=cm, block_size=4), brute(Q, C, 13, qm, cm))


def test_kernel_path_one_query_bf16(kernel_scoring):
    Q, C, qm, cm = _problem(11, nq=1, n=8, dtype=torch.bfloat16)
    s, i = maxsim_topk(Q[0], C, 5, q_mask=qm[0], corpus_mask=cm, block_size=3)
    _same((s[None], i[None]), brute(Q, C, 5, qm, cm))


def _sorted_top(scores, k):
    order = torch.sort(scores, dim=1, descending=True, stable=True)
    return order.values[:, :k].float(), order.indices[:, :k]


@pytest.mark.parametrize("fmt", ["int8", "fp8"])
def test_kernel_path_stored_quantized_corpus(kernel_scoring, fmt):
    """A corpus stored as (rows, scales): the top-k of maxsim(Q, (rows, scales)) over the
    whole corpus, whatever the blocks; Q is quantized per block the same way each time."""
    from hsr.ops import quantize_fp8, quantize_int8
    Q, C, qm, cm = _problem(13, nq=2, n=11, d=16)
    stored = (quantize_int8 if fmt == "int8" else quantize_fp8)(C)
    want = _sorted_top(maxsim(Q, stored, qm, cm), 6)
    for block in (1, 4, 11):
        _same(maxsim_topk(Q, stored, 6, q_mask=qm, corpus_mask=cm, block_size=block), want)
    # a block's bytes count the rows and the scales: 5 tokens of 16 + 4 bytes, 100 a document
    assert retrieval.default_block_size(stored, block_bytes=160) == 1
    assert retrieval.default_block_size(stored[0], block_bytes=160) == 2


def test_a_stored_corpus_with_bad_parts(reference_scoring):
    from hsr.ops import quantize_int8
    Q, C, _, _ = _problem(14, nq=1, n=5)
    rows, scales = quantize_int8(C)
    for bad, match in (((rows,), "pair"), ((C, scales), "int8 or float8"), ((rows, scales[:, :2]), "one a token"),
                       ((rows, scales.to(torch.float16).to("meta")), "meta")):
        with pytest.raises(TensorError, match=match):
            maxsim_topk(Q, bad, 3)
    with pytest.raises(TensorError, match="normalize"):
        maxsim_topk(Q, (rows, scales), 3, normalize=True)


# --------------------------------------------------------------------------- several processes (gloo)

def _dist_worker(rank, world, init, out_dir, shards, k):
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method=init, rank=rank, world_size=world)
    try:
        Q, C, qm, cm = _problem(12, nq=2, n=shards[-1])
        lo, hi = shards[rank], shards[rank + 1]
        results = {"default": maxsim_topk_distributed(Q, C[lo:hi], k, q_mask=qm, corpus_mask=cm[lo:hi],
                                                      block_size=3)}
        # Explicit offsets, the shards the other way round: rank 0 holds the end of the corpus.
        n = shards[-1]
        cut = n - (shards[1] - shards[0])
        lo, hi = (cut, n) if rank == 0 else (0, cut)
        results["swapped"] = maxsim_topk_distributed(Q, C[lo:hi], k, shard_offset=lo, q_mask=qm,
                                                     corpus_mask=cm[lo:hi], block_size=4)
        # One rank with nothing.
        lo, hi = (0, n) if rank == 0 else (n, n)
        results["empty"] = maxsim_topk_distributed(Q, C[lo:hi], k, q_mask=qm, corpus_mask=cm[lo:hi])
        try:
            maxsim_topk_distributed(Q, C, k + rank)
            results["mismatch"] = "no error"
        except TensorError as e:
            results["mismatch"] = str(e)
        try:  # a bad shard on rank 1 only: both ranks raise, neither waits for the other
            maxsim_topk_distributed(Q, C[..., :4] if rank == 1 else C, k)
            results["bad_shard"] = "no error"
        except TensorError as e:
            results["bad_shard"] = str(e)
        torch.save(results, os.path.join(out_dir, f"rank{rank}.pt"))
    finally:
        dist.destroy_process_group()


def test_distributed_gloo_two_ranks(tmp_path):
    import torch.multiprocessing as mp

    shards, k = [0, 7, 10], 12                       # uneven: 7 and 3 documents; k > N pads
    init = f"file://{tmp_path / 'rendezvous'}"
    ctx = mp.spawn(_dist_worker, args=(2, init, str(tmp_path), shards, k), nprocs=2, join=False)
    deadline = time.monotonic() + 120
    while not ctx.join(timeout=1):
        if time.monotonic() > deadline:
            for p in ctx.processes:
                p.kill()
            pytest.fail("the distributed workers did not finish in 120 s")
    Q, C, qm, cm = _problem(12, nq=2, n=shards[-1])
    want = brute(Q, C, k, qm, cm)
    single = maxsim_topk(Q, C, k, q_mask=qm, corpus_mask=cm, block_size=5)
    _same(single, want)
    for rank in range(2):
        got = torch.load(tmp_path / f"rank{rank}.pt")
        for name in ("default", "swapped", "empty"):
            _same(got[name], want)
        assert "same number of queries and the same k" in got["mismatch"]
    assert "rank(s) [1] got invalid arguments" in torch.load(tmp_path / "rank0.pt")["bad_shard"]
    assert "the corpus has d = 4" in torch.load(tmp_path / "rank1.pt")["bad_shard"]


# --------------------------------------------------------------------------- GPU: streaming, flat memory

_GPU_SKIP = ("needs a CUDA device (run on the GPU machine)" if not torch.cuda.is_available()
             else "TRITON_INTERPRET is set: run with HSR_TEST_DEVICE=cuda" if runtime.interpreting() else None)


def _gpu_problem(seed, n, nq=4, lq=8, ld=32, d=64, dtype=torch.float16):
    gen = torch.Generator().manual_seed(seed)
    Q = _ints((nq, lq, d), gen, dtype)
    C = _ints((n, ld, d), gen, dtype)
    cm = torch.rand(n, ld, generator=gen) < 0.75
    C[n // 3] = C[7]                                  # exact ties across blocks
    cm[n // 3] = cm[7]
    return Q, C, cm


def _brute_gpu(Q, C, cm, k):
    """Float64 brute force on the GPU, in chunks (exact for integer inputs)."""
    Qc = Q.cuda().double()
    parts = []
    for s in range(0, C.shape[0], 512):
        S = torch.einsum("isd,jtd->ijst", Qc, C[s:s + 512].cuda().double())
        S = S.masked_fill(~cm[s:s + 512].cuda()[None, :, None, :], float("-inf")).amax(-1)
        parts.append(torch.where(torch.isinf(S), torch.zeros_like(S), S).sum(-1))
    scores = torch.cat(parts, 1).cpu()
    order = torch.sort(scores, dim=1, descending=True, stable=True)
    return order.values[:, :k].float(), order.indices[:, :k]


@pytest.mark.gpu
@pytest.mark.skipif(_GPU_SKIP is not None, reason=_GPU_SKIP or "")
@pytest.mark.parametrize("source", ["pinned", "pageable", "on_device", "no_overlap"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_gpu_streaming_matches_brute_force(source, dtype):
    Q, C, cm = _gpu_problem(20, n=3001, dtype=dtype)
    k = 50
    want = _brute_gpu(Q, C, cm, k)
    corpus, mask = C, cm
    if source in ("pinned", "no_overlap"):
        corpus, mask = C.pin_memory(), cm.pin_memory()
    elif source == "on_device":
        corpus, mask = C.cuda(), cm.cuda()
    # small blocks: hundreds of copy/score hand-overs, where a missing wait would show
    s, i = maxsim_topk(Q.cuda(), corpus, k, corpus_mask=mask, block_size=29, overlap=source != "no_overlap")
    assert s.device.type == "cuda" and i.device.type == "cuda"
    _same((s, i), want)


@pytest.mark.gpu
@pytest.mark.skipif(_GPU_SKIP is not None, reason=_GPU_SKIP or "")
@pytest.mark.parametrize("source", ["pinned", "pageable", "on_device"])
def test_gpu_stored_int8_corpus_streams_as_resident(source):
    """A corpus stored as int8 rows and scales, streamed in blocks: bitwise the top-k of
    maxsim(Q, (rows, scales)) on the resident corpus."""
    from hsr.ops import quantize_int8
    gen = torch.Generator().manual_seed(22)
    Q = torch.randn(2, 32, 128, generator=gen).half()
    rows, scales = quantize_int8(torch.randn(1500, 48, 128, generator=gen))
    cm = torch.rand(1500, 48, generator=gen) < 0.9
    want = _sorted_top(maxsim(Q.cuda(), (rows.cuda(), scales.cuda()), None, cm.cuda()), 40)
    if source == "pinned":
        rows, scales, cm = rows.pin_memory(), scales.pin_memory(), cm.pin_memory()
    elif source == "on_device":
        rows, scales, cm = rows.cuda(), scales.cuda(), cm.cuda()
    s, i = maxsim_topk(Q.cuda(), (rows, scales), 40, corpus_mask=cm, block_size=97)
    assert torch.equal(i, want[1]) and torch.equal(s, want[0])


@pytest.mark.gpu
@pytest.mark.skipif(_GPU_SKIP is not None, reason=_GPU_SKIP or "")
def test_gpu_random_data_matches_resident_maxsim():
    """Normal data, Q on the CPU, device given: equal (bitwise) to maxsim on the
    resident corpus, then sorted by (score desc, index asc)."""
    gen = torch.Generator().manual_seed(21)
    Q = torch.randn(3, 32, 128, generator=gen).half()
    C = torch.randn(2000, 64, 128, generator=gen).half()
    cm = torch.rand(2000, 64, generator=gen) < 0.9
    s, i = maxsim_topk(Q, C, 100, corpus_mask=cm, block_size=300, device="cuda")
    full = maxsim(Q.cuda(), C.cuda(), None, cm.cuda())
    order = torch.sort(full, dim=1, descending=True, stable=True)
    assert torch.equal(i, order.indices[:, :100]) and torch.equal(s, order.values[:, :100])


@pytest.mark.gpu
@pytest.mark.skipif(_GPU_SKIP is not None, reason=_GPU_SKIP or "")
@pytest.mark.parametrize("pinned", [True, False])
def test_gpu_memory_does_not_grow_with_the_corpus(pinned):
    gen = torch.Generator().manual_seed(22)
    Q = torch.randn(8, 32, 128, generator=gen).half().cuda()
    block = 256
    peaks = {}
    for n in (2048, 8192):                            # 8192 x 64 x 128 fp16 = 128 MiB of corpus
        C = torch.randn(n, 64, 128, generator=gen).half()
        cm = torch.rand(n, 64, generator=gen) < 0.9
        if pinned:
            C, cm = C.pin_memory(), cm.pin_memory()
        maxsim_topk(Q, C[:block * 2], 100, corpus_mask=cm[:block * 2], block_size=block)  # warm-up (autotune)
        torch.cuda.synchronize()
        base = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        s, i = maxsim_topk(Q, C, 100, corpus_mask=cm, block_size=block)
        torch.cuda.synchronize()
        peaks[n] = torch.cuda.max_memory_allocated() - base
        del s, i
    corpus_bytes = 8192 * 64 * 128 * 2
    assert peaks[8192] <= peaks[2048] + (64 << 10), peaks       # flat, to the allocator's rounding
    assert peaks[8192] < corpus_bytes / 8, peaks                  # and far from the corpus


def test_tensors_without_data_are_refused_before_any_copy(reference_scoring):
    """A meta tensor (a shape, no data) anywhere is a TensorError naming it, raised
    before the block loop would try to copy it; and so is scoring on meta."""
    Q, C, qm, cm = _problem(10, masks=True)
    cases = [((Q, C.to("meta")), {}, "corpus"),
             ((Q, C), {"corpus_mask": cm.to("meta")}, "corpus_mask"),
             ((Q, C), {"q_mask": qm.to("meta")}, "q_mask"),
             ((Q.to("meta"), C), {}, "Q")]
    for args, kwargs, name in cases:
        with pytest.raises(TensorError, match=f"maxsim_topk: {name} is on the meta device"):
            maxsim_topk(*args, 3, **kwargs)
    with pytest.raises(TensorError, match="device is meta"):
        maxsim_topk(Q, C, 3, device="meta")


def test_a_1d_q_mask_is_shared_by_every_query(reference_scoring):
    Q, C, qm, cm = _problem(11)
    one = qm[0]
    _same(maxsim_topk(Q, C, 5, q_mask=one, corpus_mask=cm),
          brute(Q, C, 5, one.expand(Q.shape[0], -1), cm))


def test_topk_over_a_corpus_stored_as_residual_codes(device):
    """A ResidualCorpus (a PLAID index, packed): the top-k of the whole scan, block by block, equal
    the top-k of maxsim_residual_varlen's scores over every document, ties to the lower index."""
    from hsr.ops import ResidualCorpus, maxsim_residual_varlen

    gen = torch.Generator().manual_seed(4)
    lengths = torch.tensor([5, 0, 9, 3, 5, 7, 1, 4])
    cu = torch.zeros(9, dtype=torch.int64)
    cu[1:] = lengths.cumsum(0)
    t = int(cu[-1])
    corpus = ResidualCorpus(torch.randint(0, 6, (t,), generator=gen), torch.randint(0, 256, (t, 8), generator=gen,
                            dtype=torch.uint8), cu, torch.randn(6, 32, generator=gen),
                            torch.tensor([-0.1, 0.0, 0.05, 0.1]), 2).to(device)
    Q = torch.randn(2, 4, 32, generator=gen).to(device)
    full = maxsim_residual_varlen(Q, corpus.codes, corpus.residuals, corpus.cu_seqlens, corpus.centroids,
                                  corpus.bucket_weights, 2).cpu()
    for block in (3, 8):
        scores, idx = maxsim_topk(Q, corpus, 5, block_size=block)
        want = torch.topk(full, 5, dim=1)
        assert torch.equal(scores.cpu(), want.values) and torch.equal(idx.cpu(), want.indices)
    scores, idx = maxsim_topk(Q[0], corpus, 10)
    assert idx[-1].item() == -1 and scores.shape == (10,)  # 8 documents: the rest padding
    with pytest.raises(TensorError, match="takes no q_mask"):
        maxsim_topk(Q, corpus, 2, q_mask=torch.ones(2, 4, dtype=torch.bool, device=device))


@pytest.mark.gpu
@pytest.mark.skipif(_GPU_SKIP is not None, reason=_GPU_SKIP or "")
def test_gpu_residual_corpus_streams_from_the_host_as_resident():
    """A ResidualCorpus in host memory (pinned), copied to the GPU a block at a time: the same top-k as the
    resident corpus, scores bit for bit."""
    from hsr.ops import ResidualCorpus

    gen = torch.Generator().manual_seed(9)
    lengths = torch.randint(0, 40, (700,), generator=gen)
    cu = torch.zeros(701, dtype=torch.int64)
    cu[1:] = lengths.cumsum(0)
    t = int(cu[-1])
    host = ResidualCorpus(torch.randint(0, 50, (t,), generator=gen, dtype=torch.int32).pin_memory(),
                          torch.randint(0, 256, (t, 32), generator=gen, dtype=torch.uint8).pin_memory(), cu,
                          torch.nn.functional.normalize(torch.randn(50, 128, generator=gen), dim=-1).half(),
                          torch.tensor([-0.05, -0.01, 0.01, 0.05]), 2)
    Q = torch.randn(3, 16, 128, generator=gen).cuda().half()
    streamed = maxsim_topk(Q, host, 20, block_size=97)
    resident = maxsim_topk(Q, host.to("cuda"), 20, block_size=97)
    assert torch.equal(streamed[0], resident[0]) and torch.equal(streamed[1], resident[1])

"""MaxSim top-k retrieval over corpora larger than the GPU.

``maxsim_topk(Q, corpus, k)`` scores every query of ``Q`` against every
document of ``corpus`` with :func:`hsr.ops.maxsim` and keeps the ``k`` best,
without ever holding more than two blocks of the corpus on the device:

* the corpus stays in host memory and is streamed in blocks of ``block_size``
  documents through two device buffers; the host-to-device copy of block i+1
  runs on a side CUDA stream while block i is scored on the current stream
  (CUDA events order the two: a copy waits until the buffer it overwrites has
  been read, a score waits until its block has landed);
* a pinned (page-locked) corpus is copied straight from its own memory; a
  pageable one goes through two reusable pinned staging buffers of one block
  each, filled by the host while the GPU works. The corpus itself is never
  pinned behind your back: pinning it whole would take a second copy of it in
  host memory (and seconds of page locking) on every call. For the best
  bandwidth, keep the corpus pinned yourself (``corpus = corpus.pin_memory()``
  once, or allocate it with ``pin_memory=True``);
* a running top-k ``[Nq, k]`` is merged with each block's scores, so device
  memory depends on ``block_size`` and ``k``, never on the corpus size;
* a corpus already on the device is sliced in place (no copy); on a CPU-only
  machine the same block loop runs on CPU tensors (through Triton's interpreter
  under ``TRITON_INTERPRET=1``, else hsr's float64 reference evaluator).

``maxsim_topk_distributed`` does the same over a corpus sharded across the
ranks of a ``torch.distributed`` group (one device per rank) and merges the
per-rank top-k into one global answer, identical on every rank.

Order and ties: results are sorted by score, highest first; equal scores go to
the lower corpus index (global index in the distributed case), whatever the
block size, the number of ranks or the order the GPU happens to run in. Each
(score, index) pair is packed into one int64 key -- the score's fp32 bits
mapped to an order-preserving integer in the high 32 bits, ``2**32 - 1 - index``
in the low 32 bits -- so every key is distinct and ``torch.topk`` has no tie to
break. A document's score does not depend on the block it is scored in (one
kernel configuration per process and shape), so duplicates tie exactly.
-0.0 counts as 0.0; a NaN score (from NaN inputs) ranks above +inf, as
in ``torch.sort(descending=True)``. Indices must stay below ``2**32 - 1``.

Fewer than k documents: the result keeps its shape ``[Nq, k]``; the missing
places hold score ``-inf`` and index ``-1`` (as FAISS does), after every real
document, even one that scores ``-inf``.
"""

from __future__ import annotations

import dataclasses
import operator

import torch

from hsr.errors import TensorError

from .maxsim import maxsim
from .quantize import stored_rows
from .residual import ResidualCorpus, maxsim_residual_varlen

__all__ = ["maxsim_topk", "maxsim_topk_distributed", "default_block_size"]

_LOW = 1 << 32            # the index lives in the low 32 bits of a key
MAX_DOCS = _LOW - 1       # index 2**32 - 1 is reserved: it marks padding (-1)
_SIGN_FLIP = 0x7FFFFFFF
_NAN = float("nan")
BLOCK_BYTES = 64 << 20    # default block: about 64 MiB of corpus per device buffer
SCRATCH_BYTES = 256 << 20  # and at most about 256 MiB of per-block scores and keys
_SCRATCH_PER_PAIR = 32     # bytes per (query, document) of a block: fp32 score, int64 keys, merge


# --------------------------------------------------------------------------- public API

def maxsim_topk(Q: torch.Tensor, corpus: torch.Tensor, k: int, *, q_mask: torch.Tensor | None = None,
                corpus_mask: torch.Tensor | None = None, block_size: int | None = None,
                device=None, normalize: bool = False, overlap: bool = True):
    """The k best documents of ``corpus`` for each query, by MaxSim.

    Q: [Nq, Lq, d] (or [Lq, d] for one query: results lose their first axis).
    corpus: [N, Ld, d] fp16, bf16 or fp32, in host memory (pinned or not) or
       already on the device. Q is cast to the corpus dtype. A float64 corpus
       is scored by the float64 reference evaluator (for checking; the ranking
       and the returned scores still use the scores rounded to fp32). Or a
       corpus stored quantized: the pair (rows [N, Ld, d] int8 or float8_e4m3fn,
       scales [N, Ld] fp32) that hsr.ops.quantize_int8 / quantize_fp8 returned,
       both where the corpus lives: it streams half (or a quarter, from fp32)
       of the bytes, and Q is quantized to its format (maxsim(Q, (rows, scales))).
       Or a hsr.ops.ResidualCorpus (a PLAID index: centroid ids and residual
       codes, packed): each block of documents is scored as stored
       (maxsim_residual_varlen), with no decompressed copy; a corpus in host
       memory is copied to the device a block at a time (pin it for the
       bandwidth; the copies do not overlap the scoring yet). q_mask is not
       taken there, and normalize is the corpus's own.
    k: results per query (k > N pads with score -inf and index -1).
    q_mask [Nq, Lq] (or [Lq], shared by every query), corpus_mask [N, Ld]:
       True marks a real token (as in :func:`hsr.ops.maxsim`; 0/1 integer
       masks are read as != 0); corpus_mask lives where the corpus lives.
       A tensor on the meta device (no data) is a TensorError naming it.
    block_size: documents per block (default: about 64 MiB of a host corpus;
       see :func:`default_block_size`). Device memory is fixed by it, Nq and k.
    device: where to score (default: Q.device). With a CUDA device and a host
       corpus, blocks stream through two device buffers with copies
       overlapped with scoring.
    normalize: cosine MaxSim (tokens L2-normalised inside the kernel).
    overlap: False puts copies and scoring on one stream, one after the other
       (a baseline for measuring how much of the copy the overlap hides).

    Returns (scores [Nq, k] fp32, indices [Nq, k] int64), on ``device``,
    sorted by score descending, ties to the lower index.
    """
    if isinstance(corpus, ResidualCorpus):
        keys, single = _search_codes(Q, corpus, k, q_mask=q_mask, corpus_mask=corpus_mask, block_size=block_size,
                                     device=device)
    else:
        keys, single = _search(Q, corpus, k, q_mask=q_mask, corpus_mask=corpus_mask, block_size=block_size,
                               device=device, normalize=normalize, overlap=overlap, offset=0)
    scores, indices = _decode(keys)
    return (scores[0], indices[0]) if single else (scores, indices)


def maxsim_topk_distributed(Q: torch.Tensor, corpus_shard: torch.Tensor, k: int, *,
                            shard_offset: int | None = None, group=None, q_mask: torch.Tensor | None = None,
                            corpus_mask: torch.Tensor | None = None, block_size: int | None = None,
                            device=None, normalize: bool = False, overlap: bool = True):
    """Global MaxSim top-k over a corpus sharded across a process group.

    Every rank passes the same Q (and q_mask) and k, and its own shard of the
    corpus ([N_r, Ld, d], host memory or its device; shards may differ in size
    and be empty). Each rank streams its shard through :func:`maxsim_topk` on
    its own device (a shard may be a stored quantized pair, as for
    :func:`maxsim_topk`), then the per-rank top-k (keys of score and global index,
    fixed [Nq, k] tensors) are all-gathered and merged. Every rank returns the
    same (scores [Nq, k] fp32, indices [Nq, k] int64): the global indices, same
    order and tie rule as :func:`maxsim_topk` (ties to the lower global index).

    shard_offset: global index of this shard's first document; give it on
       every rank or on none. Default: the exclusive prefix sum of the shard
       sizes in rank order (rank 0 holds documents 0..N_0-1, rank 1 the next
       N_1, ...).
    group: the process group (default: the world). Works with gloo (CPU
       tensors) and NCCL (the gathers then go through the CUDA device).
    Argument errors found on any rank are raised on every rank (one gather of
    the shapes comes first), so that no rank is left waiting in a collective.

    The merge is exact, so the answer equals a single-process
    :func:`maxsim_topk` over the whole corpus whenever each document scores
    the same bits on its rank as it would there: always for values that fp32
    holds exactly, and otherwise as long as every process runs the same
    kernel configuration (each process autotunes for itself;
    ``HSR_AUTOTUNE=0`` fixes the blocks).
    """
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()):
        raise RuntimeError("maxsim_topk_distributed: torch.distributed is not initialised "
                           "(call torch.distributed.init_process_group first)")
    world, rank = dist.get_world_size(group), dist.get_rank(group)
    error, plan, dev = None, None, None
    try:  # any error here is raised after the first gather, on every rank
        if shard_offset is not None:
            try:
                if isinstance(shard_offset, bool):
                    raise TypeError
                shard_offset = operator.index(shard_offset)
            except TypeError:
                shard_offset = -1
            if shard_offset < 0:
                raise TensorError("maxsim_topk_distributed: shard_offset must be an int >= 0")
        dev = _resolve_device(device, Q if isinstance(Q, torch.Tensor) else None)
        plan = _plan(Q, corpus_shard, k, q_mask=q_mask, corpus_mask=corpus_mask, block_size=block_size,
                     device=dev, normalize=normalize)
    except Exception as e:  # noqa: BLE001
        error, plan = e, None
    comm = _comm_device(dist.get_backend(group), dev if dev is not None else torch.device("cpu"))

    # One gather of what must agree, and of the shard sizes: every rank sees the
    # same table, so every rank raises the same error, and none hangs.
    info = torch.tensor([0, -1, -1, -1, -1] if plan is None else
                        [1, plan.n, plan.nq, plan.k, -1 if shard_offset is None else shard_offset],
                        dtype=torch.int64, device=comm)
    table = [torch.empty_like(info) for _ in range(world)]
    dist.all_gather(table, info, group=group)
    table = torch.stack(table).cpu().tolist()
    if error is not None:
        raise error
    bad = [r for r, row in enumerate(table) if row[0] == 0]
    if bad:
        raise TensorError(f"maxsim_topk_distributed: rank(s) {bad} got invalid arguments (see their error)")
    if len({(row[2], row[3]) for row in table}) != 1:
        raise TensorError("maxsim_topk_distributed: every rank must pass the same number of queries and the "
                          f"same k; got (Nq, k) per rank: {[(row[2], row[3]) for row in table]}")
    given = [row[4] >= 0 for row in table]
    if any(given) and not all(given):
        raise TensorError("maxsim_topk_distributed: give shard_offset on every rank or on none "
                          f"(given on ranks {[r for r, g in enumerate(given) if g]})")
    sizes = [row[1] for row in table]
    offsets = [row[4] for row in table] if all(given) else [sum(sizes[:r]) for r in range(world)]
    end = max(o + s for o, s in zip(offsets, sizes))
    if end > MAX_DOCS:
        raise TensorError(f"maxsim_topk_distributed: global indices must stay below 2**32 - 1, "
                          f"the shards reach {end}")

    keys = _run(plan, offsets[rank], overlap)
    if keys.numel() > 0:
        local = keys.to(comm).contiguous()
        gathered = [torch.empty_like(local) for _ in range(world)]
        dist.all_gather(gathered, local, group=group)
        keys = torch.topk(torch.cat(gathered, dim=1), plan.k, dim=1, sorted=True).values.to(dev)
    scores, indices = _decode(keys)
    return (scores[0], indices[0]) if plan.single else (scores, indices)


def default_block_size(corpus: torch.Tensor, nq: int = 1, *, resident: bool = False,
                       block_bytes: int = BLOCK_BYTES, scratch_bytes: int = SCRATCH_BYTES) -> int:
    """Documents per block when none is given.

    A corpus streamed from the host: about ``block_bytes`` (64 MiB) of corpus
    per block (a ColBERT document of 300 fp16 tokens of 128 is 75 KiB: 873
    documents), which keeps the copies near the link's bandwidth. A corpus
    already on the device needs no buffers: its blocks only bound the
    per-block scratch (scores and keys, about 32 bytes per query and
    document) to ``scratch_bytes`` (256 MiB). Either way at least one
    document and at most the corpus."""
    parts = corpus if isinstance(corpus, tuple) else (corpus,)  # a stored corpus: its rows and scales
    n = parts[0].shape[0]
    by_scratch = scratch_bytes // (_SCRATCH_PER_PAIR * max(1, nq))
    if resident:
        block = by_scratch
    else:
        per_doc = max(1, sum(x[0].numel() * x.element_size() for x in parts)) if n else 1
        block = min(block_bytes // per_doc, by_scratch)
    return max(1, min(n, block))


# --------------------------------------------------------------------------- keys

def _keys(scores: torch.Tensor, first_index: int, low_base: torch.Tensor) -> torch.Tensor:
    """int64 keys of fp32 scores [Nq, n] for documents first_index, first_index+1, ...:
    larger key = higher score, then lower index; all distinct. ``low_base`` is
    ``2**32 - 1 - arange(block)`` (int64). Few elementwise ops: this runs once a block."""
    scores = scores.float()
    s = torch.where(scores == scores, scores + 0.0, _NAN)   # -0.0 -> +0.0; one NaN bit pattern
    bits = s.view(torch.int32)
    ordered = bits ^ ((bits >> 31) & _SIGN_FLIP)            # order-preserving: float order = integer order
    low = low_base[:scores.shape[1]] - first_index          # 2**32 - 1 - index, in [1, 2**32 - 1]
    return torch.add(low, ordered, alpha=_LOW)              # ordered * 2**32 + low, in int64


def _pad_keys(nq: int, k: int, device) -> torch.Tensor:
    """Keys of padding: score -inf, low part 0 (below every real document's)."""
    bits = torch.tensor(float("-inf"), dtype=torch.float32).view(torch.int32)
    ordered = int(bits ^ ((bits >> 31) & _SIGN_FLIP))
    return torch.full((nq, k), ordered * _LOW, dtype=torch.int64, device=device)


def _decode(keys: torch.Tensor):
    """(scores fp32, indices int64; -1 for padding) of int64 keys."""
    ordered = torch.div(keys, _LOW, rounding_mode="floor")
    low = keys - ordered * _LOW
    indices = torch.where(low == 0, torch.full_like(low, -1), MAX_DOCS - low)
    bits = ordered.to(torch.int32)
    scores = (bits ^ ((bits >> 31) & _SIGN_FLIP)).view(torch.float32)
    return scores, indices


def _merge(running: torch.Tensor, block_keys: torch.Tensor, k: int) -> torch.Tensor:
    return torch.topk(torch.cat([running, block_keys], dim=1), k, dim=1, sorted=True).values


# --------------------------------------------------------------------------- the search

def _check_k(k) -> int:
    try:
        if isinstance(k, bool):
            raise TypeError
        k = operator.index(k)
    except TypeError:
        raise TensorError(f"maxsim_topk: k must be an int, got {type(k).__name__}") from None
    if k < 0:
        raise TensorError(f"maxsim_topk: k must be >= 0, got {k}")
    return k


def _resolve_device(device, Q) -> torch.device:
    dev = torch.device(device) if device is not None else Q.device if Q is not None else torch.device("cpu")
    if dev.type == "cuda" and dev.index is None:
        dev = torch.device("cuda", torch.cuda.current_device())
    return dev


def _comm_device(backend, dev: torch.device) -> torch.device:
    """Where the gathered tensors live: CUDA for NCCL, CPU for gloo."""
    name = str(backend).lower()
    if "nccl" in name and (dev.type == "cuda" or "gloo" not in name):
        return dev if dev.type == "cuda" else torch.device("cuda", torch.cuda.current_device())
    if "gloo" in name:
        return torch.device("cpu")
    return dev


class _Plan:
    """Checked arguments of one search, Q already on the device."""

    def __init__(self, **kw):
        self.__dict__.update(kw)


def _plan(Q, corpus, k, *, q_mask, corpus_mask, block_size, device, normalize) -> _Plan:
    stored = isinstance(corpus, tuple)
    rows, scales = _stored(corpus, normalize) if stored else (corpus, None)
    if not isinstance(Q, torch.Tensor) or not isinstance(rows, torch.Tensor):
        raise TensorError("maxsim_topk: Q and corpus must be torch.Tensors (or corpus the pair (rows, scales) "
                          "of a corpus stored quantized)")
    for name, x in (("Q", Q), ("corpus", rows), ("corpus scales", scales), ("q_mask", q_mask),
                    ("corpus_mask", corpus_mask)):
        if isinstance(x, torch.Tensor) and x.device.type == "meta":  # before any copy, which torch refuses
            raise TensorError(f"maxsim_topk: {name} is on the meta device (a shape and a dtype, no data), so "
                              f"it cannot be read; give {name} in host memory or on the GPU")
    if device.type == "meta":
        raise TensorError("maxsim_topk: device is meta (no data): scoring needs a CPU or a GPU")
    k = _check_k(k)
    single = Q.dim() == 2
    if single:
        Q = Q.unsqueeze(0)
        q_mask = q_mask.unsqueeze(0) if q_mask is not None else None
    if Q.dim() != 3:
        raise TensorError(f"maxsim_topk: Q must be [Nq, Lq, d] or [Lq, d], got shape {tuple(Q.shape)}")
    if isinstance(q_mask, torch.Tensor) and q_mask.dim() == 1:  # one mask [Lq] for every query, as maxsim
        q_mask = q_mask.expand(Q.shape[0], q_mask.shape[0])
    if rows.dim() != 3:
        raise TensorError(f"maxsim_topk: corpus must be [N, Ld, d], got shape {tuple(rows.shape)}")
    if not stored and rows.dtype not in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        raise TensorError(f"maxsim_topk: corpus must be fp16, bf16, fp32 or float64 (or the pair (rows, scales) "
                          f"of a corpus stored quantized), got {rows.dtype}")
    n, ld, d = rows.shape
    if Q.shape[2] != d:
        raise TensorError(f"maxsim_topk: Q has d = {Q.shape[2]}, the corpus has d = {d}")
    if q_mask is not None and tuple(q_mask.shape) != tuple(Q.shape[:2]):
        raise TensorError(f"maxsim_topk: q_mask must be [Nq, Lq] = {list(Q.shape[:2])}, got {list(q_mask.shape)}")
    if corpus_mask is not None:
        if not isinstance(corpus_mask, torch.Tensor) or tuple(corpus_mask.shape) != (n, ld):
            raise TensorError(f"maxsim_topk: corpus_mask must be a tensor [N, Ld] = {[n, ld]}, "
                              f"got {list(getattr(corpus_mask, 'shape', ()))}")
        if corpus_mask.is_complex():
            raise TensorError(f"maxsim_topk: corpus_mask must be a bool tensor, got {corpus_mask.dtype}")
        if corpus_mask.device != rows.device:
            raise TensorError(f"maxsim_topk: corpus_mask is on {corpus_mask.device}, the corpus on {rows.device}")
    if n > MAX_DOCS:
        raise TensorError(f"maxsim_topk: indices must stay below 2**32 - 1, the corpus has {n} documents")
    if block_size is None:
        block_size = default_block_size(corpus, Q.shape[0], resident=rows.device == device)
    else:
        try:
            if isinstance(block_size, bool):
                raise TypeError
            block_size = operator.index(block_size)
        except TypeError:
            block_size = 0
        if block_size < 1:
            raise TensorError(f"maxsim_topk: block_size must be a positive int, got {block_size!r}")
    Qd = Q.to(device=device) if stored else Q.to(device=device, dtype=rows.dtype)  # (stored: quantized per block)
    qm = q_mask.to(device) if q_mask is not None else None
    return _Plan(Q=Qd, q_mask=qm, corpus=corpus, corpus_mask=corpus_mask, k=k, n=n, nq=Qd.shape[0],
                 block=max(1, min(block_size, n)), device=device, normalize=normalize, single=single)


def _search(Q, corpus, k, *, q_mask, corpus_mask, block_size, device, normalize, overlap, offset):
    """The running top-k as keys [Nq, k] on the device; (keys, single query?)."""
    dev = _resolve_device(device, Q if isinstance(Q, torch.Tensor) else None)
    plan = _plan(Q, corpus, k, q_mask=q_mask, corpus_mask=corpus_mask, block_size=block_size,
                 device=dev, normalize=normalize)
    return _run(plan, offset, overlap), plan.single


def _run(p: _Plan, offset: int, overlap: bool) -> torch.Tensor:
    """Stream the corpus of a plan; the running top-k keys [Nq, k] on the device."""
    if offset + p.n > MAX_DOCS:
        raise TensorError(f"maxsim_topk: indices must stay below 2**32 - 1, the corpus reaches {offset + p.n}")
    running = _pad_keys(p.nq, p.k, p.device)
    if p.k == 0 or p.nq == 0 or p.n == 0:
        return running
    low_base = MAX_DOCS - torch.arange(p.block, dtype=torch.int64, device=p.device)

    def score(block, mask, start):
        nonlocal running
        scores = maxsim(p.Q, block, p.q_mask, mask, normalize=p.normalize)
        running = _merge(running, _keys(scores, offset + start, low_base), p.k)

    with torch.no_grad():
        parts = p.corpus if isinstance(p.corpus, tuple) else (p.corpus,)
        if p.device.type == "cuda" and parts[0].device.type == "cpu":
            with torch.cuda.device(p.device):
                _stream(parts, p.corpus_mask, p.block, p.device, overlap, score)
        else:
            # Already on the device (sliced, no copy), a CPU run, or a device-to-device copy.
            for start in range(0, p.n, p.block):
                end = min(p.n, start + p.block)
                block = tuple(x[start:end].to(p.device) for x in parts)
                mask = _bool(p.corpus_mask[start:end]).to(p.device) if p.corpus_mask is not None else None
                score(block if len(block) > 1 else block[0], mask, start)
    return running


def _search_codes(Q, corpus: ResidualCorpus, k, *, q_mask, corpus_mask, block_size, device):
    """The running top-k keys over a PLAID corpus, a block of documents at a time, each block's
    codes and residuals sliced in place (the offsets read once on the host)."""
    k = _check_k(k)
    if q_mask is not None or corpus_mask is not None:
        raise TensorError("maxsim_topk: a ResidualCorpus takes no q_mask or corpus_mask (its offsets "
                          "give each document's tokens; pass each query's real tokens)")
    if not isinstance(Q, torch.Tensor):
        raise TensorError("maxsim_topk: Q must be a torch.Tensor")
    dev = _resolve_device(device, Q)
    host = corpus.codes.device != dev  # its blocks copied to the device one after another (no overlap yet)
    if host:
        corpus = dataclasses.replace(corpus, centroids=corpus.centroids.to(dev),
                                     bucket_weights=corpus.bucket_weights.to(dev))
    single = Q.dim() == 2
    Q3 = (Q.unsqueeze(0) if single else Q).to(dev)
    n, nq = len(corpus), Q3.shape[0]
    if n > MAX_DOCS:
        raise TensorError(f"maxsim_topk: indices must stay below 2**32 - 1, the corpus holds {n}")
    running = _pad_keys(nq, k, dev)
    if k == 0 or nq == 0 or n == 0:
        return running, single
    cu = corpus.cu_seqlens.to("cpu", torch.int64)
    longest = corpus.max_seqlen if corpus.max_seqlen is not None else int((cu[1:] - cu[:-1]).max())
    block = block_size or max(1, min(n, SCRATCH_BYTES // (_SCRATCH_PER_PAIR * max(1, nq))))
    low_base = MAX_DOCS - torch.arange(block, dtype=torch.int64, device=dev)
    with torch.no_grad():
        for start in range(0, n, block):
            end = min(n, start + block)
            t0, t1 = int(cu[start]), int(cu[end])
            offsets = (cu[start:end + 1] - t0).to(dev, torch.int32, non_blocking=True)
            codes, residuals = corpus.codes[t0:t1], corpus.residuals[t0:t1]
            if host:
                codes, residuals = codes.to(dev, non_blocking=True), residuals.to(dev, non_blocking=True)
            scores = maxsim_residual_varlen(Q3, codes, residuals, offsets, corpus.centroids, corpus.bucket_weights,
                                            corpus.nbits, max_seqlen_d=longest, normalize=corpus.normalize)
            running = _merge(running, _keys(scores, start, low_base), k)
    return running, single


def _stored(corpus, normalize):
    """(rows, scales) of a corpus stored quantized, checked before any block is copied."""
    rows, scales, _ = stored_rows(corpus, "maxsim_topk", normalize)
    if scales.device != rows.device:
        raise TensorError(f"maxsim_topk: the corpus scales are on {scales.device}, its rows on {rows.device}")
    return rows, scales


def _bool(mask: torch.Tensor) -> torch.Tensor:
    if mask.dtype == torch.bool:
        return mask
    if mask.is_complex():
        raise TensorError(f"maxsim_topk: corpus_mask must be a bool tensor, got {mask.dtype}")
    return mask != 0


class _HostSource:
    """One host tensor ([N, ...]) copied block by block into two device buffers.

    Direct from a pinned contiguous tensor, else through two pinned staging
    buffers of one block (filled on the host, which waits until the copy out
    of the staging buffer it is about to refill has finished)."""

    def __init__(self, host: torch.Tensor, block: int, device, dtype):
        self.host = host
        self.direct = host.is_pinned() and host.is_contiguous() and host.dtype == dtype
        shape = (block,) + tuple(host.shape[1:])
        self.buffers = [torch.empty(shape, dtype=dtype, device=device) for _ in range(2)]
        self.staging = None if self.direct else \
            [torch.empty(shape, dtype=dtype, pin_memory=True) for _ in range(2)]

    def copy(self, slot: int, start: int, end: int, staged_free: torch.cuda.Event):
        """Enqueue the copy of rows start:end into buffer ``slot`` on the current stream."""
        n = end - start
        if self.direct:
            src = self.host[start:end]
        else:
            staged_free.synchronize()        # the last copy out of this staging buffer is done
            src = self.staging[slot][:n]
            src.copy_(self.host[start:end])  # pageable -> pinned, on the host (casts masks to bool)
        self.buffers[slot][:n].copy_(src, non_blocking=True)
        return self.buffers[slot][:n]


def _stream(parts, corpus_mask, block, dev, overlap, score):
    """Score a host corpus (its parts: the rows, and a stored corpus's scales) on a
    CUDA device, block by block, double-buffered."""
    n = parts[0].shape[0]
    compute = torch.cuda.current_stream(dev)
    copier = torch.cuda.Stream(dev) if overlap else compute
    sources = [_HostSource(x, block, dev, x.dtype) for x in parts]
    if corpus_mask is not None:
        sources.append(_HostSource(corpus_mask, block, dev, torch.bool))
    copied = [torch.cuda.Event(), torch.cuda.Event()]    # block in buffer `slot` has landed
    consumed = [torch.cuda.Event(), torch.cuda.Event()]  # scoring has finished reading buffer `slot`
    starts = list(range(0, n, block))
    views = [None, None]

    def issue(i):
        slot, start = i % 2, starts[i]
        end = min(n, start + block)
        with torch.cuda.stream(copier):
            copier.wait_event(consumed[slot])   # no-op until the event is first recorded
            views[slot] = [src.copy(slot, start, end, copied[slot]) for src in sources]
            copied[slot].record(copier)

    try:
        issue(0)
        for i, start in enumerate(starts):
            slot = i % 2
            compute.wait_event(copied[slot])
            data = views[slot]
            rows = tuple(data[:len(parts)])
            score(rows if len(parts) > 1 else rows[0], _bool(data[-1]) if corpus_mask is not None else None, start)
            consumed[slot].record(compute)
            if i + 1 < len(starts):
                issue(i + 1)                   # runs on the copy stream while block i is scored
    finally:
        compute.wait_stream(copier)            # no buffer is freed while a copy may still write it

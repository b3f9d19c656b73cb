"""MaxSim over PLAID / ColBERTv2 residual codes, scored as stored (late-interaction-kernels' argument order).

A PLAID index keeps each document token as a centroid id and nbits-bit residual
codes, one a coordinate, packed in bytes: the row is
``normalize(centroids[code] + bucket_weights[bucket_f])``. These ops form the rows
in the kernel, a tile at a time (the spec language's computed operands), so the
corpus is read as stored: d * nbits / 8 bytes and one id a token, never a
decompressed copy. The specs are ``ops/maxsim_residual*.hsr``; nbits 2 and 4 with
normalisation are bundled, other widths (1, 8) and ``normalize=False`` are
compiled from the same text at their first call (then cached).

Bytes are read LSB-first: coordinate f's code sits in byte f // (8 / nbits), at
bit (f % (8 / nbits)) * nbits, as late-interaction-kernels reads them.
fast-plaid and ColBERT write each byte's bits in the opposite order:
``plaid_bytes`` converts their residuals.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path

import torch

from hsr import generated
from hsr.errors import TensorError

NBITS = (1, 2, 4, 8)
_REV8 = torch.tensor([int(f"{b:08b}"[::-1], 2) for b in range(256)], dtype=torch.uint8)

def spec_text(nbits: int, varlen: bool, normalize: bool = True, residual: bool = True) -> str:
    """The spec of a residual op (residual=False: the centroid stage, each token its centroid alone)."""
    by = " by cu" if varlen else ""
    what = (f"each document token a centroid id and {nbits}-bit residual codes, one a coordinate"
            if residual else "PLAID's centroid stage: each document token scored as its centroid, to prune candidates")
    lines = [f"# MaxSim over a PLAID index as stored{', packed documents' if varlen else ''}: {what}.",
             "# The rows are formed in the kernel (hsr.ops.residual); the bytes are read LSB-first.",
             "Q[i, s, d]: float", "centroids[c, d]: float"]
    if varlen:
        lines.append("cu[j]: offsets                # Nd + 1 entries: document j is tokens cu[j] .. cu[j + 1] - 1")
    lines.append(f"codes[j, t{by}]: int")
    if residual:
        lines += [f"residuals[j, t{by}, d]: uint{nbits}", "bucket_weights[b]: float"]
    if not varlen:
        lines.append("doc_lengths[j]: int = full")
    rows = "centroids[codes[j, t], d]" + (" + bucket_weights[residuals[j, t, d]]" if residual else "")
    lines.append(f"D[j, t, d] = {f'normalize({rows})' if normalize else rows}")
    lines.append("score[i, j] = sum_s max_t <Q_s, D_t>" + ("" if varlen else "  where t < doc_lengths[j]"))
    return "\n".join(lines) + "\n"


# the ops' modules that ship generated (ops/*.hsr): the others compile from spec_text at their first call
BUNDLED_MODULES = ("maxsim_residual2", "maxsim_residual2_varlen", "maxsim_residual4", "maxsim_residual4_varlen",
                   "plaid_centroids")


@functools.lru_cache(maxsize=None)
def _module(nbits: int, varlen: bool, normalize: bool, residual: bool = True):
    """The op's module: bundled where generated, else compiled from the spec text (once a process)."""
    name = (f"maxsim_residual{nbits}" if residual else "plaid_centroids") + ("_varlen" if varlen else "")
    if normalize and name in BUNDLED_MODULES:
        return getattr(generated, name)
    import hsr  # (the compiler: parsing and rendering, only for what is not bundled)

    return hsr.compile(spec_text(nbits, varlen, normalize, residual)).module


def _check(Q, codes, residuals, centroids, bucket_weights, nbits):
    if nbits not in NBITS:
        raise TensorError(f"maxsim_residual: nbits must be one of {NBITS}, got {nbits!r}")
    for name, x in (("Q", Q), ("codes", codes), ("centroids", centroids)) + (
            (("residuals", residuals), ("bucket_weights", bucket_weights)) if residuals is not None else ()):
        if not isinstance(x, torch.Tensor):
            raise TensorError(f"maxsim_residual: {name} must be a torch.Tensor, got {type(x).__name__}")
    if residuals is not None and bucket_weights.numel() != 1 << nbits:
        raise TensorError(f"maxsim_residual: bucket_weights must hold 2^nbits = {1 << nbits} values, "
                          f"got shape {tuple(bucket_weights.shape)}")


def _rows(Q, tables, normalize):
    """Q as a batch (normalised where asked) and the tables in one dtype, the kernels'
    (their float inputs share one): the centroids' where they are 16-bit (an fp16
    index keeps its precision; the rows are formed in fp32 and rounded once, to it),
    else Q's."""
    single = Q.dim() == 2
    Q3 = Q.unsqueeze(0) if single else Q
    centroids = tables[0]
    work = centroids.dtype if centroids.dtype in (torch.float16, torch.bfloat16) else Q.dtype
    if normalize:
        Q3 = torch.nn.functional.normalize(Q3.float() if Q3.dtype != torch.float64 else Q3, dim=-1)
    return single, Q3.to(work), [t.to(work) if t is not None and t.dtype != work else t for t in tables]


def maxsim_residual(Q: torch.Tensor, codes: torch.Tensor, residuals: torch.Tensor, doc_lengths: torch.Tensor | None,
                    centroids: torch.Tensor, bucket_weights: torch.Tensor, nbits: int, *,
                    normalize: bool = True) -> torch.Tensor:
    """MaxSim scores [Nq, Nd] (fp32) of Q against documents stored as residual codes.

    Q: [Nq, Lq, d] or [Lq, d] (then [Nd] out). codes [Nd, Ld] int32/int64 centroid ids;
    residuals [Nd, Ld, ceil(d * nbits / 8)] uint8 (LSB-first; see plaid_bytes);
    doc_lengths [Nd] (tokens past a document's length are padding) or None;
    centroids [C, d]; bucket_weights [2^nbits]. normalize: L2-normalise Q's tokens and
    each decompressed row (PLAID's rows are). Differentiable in Q. The kernels run in
    the centroids' dtype where it is 16-bit (Q is cast to it), else in Q's."""
    _check(Q, codes, residuals, centroids, bucket_weights, nbits)
    single, Q3, (centroids, bucket_weights) = _rows(Q, (centroids, bucket_weights), normalize)
    out = _module(nbits, False, normalize).apply(Q=Q3, centroids=centroids, codes=codes, residuals=residuals,
                                                 bucket_weights=bucket_weights, doc_lengths=doc_lengths)
    return out[0] if single else out


def maxsim_residual_varlen(Q: torch.Tensor, codes: torch.Tensor, residuals: torch.Tensor, cu_seqlens_d: torch.Tensor,
                           centroids: torch.Tensor, bucket_weights: torch.Tensor, nbits: int, *,
                           max_seqlen_d: int | None = None, normalize: bool = True) -> torch.Tensor:
    """maxsim_residual over packed documents: codes [T], residuals [T, ceil(d * nbits / 8)],
    cu_seqlens_d [Nd + 1] (document j is tokens cu[j] .. cu[j + 1] - 1; an empty one
    scores 0). max_seqlen_d, where known, spares the host sync that reads the
    longest document (the offsets are then checked on the device)."""
    _check(Q, codes, residuals, centroids, bucket_weights, nbits)
    single, Q3, (centroids, bucket_weights) = _rows(Q, (centroids, bucket_weights), normalize)
    seqlen = None if max_seqlen_d is None else {"t": int(max_seqlen_d)}
    out = _module(nbits, True, normalize).apply(Q=Q3, centroids=centroids, cu=cu_seqlens_d, codes=codes,
                                                residuals=residuals, bucket_weights=bucket_weights, max_seqlen=seqlen)
    return out[0] if single else out


def plaid_centroid_scores(Q: torch.Tensor, codes: torch.Tensor, doc_lengths: torch.Tensor | None,
                          centroids: torch.Tensor, *, normalize: bool = True) -> torch.Tensor:
    """PLAID's first stage: each document token scored as its centroid, sum_s max_t
    <Q_s, centroids[codes[j, t]]> [Nq, Nd], for pruning candidates before an exact
    rerank. The centroid rows are gathered in the kernel (no query-by-centroid table).
    Arguments as maxsim_residual's; normalize: L2-normalise Q's tokens and each
    centroid row (PLAID's centroids are unit rows already)."""
    _check(Q, codes, None, centroids, None, 2)
    single, Q3, (centroids,) = _rows(Q, (centroids,), normalize)
    out = _module(2, False, normalize, residual=False).apply(Q=Q3, centroids=centroids, codes=codes,
                                                            doc_lengths=doc_lengths)
    return out[0] if single else out


def plaid_centroid_scores_varlen(Q: torch.Tensor, codes: torch.Tensor, cu_seqlens_d: torch.Tensor,
                                 centroids: torch.Tensor, *, max_seqlen_d: int | None = None,
                                 normalize: bool = True) -> torch.Tensor:
    """plaid_centroid_scores over packed documents: codes [T], cu_seqlens_d [Nd + 1]
    (compiled from its spec at the first call)."""
    _check(Q, codes, None, centroids, None, 2)
    single, Q3, (centroids,) = _rows(Q, (centroids,), normalize)
    seqlen = None if max_seqlen_d is None else {"t": int(max_seqlen_d)}
    out = _module(2, True, normalize, residual=False).apply(Q=Q3, centroids=centroids, cu=cu_seqlens_d, codes=codes,
                                                           max_seqlen=seqlen)
    return out[0] if single else out


def plaid_bytes(residuals: torch.Tensor) -> torch.Tensor:
    """fast-plaid's or ColBERT's residual bytes in the LSB-first order these ops read:
    they pack each coordinate's code from the byte's high bits with its own bits
    reversed, which is every byte's 8 bits reversed."""
    if residuals.dtype != torch.uint8:
        raise TensorError(f"plaid_bytes: residuals must be torch.uint8, got {residuals.dtype}")
    return _REV8.to(residuals.device)[residuals.long()]


@dataclasses.dataclass(frozen=True)
class ResidualCorpus:
    """A corpus stored as a PLAID index, packed: document j is tokens
    cu_seqlens[j] .. cu_seqlens[j + 1] - 1 of ``codes`` [T] and ``residuals``
    [T, ceil(d * nbits / 8)] (LSB-first bytes); ``centroids`` [C, d],
    ``bucket_weights`` [2^nbits]. ``hsr.ops.maxsim_topk`` scans it whole, scoring
    it as stored (maxsim_residual_varlen, block by block); ``load_fast_plaid``
    reads one from a fast-plaid index. ``max_seqlen``: the longest document, where
    known (else read from the offsets once)."""
    codes: torch.Tensor
    residuals: torch.Tensor
    cu_seqlens: torch.Tensor
    centroids: torch.Tensor
    bucket_weights: torch.Tensor
    nbits: int
    max_seqlen: int | None = None
    normalize: bool = True

    def __len__(self) -> int:
        return self.cu_seqlens.shape[0] - 1

    @property
    def nbytes(self) -> int:
        """The index's bytes: codes (as int32), residuals, offsets, centroids and bucket weights."""
        return (self.codes.numel() * 4 + self.residuals.numel() + self.cu_seqlens.numel() * 4
                + self.centroids.numel() * self.centroids.element_size() + self.bucket_weights.numel() * 4)

    def to(self, device) -> "ResidualCorpus":
        return dataclasses.replace(self, **{f.name: getattr(self, f.name).to(device) for f in dataclasses.fields(self)
                                            if isinstance(getattr(self, f.name), torch.Tensor)})


def load_fast_plaid(path, device=None) -> ResidualCorpus:
    """A fast-plaid (1.7) index as a ResidualCorpus: its codes, residuals (their
    bytes converted by plaid_bytes), centroids and bucket weights, with offsets
    from its document lengths. Reads the merged payload (merged_codes.npy,
    merged_residuals.npy) or the per-chunk files ({i}.codes.npy, {i}.residuals.npy)."""
    import numpy as np  # (numpy reads the index's .npy files; torch does not)

    path = Path(path)
    meta = json.loads((path / "metadata.json").read_text())
    chunks = int(meta.get("num_chunks", 1))
    lengths = [n for i in range(chunks) for n in json.loads((path / f"doclens.{i}.json").read_text())]
    total = sum(lengths)

    def payload(kind):
        merged = path / f"merged_{kind}.npy"
        parts = [np.load(merged, mmap_mode="r")] if merged.exists() else \
            [np.load(path / f"{i}.{kind}.npy", mmap_mode="r") for i in range(chunks)]
        joined = np.concatenate([np.asarray(p) for p in parts]) if len(parts) > 1 else np.asarray(parts[0])
        if joined.shape[0] < total:
            raise TensorError(f"load_fast_plaid: {path} holds {joined.shape[0]} {kind} rows, its doclens {total}")
        return torch.from_numpy(np.array(joined[:total]))  # a copy (the merged files end with padding rows)

    cu = torch.zeros(len(lengths) + 1, dtype=torch.int64)
    cu[1:] = torch.tensor(lengths, dtype=torch.int64).cumsum(0)
    corpus = ResidualCorpus(
        codes=payload("codes"), residuals=plaid_bytes(payload("residuals")), cu_seqlens=cu,
        centroids=torch.from_numpy(np.load(path / "centroids.npy")),
        bucket_weights=torch.from_numpy(np.load(path / "bucket_weights.npy")).float(),
        nbits=int(meta["nbits"]), max_seqlen=max(lengths, default=0))
    return corpus.to(device) if device is not None else corpus

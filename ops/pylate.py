"""PyLate's ColBERT scoring functions, on hsr's MaxSim kernels.

Drop-in replacements for ``pylate.scores.colbert_scores``,
``colbert_kd_scores``, ``colbert_scores_pairwise`` and ``ColBERTScores``, with
their call conventions, so they can be passed as a PyLate loss's
``score_metric`` or called where PyLate calls its own::

    from pylate import losses
    from hsr.ops import pylate as hsr_pylate

    loss = losses.Contrastive(model, score_metric=hsr_pylate.colbert_scores)
    loss = losses.Distillation(model, score_metric=hsr_pylate.colbert_kd_scores)

What they take, as PyLate does: torch tensors, numpy arrays, or lists of
per-sequence tensors / arrays. A list whose sequences differ in length (what
``model.encode(..., convert_to_numpy=False)`` returns) is padded here, and the
padding never enters a score (PyLate's own functions either fail on such lists
or, for the pairwise one, score each pair unpadded: the same numbers).

Masks (True / nonzero marks a real token) follow ``mask_semantics``:

- ``"exclude"`` (default; hsr's semantics, and what PyLate's optional
  flash-maxsim backend does through lengths): a masked document token leaves
  the max, a masked query token leaves the sum, a document with no real token
  scores 0.
- ``"pylate"``: PyLate's pure-torch formula, which multiplies the similarity
  matrix by the masks before the max. A masked document token then competes in
  the max with the value 0, so a query token whose every real similarity is
  negative scores 0 instead of its best (negative) similarity, in documents
  that have at least one masked token. Computed exactly, values and gradients,
  as MaxSim of the masked-out tokens set to zero (``<q, m_t d_t> = m_t <q, d_t>``),
  which also reproduces non-binary (weighting) masks.

Scores are float32 for fp16, bf16 and fp32 inputs (PyLate returns the input
dtype); float64 inputs (either one: the two are promoted to one dtype) are
scored in float64 by hsr's float64 reference evaluator, for checking
(gradcheck) and small problems, not the kernels.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import torch

from hsr.errors import TensorError

from .maxsim import maxsim
from .varlen import maxsim_pairs

__all__ = ["ColBERTScores", "colbert_kd_scores", "colbert_scores", "colbert_scores_pairwise"]

MASK_SEMANTICS = ("exclude", "pylate")


def colbert_scores(queries_embeddings, documents_embeddings, queries_mask=None, documents_mask=None, *,
                   mask_semantics: str = "exclude", normalize: bool = False,
                   backward: str = "auto") -> torch.Tensor:
    """ColBERT scores of every query against every document, float32.

    queries_embeddings [Nq, Lq, d] (or a list of Nq [Lq_i, d] sequences).
    documents_embeddings [Nd, Ld, d] (or a list of [Ld_j, d]) gives [Nq, Nd];
    [Nd, N, Ld, d] (Contrastive's documents stacked N per group, as PyLate's
    ``ColBERTScores`` takes them) gives [Nq, Nd * N] in query-major order:
    column ``j * N + k`` is the k-th document of group j.
    queries_mask [Nq, Lq], documents_mask [Nd, Ld] or [Nd, N, Ld]: bool or 0/1,
    read per ``mask_semantics`` ("exclude" or "pylate", see the module notes).
    normalize: L2-normalise every token inside the kernel (cosine MaxSim;
       PyLate's losses normalise before scoring, so they need not). Under
       "pylate" semantics the masks scale the tokens first, so a non-binary
       mask's weight is normalised away there.
    backward: hsr's backward strategy, "auto", "atomic" or "deterministic".
    """
    _check_semantics(mask_semantics)
    Q, q_pad = _as_tensor(queries_embeddings, "queries_embeddings")
    D, d_pad = _as_tensor(documents_embeddings, "documents_embeddings")
    Q, D = _common_dtype(Q, D)
    groups = None
    if D.dim() == 4:                                          # [Nd, N, Ld, d]: query-major in-batch layout
        groups = D.shape[:2]
        D = D.reshape(-1, *D.shape[2:])
        d_pad = None if d_pad is None else d_pad.reshape(-1, d_pad.shape[-1])
        documents_mask = _mask_arg(documents_mask)
        if documents_mask is not None and documents_mask.dim() == 3:
            documents_mask = documents_mask.reshape(-1, documents_mask.shape[-1])
    elif D.dim() != 3:
        raise TensorError(f"colbert_scores: documents_embeddings must be [Nd, Ld, d] or [Nd, N, Ld, d], "
                          f"got shape {tuple(D.shape)}")
    scores = _score(Q, D, queries_mask, documents_mask, q_pad, d_pad, mask_semantics, normalize, backward)
    if groups is not None and scores.dim() == 2:
        scores = scores.reshape(scores.shape[0], groups[0] * groups[1])
    return scores


def colbert_kd_scores(queries_embeddings, documents_embeddings, queries_mask=None, documents_mask=None, *,
                      mask_semantics: str = "exclude", normalize: bool = False,
                      backward: str = "auto") -> torch.Tensor:
    """ColBERT scores of each query against its own candidates (knowledge
    distillation), float32 [Nq, K].

    queries_embeddings [Nq, Lq, d]; documents_embeddings [Nq, K, Ld, d] (or a
    list of Nq tensors [K, Ld_i, d]); queries_mask [Nq, Lq]; documents_mask
    [Nq, K, Ld]. Options as in ``colbert_scores``.
    """
    _check_semantics(mask_semantics)
    Q, q_pad = _as_tensor(queries_embeddings, "queries_embeddings")
    D, d_pad = _as_tensor(documents_embeddings, "documents_embeddings")
    Q, D = _common_dtype(Q, D)
    if D.dim() != 4:
        raise TensorError(f"colbert_kd_scores: documents_embeddings must be [Nq, K, Ld, d], "
                          f"got shape {tuple(D.shape)}")
    return _score(Q, D, queries_mask, documents_mask, q_pad, d_pad, mask_semantics, normalize, backward)


def colbert_scores_pairwise(queries_embeddings, documents_embeddings, *, queries_mask=None,
                            documents_mask=None, mask_semantics: str = "exclude", normalize: bool = False,
                            backward: str = "auto") -> torch.Tensor:
    """The ColBERT score of query i against document i, float32 [B].

    queries_embeddings [B, Lq, d] or a list of B [Lq_i, d] sequences;
    documents_embeddings [B, Ld, d] or a list of B [Ld_i, d]. PyLate's version
    takes no masks; here they are optional keywords ([B, Lq], [B, Ld]). Lists of
    sequences of different lengths (and no masks) are packed, not padded, and
    scored by ``hsr.ops.maxsim_pairs``.
    """
    _check_semantics(mask_semantics)
    if queries_mask is None and documents_mask is None:
        packed = _packed_pairs(queries_embeddings, documents_embeddings)
        if packed is not None:  # sequences of different lengths: packed, never padded
            return maxsim_pairs(*packed, normalize=normalize, backward=backward)
    Q, q_pad = _as_tensor(queries_embeddings, "queries_embeddings")
    D, d_pad = _as_tensor(documents_embeddings, "documents_embeddings")
    Q, D = _common_dtype(Q, D)
    if Q.dim() != 3 or D.dim() != 3 or Q.shape[0] != D.shape[0]:
        raise TensorError(f"colbert_scores_pairwise: expected [B, Lq, d] queries and [B, Ld, d] documents "
                          f"with one B, got {tuple(Q.shape)} and {tuple(D.shape)}")
    D = D.unsqueeze(1)                                        # each query's one candidate: [B, 1, Ld, d]
    d_pad = None if d_pad is None else d_pad.unsqueeze(1)
    documents_mask = _mask_arg(documents_mask)
    if documents_mask is not None and documents_mask.dim() == 2:
        documents_mask = documents_mask.unsqueeze(1)
    scores = _score(Q, D, queries_mask, documents_mask, q_pad, d_pad, mask_semantics, normalize, backward)
    return scores.squeeze(1)


class ColBERTScores:
    """A configured ``colbert_scores``, in the shape of PyLate's ``ColBERTScores``
    (the default ``score_metric`` of its Contrastive and CachedContrastive
    losses): called with queries [Nq, Lq, d] and documents [Nd, N, Ld, d], it
    returns [Nq, Nd * N] in query-major order.

        losses.Contrastive(model, score_metric=ColBERTScores(mask_semantics="pylate"))
    """

    def __init__(self, mask_semantics: str = "exclude", normalize: bool = False, backward: str = "auto"):
        _check_semantics(mask_semantics)
        self.mask_semantics = mask_semantics
        self.normalize = normalize
        self.backward = backward

    def __call__(self, queries_embeddings, documents_embeddings, queries_mask=None, documents_mask=None):
        return colbert_scores(queries_embeddings, documents_embeddings, queries_mask, documents_mask,
                              mask_semantics=self.mask_semantics, normalize=self.normalize,
                              backward=self.backward)

    def __repr__(self):
        return (f"ColBERTScores(mask_semantics={self.mask_semantics!r}, normalize={self.normalize}, "
                f"backward={self.backward!r})")


# ----------------------------------------------------------------------------- helpers

def _packed_pairs(queries, documents):
    """(Q packed, D packed, cu_q, cu_d, longest query, longest document) where
    both sides are lists of [L_i, d] sequences, one per pair, and some lengths
    differ; None otherwise (tensors, or a list of equal lengths, go the padded
    way, which then pads nothing). The offsets come from the shapes: no sync."""
    sides = []
    for value in (queries, documents):
        if isinstance(value, torch.Tensor) or not isinstance(value, Sequence) or isinstance(value, (str, bytes)):
            return None
        items = [v if isinstance(v, torch.Tensor) else _as_float_tensor(v) for v in value]
        if not items or any(t.dim() != 2 for t in items):
            return None
        sides.append(items)
    queries, documents = sides
    if len(queries) != len(documents) or len({t.shape[-1] for t in queries + documents}) != 1 \
            or len({t.device for t in queries + documents}) != 1:
        return None
    if len({t.shape[0] for t in queries}) == 1 and len({t.shape[0] for t in documents}) == 1:
        return None
    Q, D = _common_dtype(torch.cat(queries), torch.cat(documents))
    lengths = [[t.shape[0] for t in side] for side in (queries, documents)]
    cu = [torch.tensor([0] + list(itertools.accumulate(ls)), dtype=torch.int32, device=Q.device) for ls in lengths]
    return Q, D, cu[0], cu[1], max(lengths[0]), max(lengths[1])


def _check_semantics(mask_semantics):
    if mask_semantics not in MASK_SEMANTICS:
        raise ValueError(f"mask_semantics must be one of {', '.join(map(repr, MASK_SEMANTICS))}, "
                         f"got {mask_semantics!r}")


def _score(Q, D, q_mask, d_mask, q_pad, d_pad, mask_semantics, normalize, backward):
    """MaxSim with user masks read per ``mask_semantics`` and padding masks
    (from ragged lists) always excluded."""
    q_mask = _as_mask_tensor(q_mask, Q, "queries_mask")
    d_mask = _as_mask_tensor(d_mask, D, "documents_mask")
    if mask_semantics == "pylate":
        # PyLate's masked similarity m_s * m_t * <q_s, d_t> is the plain similarity
        # of the scaled tokens m_s q_s and m_t d_t. A bool query mask is the same
        # as excluding the token (it would add max_t 0 = 0 and pass no gradient),
        # so it goes to the kernel instead of costing a copy of Q.
        if q_mask is not None and q_mask.dtype != torch.bool:
            Q = Q * _scale(q_mask, Q)
            q_mask = None
        if d_mask is not None:
            D = D * _scale(d_mask, D)
            d_mask = None
    q_mask = _both(q_mask, q_pad)
    d_mask = _both(d_mask, d_pad)
    return maxsim(Q, D, q_mask, d_mask, normalize=normalize, backward=backward)


def _scale(mask, x):
    """A mask as a multiplier broadcastable against x [..., L, d]."""
    if mask.shape != x.shape[:-1]:
        raise TensorError(f"mask of shape {tuple(mask.shape)} does not match embeddings of shape {tuple(x.shape)}")
    return mask.to(device=x.device, dtype=x.dtype).unsqueeze(-1)


def _both(user, pad):
    if pad is None:
        return user
    pad = pad.to(user.device) if user is not None else pad
    if user is None:
        return pad
    if user.shape != pad.shape:
        raise TensorError(f"mask of shape {tuple(user.shape)} does not match the padded embeddings' "
                          f"{tuple(pad.shape)}")
    return pad & (user != 0)


def _as_mask_tensor(mask, x, name):
    mask = _mask_arg(mask)
    if mask is None:
        return None
    if mask.is_complex():
        raise TensorError(f"{name} must be a bool or real tensor, got {mask.dtype}")
    return mask.to(x.device)


def _mask_arg(mask):
    """Masks may come as tensors, arrays or nested lists."""
    return mask if mask is None or isinstance(mask, torch.Tensor) else torch.as_tensor(mask)


def _as_tensor(value, name):
    """(tensor, padding mask or None) from a tensor, an array, or a list of
    per-sequence tensors / arrays / nested lists (padded along the token axis,
    dim -2, when their lengths differ)."""
    if isinstance(value, torch.Tensor):
        return value, None
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        if len(value) == 0:
            raise TensorError(f"{name}: empty list")
        items = [v if isinstance(v, torch.Tensor) else _as_float_tensor(v) for v in value]
        if all(t.shape == items[0].shape for t in items):
            return torch.stack(items), None
        ndim = items[0].dim()
        if ndim < 2 or any(t.dim() != ndim or t.shape[:-2] != items[0].shape[:-2] or t.shape[-1] != items[0].shape[-1]
                           for t in items):
            raise TensorError(f"{name}: the sequences of a list may differ only in length (dim -2), "
                              f"got shapes {[tuple(t.shape) for t in items]}")
        longest = max(t.shape[-2] for t in items)
        out = items[0].new_zeros((len(items), *items[0].shape[:-2], longest, items[0].shape[-1]))
        pad = torch.zeros(out.shape[:-1], dtype=torch.bool, device=out.device)
        for i, t in enumerate(items):
            out[i, ..., :t.shape[-2], :] = t
            pad[i, ..., :t.shape[-2]] = True
        return out, pad
    try:
        return _as_float_tensor(value), None
    except (TypeError, ValueError, RuntimeError) as exc:
        raise TensorError(f"{name}: expected a tensor, an array or a list of them, got {type(value).__name__}") from exc


def _as_float_tensor(value):
    t = torch.as_tensor(value)
    return t if t.is_floating_point() else t.float()


def _common_dtype(Q, D):
    """One float dtype for both (maxsim's contract); float64 stays float64 (the
    float64 reference evaluator), integers run as float32."""
    dtype = torch.promote_types(Q.dtype, D.dtype)
    if not dtype.is_floating_point:
        dtype = torch.float32
    return Q.to(dtype), D.to(dtype)

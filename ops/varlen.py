"""MaxSim over packed variable-length sequences (cu_seqlens offsets).

``maxsim_varlen`` scores every packed query against every packed document;
``maxsim_pairs`` scores N packed (query, document) pairs, each query against
its own document. Neither pads: the kernels read each sequence's rows from the
offsets and stop at its end (the specs ``maxsim_varlen*.hsr`` and
``maxsim_pairs*.hsr``, whose axes are ragged).
"""

from __future__ import annotations

import torch

from hsr import generated
from hsr.errors import TensorError


def maxsim_varlen(Q_packed: torch.Tensor, D_packed: torch.Tensor, cu_seqlens_q: torch.Tensor,
                  cu_seqlens_d: torch.Tensor, max_seqlen_q: int | None = None, max_seqlen_d: int | None = None,
                  *, normalize: bool = False, backward: str = "auto") -> torch.Tensor:
    """MaxSim scores [Nq, Nd] of packed queries against packed documents, fp32,
    differentiable in Q_packed and D_packed (late-interaction-kernels' argument order).

    Q_packed [total query tokens, d], D_packed [total document tokens, d]: each
    sequence's tokens one after another. cu_seqlens_q [Nq + 1], cu_seqlens_d
    [Nd + 1] (int32 or int64): sequence i is rows cu[i] .. cu[i + 1] - 1; they
    start at 0, never decrease and end at the packed size. An empty sequence
    scores 0 (an empty document) or adds nothing (an empty query).
    max_seqlen_q, max_seqlen_d: the longest query and document, where known:
    with both, the call never waits for the GPU (the offsets are then checked
    on the device); without, one host sync reads them.
    normalize: cosine MaxSim (every token L2-normalised inside the kernel).
    backward: "atomic", "deterministic" (bitwise reproducible) or "auto".
    """
    module = generated.maxsim_varlen_cos if normalize else generated.maxsim_varlen
    return _call("maxsim_varlen", module, Q_packed, D_packed, cu_seqlens_q, cu_seqlens_d,
                 max_seqlen_q, max_seqlen_d, backward)


def maxsim_pairs(Q_packed: torch.Tensor, D_packed: torch.Tensor, cu_seqlens_q: torch.Tensor,
                 cu_seqlens_d: torch.Tensor, max_seqlen_q: int | None = None, max_seqlen_d: int | None = None,
                 *, normalize: bool = False, backward: str = "auto") -> torch.Tensor:
    """MaxSim scores [N] of N packed (query, document) pairs: pair n scores query n
    (rows cu_seqlens_q[n] .. cu_seqlens_q[n + 1] - 1 of Q_packed) against
    document n. Reranking (a query against its candidates: the query's tokens
    repeated once per candidate, or ``maxsim_varlen`` with Nq = 1) and PyLate's
    ``colbert_scores_pairwise``. Arguments as ``maxsim_varlen``; both offsets
    have N + 1 entries."""
    module = generated.maxsim_pairs_cos if normalize else generated.maxsim_pairs
    if isinstance(cu_seqlens_q, torch.Tensor) and isinstance(cu_seqlens_d, torch.Tensor) \
            and cu_seqlens_q.shape != cu_seqlens_d.shape:
        raise TensorError(f"maxsim_pairs: cu_seqlens_q {tuple(cu_seqlens_q.shape)} and cu_seqlens_d "
                          f"{tuple(cu_seqlens_d.shape)} must both hold N + 1 offsets, for N pairs")
    return _call("maxsim_pairs", module, Q_packed, D_packed, cu_seqlens_q, cu_seqlens_d,
                 max_seqlen_q, max_seqlen_d, backward)


def _call(name, module, Q, D, cu_q, cu_d, max_q, max_d, backward):
    for arg, value in (("Q_packed", Q), ("D_packed", D), ("cu_seqlens_q", cu_q), ("cu_seqlens_d", cu_d)):
        if not isinstance(value, torch.Tensor):
            raise TensorError(f"{name}: {arg} must be a torch.Tensor, got {type(value).__name__}")
    for arg, value in (("max_seqlen_q", max_q), ("max_seqlen_d", max_d)):
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            raise TensorError(f"{name}: {arg} must be an int >= 0 or None, got {value!r}")
    limits = {axis: value for axis, value in (("s", max_q), ("t", max_d)) if value is not None}
    return module.apply(cu_q, cu_d, Q, D, backward=backward, max_seqlen=limits or None)

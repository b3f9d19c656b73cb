"""MaxSim, the late-interaction score of ColBERT and ColPali.

``maxsim(Q, D)`` sums, over query tokens, each token's best inner product with
a document's tokens. It runs the kernels generated from ``maxsim*.hsr``
(imported from ``hsr.generated``: no parsing or code generation on this path).
"""

from __future__ import annotations

import torch

from hsr import kept
from hsr.errors import TensorError
from hsr.ops.quantize import quantize_fp8, quantize_int8, stored_rows
from hsr import generated  # each module imported at its first use


def maxsim(Q: torch.Tensor, D: torch.Tensor, q_mask: torch.Tensor | None = None,
           d_mask: torch.Tensor | None = None, *, normalize: bool = False,
           backward: str = "auto", precision: str = "float") -> torch.Tensor:
    """MaxSim scores, fp32 (float64 for float64 inputs), differentiable in Q and D.

    Q: [Nq, Lq, d] (or [Lq, d] for one query).
    D: [Nd, Ld, d] gives scores [Nq, Nd]; [Nq, K, Ld, d] (each query's own K
       candidates) gives [Nq, K]; [Ld, d] (one document, as late-interaction-kernels
       takes it) gives [Nq], one score per query. A one-query Q drops the leading
       axis of the result: Q [Lq, d] with D [Ld, d] gives a 0-d tensor.
    q_mask [Nq, Lq] or [Lq], d_mask [Nd, Ld], [Nq, K, Ld] or [Ld]: True marks
       a real token. A 1-D q_mask [Lq] is shared by every query (broadcast
       over Nq; with a one-query Q [Lq, d] it is that query's mask), and a 1-D
       d_mask [Ld] by every document (broadcast over Nd, or Nq and K), as
       late-interaction-kernels reads it; with one document D [Ld, d] it is
       that document's mask.
       Masked query tokens leave the sum; masked document tokens leave the max;
       a document with no real token scores 0 and passes no gradient.
    normalize: L2-normalise every token inside the kernel (cosine MaxSim).
    backward: "atomic" (one fused pass, fp32 atomics into grad D), "deterministic"
       (grad D owned by its rows: bitwise reproducible) or "auto".
    precision: "float" (the inputs' dtype, fp32 accumulation), "int8" or "fp8":
       each token quantized with its own scale (hsr.ops.quantize_int8 /
       quantize_fp8), dots on those tensor cores (maxsim_int8.hsr,
       maxsim_fp8.hsr; fp8 needs Hopper); for inference (no gradient),
       D [Nd, Ld, d] or [Ld, d] only. Their error against fp32: bench/int8_accuracy.py.
       A float D is quantized on every call, which costs more than scoring it:
       a corpus is quantized once and passed as stored, below.
    D stored quantized: the pair (rows, scales) that quantize_int8 or quantize_fp8
       returned, rows [Nd, Ld, d] or [Ld, d] (int8 or float8_e4m3fn), scales
       [Nd, Ld] or [Ld]. Q stays float and is quantized per call to the rows'
       format (precision may be left "float"); normalize the rows before they
       are quantized (normalize=True needs float D).
    Inputs are fp16, bf16, fp32 or float64 (one dtype for both; float64 runs
    the float64 reference evaluator, not the kernels); ties go to the lowest
    document token.
    """
    if torch.compiler.is_compiling() or (torch.is_grad_enabled() and (getattr(Q, "requires_grad", False)
                                                                     or getattr(D, "requires_grad", False))):
        return _maxsim(Q, D, q_mask, d_mask, normalize, backward, precision)  # autograd: no replay of the whole
    inputs = (Q, *D, q_mask, d_mask) if isinstance(D, tuple) else (Q, D, q_mask, d_mask)
    key = kept.signature(inputs, normalize, backward, precision)
    return kept.call(_KEPT, key, inputs, _maxsim, Q, D, q_mask, d_mask, normalize, backward, precision)


_KEPT = kept.Table()  # maxsim's calls by signature: a repeated inference call replays its launch (hsr.kept)


def _maxsim(Q, D, q_mask, d_mask, normalize, backward, precision):
    """maxsim, as written."""
    d_scale = None
    if isinstance(D, tuple):  # a corpus stored quantized
        D, d_scale, precision = _stored(D, precision, normalize)
    if not isinstance(Q, torch.Tensor) or not isinstance(D, torch.Tensor):
        raise TensorError("maxsim: Q and D must be torch.Tensors (or D the pair (rows, scales) of a quantized corpus)")
    single = Q.dim() == 2
    if single:
        Q = Q.unsqueeze(0)
        if isinstance(q_mask, torch.Tensor):
            if q_mask.dim() != 1:
                raise TensorError(f"maxsim: q_mask of a one-query Q [Lq, d] must be [Lq], "
                                  f"got shape {tuple(q_mask.shape)}")
            q_mask = q_mask.unsqueeze(0)
    if Q.dim() != 3:
        raise TensorError(f"maxsim: Q must be [Nq, Lq, d] or [Lq, d], got shape {tuple(Q.shape)}")
    one_doc = D.dim() == 2
    if one_doc:  # one document [Ld, d]: scores [Nq, 1], then [Nq]
        D = D.unsqueeze(0)
        d_scale = d_scale.unsqueeze(0) if d_scale is not None else None
    q_mask, d_mask = _as_mask(q_mask, "q_mask"), _as_mask(d_mask, "d_mask")
    if isinstance(q_mask, torch.Tensor) and q_mask.dim() == 1:
        # one mask [Lq] for every query; a stride-0 view, no copy
        q_mask = q_mask.expand(Q.shape[0], q_mask.shape[0])
    if isinstance(d_mask, torch.Tensor) and d_mask.dim() == 1 and D.dim() in (3, 4):
        # one mask [Ld] for every document; a stride-0 view, no copy
        d_mask = d_mask.expand(*D.shape[:-2], d_mask.shape[0])
    if precision not in ("float", "int8", "fp8"):
        raise TensorError(f"maxsim: precision must be 'float', 'int8' or 'fp8', got {precision!r}")
    if precision != "float":
        return _squeeze(_quantized(precision, Q, D, q_mask, d_mask, normalize, d_scale), single, one_doc)
    if D.dim() == 3:
        module = generated.maxsim_cos if normalize else generated.maxsim
    elif D.dim() == 4:
        module = generated.maxsim_kd_cos if normalize else generated.maxsim_kd
    else:
        raise TensorError(f"maxsim: D must be [Nd, Ld, d], [Nq, K, Ld, d] or [Ld, d], got shape {tuple(D.shape)}")
    return _squeeze(module.apply(Q, D, qmask=q_mask, dmask=d_mask, backward=backward), single, one_doc)


def _squeeze(out, single, one_doc):
    """Drops the axes a one-query Q and a one-document D added."""
    if one_doc:
        out = out[..., 0]
    return out[0] if single else out


def _stored(D, precision, normalize):
    """(rows, scales, precision) of a corpus stored quantized, checked."""
    rows, scales, stored = stored_rows(D, "maxsim", normalize)
    if precision not in ("float", stored):
        raise TensorError(f"maxsim: precision={precision!r} with D stored as {stored}")
    return rows, scales, stored


def _quantized(precision, Q, D, q_mask, d_mask, normalize, d_scale=None):
    """A float D quantized here (every call), or rows stored quantized with their d_scale."""
    if D.dim() != 3:
        raise TensorError(f"maxsim: precision={precision!r} takes D [Nd, Ld, d], got shape {tuple(D.shape)}")
    if torch.is_grad_enabled() and (Q.requires_grad or D.requires_grad):
        raise TensorError(f"maxsim: precision={precision!r} is for inference: its scores have no gradient "
                          "(use precision='float' to train, or torch.no_grad())")
    if normalize:
        Q, D = (torch.nn.functional.normalize(x.float(), dim=-1) for x in (Q, D))
    quantize, module = (quantize_int8, generated.maxsim_int8) if precision == "int8" \
        else (quantize_fp8, generated.maxsim_fp8)
    (q8, qs), (d8, ds) = quantize(Q), ((D, d_scale) if d_scale is not None else quantize(D))
    return module.apply(q8, d8, qs, ds, qmask=q_mask, dmask=d_mask)


def _as_mask(mask, name):
    """Bool masks pass as they are; 0/1 integer or float masks are read as != 0."""
    if mask is None or not isinstance(mask, torch.Tensor) or mask.dtype == torch.bool:
        return mask
    if not mask.is_complex():
        return mask != 0
    raise TensorError(f"maxsim: {name} must be a bool tensor, got {mask.dtype}")

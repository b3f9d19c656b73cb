"""MaxSim scored from a document encoder's hidden states, through its projection.

``maxsim_from_hidden(Q, H_d, W, b)`` is ``maxsim(Q, normalize(H_d @ W.T + b))``
(late-interaction-kernels' argument order), with a backward that works only
where MaxSim's gradient is: a document token's projected row gets a gradient
only where some query token selected it, so the projection's backward (the
normalisation, grad W, grad b and grad H_d) runs on those rows alone, gathered
from H_d, instead of two GEMMs over every token. How many rows a document can
have selected follows from the shapes (its query tokens, its length), so the
backward never waits for the GPU; where that bound passes a quarter of the rows,
the GEMMs over every row run instead.

Two forwards, chosen by dispatch.hidden_fused:
- fused: the spec ``ops/maxsim_hidden.hsr``, whose computed operand forms the
  projected rows in the MaxSim kernel a tile at a time (never written), its
  backward through hsr.row_grads;
- unfused: every token projected by one GEMM (cuBLAS), the result kept (d_out /
  d_model of H_d's memory) and read by the MaxSim kernels.
"""

from __future__ import annotations

import functools

import torch

from hsr import dispatch, generated
from hsr.errors import TensorError
from hsr.ops.maxsim import maxsim


def maxsim_from_hidden(Q: torch.Tensor, H_d: torch.Tensor, W: torch.Tensor, b: torch.Tensor | None = None,
                       d_mask: torch.Tensor | None = None, normalize: bool = True, *,
                       backward: str = "auto") -> torch.Tensor:
    """MaxSim scores, fp32, of Q against documents given as hidden states,
    differentiable in Q, H_d, W and b.

    Q: [Nq, Lq, d_out] or [Lq, d_out], already projected (and L2-normalised where
       normalize is set: only the documents' rows are normalised here).
    H_d: [Nd, Ld, d_model] (or [Ld, d_model], one document): the encoder's
       hidden states, projected as torch.nn.Linear does: W [d_out, d_model],
       b [d_out] or None.
    d_mask: [Nd, Ld] or [Ld], True marks a real token (as maxsim takes it).
    normalize: L2-normalise each projected token (eps 1e-12, as F.normalize).
    backward: MaxSim's backward ("auto", "atomic" or "deterministic").
    Q, H_d, W and b share one dtype (fp16, bf16, fp32 or float64). Scores are
    [Nq, Nd] ([Nd] for a 2-D Q, [Nq] for a 2-D H_d), as maxsim gives them.
    """
    _check(Q, H_d, W, b)
    training = torch.is_grad_enabled() and any(x is not None and x.requires_grad for x in (Q, H_d, W, b))
    if dispatch.hidden_fused(H_d.device.type, Q.numel() // Q.shape[-1], W.shape[0], training,
                             deterministic=backward == "deterministic"):
        return _fused(Q, H_d, W, b, d_mask, normalize)
    if training:
        contenders = Q.shape[0] * Q.shape[1] if Q.dim() == 3 else Q.shape[0]
        D = _Projection.apply(H_d, W, b, normalize, contenders)
    else:  # (no autograd.Function where no gradient is wanted: fewer host steps)
        D = _project(H_d, W, b, normalize)[0]
    return maxsim(Q, D, d_mask=d_mask, backward=backward)


def spec_text(normalize: bool) -> str:
    """The fused op's spec: ops/maxsim_hidden.hsr, without normalize(...) where not normalised."""
    text = generated.maxsim_hidden.SPEC
    return text if normalize else text.replace("normalize(<H[j, t, :], W[d, :]> + bias[d])", "<H[j, t, :], W[d, :]> + bias[d]")


@functools.lru_cache(maxsize=None)
def _module(normalize: bool):
    """The fused op's module: bundled (generated) where normalised, else compiled from the spec text once."""
    if normalize:
        return generated.maxsim_hidden
    import hsr  # (the compiler: only for what is not bundled)

    return hsr.compile(spec_text(False)).module


def _fused(Q, H_d, W, b, d_mask, normalize):
    """The spec's op: the projected rows formed in the kernel; scores shaped as maxsim gives them."""
    single_q, single_d = Q.dim() == 2, H_d.dim() == 2
    Q3 = Q.unsqueeze(0) if single_q else Q
    H3 = H_d.unsqueeze(0) if single_d else H_d
    mask = d_mask.unsqueeze(0) if (d_mask is not None and single_d) else d_mask
    bias = b if b is not None else W.new_zeros(W.shape[0])
    out = _module(normalize).apply(Q=Q3, H=H3, W=W, bias=bias, d_mask=mask)
    if single_d:
        out = out[:, 0]
    return out[0] if single_q else out


def _check(Q, H_d, W, b):
    """Shapes and dtypes, each error naming the argument."""
    for name, x in (("Q", Q), ("H_d", H_d), ("W", W)) + ((("b", b),) if b is not None else ()):
        if not isinstance(x, torch.Tensor):
            raise TensorError(f"maxsim_from_hidden: {name} must be a torch.Tensor, got {type(x).__name__}")
        if not x.is_floating_point():
            raise TensorError(f"maxsim_from_hidden: {name} must be a float tensor, got {x.dtype}")
    if H_d.dim() not in (2, 3):
        raise TensorError(f"maxsim_from_hidden: H_d must be [Nd, Ld, d_model] or [Ld, d_model], "
                          f"got shape {tuple(H_d.shape)}")
    if W.dim() != 2 or W.shape[1] != H_d.shape[-1]:
        raise TensorError(f"maxsim_from_hidden: W must be [d_out, d_model] with d_model = {H_d.shape[-1]} "
                          f"(H_d's last axis), got shape {tuple(W.shape)}")
    if b is not None and tuple(b.shape) != (W.shape[0],):
        raise TensorError(f"maxsim_from_hidden: b must be [d_out] = [{W.shape[0]}] (W's first axis), "
                          f"got shape {tuple(b.shape)}")
    if Q.dim() not in (2, 3) or Q.shape[-1] != W.shape[0]:
        raise TensorError(f"maxsim_from_hidden: Q must be [Nq, Lq, d_out] or [Lq, d_out] with d_out = "
                          f"{W.shape[0]} (W's first axis), got shape {tuple(Q.shape)}")
    for name, x in (("Q", Q), ("W", W)) + ((("b", b),) if b is not None else ()):
        if x.dtype != H_d.dtype:
            raise TensorError(f"maxsim_from_hidden: {name} is {x.dtype} and H_d {H_d.dtype}: give them one dtype")
        if x.device != H_d.device:
            raise TensorError(f"maxsim_from_hidden: {name} is on {x.device} and H_d on {H_d.device}")


def _project(H, W, b, normalize):
    """The projected rows [..., d_out] in H's dtype and, where normalised, their
    norms (fp32, [..., 1]; F.normalize's eps), as F.normalize forms them."""
    x = torch.nn.functional.linear(H, W, b)
    if not normalize:
        return x, None
    norm = torch.linalg.vector_norm(x, dim=-1, keepdim=True, dtype=torch.float32)
    return x / norm.clamp_min(1e-12).to(x.dtype), norm


def selected_rows(grad: torch.Tensor, bound: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(rows, valid): the flat indices of the rows of grad [..., d] that are not all
    zero (the rows MaxSim's backward reached), at most `bound` of them, in a tensor
    of `bound` entries (valid marks the real ones; the rest are row 0). Its size is
    known without asking the GPU, so the backward never waits for it."""
    reached = (grad.reshape(-1, grad.shape[-1]) != 0).any(dim=1)
    rows = torch.nonzero_static(reached, size=bound, fill_value=0).squeeze(1)
    return rows, torch.arange(bound, device=grad.device) < reached.sum()


DENSE_SHARE = 4  # where more than 1 / DENSE_SHARE of the rows may be selected, the backward runs over every row


class _Projection(torch.autograd.Function):
    """D = normalize(linear(H, W, b)); its backward only at the rows that got a
    gradient, where few can: a document's rows selected are at most its contenders
    (the query tokens, Nq x Lq) and at most its length. Where that bound passes
    1 / DENSE_SHARE of the rows, every row, as two GEMMs."""

    @staticmethod
    def forward(ctx, H, W, b, normalize, contenders):
        D, norm = _project(H, W, b, normalize)
        ctx.save_for_backward(H, W, b, D, norm)
        ctx.normalize, ctx.contenders = normalize, contenders
        return D

    @staticmethod
    def backward(ctx, grad_D):
        H, W, b, D, norm = ctx.saved_tensors
        h, g = H.reshape(-1, H.shape[-1]), grad_D.reshape(-1, grad_D.shape[-1])
        length = H.shape[-2] if H.dim() == 3 else H.shape[0]
        bound = (h.shape[0] // max(length, 1)) * min(length, ctx.contenders)
        dense = bound * DENSE_SHARE > h.shape[0]
        if not dense:
            rows, valid = selected_rows(grad_D, bound)
            h, g = h.index_select(0, rows), g.index_select(0, rows) * valid[:, None]
        if ctx.normalize:  # through y = x / max(|x|, eps): (g - y <y, g>) / |x|, or g / eps
            y, n = D.reshape(-1, D.shape[-1]), norm.reshape(-1, 1)
            if not dense:
                y, n = y.index_select(0, rows), n.index_select(0, rows)
            y, g = y.float(), g.float()
            g = torch.where(n > 1e-12, g - y * (y * g).sum(-1, keepdim=True), g) / n.clamp_min(1e-12)
        g = g.to(H.dtype)
        grad_H = grad_W = grad_b = None
        if ctx.needs_input_grad[0]:
            if dense:
                grad_H = (g @ W).view(H.shape)
            else:  # the padding entries add zeros to row 0
                grad_H = torch.zeros(H.shape, dtype=H.dtype, device=H.device)
                grad_H.view(-1, H.shape[-1]).index_add_(0, rows, g @ W)
        if ctx.needs_input_grad[1]:
            grad_W = g.T @ h
        if b is not None and ctx.needs_input_grad[2]:
            grad_b = g.float().sum(0).to(b.dtype)
        return grad_H, grad_W, grad_b, None, None

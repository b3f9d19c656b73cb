"""The Splade head, fused: ``max_s act(hidden @ weight.T + bias)`` without the
[B, L, V] logits.

It runs the kernels generated from ``splade.hsr`` (log1p(relu(.))) and
``splade_relu.hsr`` (relu). Both activations never decrease, so the kernel
keeps the running max of the raw logits and applies the activation once per
(b, v).
"""

from __future__ import annotations

import torch
from torch import nn

from hsr import kept
from hsr.errors import TensorError
from hsr import generated  # each module imported at its first use

ACTIVATIONS = {"log1p_relu": "splade", "relu": "splade_relu"}  # activation -> its generated module


def splade_max(hidden: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None,
               attention_mask: torch.Tensor | None = None, *, activation: str = "log1p_relu",
               backward: str = "auto") -> torch.Tensor:
    """Sparse representations [B, V], fp32 (float64 for float64 hidden states,
    from the float64 reference evaluator: for checking and small problems).

    hidden [B, L, H] (the MLM head's transformed hidden states), weight [V, H]
    (its decoder), bias [V] or None, attention_mask [B, L] (bool or 0/1):
    rep[b, v] = max over unmasked tokens s of act(hidden[b, s] . weight[v] + bias[v]),
    act "log1p_relu" (SPLADE) or "relu". A row with no unmasked token gives 0.
    Differentiable in hidden, weight and bias; weight and bias are cast to
    hidden's dtype. backward: "atomic", "deterministic" or "auto".
    """
    if torch.compiler.is_compiling() or not isinstance(activation, str) or not isinstance(backward, str) or (
            torch.is_grad_enabled() and any(getattr(t, "requires_grad", False) for t in (hidden, weight, bias))):
        return _splade_max(hidden, weight, bias, attention_mask, activation, backward)  # autograd: not replayed
    inputs = (hidden, weight, bias, attention_mask)
    key = kept.signature(inputs, activation, backward)
    return kept.call(_KEPT, key, inputs, _splade_max, hidden, weight, bias, attention_mask, activation, backward)


_KEPT = kept.Table()  # splade_max's calls by signature: a repeated inference call replays its launches (hsr.kept)


def _splade_max(hidden, weight, bias, attention_mask, activation, backward):
    """splade_max, as written."""
    module = getattr(generated, ACTIVATIONS[activation]) if activation in ACTIVATIONS else None
    if module is None:
        raise ValueError(f"splade_max: activation must be one of {', '.join(map(repr, ACTIVATIONS))}, "
                         f"got {activation!r}")
    for name, value in (("hidden", hidden), ("weight", weight)):
        if not isinstance(value, torch.Tensor):
            raise TensorError(f"splade_max: {name} must be a torch.Tensor, got {type(value).__name__}")
    if isinstance(weight, torch.Tensor) and weight.dtype != hidden.dtype and weight.is_floating_point():
        weight = weight.to(hidden.dtype)
    if isinstance(bias, torch.Tensor) and bias.dtype != hidden.dtype and bias.is_floating_point():
        bias = bias.to(hidden.dtype)
    if isinstance(attention_mask, torch.Tensor) and attention_mask.dtype != torch.bool:
        attention_mask = attention_mask != 0
    return module.apply(hidden, weight, bias=bias, mask=attention_mask, backward=backward)


class SpladeMaxPooling(nn.Module):
    """sentence-transformers' SpladePooling (max pooling) over the fused head.

    Where SpladePooling takes the MLM logits, this module takes the hidden
    states and the decoder's weight and bias, and never builds the logits.
    forward(features) reads features["token_embeddings"] ([B, L, H] hidden
    states) and features["attention_mask"], and sets
    features["sentence_embedding"] ([B, V]).

    Its activation names are ``splade_max``'s, not sentence-transformers':
    "log1p_relu" here (SPLADE, log1p(relu(x))) is their "relu", and "relu" here
    (plain relu) has no counterpart there. For a drop-in that takes their
    names and configuration, fuses an existing ``SparseEncoder``, and saves and
    loads with it, see ``hsr.ops.sentence_transformers`` (``FusedSpladePooling``,
    ``fuse_splade``).
    """

    def __init__(self, weight: torch.Tensor, bias: torch.Tensor | None = None,
                 activation_function: str = "log1p_relu", pooling_strategy: str = "max"):
        super().__init__()
        if pooling_strategy != "max":
            raise ValueError(f"SpladeMaxPooling: only pooling_strategy='max' is fused, got {pooling_strategy!r}")
        if activation_function not in ACTIVATIONS:
            raise ValueError(f"SpladeMaxPooling: activation_function must be one of "
                             f"{', '.join(map(repr, ACTIVATIONS))}, got {activation_function!r}")
        self.pooling_strategy = pooling_strategy
        self.activation_function = activation_function
        self.weight = weight if isinstance(weight, nn.Parameter) else nn.Parameter(weight, requires_grad=False)
        if bias is None or isinstance(bias, nn.Parameter):
            self.bias = bias
        else:
            self.bias = nn.Parameter(bias, requires_grad=False)

    def forward(self, features: dict) -> dict:
        features["sentence_embedding"] = splade_max(
            features["token_embeddings"], self.weight, self.bias, features.get("attention_mask"),
            activation=self.activation_function)
        return features

    def get_sentence_embedding_dimension(self) -> int:
        return self.weight.shape[0]

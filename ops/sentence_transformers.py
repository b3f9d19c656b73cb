"""sentence-transformers' SPLADE max pooling on hsr's fused Splade head.

In a sentence-transformers ``SparseEncoder`` the transformer module (``MLMTransformer``,
or ``Transformer(transformer_task="fill-mask")`` in v6) runs the whole masked-LM
head and hands ``SpladePooling`` the vocabulary logits ``[B, L, V]``, which the
pooling then reduces to ``[B, V]``. Fused, the head's decoder (the last Linear,
``H -> V``) moves into the pooling, and ``max_s act(h_s . W_v + b_v)`` is
computed by one kernel that never writes the logits.

    from sentence_transformers import SparseEncoder
    from hsr.ops.sentence_transformers import fuse_splade

    model = fuse_splade(SparseEncoder("naver/splade-v3"))   # same embeddings, no [B, L, V]

``fuse_splade`` makes the MLM model stop at the decoder's input (the decoder
module keeps its parameters and its place in the state dict; only its forward
becomes the identity) and replaces ``SpladePooling`` by ``FusedSpladePooling``,
which borrows that decoder's weight and bias (tied weights stay tied, gradients
reach them). ``unfuse_splade`` undoes both. Saved while fused, a model names
hsr's class in its ``modules.json``: it loads only where hsr is installed (and,
on sentence-transformers 6, with ``trust_remote_code=True``), unbound, pooling
the logits as SpladePooling does until ``fuse_splade`` binds it again. Unfuse
first to save a plain sentence-transformers model.

Activation names are sentence-transformers': ``"relu"`` is SPLADE's
``log1p(relu(x))`` and ``"log1p_relu"`` is ``log1p(log1p(relu(x)))``. Both never
decrease, so the max is taken over the raw logits and the activation applied
once per (b, v). Masked tokens are excluded from the max, which equals
sentence-transformers' multiply-by-mask (a masked token contributes 0 and every
activation is >= 0); a row with no token gives 0. Only ``pooling_strategy="max"``
is a hard selection: ``"sum"`` pooling is refused.

sentence-transformers itself is imported only by ``unfuse_splade`` and
``FusedSpladePooling.load`` (for hub paths), never at import time.
"""

from __future__ import annotations

import json
import os
import warnings

import torch
from torch import nn

from hsr.errors import TensorError

from .splade import splade_max

__all__ = ["FusedSpladePooling", "fuse_splade", "unfuse_splade"]

ACTIVATIONS = ("relu", "log1p_relu")          # sentence-transformers' names


class _DecoderInputPassthrough(nn.Linear):
    """An MLM decoder whose forward returns its input: the masked-LM model's
    "logits" become the hidden states the decoder would have read. Its weight
    and bias stay where they were (same names, same tying)."""

    def forward(self, input: torch.Tensor) -> torch.Tensor:  # noqa: A002 (nn.Linear's name)
        return input


class FusedSpladePooling(nn.Module):
    """``SpladePooling(pooling_strategy="max")`` with the MLM decoder fused in.

    decoder: the masked-LM head's output Linear (weight [V, H], bias [V] or
        None), borrowed, not owned: its parameters are not this module's
        (they belong to the transformer module, which moves, saves and trains
        them). ``fuse_splade`` passes it; None leaves the module unbound.
    pooling_strategy: "max" only. activation_function: "relu" (SPLADE,
        log1p(relu(x))) or "log1p_relu" (log1p(log1p(relu(x)))).
    word_embedding_dimension / embedding_dimension (sentence-transformers 5 / 6
        names): V, taken from the decoder when not given.
    chunk_size: accepted for SpladePooling's signature; the fused head needs none.

    forward(features): reads ``token_embeddings`` ([B, L, H] hidden states, or
    [1, T, H] with ``cu_seq_lens_q`` for unpadded batches) and
    ``attention_mask`` ([B, L], bool or 0/1), sets ``sentence_embedding`` [B, V]
    in the hidden states' dtype, and returns the dict. Given logits ([..., V]
    with V != H, e.g. by an unbound module loaded from disk), it pools them as
    SpladePooling does.
    """

    config_keys = ["pooling_strategy", "activation_function", "word_embedding_dimension"]
    config_file_name = "config.json"

    def __init__(self, decoder: nn.Module | None = None, pooling_strategy: str = "max",
                 activation_function: str = "relu", word_embedding_dimension: int | None = None,
                 chunk_size: int | None = None, *, embedding_dimension: int | None = None):
        super().__init__()
        if pooling_strategy != "max":
            raise ValueError(f"FusedSpladePooling: only pooling_strategy='max' is a hard selection and fused, "
                             f"got {pooling_strategy!r}")
        if activation_function not in ACTIVATIONS:
            raise ValueError(f"FusedSpladePooling: activation_function must be one of "
                             f"{', '.join(map(repr, ACTIVATIONS))} (sentence-transformers' names), "
                             f"got {activation_function!r}")
        self.pooling_strategy = pooling_strategy
        self.activation_function = activation_function
        self.word_embedding_dimension = word_embedding_dimension or embedding_dimension
        self.chunk_size = chunk_size
        self._decoder = ()                      # a tuple: nn.Module does not register what it holds
        self._warned = False
        if decoder is not None:
            self.bind(decoder)

    # -------------------------------------------------------------- decoder
    def bind(self, decoder: nn.Module) -> FusedSpladePooling:
        """Use this decoder's weight [V, H] and bias [V] (borrowed, see the class notes)."""
        weight = getattr(decoder, "weight", None)
        if not isinstance(weight, torch.Tensor) or weight.dim() != 2:
            raise TypeError(f"FusedSpladePooling: the decoder needs a 2-D weight [V, H], "
                            f"got {type(decoder).__name__}")
        if self.word_embedding_dimension is None:
            self.word_embedding_dimension = weight.shape[0]
        elif self.word_embedding_dimension != weight.shape[0]:
            raise ValueError(f"FusedSpladePooling: embedding dimension {self.word_embedding_dimension} "
                             f"but the decoder has {weight.shape[0]} rows")
        self._decoder = (decoder,)
        return self

    @property
    def decoder(self) -> nn.Module | None:
        return self._decoder[0] if self._decoder else None

    # -------------------------------------------------------------- forward
    def forward(self, features: dict) -> dict:
        tokens = features["token_embeddings"]
        mask = features.get("attention_mask")
        if "cu_seq_lens_q" in features:            # unpadded batch: [1, T, X] and sequence offsets
            tokens, mask = _repad(tokens, features["cu_seq_lens_q"])
        if tokens.dim() != 3:
            raise TensorError(f"FusedSpladePooling: token_embeddings must be [B, L, H], got {tuple(tokens.shape)}")
        decoder = self.decoder
        if decoder is not None and tokens.shape[-1] == decoder.weight.shape[1]:
            rep = splade_max(tokens, decoder.weight, decoder.bias, mask, activation="log1p_relu")
            if self.activation_function == "log1p_relu":
                rep = torch.log1p(rep)              # monotone: log1p(max log1p(relu z)) = max of the double log
            rep = rep.to(tokens.dtype)
        elif self.word_embedding_dimension in (None, tokens.shape[-1]):
            if not self._warned:
                warnings.warn("FusedSpladePooling received MLM logits, not hidden states: pooling them "
                              "unfused (call hsr.ops.sentence_transformers.fuse_splade(model) to fuse)",
                              stacklevel=2)
                self._warned = True
            rep = self._pool_logits(tokens, mask)
        else:
            raise TensorError(f"FusedSpladePooling: token_embeddings has width {tokens.shape[-1]}, neither the "
                              f"decoder's input width nor the vocabulary size {self.word_embedding_dimension}")
        if self.word_embedding_dimension is None:
            self.word_embedding_dimension = rep.shape[-1]
        features["sentence_embedding"] = rep
        return features

    def _pool_logits(self, logits, mask):
        """sentence-transformers' SpladePooling (max) on logits, for an unbound module."""
        if mask is not None:
            logits = logits * mask.unsqueeze(-1).to(logits.dtype)
        act = torch.log1p(torch.relu(logits))
        if self.activation_function == "log1p_relu":
            act = torch.log1p(act)
        return act.max(dim=1).values

    # -------------------------------------------------------------- sentence-transformers module API
    def get_sentence_embedding_dimension(self) -> int | None:
        return self.word_embedding_dimension

    get_embedding_dimension = get_sentence_embedding_dimension      # sentence-transformers 6

    @property
    def embedding_dimension(self) -> int | None:
        return self.word_embedding_dimension

    def get_config_dict(self) -> dict:
        return {key: getattr(self, key) for key in self.config_keys}

    def save(self, output_path: str, *args, **kwargs) -> None:
        """Writes SpladePooling's configuration (no weights: the decoder is the transformer's)."""
        os.makedirs(output_path, exist_ok=True)
        with open(os.path.join(output_path, self.config_file_name), "w", encoding="utf-8") as f:
            json.dump(self.get_config_dict(), f, indent=4)

    @classmethod
    def load(cls, model_name_or_path: str, subfolder: str = "", token=None, cache_folder=None, revision=None,
             local_files_only: bool = False, **kwargs) -> FusedSpladePooling:
        """An unbound module from a saved configuration (local folder or hub
        repository); it pools logits unfused until ``fuse_splade`` binds it."""
        path = os.path.join(model_name_or_path, subfolder, cls.config_file_name)
        if not os.path.exists(path):
            from huggingface_hub import hf_hub_download
            path = hf_hub_download(model_name_or_path, cls.config_file_name, subfolder=subfolder or None,
                                   token=token, cache_dir=cache_folder, revision=revision,
                                   local_files_only=local_files_only)
        with open(path, encoding="utf-8") as f:
            config = json.load(f)
        return cls(**config)

    def __repr__(self) -> str:
        state = "bound" if self._decoder else "unbound"
        return f"FusedSpladePooling({self.get_config_dict()}, {state})"


def fuse_splade(model: nn.Module) -> nn.Module:
    """Fuse every max-pooling ``SpladePooling`` of a ``SparseEncoder`` (or any
    sequence of modules) with the MLM head before it, in place; returns the model.

    The transformer module before the pooling must expose a Hugging Face
    masked-LM model (``auto_model``) whose ``get_output_embeddings()`` is a
    plain ``nn.Linear`` applied last (BERT, RoBERTa, DistilBERT, ModernBERT, ...).
    Idempotent; a ``FusedSpladePooling`` loaded from disk gets bound.
    """
    found = False
    children = list(model.named_children())
    for idx, (name, module) in enumerate(children):
        if not _is_splade_pooling(module):
            continue
        if getattr(module, "pooling_strategy", "max") != "max":
            raise ValueError(f"fuse_splade: {name} pools with {module.pooling_strategy!r}; only 'max' is "
                             f"a hard selection and fuses")
        decoder = _decoder_before(children[:idx], name)
        if isinstance(module, FusedSpladePooling):
            module.bind(decoder)
        else:
            fused = FusedSpladePooling(decoder, pooling_strategy="max",
                                       activation_function=module.activation_function,
                                       word_embedding_dimension=_dimension(module),
                                       chunk_size=getattr(module, "chunk_size", None))
            fused.train(module.training)
            setattr(model, name, fused)
        if type(decoder) is nn.Linear:
            decoder.__class__ = _DecoderInputPassthrough
        found = True
    if not found:
        raise ValueError("fuse_splade: no SpladePooling module found among the model's children")
    return model


def unfuse_splade(model: nn.Module) -> nn.Module:
    """Undo ``fuse_splade`` in place: sentence-transformers' ``SpladePooling``
    back in place of each ``FusedSpladePooling``, and the MLM decoder computing
    logits again. Returns the model."""
    pooling_cls = _st_splade_pooling()
    dim_key = "embedding_dimension" if "embedding_dimension" in pooling_cls.config_keys else "word_embedding_dimension"
    for name, module in list(model.named_children()):
        if not isinstance(module, FusedSpladePooling):
            continue
        decoder = module.decoder
        if decoder is not None and type(decoder) is _DecoderInputPassthrough:
            decoder.__class__ = nn.Linear
        plain = pooling_cls(pooling_strategy="max", activation_function=module.activation_function,
                            chunk_size=module.chunk_size, **{dim_key: module.word_embedding_dimension})
        plain.train(module.training)
        setattr(model, name, plain)
    return model


# ----------------------------------------------------------------------------- helpers

def _is_splade_pooling(module):
    return isinstance(module, FusedSpladePooling) or type(module).__name__ == "SpladePooling"


def _dimension(module):
    return getattr(module, "embedding_dimension", None) or getattr(module, "word_embedding_dimension", None)


def _decoder_before(children, pooling_name):
    for name, module in reversed(children):
        hf = getattr(module, "auto_model", None)
        get = getattr(hf, "get_output_embeddings", None)
        if get is None:
            continue
        decoder = get()
        if type(decoder) not in (nn.Linear, _DecoderInputPassthrough):
            raise TypeError(f"fuse_splade: {name}'s output embeddings are a {type(decoder).__name__}, "
                            f"not an nn.Linear")
        return decoder
    raise ValueError(f"fuse_splade: no masked-LM transformer module (with auto_model.get_output_embeddings()) "
                     f"before {pooling_name}")


def _repad(flat, cu_seq_lens):
    """[1, T, X] tokens with offsets [B + 1] -> padded [B, L, X] and a bool mask [B, L]."""
    offsets = [int(x) for x in cu_seq_lens.tolist()]
    lengths = [b - a for a, b in zip(offsets[:-1], offsets[1:])]
    flat = flat.reshape(-1, flat.shape[-1])
    longest = max(lengths, default=0)
    out = flat.new_zeros((len(lengths), longest, flat.shape[-1]))
    mask = torch.zeros((len(lengths), longest), dtype=torch.bool, device=flat.device)
    for i, (start, n) in enumerate(zip(offsets[:-1], lengths)):
        out[i, :n] = flat[start:start + n]
        mask[i, :n] = True
    return out, mask


def _st_splade_pooling():
    try:
        from sentence_transformers.sparse_encoder.modules import SpladePooling   # v6
    except ImportError:
        from sentence_transformers.sparse_encoder.models import SpladePooling    # v5
    return SpladePooling

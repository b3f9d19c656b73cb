"""The bundled ops: specs in ``*.hsr`` and their thin Python front ends."""

from .chamfer import chamfer_distance
from .hidden import maxsim_from_hidden
from .maxsim import maxsim
from .quantize import quantize_fp8, quantize_int8
from .residual import (ResidualCorpus, load_fast_plaid, maxsim_residual, maxsim_residual_varlen, plaid_bytes,
                       plaid_centroid_scores, plaid_centroid_scores_varlen)
from .retrieval import maxsim_topk, maxsim_topk_distributed
from .splade import SpladeMaxPooling, splade_max
from .varlen import maxsim_pairs, maxsim_varlen


def spec_path(name: str):
    """A bundled spec's file by name: hsr.compile(spec_path("maxsim")). (hsr.load, the
    compiler's loader, is imported at the first call: not on the bundled ops' path.)"""
    from hsr.load import spec_path as path

    return path(name)


# Integrations, reached as hsr.ops.pylate / hsr.ops.sentence_transformers (kept out
# of __all__: a star import must not shadow the real pylate / sentence_transformers).
from . import pylate, sentence_transformers  # noqa: E402,F401

__all__ = ["chamfer_distance", "maxsim", "maxsim_from_hidden", "maxsim_varlen", "maxsim_pairs", "spec_path", "maxsim_topk", "quantize_fp8", "quantize_int8", "maxsim_topk_distributed", "splade_max", "SpladeMaxPooling",
           "maxsim_residual", "maxsim_residual_varlen", "plaid_bytes", "plaid_centroid_scores", "ResidualCorpus",
           "load_fast_plaid", "plaid_centroid_scores_varlen"]

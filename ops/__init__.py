"""The bundled ops: specs in ``*.hsr`` and their thin Python front ends."""

from .chamfer import chamfer_distance
from .maxsim import maxsim
from .splade import SpladeMaxPooling, splade_max

__all__ = ["chamfer_distance", "maxsim", "splade_max", "SpladeMaxPooling"]

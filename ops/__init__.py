"""The bundled ops: specs in ``*.hsr`` and their thin Python front ends."""

from .maxsim import maxsim

__all__ = ["maxsim"]

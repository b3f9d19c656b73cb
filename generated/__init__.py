"""Triton modules generated from ops/*.hsr by `hsr compile`; never edited by hand."""

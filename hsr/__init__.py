"""hsr: a compiler for hard-selection reductions to fused Triton kernels."""

__version__ = "0.1.0"


def compile(path_or_text, *, cache_dir=None):  # noqa: A001 - the name users expect
    """Compile a spec (a path to a .hsr file, or spec text) into an Op."""
    from .load import compile_spec

    return compile_spec(path_or_text, cache_dir=cache_dir)


__all__ = ["compile", "__version__"]

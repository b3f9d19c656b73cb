"""hsr: a compiler for hard-selection reductions to fused Triton kernels."""

__version__ = "0.1.0"


def compile(spec, *, cache_dir=None):  # noqa: A001 - the name users expect
    """Compile a spec into an Op: a path to a .hsr file, spec text, or a bundled
    spec's name ("maxsim", "chamfer_point", "splade", ...: see ``hsr.ops.spec_path``)."""
    from .load import compile_spec

    return compile_spec(spec, cache_dir=cache_dir)


def reference_evaluator(spec):
    """A spec's float64 reference evaluator, for any spec the checker accepts,
    including one the planner rejects (no kernel): call the result on tensors
    as an Op is called. It materialises the pairwise scores a chunk at a time:
    for checking and small problems."""
    from .load import reference_op

    return reference_op(spec)


def __getattr__(name):
    """``import hsr`` then ``hsr.ops``: the bundled ops are imported at first use."""
    if name == "ops":
        import importlib

        return importlib.import_module(".ops", __name__)
    raise AttributeError(f"module 'hsr' has no attribute {name!r}")


__all__ = ["compile", "reference_evaluator", "__version__"]

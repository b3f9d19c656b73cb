"""Triton modules generated from ops/*.hsr by `hsr compile`; never edited by hand."""

import importlib


def __getattr__(name):
    """hsr.generated.<name>, imported at its first use: importing every bundled
    module (Triton kernels, custom ops) up front cost most of `import hsr.ops`.
    (An attribute of the package, so that torch.compile traces the first use too.)"""
    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{name}":
            raise
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None

"""The ground floor: the process's switches (environment variables) and the
small size arithmetic that every layer reads. Imports nothing of hsr."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir(override=None) -> Path:
    """Where hsr keeps compiled specs and tuned configs: HSR_CACHE_DIR, default ~/.cache/hsr."""
    return Path(override or os.environ.get("HSR_CACHE_DIR") or Path.home() / ".cache" / "hsr")


def interpreting() -> bool:
    """True when Triton runs kernels through its CPU interpreter."""
    return os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")


def autotuning() -> bool:
    """GPU forwards take their blocks from hsr.autotune (kept, shipped or
    predicted configs) unless HSR_AUTOTUNE=0 (then fixed heuristic blocks, as
    under the interpreter: quicker to compile, for tests)."""
    return os.environ.get("HSR_AUTOTUNE", "") != "0" and not interpreting()


def tuning_on_call() -> bool:
    """Whether a call whose key has no kept or shipped config tunes it there
    (HSR_AUTOTUNE=1, or `hsr tune`); by default it runs a predicted config at
    once and never blocks on tuning."""
    return os.environ.get("HSR_AUTOTUNE", "") == "1"


def next_pow2(n: int, at_least: int = 16) -> int:
    p = at_least
    while p < n:
        p *= 2
    return p


def length_bucket(n: int) -> int:
    """Bucket a length for autotune keys: powers of two, so that nearby lengths
    share one tuned config."""
    return next_pow2(max(n, 1), 1)

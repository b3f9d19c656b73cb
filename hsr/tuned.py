"""Tuned forward configs that outlive a process: the ones this machine measured
(a JSON file in the cache directory) and the ones shipped with hsr for the
bundled ops at the reference shapes (tuned.json beside this module), so that a
first call need not tune.

A config is {"kwargs": {BLOCK_*: n}, "num_warps": w, "num_stages": s}, its
blocks named by role (hsr.autotune.ROLES); an entry is keyed by what the kernel
is (its lowering, hsr.plan.lowering_id, so that every spec of one lowering
finds it) and the autotune key (bucketed lengths, padded d, whether indices are
written, the operand's dtype). Measured entries are also keyed by the device's
name and the Triton version; shipped ones by the architecture's pool (sm80,
sm90) only.
Writes are atomic (a temporary file renamed into place); an unreadable file is
ignored with a warning and rewritten; a cache that cannot be written keeps its
entries for this process only.
"""

from __future__ import annotations

import json
import os
import tempfile
import warnings
from pathlib import Path

from .basics import cache_dir

SHIPPED = Path(__file__).with_name("tuned.json")
_warned: set = set()


def store_path() -> Path:
    return cache_dir() / "tuned-configs.json"


def entry_key(lowering: str, key: tuple, where: str = "") -> str:
    """One string per (lowering, key[, device and Triton version]): JSON object keys."""
    return json.dumps([lowering, where, [str(k) if not isinstance(k, (bool, int)) else k for k in key]])


def _read(path: Path) -> dict:
    try:
        data = json.loads(path.read_text())
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        return data
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        if path not in _warned:
            _warned.add(path)
            warnings.warn(f"hsr: ignoring the tuned-config file {path} ({e}); it is rewritten on the next tuning",
                          RuntimeWarning, stacklevel=3)
        return {}


def shipped(arch: str) -> dict:
    """{entry_key: config} shipped for an architecture's pool."""
    return _read(SHIPPED).get(arch, {})


def measured() -> dict:
    """{entry_key: config} this machine tuned before (any process)."""
    return _read(store_path()).get("configs", {})


def save(name: str, config: dict) -> bool:
    """Add one measured entry (read, merge, write atomically); False where the
    cache cannot be written (said once)."""
    path = store_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        data = _read(path)
        data.setdefault("configs", {})[name] = config
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tuned-", suffix=".json")
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=1, sort_keys=True)
        os.replace(tmp, path)
        return True
    except OSError as e:
        if path.parent not in _warned:
            _warned.add(path.parent)
            warnings.warn(f"hsr: cannot keep tuned configs in {path.parent} ({e.strerror or e}); they last for this "
                          "process only. Set HSR_CACHE_DIR to a writable directory to keep them.",
                          RuntimeWarning, stacklevel=3)
        return False

"""Tuning on demand: a spec's forward keys at given sizes, and the picks as a
file to ship (`hsr tune`).

A call never blocks on tuning by default (a key without a kept or shipped
config runs a predicted one: hsr.autotune.Tuned.predict). Tuning is asked for:
`hsr tune SPEC --shapes ...` here, or HSR_AUTOTUNE=1 for every new key a
process meets. Picks are kept in the cache directory (hsr.tuned); `export`
writes them to a JSON file and `import_picks` adds such a file to this
machine's picks, so that a model can ship the configs it was tuned with.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import torch

from . import autotune, kept, tuned

DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}


def tune(spec, sizes: dict, dtype: str = "float16", grad: bool = False) -> dict:
    """Tune every forward key that a call of `spec` (a path, spec text or Op) at
    `sizes` ({axis: size}) meets, on the current GPU, and keep the picks.
    Optional inputs are left out; grad=True tunes the training forward (the one
    that writes indices) too. Returns {kernel: {key: config}} as text."""
    import hsr

    op = spec if hasattr(spec, "module") else hsr.compile(spec)
    inputs = _inputs(op, sizes, DTYPES[dtype])
    before = os.environ.get("HSR_AUTOTUNE")
    os.environ["HSR_AUTOTUNE"] = "1"
    kept.forget()
    try:
        with torch.no_grad():
            op(**inputs)
        if grad:
            for name, x in inputs.items():
                if x.is_floating_point():
                    x.requires_grad_(True)
            op(**inputs)
        torch.cuda.synchronize()
    finally:
        if before is None:
            os.environ.pop("HSR_AUTOTUNE", None)
        else:
            os.environ["HSR_AUTOTUNE"] = before
        kept.forget()  # calls recorded while tuning keep the picks; later ones find them kept
    return {name: picks for name, picks in _chosen(op).items() if picks}


def _inputs(op, sizes: dict, dtype, device="cuda") -> dict:
    """Random inputs of the spec's required declarations at `sizes`."""
    required = [entry for entry in op.module.SIGNATURE if entry[3] is None]
    for name, axes, kind, _ in required:
        missing = [a for a in axes if a not in sizes]
        if missing:
            raise ValueError(f"hsr tune: --shapes gives no size for axis {missing[0]!r} of {name!r}")
        if kind not in ("float", "int"):
            raise ValueError(f"hsr tune: input {name!r} is {kind}: tune such a spec through its own front end")
    made = {}
    for name, axes, kind, _ in required:
        shape = [sizes[a] for a in axes]
        made[name] = torch.randn(shape, device=device).to(dtype) if kind == "float" else \
            torch.full(shape, sizes[axes[-1]] if axes else 1, dtype=torch.int32, device=device)
    return made


def _chosen(op) -> dict:
    out = {}
    for name in dir(op.module):
        if name.endswith("_fwd"):
            out[name] = autotune.chosen(getattr(op.module, name))
    return out


def export(path) -> int:
    """Write this machine's kept picks (hsr.tuned's store) to `path`; how many."""
    configs = tuned.measured()
    Path(path).write_text(json.dumps({"_source": "hsr tune --export", "configs": configs}, indent=1, sort_keys=True))
    return len(configs)


def import_picks(path) -> int:
    """Add the picks of a file written by `export` to this machine's, as measured
    here (they serve this device from now on); how many."""
    data = json.loads(Path(path).read_text())
    configs = data.get("configs") if isinstance(data, dict) else None
    if not isinstance(configs, dict):
        raise ValueError(f"{path}: not a file of hsr picks (hsr tune --export writes one)")
    where = autotune._where()
    for name, config in configs.items():
        lowering, _, key = json.loads(name)
        tuned.save(json.dumps([lowering, where, key]), config)
    kept.forget()
    return len(configs)

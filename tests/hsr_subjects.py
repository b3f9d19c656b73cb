"""The ops that the reliability tests (test_runtime.py, test_edges.py) run
through: every bundled generated module and a few compiled user specs, with
valid inputs made from a spec's signature.

Not a test module: imported by them (pytest puts tests/ on sys.path).
"""

from __future__ import annotations

import importlib
from pathlib import Path

import torch

import hsr

ROOT = Path(__file__).resolve().parent.parent
OPS = ROOT / "ops"
EXAMPLES = ROOT / "examples"

BUNDLED = ["maxsim", "maxsim_cos", "maxsim_kd", "maxsim_kd_cos", "chamfer", "chamfer_point",
           "chamfer_point_l1", "splade", "splade_relu"]
EXAMPLE_SPECS = sorted(p.stem for p in EXAMPLES.glob("*.hsr"))
USER_SPECS = {
    # an index output over three grid axes, with a mask
    "argmax_masked": """
        Q[i, s, d]: float
        D[j, t, d]: float
        dmask[j, t]: bool = all
        idx[i, j, s] = argmax_t <Q_s, D_t>  where dmask
    """,
    # an outer max of a max of cosines
    "outer_max_cos": """
        A[b, n, d]: float
        B[b, m, d]: float
        out[b] = max_n max_m cos(A_n, B_m)
    """,
    # a per-column term and a length bound
    "col_term_bound": """
        Q[j, s, d]: float
        D[j, t, d]: float
        c[j, t]: float
        dlen[j]: int = full
        score[j] = sum_s max_t (<Q_s, D_t> + c_t)  where t < dlen[j]
    """,
}
ALL = BUNDLED + EXAMPLE_SPECS + sorted(USER_SPECS)


class Subject:
    """One op under test: ``run`` is the module's apply (the bundled modules
    from ``hsr.generated``, as the front ends import them), ``op`` the
    compiled Op (for ``reference`` and the plan)."""

    def __init__(self, name: str, cache_dir):
        self.name = name
        if name in BUNDLED:
            self.module = importlib.import_module(f"hsr.generated.{name}")
            self.op = hsr.compile(OPS / f"{name}.hsr", cache_dir=cache_dir)
        else:
            spec = EXAMPLES / f"{name}.hsr" if name in EXAMPLE_SPECS else USER_SPECS[name]
            self.op = hsr.compile(spec, cache_dir=cache_dir)
            self.module = self.op.module
        self.signature = self.module.SIGNATURE
        self.differentiable = tuple(self.module.DIFFERENTIABLE)
        terms = self.op.plan.terms
        self.selected = {t.c for t in terms}
        self.contracted = {t.k for t in terms}
        self.points = all(t.pair in ("sqdist", "dist", "l1") for t in terms)

    def run(self, *args, **kwargs):
        return self.module.apply(*args, **kwargs)

    def forward_with_indices(self, *args, **kwargs):
        return self.module.forward_with_indices(*args, **kwargs)

    @property
    def has_indices(self) -> bool:
        return hasattr(self.module, "forward_with_indices")

    def sizes(self, base: int = 2) -> dict:
        """Distinct sizes for every axis (so that a wrong one is unambiguous);
        contraction axes 3 (point clouds) or 12 (the tensor-core path)."""
        axes = dict.fromkeys(a for _, axes, _, _ in self.signature for a in axes)
        sizes, n = {}, base
        for a in axes:
            if a in self.contracted:
                sizes[a] = 3 if self.points else 12
            else:
                sizes[a] = n
                n += 1
        return sizes

    def inputs(self, sizes: dict, gen: torch.Generator, dtype=torch.float32, masks=True) -> dict:
        """Valid inputs by name: random floats, random masks (each row keeps
        its first position), random lengths in [1, size]."""
        args = {}
        for name, axes, kind, _default in self.signature:
            shape = [sizes[a] for a in axes]
            if kind == "float":
                args[name] = torch.randn(shape, generator=gen).to(dtype)
            elif kind == "bool":
                m = torch.rand(shape, generator=gen) < 0.7 if masks else torch.ones(shape, dtype=torch.bool)
                if m.dim() and m.numel():
                    m[..., 0] = True
                args[name] = m
            else:
                hi = sizes[self._bounded_axis(name)]
                args[name] = torch.randint(1, hi + 1, shape, generator=gen) if masks \
                    else torch.full(shape, hi, dtype=torch.int64)
        return args

    def _bounded_axis(self, name: str) -> str:
        for term in self.op.plan.terms:
            for cond in term.conds:
                if cond.name == name:
                    return cond.axis
        raise KeyError(name)


def subjects(names, cache_dir) -> dict:
    return {name: Subject(name, cache_dir) for name in names}


def forbid_kernels(monkeypatch) -> None:
    """From now on, any kernel launch (compiled or interpreted) fails the test."""
    import triton.runtime.interpreter as interpreter
    import triton.runtime.jit as jit

    def launched(*args, **kwargs):
        raise AssertionError("a kernel ran before the argument error")
    monkeypatch.setattr(interpreter.InterpretedFunction, "run", launched)
    monkeypatch.setattr(jit.JITFunction, "run", launched)

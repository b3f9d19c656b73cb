#!/usr/bin/env python3
"""Specs that no bundled op is, compiled from their text: hsr against eager PyTorch and the bundled sibling.

Run on the GPU machine from the repository root:

    python3 bench/specs.py [--out DIR] [--budget S] [--only NAME[,NAME...]] [--part K/N] [--quick]
                           [--device cuda|cpu] [--list]

(or ``bash bench/run_gpu.sh specs [ARGS...]``). On an H100 each row's first calls (Triton compilation and
autotuning of hsr's kernel and of the sibling's) take 5-30 s, which is most of a row's time: the 22 rows
take about 400 s, more than one 600 s call leaves after the install and the default --budget of 280 s.
Run them in two calls, ``--part 1/2`` and ``--part 2/2`` (about 200 s each).

Each case is a spec of the language, written inline below and compiled once with ``hsr.compile(text)``
(weighted, Gaussian, cosine and outer-max MaxSim, directed Hausdorff, k-means assignment, an L1 mean-min,
Chamfer as one spec, a Gaussian soft nearest neighbour, a softplus Splade head, a masked mean MaxSim, and
two decreasing functions of a distance). For each (case, size, dtype) row it

1. times the public call of the compiled op (``op(**inputs)``, host code included);
2. times an eager PyTorch implementation of the same formula: one GEMM (``@``/``addmm``/``baddbmm``, in the
   inputs' dtype) or ``torch.cdist`` for the pairs, an fp32 epilogue, ``amax``/``amin``/``argmin``; where
   the spec's epilogue is monotone (exp(-x), sqrt, softplus, 1/(1+x)) eager selects the raw score and
   applies it once per selected value, as hsr does; chunked over the output's leading axis where the
   pairwise tensor would pass ``EAGER_CHUNK_BYTES`` (8 GiB), and k-means in 64K-row blocks (as
   bench/offsets.py);
3. times the bundled sibling at the same shape where one exists (``hsr.ops.maxsim``, ``hsr.ops.splade_max``,
   ``hsr.ops.chamfer_distance``); a sibling marked "same" computes the same values (and is checked too),
   the others are the nearest bundled op (e.g. plain MaxSim beside a weighted one), timed for scale;
4. checks hsr's output on a sub-batch (a slice along the output's axes: e.g. the first 2 queries x 20
   documents, x 4 at 1024 tokens) against ``op.reference`` (the float64 reference evaluator) on the same
   slice of the inputs (on CPU copies where it raises on the GPU; ``check.ref`` says which):
   the largest absolute error and that error relative to the largest |reference| ("rel"), passing at
   ``TOL[dtype]``. Eager's output is scored the same way (information, no flag), and eager's formula run
   in float64 on the slice must match the reference (``eager64_rel``: it shows that eager computes the
   spec). For the index output of k-means: the agreement rate with the float64 argmin, and every
   mismatch must be a tie, its centre's exact squared distance within ``TIE_RTOL[dtype]`` of the
   nearest's.

Timings are ``triton.testing.do_bench`` medians (warmup 25 ms, rep 100 ms) after the first call (timed
apart: ``first_s``, Triton compilation and autotuning) and one more warm-up call, under ``torch.no_grad``,
tf32 off (fp32 GEMMs are IEEE, as hsr's). With ``--device cpu`` (kernels through Triton's interpreter,
``TRITON_INTERPRET=1``, which the script sets when it is unset) each time is one ``time.perf_counter``
call after the first (the median of three without --quick). ``--quick`` runs tiny shapes (under a minute
on CPU). No row starts after
``--budget`` seconds; a failing row is recorded and the run goes on. Writes ``specs.json`` (rewritten after
every row) and ``specs.md`` to ``--out``. ``hsr_vs_eager`` is eager_ms / hsr_ms and ``hsr_vs_sibling``
sibling_ms / hsr_ms: above 1, hsr is faster. Exit status 1 if a row's hsr call failed or its check did not
pass.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
EAGER_CHUNK_BYTES = 8 << 30    # eager's pairwise tensor per chunk of the output's leading axis
KMEANS_ROWS = 65536            # eager k-means block (bench/offsets.py's)
TOL = {"fp32": 1e-5, "fp16": 5e-4, "bf16": 5e-4}          # largest |hsr - ref| / largest |ref|, on the slice
TIE_RTOL = {"fp32": 1e-5, "fp16": 1e-4, "bf16": 1e-4}     # k-means: a mismatch's distance gap / nearest distance
EAGER64_TOL = 1e-9            # eager's formula in float64 against the reference evaluator
DTYPES = ("fp16", "bf16", "fp32")


# --------------------------------------------------------------------------- the specs

MAXSIM_DECL = "Q[i, s, d]: float\nD[j, t, d]: float\n"
CLOUD_DECL = "P[b, n, d]: float\nR[b, m, d]: float\n"

SPECS = {
    "weighted_maxsim": MAXSIM_DECL + "w[i, s]: float\n"
                       "score[i, j] = sum_s w_s * max_t <Q_s, D_t>\n",
    "gaussian_maxsim": MAXSIM_DECL + "score[i, j] = sum_s max_t exp(-||Q_s - D_t||^2)\n",
    "cosine_maxsim": MAXSIM_DECL + "score[i, j] = sum_s max_t cos(Q_s, D_t)\n",
    "outer_max": MAXSIM_DECL + "score[i, j] = max_s max_t <Q_s, D_t>\n",
    "hausdorff": CLOUD_DECL + "h[b] = max_n min_m ||P_n - R_m||\n",
    "kmeans_assign": "X[n, d]: float\nC[k, d]: float\n"
                     "assign[n] = argmin_k ||X_n - C_k||^2\n",
    "l1_mean_min": MAXSIM_DECL + "score[i, j] = mean_s min_t ||Q_s - D_t||_1\n",
    "chamfer_spec": CLOUD_DECL + "cd[b] = mean_n min_m ||P_n - R_m||^2 + mean_m min_n ||R_m - P_n||^2\n",
    "soft_nearest": "X[b, n, d]: float\nY[b, m, d]: float\n"
                    "sim[b, n] = max_m exp(-||X_n - Y_m||^2 / 2)\n",
    "splade_softplus": "H[b, s, h]: float\nW[v, h]: float\nbias[v]: float = 0\nmask[b, s]: bool = all\n"
                       "rep[b, v] = max_s softplus(<H_s, W_v> + bias_v)  where mask\n",
    "masked_mean_maxsim": MAXSIM_DECL + "qmask[i, s]: bool = all\ndmask[j, t]: bool = all\n"
                          "score[i, j] = mean_s max_t <Q_s, D_t>  where qmask, dmask\n",
    "inv_sq_min": MAXSIM_DECL + "score[i, j] = sum_s min_t 1 / (1 + ||Q_s - D_t||^2)\n",
    "inv_dist_max": MAXSIM_DECL + "score[i, j] = sum_s max_t 1 / (1 + ||Q_s - D_t||)\n",
}

# MaxSim-like shapes: Nq queries x Nd documents of Lq x Ld tokens of d.
MAXSIM_FULL = {"32x300": dict(nq=8, nd=1000, lq=32, ld=300, d=128),
               "1024x1024": dict(nq=1, nd=512, lq=1024, ld=1024, d=128)}
MAXSIM_QUICK = {"32x300": dict(nq=2, nd=3, lq=8, ld=12, d=16),
                "1024x1024": dict(nq=1, nd=2, lq=16, ld=24, d=32)}
MAXSIM_SLICE = dict(nq=2, nd=20, nd_long=4)  # the check's queries x documents (nd_long: Ld > 512)


@dataclass
class Case:
    name: str
    sizes: dict             # label -> shape parameters
    quick: dict             # label -> tiny shape parameters
    dtypes: tuple
    make: Callable          # (torch, params, dtype, device, gen) -> {input name: tensor}
    eager: Callable         # (torch, inputs) -> output
    eager_what: str
    check_slice: Callable   # params -> ({input name: {dim: n}}, out slice as a tuple of lengths)
    sibling: tuple | None = None   # (label, fn(torch, hsr_ops, inputs) -> output, computes the same values)
    index: bool = False

    @property
    def text(self):
        return SPECS[self.name]


def acc_dtype(torch, x):
    """The epilogue's dtype: fp32, float64 for float64 inputs (the eager64 check)."""
    return torch.float64 if x.dtype == torch.float64 else torch.float32


def lead_chunks(n, bytes_per_item):
    """Ranges over a leading axis of n items whose pairwise part stays under EAGER_CHUNK_BYTES."""
    step = max(1, EAGER_CHUNK_BYTES // max(1, bytes_per_item))
    return [(lo, min(n, lo + step)) for lo in range(0, n, step)]


def by_queries(torch, fn, inp, q_keys, pair_elems_per_query, out_dim=0):
    """fn(chunk of inp) over chunks of the queries (the tensors q_keys, axis 0), concatenated on out_dim;
    4 bytes and 2 temporaries an element of the pairwise scores."""
    n = inp[q_keys[0]].shape[0]
    parts = []
    for lo, hi in lead_chunks(n, 8 * pair_elems_per_query):
        sub = {k: (v[lo:hi] if k in q_keys and v is not None else v) for k, v in inp.items()}
        parts.append(fn(sub))
    return parts[0] if len(parts) == 1 else torch.cat(parts, out_dim)


# ---- MaxSim-like: inputs, eager

def maxsim_inputs(kind, weights=False, masks=False):
    """Q [nq, lq, d], D [nd, ld, d] in the dtype: "randn" N(0, 1); "unit" L2-normalised (distances in
    [0, 2], so that exp(-||q - d||^2) does not underflow); "scaled" N(0, 1) times a per-token scale in
    [0.25, 4] (unnormalised cosine inputs). weights: w [nq, lq] uniform in [0, 1). masks: prefix masks of
    lengths uniform in [L/2, L]."""
    def make(torch, p, dtype, device, gen):
        def rows(n, l):
            x = torch.randn(n, l, p["d"], generator=gen, device=device)
            if kind == "unit":
                x = torch.nn.functional.normalize(x, dim=-1)
            elif kind == "scaled":
                x = x * (0.25 * 16 ** torch.rand(n, l, 1, generator=gen, device=device))
            return x.to(dtype)
        out = {"Q": rows(p["nq"], p["lq"]), "D": rows(p["nd"], p["ld"])}
        if weights:
            out["w"] = torch.rand(p["nq"], p["lq"], generator=gen, device=device).to(dtype)
        if masks:
            for key, n, l in (("qmask", p["nq"], p["lq"]), ("dmask", p["nd"], p["ld"])):
                lens = torch.randint(max(1, l // 2), l + 1, (n,), generator=gen, device=device)
                out[key] = torch.arange(l, device=device)[None] < lens[:, None]
        return out
    return make


def maxsim_slice(p):
    nq, nd = MAXSIM_SLICE["nq"], MAXSIM_SLICE["nd" if p["ld"] <= 512 else "nd_long"]
    return ({"Q": {0: nq}, "w": {0: nq}, "qmask": {0: nq}, "D": {0: nd}, "dmask": {0: nd}}, (nq, nd))


def dots(Q, D):
    """<Q_s, D_t> of every pair, [nq, lq, nd, ld], one GEMM in the inputs' dtype."""
    nq, lq, d = Q.shape
    nd, ld, _ = D.shape
    return (Q.reshape(-1, d) @ D.reshape(-1, d).T).view(nq, lq, nd, ld)


def sqdist(torch, Q, D):
    """||Q_s - D_t||^2 of every pair as |q|^2 + |d|^2 - 2<q, d> (GEMM in the dtype, the rest in fp32)."""
    acc = acc_dtype(torch, Q)
    qn = Q.to(acc).square().sum(-1)
    dn = D.to(acc).square().sum(-1)
    return dots(Q, D).to(acc).mul_(-2).add_(dn[None, None]).add_(qn[:, :, None, None]).clamp_min_(0)


def maxsim_eager(body):
    """An eager MaxSim-like formula over chunks of the queries."""
    def eager(torch, inp):
        Q, D = inp["Q"], inp["D"]
        per_query = Q.shape[1] * D.shape[0] * D.shape[1]
        return by_queries(torch, lambda c: body(torch, c), inp, ("Q", "w", "qmask"), per_query)
    return eager


def _weighted(torch, c):
    acc = acc_dtype(torch, c["Q"])
    best = dots(c["Q"], c["D"]).amax(-1).to(acc)                    # [nq, lq, nd]
    return (c["w"].to(acc)[:, :, None] * best).sum(1)


def _gaussian(torch, c):  # exp(-x) decreases: the nearest token's distance, then exp once
    return torch.exp(-sqdist(torch, c["Q"], c["D"]).amin(-1)).sum(1)


def _cosine(torch, c):
    acc = acc_dtype(torch, c["Q"])
    qn = torch.nn.functional.normalize(c["Q"].to(acc), dim=-1).to(c["Q"].dtype)
    dn = torch.nn.functional.normalize(c["D"].to(acc), dim=-1).to(c["D"].dtype)
    return dots(qn, dn).amax(-1).to(acc).sum(1)


def _outer_max(torch, c):
    return dots(c["Q"], c["D"]).amax(dim=(1, 3)).to(acc_dtype(torch, c["Q"]))


def _l1(torch, c):
    Q, D = c["Q"], c["D"]
    acc = acc_dtype(torch, Q)
    (nq, lq, d), (nd, ld, _) = Q.shape, D.shape
    pair = torch.cdist(Q.reshape(-1, d).to(acc), D.reshape(-1, d).to(acc), p=1).view(nq, lq, nd, ld)
    return pair.amin(-1).mean(1)


def _masked_mean(torch, c):
    Q, D, qmask, dmask = c["Q"], c["D"], c["qmask"], c["dmask"]
    acc = acc_dtype(torch, Q)
    s = dots(Q, D).masked_fill_(~dmask[None, None], float("-inf"))
    best = s.amax(-1).to(acc)                                       # [nq, lq, nd]
    best = torch.where(dmask.any(1)[None, None], best, 0.0)         # a document with no token: 0
    best = best * qmask[:, :, None]
    return best.sum(1) / qmask.sum(1).clamp_min(1)[:, None].to(acc)


def _inv_sq_min(torch, c):  # 1 / (1 + x) decreases: the farthest token's distance, then once
    return (1.0 / (1.0 + sqdist(torch, c["Q"], c["D"]).amax(-1))).sum(1)


def _inv_dist_max(torch, c):
    return (1.0 / (1.0 + sqdist(torch, c["Q"], c["D"]).amin(-1).sqrt())).sum(1)


def maxsim_sibling(normalize=False, masks=False, same=False):
    label = "maxsim" + ("(normalize=True)" if normalize else "") + ("(masks)" if masks else "")

    def call(torch, ops, inp):
        return ops.maxsim(inp["Q"], inp["D"], inp.get("qmask") if masks else None,
                          inp.get("dmask") if masks else None, normalize=normalize)
    return (label, call, same)


# ---- point clouds

def clouds(x_key, y_key, scale=1.0, uniform=True):
    """Two [b, n, d] clouds: uniform in [0, 1)^d (or N(0, scale^2)), drawn in fp32, cast to the dtype."""
    def make(torch, p, dtype, device, gen):
        def one(n):
            shape = (p["b"], n, p["d"])
            x = torch.rand(shape, generator=gen, device=device) if uniform else \
                scale * torch.randn(shape, generator=gen, device=device)
            return x.to(dtype)
        return {x_key: one(p["n"]), y_key: one(p["m"])}
    return make


def cloud_sq(torch, x, y):
    """[b, n, m] squared distances, baddbmm expansion (fp32 epilogue)."""
    acc = acc_dtype(torch, x)
    xa, ya = x.to(acc), y.to(acc)
    xn, yn = xa.square().sum(-1), ya.square().sum(-1)
    return torch.baddbmm(yn[:, None, :], xa, ya.transpose(1, 2), alpha=-2).add_(xn[:, :, None]).clamp_min_(0)


def by_batch(torch, fn, x, y):
    """fn(x chunk, y chunk) over chunks of the batch axis (8 bytes a pair: the distances and a temporary)."""
    parts = [fn(x[lo:hi], y[lo:hi]) for lo, hi in lead_chunks(x.shape[0], 8 * x.shape[1] * y.shape[1])]
    return parts[0] if len(parts) == 1 else torch.cat(parts, 0)


def _hausdorff(torch, inp):  # sqrt increases: the max of the nearest squared distance, then sqrt once
    return by_batch(torch, lambda x, y: cloud_sq(torch, x, y).amin(2).amax(1).sqrt(), inp["P"], inp["R"])


def _chamfer(torch, inp):
    def f(x, y):
        sq = cloud_sq(torch, x, y)
        return sq.amin(2).mean(1) + sq.amin(1).mean(1)
    return by_batch(torch, f, inp["P"], inp["R"])


def _soft(torch, inp):  # exp(-u/2) decreases: the nearest squared distance, then exp once
    return by_batch(torch, lambda x, y: torch.exp(-cloud_sq(torch, x, y).amin(2) / 2), inp["X"], inp["Y"])


def _hausdorff_sibling(torch, ops, inp):
    return ops.chamfer_distance(inp["P"], inp["R"], single_directional=True, point_reduction="max",
                                batch_reduction=None).sqrt()


def _chamfer_sibling(torch, ops, inp):
    return ops.chamfer_distance(inp["P"], inp["R"], batch_reduction=None)


def _soft_sibling(torch, ops, inp):
    cd = ops.chamfer_distance(inp["X"], inp["Y"], single_directional=True, point_reduction=None,
                              batch_reduction=None)
    return torch.exp(-cd / 2)


# ---- k-means

def kmeans_inputs(torch, p, dtype, device, gen):
    """K centres N(0, 1) in f dims; each point a random centre plus N(0, 0.5^2) noise."""
    c = torch.randn(p["k"], p["f"], generator=gen, device=device)
    pick = torch.randint(0, p["k"], (p["n"],), generator=gen, device=device)
    x = c[pick] + 0.5 * torch.randn(p["n"], p["f"], generator=gen, device=device)
    return {"X": x.to(dtype), "C": c.to(dtype)}


def _kmeans(torch, inp):
    """argmin_k |c_k|^2 - 2<x, c_k> (|x|^2 leaves the argmin) in 64K-row blocks: addmm for fp32 and
    float64; for fp16/bf16 the GEMM in the dtype, the rest in fp32."""
    x, c = inp["X"], inp["C"]
    acc = acc_dtype(torch, x)
    cn = c.to(acc).square().sum(1)[None]
    out = []
    for lo in range(0, x.shape[0], KMEANS_ROWS):
        xb = x[lo:lo + KMEANS_ROWS]
        if x.dtype in (torch.float32, torch.float64):
            d = torch.addmm(cn, xb, c.T, alpha=-2.0)
        else:
            d = (xb @ c.T).to(acc).mul_(-2).add_(cn)
        out.append(d.argmin(1))
    return torch.cat(out)


# ---- Splade head

def splade_inputs(torch, p, dtype, device, gen):
    """As bench/splade.py: hidden N(0, 1), weight N(0, 1/h), bias N(0, 0.1^2), prefix masks of lengths
    uniform in [L/2, L]."""
    lens = torch.randint(max(1, p["l"] // 2), p["l"] + 1, (p["b"],), generator=gen, device=device)
    return {"H": torch.randn(p["b"], p["l"], p["h"], generator=gen, device=device).to(dtype),
            "W": (torch.randn(p["v"], p["h"], generator=gen, device=device) / math.sqrt(p["h"])).to(dtype),
            "bias": (0.1 * torch.randn(p["v"], generator=gen, device=device)).to(dtype),
            "mask": torch.arange(p["l"], device=device)[None] < lens[:, None]}


def _splade(torch, inp):
    """softplus increases: the masked max of the logits (one addmm in the dtype), then softplus once;
    chunked over the batch where the logits pass EAGER_CHUNK_BYTES."""
    H, W, bias, mask = inp["H"], inp["W"], inp["bias"], inp["mask"]
    acc = acc_dtype(torch, H)
    b, l, h = H.shape
    parts = []
    for lo, hi in lead_chunks(b, 4 * l * W.shape[0]):
        logits = torch.addmm(bias, H[lo:hi].reshape(-1, h), W.T).view(hi - lo, l, -1)
        best = logits.masked_fill_(~mask[lo:hi, :, None], float("-inf")).amax(1).to(acc)
        parts.append(torch.where(mask[lo:hi].any(1)[:, None], torch.nn.functional.softplus(best), 0.0))
    return parts[0] if len(parts) == 1 else torch.cat(parts, 0)


def _splade_sibling(torch, ops, inp):
    return ops.splade_max(inp["H"], inp["W"], inp["bias"], inp["mask"], activation="log1p_relu")


# ---- the suite

def _maxsim_case(name, kind, body, eager_what, sibling, weights=False, masks=False):
    return Case(name, MAXSIM_FULL, MAXSIM_QUICK, ("fp16",), maxsim_inputs(kind, weights, masks),
                maxsim_eager(body), eager_what, maxsim_slice, sibling)


def _soft_inputs(torch, p, dtype, device, gen):
    """Uniform clouds in [0, 1)^d for a few coordinates; N(0, 0.1^2) features otherwise (squared distances
    about 2.6 at d = 128, so that exp(-x/2) does not underflow)."""
    return clouds("X", "Y", scale=0.1, uniform=p["d"] <= 8)(torch, p, dtype, device, gen)


def cases():
    """The suite, in run order. A size's params may carry "dtypes", overriding the case's."""
    pts = lambda b, n, d, **kw: dict(b=b, n=n, m=n, d=d, **kw)  # noqa: E731
    batch2 = lambda p: ({"P": {0: 2}, "R": {0: 2}}, (2,))  # noqa: E731
    expansion = "|q|^2+|d|^2-2<q,d> (fp16 GEMM, fp32 rest)"
    return [
        _maxsim_case("weighted_maxsim", "randn", _weighted, "fp16 GEMM, amax over t, fp32 weighted sum over s",
                     maxsim_sibling(), weights=True),
        _maxsim_case("gaussian_maxsim", "unit", _gaussian, f"{expansion}, amin over t, exp(-x) once, sum",
                     maxsim_sibling()),
        _maxsim_case("cosine_maxsim", "scaled", _cosine, "F.normalize (fp32, cast back), fp16 GEMM, amax, sum",
                     maxsim_sibling(normalize=True, same=True)),
        _maxsim_case("outer_max", "randn", _outer_max, "fp16 GEMM, amax over (s, t)", maxsim_sibling()),
        Case("hausdorff", {"4x20000": pts(4, 20000, 3)}, {"4x20000": pts(2, 64, 3)}, ("fp32",),
             clouds("P", "R"), _hausdorff, "fp32 baddbmm expansion, amin over m, amax over n, sqrt once",
             lambda p: ({"P": {0: 1}, "R": {0: 1}}, (1,)),  # the reference's differences: ~25 GB at 20K x 20K
             ("sqrt(chamfer_distance(single_directional, point_reduction='max'))", _hausdorff_sibling, True)),
        # 2^20 rows: 65536 row blocks of 16, past a grid axis's 65535 before the flat grid
        Case("kmeans_assign", {"1Mx1024x64": dict(n=1 << 20, k=1024, f=64)},
             {"1Mx1024x64": dict(n=256, k=32, f=16)}, ("fp32", "bf16"), kmeans_inputs, _kmeans,
             "|c|^2 - 2<x,c> (fp32: addmm; bf16: GEMM in bf16, fp32 rest), argmin, in 64K-row blocks",
             lambda p: ({"X": {0: 8192}}, (8192,)), None, index=True),
        Case("l1_mean_min", {"8x200 32x128 d64": dict(nq=8, nd=200, lq=32, ld=128, d=64)},
             {"8x200 32x128 d64": dict(nq=2, nd=3, lq=8, ld=12, d=16)}, ("fp32",), maxsim_inputs("randn"),
             maxsim_eager(_l1), "fp32 torch.cdist(p=1), amin over t, mean over s", maxsim_slice),
        Case("chamfer_spec", {"8x8192": pts(8, 8192, 3)}, {"8x8192": pts(2, 48, 3)}, ("fp32",),
             clouds("P", "R"), _chamfer, "fp32 baddbmm expansion, amin both ways, mean, sum", batch2,
             ("chamfer_distance(batch_reduction=None)", _chamfer_sibling, True)),
        Case("soft_nearest", {"8x8192 d3": pts(8, 8192, 3, dtypes=("fp32",)),
                              "4x4096 d128": pts(4, 4096, 128, dtypes=("fp16",))},
             {"8x8192 d3": pts(2, 32, 3, dtypes=("fp32",)), "4x4096 d128": pts(1, 24, 32, dtypes=("fp16",))},
             ("fp32",), _soft_inputs, _soft, "baddbmm expansion (fp32), amin over m, exp(-x/2) once",
             lambda p: ({"X": {0: 1, 1: 1024}, "Y": {0: 1}}, (1, 1024)),
             ("exp(-chamfer_distance(single_directional, point_reduction=None) / 2)", _soft_sibling, True)),
        Case("splade_softplus", {"32x256x768 V30522": dict(b=32, l=256, h=768, v=30522)},
             {"32x256x768 V30522": dict(b=2, l=8, h=32, v=48)}, ("fp16",), splade_inputs, _splade,
             "fp16 addmm (the [B, L, V] logits), masked amax over s, softplus once",
             lambda p: ({"H": {0: 2}, "mask": {0: 2}, "W": {0: 4096}, "bias": {0: 4096}}, (2, 4096)),
             ("splade_max(log1p_relu)", _splade_sibling, False)),
        _maxsim_case("masked_mean_maxsim", "randn", _masked_mean, "fp16 GEMM, masked amax over t, masked mean over s",
                     maxsim_sibling(masks=True), masks=True),
        _maxsim_case("inv_sq_min", "unit", _inv_sq_min, f"{expansion}, amax over t, 1/(1+x) once, sum",
                     maxsim_sibling()),
        _maxsim_case("inv_dist_max", "unit", _inv_dist_max, f"{expansion}, amin over t, 1/(1+sqrt x) once, sum",
                     maxsim_sibling()),
    ]


def rows_of(case_list, quick, only, part=None):
    """[(case, size label, params, dtype)] in suite order; part "K/N": the K-th of N contiguous parts."""
    keep = None if not only else {s.strip() for s in only.split(",") if s.strip()}
    rows = []
    for c in case_list:
        for label, params in (c.quick if quick else c.sizes).items():
            params = dict(params)
            for dt in params.pop("dtypes", c.dtypes):
                if keep is None or c.name in keep or f"{c.name}/{label}" in keep:
                    rows.append((c, label, params, dt))
    if part:
        k, n = (int(x) for x in part.split("/"))
        if not 1 <= k <= n:
            raise ValueError(f"--part {part}: K must be in 1..N")
        rows = rows[round((k - 1) * len(rows) / n):round(k * len(rows) / n)]
    return rows


# --------------------------------------------------------------------------- checks

def sliced(inp, dims):
    out = {}
    for k, v in inp.items():
        if v is not None and k in dims:
            idx = [slice(None)] * v.dim()
            for d, n in dims[k].items():
                idx[d] = slice(0, n)
            v = v[tuple(idx)]
        out[k] = v
    return out


def out_sliced(out, lens):
    return out[tuple(slice(0, n) for n in lens)]


def to64(torch, inp):
    return {k: (v.double() if v is not None and v.is_floating_point() else v) for k, v in inp.items()}


def reference(torch, op, sub, device):
    """(op.reference on the slice in float64, what ran it); where it raises on the device, it runs on CPU
    copies of the slice and its output comes back to the device."""
    try:
        return op.reference(**to64(torch, sub)), f"op.reference on {device}"
    except Exception as e:  # noqa: BLE001
        if device == "cpu":
            raise
        why = f"{type(e).__name__}: {' '.join(str(e).split())[:200]}"
        print(f"  op.reference on {device} raised ({why}); running it on cpu", flush=True)
        cpu = {k: (v.cpu() if v is not None else None) for k, v in sub.items()}
        return op.reference(**to64(torch, cpu)).to(device), f"op.reference on cpu (on {device}: {why})"


def value_err(torch, out, ref):
    """(largest |out - ref|, that / largest |ref|); inf where out has a NaN that ref does not."""
    o, r = out.detach().double(), ref.detach().double()
    if o.shape != r.shape:
        raise ValueError(f"shape {tuple(o.shape)} against the reference's {tuple(r.shape)}")
    bad_nan = bool((torch.isnan(o) & ~torch.isnan(r)).any())
    diff = (o - r).abs().nan_to_num(0.0)
    abs_err = math.inf if bad_nan else float(diff.max()) if diff.numel() else 0.0
    scale = float(r.abs().nan_to_num(0.0).max()) if r.numel() else 0.0
    return abs_err, (abs_err / scale if scale > 0 else abs_err)


def index_check(torch, x, c, out, ref, tie_rtol):
    """Agreement of an argmin index with the float64 one; mismatches must be ties (exact squared distances
    from float64 differences within tie_rtol of the nearest)."""
    out, ref = out.long(), ref.long()
    n = out.numel()
    in_range = bool(((out >= 0) & (out < c.shape[0])).all())
    mism = (out != ref).nonzero().flatten()
    res = {"n": n, "agree": 1.0 - mism.numel() / max(n, 1), "mismatches": int(mism.numel()), "in_range": in_range}
    if mism.numel() and in_range:
        xm = x[mism].double()
        d_chosen = (xm - c[out[mism]].double()).square().sum(1)
        d_best = (xm - c[ref[mism]].double()).square().sum(1)
        gap = (d_chosen - d_best) / d_best.clamp_min(1e-30)
        res["max_gap_rel"] = float(gap.max())
        res["ties_ok"] = bool((gap <= tie_rtol).all())
    else:
        res["max_gap_rel"] = 0.0
        res["ties_ok"] = in_range
    return res


# --------------------------------------------------------------------------- the run

class Runner:
    def __init__(self, torch, args, device):
        self.torch, self.args, self.device = torch, args, device
        self.t0 = time.monotonic()

    def elapsed(self):
        return time.monotonic() - self.t0

    def sync(self):
        if self.device == "cuda":
            self.torch.cuda.synchronize()

    def first_call(self, fn):
        """(output, seconds) of the first call: compilation and autotuning."""
        t = time.perf_counter()
        out = fn()
        self.sync()
        return out, time.perf_counter() - t

    def time_ms(self, fn):
        """do_bench median after one more warm-up call; on CPU one perf_counter call (median of 3 unless
        --quick)."""
        if self.device != "cuda":
            runs = []
            for _ in range(1 if self.args.quick else 3):
                t = time.perf_counter()
                fn()
                runs.append((time.perf_counter() - t) * 1e3)
            return statistics.median(runs)
        import triton.testing

        fn()
        self.sync()
        warmup, rep = (10, 30) if self.args.quick else (25, 100)
        return triton.testing.do_bench(fn, warmup=warmup, rep=rep, return_mode="median")

    def guard(self, row, what, thunk):
        try:
            return thunk(), None
        except Exception as e:  # noqa: BLE001 - one failure must not end the run
            kind = "OOM" if "out of memory" in str(e).lower() else type(e).__name__
            msg = f"{what}: {kind}: {' '.join(str(e).split())[:400]}"
            print(f"  FAILED {msg}", flush=True)
            row.setdefault("errors", []).append(msg)
            if self.device == "cuda":
                try:
                    self.torch.cuda.synchronize()
                    self.torch.cuda.empty_cache()
                except Exception:  # noqa: BLE001 - a broken context shows in the next call too
                    pass
            return None, msg


def run_row(run, torch, ops, compiled, case, label, params, dtype_name, seed):
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}[dtype_name]
    row = {"name": case.name, "spec": case.text, "size": label, "params": params, "dtype": dtype_name,
           "hsr_ms": None, "eager": case.eager_what, "eager_ms": None,
           "sibling": case.sibling[0] if case.sibling else None, "sibling_same": case.sibling[2] if case.sibling
           else None, "sibling_ms": None, "hsr_vs_eager": None, "hsr_vs_sibling": None, "check": {},
           "status": None}
    dev = run.device
    no_grad = torch.no_grad()

    def compile_op():
        if case.name not in compiled:
            t = time.perf_counter()
            compiled[case.name] = (run.args.hsr.compile(case.text), time.perf_counter() - t)
            row["compile_s"] = round(compiled[case.name][1], 3)
        return compiled[case.name][0]

    op, err = run.guard(row, "hsr.compile", compile_op)
    if op is None:
        row["status"] = f"error: {err}"
        return row

    def make():
        gen = torch.Generator(device=dev).manual_seed(seed)
        return case.make(torch, params, dtype, dev, gen)

    inp, err = run.guard(row, "inputs", make)
    if inp is None:
        row["status"] = f"error: {err}"
        return row
    row["shapes"] = {k: list(v.shape) for k, v in inp.items()}
    dims, out_lens = case.check_slice(params)
    sub = sliced(inp, dims)
    with no_grad:
        hsr_call = lambda: op(**inp)  # noqa: E731
        hsr_out, err = run.guard(row, "hsr first call", lambda: run.first_call(hsr_call))
        if hsr_out is None:
            row["status"] = f"error: {err}"
            return row
        hsr_out, row["first_s"] = hsr_out[0], round(hsr_out[1], 3)
        ms, _ = run.guard(row, "hsr timing", lambda: run.time_ms(hsr_call))
        row["hsr_ms"] = ms

        # the check: op.reference in float64 on the slice
        ref, err = run.guard(row, "op.reference", lambda: reference(torch, op, sub, dev))
        check = row["check"]
        if ref is not None:
            ref, check["ref"] = ref
        check["slice"] = {k: v for k, v in dims.items() if k in inp} | {"out": list(out_lens)}
        mine = out_sliced(hsr_out, out_lens)
        if ref is not None:
            if case.index:
                res = index_check(torch, sub["X"], sub["C"], mine, ref, TIE_RTOL[dtype_name])
                check.update(res, tie_rtol=TIE_RTOL[dtype_name], passed=bool(res["ties_ok"]))
            else:
                a, r = value_err(torch, mine, ref)
                check.update(max_abs_err=a, max_rel_err=r, ref_max_abs=float(ref.double().abs().max()),
                             tol=TOL[dtype_name], passed=bool(r <= TOL[dtype_name]))
        del hsr_out

        # eager
        eager_call = lambda: case.eager(torch, inp)  # noqa: E731
        eager_out, _ = run.guard(row, "eager first call", lambda: run.first_call(eager_call))
        if eager_out is not None:
            eager_out, row["eager_first_s"] = eager_out[0], round(eager_out[1], 3)
            if ref is not None:
                e_mine = out_sliced(eager_out, out_lens)
                if case.index:
                    check["eager_agree"] = index_check(torch, sub["X"], sub["C"], e_mine, ref,
                                                       TIE_RTOL[dtype_name])["agree"]
                else:
                    check["eager_max_rel_err"] = value_err(torch, e_mine, ref)[1]
            del eager_out
            row["eager_ms"], _ = run.guard(row, "eager timing", lambda: run.time_ms(eager_call))
        if ref is not None:
            def eager64():
                e64 = case.eager(torch, to64(torch, sub))
                if case.index:
                    return float((e64 == ref).double().mean())
                return value_err(torch, e64, ref)[1]
            v, _ = run.guard(row, "eager in float64", eager64)
            if v is not None:
                check["eager64_agree" if case.index else "eager64_rel"] = v
                check["eager_formula_ok"] = bool(v >= 1.0 - 1e-12 if case.index else v <= EAGER64_TOL)

        # the bundled sibling
        if case.sibling:
            label_s, fn, same = case.sibling
            sib_call = lambda: fn(torch, ops, inp)  # noqa: E731
            s_out, _ = run.guard(row, f"sibling {label_s}", lambda: run.first_call(sib_call))
            if s_out is not None:
                s_out, row["sibling_first_s"] = s_out[0], round(s_out[1], 3)
                if same and ref is not None:
                    check["sibling_max_rel_err"] = value_err(torch, out_sliced(s_out, out_lens), ref)[1]
                    check["sibling_ok"] = bool(check["sibling_max_rel_err"] <= TOL[dtype_name])
                del s_out
                row["sibling_ms"], _ = run.guard(row, "sibling timing", lambda: run.time_ms(sib_call))
    del inp, sub, ref

    if row["hsr_ms"]:
        if row["eager_ms"]:
            row["hsr_vs_eager"] = row["eager_ms"] / row["hsr_ms"]
        if row["sibling_ms"]:
            row["hsr_vs_sibling"] = row["sibling_ms"] / row["hsr_ms"]
    passed = check.get("passed")
    if row["hsr_ms"] is None:
        row["status"] = "error: hsr timing"
    elif passed is None:
        row["status"] = "error: no check"
    elif not passed:
        row["status"] = "check failed"
    else:
        notes = [what for what, bad in (("a baseline failed", row.get("errors")),
                                        ("eager's formula is off", check.get("eager_formula_ok") is False),
                                        ("the same sibling differs", check.get("sibling_ok") is False)) if bad]
        row["status"] = "ok" + (f" ({'; '.join(notes)})" if notes else "")
    return row


# --------------------------------------------------------------------------- report

def fmt(v, f):
    return "-" if v is None else format(v, f)


def check_cell(r):
    c = r.get("check") or {}
    if "agree" in c:
        return f"agree {c['agree']:.6f}, {c['mismatches']} mism., ties {'ok' if c.get('ties_ok') else 'NOT ok'}"
    if "max_rel_err" in c:
        return f"rel {c['max_rel_err']:.1e} ({'pass' if c['passed'] else 'FAIL'} at {c['tol']:.0e})"
    return "-"


def markdown(res):
    quick = res["quick"]
    v = res["versions"]
    lines = ["# Specs that no bundled op is: hsr against eager PyTorch and the bundled sibling", "",
             f"Device: {res['device']}; python {v['python']}, torch {v['torch']}, triton {v['triton']}, "
             f"hsr {v['hsr']} ({v.get('hsr_git') or 'no git'})" + (" (--quick: tiny shapes)" if quick else "")
             + (f"; --part {res['part']}" if res.get("part") else "")
             + (f"; --only {res['only']}" if res.get("only") else "") + ".",
             "",
             "ms of the public call: " + ("triton.testing.do_bench medians after the first call and a warm-up"
                                          if res["timing"] == "do_bench" else
                                          "time.perf_counter after the first call (Triton interpreter)")
             + "; first s: the first call (compilation, autotuning). eager/hsr and sibling/hsr: above 1, hsr is "
             "faster. check: hsr on a slice against op.reference (float64), largest |error| / largest |ref|; "
             "k-means: agreement with the float64 argmin, mismatches must be ties. sibling (same): the bundled op "
             "computes the same values; otherwise it is the nearest bundled op, for scale.", "",
             "| spec | size | dtype | hsr ms | first s | eager ms | eager/hsr | sibling | sibling ms | sibling/hsr "
             "| check | eager err | status |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in res["rows"]:
        c = r.get("check") or {}
        e_err = (f"agree {c['eager_agree']:.6f}" if "eager_agree" in c else
                 fmt(c.get("eager_max_rel_err"), ".1e"))
        sib = "-" if not r.get("sibling") else r["sibling"] + (" (same)" if r.get("sibling_same") else "")
        lines.append(f"| {r['name']} | {r['size']} | {r['dtype']} | {fmt(r.get('hsr_ms'), '.4f')} | "
                     f"{fmt(r.get('first_s'), '.2f')} | {fmt(r.get('eager_ms'), '.4f')} | "
                     f"{fmt(r.get('hsr_vs_eager'), '.2f')} | {sib} | {fmt(r.get('sibling_ms'), '.4f')} | "
                     f"{fmt(r.get('hsr_vs_sibling'), '.2f')} | {check_cell(r)} | {e_err} | {r['status']} |")
    lines += ["", "## Specs", ""]
    for name, text in res["specs"].items():
        lines += [f"{name}:", "", "```", text.rstrip(), "```", ""]
    lines += ["## Eager", ""] + [f"- {k}: {w}" for k, w in res["eager"].items()]
    moved = [f"- {r['name']} {r['size']} {r['dtype']}: {r['check']['ref']}" for r in res["rows"]
             if "on cpu (" in (r.get("check") or {}).get("ref", "")]
    if moved:
        lines += ["", "## Reference evaluator on CPU", ""] + moved
    errs = [f"- {r['name']} {r['size']} {r['dtype']}: {e}" for r in res["rows"] for e in r.get("errors", [])]
    if errs:
        lines += ["", "## Failures", ""] + errs
    return "\n".join(lines) + "\n"


def _clean(v):
    if isinstance(v, dict):
        return {k: _clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_clean(x) for x in v]
    return str(v) if isinstance(v, float) and not math.isfinite(v) else v


def git_rev():
    try:
        rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return (rev + ("+dirty" if dirty else "")) or None
    except Exception:  # noqa: BLE001 - not a checkout
        return None


def import_hsr():
    """hsr with its ops; from this checkout (its package-dir layout) when it is not installed."""
    try:
        import hsr
        import hsr.ops  # noqa: F401
        return hsr
    except ModuleNotFoundError:
        import importlib.util
        from importlib.abc import MetaPathFinder

        for key in [k for k in sys.modules if k == "hsr" or k.startswith("hsr.")]:
            del sys.modules[key]
        mapping = {"hsr": ROOT / "hsr", "hsr.ops": ROOT / "ops", "hsr.generated": ROOT / "generated",
                   "hsr.templates": ROOT / "templates"}

        class Checkout(MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name in mapping:
                    return importlib.util.spec_from_file_location(
                        name, mapping[name] / "__init__.py", submodule_search_locations=[str(mapping[name])])
                return None

        sys.meta_path.insert(0, Checkout())
        import hsr
        import hsr.ops  # noqa: F401
        print(f"hsr: not installed; imported from the checkout {ROOT}", flush=True)
        return hsr


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=str(ROOT / "bench" / "results"), help="directory for specs.json and specs.md")
    p.add_argument("--budget", type=float, default=280.0, help="start no new row after this many seconds")
    p.add_argument("--only", help="comma-separated case names (or name/size) to run")
    p.add_argument("--part", help="K/N: run the K-th of N contiguous parts of the rows (the suite in N calls)")
    p.add_argument("--quick", action="store_true", help="tiny shapes (CPU smoke run)")
    p.add_argument("--device", choices=("cuda", "cpu"), help="default: cuda if available, else cpu")
    p.add_argument("--list", action="store_true", help="print the cases, sizes and specs, and exit")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    suite = cases()
    if args.list:
        for n, (c, label, params, dt) in enumerate(rows_of(suite, args.quick, args.only, args.part)):
            print(f"{n + 1:3d} {c.name:20s} {label:20s} {dt:5s} {params}")
        print()
        for name, text in SPECS.items():
            print(f"# {name}\n{text}")
        return 0
    import torch

    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        print("--device cuda: no CUDA device", file=sys.stderr)
        return 2
    if device == "cpu":
        os.environ.setdefault("TRITON_INTERPRET", "1")  # before triton (imported by hsr) is
    import triton

    hsr = import_hsr()
    import hsr.ops as ops

    args.hsr = hsr
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    interp = os.environ.get("TRITON_INTERPRET", "0")
    name = torch.cuda.get_device_name(0) if device == "cuda" else \
        f"cpu ({platform.processor() or platform.machine()}, Triton interpreter: {interp})"
    res = {"device": name,
           "versions": {"torch": torch.__version__, "triton": triton.__version__,
                        "hsr": getattr(hsr, "__version__", "?"), "hsr_git": git_rev(), "hsr_file": hsr.__file__,
                        "python": platform.python_version()},
           "quick": args.quick, "timing": "do_bench" if device == "cuda" else "perf_counter",
           "budget_s": args.budget, "tol": TOL, "tie_rtol": TIE_RTOL,
           "specs": {c.name: c.text for c in suite}, "eager": {c.name: c.eager_what for c in suite}, "rows": []}
    os.makedirs(args.out, exist_ok=True)
    v = res["versions"]
    print(f"device {name}; torch {v['torch']}, triton {v['triton']}, hsr {v['hsr']} ({v['hsr_git']}), "
          f"python {v['python']}", flush=True)

    def save():
        with open(os.path.join(args.out, "specs.json"), "w") as f:
            json.dump(_clean(res), f, indent=2, default=str)
        with open(os.path.join(args.out, "specs.md"), "w") as f:
            f.write(markdown(res))

    run = Runner(torch, args, device)
    plan = rows_of(suite, args.quick, args.only, args.part)
    res["only"], res["part"] = args.only, args.part
    if not plan:
        print(f"--only {args.only!r} / --part {args.part!r} leave no row; cases: "
              f"{', '.join(c.name for c in suite)}", file=sys.stderr)
        return 2
    compiled = {}
    failed = []
    for n, (case, label, params, dt) in enumerate(plan):
        head = f"[{n + 1}/{len(plan)}] {case.name} {label} {dt}"
        if run.elapsed() > args.budget:
            print(f"== {head}: skipped (past the {args.budget:g} s budget)", flush=True)
            res["rows"].append({"name": case.name, "spec": case.text, "size": label, "params": params, "dtype": dt,
                                "status": "skipped (budget)"})
            continue
        print(f"== {head} {params}", flush=True)
        row = run_row(run, torch, ops, compiled, case, label, params, dt, seed=1000 + n)
        row["elapsed_s"] = round(run.elapsed(), 1)
        res["rows"].append(row)
        print(f"  hsr {fmt(row['hsr_ms'], '.4f')} ms (first {fmt(row.get('first_s'), '.2f')} s) | eager "
              f"{fmt(row['eager_ms'], '.4f')} ms (x{fmt(row['hsr_vs_eager'], '.2f')}) | sibling "
              f"{row['sibling'] or '-'} {fmt(row['sibling_ms'], '.4f')} ms (x{fmt(row['hsr_vs_sibling'], '.2f')}) | "
              f"{check_cell(row)} | {row['status']}  [{row['elapsed_s']:.0f} s]", flush=True)
        if row["status"].startswith("error") or row["status"] == "check failed":
            failed.append(f"{head}: {row['status']}")
        save()
        if device == "cuda":
            torch.cuda.empty_cache()
    res["elapsed_s"] = round(run.elapsed(), 1)
    save()
    print(f"\nwrote {args.out}/specs.json and specs.md ({res['elapsed_s']:.0f} s)")
    if failed:
        print("FAILED:\n  " + "\n  ".join(failed))
    print()
    print(markdown(res), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

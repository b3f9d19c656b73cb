#!/usr/bin/env python3
"""Which kernel structure brings the MaxSim inference forward nearest the
tensor-core floor: hand-written Triton variants of the generated kernel's loop,
timed beside hsr's own forward (hsr.ops.maxsim) in one process.

    score[i, j] = sum_s max_t <Q[i, s, :], D[j, t, :]>     (no masks, no argmax)

All variants are one kernel, `maxsim_variant`, whose constexpr flags select the
idea under test, so two variants differ only in that idea:

  baseline   the generated kernel's structure (score_fwd with NEED_IDX=False):
             one program per (document, query), a loop over query chunks of
             BLOCK_S rows; per chunk, the Q chunk loaded once, document tiles of
             BLOCK_T rows streamed with tl.load, dot = tl.dot(a, b.T) in fp32,
             a running elementwise max over [BLOCK_S, BLOCK_T] slots, reduced
             over the slots after the tile loop. `hsr-masks` also masks the
             loads of full tiles, as the generated kernel does.
  tma        the same loop, with the Q chunk and the document tiles loaded
             through tensor descriptors (TMA on Hopper): `tma` host-side
             descriptors over Q as [Nq*Lq, d] and D as [B*Ld, d]; `tma-dev`
             descriptors built in the kernel (tl.make_tensor_descriptor), one
             per query and per document; `ws` adds warp_specialize=True to the
             tile loop (a producer warp group issuing the loads).
  pipelined  the tile loop software-pipelined by hand: the dot of tile k is
             issued before the max of tile k-1 (its result carried across the
             iteration), to see whether Triton keeps the wgmma in flight while
             the same warps do the max.
  split      one program per (query chunk, document, query) instead of a chunk
             loop inside the program; each adds its partial sum into the
             (zeroed) output with tl.atomic_add. More, shorter programs: less
             wave quantisation, fewer registers (more programs per SM to
             overlap one another's dot and max), and the chunks of a document
             launched side by side, so its tiles come from DRAM once and then
             from L2. `doc-fast` launches them a whole row of documents apart:
             the control for that locality.
  rowmax     each tile reduced to its rows' max at once (one slot per row, not
             one per tile column), which frees the registers of the slots for
             wider tiles (BLOCK_T = 128, 256: larger wgmma N).

Per shape (Nq = 1, B = 1000, d = 128, fp16 by default), each variant runs a
few configs; every output is checked against an fp32 torch reference
(einsum -> amax -> sum; flagged above a relative error of 1e-2) and timed with
triton.testing.do_bench (median; L2 flushed before every run). The compute
floor is 2 B Lq Ld d FLOPs at the rate of a torch.mm 8192^3 in the same dtype,
measured in the same run (% floor); % limit also takes the bytes floor (Q and
D read once at the rate of a 1 GiB device copy), which binds at Lq <= 128.
For each compiled kernel the JSON also keeps its registers, spills, shared
memory, the programs per SM those allow, and a few counts from its PTX (wgmma
issues, the pending counts of its wgmma waits, TMA and cp.async copies), which
say whether a variant compiled to what it was meant to.

GPU (an H100 with Triton 3.6 took 42 s for the four shapes, 80 configs,
compiles included; --quick about 15 s; nothing new starts after --budget-s):

    python3 bench/experiments/forward_variants.py --out DIR [--shapes colpali,visual,medium,long-doc]
        [--quick] [--budget-s 300] [--dtype fp16|bf16]

Writes DIR/forward_variants.json and DIR/forward_variants.md and prints the
table last. Every failure (compile error, out of resources, wrong result) is
recorded as a string for its variant and config; the run goes on.

CPU (no GPU; the Triton interpreter, tiny shapes, fp32):

    TRITON_INTERPRET=1 python bench/experiments/forward_variants.py --interpret-check

Limits of the variants: Q and D contiguous, d a power of two (16 to 256), one
dtype for both; the TMA variants address rows with int32 (Nq Lq and B Ld below
2^31) and the split grid puts B on grid axis 1 (B <= 65535).
"""

from __future__ import annotations

import os
import sys

if "--interpret-check" in sys.argv:  # the interpreter must be chosen before triton is imported
    os.environ.setdefault("TRITON_INTERPRET", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import re  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

try:
    from triton.tools.tensor_descriptor import TensorDescriptor
except ImportError:  # an older Triton: the host-side descriptor configs report the error
    TensorDescriptor = None

NQ, B, DIM = 1, 1000, 128
SHAPES = {  # name: (Lq, Ld)
    "colpali": (1024, 1024),
    "visual": (512, 1024),
    "medium": (128, 1024),
    "long-doc": (32, 1024),
}
DEFAULT_SHAPES = "colpali,visual,medium,long-doc"
FLAG_REL_ERR = 1e-2
MATMUL_N = 8192
VARIANTS = ("baseline", "tma", "pipelined", "split", "rowmax")

# constexpr codes
LOOP_RUNNING, LOOP_PIPELINED, LOOP_ROWMAX = 0, 1, 2
LOADS = {"ptr": 0, "tma": 1, "tma-dev": 2}


# --------------------------------------------------------------------------- kernels

@triton.jit
def _max_nan(x, y):
    """Elementwise max that keeps NaN, as torch.amax does."""
    return tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL)


@triton.jit
def _dot_nt(a, b, PRECISION: tl.constexpr):
    """a @ b.T on the tensor cores, fp32 accumulation."""
    return tl.dot(a, tl.trans(b), input_precision=PRECISION)


@triton.jit
def _load_q(Qi, q_desc, q_row0, s0, Lq, sq_s, dim,
            BLOCK_S: tl.constexpr, BLOCK_D: tl.constexpr, LOAD: tl.constexpr, MASK_FULL: tl.constexpr):
    """The Q chunk [BLOCK_S, BLOCK_D] starting at query row s0 (rows past Lq: zeros, or the
    next query's rows through a host descriptor; the caller leaves them out of the sum)."""
    if LOAD == 0:
        offs_s = s0 + tl.arange(0, BLOCK_S)
        offs_d = tl.arange(0, BLOCK_D)
        rows_in = offs_s < Lq
        mask = rows_in[:, None]
        if MASK_FULL:  # as the generated kernel: the contraction axis masked too
            mask = mask & (offs_d < dim)[None, :]
        a = tl.load(Qi + offs_s.to(tl.int64)[:, None] * sq_s + offs_d[None, :], mask=mask, other=0.0)
    else:
        a = q_desc.load([q_row0 + s0, 0])
    return a


@triton.jit
def _load_d(Dj, d_desc, d_row0, t0, Ld, sd_t, dim,
            BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr, LOAD: tl.constexpr, MASKED: tl.constexpr):
    """The document tile [BLOCK_T, BLOCK_D] starting at token t0. MASKED: rows past Ld read as
    zeros (pointer loads); through a descriptor they are the next document's rows, or zeros
    past the end of D. Either way the caller sets their scores to -inf."""
    if LOAD == 0:
        offs_t = t0 + tl.arange(0, BLOCK_T)
        offs_d = tl.arange(0, BLOCK_D)
        ptrs = Dj + offs_t.to(tl.int64)[:, None] * sd_t + offs_d[None, :]  # int64: tall D passes 2^31
        if MASKED:
            b = tl.load(ptrs, mask=(offs_t < Ld)[:, None] & (offs_d < dim)[None, :], other=0.0)
        else:
            b = tl.load(ptrs)
    else:
        b = d_desc.load([d_row0 + t0, 0])
    return b


@triton.jit
def _tail_scores(a, Dj, d_desc, d_row0, t_full, Ld, sd_t, dim,
                 BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr, LOAD: tl.constexpr, PRECISION: tl.constexpr):
    """Scores of the last, partial tile (tokens t_full ..), -inf past Ld."""
    b = _load_d(Dj, d_desc, d_row0, t_full, Ld, sd_t, dim, BLOCK_T, BLOCK_D, LOAD, True)
    cols = t_full + tl.arange(0, BLOCK_T)
    return tl.where((cols < Ld)[None, :], _dot_nt(a, b, PRECISION), float("-inf"))


@triton.jit
def _rows_best_running(a, Dj, d_desc, d_row0, Ld, sd_t, dim,
                       BLOCK_S: tl.constexpr, BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr,
                       LOAD: tl.constexpr, MASK_FULL: tl.constexpr, WS: tl.constexpr, PRECISION: tl.constexpr):
    """Idea of the generated kernel: a running elementwise max over [BLOCK_S, BLOCK_T] slots,
    one max instruction per score, the slots reduced once after the tile loop."""
    best = tl.full([BLOCK_S, BLOCK_T], float("-inf"), tl.float32)
    t_full = (Ld // BLOCK_T) * BLOCK_T
    if WS:  # a producer warp group for the loads (Triton's automatic warp specialisation)
        for t0 in tl.range(0, t_full, BLOCK_T, warp_specialize=True):
            b = _load_d(Dj, d_desc, d_row0, t0, Ld, sd_t, dim, BLOCK_T, BLOCK_D, LOAD, MASK_FULL)
            best = _max_nan(best, _dot_nt(a, b, PRECISION))
    else:
        for t0 in range(0, t_full, BLOCK_T):
            b = _load_d(Dj, d_desc, d_row0, t0, Ld, sd_t, dim, BLOCK_T, BLOCK_D, LOAD, MASK_FULL)
            best = _max_nan(best, _dot_nt(a, b, PRECISION))
    if t_full < Ld:
        best = _max_nan(best, _tail_scores(a, Dj, d_desc, d_row0, t_full, Ld, sd_t, dim,
                                           BLOCK_T, BLOCK_D, LOAD, PRECISION))
    return tl.reduce(best, 1, _max_nan)


@triton.jit
def _rows_best_pipelined(a, Dj, d_desc, d_row0, Ld, sd_t, dim,
                         BLOCK_S: tl.constexpr, BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr,
                         LOAD: tl.constexpr, MASK_FULL: tl.constexpr, PRECISION: tl.constexpr):
    """Software-pipelined by hand: iteration k issues the dot of tile k, then takes the max of
    tile k-1's scores (carried in `prev`), so that the dot's result is first needed one
    iteration later. The first iteration's max is over -inf (one wasted max per chunk)."""
    best = tl.full([BLOCK_S, BLOCK_T], float("-inf"), tl.float32)
    prev = tl.full([BLOCK_S, BLOCK_T], float("-inf"), tl.float32)
    t_full = (Ld // BLOCK_T) * BLOCK_T
    for t0 in range(0, t_full, BLOCK_T):
        b = _load_d(Dj, d_desc, d_row0, t0, Ld, sd_t, dim, BLOCK_T, BLOCK_D, LOAD, MASK_FULL)
        cur = _dot_nt(a, b, PRECISION)
        best = _max_nan(best, prev)
        prev = cur
    best = _max_nan(best, prev)
    if t_full < Ld:
        best = _max_nan(best, _tail_scores(a, Dj, d_desc, d_row0, t_full, Ld, sd_t, dim,
                                           BLOCK_T, BLOCK_D, LOAD, PRECISION))
    return tl.reduce(best, 1, _max_nan)


@triton.jit
def _rows_best_rowmax(a, Dj, d_desc, d_row0, Ld, sd_t, dim,
                      BLOCK_S: tl.constexpr, BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr,
                      LOAD: tl.constexpr, MASK_FULL: tl.constexpr, PRECISION: tl.constexpr):
    """Each tile reduced to its rows' max at once: one slot per row ([BLOCK_S] registers
    instead of [BLOCK_S, BLOCK_T]), for wide tiles; a row reduction (shuffles) per tile."""
    best = tl.full([BLOCK_S], float("-inf"), tl.float32)
    t_full = (Ld // BLOCK_T) * BLOCK_T
    for t0 in range(0, t_full, BLOCK_T):
        b = _load_d(Dj, d_desc, d_row0, t0, Ld, sd_t, dim, BLOCK_T, BLOCK_D, LOAD, MASK_FULL)
        best = _max_nan(best, tl.reduce(_dot_nt(a, b, PRECISION), 1, _max_nan))
    if t_full < Ld:
        tail = _tail_scores(a, Dj, d_desc, d_row0, t_full, Ld, sd_t, dim, BLOCK_T, BLOCK_D, LOAD, PRECISION)
        best = _max_nan(best, tl.reduce(tail, 1, _max_nan))
    return best


@triton.jit
def _chunk_sum(Qi, q_desc, q_row0, Dj, d_desc, d_row0, s0, Lq, Ld, sq_s, sd_t, dim,
               BLOCK_S: tl.constexpr, BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr,
               LOOP: tl.constexpr, LOAD: tl.constexpr, MASK_FULL: tl.constexpr, WS: tl.constexpr,
               PRECISION: tl.constexpr):
    """Per query row s0 .. s0 + BLOCK_S: its best score over the document, 0 past Lq."""
    a = _load_q(Qi, q_desc, q_row0, s0, Lq, sq_s, dim, BLOCK_S, BLOCK_D, LOAD, MASK_FULL)
    if LOOP == 0:
        best = _rows_best_running(a, Dj, d_desc, d_row0, Ld, sd_t, dim, BLOCK_S, BLOCK_T, BLOCK_D,
                                  LOAD, MASK_FULL, WS, PRECISION)
    elif LOOP == 1:
        best = _rows_best_pipelined(a, Dj, d_desc, d_row0, Ld, sd_t, dim, BLOCK_S, BLOCK_T, BLOCK_D,
                                    LOAD, MASK_FULL, PRECISION)
    else:
        best = _rows_best_rowmax(a, Dj, d_desc, d_row0, Ld, sd_t, dim, BLOCK_S, BLOCK_T, BLOCK_D,
                                 LOAD, MASK_FULL, PRECISION)
    rows = s0 + tl.arange(0, BLOCK_S)
    return tl.where(rows < Lq, best, 0.0)  # where, not multiply: a padding row's NaN stays out


@triton.jit
def maxsim_variant(Q, D, q_desc, d_desc, out,
                   Lq, Ld, dim, sq_i, sq_s, sd_j, sd_t, so_i,
                   BLOCK_S: tl.constexpr, BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr,
                   LOOP: tl.constexpr, LOAD: tl.constexpr, SPLIT: tl.constexpr, DOC_FAST: tl.constexpr,
                   MASK_FULL: tl.constexpr, WS: tl.constexpr, PRECISION: tl.constexpr):
    """MaxSim scores out[i, j] (fp32) of queries Q [Nq, Lq, d] and documents D [B, Ld, d].

    SPLIT=False: grid (B, Nq), one program per (document j, query i) looping over the query
    chunks. SPLIT=True: grid (chunks, B, Nq), one program per chunk, atomically added into
    a zeroed out; the chunks of one document are neighbours in launch order (they share its
    tiles through L2), or with DOC_FAST grid (B, chunks, Nq): a document's chunks a whole
    row of documents apart (a control for that locality).
    LOAD: 0 pointers, 1 host descriptors (q_desc over [Nq*Lq, d], d_desc over [B*Ld, d]),
    2 descriptors made here, one per query and per document.
    LOOP: 0 running max per slot, 1 hand-pipelined running max, 2 row max per tile."""
    if SPLIT:
        if DOC_FAST:
            j = tl.program_id(0)
            chunk = tl.program_id(1)
        else:
            chunk = tl.program_id(0)
            j = tl.program_id(1)
        i = tl.program_id(2)
    else:
        j = tl.program_id(0)
        i = tl.program_id(1)
    Qi = Q + i.to(tl.int64) * sq_i
    Dj = D + j.to(tl.int64) * sd_j
    if LOAD == 2:
        q_desc = tl.make_tensor_descriptor(Qi, shape=[Lq, BLOCK_D], strides=[sq_s, 1],
                                           block_shape=[BLOCK_S, BLOCK_D])
        d_desc = tl.make_tensor_descriptor(Dj, shape=[Ld, BLOCK_D], strides=[sd_t, 1],
                                           block_shape=[BLOCK_T, BLOCK_D])
        q_row0 = 0
        d_row0 = 0
    else:
        q_row0 = i * Lq  # int32 row coordinates of the host descriptors
        d_row0 = j * Ld
    o_ptr = out + i.to(tl.int64) * so_i + j
    if SPLIT:
        part = _chunk_sum(Qi, q_desc, q_row0, Dj, d_desc, d_row0, chunk * BLOCK_S, Lq, Ld, sq_s, sd_t, dim,
                          BLOCK_S, BLOCK_T, BLOCK_D, LOOP, LOAD, MASK_FULL, WS, PRECISION)
        tl.atomic_add(o_ptr, tl.sum(part, axis=0))
    else:
        acc = tl.zeros([BLOCK_S], tl.float32)
        for s0 in range(0, Lq, BLOCK_S):
            acc += _chunk_sum(Qi, q_desc, q_row0, Dj, d_desc, d_row0, s0, Lq, Ld, sq_s, sd_t, dim,
                              BLOCK_S, BLOCK_T, BLOCK_D, LOOP, LOAD, MASK_FULL, WS, PRECISION)
        tl.store(o_ptr, tl.sum(acc, axis=0))


# --------------------------------------------------------------------------- configs and launch

def cfg(variant, s, t, warps, stages, load="ptr", mask_full=False, ws=False, doc_fast=False):
    return {"variant": variant, "BLOCK_S": s, "BLOCK_T": t, "warps": warps, "stages": stages,
            "load": load, "mask_full": mask_full, "ws": ws, "doc_fast": doc_fast}


def cfg_label(c):
    parts = [f"{c['BLOCK_S']}x{c['BLOCK_T']} w{c['warps']} s{c['stages']}"]
    if c["load"] != "ptr":
        parts.append(c["load"])
    if c["mask_full"]:
        parts.append("hsr-masks")
    if c["ws"]:
        parts.append("ws")
    if c.get("doc_fast"):
        parts.append("doc-fast")
    return " ".join(parts)


def configs_for(lq):
    """A few configs per variant for a query length; BLOCK_S <= Lq. The first of each list is
    the one --quick keeps with the second."""
    if lq >= 128:
        big = lq >= 256
        plan = {
            "baseline": [cfg("baseline", 128, 64, 8, 3),  # hsr's tuned pick at 1024 x 1024
                         cfg("baseline", 128, 64, 8, 3, mask_full=True),
                         cfg("baseline", 128, 128, 8, 3),
                         cfg("baseline", 64, 64, 4, 3)]
                        + ([cfg("baseline", 256, 64, 8, 3)] if big else []),
            "tma": [cfg("tma", 128, 64, 8, 3, "tma"),
                    cfg("tma", 128, 128, 8, 3, "tma"),
                    cfg("tma", 128, 64, 8, 3, "tma-dev"),
                    cfg("tma", 128, 64, 8, 3, "tma", ws=True)]
                   + ([cfg("tma", 256, 64, 8, 3, "tma")] if big else []),
            "pipelined": [cfg("pipelined", 128, 64, 8, 3),
                          cfg("pipelined", 128, 64, 8, 3, "tma"),
                          cfg("pipelined", 128, 64, 8, 4),
                          cfg("pipelined", 64, 64, 4, 3)],
            "split": [cfg("split", 128, 64, 8, 3),
                      cfg("split", 128, 64, 8, 3, "tma"),
                      cfg("split", 128, 128, 8, 3, "tma"),
                      cfg("split", 64, 64, 4, 3, "tma"),
                      cfg("split", 128, 64, 8, 3, "tma", doc_fast=True)],  # control: no L2 sharing
            "rowmax": [cfg("rowmax", 128, 128, 8, 3),
                       cfg("rowmax", 128, 256, 8, 2),
                       cfg("rowmax", 128, 128, 8, 3, "tma"),
                       cfg("rowmax", 128, 256, 8, 2, "tma")],
        }
    else:  # short queries (memory-bound): one chunk, 4 warps
        s = max(16, min(64, 1 << (max(lq, 1).bit_length() - 1)))
        plan = {
            "baseline": [cfg("baseline", s, 64, 4, 3), cfg("baseline", s, 128, 4, 3),
                         cfg("baseline", s, 64, 4, 3, mask_full=True)],
            "tma": [cfg("tma", s, 64, 4, 3, "tma"), cfg("tma", s, 128, 4, 3, "tma"),
                    cfg("tma", s, 64, 4, 3, "tma-dev")],
            "pipelined": [cfg("pipelined", s, 64, 4, 3), cfg("pipelined", s, 128, 4, 3)],
            "split": [cfg("split", s, 64, 4, 3), cfg("split", s, 64, 4, 3, "tma")],
            "rowmax": [cfg("rowmax", s, 128, 4, 3), cfg("rowmax", s, 256, 4, 2)],
        }
    return plan


_LOOP_OF = {"baseline": LOOP_RUNNING, "tma": LOOP_RUNNING, "pipelined": LOOP_PIPELINED,
            "split": LOOP_RUNNING, "rowmax": LOOP_ROWMAX}


def make_runner(c, Q, D):
    """A zero-argument callable that computes scores [Nq, B] (fp32) for Q, D with config c,
    everything that does not change between calls (descriptors, the output) made once.
    Returns (run, info) where info["compiled"] is set to Triton's compiled kernel on the
    first launch, where Triton returns it."""
    if Q.dim() != 3 or D.dim() != 3 or Q.shape[2] != D.shape[2] or Q.dtype != D.dtype:
        raise ValueError(f"Q [Nq, Lq, d] and D [B, Ld, d] of one dtype, got {tuple(Q.shape)} {Q.dtype}, "
                         f"{tuple(D.shape)} {D.dtype}")
    if not (Q.is_contiguous() and D.is_contiguous()):
        raise ValueError("Q and D must be contiguous")
    nq, lq, d = Q.shape
    nb, ld, _ = D.shape
    if d < 16 or d > 256 or d & (d - 1):
        raise ValueError(f"d must be a power of two in [16, 256], got {d}")
    bs, bt = c["BLOCK_S"], c["BLOCK_T"]
    load = LOADS[c["load"]]
    split = c["variant"] == "split"
    q_desc = d_desc = None
    if load == 1:
        if TensorDescriptor is None:
            raise RuntimeError("triton.tools.tensor_descriptor.TensorDescriptor is not available")
        q_desc = TensorDescriptor.from_tensor(Q.view(nq * lq, d), [bs, d])
        d_desc = TensorDescriptor.from_tensor(D.view(nb * ld, d), [bt, d])
    out = torch.empty(nq, nb, device=Q.device, dtype=torch.float32)
    doc_fast = bool(c.get("doc_fast"))
    if split:
        grid = (nb, triton.cdiv(lq, bs), nq) if doc_fast else (triton.cdiv(lq, bs), nb, nq)
    else:
        grid = (nb, nq)
    precision = "ieee" if Q.dtype == torch.float32 else "tf32"  # tf32 is ignored for 16-bit inputs
    info = {"compiled": None}

    def run():
        if split:
            out.zero_()
        k = maxsim_variant[grid](
            Q, D, q_desc, d_desc, out,
            lq, ld, d, Q.stride(0), Q.stride(1), D.stride(0), D.stride(1), out.stride(0),
            BLOCK_S=bs, BLOCK_T=bt, BLOCK_D=d,
            LOOP=_LOOP_OF[c["variant"]], LOAD=load, SPLIT=split, DOC_FAST=doc_fast,
            MASK_FULL=c["mask_full"], WS=c["ws"], PRECISION=precision,
            num_warps=c["warps"], num_stages=c["stages"])
        if info["compiled"] is None and k is not None:
            info["compiled"] = k
        return out

    return run, info


def kernel_facts(k):
    """Registers, spills, shared memory, warps and PTX counts of a compiled kernel (what
    Triton made of the variant: are the wgmma waits deferred, is TMA used)."""
    facts = {}
    if k is None:
        return facts
    for name in ("n_regs", "n_spills"):
        try:
            facts[name] = int(getattr(k, name))
        except Exception:  # noqa: BLE001 - older or newer Triton: leave it out
            pass
    meta = getattr(k, "metadata", None)
    for name in ("shared", "num_warps", "num_stages"):
        try:
            v = getattr(meta, name) if not isinstance(meta, dict) else meta.get(name)
            if v is not None:
                facts[name] = int(v)
        except Exception:  # noqa: BLE001
            pass
    try:
        ptx = k.asm.get("ptx") or ""
    except Exception:  # noqa: BLE001
        ptx = ""
    if ptx:
        waits = re.findall(r"wgmma\.wait_group\.sync\.aligned\s+(\d+)", ptx)
        facts["ptx"] = {
            "wgmma": len(re.findall(r"wgmma\.mma_async", ptx)),
            "wgmma_wait_pending": sorted({int(w) for w in waits}),
            "wgmma_waits": len(waits),
            "tma_loads": len(re.findall(r"cp\.async\.bulk\.tensor", ptx)),
            "cp_async": len(re.findall(r"cp\.async\.(?:ca|cg)\.shared", ptx)),
            "mma_sync": len(re.findall(r"\bmma\.sync", ptx)),
            "setmaxnreg": len(re.findall(r"setmaxnreg", ptx)),
        }
    occ = ctas_per_sm(facts)
    if occ is not None:
        facts["ctas_per_sm"] = occ
    return facts


def ctas_per_sm(facts, regs_per_sm=65536, smem_per_sm=228 * 1024, max_warps=64, max_ctas=32):
    """Resident programs per SM that the registers, warps and shared memory allow (Hopper
    limits; registers allocated per warp in units of 256): the overlap between programs."""
    try:
        warps, regs, smem = facts["num_warps"], facts["n_regs"], facts["shared"]
    except KeyError:
        return None
    per_warp = -(-regs * 32 // 256) * 256
    by_regs = (regs_per_sm // max(per_warp, 1)) // warps
    by_smem = smem_per_sm // (smem + 1024)  # 1 KB a program is reserved
    return max(0, min(by_regs, max_warps // warps, by_smem, max_ctas))


# --------------------------------------------------------------------------- reference

def reference(Q, D, chunk_docs=64):
    """fp32 scores [Nq, B]: einsum, amax over document tokens, sum over query tokens."""
    q = Q.float()
    out = torch.empty(Q.shape[0], D.shape[0], device=Q.device, dtype=torch.float32)
    for lo in range(0, D.shape[0], chunk_docs):
        s = torch.einsum("qsd,ntd->qnst", q, D[lo:lo + chunk_docs].float())
        out[:, lo:lo + chunk_docs] = s.amax(-1).sum(-1)
        del s
    return out


def rel_err(out, ref):
    out = out.double().reshape(ref.shape)
    ref = ref.double()
    if not bool(torch.isfinite(out).all()):
        return float("nan")
    return ((out - ref).norm() / ref.norm().clamp_min(1e-30)).item()


def _error(e):
    return f"error: {type(e).__name__}: {' '.join(str(e).split())[:400]}"


# --------------------------------------------------------------------------- interpreter check

def interpret_check():
    """Every variant's configs at tiny shapes, fp32 on the CPU, against the reference."""
    if os.environ.get("TRITON_INTERPRET") != "1":
        print("--interpret-check needs TRITON_INTERPRET=1 in the environment before Python starts")
        return 2
    torch.manual_seed(0)
    # (Nq, B, Lq, Ld, negative): partial chunks and tiles; `negative`: every score below 0, so a
    # padding token that scored 0 instead of -inf would win the max and show
    shapes = [(2, 3, 20, 40, False), (1, 2, 7, 12, True), (1, 2, 33, 16, False), (2, 2, 20, 40, True)]
    plan = {
        "baseline": [cfg("baseline", 16, 16, 4, 2), cfg("baseline", 16, 32, 4, 2, mask_full=True)],
        "tma": [cfg("tma", 16, 16, 4, 2, "tma"), cfg("tma", 16, 32, 4, 2, "tma-dev"),
                cfg("tma", 16, 16, 4, 2, "tma", ws=True)],
        "pipelined": [cfg("pipelined", 16, 16, 4, 2), cfg("pipelined", 32, 16, 4, 2, "tma")],
        "split": [cfg("split", 16, 16, 4, 2), cfg("split", 16, 32, 4, 2, "tma"),
                  cfg("split", 16, 16, 4, 2, "tma-dev", doc_fast=True)],
        "rowmax": [cfg("rowmax", 16, 32, 4, 2), cfg("rowmax", 16, 16, 4, 2, "tma")],
    }
    failures = 0
    t0 = time.monotonic()
    for variant, cfgs in plan.items():
        results = []
        for c in cfgs:
            for d in (16, 32):
                for nq, nb, lq, ld, negative in shapes:
                    Q = torch.randn(nq, lq, d)
                    D = torch.randn(nb, ld, d)
                    if negative:
                        Q, D = Q.abs(), -D.abs()
                    ref = reference(Q, D)
                    what = f"{cfg_label(c)} d={d} Nq={nq} B={nb} Lq={lq} Ld={ld}"
                    try:
                        run, _ = make_runner(c, Q, D)
                        err = rel_err(run(), ref)
                        ok = err < 1e-5
                        results.append((ok, f"{what}: rel err {err:.1e}"))
                    except Exception as e:  # noqa: BLE001
                        results.append((False, f"{what}: {_error(e)}"))
        bad = [m for ok, m in results if not ok]
        failures += len(bad)
        print(f"{variant:10s} {'PASS' if not bad else 'FAIL'} ({len(results) - len(bad)}/{len(results)} runs; "
              f"configs: {', '.join(cfg_label(c) for c in cfgs)})", flush=True)
        for m in bad[:6]:
            print(f"    {m}")
    print(f"interpreter check: {'all passed' if not failures else f'{failures} failed'} "
          f"({time.monotonic() - t0:.0f} s)")
    return 1 if failures else 0


# --------------------------------------------------------------------------- GPU benchmark

class Runner:
    def __init__(self, args):
        self.args = args
        self.t0 = time.monotonic()
        self.warmup_ms, self.rep_ms = (10, 40) if args.quick else (25, 100)
        self.skipped = []

    def elapsed(self):
        return time.monotonic() - self.t0

    def over_budget(self, what):
        if self.elapsed() > self.args.budget_s:
            self.skipped.append(what)
            return True
        return False

    def bench(self, fn):
        import triton.testing
        fn()
        torch.cuda.synchronize()
        return triton.testing.do_bench(fn, warmup=self.warmup_ms, rep=self.rep_ms, return_mode="median")

    def settle(self, label):
        """After a failure: make sure the context still works (and free what was cached)."""
        try:
            torch.cuda.synchronize()
            torch.cuda.empty_cache()
            return None
        except Exception as e:  # noqa: BLE001
            msg = f"CUDA context after {label}: {_error(e)}"
            print("  " + msg, flush=True)
            return msg


def matmul_ceiling(runner, dtype):
    g = torch.Generator(device="cuda").manual_seed(1)
    a = torch.randn(MATMUL_N, MATMUL_N, device="cuda", dtype=dtype, generator=g)
    b = torch.randn(MATMUL_N, MATMUL_N, device="cuda", dtype=dtype, generator=g)
    c = torch.empty(MATMUL_N, MATMUL_N, device="cuda", dtype=dtype)
    runs = [runner.bench(lambda: torch.mm(a, b, out=c)) for _ in range(2 if runner.args.quick else 3)]
    ms = statistics.median(runs)
    del a, b, c
    torch.cuda.empty_cache()
    return {"what": f"torch.mm {MATMUL_N}^3 {dtype}", "ms": ms, "runs_ms": runs,
            "tflops": 2 * MATMUL_N ** 3 / (ms * 1e-3) / 1e12}


def copy_ceiling(runner, numel=1 << 28):
    """Device-to-device copy of 1 GiB of fp32: bytes read + written per second."""
    src = torch.randn(numel, device="cuda")
    dst = torch.empty_like(src)
    runs = [runner.bench(lambda: dst.copy_(src)) for _ in range(2)]
    ms = statistics.median(runs)
    del src, dst
    torch.cuda.empty_cache()
    return {"what": f"Tensor.copy_ of {numel * 4 / 2**30:g} GiB fp32", "ms": ms, "runs_ms": runs,
            "tb_per_s": 2 * numel * 4 / (ms * 1e-3) / 1e12}


def make_inputs(lq, ld, dtype, seed):
    """L2-normalised random tokens (as ColBERT and ColPali produce)."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    q = torch.nn.functional.normalize(torch.randn(NQ, lq, DIM, device="cuda", generator=g), dim=-1)
    d = torch.randn(B, ld, DIM, device="cuda", generator=g)
    d = torch.nn.functional.normalize(d, dim=-1, out=d)
    return q.to(dtype).contiguous(), d.to(dtype).contiguous()


def fmt_ms(x):
    return "-" if x is None else f"{x:.4f}"


def status_cell(r):
    st = r.get("status", "")
    if st == "ok":
        return ""
    if st.startswith("error"):
        return st.split(":")[1].strip() if ":" in st else "error"
    return st


def markdown(result):
    m = result["meta"]
    c = result.get("ceiling") or {}
    cp = result.get("copy") or {}
    lines = [
        f"# MaxSim inference forward: kernel variants",
        "",
        f"Device {m['device']}; torch {m['torch']} (CUDA {m['cuda']}), triton {m['triton']}, python {m['python']}; "
        f"{m['dtype']}, Nq={NQ}, B={B}, d={DIM}.",
        f"Ceilings in this run: matmul {c.get('tflops', float('nan')):.0f} TFLOP/s ({c.get('what', '-')}), "
        f"copy {cp.get('tb_per_s', float('nan')):.2f} TB/s (read + write). "
        "% floor = compute floor (2 B Lq Ld d FLOPs at the matmul rate) / time; % limit = the larger of the "
        "compute and bytes (Q + D once, at the copy rate) floors / time; "
        "x hsr = time / hsr's time (below 1: faster than hsr); "
        "rel err against the fp32 reference (flagged above 1e-2). "
        f"Timing: do_bench median, warmup {m['warmup_ms']} ms, rep {m['rep_ms']} ms, L2 flushed per run.",
        "regs / spills / smem, ctas/SM (resident programs per SM those allow) and `wait` (the pending counts "
        "of the wgmma waits in the PTX; a nonzero count means a wgmma left in flight across other work) "
        "describe Triton's compiled kernel.",
        "",
    ]
    for s in result["shapes"]:
        lines += [f"## {s['name']}: Lq {s['Lq']} x Ld {s['Ld']}, compute floor {fmt_ms(s['floor_ms'])} ms "
                  f"({s['gflop']:.1f} GFLOP), bytes floor {fmt_ms(s.get('bytes_floor_ms'))} ms "
                  f"({s.get('mbytes', 0):.0f} MB)", ""]
        h = s.get("hsr") or {}
        hsr_line = (f"hsr.ops.maxsim: {fmt_ms(h.get('ms'))} ms, "
                    + (f"{h['pct_floor']:.0f}% of floor, " if h.get("pct_floor") else "")
                    + (f"{h['pct_limit']:.0f}% of limit, " if h.get("pct_limit") else "")
                    + (f"rel err {h['rel_err']:.1e}" if h.get("rel_err") is not None else "")
                    + (f" ({h.get('status')})" if h.get("status") not in (None, "ok") else ""))
        lines += [hsr_line, ""]
        lines.append("| variant | config | ms | % floor | % limit | x hsr | rel err | regs / spills / smem KB "
                     "| ctas/SM | wait | note |")
        lines.append("|---|---|---|---|---|---|---|---|---|---|---|")
        for r in s["results"]:
            k = r.get("kernel") or {}
            ptx = k.get("ptx") or {}
            res = (f"{k.get('n_regs', '-')} / {k.get('n_spills', '-')} / "
                   f"{(k['shared'] / 1024):.0f}" if "shared" in k else
                   f"{k.get('n_regs', '-')} / {k.get('n_spills', '-')} / -")
            wait = ",".join(str(w) for w in ptx.get("wgmma_wait_pending", [])) or "-"
            note = status_cell(r)
            if r.get("flag"):
                note = (note + " " if note else "") + "FLAG"
            lines.append("| " + " | ".join([
                r["variant"], r["label"], fmt_ms(r.get("ms")),
                f"{r['pct_floor']:.0f}%" if r.get("pct_floor") else "-",
                f"{r['pct_limit']:.0f}%" if r.get("pct_limit") else "-",
                f"{r['x_hsr']:.3f}" if r.get("x_hsr") else "-",
                f"{r['rel_err']:.1e}" if r.get("rel_err") is not None else "-",
                res, str(k.get("ctas_per_sm", "-")), wait, note]) + " |")
        best = {}
        for r in s["results"]:
            if r.get("ms") and not r.get("flag") and (r["variant"] not in best or r["ms"] < best[r["variant"]]["ms"]):
                best[r["variant"]] = r
        if best:
            lines += ["", "Best per variant: " + "; ".join(
                f"{v} {b['label']} {b['ms']:.4f} ms" + (f" ({b['x_hsr']:.3f}x hsr)" if b.get("x_hsr") else "")
                for v, b in sorted(best.items(), key=lambda kv: kv[1]["ms"]))]
        lines.append("")
    if result["skipped"]:
        lines += ["Skipped (past the budget): " + "; ".join(result["skipped"]), ""]
    if result.get("notes"):
        lines += ["Notes:", ""] + [f"- {n}" for n in result["notes"]] + [""]
    errs = [f"{s['name']} {r['variant']} {r['label']}: {r['status']}" for s in result["shapes"]
            for r in s["results"] if r.get("status", "ok") not in ("ok", "")]
    if errs:
        lines += ["Errors (full text in the JSON):", ""] + [f"- {e[:300]}" for e in errs] + [""]
    lines.append(f"Elapsed {result.get('elapsed_s', 0):.0f} s.")
    return "\n".join(lines) + "\n"


def run_benchmark(args):
    if not torch.cuda.is_available():
        print("no CUDA device: use --interpret-check on a CPU machine")
        return 2
    os.makedirs(args.out, exist_ok=True)
    json_path = os.path.join(args.out, "forward_variants.json")
    md_path = os.path.join(args.out, "forward_variants.md")
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}[args.dtype]
    runner = Runner(args)

    # device-side descriptors need global scratch memory
    try:
        triton.set_allocator(lambda size, alignment, stream: torch.empty(size, device="cuda", dtype=torch.int8))
    except Exception as e:  # noqa: BLE001 - the tma-dev configs will report it
        print(f"triton.set_allocator: {_error(e)}")

    result = {
        "meta": {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "cuda": torch.version.cuda,
                 "triton": triton.__version__, "python": platform.python_version(), "dtype": args.dtype,
                 "warmup_ms": runner.warmup_ms, "rep_ms": runner.rep_ms, "argv": sys.argv[1:],
                 "started": time.strftime("%Y-%m-%d %H:%M:%S")},
        "ceiling": None, "shapes": [], "skipped": runner.skipped, "notes": [],
    }

    def save():
        result["elapsed_s"] = runner.elapsed()
        with open(json_path, "w") as f:
            json.dump(result, f, indent=1, default=str)

    print(f"{result['meta']['device']}: torch {torch.__version__} (CUDA {torch.version.cuda}), "
          f"triton {triton.__version__}", flush=True)
    try:
        result["ceiling"] = matmul_ceiling(runner, dtype)
        print(f"matmul ceiling: {result['ceiling']['tflops']:.0f} TFLOP/s", flush=True)
    except Exception as e:  # noqa: BLE001
        result["notes"].append(f"matmul ceiling: {_error(e)}")
        print(result["notes"][-1], flush=True)
    try:
        result["copy"] = copy_ceiling(runner)
        print(f"copy ceiling: {result['copy']['tb_per_s']:.2f} TB/s", flush=True)
    except Exception as e:  # noqa: BLE001
        result["copy"] = None
        result["notes"].append(f"copy ceiling: {_error(e)}")
    tflops = (result["ceiling"] or {}).get("tflops")
    tbps = (result.get("copy") or {}).get("tb_per_s")
    save()

    try:
        from hsr.ops import maxsim
    except Exception as e:  # noqa: BLE001 - the variants still run, without the ratio
        maxsim = None
        result["notes"].append(f"hsr.ops.maxsim does not import: {_error(e)}")
        print(result["notes"][-1], flush=True)

    names = [n.strip() for n in args.shapes.split(",") if n.strip()]
    for si, name in enumerate(names):
        if name not in SHAPES:
            result["notes"].append(f"unknown shape {name!r} (known: {', '.join(SHAPES)})")
            continue
        if runner.over_budget(f"shape {name}"):
            continue
        lq, ld = SHAPES[name]
        flops = 2 * NQ * B * lq * ld * DIM
        nbytes = (NQ * lq + B * ld) * DIM * torch.tensor([], dtype=dtype).element_size() + 4 * NQ * B
        floor_ms = flops / (tflops * 1e12) * 1e3 if tflops else None
        bytes_ms = nbytes / (tbps * 1e12) * 1e3 if tbps else None
        limit_ms = max(x for x in (floor_ms, bytes_ms, 0.0) if x is not None) or None
        rec = {"name": name, "Lq": lq, "Ld": ld, "Nq": NQ, "B": B, "d": DIM, "gflop": flops / 1e9,
               "mbytes": nbytes / 1e6, "floor_ms": floor_ms, "bytes_floor_ms": bytes_ms, "limit_ms": limit_ms,
               "hsr": None, "results": []}
        result["shapes"].append(rec)
        print(f"\n== {name}: Lq {lq} x Ld {ld}, compute floor {fmt_ms(floor_ms)} ms, "
              f"bytes floor {fmt_ms(bytes_ms)} ms", flush=True)
        try:
            Q, D = make_inputs(lq, ld, dtype, 1000 + si)
            ref = reference(Q, D)
        except Exception as e:  # noqa: BLE001
            rec["error"] = _error(e)
            print(f"  inputs/reference: {rec['error']}", flush=True)
            runner.settle("inputs")
            save()
            continue

        with torch.no_grad():
            # hsr's own forward (its shipped tuned config; autotunes on a first call otherwise)
            h = {"status": "not run"}
            if maxsim is not None:
                try:
                    fn = lambda: maxsim(Q[0], D)  # noqa: E731
                    err = rel_err(fn(), ref)
                    ms = runner.bench(fn)
                    h = {"status": "ok", "ms": ms, "rel_err": err,
                         "pct_floor": 100 * floor_ms / ms if floor_ms else None,
                         "pct_limit": 100 * limit_ms / ms if limit_ms else None}
                    print(f"  {'hsr':10s} {'(hsr.ops.maxsim)':34s} {ms:8.4f} ms  rel err {err:.1e}", flush=True)
                except Exception as e:  # noqa: BLE001
                    h = {"status": _error(e)}
                    print(f"  hsr: {h['status']}", flush=True)
                    runner.settle("hsr")
            rec["hsr"] = h
            hsr_ms = h.get("ms")
            save()

            plan = configs_for(lq)
            for variant in VARIANTS:
                cfgs = plan[variant][:2] if args.quick else plan[variant]
                if args.variants and variant not in args.variants:
                    continue
                for c in cfgs:
                    label = cfg_label(c)
                    if runner.over_budget(f"{name} {variant} {label}"):
                        continue
                    r = {"variant": variant, "label": label, "config": c, "status": "not run"}
                    rec["results"].append(r)
                    t_start = time.monotonic()
                    info = {"compiled": None}
                    try:
                        run, info = make_runner(c, Q, D)
                        out = run()
                        torch.cuda.synchronize()
                        r["rel_err"] = rel_err(out, ref)
                        r["flag"] = not (r["rel_err"] < FLAG_REL_ERR)
                        r["ms"] = runner.bench(run)
                        r["pct_floor"] = 100 * floor_ms / r["ms"] if floor_ms else None
                        r["pct_limit"] = 100 * limit_ms / r["ms"] if limit_ms else None
                        r["x_hsr"] = r["ms"] / hsr_ms if hsr_ms else None
                        r["status"] = "ok"
                    except Exception as e:  # noqa: BLE001 - compile errors, out of resources, ...
                        r["status"] = _error(e)
                        r["traceback"] = traceback.format_exc()[-2000:]
                        ctx = runner.settle(f"{variant} {label}")
                        if ctx:
                            r["context"] = ctx
                    try:
                        r["kernel"] = kernel_facts(info.get("compiled"))
                    except Exception as e:  # noqa: BLE001
                        r["kernel"] = {"error": _error(e)}
                    r["wall_s"] = time.monotonic() - t_start
                    k = r["kernel"]
                    extra = (f"regs {k.get('n_regs', '?')} spills {k.get('n_spills', '?')} "
                             f"ctas/SM {k.get('ctas_per_sm', '?')} "
                             f"wait {(k.get('ptx') or {}).get('wgmma_wait_pending', '?')}")
                    if r["status"] == "ok":
                        print(f"  {variant:10s} {label:34s} {r['ms']:8.4f} ms  "
                              f"{r['pct_floor'] or 0:5.1f}% floor  x hsr {r['x_hsr'] or float('nan'):.3f}  "
                              f"rel err {r['rel_err']:.1e}{'  FLAG' if r['flag'] else ''}  {extra}  "
                              f"({r['wall_s']:.1f} s)", flush=True)
                    else:
                        print(f"  {variant:10s} {label:34s} {r['status'][:300]}", flush=True)
                    save()
        del Q, D, ref
        torch.cuda.empty_cache()

    save()
    table = markdown(result)
    with open(md_path, "w") as f:
        f.write(table)
    print(f"\nwrote {json_path} and {md_path} ({runner.elapsed():.0f} s)")
    if runner.skipped:
        print(f"skipped past the {args.budget_s:.0f} s budget: {len(runner.skipped)} items (listed in the .md)")
    print()
    print(table, flush=True)
    return 0


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="bench/results/forward-variants", help="output directory (default: %(default)s)")
    p.add_argument("--shapes", default=DEFAULT_SHAPES, help="comma-separated subset of: " + ", ".join(SHAPES))
    p.add_argument("--variants", default="", help="comma-separated subset of: " + ", ".join(VARIANTS))
    p.add_argument("--dtype", default="fp16", choices=("fp16", "bf16"))
    p.add_argument("--quick", action="store_true", help="two configs per variant, shorter timing windows")
    p.add_argument("--budget-s", type=float, default=300.0,
                   help="no new work starts past this many seconds; what is skipped is noted (default: %(default)s)")
    p.add_argument("--interpret-check", action="store_true",
                   help="CPU check under the Triton interpreter at tiny shapes (sets TRITON_INTERPRET=1)")
    args = p.parse_args(argv)
    args.variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = [v for v in args.variants if v not in VARIANTS]
    if unknown:
        p.error(f"unknown variants {unknown}; known: {', '.join(VARIANTS)}")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.interpret_check:
        return interpret_check()
    return run_benchmark(args)


if __name__ == "__main__":
    sys.exit(main())

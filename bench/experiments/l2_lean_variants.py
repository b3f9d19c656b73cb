#!/usr/bin/env python3
"""Build package trees of the L2 key's lean loop, each with one change, for timing side by side
(bench/experiments/l2_rank_probe.py with each tree first on PYTHONPATH, one GPU each):

  sel64  the selected pair's differences in chunks of 64 coordinates (unrolled), not 16
  selA   the differences from the A tile the loop held, against one gather of the selected rows
  pack   no index per pair: the tile's number in the key's low bits (keys lifted to be positive,
         |a|^2 max of the program's rows added to the column norms), the slot's column after the loop
  pack_selA  both
  nreg   HSR_MAXNREG caps the named kernels' registers (occupancy probe)

    python3 bench/experiments/l2_lean_variants.py [--out .base/variants] [NAME ...]

Trees go to OUT/NAME/hsr (laid out as run_gpu.sh's copied tree: templates, ops, generated inside).
"""
import argparse
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LEAN = "templates/select_reduce/lean.py.jinja"
TILE = "templates/select_reduce/tile.py.jinja"
EMIT = "hsr/emit.py"
LAUNCHER = "hsr/launcher.py"


def sub(text: str, old: str, new: str, what: str) -> str:
    if text.count(old) != 1:
        raise SystemExit(f"{what}: {text.count(old)} matches of {old[:60]!r}")
    return text.replace(old, new)


def sel64(files):
    t = files[LEAN]
    t = sub(t, "for x0 in range(0, SIZE_{{ K|upper }}, 16):\n    offs_x = x0 + tl.arange(0, 16)",
            "for x0 in tl.static_range(0, SIZE_{{ K|upper }}, 64):\n    offs_x = x0 + tl.arange(0, 64)", "lean sel")
    files[LEAN] = t
    g = files[TILE]
    g = sub(g, "    for x0 in range(0, size_{{ K }}, 16):\n        offs_x = x0 + tl.arange(0, 16)\n        x_ok = sel_ok[:, None] & (offs_x < size_{{ K }})[None, :]\n        sel_diff",
            "    for x0 in range(0, size_{{ K }}, 64):\n        offs_x = x0 + tl.arange(0, 64)\n        x_ok = sel_ok[:, None] & (offs_x < size_{{ K }})[None, :]\n        sel_diff",
            "general sel")
    files[TILE] = g


def selA(files):
    t = files[LEAN]
    old_start = "sel_rows = (b_row0 + tl.maximum(best_idx, 0)).to(tl.int64)\na_at = (a_row0"
    i = t.index(old_start)
    j = t.index("{%- endmacro %}", i)
    t = t[:i] + (
        "sel_rows = (b_row0 + tl.maximum(best_idx, 0)).to(tl.int64)\n"
        "b_sel = tl.load({{ B }}_ptr + sel_rows[:, None] * row_stride_{{ B }} + offs_{{ K }}[None, :],\n"
        "                mask=(picked != 0)[:, None] & (offs_{{ K }} < SIZE_{{ K|upper }})[None, :], other=0.0)\n"
        "diff = a.to(tl.float32) - b_sel.to(tl.float32)\n"
        "x_best = tl.sum(diff * diff, axis=1)\n") + t[j:]
    files[LEAN] = t


def pack(files):
    e = files[EMIT]
    e = sub(e, 'tile_args=(" bsq, COL_NORMS," if t.pair in ("cos", "sqdist", "dist") else "")',
            'tile_args=(" bsq, COL_NORMS," if t.pair == "cos" else " bsq, COL_NORMS, lift, keep, tag," '
            'if t.pair in ("sqdist", "dist") else "")', "emit args")
    e = sub(e, 'tile_params=(" bsq, COL_NORMS: tl.constexpr," if t.pair in ("cos", "sqdist", "dist") else "")',
            'tile_params=(" bsq, COL_NORMS: tl.constexpr," if t.pair == "cos" else " bsq, COL_NORMS: tl.constexpr, '
            'lift, keep, tag," if t.pair in ("sqdist", "dist") else "")', "emit params")
    files[EMIT] = e
    t = files[LEAN]
    t = sub(t, "    dot = bsq[None, :] - 2.0 * dot\n",
            "    dot = (bsq + lift)[None, :] - 2.0 * dot  # >= 0: lift holds the rows' largest |a|^2\n"
            "    dot = ((dot.to(tl.int32, bitcast=True) & keep) | tag).to(tl.float32, bitcast=True)  # the tile's number\n",
            "key")
    t = sub(t, "dot = _{{ t.P }}_lean_tile(a, {{ t.B }}_ptr, b_desc, b_row0, {{ C }}0, {{ C }}_hi,",
            "{% if t.l2 %}\ntag = ({{ C }}0 - {{ C }}_lo) // BLOCK_{{ C|upper }}\n{% endif %}\n"
            "dot = _{{ t.P }}_lean_tile(a, {{ t.B }}_ptr, b_desc, b_row0, {{ C }}0, {{ C }}_hi,", "step tag")
    t = sub(t, "if NEED_IDX:  # strictly better: an earlier tile keeps a tie; a NaN never counts here. Each slot keeps its\n"
               "    # tile's start (a scalar: no column tile in the loop); the column is the start plus the slot, after the loop\n"
               "    idx2 = tl.where(dot {{ t.better }} best, {{ C }}0, idx2)\n",
            "{% if not t.l2 %}\nif NEED_IDX:\n    idx2 = tl.where(dot {{ t.better }} best, {{ C }}0, idx2)\n{% endif %}\n", "step idx")
    t = sub(t, "        best = tl.full([BLOCK_{{ R|upper }}, BLOCK_{{ C|upper }}], float(\"{{ t.fill }}\"), tl.float32)\n",
            "        best = tl.full([BLOCK_{{ R|upper }}, BLOCK_{{ C|upper }}], float(\"{{ t.fill }}\"), tl.float32)\n"
            "{% if t.l2 %}\n"
            "        asq_max = tl.max(tl.where({{ R }}_in, tl.sum(a.to(tl.float32) * a.to(tl.float32), axis=1), 0.0), axis=0)\n"
            "        lift = asq_max * (1.0 + 1.0 / 256) + 1e-20\n"
            "        n_tiles = tl.cdiv({{ C }}_hi - {{ C }}_lo, BLOCK_{{ C|upper }})\n"
            "        span = 1\n"
            "        while span < n_tiles:\n"
            "            span = span * 2\n"
            "        keep = ~(span - 1)\n"
            "{% endif %}\n", "prologue")
    t = sub(t, "            best_idx = tl.min(tl.where(best == row_best[:, None], idx2 + tl.arange(0, BLOCK_{{ C|upper }})[None, :], size_{{ C }}), axis=1)\n",
            "{% if t.l2 %}\n"
            "            slot = tl.min(tl.where(best == row_best[:, None], tl.arange(0, BLOCK_{{ C|upper }})[None, :], BLOCK_{{ C|upper }}), axis=1)\n"
            "            best_idx = {{ C }}_lo + (row_best.to(tl.int32, bitcast=True) & ~keep) * BLOCK_{{ C|upper }} + slot\n"
            "            row_best = (row_best.to(tl.int32, bitcast=True) & keep).to(tl.float32, bitcast=True)\n"
            "{% else %}\n"
            "            best_idx = tl.min(tl.where(best == row_best[:, None], idx2 + tl.arange(0, BLOCK_{{ C|upper }})[None, :], size_{{ C }}), axis=1)\n"
            "{% endif %}\n", "finish")
    files[LEAN] = t


def nreg(files):
    """HSR_MAXNREG caps the registers of the kernels named in HSR_MAXNREG_KERNELS (default score_fwd),
    so that two 8-warp programs fit a multiprocessor (a probe of occupancy, not a rule)."""
    t = files[LAUNCHER]
    t = sub(t, "    if _warming is not None:  # (warm_triton's Triton state is ready before a launch reads it)\n",
            "    import os\n"
            "    if os.environ.get(\"HSR_MAXNREG\") and kernel.__name__ in os.environ.get(\"HSR_MAXNREG_KERNELS\", \"score_fwd\").split(\",\"):\n"
            "        kwargs = {**kwargs, \"maxnreg\": int(os.environ[\"HSR_MAXNREG\"])}\n"
            "    if _warming is not None:  # (warm_triton's Triton state is ready before a launch reads it)\n", "launcher")
    files[LAUNCHER] = t


VARIANTS = {"base": [], "sel64": [sel64], "selA": [selA], "pack": [pack], "pack_selA": [pack, selA],
            "pack_sel64": [pack, sel64], "nreg": [nreg]}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=str(ROOT / ".base" / "variants"))
    p.add_argument("names", nargs="*", default=list(VARIANTS))
    args = p.parse_args()
    for name in args.names:
        files = {f: (ROOT / f).read_text() for f in (LEAN, TILE, EMIT, LAUNCHER)}
        for change in VARIANTS[name]:
            change(files)
        dest = Path(args.out) / name / "hsr"
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(ROOT / "hsr", dest, ignore=shutil.ignore_patterns("__pycache__"))
        for sub_dir in ("templates", "ops", "generated"):
            shutil.copytree(ROOT / sub_dir, dest / sub_dir, ignore=shutil.ignore_patterns("__pycache__"))
        for f, text in files.items():
            target = dest / f.replace("hsr/", "", 1) if f.startswith("hsr/") else dest / f
            target.write_text(text)
        print(f"{name}: {dest}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Plant faults by hand in the kernels, templates, rules, checker and backward,
one at a time, and see whether the test suite catches each.

    python tests/plant_faults.py [--only 3,7] [--profile ci] [--workers 2] [--out FILE]

A fault is one exact text edit of one file. The script applies it, writes the
bundled generated modules again where the edit reaches code generation (a
template or a compiler module), runs the tests that exercise that part (a part
of the suite: what it catches, the suite catches) with ``-x``, puts everything
back (the file, generated/ and templates/compiled/), and records whether the tests failed. It
refuses to start on a work tree whose planted files or generated/ have
uncommitted changes, since it restores them from git. tests/README.md records
its last results.

Not a test module (pytest collects test_*.py only): a run takes tens of minutes.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import re
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Fault:
    name: str
    where: str  # the file, from the repository root
    old: str  # text that occurs exactly once in it
    new: str
    tests: tuple  # pytest arguments: the tests that exercise this part


FAULTS = (
    Fault("ties go to the last index (the running max keeps a later equal key)",
          "hsr/emit.py", 'better=">" if t.select == "max" else "<"', 'better=">=" if t.select == "max" else "<="',
          ("tests/test_edges.py", "tests/test_maxsim.py", "tests/test_select_reduce.py")),
    Fault("an optional where-mask is dropped (the mask's load is skipped)",
          "templates/select_reduce/common.py.jinja",
          "if HAS_{{ c.name }}:\n    {{ var }} = {{ var }} & (tl.load(",
          "if HAS_{{ c.name }}:\n    {{ var }} = {{ var }} | (tl.load(",
          ("tests/test_maxsim.py", "tests/test_select_reduce.py")),
    Fault("off by one in a ragged sequence's length (offsets[n + 1] - offsets[n] - 1)",
          "hsr/emit.py", 'return f"(tl.load({cu}_ptr + {at} + 1) - tl.load({cu}_ptr + {at}))"',
          'return f"(tl.load({cu}_ptr + {at} + 1) - tl.load({cu}_ptr + {at}) - 1)"',
          ("tests/test_varlen.py", "tests/test_select_reduce_ragged.py")),
    Fault("a wrong epilogue derivative (d log1p(x) = 1 / (2 + x))",
          "hsr/symbolic.py", "        return 1 / (1 + self.args[0])", "        return 1 / (2 + self.args[0])",
          ("tests/test_splade.py", "tests/test_language.py")),
    Fault("a sign in the L2 shift (rows plus their shift point, not minus: exact at the origin, not far from it)",
          "hsr/runtime.py", "return x, torch.sub(x, view, out=out)", "return x, torch.add(x, view, out=out)",
          ("tests/test_select_reduce_l2.py", "tests/test_chamfer.py")),
    Fault("the checker accepts a non-bool where-mask",
          "hsr/check.py", "            if t.kind != ir.BOOL:\n                raise self.error(f\"{c.name!r} is {t.kind}, but a where-mask",
          "            if False and t.kind != ir.BOOL:\n                raise self.error(f\"{c.name!r} is {t.kind}, but a where-mask",
          ("tests/test_check.py",)),
    # (An earlier fault here, "g_row = tl.where(kept, g_row, 0.0)" -> "g_row = g_row", was an equivalent
    # mutant: every use of g_row is masked by `picked` or `kept` again. No test can catch it.)
    Fault("the backward of mean_s divides by one position too many",
          "templates/select_reduce/backward.py.jinja", "g_row / tl.maximum(n_kept, 1.0), 0.0)",
          "g_row / tl.maximum(n_kept + 1.0, 1.0), 0.0)",
          ("tests/test_select_reduce.py", "tests/test_examples.py")),
    Fault("a dispatch rule drops a coordinate of a few-coordinate contraction (SMALL_D = d - 1)",
          "hsr/dispatch.py", "    if d <= SMALL_D_MAX:\n        return 2, 16, d\n",
          "    if d <= SMALL_D_MAX:\n        return 2, 16, max(d - 1, 1)\n",
          ("tests/test_chamfer.py", "tests/test_select_reduce_l2.py")),
    Fault("mean_s counts one position too many",
          "templates/select_reduce/forward.py.jinja", "\nn_kept = tl.sum(kept, axis=0)\n",
          "\nn_kept = tl.sum(kept, axis=0) + 1\n",
          ("tests/test_select_reduce.py", "tests/test_examples.py")),
    Fault("an empty selection is not 0 (every kept row counts as picked)",
          "templates/select_reduce/tile.py.jinja", "picked = {{ R }}_ok & {{ C }}_any", "picked = {{ R }}_ok",
          ("tests/test_edges.py", "tests/test_maxsim.py")),
    Fault("NaN no longer propagates through the running max of the general loop",
          "templates/select_reduce/tile.py.jinja",
          "best2 = tl.{{ t.combine }}(best2, key, propagate_nan=tl.PropagateNan.ALL)",
          "best2 = tl.{{ t.combine }}(best2, key, propagate_nan=tl.PropagateNan.NONE)",
          ("tests/test_edges.py", "tests/test_select_reduce_l2.py")),
    Fault("the deterministic one-hot scatter adds a row's gradient to the next column",
          "templates/select_reduce/scatter.py.jinja", "onehot = offs_{{ C }}[:, None] == sel[None, :]",
          "onehot = offs_{{ C }}[:, None] == sel[None, :] + 1",
          ("tests/test_maxsim.py", "tests/test_splade.py")),
    Fault("the general loop's L2 rank key halves the dot (|b|^2 - <a, b>)",
          "templates/select_reduce/tile.py.jinja", "    else:\n        sq = bsq[None, :] - 2.0 * dot", "    else:\n        sq = bsq[None, :] - dot",
          ("tests/test_select_reduce_l2.py",)),
    Fault("the one slot per row drops a NaN (a tile's max over a NaN keeps the number)",
          "templates/select_reduce/tile.py.jinja",
          "best2 = tl.{{ t.combine }}(best2, key_row, propagate_nan=tl.PropagateNan.ALL)",
          "best2 = tl.{{ t.combine }}(best2, key_row, propagate_nan=tl.PropagateNan.NONE)",
          ("tests/test_edges.py", "tests/test_maxsim.py", "tests/test_select_reduce.py")),
    Fault("a spec error's caret one column to the right",
          "hsr/errors.py", "{' ' * (col - 1)}^", "{' ' * col}^",
          ("tests/test_parse.py", "tests/test_check.py")),
    Fault("the lean forward drops a dot's column terms (the key is the dot alone)",
          "templates/select_reduce/lean.py.jinja", "    dot = {{ t.lean.key }}", "    dot = dot",
          ("tests/test_select_reduce.py",)),
    Fault("the lean forward halves int8 products",
          "templates/select_reduce/lean.py.jinja",
          '{{ ".to(tl.float32)  # int8 x int8: exact int32" if t.quantized == "int8" }}',
          '{{ ".to(tl.float32) * 0.5" if t.quantized == "int8" }}',
          ("tests/test_select_reduce.py",)),
    Fault("a computed operand's n-bit codes read from a byte's high bits (MSB-first, not LSB-first)",
          "hsr/emit_rows.py", 'lines.append(f"{name} = ({name} >> (({pos} % {per}) * {bits}){shape_}) & {(1 << bits) - 1}  "',
          'lines.append(f"{name} = ({name} >> ((({per} - 1) - {pos} % {per}) * {bits}){shape_}) & {(1 << bits) - 1}  "',
          ("tests/test_emit_rows.py", "tests/test_residual.py")),
    Fault("a small code table picked with its bits' roles swapped (entry 1 for code 2)",
          "hsr/emit_rows.py", 'level = [f"tl.where(({ix} & {1 << b}) != 0, {level[i + 1]}, {level[i]})"',
          'level = [f"tl.where(({ix} & {1 << (bits - 1 - b)}) != 0, {level[i + 1]}, {level[i]})"',
          ("tests/test_emit_rows.py", "tests/test_residual.py")),
    Fault("a computed operand's rows in chunks left unnormalised (the norms' scale dropped after the loop)",
          "templates/select_reduce/tile.py.jinja",
          "dot = dot * (1.0 / tl.maximum(tl.sqrt(rows_sq), 1e-12))[None, :]",
          "dot = dot * (1.0 / tl.maximum(tl.sqrt(rows_sq + 1.0), 1e-12))[None, :]",
          ("tests/test_emit_rows.py",)),
    Fault("fp32 dot keys ranked at TF32 keep the TF32 value (the exact pass at the selection skipped)",
          "templates/select_reduce/tile.py.jinja", "    if EXACT_SEL:\n", "    if EXACT_SEL and False:\n",
          ("tests/test_select_reduce_fp32.py",)),
    Fault("a slot's index loses its column (the tile's start alone)",
          "templates/select_reduce/tile.py.jinja",
          "at2 = tl.where(idx2 >= 0, idx2 + tl.arange(0, BLOCK_{{ C|upper }})[None, :], -1)",
          "at2 = tl.where(idx2 >= 0, idx2, -1)",
          ("tests/test_select_reduce_l2.py", "tests/test_maxsim.py")),
    Fault("the merge of a row's parts of the selected axis lets a later part win a tie",
          "templates/select_reduce/forward.py.jinja",
          "((part < 0) | (k {{ t.better }} best)",
          "((part < 0) | (k {{ t.better }}= best)",
          ("tests/test_select_reduce_l2.py", "-k", "parts")),
    Fault("a part's rank-again pass (inf or NaN coordinates) keeps the non-finite key as its ranking value",
          "templates/select_reduce/tile.py.jinja",
          'key_out="part_key" if parts else None',
          "key_out=None",
          ("tests/test_select_reduce_l2.py", "-k", "parts")),
    Fault("a 16-bit row whose shift rounds is not marked, so it ranks on its rounded coordinates",
          "hsr/shift16.py",
          'y = tl.where(rounded[:, None] & (offs == 0)[None, :], float("nan"), y.to(tl.float32)).to(x.dtype)',
          "y = y",
          ("tests/test_select_reduce_l2.py", "-k", "16bit or rounds")),
    Fault("the launcher takes a register cap whatever the capped kernel spills",
          "hsr/launcher.py",
          "decided = cap if 0 < regs <= cap and spills == 0 else 0",
          "decided = cap",
          ("tests/test_launcher.py", "-k", "register")),
    Fault("a lean cosine's pre-pass writes squared norms where the loop multiplies by 1 / |b|",
          "templates/select_reduce_host.py.jinja",
          'inverse={{ "True" if t.cos else "False" }}',
          "inverse=False",
          ("tests/test_select_reduce.py", "-k", "lean_forward_of_a_cosine")),
    Fault("a stacked call's grown row block keeps its neighbour's stacked block (twice the rows a program)",
          "hsr/autotune.py",
          "        if stacked and gname in kwargs:",
          "        if False and stacked and gname in kwargs:",
          ("tests/test_tuned.py", "-k", "neighbour_of_fewer")),
    Fault("a grown row block keeps its neighbour's warps whatever the rows a program holds",
          "hsr/autotune.py",
          "        best = min(same, key=lambda cfg: (cfg.num_warps > max(4, 4 * rows // 64),",
          "        best = min(same, key=lambda cfg: (False,",
          ("tests/test_tuned.py", "-k", "neighbour_of_fewer")),
    Fault("a computed operand's rows are formed without the L2 pair's shift (exact near the origin only)",
          "hsr/emit_rows.py", "    if shift:\n", "    if False and shift:\n",
          ("tests/test_emit_rows.py", "-k", "distance")),
    Fault("the rank-again pass over a computed operand reads zeros for its coordinates",
          "templates/select_reduce/tile.py.jinja",
          '"tl.sum(tl.where(offs_" ~ K ~ "[None, :] == k, again_b, 0.0), axis=1)"',
          '"tl.sum(tl.where(offs_" ~ K ~ "[None, :] == k, 0.0, 0.0) + tl.where(again_b == again_b, 0.0, 0.0), axis=1)"',
          ("tests/test_emit_rows.py", "-k", "inf_and_nan")),
    Fault("a stacked block is never halved, whatever programs the call launches",
          "hsr/dispatch.py", "    while block > 1 and programs(block) < STACKED_MIN_PROGRAMS * sms:",
          "    while False and programs(block) < STACKED_MIN_PROGRAMS * sms:",
          ("tests/test_autotune.py", "-k", "stacked_block")),
    Fault("a stacked block never doubles, whatever programs the call launches",
          "hsr/dispatch.py", "        while fits(block * 2) and STACKED_GROW_PROGRAMS * sms <= programs(block * 2)",
          "        while False and STACKED_GROW_PROGRAMS * sms <= programs(block * 2)",
          ("tests/test_autotune.py", "-k", "stacked_block")),
    Fault("a chunked 16-bit tile keeps a neighbour's 64 columns on long documents",
          "hsr/autotune.py", "        if -(-length // wide) * wide > CHUNKED_PAD * -(-length // narrow) * narrow:",
          "        if True:",
          ("tests/test_autotune.py", "-k", "chunked")),
    Fault("the stacked block's rule builds a torch.device on the launch path (no kept call is replayed)",
          "hsr/autotune.py", "device = next((a.device for a in args if isinstance(a, torch.Tensor)), None)",
          'device = next((a.device for a in args if isinstance(a, torch.Tensor)), torch.device("cpu"))',
          ("tests/test_autotune.py", "-k", "stacked_block")),
    Fault("a stacked block of wide 16-bit rows never doubles into one wave",
          "hsr/dispatch.py", "    if sms < programs(block) <= 2 * sms and programs(block * 2) < programs(block) and fits(block * 2):",
          "    if False and programs(block * 2) < programs(block) and fits(block * 2):",
          ("tests/test_autotune.py", "-k", "wave")),
    Fault("a chunked tile keeps 64 columns where 128 fit only at half its stacked block",
          "hsr/autotune.py", "        if not fits(blocks) and g in blocks and blocks[g] * narrow % wide == 0:",
          "        if False:",
          ("tests/test_autotune.py", "-k", "chunked")),
    Fault("the call that tunes launches its pick unfilled (not as tuning timed it)",
          "hsr/autotune.py", "            config = self._stacked_fill(config, key, grid, args, kwargs)\n            return",
          "            return",
          ("tests/test_autotune.py", "-k", "tunes")),
    Fault("a short query's lean programs take one warp group's rows at any count of programs",
          "hsr/dispatch.py", "    return programs if low * sms <= programs < high * sms else 0",
          "    return programs",
          ("tests/test_dispatch.py", "-k", "warp_group")),
    Fault("an L2 key's one slot a row lets a later tile win a tie",
          "templates/select_reduce/tile.py.jinja", "        better = key_row {{ t.better }} best2",
          "        better = (key_row {{ t.better }} best2) | (key_row == best2)",
          ("tests/test_select_reduce_l2.py", "-k", "one_slot_a_row")),
    Fault("the config predictor ignores whether a lowering forms its operand in the kernel",
          "hsr/autotune.py", "        apart = formed_in(lowering) != formed_in(self.lowering)",
          "        apart = False",
          ("tests/test_tuned.py", "-k", "forms_its_operand")),
    Fault("fp32 halves: every held row takes the first row's scale",
          "templates/select_reduce/forward.py.jinja", "tl.load(ascale_ptr + a_at, mask=",
          "tl.load(ascale_ptr + 0 * a_at, mask=",
          ("tests/test_select_reduce_l2.py", "-k", "far_apart")),
    Fault("the gather backward's parts all write the first part's partial",
          "templates/select_reduce/backward.py.jinja", "grad_{{ A }}_ptr + part.to(tl.int64) * part_stride + ",
          "grad_{{ A }}_ptr + ",
          ("tests/test_select_reduce.py", "-k", "walks_the_documents")),
    Fault("the backward takes a normalised computed operand's gradient through its normalisation without the norm",
          "templates/select_reduce/backward.py.jinja", "contrib - b * tl.sum(b * contrib, axis=1)[:, None], contrib) * b_inv[:, None]",
          "contrib - b * tl.sum(b * contrib, axis=1)[:, None], contrib)",
          ("tests/test_hidden.py", "-k", "replayed or float64")),
    Fault("the zeros kernel leaves a block's last element as it was",
          "hsr/zeros.py", "mask=offs < n)", "mask=offs < n - (offs % BLOCK == BLOCK - 1))",
          ("tests/test_zeros.py",)),
    Fault("the backward reads a cell's gradient at its index, not through the gradient's strides",
          "templates/select_reduce/backward.py.jinja", "tl.load(grad_ptr + {{ t.out_base }})  # (through its strides)",
          "tl.load(grad_ptr + cell)  # (through its strides)",
          ("tests/test_select_reduce.py", "-k", "strides")),
    Fault("the 16-bit shift's flag is stored 0 whatever the shift, so the forward reads the rows unshifted",
          "hsr/shift16.py", "tl.store(c_ptr + size_k, (tl.max(tl.abs(c), axis=0) > 0).to(tl.float32))",
          "tl.store(c_ptr + size_k, 0.0)",
          ("tests/test_select_reduce_l2.py", "-k", "16bit or rounds")),
    Fault("the gather backward writes each selection's row one cell off (the next cell's)",
          "templates/select_reduce/backward.py.jinja",
          "({{ t.b_cell_expr }}) * size_{{ C }} + sel_safe.to(tl.int64), mask={{ R }}_in)",
          "({{ t.b_cell_expr }} + 1) * size_{{ C }} + sel_safe.to(tl.int64), mask={{ R }}_in)",
          ("tests/test_hidden.py", "tests/test_emit_rows.py")),
    Fault("the lean loop reads the rows as passed whatever the shift's flag (C less the shift, X not)",
          "templates/select_reduce/lean.py.jinja",
          "a_src = tl.where(tl.load(shift_ptr + SIZE_{{ K|upper }}) != 0, {{ A }}s_ptr, {{ A }}_ptr)",
          "a_src = tl.where(tl.load(shift_ptr + SIZE_{{ K|upper }}) != 0, {{ A }}_ptr, {{ A }}_ptr)",
          ("tests/test_select_reduce_l2.py", "-k", "lean_loop")),
    Fault("the shift's range reads the least values of the first range program's rows only",
          "hsr/shift16.py", "lo = tl.load(at, mask=p < n_parts, other=float(\"inf\"))",
          "lo = tl.load(at, mask=p < 1, other=float(\"inf\"))",
          ("tests/test_shift16.py",)),
    Fault("the swap rule ignores the column tile (32 columns on wgmma's M side of 64)",
          "hsr/dispatch.py", "return block_r <= 32 and block_c >= LEAN_SWAP_MIN_COLS and warps >= 4",
          "return block_r <= 32 and warps >= 4",
          ("tests/test_dispatch.py", "-k", "swapped")),
    Fault("the lean host never asks for the swapped product",
          "templates/select_reduce_host.py.jinja", "SWAP=dispatch.lean_swap(block_r, block_c, warps),",
          "SWAP=False,",
          ("tests/test_select_reduce.py", "-k", "swapped")),
)

SUMMARY = re.compile(r"\b(passed|failed|error|stopping after)\b")
GENERATING = ("templates/", "hsr/emit.py", "hsr/emit_rows.py", "hsr/plan.py", "hsr/dispatch.py", "hsr/symbolic.py",
              "hsr/check.py")


def run(cmd, **kw):
    return subprocess.run(cmd, cwd=ROOT, **kw)


def regenerate() -> None:
    specs = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "ops").glob("*.hsr"))
    run([sys.executable, "-m", "hsr.cli", "compile", *specs], stdout=subprocess.DEVNULL, check=True)


def restore(fault: Fault) -> None:
    run(["git", "checkout", "--", fault.where, "generated", "templates/compiled"], check=True)


def plant(fault: Fault) -> None:
    path = ROOT / fault.where
    text = path.read_text()
    if text.count(fault.old) != 1:
        raise SystemExit(f"{fault.where}: the fault's text occurs {text.count(fault.old)} times, not once: "
                         f"{fault.name}")
    path.write_text(text.replace(fault.old, fault.new))
    if fault.where.startswith(GENERATING):
        regenerate()


def try_fault(fault: Fault, args) -> dict:
    plant(fault)
    env = dict(os.environ, HYPOTHESIS_PROFILE=args.profile, HSR_NO_SHRINK="1")
    cmd = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *fault.tests]
    if args.workers > 1:
        cmd[4:4] = ["-n", str(args.workers)]
    start = time.monotonic()
    try:
        done = run(cmd, env=env, capture_output=True, text=True, timeout=args.timeout)
        rc, out = done.returncode, done.stdout + done.stderr
    except subprocess.TimeoutExpired:
        rc, out = None, "timed out"
    finally:
        restore(fault)
    summary = [line for line in out.splitlines() if SUMMARY.search(line)]
    first = next((line for line in out.splitlines() if line.startswith(("FAILED", "ERROR"))), "")
    # caught: a test failed (exit 1; under xdist -x stops the session, exit 2 "stopping after 1 failures");
    # missed: every test passed (exit 0); anything else (no tests ran, a crash of pytest itself): an error
    failed = rc == 1 or (rc == 2 and "stopping after" in out)
    return dict(fault=fault.name, where=fault.where, caught=True if failed else False if rc == 0 else None,
                seconds=round(time.monotonic() - start),
                last_line=(first or (summary[-1] if summary else out.strip()[-120:])).replace("|", "/")[:140])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="fault numbers, 1-based, comma separated")
    parser.add_argument("--profile", default="ci",
                        help="HYPOTHESIS_PROFILE for the test runs (full: the counts the suite drew before the ci profile)")
    parser.add_argument("--workers", type=int, default=2, help="pytest-xdist workers (1: none)")
    parser.add_argument("--timeout", type=int, default=1800)
    parser.add_argument("--out", help="also write the markdown table here")
    args = parser.parse_args(argv)
    chosen = [FAULTS[int(n) - 1] for n in args.only.split(",")] if args.only else list(FAULTS)
    dirty = run(["git", "status", "--porcelain", "--", "generated", "templates/compiled", *{f.where for f in chosen}],
                capture_output=True, text=True).stdout.strip()
    if dirty:
        raise SystemExit(f"uncommitted changes where faults are planted (they are restored from git):\n{dirty}")
    rows = ["| # | fault | file | caught | s | first failure (or the summary) |", "|---|---|---|---|---|---|"]
    for fault in chosen:
        r = try_fault(fault, args)
        n = FAULTS.index(fault) + 1
        verdict = {True: "yes", False: "**no**", None: "error"}[r["caught"]]
        rows.append(f"| {n} | {r['fault']} | `{r['where']}` | {verdict} | {r['seconds']} | {r['last_line']} |")
        print(rows[-1], flush=True)
    table = "\n".join(rows) + "\n"
    if args.out:
        Path(args.out).write_text(table)
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())

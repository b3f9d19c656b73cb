"""The indexed both-ways forward gives wrong values on CUDA from 1000 points
(both_ways_index_ima.py): which part of its column merge does it? Variants of
generated/chamfer_point.py, written to a temporary module, each checked against
the two plain calls at 3000 and 10000 points:
  as is; "two reductions" (value, then lowest row holding it, instead of one tuple
  reduction); "no guard" (the merge without its block-wide `if`); both; and
  "rows only" (the column merge left out: the row side alone); "fresh name" (the
  guarded branch names its key anew instead of reassigning ckey, which Triton then
  carries out of the branch). Then the time of
  the correct variants against the two calls (do_bench of the host functions).

    python3 bench/experiments/both_ways_index_variants.py
"""

import importlib.util
import os
import sys
import tempfile

import torch
import triton

from hsr import runtime
from hsr.generated import chamfer_point

SRC = open(chamfer_point.__file__).read()
TUPLE = 'cval, cidx = tl.reduce((tl.where(rows_sw[:, None], s, float("inf")), rows_at), 0, _dist_argsel)'
TWO = ('cmask = tl.where(rows_sw[:, None], s, float("inf")); cval = tl.min(cmask, axis=0); '
       'cidx = tl.min(tl.where(cmask == cval[None, :], rows_at, 2147483647), axis=0)')
GUARD = "if tl.max(improve.to(tl.int32), axis=0) > 0:"
MERGE = "tl.atomic_min(col_at, (ckey << 32) | cidx.to(tl.int64), mask=improve)"
VARIANTS = {
    "as is": [],
    "two reductions": [(TUPLE, TWO)],
    "no guard": [(GUARD, "if True:")],
    "both": [(TUPLE, TWO), (GUARD, "if True:")],
    "rows only": [(MERGE, "pass")],
    "fresh name": [("ckey = _dist_order(cval + 0.0).to(tl.int64)", "ckey_sel = _dist_order(cval + 0.0).to(tl.int64)"),
                   (MERGE, MERGE.replace("(ckey << 32)", "(ckey_sel << 32)"))],
}


def load(name, edits):
    src = SRC
    for old, new in edits:
        assert old in src, old
        src = src.replace(old, new)
    path = os.path.join(tempfile.mkdtemp(), f"cp_{abs(hash(name))}.py")
    with open(path, "w") as f:
        f.write(src)
    spec = importlib.util.spec_from_file_location(f"cp_{abs(hash(name))}", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


g = torch.Generator(device="cuda").manual_seed(0)
for n in (3000, 10000, 100000) if len(sys.argv) < 2 else [int(v) for v in sys.argv[1:]]:
    x = torch.randn(1, n, 3, device="cuda", generator=g)
    y = torch.randn(1, n + 7, 3, device="cuda", generator=g)
    want, want_idx = chamfer_point.forward_with_indices(x, y)
    want_sw, want_idx_sw = chamfer_point.forward_with_indices(y, x)
    for name, edits in VARIANTS.items():
        mod = load(name, edits)
        t, sizes = runtime.bind(mod.OUTPUT, mod.SIGNATURE, (x, y), {}, runtime.CALL_FLOAT_DTYPES)
        t_sw, sizes_sw = runtime.bind(mod.OUTPUT, mod.SIGNATURE, (y, x), {}, runtime.CALL_FLOAT_DTYPES)
        out, saved, out_sw, saved_sw = mod._dist_forward_both(t, t_sw, sizes, sizes_sw, True)
        torch.cuda.synchronize()
        idx, idx_sw = saved[0].view(-1).long(), saved_sw[0].view(-1).long()
        bad = (idx != want_idx.view(-1).long()).sum().item()
        bad_sw = (idx_sw != want_idx_sw.view(-1).long()).sum().item()
        print(f"n {n} {name:15s}: rows |diff| {(out - want).abs().max().item():.3g}, {bad} indices differ "
              f"(range {idx.min().item()}..{idx.max().item()}); columns |diff| "
              f"{(out_sw - want_sw).abs().max().item():.3g}, {bad_sw} differ", flush=True)
        if name in ("no guard", "both", "fresh name"):
            ms = triton.testing.do_bench(lambda: mod._dist_forward_both(t, t_sw, sizes, sizes_sw, True))
            print(f"    {name}: fused forward with indices {ms:.4f} ms (do_bench, the host function)", flush=True)
    two = triton.testing.do_bench(lambda: (chamfer_point.forward_with_indices(x, y),
                                           chamfer_point.forward_with_indices(y, x)))
    print(f"n {n}: the two calls with indices {two:.4f} ms", flush=True)

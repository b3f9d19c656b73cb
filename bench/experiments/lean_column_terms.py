"""Where the lean forward's time goes for a key with a per-column term (session 19).

The Gaussian MaxSim (|b|^2 - 2<a, b> ranks, then the value from the differences)
and the cosine MaxSim (dot * ib) on the lean loop take 2.5x and 1.8x MaxSim's
forward at 1 query x 512 documents of 1024 x 1024 tokens, d = 128 fp16. This
times variants of their generated source, edited as text (H100, one process):
the column term left out (does broadcasting a [BLOCK_C] vector into the dot's
layout cost the time?), and MaxSim with and without the index (the L2 key always
tracks it). Run on the GPU machine: python bench/experiments/lean_column_terms.py
"""

import importlib.util
import sys
import tempfile
from pathlib import Path

import torch
import triton

import hsr
from hsr.op import Op

HEAD = "Q[i, s, d]: float\nD[j, t, d]: float\n"
SPECS = {
    "gaussian": HEAD + "score[i, j] = sum_s max_t exp(-||Q_s - D_t||^2)\n",
    "cosine": HEAD + "score[i, j] = sum_s max_t cos(Q_s, D_t)\n",
    "maxsim": HEAD + "score[i, j] = sum_s max_t <Q_s, D_t>\n",
}
EDITS = {  # (spec, variant): (old text, new text) in the generated module
    ("gaussian", "no column term"): ("dot = bsq[None, :] - 2.0 * dot", "dot = -2.0 * dot"),
    ("cosine", "no column term"): ("dot = dot * (1.0 / tl.maximum(tl.sqrt(bsq), 1e-12))[None, :]", "dot = dot"),
}


def variant(op: Op, old: str, new: str, tag: str) -> Op:
    source = op.source
    assert source.count(old) == 1, (tag, old)
    path = Path(tempfile.mkdtemp()) / f"variant_{tag}.py"
    path.write_text(source.replace(old, new))
    spec = importlib.util.spec_from_file_location(f"variant_{tag}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return Op(op.program, op.plan, module, source)


def main():
    gen = torch.Generator(device="cuda").manual_seed(0)
    Q = torch.randn(1, 1024, 128, device="cuda", generator=gen).half()
    D = torch.randn(512, 1024, 128, device="cuda", generator=gen).half()
    ops = {name: hsr.compile(text) for name, text in SPECS.items()}
    rows = [(name, "as generated", op) for name, op in ops.items()]
    rows += [(name, what, variant(ops[name], *edit, f"{name}_{n}")) for n, ((name, what), edit) in enumerate(EDITS.items())]
    with torch.no_grad():
        for name, what, op in rows:
            op(Q, D)
            ms = triton.testing.do_bench(lambda: op(Q, D))
            print(f"{name:9s} {what:16s} {ms:.4f} ms", flush=True)
        op = ops["maxsim"]
        op.forward_with_indices(Q, D)
        ms = triton.testing.do_bench(lambda: op.forward_with_indices(Q, D))
        print(f"{'maxsim':9s} {'with the index':16s} {ms:.4f} ms", flush=True)


if __name__ == "__main__":
    main()

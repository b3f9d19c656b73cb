"""The gather backward of MaxSim (score_bwd: grad_Q, with grad_D's atomics in the
same pass) at the training shapes, over its launch parameters: the block of query
rows a program takes (BLOCK_S), its warps, and a software-pipelined loop over the
documents (tl.range(..., num_stages=N): the next documents' index and rows load
while this one's are used). One program per (query, block of rows) loops over
every document, so at ColBERT B=128 (Lq = 32) 32-row blocks make 128 programs on
132 SMs, each a chain of dependent loads: the question is whether more programs
or a pipelined loop hide that latency.

    python3 bench/experiments/backward_blocks.py [--out DIR] [--shapes colbert128,colbert512,colpali32]

The kernel is the generated one (hsr.generated.maxsim.score_bwd), rewritten only
in its document loop for the pipelined variants (written to a temporary module).
Every variant's grad_Q is checked against the generated kernel's at the shipped
blocks (grad_D, summed by atomics, up to rounding). Writes backward_blocks.json."""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import os
import platform
import tempfile
import time

import torch
import triton
import triton.testing

SHAPES = {"colbert128": (128, 32, 300), "colbert512": (512, 32, 300), "colpali32": (32, 1024, 1024)}


def pipelined_kernel():
    """score_bwd with its document loop as tl.range(..., num_stages=LOOP_STAGES)."""
    import hsr.generated.maxsim as gen
    src = inspect.getsource(gen.score_bwd.fn)
    loop = "for other in range(0, size_j):"
    assert loop in src, "the generated document loop changed"
    src = src.replace(loop, "for other in tl.range(0, size_j, num_stages=LOOP_STAGES):")
    src = src.replace("SCATTER: tl.constexpr,", "SCATTER: tl.constexpr, LOOP_STAGES: tl.constexpr,")
    path = os.path.join(tempfile.mkdtemp(), "score_bwd_pipelined.py")
    with open(path, "w") as f:
        f.write("import triton\nimport triton.language as tl\n\n\n" + src)
    spec = importlib.util.spec_from_file_location("score_bwd_pipelined", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.score_bwd


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.environ.get("OUT", "bench/results"))
    ap.add_argument("--shapes", default="colbert128,colbert512,colpali32")
    ap.add_argument("--budget-s", type=float, default=300)
    args = ap.parse_args()
    import hsr.generated.maxsim as gen
    from hsr import runtime

    t0 = time.monotonic()
    piped = pipelined_kernel()
    dev = "cuda"
    rows = []
    for name in args.shapes.split(","):
        B, Lq, Ld = SHAPES[name]
        g = torch.Generator(device=dev).manual_seed(0)
        Q = torch.randn(B, Lq, 128, device=dev, generator=g).to(torch.bfloat16)
        D = torch.randn(B, Ld, 128, device=dev, generator=g).to(torch.bfloat16)
        t, sizes = runtime.bind(gen.OUTPUT, gen.SIGNATURE, (Q, D), {})
        _, saved = gen._score_forward(t, sizes, True)
        idx = saved[0]
        grad = torch.randn(B, B, device=dev, generator=g)

        def launch(block_s, warps, stages):
            gq = torch.zeros_like(Q)
            gd = torch.zeros(D.shape, dtype=torch.float32, device=dev)
            common = (Q, D, grad, idx, grad, grad, gq, gd, B, B, Lq, Ld, 128, *Q.stride(), *D.stride(),
                      *gq.stride(), *gd.stride(), *grad.stride())
            grid = (B, triton.cdiv(Lq, block_s))
            if stages == 0:
                gen.score_bwd[grid](*common, BLOCK_S=block_s, BLOCK_D=128, SCATTER=True, num_warps=warps)
            else:
                piped[grid](*common, BLOCK_S=block_s, BLOCK_D=128, SCATTER=True, LOOP_STAGES=stages,
                            num_warps=warps)
            return gq, gd

        ref_q, ref_d = launch(32, 8, 0)
        print(f"== {name}: B={B}, Lq={Lq}, Ld={Ld}", flush=True)
        for block_s in (32, 16, 8, 4):
            for warps in (8, 4, 2):
                for stages in (0, 2, 3):
                    if time.monotonic() - t0 > args.budget_s:
                        break
                    label = f"{name} BLOCK_S={block_s} warps={warps} loop_stages={stages or '-'}"
                    try:
                        gq, gd = launch(block_s, warps, stages)
                        err_q = ((gq.float() - ref_q.float()).abs().max() / ref_q.float().abs().max()).item()
                        err_d = ((gd - ref_d).abs().max() / ref_d.abs().max()).item()
                        ms = triton.testing.do_bench(lambda: launch(block_s, warps, stages), warmup=10, rep=60,
                                                     return_mode="median")
                        r = {"shape": name, "BLOCK_S": block_s, "warps": warps, "loop_stages": stages, "ms": ms,
                             "err_grad_Q": err_q, "err_grad_D": err_d}
                        print(f"{label:<58} {ms:.3f} ms  err Q {err_q:.1e} D {err_d:.1e}", flush=True)
                    except Exception as e:  # noqa: BLE001
                        r = {"shape": name, "BLOCK_S": block_s, "warps": warps, "loop_stages": stages,
                             "error": f"{type(e).__name__}: {str(e)[:200]}"}
                        print(f"{label:<58} {r['error']}", flush=True)
                    rows.append(r)
        del Q, D, idx
        torch.cuda.empty_cache()
    meta = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "triton": triton.__version__,
            "python": platform.python_version(), "what": "score_bwd (atomic) alone, bf16, d = 128, in-batch; "
            "ms includes zeroing grad_Q and the fp32 grad_D (as a step does)"}
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "backward_blocks.json"), "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=1)
    print("\nfastest per shape:")
    for name in args.shapes.split(","):
        best = sorted([r for r in rows if r["shape"] == name and "ms" in r], key=lambda r: r["ms"])[:4]
        for r in best:
            print(f"  {name} BLOCK_S={r['BLOCK_S']} warps={r['warps']} loop_stages={r['loop_stages']}: {r['ms']:.3f} ms")


if __name__ == "__main__":
    main()

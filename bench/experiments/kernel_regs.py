"""Registers and spills of a generated forward, compiled here for sm_90 (no GPU needed).

Why: the number of programs an SM holds follows the registers a kernel needs, and
Triton's choice of them shows only after ptxas; this compiles the kernel for an
H100 on this machine (Triton's own ptxas for the PTX it writes) so a template change
can be judged before device time is spent. Example:

    python bench/experiments/kernel_regs.py generated.maxsim score_fwd BLOCK_S=128 BLOCK_T=64 SPLIT_S=128

Pointers are fp16 (uint8 for masks, fp32/int32 for outputs by name), integers i32;
strides of the last axis are specialised to 1 and the rest marked divisible by 16, as
Triton does for contiguous tensors of even sizes.
"""
import argparse
import importlib
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

DEFAULTS = dict(HAS_qmask=False, HAS_dmask=False, BLOCK_S=128, BLOCK_T=64, BLOCK_D=128,
                NEED_IDX=False, PRECISION="tf32", DOT_FP32=False, DOT_MODE=0, SMALL_D=0,
                BLOCK_I=1, SPLIT_S=0)
_POINTER_TYPES = {"mask": "*u8", "out": "*fp32", "stat": "*fp32", "xsel": "*fp32", "idx": "*i32"}


def _pointer_type(name):
    for key, ty in _POINTER_TYPES.items():
        if key in name:
            return ty
    return "*fp16"


def _value(text):
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return {"True": True, "False": False}.get(text, text)


def compile_sm90(fn, constexprs, num_warps=8, num_stages=3, pointers=(), descriptors=None):
    """(registers, spills, shared bytes, ptx) of fn compiled for sm_90a; `pointers` names
    pointer arguments whose names do not end in _ptr; `descriptors` maps tensor-descriptor
    arguments to their type, as "tensordesc<fp16[128, 128]>"."""
    descriptors = descriptors or {}
    signature, consts, attrs = {}, {}, {}
    names = fn.arg_names
    for k, name in enumerate(names):
        if name in constexprs or fn.params[k].is_constexpr:
            signature[name] = "constexpr"
            consts[(k,)] = constexprs[name]
        elif name in descriptors:
            signature[name] = descriptors[name]
        elif name.endswith("_ptr") or name in pointers:
            signature[name] = _pointer_type(name)
            attrs[(k,)] = [["tt.divisibility", 16]]
        elif re.search(r"stride.*_d$", name) or name.endswith("_t") and "dmask" in name:
            signature[name] = "constexpr"
            consts[(k,)] = 1
        else:
            signature[name] = "i32"
            if "stride" in name:
                attrs[(k,)] = [["tt.divisibility", 16]]
    src = ASTSource(fn=fn, signature=signature, constexprs=consts, attrs=attrs)
    kernel = triton.compile(src, target=GPUTarget("cuda", 90, 128),
                            options=dict(num_warps=num_warps, num_stages=num_stages))
    ptx = kernel.asm["ptx"]
    ptxas = Path(triton.__file__).parent / "backends/nvidia/bin/ptxas-blackwell"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "k.ptx"
        path.write_text(ptx)
        log = subprocess.run([str(ptxas), "-arch=sm_90a", "-v", str(path), "-o", str(Path(tmp) / "k.o")],
                             capture_output=True, text=True).stderr
    regs = int(re.search(r"Used (\d+) registers", log).group(1))
    spills = sum(int(x) for x in re.findall(r"(\d+) bytes spill stores", log))
    return regs, spills, kernel.metadata.shared, ptx


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("module")
    parser.add_argument("kernel")
    parser.add_argument("constexprs", nargs="*", help="NAME=VALUE over the defaults")
    parser.add_argument("--warps", type=int, default=8)
    parser.add_argument("--stages", type=int, default=3)
    parser.add_argument("--desc", action="append", default=[],
                        help="NAME=ROWSxCOLS: a tensor-descriptor argument of fp16 blocks of that shape")
    parser.add_argument("--pointers", default="", help="comma-separated pointer arguments not named *_ptr")
    args = parser.parse_args(argv)
    fn = getattr(importlib.import_module(args.module), args.kernel)
    constexprs = {k: v for k, v in DEFAULTS.items() if k in fn.arg_names}
    constexprs.update({k: _value(v) for k, v in (c.split("=", 1) for c in args.constexprs)})
    regs, spills, smem, ptx = compile_sm90(fn, constexprs, args.warps, args.stages,
                                          tuple(filter(None, args.pointers.split(","))),
                                          {n: "tensordesc<fp16[%s]>" % b.replace("x", ", ")
                                           for n, b in (d.split("=", 1) for d in args.desc)})
    waits = re.findall(r"wgmma\.wait_group\.sync\.aligned (\d+)", ptx)
    print(f"{args.kernel}: {regs} registers, {spills} bytes spilled, {smem} bytes shared, "
          f"wgmma waits {sorted(set(waits))}, TMA loads {len(re.findall(r'cp.async.bulk.tensor', ptx))}")


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The Splade head on the GPU: hsr against eager PyTorch and the bare GEMM.

Run on the GPU machine from the repository root:

    python3 bench/splade.py --out DIR [--dtype bf16|fp16|fp32] [--quick] [--budget-s S]

The head: rep[b, v] = max over unmasked tokens s of log1p(relu(<hidden[b, s], weight[v]> + bias[v])),
fp32 out, at B=32, L=256, H=768, V=30522 (BERT's vocabulary). Inputs: hidden
[B, L, H] ~ N(0, 1), weight [V, H] ~ N(0, 1/H), bias [V] ~ N(0, 0.1^2), in the
dtype; attention_mask [B, L] bool with lengths uniform in [L/2, L] (fixed seed).

In one run it

1. measures the machine's two ceilings: an 8192^3 matrix product in the dtype
   (TFLOP/s, random data; fp32 with tf32 off) and a 1 GiB device-to-device
   copy (bytes read plus bytes written);
2. times the forward under ``torch.no_grad`` for
   - the GEMM alone, ``hidden.view(-1, H) @ weight.T`` in the dtype: what any
     head must at least do, and the same with the weight padded to a multiple
     of 8 rows (cuBLAS's aligned fast path; hsr's forward is reported as a
     multiple of that one; target: within 1.2x of the compute floor);
   - hsr: ``hsr.ops.splade_max(hidden, weight, bias, attention_mask, activation="log1p_relu")``;
   - eager PyTorch: ``log1p(relu(hidden @ weight.T + bias))``, masked tokens
     filled with 0 (every value is >= 0, so 0 never wins over a real token
     with a positive value, and an all-zero row gives 0 as hsr's does),
     ``.max(dim=1).values``;
   and forward + ``out.sum().backward()`` (grads for hidden, weight and bias)
   for hsr with backward "auto", "atomic" and "deterministic" and for eager
   (target: hsr 5x faster than eager); each with its peak memory beyond the
   inputs (``torch.cuda.max_memory_allocated`` after
   ``reset_peak_memory_stats``, minus what was allocated before the call);
3. checks every output and gradient against the same formula in float64 on the
   dtype-rounded inputs (relative norm error; flagged above 2e-2 for bf16 and
   fp16, 1e-3 for fp32), and reports hsr's gradients against eager's in the
   dtype too (eager rounds its logits to the dtype, so near ties can pick
   another token there: information, not a flag);
4. writes splade.json and splade.md into --out and prints the table last.

Timings are medians of ``triton.testing.do_bench`` (which flushes L2 before
every timed run) after two warm-up calls, so that autotuning and compilation
stay out of them. The floor of the forward is max(2 B L H V / matmul rate,
bytes / copy rate), bytes = (B L H + V H + V) elem + B L + 4 B V; the backward
adds, through the saved argmax, two gathers of B V rows of H (4 B V H FLOPs)
and its bytes (see bench/NOTES.md).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys

from harness import Harness  # bench/harness.py, beside this script

B, L, H, V = 32, 256, 768, 30522
DTYPE_NAMES = ("bf16", "fp16", "fp32")
ELEM_BYTES = {"fp16": 2, "bf16": 2, "fp32": 4}
TOL = {"bf16": 2e-2, "fp16": 2e-2, "fp32": 1e-3}
DEVICE = "cuda"
MATMUL_N = 8192
TARGET_FWD_X_GEMM = 1.2
TARGET_TRAIN_X_EAGER = 5.0
# Figures quoted in the brief, measured on an H200 (compare only with runs on an H200): (ms, peak GiB).
ANCHORS_H200 = {
    ("forward", "eager"): (3.89, 1.86),
    ("fwd_bwd", "eager"): (12.6, 3.04),
    ("forward", "gemm"): (0.47, None),
}


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog=__doc__.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="bench/results", help="directory for splade.{json,md} (default: %(default)s)")
    p.add_argument("--dtype", default="bf16", choices=DTYPE_NAMES, help="input dtype (default: %(default)s)")
    p.add_argument("--quick", action="store_true", help="shorter timing windows, one timing per variant")
    p.add_argument("--budget-s", type=float, default=float(os.environ.get("HSR_BENCH_BUDGET_S", "200")),
                   help="wall-clock budget; no measurement starts after it (default: %(default)s)")
    p.add_argument("--plan", action="store_true", help="print the shape, FLOPs and bytes, and exit (no GPU needed)")
    return p.parse_args(argv)


def shape_cost(dtype_name, valid_tokens=None):
    """FLOPs and bytes of the forward and of forward + backward (see the module docstring)."""
    elem = ELEM_BYTES[dtype_name]
    flops_fwd = 2 * B * L * H * V
    bytes_fwd = (B * L * H + V * H + V) * elem + B * L + 4 * B * V
    # backward through the saved argmax [B, V] (int32): grad_hidden[b, s] += g W[v] and grad_W[v] += g hidden[b, s]
    # for the selected s of each (b, v): B V H FMAs each; bytes: grad_out and argmax read, hidden and W read again,
    # grad_hidden, grad_W and grad_bias written.
    flops_bwd = 4 * B * V * H
    bytes_bwd = 8 * B * V + 2 * (B * L * H + V * H) * elem + V * elem
    out = {"flops_fwd": flops_fwd, "bytes_fwd": bytes_fwd, "flops_fwd_bwd": flops_fwd + flops_bwd,
           "bytes_fwd_bwd": bytes_fwd + bytes_bwd}
    if valid_tokens is not None:
        out["valid_tokens"] = valid_tokens
        out["flops_fwd_valid_only"] = 2 * valid_tokens * H * V
    return out


def floors(cost, tflops, tbps):
    out = {}
    for mode, fk, bk in (("forward", "flops_fwd", "bytes_fwd"), ("fwd_bwd", "flops_fwd_bwd", "bytes_fwd_bwd")):
        c = cost[fk] / (tflops * 1e12) * 1e3
        m = cost[bk] / (tbps * 1e12) * 1e3
        out[mode] = {"compute_ms": c, "memory_ms": m, "limit_ms": max(c, m), "bound": "compute" if c >= m else "memory"}
    if "flops_fwd_valid_only" in cost:
        out["forward_valid_tokens_only_compute_ms"] = cost["flops_fwd_valid_only"] / (tflops * 1e12) * 1e3
    return out


def print_plan(args):
    c = shape_cost(args.dtype)
    print(f"Splade head B={B} L={L} H={H} V={V} {args.dtype}")
    print(f"forward:  {c['flops_fwd'] / 1e9:8.1f} GFLOP, {c['bytes_fwd'] / 1e6:7.1f} MB, "
          f"{c['flops_fwd'] / c['bytes_fwd']:6.0f} FLOP/byte")
    print(f"fwd+bwd:  {c['flops_fwd_bwd'] / 1e9:8.1f} GFLOP, {c['bytes_fwd_bwd'] / 1e6:7.1f} MB")
    print(f"eager logits [B, L, V] in {args.dtype}: {B * L * V * ELEM_BYTES[args.dtype] / 2**30:.2f} GiB each")


# --------------------------------------------------------------------------- GPU part

class Bench(Harness):
    """The harness, and the GEMM ceiling in the benchmark's dtype."""

    def matmul_ceiling(self):
        torch = self.torch
        n = MATMUL_N
        g = torch.Generator(device=DEVICE).manual_seed(1)
        a = torch.randn(n, n, device=DEVICE, dtype=self.dtype, generator=g)
        b = torch.randn(n, n, device=DEVICE, dtype=self.dtype, generator=g)
        out = torch.empty(n, n, device=DEVICE, dtype=self.dtype)
        ms, runs = self.time_fn(lambda: torch.mm(a, b, out=out))
        del a, b, out
        torch.cuda.empty_cache()
        what = f"torch.mm {n}x{n}x{n} {self.args.dtype}" + (" (IEEE, tf32 off)" if self.args.dtype == "fp32" else "")
        return {"what": what, "n": n, "ms": ms, "runs_ms": runs, "tflops": 2 * n ** 3 / (ms * 1e-3) / 1e12}


def rel(a, b):
    """||a - b|| / ||b|| in float64; NaN when a has a non-finite element."""
    a = a.detach().double()
    if not bool(a.isfinite().all()):
        return float("nan")
    return ((a - b.double()).norm() / b.double().norm().clamp_min(1e-300)).item()


# --------------------------------------------------------------------------- the functions compared

def eager_head(torch, hidden, weight, bias, mask):
    """The eager formula in the inputs' dtype."""
    logits = hidden @ weight.T + bias
    act = torch.log1p(torch.relu(logits))
    return act.masked_fill(~mask[:, :, None], 0).max(dim=1).values


def reference64(torch, hidden, weight, bias, mask):
    """The eager formula in float64 on the dtype-rounded inputs, one sequence at a time (bounded memory):
    output [B, V] and the gradients of output.sum() for hidden, weight and bias, float64."""
    w = weight.double().requires_grad_()
    bvec = bias.double().requires_grad_()
    nb = hidden.shape[0]
    out = torch.empty(nb, weight.shape[0], dtype=torch.float64, device=hidden.device)
    g_hidden = torch.empty(hidden.shape, dtype=torch.float64, device=hidden.device)
    for b in range(nb):
        h = hidden[b:b + 1].double().requires_grad_()
        o = eager_head(torch, h, w, bvec, mask[b:b + 1])
        o.sum().backward()  # grads of w and bvec accumulate over the sequences
        out[b] = o[0].detach()
        g_hidden[b] = h.grad[0]
        del h, o
    return out, g_hidden, w.grad.detach(), bvec.grad.detach()


def load_hsr():
    """hsr.ops.splade_max, or a stand-in that raises the import error (each hsr measurement FAILs)."""
    try:
        from hsr.ops import splade_max
    except Exception as e:  # noqa: BLE001
        print(f"hsr.ops.splade_max not importable ({type(e).__name__}: {e}); hsr measurements will fail")
        err = f"hsr.ops.splade_max not importable: {type(e).__name__}: {e}"

        def splade_max(*_a, **_k):
            raise ImportError(err)
    return splade_max


# --------------------------------------------------------------------------- report

def fmt_ms(x):
    if x is None:
        return "-"
    return f"{x:.3f}" if x >= 0.1 else f"{x * 1000:.1f}us"


def fmt_t(ms):
    if ms is None:
        return "-"
    return f"{ms:.3f} ms" if ms >= 0.1 else f"{ms * 1000:.2f} us"


def markdown(result):
    c = result["ceilings"]
    v = result["versions"]
    s = result.get("shape") or {}
    lines = [
        f"Splade head (max over unmasked tokens of log1p(relu(hidden @ weight.T + bias))), B={B}, L={L}, H={H}, "
        f"V={V}, {result['dtype']}, on {result['device']} (python {v['python']}, torch {v['torch']}, "
        f"triton {v['triton']}, hsr {v.get('hsr') or '?'}; no peers).",
    ]
    if isinstance(c.get("matmul"), dict) and isinstance(c.get("copy"), dict):
        lines.append(f"Ceilings measured in this run: matmul {c['matmul']['tflops']:.0f} TFLOP/s "
                     f"({c['matmul']['what']}), copy {c['copy']['tb_per_s']:.2f} TB/s (read + write).")
    f = s.get("floors")
    if f:
        lines.append(f"Floors: forward {fmt_t(f['forward']['limit_ms'])} ({f['forward']['bound']}), "
                     f"forward+backward {fmt_t(f['fwd_bwd']['limit_ms'])} ({f['fwd_bwd']['bound']}); "
                     f"a forward that skips masked tokens: {fmt_t(f.get('forward_valid_tokens_only_compute_ms'))} "
                     f"({s.get('valid_fraction', 0):.0%} of the tokens are real).")
    lines += [
        "ms: do_bench median; GiB: peak beyond the inputs; x GEMM: forward time over the aligned bare GEMM's; "
        "target: the forward within 1.2x of the compute floor (the GEMM's FLOPs at the measured rate); x eager: eager's "
        "time over the variant's (same pass); rel err vs float64: output, then grads of hidden / weight / bias; "
        "vs eager: hsr's grads against eager's in the dtype (information).",
        "",
        "| pass | variant | ms | GiB | x GEMM | x eager | % of floor | target | rel err out | rel err grads h / W / b "
        "| grads vs eager | H200 anchor (ms / GiB) | status |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for mode in ("forward", "fwd_bwd"):
        recs = s.get(mode, {})
        gemm = s.get("forward", {}).get("gemm_aligned", s.get("forward", {}).get("gemm", {})).get("ms")
        eager = recs.get("eager", {}).get("ms")
        limit = (f or {}).get(mode, {}).get("limit_ms")
        for name, r in recs.items():
            ok = r.get("status") == "ok"
            ms = r.get("ms") if ok else None
            xg = f"{ms / gemm:.2f}x" if ok and gemm and mode == "forward" and not name.startswith("gemm") else "-"
            xe = f"{eager / ms:.2f}x" if ok and eager and name != "eager" else "-"
            frac = f"{100 * limit / ms:.0f}%" if ok and limit and name.startswith("hsr") else "-"
            target = "-"
            if ok and name.startswith("hsr"):
                if mode == "forward" and limit:
                    target = f"<= {TARGET_FWD_X_GEMM}x floor: " + ("met" if ms <= TARGET_FWD_X_GEMM * limit else "missed")
                elif mode == "fwd_bwd" and eager:
                    target = f">= {TARGET_TRAIN_X_EAGER:g}x eager: " + (
                        "met" if eager >= TARGET_TRAIN_X_EAGER * ms else "missed")
            grads = [r.get(f"rel_err_grad_{k}") for k in ("hidden", "weight", "bias")]
            vs_eager = [r.get(f"vs_eager_grad_{k}") for k in ("hidden", "weight", "bias")]
            anchor = ANCHORS_H200.get((mode, name))
            flag = " FLAG" if any(fl.startswith(f"{mode} {name}:") for fl in s.get("flags", [])) else ""
            lines.append("| " + " | ".join([
                mode.replace("_", "+"), name, fmt_ms(ms), f"{r['peak_gib']:.3f}" if ok else "-", xg, xe, frac, target,
                (f"{r['rel_err_out']:.1e}" if ok and r.get("rel_err_out") is not None else "-") + flag,
                " / ".join(f"{g:.1e}" for g in grads) if ok and None not in grads else "-",
                " / ".join(f"{g:.1e}" for g in vs_eager) if ok and None not in vs_eager else "-",
                (f"{anchor[0]:g}" + (f" / {anchor[1]:g}" if anchor[1] else "")) if anchor else "-",
                r.get("status", "-").split(":")[0],
            ]) + " |")
    if result["notes"]:
        lines += ["", "Notes:"] + [f"- {n}" for n in result["notes"]]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- main

def main(argv=None):
    args = parse_args(argv)
    if args.plan:
        print_plan(args)
        return 0
    import torch
    import triton

    if not torch.cuda.is_available():
        print("splade: no CUDA device; nothing to time (use --plan to see the shape)", file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    bench = Bench(args)
    splade_max = load_hsr()
    try:
        import hsr
        hsr_ver = getattr(hsr, "__version__", "?")
    except Exception:  # noqa: BLE001
        hsr_ver = None
    tol = TOL[args.dtype]

    props = torch.cuda.get_device_properties(0)
    result = {
        "device": torch.cuda.get_device_name(0), "sm_count": props.multi_processor_count,
        "memory_bytes": props.total_memory,
        "versions": {"python": platform.python_version(), "torch": torch.__version__, "triton": triton.__version__,
                     "cuda": torch.version.cuda, "hsr": hsr_ver},
        "peers": "none (no Splade-head library is carried)",
        "dtype": args.dtype, "quick": args.quick, "B": B, "L": L, "H": H, "V": V,
        "inputs": "hidden ~ N(0, 1) [B,L,H], weight ~ N(0, 1/H) [V,H], bias ~ N(0, 0.1^2) [V], cast to the dtype; "
                  "attention_mask [B,L] bool, lengths uniform in [L/2, L], fixed seeds",
        "timing": f"triton.testing.do_bench median (L2 flushed before each run), warmup {bench.warmup_ms} ms, "
                  f"rep {bench.rep_ms} ms, {bench.repeats} timing(s) per variant, median of those; "
                  f"fwd+bwd: grads reset to None before each run",
        "memory": "torch.cuda.max_memory_allocated during one call minus what was allocated before it (GiB)",
        "tolerance": tol, "targets": {"forward_x_floor_at_most": TARGET_FWD_X_GEMM,
                                      "fwd_bwd_x_eager_at_least": TARGET_TRAIN_X_EAGER},
        "anchors_h200": {" ".join(k): {"ms": a[0], "peak_gib": a[1]} for k, a in ANCHORS_H200.items()},
        "variants": {}, "ceilings": {}, "shape": {}, "notes": bench.notes,
    }
    json_path = os.path.join(args.out, "splade.json")
    md_path = os.path.join(args.out, "splade.md")

    def save():
        """Write what is known so far (a run cut off by a time limit still leaves results)."""
        with open(json_path, "w") as f:
            json.dump(result, f, indent=2, default=str)
        with open(md_path, "w") as f:
            f.write(markdown(result))

    print(f"device: {result['device']} ({result['sm_count']} SMs); python {platform.python_version()}, "
          f"torch {torch.__version__}, triton {triton.__version__}, hsr {hsr_ver}", flush=True)

    # 1. ceilings
    mm, st = bench.guarded("matmul ceiling", bench.matmul_ceiling)
    cp, st2 = bench.guarded("copy ceiling", bench.copy_ceiling)
    result["ceilings"] = {"matmul": mm or st, "copy": cp or st2}
    if mm:
        print(f"matmul: {mm['tflops']:.1f} TFLOP/s ({mm['what']})")
    if cp:
        print(f"copy:   {cp['tb_per_s']:.3f} TB/s", flush=True)

    # 2. inputs and references
    def make_inputs():
        g = torch.Generator(device=DEVICE).manual_seed(3000)
        hidden = torch.randn(B, L, H, device=DEVICE, generator=g).to(bench.dtype)
        weight = (torch.randn(V, H, device=DEVICE, generator=g) / math.sqrt(H)).to(bench.dtype)
        bias = (0.1 * torch.randn(V, device=DEVICE, generator=g)).to(bench.dtype)
        lengths = torch.randint(L // 2, L + 1, (B,), device=DEVICE, generator=g)
        mask = torch.arange(L, device=DEVICE)[None, :] < lengths[:, None]
        return hidden, weight, bias, mask

    made, st = bench.guarded("inputs", make_inputs)
    if made is None:
        result["shape"] = {"status": f"inputs: {st}"}
        save()
        return 1
    hidden0, weight0, bias0, mask = made
    valid = int(mask.sum().item())
    cost = shape_cost(args.dtype, valid)
    shape = {**cost, "valid_fraction": valid / (B * L), "floors": floors(cost, mm["tflops"], cp["tb_per_s"])
             if mm and cp else None, "forward": {}, "fwd_bwd": {}, "flags": []}
    result["shape"] = shape
    save()
    ref, st = bench.guarded("float64 reference", lambda: reference64(torch, hidden0, weight0, bias0, mask))
    if ref is None:
        shape["status"] = f"no reference: {st}"
        save()
        return 1
    ref_out, ref_gh, ref_gw, ref_gb = ref
    print(f"float64 reference: {valid} of {B * L} tokens real; output mean {ref_out.mean().item():.4f}, "
          f"{(ref_out > 0).double().mean().item():.1%} of (b, v) cells > 0", flush=True)

    # eager's gradients in the dtype, for the hsr-vs-eager report
    def eager_grads():
        h, w, b = (t.detach().clone().requires_grad_() for t in (hidden0, weight0, bias0))
        eager_head(torch, h, w, b, mask).sum().backward()
        return h.grad.float(), w.grad.float(), b.grad.float()

    eg, _ = bench.guarded("eager gradients", eager_grads)
    torch.cuda.empty_cache()

    # 3. variants
    v_aligned = -(-V // 8) * 8  # cuBLAS's fast kernels want 16-byte aligned rows of the output
    weight_aligned = torch.nn.functional.pad(weight0, (0, 0, 0, v_aligned - V))  # made once, outside the timing

    variants_fwd = {
        "gemm": lambda h, w, b, m: h.view(-1, H) @ w.T,
        "gemm_aligned": lambda h, w, b, m: h.view(-1, H) @ weight_aligned.T,
        "hsr": lambda h, w, b, m: splade_max(h, w, b, m, activation="log1p_relu"),
        "eager": lambda h, w, b, m: eager_head(torch, h, w, b, m),
    }
    variants_train = {f"hsr_{mode}": (lambda h, w, b, m, _m=mode: splade_max(h, w, b, m, activation="log1p_relu",
                                                                               backward=_m))
                      for mode in ("auto", "atomic", "deterministic")}
    variants_train["eager"] = variants_fwd["eager"]
    result["variants"] = {
        "gemm": f"hidden.view(-1, H) @ weight.T in {args.dtype} under no_grad (no bias, activation, mask or max)",
        "gemm_aligned": f"the same with weight padded to {v_aligned} rows (aligned output rows: cuBLAS's fast path; "
                        "its padded weight is made once, outside the timing)",
        "hsr": "hsr.ops.splade_max(hidden, weight, bias, attention_mask, activation='log1p_relu') under no_grad",
        "eager": "log1p(relu(hidden @ weight.T + bias)).masked_fill(~mask[..., None], 0).max(dim=1).values",
        **{k: f"hsr.ops.splade_max(..., activation='log1p_relu', backward={k[4:]!r}); out.sum().backward()"
           for k in variants_train if k.startswith("hsr")},
    }
    for k, v in result["variants"].items():
        print(f"variant {k}: {v}")
    save()

    def flag(mode, name, r):
        for key in ("rel_err_out", "rel_err_grad_hidden", "rel_err_grad_weight", "rel_err_grad_bias"):
            e = r.get(key)
            # eager's gradients are not flagged: its logits are rounded to the dtype, so near ties can send a
            # gradient to another token than the float64 reference's
            if e is not None and not (e <= tol) and (name.startswith("hsr") or key == "rel_err_out"):
                msg = f"{mode} {name}: {key} {e:.3e} > {tol:g}"
                shape["flags"].append(msg)
                print(f"  MISMATCH {msg}", flush=True)

    print("\n== forward", flush=True)
    for name, fn in variants_fwd.items():
        check = (lambda out: {}) if name.startswith("gemm") else (lambda out: {"rel_err_out": rel(out, ref_out)})
        r = bench.measure(f"forward {name}", lambda fn=fn: fn(hidden0, weight0, bias0, mask), check, no_grad=True)
        shape["forward"][name] = r
        if r["status"] == "ok":
            flag("forward", name, r)
        save()

    print("\n== forward + backward", flush=True)
    for name, fn in variants_train.items():
        h, w, b = (t.detach().clone().requires_grad_() for t in (hidden0, weight0, bias0))

        def step(fn=fn, h=h, w=w, b=b):
            out = fn(h, w, b, mask)
            out.sum().backward()
            return out.detach()

        def check(out, name=name, h=h, w=w, b=b):
            if h.grad is None or w.grad is None or b.grad is None:
                raise RuntimeError("no gradient reached hidden, weight or bias")
            errs = {"rel_err_out": rel(out, ref_out), "rel_err_grad_hidden": rel(h.grad, ref_gh),
                    "rel_err_grad_weight": rel(w.grad, ref_gw), "rel_err_grad_bias": rel(b.grad, ref_gb)}
            if eg is not None and name != "eager":
                errs.update({"vs_eager_grad_hidden": rel(h.grad, eg[0]), "vs_eager_grad_weight": rel(w.grad, eg[1]),
                             "vs_eager_grad_bias": rel(b.grad, eg[2])})
            return errs

        r = bench.measure(f"fwd+bwd {name}", step, check, grad_to_none=[h, w, b])
        shape["fwd_bwd"][name] = r
        if r["status"] == "ok":
            flag("fwd_bwd", name, r)
        del h, w, b
        save()

    result["elapsed_s"] = bench.elapsed()
    save()
    table = markdown(result)
    failed = [f"{mode} {k}: {r['status']}" for mode in ("forward", "fwd_bwd") for k, r in shape[mode].items()
              if r.get("status", "ok") not in ("ok", "skipped (budget)")]
    print(f"\nwrote {json_path} and {md_path} ({result['elapsed_s']:.0f} s)")
    if failed:
        print("FAILED:\n  " + "\n  ".join(failed))
    if shape["flags"]:
        print(f"MISMATCHES (vs float64, tolerance {tol:g}):\n  " + "\n  ".join(shape["flags"]))
    print()
    print(table, flush=True)
    hsr_bad = [f for f in shape["flags"] + failed if " hsr" in f]
    return 1 if hsr_bad else 0


if __name__ == "__main__":
    sys.exit(main())

"""What the Chamfer and Splade benchmarks share: a harness that times a call
(triton.testing.do_bench medians), takes its peak memory, checks it, keeps to a
time budget and survives a failing variant; and the device-copy ceiling."""

from __future__ import annotations

import contextlib
import statistics
import time

DEVICE = "cuda"
COPY_NUMEL = 1 << 28  # fp32 elements (1 GiB)


def _clear_grads(tensors):
    for t in tensors or ():
        t.grad = None


def _status(torch, e):
    if isinstance(e, torch.cuda.OutOfMemoryError) or "out of memory" in str(e).lower():
        return f"OOM: {' '.join(str(e).split())[:200]}"
    return f"error: {type(e).__name__}: {' '.join(str(e).split())[:300]}"


class Harness:
    """Budgeted, checked, median-of-runs timing with peak memory, and the copy
    ceiling; each script adds its own compute ceiling."""

    label_width = 28  # of the variant's name in the printed line

    def __init__(self, args):
        import torch
        import triton
        import triton.testing

        self.torch, self.triton = torch, triton
        self.args = args
        self.t0 = time.monotonic()
        self.dtype = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}[args.dtype]
        self.warmup_ms, self.rep_ms = (10, 30) if args.quick else (25, 150)
        self.repeats = 1 if args.quick else 2
        self.notes = []
        # fp32: eager, the GEMMs and the ceilings are IEEE fp32, as hsr's dot is.
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False

    def elapsed(self):
        return time.monotonic() - self.t0

    def over_budget(self, what):
        if self.elapsed() > self.args.budget_s:
            msg = f"skipped {what}: past the {self.args.budget_s:.0f} s budget"
            print("  " + msg, flush=True)
            self.notes.append(msg)
            return True
        return False

    def sync_and_free(self):
        torch = self.torch
        try:
            torch.cuda.synchronize()
            torch.cuda.empty_cache()
        except Exception as e:  # noqa: BLE001 - a broken context shows in the next call too
            print(f"  after a failure: {type(e).__name__}: {str(e)[:200]}", flush=True)

    def time_fn(self, fn, grad_to_none=None):
        """Median ms over `repeats` do_bench calls (each itself a median); all runs kept."""
        torch = self.torch
        for _ in range(2):  # warm-up: compilation and autotuning happen here
            fn()
            _clear_grads(grad_to_none)
        torch.cuda.synchronize()
        runs = [self.triton.testing.do_bench(fn, warmup=self.warmup_ms, rep=self.rep_ms, grad_to_none=grad_to_none,
                                             return_mode="median")
                for _ in range(self.repeats)]
        _clear_grads(grad_to_none)
        return statistics.median(runs), runs

    def peak_gib(self, fn, grad_to_none=None):
        """Peak memory of one call beyond what was allocated before it (inputs, references), GiB."""
        torch = self.torch
        _clear_grads(grad_to_none)
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        out = fn()
        torch.cuda.synchronize()
        peak = torch.cuda.max_memory_allocated() - before
        del out
        _clear_grads(grad_to_none)
        return peak / 2**30

    def guarded(self, label, thunk):
        """thunk() or None; a failure prints a FAILED line and becomes a status string."""
        try:
            return thunk(), "ok"
        except Exception as e:  # noqa: BLE001 - one failure must not end the run
            status = _status(self.torch, e)
            print(f"  FAILED {label}: {status}", flush=True)
            self.sync_and_free()
            return None, status

    def measure(self, label, call, check, grad_to_none=None, no_grad=False):
        """One variant: a checked call, its peak memory, its timing. Returns the record."""
        if self.over_budget(label):
            return {"status": "skipped (budget)"}
        torch = self.torch

        def go():
            with torch.no_grad() if no_grad else contextlib.nullcontext():
                _clear_grads(grad_to_none)
                out = call()  # first call: compilation, autotuning
                torch.cuda.synchronize()
                errs = check(out)
                del out
                _clear_grads(grad_to_none)
                peak = self.peak_gib(call, grad_to_none)
                ms, runs = self.time_fn(call, grad_to_none)
            return {"status": "ok", "ms": ms, "runs_ms": runs, "peak_gib": peak, **errs}

        rec, status = self.guarded(label, go)
        _clear_grads(grad_to_none)
        torch.cuda.empty_cache()
        if rec is None:
            return {"status": status}
        errs = " ".join(f"{k.replace('rel_err_', '')} {v:.1e}" for k, v in rec.items()
                        if k.startswith("rel_err_") and v is not None)
        print(f"  {label:{self.label_width}s} {rec['ms']:9.4f} ms  peak {rec['peak_gib']:7.3f} GiB  rel err {errs or '-'}",
              flush=True)
        return rec

    # ---- ceilings

    def copy_ceiling(self):
        torch = self.torch
        src = torch.randn(COPY_NUMEL, device=DEVICE)
        dst = torch.empty_like(src)
        ms, runs = self.time_fn(lambda: dst.copy_(src))
        ok = torch.equal(dst[:1024], src[:1024]) and torch.equal(dst[-1024:], src[-1024:])
        moved = 2 * src.numel() * src.element_size()
        del src, dst
        torch.cuda.empty_cache()
        return {"what": f"Tensor.copy_ of {COPY_NUMEL * 4 / 2**30:g} GiB, device to device", "bytes_moved": moved,
                "ms": ms, "runs_ms": runs, "tb_per_s": moved / (ms * 1e-3) / 1e12, "checked": bool(ok)}

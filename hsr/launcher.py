"""Launching a Triton kernel again without Triton's per-call binding.

`kernel[grid](*args)` specialises every argument, builds and hashes a cache
key and checks the kernel's globals on each call: about 15 us a launch on the
GPU machines' hosts, which is most of a small shape's host time (a ColBERT
B=128 training step has two hsr launches, the textual forward one).

`launch(kernel, grid, *args, **kwargs)` keeps, for each *launch key*, the
compiled kernel that Triton returned the first time, and calls its launcher
directly after that. The launch key is finer than Triton's specialisation:
every int argument's value, every tensor's dtype and 16-byte alignment, the
constexpr and option keyword arguments, and the current device. So a key seen
before names the very kernel Triton would pick. Anything it cannot key (a
tensor descriptor, a keyword tensor), launch hooks (profilers), and the
interpreter take Triton's own path.
"""

from __future__ import annotations

import contextlib
import threading

import torch
import triton

from .basics import interpreting

MAX_KEPT = 4096  # launch keys kept before the table starts again (shapes that never repeat)

_kept: dict = {}
_caps: dict = {}  # launch key -> the register cap its launches take (0: none), decided at its first launch
_recorder = None  # hsr.kept's recorder of the call in progress, if any
_warming = None  # the thread of warm_triton, until a launch waits for it
_warmed = False


def warm_triton() -> None:
    """Ready Triton's own first-launch work in a thread: its CUDA driver (a C helper that
    the host's compiler builds where Triton's cache is empty) and its cache key (a hash of
    Triton's files), about 0.7 s of a fresh process's first launch (bench/NOTES.md, first
    results). Both wait on a child process or on hashing that releases the GIL, so they
    overlap hsr.compile's parsing and rendering; the next launch waits for the thread."""
    global _warming, _warmed
    if _warmed or interpreting() or not torch.cuda.is_available():
        return
    _warmed = True

    def work():  # Triton's internals: where they moved, the launch does the work itself
        with contextlib.suppress(Exception):
            from triton.runtime.driver import driver
            driver.active.get_current_device()
        with contextlib.suppress(Exception):
            from triton.runtime.cache import triton_key
            triton_key()
    _warming = threading.Thread(target=work, name="hsr-warm-triton", daemon=True)
    _warming.start()


def _wait_for_warming() -> None:
    global _warming
    thread, _warming = _warming, None
    if thread is not None:
        thread.join()


def launch(kernel, grid, /, *args, **kwargs):
    """kernel[grid](*args, **kwargs), reusing the compiled kernel of an earlier
    launch with the same launch key. grid: a tuple, or a callable of the
    keyword arguments (Triton passes it every argument; hsr's grids read only
    block sizes, which are keyword constexprs). While hsr.kept records a call,
    Triton's own launch runs and the recorder is told."""
    if _warming is not None:  # (warm_triton's Triton state is ready before a launch reads it)
        _wait_for_warming()
    reg_cap = kwargs.pop("reg_cap", None)  # (dispatch.register_cap: a hint, not a kernel argument)
    if reg_cap is not None and not interpreting():
        kwargs = _capped(kernel, grid, args, kwargs, *reg_cap)
    recorder = _recorder
    if recorder is not None and not recorder.paused:
        recorder.paused += 1  # Triton's work (the interpreter's copies) is not the call's
        try:
            compiled = kernel[grid](*args, **kwargs)
        finally:
            recorder.paused -= 1
        recorder.launched(kernel, grid, args, kwargs, compiled if not interpreting() else None)
        return compiled
    if interpreting() or hooked():
        return kernel[grid](*args, **kwargs)
    arg_key = _arg_key(args)
    if arg_key is None:
        return kernel[grid](*args, **kwargs)
    device = current_device()
    key = (kernel, device, arg_key, tuple(kwargs.items()))
    try:
        kept = _kept.get(key)
    except TypeError:  # an unhashable keyword value
        return kernel[grid](*args, **kwargs)
    if kept is None:
        compiled = kernel[grid](*args, **kwargs)
        tail = tail_of(kernel, len(args), kwargs)
        if tail is not None and compiled is not None and _grid_reads_keywords(grid, kwargs):
            if len(_kept) >= MAX_KEPT:
                _kept.clear()
            _kept[key] = (compiled, tail)
        return compiled
    compiled, tail = kept
    if callable(grid):
        grid = grid(kwargs)
    stream = torch._C._cuda_getCurrentRawStream(device)
    compiled.run(grid[0], grid[1] if len(grid) > 1 else 1, grid[2] if len(grid) > 2 else 1, stream,
                 compiled.function, compiled.packed_metadata, None, None, None, *args, *tail)
    return compiled


def _arg_key(args):
    """Each positional argument as it decides Triton's specialisation (ints by
    value), or None for one that this module does not key."""
    key = []
    for a in args:
        kind = a.__class__
        if kind is int or a is None:
            key.append(a)
        elif isinstance(a, torch.Tensor):
            key.append((a.dtype, a.data_ptr() % 16 == 0))
        elif kind is float:
            key.append(float)
        elif kind is bool:
            key.append((bool, a))
        elif kind.__name__ == "TensorDescriptor":  # host TMA: the base's dtype and alignment, the box
            key.append((kind, a.base.dtype, a.base.data_ptr() % 16 == 0, tuple(a.shape), tuple(a.strides),
                        tuple(a.block_shape), getattr(a, "padding", None)))
        else:
            return None
    return tuple(key)


def _capped(kernel, grid, args, kwargs: dict, cap: int, slack: int) -> dict:
    """kwargs with maxnreg = cap where the kernel, compiled without it, holds more than cap registers a
    thread but at most cap + slack, and compiled with it spills none (so that one more program fits a
    multiprocessor at no cost: dispatch.register_cap); else kwargs. Decided once a launch key, from
    Triton's compiled kernels (warmup compiles without launching)."""
    arg_key = _arg_key(args)
    if arg_key is None:
        return kwargs
    key = (kernel, current_device(), arg_key, tuple(kwargs.items()))
    try:
        decided = _caps.get(key)
    except TypeError:  # an unhashable keyword value
        return kwargs
    if decided is None:
        decided = 0
        try:
            free = kernel.warmup(*args, grid=grid, **kwargs)
            if cap < _registers(free)[0] <= cap + slack:
                regs, spills = _registers(kernel.warmup(*args, grid=grid, **kwargs, maxnreg=cap))
                decided = cap if 0 < regs <= cap and spills == 0 else 0
        except Exception:  # noqa: BLE001 - no cap; the launch itself raises what Triton raises
            decided = 0
        _caps[key] = decided
    return {**kwargs, "maxnreg": decided} if decided else kwargs


def _registers(compiled) -> tuple[int, int]:
    """(registers a thread, spilled registers) of a compiled kernel; (0, 0) where Triton does not say."""
    with contextlib.suppress(Exception):
        compiled._init_handles()  # (Triton reads them when it loads the kernel)
    regs, spills = getattr(compiled, "n_regs", None), getattr(compiled, "n_spills", None)
    return (regs, spills) if isinstance(regs, int) and isinstance(spills, int) else (0, 0)


def tail_of(kernel, n_args: int, kwargs: dict):
    """The kernel's parameters past the positional ones, in order (keyword
    values or defaults): Triton's launcher takes every parameter, constexprs
    included. None where one is a tensor or missing (such launches are not kept)."""
    params = list(getattr(kernel, "signature", None).parameters.values()) if hasattr(kernel, "signature") else None
    if params is None:
        return None
    tail = []
    for p in params[n_args:]:
        if p.name in kwargs:
            value = kwargs[p.name]
        elif p.default is not p.empty:
            value = p.default
        else:
            return None
        if isinstance(value, torch.Tensor):
            return None
        tail.append(value)
    return tuple(tail)


def _grid_reads_keywords(grid, kwargs) -> bool:
    """A callable grid can be given the keyword arguments alone (as kept launches do)."""
    if not callable(grid):
        return True
    try:
        grid(kwargs)
    except (KeyError, TypeError):
        return False
    return True


def hooked() -> bool:
    """Launch hooks are set (a profiler such as proton): Triton's path calls them."""
    knobs = triton.knobs.runtime
    for hook in (knobs.launch_enter_hook, knobs.launch_exit_hook):
        if hook is not None and getattr(hook, "calls", True):
            return True
    return False


# torch.cuda.current_device() less its lazy initialisation (a launch has CUDA tensors: it is done);
# a CPU build of torch has no _cuda_getDevice
current_device = getattr(torch._C, "_cuda_getDevice", None) or torch.cuda.current_device


def current_stream(device=None):
    """The current CUDA stream's raw handle, as a compiled kernel's launcher takes it."""
    return torch._C._cuda_getCurrentRawStream(current_device() if device is None else device)


def recording():
    """hsr.kept's recorder of the call in progress, or None."""
    return _recorder


@contextlib.contextmanager
def recording_into(recorder):
    """Tell `recorder` of every launch in this block."""
    global _recorder
    _recorder = recorder
    try:
        yield recorder
    finally:
        _recorder = None


@contextlib.contextmanager
def pause_recording():
    """A block whose launches and torch ops are not the call's (tuning's trial runs)."""
    recorder = _recorder
    if recorder is not None:
        recorder.paused += 1
    try:
        yield
    finally:
        if recorder is not None:
            recorder.paused -= 1


def forget() -> None:
    """Drop every kept launch (tests; a kernel recompiled under the same key).
    Kept calls hold compiled kernels too: hsr.kept.forget(launches=True) drops both.
    The register caps decided (_capped) go too."""
    _kept.clear()
    _caps.clear()

"""hsr.launcher: which launches reuse a kept compiled kernel, and with what arguments.

A fake kernel stands in for Triton's JIT function (its `[grid](...)` is the
slow path, its compiled kernel's `run` the fast one), so these run anywhere;
tests/test_gpu.py launches real kernels through both paths."""

from __future__ import annotations

import inspect

import pytest
import torch

from hsr import kept, launcher


class FakeCompiled:
    function, packed_metadata = "fn", "meta"

    def __init__(self, log):
        self.log = log

    def run(self, *args):
        self.log.append(("fast", args))


class FakeKernel:
    """Triton's JITFunction as hsr.launcher sees it: a signature and [grid](...)."""

    def __init__(self, fn):
        self.signature = inspect.signature(fn)
        self.log = []
        self.compiled = FakeCompiled(self.log)

    def __getitem__(self, grid):
        def run(*args, **kwargs):
            self.log.append(("slow", grid, args, kwargs))
            return self.compiled
        return run


def _kernel(x_ptr, y_ptr, n, scale, BLOCK=16, FLAG=False):  # noqa: N803 - Triton's constexpr names
    pass


@pytest.fixture
def on_gpu(monkeypatch):
    """launch() as on a GPU: not interpreting, device 0, stream 7, no kept launches."""
    monkeypatch.setattr(launcher, "interpreting", lambda: False)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(launcher, "current_device", lambda: 0)
    monkeypatch.setattr(torch._C, "_cuda_getCurrentRawStream", lambda device: 7, raising=False)
    kept.forget(launches=True)
    yield
    kept.forget(launches=True)


def _paths(kernel):
    return [entry[0] for entry in kernel.log]


def test_second_launch_is_direct_with_every_parameter_in_order(on_gpu):
    k = FakeKernel(_kernel)
    x, y = torch.zeros(64), torch.zeros(64)
    launcher.launch(k, (3, 2), x, y, 10, 0.5, FLAG=True, num_warps=4)
    launcher.launch(k, (3, 2), x, y, 10, 0.25, FLAG=True, num_warps=4)
    assert _paths(k) == ["slow", "fast"]
    assert k.log[0][3] == {"FLAG": True, "num_warps": 4}  # the slow path gets the call as given
    # grid (3, 2, 1), stream 7, function, metadata, no launch metadata or hooks, then every
    # parameter: the positional ones, then BLOCK's default and FLAG (num_warps is an option)
    assert k.log[1][1] == (3, 2, 1, 7, "fn", "meta", None, None, None, x, y, 10, 0.25, 16, True)


def test_a_different_key_takes_tritons_path(on_gpu):
    k = FakeKernel(_kernel)
    x, y = torch.zeros(64), torch.zeros(64)
    launcher.launch(k, (1,), x, y, 10, 1.0)
    launcher.launch(k, (1,), x, y, 11, 1.0)  # an int's value
    launcher.launch(k, (1,), x.half(), y, 10, 1.0)  # a dtype
    launcher.launch(k, (1,), x[1:], y, 10, 1.0)  # 4 bytes off 16-byte alignment
    launcher.launch(k, (1,), x, y, 10, 1.0, BLOCK=32)  # a constexpr
    launcher.launch(k, (1,), x, y, 10, 1.0, num_warps=8)  # an option
    assert _paths(k) == ["slow"] * 6
    launcher.launch(k, (1,), x[1:], y, 10, 1.0)
    launcher.launch(k, (1,), x, y, 11, 1.0)
    assert _paths(k)[6:] == ["fast", "fast"]


def test_a_callable_grid_gets_the_keyword_arguments(on_gpu):
    k = FakeKernel(_kernel)
    x = torch.zeros(8)

    def grid(meta):
        return (100 // meta["BLOCK"],)
    launcher.launch(k, grid, x, x, 1, 1.0, BLOCK=25)
    launcher.launch(k, grid, x, x, 1, 1.0, BLOCK=25)
    assert _paths(k) == ["slow", "fast"] and k.log[1][1][:3] == (4, 1, 1)


def test_a_grid_that_reads_positional_names_is_not_kept(on_gpu):
    k = FakeKernel(_kernel)
    x = torch.zeros(8)

    def grid(meta):
        return (meta["n"],)
    for _ in range(2):
        launcher.launch(k, grid, x, x, 5, 1.0)
    assert _paths(k) == ["slow", "slow"]


def test_what_it_cannot_key_takes_tritons_path(on_gpu):
    k = FakeKernel(_kernel)
    x = torch.zeros(8)
    for _ in range(2):
        launcher.launch(k, (1,), x, object(), 5, 1.0)  # an argument of another kind (a descriptor)
        launcher.launch(k, (1,), x, x, 5, 1.0, FLAG=x)  # a keyword tensor
        launcher.launch(k, (1,), x, x, 5, 1.0, FLAG=[1])  # an unhashable keyword
    assert _paths(k) == ["slow"] * 6


def test_launch_hooks_and_the_interpreter_take_tritons_path(on_gpu, monkeypatch):
    import triton
    k = FakeKernel(_kernel)
    x = torch.zeros(8)
    launcher.launch(k, (1,), x, x, 5, 1.0)
    chain = triton.knobs.runtime.launch_enter_hook
    if hasattr(chain, "add"):  # Triton 3.6 and 3.9: a chain of hooks
        chain.add(print)
        try:
            launcher.launch(k, (1,), x, x, 5, 1.0)
        finally:
            chain.remove(print)
    else:
        monkeypatch.setattr(triton.knobs.runtime, "launch_enter_hook", print)
        launcher.launch(k, (1,), x, x, 5, 1.0)
        monkeypatch.setattr(triton.knobs.runtime, "launch_enter_hook", chain)
    monkeypatch.setattr(launcher, "interpreting", lambda: True)
    launcher.launch(k, (1,), x, x, 5, 1.0)
    assert _paths(k) == ["slow"] * 3


def test_the_table_starts_again_when_full(on_gpu, monkeypatch):
    monkeypatch.setattr(launcher, "MAX_KEPT", 2)
    k = FakeKernel(_kernel)
    x = torch.zeros(8)
    for n in (1, 2, 3, 1):
        launcher.launch(k, (1,), x, x, n, 1.0)
    assert _paths(k) == ["slow"] * 4  # n=1 was dropped when n=3 came
    launcher.launch(k, (1,), x, x, 3, 1.0)
    assert _paths(k)[-1] == "fast"


def test_tritons_first_launch_work_runs_in_a_thread_that_the_launch_waits_for(on_gpu, monkeypatch):
    """warm_triton: on a CUDA machine, once a process, a thread readies Triton's cache key and
    driver while hsr.compile works; the next launch joins it before Triton runs."""
    import sys
    import threading

    import triton.runtime.cache

    started, release = [], threading.Event()

    def slow_key():
        started.append(threading.current_thread().name)
        release.wait(5)
    monkeypatch.setattr(launcher, "_warmed", False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(triton.runtime.cache, "triton_key", slow_key)

    class Driver:  # Triton's driver object, readied first
        @property
        def active(self):
            started.append("driver")
            return self

        def get_current_device(self):
            return 0
    monkeypatch.setattr(sys.modules["triton.runtime.driver"], "driver", Driver())
    launcher.warm_triton()
    launcher.warm_triton()  # once a process
    thread = launcher._warming
    assert thread is not None and thread.daemon
    kernel = FakeKernel(_kernel)
    threading.Timer(0.2, release.set).start()
    launcher.launch(kernel, (1,), torch.zeros(4), torch.zeros(4), 4, 1.0)
    assert started == ["driver", "hsr-warm-triton"] and not thread.is_alive() and launcher._warming is None
    assert _paths(kernel) == ["slow"]
    monkeypatch.setattr(launcher, "_warmed", False)
    monkeypatch.setattr(launcher, "interpreting", lambda: True)
    launcher.warm_triton()  # the interpreter: nothing to ready
    assert launcher._warming is None


class CappedKernel(FakeKernel):
    """A kernel whose compiled form holds `free` registers a thread, and `capped` (with its spills)
    compiled under maxnreg: Triton's warmup as hsr.launcher reads it."""

    def __init__(self, fn, free, capped, spills):
        super().__init__(fn)
        self.free, self.capped, self.spills, self.warmups = free, capped, spills, []

    def warmup(self, *args, grid, **kwargs):
        self.warmups.append(kwargs.get("maxnreg"))
        compiled = FakeCompiled(self.log)
        capped = "maxnreg" in kwargs
        compiled.n_regs, compiled.n_spills = (self.capped, self.spills) if capped else (self.free, 0)
        return compiled


@pytest.mark.parametrize("free, capped, spills, takes", [(136, 126, 0, True), (144, 128, 0, True),
                                                         (231, 128, 34, False), (152, 128, 0, False),
                                                         (120, 120, 0, False), (136, 128, 2, False)])
def test_a_register_hint_caps_a_kernel_just_past_the_cap_that_spills_nothing(on_gpu, free, capped, spills, takes):
    """dispatch.register_cap's hint (reg_cap = (cap, slack)): the launch takes maxnreg = cap where
    the kernel compiled without it holds more than cap registers but at most cap + slack, and
    compiled with it spills none; else the kernel as Triton allocates it. The hint never reaches
    the kernel, and the decision is made once a launch key."""
    k = CappedKernel(_kernel, free, capped, spills)
    x, y = torch.zeros(64), torch.zeros(64)
    for _ in range(2):
        launcher.launch(k, (3,), x, y, 10, 0.5, num_warps=8, reg_cap=(128, 16))
    slow = [entry for entry in k.log if entry[0] == "slow"]
    assert slow[0][3] == ({"num_warps": 8, "maxnreg": 128} if takes else {"num_warps": 8})
    assert k.warmups == ([None, 128] if 128 < free <= 144 else [None])  # once: the second launch is kept
    assert _paths(k) == ["slow", "fast"]


def test_the_interpreter_drops_the_register_hint(on_gpu, monkeypatch):
    monkeypatch.setattr(launcher, "interpreting", lambda: True)
    k = CappedKernel(_kernel, 136, 126, 0)
    launcher.launch(k, (3,), torch.zeros(4), torch.zeros(4), 10, 0.5, reg_cap=(128, 16))
    assert k.warmups == [] and k.log[0][3] == {}


def test_a_kernel_whose_warmup_fails_takes_no_cap(on_gpu):
    """A warmup that raises (out of shared memory, say) decides no cap, and the launch goes
    on as Triton's own: where it fails, the caller (the autotuner's trial, a call) sees
    Triton's error from the launch, not the cap's."""
    k = CappedKernel(_kernel, 136, 126, 0)

    def broken(*args, grid, **kwargs):
        raise RuntimeError("out of resources")
    k.warmup = broken
    launcher.launch(k, (3,), torch.zeros(4), torch.zeros(4), 10, 0.5, num_warps=8, reg_cap=(128, 16))
    assert k.log[0][3] == {"num_warps": 8}

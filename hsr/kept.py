"""Calls kept by signature: a repeated call replays its allocations and launches.

A call's signature is what its host path reads: every argument's shape,
strides, dtype, device, 16-byte alignment and requires_grad, the keyword names,
the flags, the grad mode and the current CUDA device. Everything that path
derives from it (axis sizes, checks, dispatch rules, blocks, the tuned config,
grids, compiled kernels) is then fixed. So the first call of a signature runs
the path as written while a recorder watches it: every torch op (through a
TorchFunctionMode) and every kernel launch (hsr.launcher). Where the path did
nothing but allocate, view, fill and launch, later calls of that signature
replay those steps and nothing else: a dictionary lookup, the allocations and
the launches. A path that did anything else (a copy, arithmetic, a reference
evaluation) runs as written for that signature.

The HSR_* switches are read by the path as written, so a kept call keeps what
they said when it was recorded: after changing one in a running process, call
forget().
"""

from __future__ import annotations

import dataclasses

import torch
from torch.overrides import TorchFunctionMode

from . import launcher

MAX_KEPT = 1024  # signatures kept per table before it starts again

_tables: list = []
PLAIN = object()  # a signature whose path is not a replay: run it as written

T = torch.Tensor
# factory -> its fill: None (left empty), a constant, or ("arg", position) / ("kw", name)
_FACTORIES = {
    torch.empty: None, torch.empty_like: None, T.new_empty: None, torch.empty_strided: None,
    torch.zeros: 0, T.new_zeros: 0, torch.zeros_like: 0, torch.ones: 1, T.new_ones: 1,
    torch.full: ("arg", 1), T.new_full: ("arg", 2), torch.full_like: ("arg", 1),
}
_FILLS = {T.fill_: 1, T.zero_: None}
# functions of a tensor that return it, a view of it or a copy, and write nothing: a copy
# is a tensor the replay cannot name, so a launch that reads one is not kept
_VIEWS = {T.view, T.view_as, T.reshape, T.permute, T.unsqueeze, T.squeeze, T.expand, T.t, T.transpose,
          T.as_strided, T.select, T.__getitem__, T.detach, T.contiguous, T.to, T.float, T.flatten, T.unflatten}
# what only reads a tensor's metadata (and every property getter, "__get__")
_METADATA = {T.stride, T.size, T.dim, T.ndimension, T.numel, T.nelement, T.data_ptr, T.element_size,
             T.is_contiguous, T.storage_offset, T.get_device, T.is_floating_point, T.__len__}


class Table:
    """One entry point's kept calls: signature -> Replay, or PLAIN."""

    def __init__(self):
        self.entries: dict = {}
        _tables.append(self)

    def get(self, key):
        return self.entries.get(key) if key is not None else PLAIN

    def put(self, key, value) -> None:
        if len(self.entries) >= MAX_KEPT:
            self.entries.clear()
        self.entries[key] = value


def forget() -> None:
    """Drop every kept call (after changing an HSR_* switch, or a tuned config)."""
    for table in _tables:
        table.entries.clear()


def signature(values, *flags):
    """The key of a call on `values` (tensors or None) with `flags`; None where a
    value is neither (such a call runs as written, and raises its own error)."""
    key = list(flags)
    cuda = False
    for v in values:
        if isinstance(v, torch.Tensor):
            key.append((v.shape, v.stride(), v.dtype, v.device, v.data_ptr() & 15, v.requires_grad))
            cuda = cuda or v.is_cuda
        elif v is None:
            key.append(None)
        else:
            return None
    if cuda:  # Triton launches on the current device
        key.append(torch.cuda.current_device())
    key.append(torch.is_grad_enabled())
    return tuple(key)


def call(table: Table, key, inputs, fn, *args, **kwargs):
    """fn(*args, **kwargs), from its replay where `key` has one; else run and
    recorded, its replay kept where it is one. inputs: every tensor the call
    reads, in the order the key lists them (None where absent)."""
    if launcher.recording() is not None:  # inside another call's recording: part of it
        return fn(*args, **kwargs)
    kept = table.get(key)
    if kept is PLAIN:
        return fn(*args, **kwargs)
    if kept is not None and not launcher.hooked():
        return kept(inputs)
    recorder = _Recorder()
    with launcher.recording_into(recorder), recorder:
        result = fn(*args, **kwargs)
    replay = recorder.replay(inputs, result)
    if replay is not None:
        table.put(key, replay if isinstance(replay, Replay) else PLAIN)
    return result


class _Recorder(TorchFunctionMode):
    """Watches one call: the torch functions it runs and the kernels it launches,
    in order. (A TorchFunctionMode, not a TorchDispatchMode: entering the latter
    imports torch's compiler stack, seconds on a first call.)"""

    def __init__(self):
        super().__init__()
        self.steps: list = []
        self.paused = 0
        self.device = torch.cuda.current_device() if torch.cuda.is_initialized() else None

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if not self.paused and func not in _METADATA and getattr(func, "__name__", "") != "__get__":
            self.steps.append(("op", func, args, kwargs, out))
        return out

    def launched(self, kernel, grid, args, kwargs, compiled) -> None:
        if compiled is not None and torch.cuda.current_device() != self.device:
            self.steps.append(("op", "a launch on another device", (), {}, None))  # a replay launches on one device
        self.steps.append(("launch", kernel, grid, args, kwargs, compiled))

    def replay(self, inputs, result):
        """The Replay of what was recorded; PLAIN's reason (a str) where the path
        did more than allocate, view, fill and launch; None where this call cannot
        tell (inputs sharing memory): record again next time."""
        try:
            return _Builder(inputs).build(self.steps, result)
        except _Ambiguous:
            return None
        finally:
            self.steps = []


class _Unkept(Exception):
    pass


class _Builder:
    """Turns a recorded call into a Replay: each tensor the launches and the
    result use is an input (by position) or an allocation (by order)."""

    def __init__(self, inputs):
        self.n_inputs, self.inputs = len(inputs), inputs
        self.allocs: list = []  # (shape, stride, dtype, device, fill)
        self.by_id: dict = {}
        self.by_ptr: dict = {}
        for slot, x in enumerate(inputs):
            if isinstance(x, torch.Tensor):
                self.by_id[id(x)] = (slot, x)
                if x.numel():
                    if x.data_ptr() in self.by_ptr and self.by_ptr[x.data_ptr()] != slot:
                        raise _Ambiguous
                    self.by_ptr[x.data_ptr()] = slot

    def build(self, steps, result):
        try:
            program = [self._step(step) for step in steps]
            spec = self._result(result)
        except _Unkept as why:
            return str(why)
        return Replay(self.n_inputs, self.allocs, [p for p in program if p is not None], spec)

    def _step(self, step):
        if step[0] == "launch":
            _, kernel, grid, args, kwargs, compiled = step
            if callable(grid):
                grid = grid(kwargs)
            tail = launcher.tail_of(kernel, len(args), kwargs) if compiled is not None else None
            return ("launch", kernel, tuple(grid), [self._arg(a) for a in args], kwargs, compiled, tail)
        _, func, args, kwargs, out = step
        if "out" in kwargs:
            raise _Unkept(f"the path writes into a tensor with {_name(func)}")
        if func in _FACTORIES:
            where = _FACTORIES[func]
            fill = (args[where[1]] if len(args) > where[1] else kwargs["fill_value"]) if isinstance(where, tuple) else where
            slot = self.n_inputs + len(self.allocs)
            self.allocs.append((tuple(out.shape), tuple(out.stride()), out.dtype, out.device, fill))
            self.by_id[id(out)] = (slot, out)
            if out.numel():
                self.by_ptr[out.data_ptr()] = slot
            return None
        if func in _FILLS:
            slot = self._slot(args[0])
            if slot < self.n_inputs:
                raise _Unkept(f"{_name(func)} writes an input")
            where = _FILLS[func]
            return ("fill", slot, 0 if where is None else args[where])
        if func in _VIEWS:
            return None  # a view is found again by its address; a copy is found nowhere
        raise _Unkept(f"the path runs {_name(func)}")

    def _slot(self, x) -> int:
        known = self.by_id.get(id(x))
        if known is not None and known[1] is x:
            return known[0]
        slot = self.by_ptr.get(x.data_ptr()) if x.numel() else None
        if slot is None:
            raise _Unkept("a launch reads a tensor that is neither an input nor allocated by the call")
        return slot

    def _arg(self, a):
        if isinstance(a, torch.Tensor):
            if not a.numel() and id(a) not in self.by_id:
                return ("const", a)  # empty: its address is never read
            slot = self._slot(a)
            held = self._tensor(slot)
            same = (a.dtype, tuple(a.shape), tuple(a.stride())) == (held[2], held[0], held[1])
            return ("tensor", slot, None if same else (a.dtype, tuple(a.shape), tuple(a.stride())))
        if _is_descriptor(a):
            return ("desc", self._slot(a.base), a)
        if a is None or isinstance(a, (int, float, bool, str)):
            return ("const", a)
        raise _Unkept(f"a launch takes a {type(a).__name__}")

    def _tensor(self, slot):
        """(shape, stride, dtype) of a slot."""
        if slot >= self.n_inputs:
            return self.allocs[slot - self.n_inputs][:3]
        x = self.inputs[slot]
        return tuple(x.shape), tuple(x.stride()), x.dtype

    def _result(self, r):
        if isinstance(r, torch.Tensor):
            if r.requires_grad or r.grad_fn is not None:
                raise _Unkept("the result carries autograd")
            slot = self._slot(r)
            base = self.allocs[slot - self.n_inputs] if slot >= self.n_inputs else None
            if base is not None and (tuple(r.shape), tuple(r.stride()), r.dtype) == base[:3]:
                return ("tensor", slot)
            raise _Unkept("the result is a view")
        if isinstance(r, (tuple, list)):
            return (type(r), [self._result(x) for x in r])
        if r is None or isinstance(r, (int, float, bool)):
            return ("const", r)
        raise _Unkept(f"the result holds a {type(r).__name__}")


class _Ambiguous(Exception):
    pass


def _name(func) -> str:
    return getattr(func, "__qualname__", None) or str(func)


def _is_descriptor(a) -> bool:
    return type(a).__name__ == "TensorDescriptor" and dataclasses.is_dataclass(a)


class Replay:
    """A recorded call's steps: allocate, fill, launch; then its result."""

    def __init__(self, n_inputs, allocs, program, result):
        self.n_inputs, self.result = n_inputs, result
        # (shape, dtype, device, fill) where contiguous (torch.empty), else with the strides
        self.allocs = [(shape, dtype, device, fill, None if stride == _contiguous(shape) else stride)
                       for shape, stride, dtype, device, fill in allocs]
        self.program = [step if step[0] == "fill" else _Launch(*step[1:]) for step in program]

    def __call__(self, inputs):
        slots = list(inputs)
        for shape, dtype, device, fill, stride in self.allocs:
            x = torch.empty(shape, dtype=dtype, device=device) if stride is None \
                else torch.empty_strided(shape, stride, dtype=dtype, device=device)
            slots.append(x if fill is None else x.fill_(fill))
        stream = None
        for step in self.program:
            if step.__class__ is tuple:  # ("fill", slot, value)
                slots[step[1]].fill_(step[2])
                continue
            if step.compiled is None:
                step.triton_launch(slots)
                continue
            if stream is None:
                stream = launcher.current_stream()
            step.run(slots, stream)
        return _rebuild(self.result, slots)


class _Launch:
    """One recorded launch: its arguments as a list with the call's tensors put in."""

    def __init__(self, kernel, grid, specs, kwargs, compiled, tail):
        self.kernel, self.grid, self.specs, self.kwargs = kernel, grid, specs, kwargs
        self.compiled = compiled if tail is not None else None
        self.grid3 = tuple(grid) + (1,) * (3 - len(grid))
        self.args = [s[1] if s[0] == "const" else None for s in specs] + list(tail or ())
        self.tensors = [(i, s[1]) for i, s in enumerate(specs) if s[0] == "tensor"]
        self.descriptors = [(i, s[1], s[2]) for i, s in enumerate(specs) if s[0] == "desc"]

    def run(self, slots, stream):
        args = self.args.copy()
        for i, slot in self.tensors:  # a compiled kernel's launcher reads a tensor's address only
            args[i] = slots[slot]
        for i, slot, desc in self.descriptors:
            args[i] = _descriptor_on(desc, slots[slot])
        c = self.compiled
        c.run(*self.grid3, stream, c.function, c.packed_metadata, None, None, None, *args)

    def triton_launch(self, slots):
        """Triton's own launch (the interpreter): each tensor viewed as the recording passed it."""
        self.kernel[self.grid](*[_resolve(s, slots) for s in self.specs], **self.kwargs)


def _contiguous(shape) -> tuple:
    stride, out = 1, []
    for n in reversed(shape):
        out.append(stride)
        stride *= max(n, 1)
    return tuple(reversed(out))


def _descriptor_on(desc, base):
    """The recorded descriptor on this call's tensor (no validation: same signature)."""
    made = object.__new__(type(desc))
    made.__dict__.update(desc.__dict__)
    made.base = base
    return made


def _resolve(spec, slots):
    kind = spec[0]
    if kind == "tensor":
        x = slots[spec[1]]
        if spec[2] is not None:
            dtype, shape, stride = spec[2]
            x = (x if x.dtype == dtype else x.view(dtype)).as_strided(shape, stride)
        return x
    if kind == "desc":
        return _descriptor_on(spec[2], slots[spec[1]])
    return spec[1]


def _rebuild(spec, slots):
    kind = spec[0]
    if kind == "tensor":
        return slots[spec[1]]
    if kind == "const":
        return spec[1]
    return kind(_rebuild(s, slots) for s in spec[1])

"""Calls kept by signature: a repeated call replays its allocations and launches.

A call's signature is what its host path reads: every argument's shape,
strides, dtype, device, 16-byte alignment and requires_grad, the keyword names,
the flags, the grad mode and the current CUDA device. Everything that path
derives from it (axis sizes, checks, dispatch rules, blocks, the tuned config,
grids, compiled kernels) is then fixed. So the first call of a signature runs
the path as written while a recorder watches it: every torch op (through a
TorchFunctionMode) and every kernel launch (hsr.launcher). Later calls of that
signature replay those steps and nothing else: a dictionary lookup, then the
torch functions (allocations, views, a few small ops) and the compiled kernels'
launches, on this call's tensors. What the path computed in Python from the
signature (sizes, rules, blocks, grids) is in the steps' arguments. A path whose
Python read a tensor's values (.item(), a tensor in an `if`), or whose result
carries autograd, runs as written for that signature.

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
# functions that only read a tensor's metadata (and every property getter, "__get__"):
# what they return is fixed by the signature, so they are not steps of the replay
_METADATA = {T.stride, T.size, T.dim, T.ndimension, T.numel, T.nelement, T.data_ptr, T.element_size,
             T.is_contiguous, T.storage_offset, T.get_device, T.is_floating_point, T.is_complex, T.__len__,
             T.__hash__}


# functions whose result is a view of their first argument: a replay needs none whose
# view only a compiled launch reads at the same address (the launch takes the base)
_VIEWS = {T.view, T.reshape, T.unsqueeze, T.squeeze, T.expand, T.flatten, T.view_as, T.expand_as,
          T.transpose, T.permute, T.t, T.detach}
# functions that return their first argument itself where it already has the asked layout or dtype (as the
# signature fixes): a replay runs no step for such a call, and later steps read that argument
_IDENTITY = {T.contiguous, T.to, T.float, T.half, T.bfloat16}
# functions without side effects: a replay drops one whose result nothing reads
_PURE = _VIEWS | {torch.empty, torch.empty_like, T.new_empty, T.__getitem__}


class Table:
    """One entry point's kept calls: signature -> Replay, or PLAIN. autograd: the
    result may carry autograd (a call's tensors, or what its torch functions made
    of them, which a replay runs again under the same grad mode); only for paths
    with no autograd.Function inside."""

    def __init__(self, autograd: bool = False):
        self.entries: dict = {}
        self.autograd = autograd
        _tables.append(self)

    def get(self, key):
        return self.entries.get(key) if key is not None else PLAIN

    def put(self, key, value) -> None:
        if len(self.entries) >= MAX_KEPT:
            self.entries.clear()
        self.entries[key] = value


def forget(launches: bool = False) -> None:
    """Drop every kept call (after changing an HSR_* switch, or a tuned config);
    launches=True drops hsr.launcher's kept launches too (a kernel recompiled
    under the same key)."""
    for table in _tables:
        table.entries.clear()
    if launches:
        launcher.forget()


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
    if cuda:  # Triton launches on the current device; fp32 keys follow the float32 matmul precision
        key.append(launcher.current_device())
        key.append(torch.get_float32_matmul_precision())
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
    replay = recorder.replay(inputs, result, table.autograd)
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
            self.steps.append(("refuse", "a launch on another device"))  # a replay launches on one device
        self.steps.append(("launch", kernel, grid, args, kwargs, compiled))

    def replay(self, inputs, result, autograd=False):
        """The Replay of what was recorded; a str (why not) where it cannot be one;
        None where this call cannot tell (inputs that are one tensor twice)."""
        try:
            return _Builder(inputs, autograd).build(self.steps, result)
        except _Ambiguous:
            return None
        finally:
            self.steps = []


class _Unkept(Exception):
    pass


class _Ambiguous(Exception):
    pass


class _Builder:
    """Turns a recorded call into a Replay: every tensor a step reads or the
    result holds is an input (by position) or the output of an earlier step."""

    def __init__(self, inputs, autograd=False):
        self.n_slots = len(inputs)
        self.autograd = autograd
        self.by_id: dict = {}
        for slot, x in enumerate(inputs):
            if isinstance(x, torch.Tensor):
                if id(x) in self.by_id:
                    raise _Ambiguous
                self.by_id[id(x)] = (slot, x)

    def build(self, steps, result):
        try:
            program = [p for p in (self._step(step) for step in steps) if p is not None]
            spec = self._spec(result, for_result=True)
        except _Unkept as why:
            return str(why)
        return Replay(self.n_slots, _without_idle_views(program, spec), spec)

    def _new_slot(self, x) -> int:
        slot = self.n_slots
        self.n_slots += 1
        self.by_id[id(x)] = (slot, x)
        return slot

    def _step(self, step):
        if step[0] == "refuse":
            raise _Unkept(step[1])
        if step[0] == "launch":
            _, kernel, grid, args, kwargs, compiled = step
            if callable(grid):
                grid = grid(kwargs)
            tail = launcher.tail_of(kernel, len(args), kwargs) if compiled is not None else None
            return _Launch(kernel, tuple(grid), [self._spec(a) for a in args], kwargs, compiled, tail)
        _, func, args, kwargs, out = step
        if func in _IDENTITY and args and out is args[0]:
            return None  # it returned its argument: nothing to run (the signature fixes that it will again)
        arg_specs = [self._spec(a) for a in args]
        kwarg_specs = {k: self._spec(v) for k, v in kwargs.items()}
        if isinstance(out, torch.Tensor):
            outs = [self._new_slot(out)]
        elif isinstance(out, (tuple, list)) and out and all(isinstance(o, torch.Tensor) for o in out):
            outs = [self._new_slot(o) for o in out]
        elif out is None:
            outs = []
        else:  # a Python value out of a tensor's data: the path may branch on it
            raise _Unkept(f"the path reads values with {_name(func)}")
        op = _Op(func, arg_specs, kwarg_specs, outs)
        # a view at its base's address (fixed by the signature: shapes, strides, the view's arguments)
        op.alias = func in _VIEWS and len(outs) == 1 and args and isinstance(args[0], torch.Tensor) \
            and out.data_ptr() == args[0].data_ptr() and arg_specs[0][0] == "slot"
        return op

    def _spec(self, a, for_result=False):
        """How a step's argument (or the result) is found on a replay."""
        if isinstance(a, torch.Tensor):
            known = self.by_id.get(id(a))
            if known is not None and known[1] is a:
                if for_result and not self.autograd and (a.requires_grad or a.grad_fn is not None):
                    raise _Unkept("the result carries autograd")
                return ("slot", known[0])
            if not for_result and not a.numel():
                return ("const", a)  # empty: its address is never read
            raise _Unkept("a step reads a tensor the call neither got nor made")
        if _is_descriptor(a):  # kept without its tensor (a replay puts in the call's)
            return ("desc", self._spec(a.base)[1], _descriptor_on(a, None))
        if isinstance(a, (tuple, list)):
            specs = [self._spec(x, for_result) for x in a]
            if all(s[0] == "const" for s in specs):
                return ("const", a)
            return ("seq", type(a), specs)
        if isinstance(a, dict):
            specs = {k: self._spec(v, for_result) for k, v in a.items()}
            return ("dict", specs)
        if a is None or isinstance(a, (int, float, bool, str, torch.dtype, torch.device, torch.layout,
                                        torch.memory_format, slice, type(Ellipsis))):
            return ("const", a)
        raise _Unkept(f"a step takes a {type(a).__name__}")


def _slots_read(spec, into: set) -> None:
    kind = spec[0]
    if kind == "slot" or kind == "desc":
        into.add(spec[1])
    elif kind == "seq":
        for s in spec[2]:
            _slots_read(s, into)
    elif kind == "dict":
        for s in spec[1].values():
            _slots_read(s, into)


def _reads(step) -> set:
    """The slots a step reads."""
    read: set = set()
    if step.__class__ is _Op:
        if step.flat:
            read.update(slot for _i, slot in step.tensors)
        else:
            for s in (*step.arg_specs, *step.kwarg_specs.values()):
                _slots_read(s, read)
    else:
        for s in step.specs:
            _slots_read(s, read)
    return read


def _without_idle_views(program, result):
    """The program less the steps a replay does not need: a side-effect-free op
    whose result nothing reads, and a view (at its base's address) that only
    compiled launches read, which then take its base: Triton's launcher reads a
    tensor argument's address alone, and the view's strides and dtype are the
    recorded call's, already in the launch's arguments and its compiled kernel.
    Under the interpreter (Triton's own launch reads dtypes) views stay."""
    needed: set = set()
    _slots_read(result, needed)
    returned = set(needed)  # the result's own tensors: made by their steps, whoever else reads them
    kept_steps = []
    for step in reversed(program):
        if step.__class__ is _Op and step.func in _PURE and not needed.intersection(step.outs):
            continue  # nothing reads what it makes
        if step.__class__ is _Op and step.alias and step.flat and step.outs[0] not in returned:
            out = step.outs[0]
            readers = [s for s in kept_steps if out in _reads(s)]
            if readers and all(s.__class__ is _Launch and s.compiled is not None
                               and all(spec[0] != "desc" or spec[1] != out for spec in s.specs) for s in readers):
                base = dict(step.tensors)[0]
                for s in readers:
                    s.tensors = [(i, base if slot == out else slot) for i, slot in s.tensors]
                    s.specs = [("slot", base) if spec == ("slot", out) else spec for spec in s.specs]
                needed.add(base)
                continue
        needed |= _reads(step)
        kept_steps.append(step)
    return kept_steps[::-1]


def _name(func) -> str:
    return getattr(func, "__qualname__", None) or str(func)


def _is_descriptor(a) -> bool:
    return type(a).__name__ == "TensorDescriptor" and dataclasses.is_dataclass(a)


class Replay:
    """A recorded call's steps, run again on a call's tensors; then its result."""

    def __init__(self, n_slots, program, result):
        self.n_slots, self.program, self.result = n_slots, program, result

    def __call__(self, inputs):
        slots = list(inputs)
        slots.extend([None] * (self.n_slots - len(slots)))
        stream = None
        for step in self.program:
            if step.__class__ is _Op:
                step.run(slots)
            elif step.compiled is None:
                step.triton_launch(slots)
            else:
                if stream is None:
                    stream = launcher.current_stream()
                step.run(slots, stream)
        return _resolve(self.result, slots)


class _Op:
    """One recorded torch function: called again with this call's tensors put in."""

    def __init__(self, func, args, kwargs, outs):
        self.func, self.outs = func, outs
        self.flat = all(s[0] in ("const", "slot") for s in args) and all(s[0] == "const" for s in kwargs.values())
        if self.flat:  # the common case: a list with the tensors' places
            self.args = [s[1] if s[0] == "const" else None for s in args]
            self.tensors = [(i, s[1]) for i, s in enumerate(args) if s[0] == "slot"]
            self.kwargs = {k: s[1] for k, s in kwargs.items()}
        else:
            self.arg_specs, self.kwarg_specs = args, kwargs

    def run(self, slots):
        if self.flat:
            args = self.args.copy()
            for i, slot in self.tensors:
                args[i] = slots[slot]
            out = self.func(*args, **self.kwargs)
        else:
            out = self.func(*[_resolve(s, slots) for s in self.arg_specs],
                            **{k: _resolve(s, slots) for k, s in self.kwarg_specs.items()})
        if len(self.outs) == 1:
            slots[self.outs[0]] = out
        else:
            for slot, o in zip(self.outs, out or ()):
                slots[slot] = o


class _Launch:
    """One recorded launch: its arguments as a list with this call's tensors put in."""

    def __init__(self, kernel, grid, specs, kwargs, compiled, tail):
        self.kernel, self.grid, self.specs, self.kwargs = kernel, grid, specs, kwargs
        self.compiled = compiled if tail is not None else None
        self.grid3 = tuple(grid) + (1,) * (3 - len(grid))
        self.args = [s[1] if s[0] == "const" else None for s in specs] + list(tail or ())
        self.tensors = [(i, s[1]) for i, s in enumerate(specs) if s[0] == "slot"]
        self.descriptors = [(i, s[1], s[2]) for i, s in enumerate(specs) if s[0] == "desc"]

    def run(self, slots, stream):
        args = self.args.copy()
        for i, slot in self.tensors:
            args[i] = slots[slot]
        for i, slot, desc in self.descriptors:
            args[i] = _descriptor_on(desc, slots[slot])
        c = self.compiled
        c.run(*self.grid3, stream, c.function, c.packed_metadata, None, None, None, *args)

    def triton_launch(self, slots):
        """Triton's own launch (the interpreter)."""
        self.kernel[self.grid](*[_resolve(s, slots) for s in self.specs], **self.kwargs)


def _descriptor_on(desc, base):
    """The recorded descriptor on this call's tensor (no validation: same signature)."""
    made = object.__new__(type(desc))
    made.__dict__.update(desc.__dict__)
    made.base = base
    return made


def _resolve(spec, slots):
    kind = spec[0]
    if kind == "slot":
        return slots[spec[1]]
    if kind == "const":
        return spec[1]
    if kind == "desc":
        return _descriptor_on(spec[2], slots[spec[1]])
    if kind == "seq":
        return spec[1](_resolve(s, slots) for s in spec[2])
    return {k: _resolve(s, slots) for k, s in spec[1].items()}

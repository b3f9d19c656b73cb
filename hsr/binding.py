"""Binding a call: match arguments to a spec's declared inputs, check their
dtypes and shapes, and bind the axis sizes (packed inputs through hsr.ragged)."""

from __future__ import annotations

import torch

from .errors import TensorError
from .ir import CODE_BITS

KERNEL_FLOAT_DTYPES = (torch.float16, torch.bfloat16, torch.float32)
# What an op's entry points accept: float64 calls run the float64 reference
# evaluator (reference_float64), never the kernels.
CALL_FLOAT_DTYPES = KERNEL_FLOAT_DTYPES + (torch.float64,)
INT_DTYPES = (torch.int32, torch.int64)

# (name, axes, kind, default) for each declared input, in declaration order.
Signature = tuple


def bind(op_name: str, signature: Signature, args: tuple, kwargs: dict,
         float_dtypes=KERNEL_FLOAT_DTYPES, one_float_dtype: bool = True,
         packing: tuple = (), max_seqlen: dict | None = None, check: bool = True,
         defer: bool = False) -> tuple[dict, dict]:
    """Match call arguments to the spec's inputs and bind the axis sizes.

    Returns ({name: tensor or None}, {axis: size}). Raises TensorError naming
    the argument and the spec's axis for anything that does not fit.
    packing: (name, ragged axis, outer axis, offsets) of each packed input (its
    tensor comes without the outer axis); a ragged axis's size is its longest
    sequence, `max_seqlen[axis]` where given (then checked on the device, with no
    host sync), else read from the offsets (one sync for all of them);
    check=False: from max_seqlen alone, the offsets not read (ragged.bind);
    defer: a device check is left owed to the caller's forward (ragged.OWED).
    """
    names = [entry[0] for entry in signature]
    if len(args) > len(names):
        raise TensorError(f"{op_name}: takes {len(names)} inputs ({', '.join(names)}), got {len(args)}")
    given = dict(zip(names, args))
    for key, value in kwargs.items():
        if key not in names:
            raise TensorError(f"{op_name}: unknown input {key!r}; inputs are {', '.join(names)}")
        if key in given:
            raise TensorError(f"{op_name}: input {key!r} given twice")
        given[key] = value
    tensors, sizes, origin = {}, {}, {}
    device, float_dtype, float_name = None, None, None
    packs = {name: (axis, outer, cu) for name, axis, outer, cu in packing}
    totals: dict = {}  # offsets name -> (packed rows, the input that gave them)
    codes = []  # (name, axis, bytes, bits) of each n-bit code input: its last axis holds packed bytes
    for name, axes, kind, default in signature:
        value = given.get(name)
        if value is None:
            if default is None:
                raise TensorError(f"{op_name}: missing input {name!r} [{', '.join(axes)}]")
            tensors[name] = None
            continue
        if not isinstance(value, torch.Tensor):
            raise TensorError(f"{op_name}: input {name!r} must be a torch.Tensor, got {type(value).__name__}")
        _check_dtype(op_name, name, kind, value, float_dtypes)
        if kind == "float":
            if one_float_dtype and float_dtype is not None and value.dtype != float_dtype:
                raise TensorError(f"{op_name}: input {name!r} is {value.dtype} but {float_name!r} is "
                                  f"{float_dtype}; float inputs share one dtype")
            float_dtype, float_name = value.dtype, float_name or name
        packed = packs.get(name)
        held = axes if packed is None else tuple(a for a in axes if a != packed[1])
        if value.dim() != len(held):
            what = "" if packed is None else f", packed: the sequences of {packed[1]!r} one after another"
            raise TensorError(f"{op_name}: input {name!r} must have {len(held)} axes [{', '.join(held)}]{what}, "
                              f"got shape {tuple(value.shape)}")
        where = value.device
        if device is not None and where != device:
            raise TensorError(f"{op_name}: input {name!r} is on {where}, earlier inputs on {device}")
        device = where
        if kind == "offsets":
            if value.shape[0] < 1:
                raise TensorError(f"{op_name}: offsets {name!r} [{axes[0]}] need N + 1 entries for N sequences, got none")
            shape = (value.shape[0] - 1,)
        else:
            shape = value.shape
        for dim, (axis, size) in enumerate(zip(held, shape)):
            if kind in CODE_BITS and dim == len(held) - 1:  # bytes, not codes: checked once the axis is bound
                codes.append((name, axis, size, CODE_BITS[kind]))
                continue
            if packed is not None and axis == packed[0]:  # the packed rows: every sequence's, one after another
                known = totals.setdefault(packed[2], (size, name))
                if known[0] != size:
                    raise TensorError(f"{op_name}: input {name!r} packs {size} rows along {axis!r} (dim {dim}), but "
                                      f"{known[1]!r} packs {known[0]}; inputs packed by {packed[2]!r} hold the same rows")
                continue
            known = sizes.get(axis)
            if known is None:
                sizes[axis], origin[axis] = size, name
            elif known != size:
                raise TensorError(f"{op_name}: axis {axis!r} of {name!r} (dim {dim}) has size {size}, "
                                  f"but {origin[axis]!r} gives {axis!r} size {known}")
        tensors[name] = value
    if packing:
        from . import ragged  # (Triton, for the device check: only where a spec packs)

        ragged.bind(op_name, packing, tensors, sizes, totals, max_seqlen or {}, check, defer)
    for name, axes, kind, default in signature:
        missing = [a for a in axes if a not in sizes]
        if missing:
            raise TensorError(f"{op_name}: the size of axis {missing[0]!r} is unknown: "
                              f"pass {name!r} or another input with that axis")
    for name, axis, size, bits in codes:
        want = -(-sizes[axis] * bits // 8)
        if size != want:
            raise TensorError(f"{op_name}: input {name!r} holds {bits}-bit codes along {axis!r}, packed {8 // bits} "
                              f"a byte: {axis!r} of size {sizes[axis]} needs {want} bytes in its last dim, got {size}")
    return tensors, sizes


def _check_dtype(op_name, name, kind, value, float_dtypes):
    if kind == "float" and value.dtype not in float_dtypes:
        allowed = ", ".join(str(d).replace("torch.", "") for d in float_dtypes)
        hint = "; float64 runs the reference evaluator through the op itself (apply), not the kernels" \
            if value.dtype == torch.float64 else ""
        raise TensorError(f"{op_name}: input {name!r} must be a float tensor ({allowed}), got {value.dtype}{hint}")
    if kind == "bool" and value.dtype != torch.bool:
        raise TensorError(f"{op_name}: mask {name!r} must be torch.bool, got {value.dtype}")
    if kind == "int8" and value.dtype != torch.int8:
        raise TensorError(f"{op_name}: input {name!r} is declared int8 (quantized rows), got {value.dtype}")
    if kind == "fp8" and value.dtype != torch.float8_e4m3fn:
        raise TensorError(f"{op_name}: input {name!r} is declared fp8 (quantized rows, torch.float8_e4m3fn), "
                          f"got {value.dtype}")
    if kind in CODE_BITS and value.dtype != torch.uint8:
        raise TensorError(f"{op_name}: input {name!r} is declared {kind} ({CODE_BITS[kind]}-bit codes packed in bytes), "
                          f"so it must be torch.uint8, got {value.dtype}")
    if kind == "int" and value.dtype not in INT_DTYPES:
        raise TensorError(f"{op_name}: length {name!r} must be int32 or int64, got {value.dtype}")
    if kind == "offsets" and value.dtype not in INT_DTYPES:
        raise TensorError(f"{op_name}: offsets {name!r} must be int32 or int64, got {value.dtype}")

"""Stage 4, emit: render a kernel plan into the source of a Python module.

The output is deterministic byte for byte (no time stamps, no dict-order
surprises) and says which spec line each part came from.
"""

from __future__ import annotations

import ast
from importlib import resources

import jinja2

from . import __version__
from .errors import source_lines
from .plan import KernelPlan


def _environment() -> jinja2.Environment:
    root = resources.files("hsr.templates")
    loader = jinja2.FunctionLoader(lambda name: root.joinpath(name).read_text())
    return jinja2.Environment(loader=loader, trim_blocks=True, lstrip_blocks=True,
                              keep_trailing_newline=True, undefined=jinja2.StrictUndefined)


def emit(plan: KernelPlan, source: str, filename: str) -> str:
    """The module source for a plan; ``filename`` is named in its header."""
    context = _select_reduce_context(plan, source)
    context.update(version=__version__, filename=filename, spec_literal=_py_string(source),
                   spec_lines=[_comment_line(line.rstrip()) for line in source_lines(source.strip("\n"))],
                   plan_lines=plan.explain().splitlines(), family=plan.family)
    text = _environment().get_template("module.py.jinja").render(**context)
    text = "\n".join(line.rstrip() for line in text.split("\n")).rstrip("\n") + "\n"
    while "\n\n\n\n" in text:
        text = text.replace("\n\n\n\n", "\n\n\n")
    ast.parse(text)  # a template bug shows here, not at import time
    return text


def _plain(text: str) -> bool:
    """True when text can sit in a comment or a triple-quoted literal unchanged."""
    return all(c.isprintable() or c == "\t" for c in text)


def _comment_line(line: str) -> str:
    return line if _plain(line) else repr(line)[1:-1]


def _py_string(text: str) -> str:
    """A readable Python literal of the spec: triple-quoted where that is exact."""
    lines = text.split("\n")
    exact = all(_plain(line) and line == line.rstrip() for line in lines)
    if not exact or '"""' in text or "\\" in text or text.endswith('"'):
        return repr(text)
    return '"""\\\n' + text + '"""'


def _offset(tensor: str, axes, mapping: dict, prefix: str = "stride") -> str:
    """``i * stride_Q_i + offs_s[:, None] * stride_Q_s``: the axes in mapping."""
    terms = [f"{mapping[a]} * {prefix}_{tensor}_{a}" for a in axes if a in mapping]
    return " + ".join(terms) or "0"


def _decompose(var: str, axes, blocked: str | None = None) -> list[str]:
    """Statements splitting a flat row-major index into one pid_<axis> per axis;
    the ``blocked`` axis counts blocks of BLOCK_<AXIS> (pid_<axis>_block)."""
    axes = list(axes)
    if not axes:
        return []
    stmts, rest = [], var
    for n, axis in enumerate(reversed(axes)):
        name = f"pid_{axis}_block" if axis == blocked else f"pid_{axis}"
        size = f"tl.cdiv(size_{axis}, BLOCK_{axis.upper()})" if axis == blocked else f"size_{axis}"
        if n == len(axes) - 1:
            stmts.append(f"{name} = {rest}")
        else:
            stmts.append(f"{name} = {rest} % {size}")
            nxt = f"rest_{axis}"
            stmts.append(f"{nxt} = {rest} // {size}")
            rest = nxt
    return stmts


def _flat(axes) -> str:
    expr = ""
    for axis in axes:
        expr = f"pid_{axis}" if not expr else f"({expr}) * size_{axis} + pid_{axis}"
    return expr or "0"


def _guard(conds: list) -> str:
    """When full tiles need the where-conditions applied: never (''), always
    ('True'), or when an optional input is given ('HAS_x or HAS_y')."""
    if not conds:
        return ""
    if any(not c["optional"] for c in conds):
        return "True"
    return " or ".join(f"HAS_{c['name']}" for c in conds)


def _blocked_axis(plan: KernelPlan) -> str | None:
    """The output axis whose values a forward program stacks in one A tile: the
    last one that A carries and B does not (in-batch MaxSim: the query), so each
    B tile loaded serves several of them. None when there is none, or when a
    condition on the selected axis varies over it."""
    c_axes = {a for c in plan.conds if c.axis == plan.c for a in c.axes}
    candidates = [g for g in plan.grid if g in plan.a.grid_axes and g not in plan.b.grid_axes and g not in c_axes]
    return candidates[-1] if candidates else None


def _select_reduce_context(plan: KernelPlan, source: str) -> dict:
    lines = source_lines(source)
    blocked = _blocked_axis(plan)
    decls = {name: (axes, kind, default) for name, axes, kind, default in plan.signature}
    grid_map = {g: f"pid_{g}" for g in plan.grid}
    cond_tensors = sorted({c.name for c in plan.conds if c.name}, key=list(decls).index)
    conds = {plan.r: [], plan.c: []}
    for c in plan.conds:
        mapping = dict(grid_map)
        mapping[c.axis] = f"offs_{c.axis}"
        text = c.name if c.kind == "mask" else f"{c.axis} < {c.name or c.literal}"
        conds[c.axis].append(dict(
            kind=c.kind, name=c.name, axis=c.axis, literal=c.literal, line=c.line, text=text,
            optional=bool(c.name and decls[c.name][2] is not None),
            offset=_offset(c.name, c.axes, mapping) if c.name else ""))
    sizes = list(dict.fromkeys(list(plan.grid) + [plan.r, plan.c, plan.k]))
    strided = [(plan.a.name, plan.a.axes), (plan.b.name, plan.b.axes)]
    strided += [(n, decls[n][0]) for n in cond_tensors]
    stride_params = [", ".join(f"stride_{n}_{a}" for a in axes) for n, axes in strided if axes]
    other = [g for g in plan.grid if g not in plan.a.grid_axes]
    other_b = [g for g in plan.grid if g not in plan.b.grid_axes]
    n_other = " * ".join(f"size_{g}" for g in other) or "1"
    optional = [n for n in decls if decls[n][2] is not None]
    return dict(
        out=plan.out, grid=list(plan.grid), R=plan.r, C=plan.c, K=plan.k, A=plan.a.name, B=plan.b.name,
        outer=plan.outer, select=plan.select, pair=plan.pair, line=plan.line, spec_line=plan.spec_line,
        pair_line=plan.pair_line, pair_text=lines[plan.pair_line - 1].strip(),
        signature=repr(plan.signature), differentiable=repr((plan.a.name, plan.b.name)), sizes=[f"size_{s}" for s in sizes], size_names=sizes,
        stride_params=stride_params, cond_tensors=cond_tensors, optional=optional,
        cond_tensor_info=[dict(name=n, kind=decls[n][1], rank=len(decls[n][0])) for n in cond_tensors],
        conds_r=conds[plan.r], conds_c=conds[plan.c],
        decompose_cell=_decompose("cell", plan.grid, blocked),
        G=blocked or "", ROWS=f"BLOCK_{blocked.upper()} * BLOCK_{plan.r.upper()}" if blocked else f"BLOCK_{plan.r.upper()}",
        decompose_a=_decompose("a_cell", plan.a.grid_axes),
        decompose_other=_decompose("other", other),
        decompose_b=_decompose("b_cell", plan.b.grid_axes),
        decompose_other_b=_decompose("other", other_b),
        n_other_b=" * ".join(f"size_{g}" for g in other_b) or "1",
        n_other_b_py=" * ".join(f'sizes["{g}"]' for g in other_b) or "1",
        b_cells_py=" * ".join(f'sizes["{g}"]' for g in plan.b.grid_axes) or "1",
        a_base=_offset(plan.a.name, plan.a.grid_axes, grid_map),
        b_base=_offset(plan.b.name, plan.b.grid_axes, grid_map),
        da_base=_offset(plan.a.name, plan.a.grid_axes, grid_map, "dstride"),
        db_base=_offset(plan.b.name, plan.b.grid_axes, grid_map, "dstride"),
        a_strides=[f"stride_{plan.a.name}_{a}" for a in plan.a.axes],
        b_strides=[f"stride_{plan.b.name}_{a}" for a in plan.b.axes],
        da_strides=[f"dstride_{plan.a.name}_{a}" for a in plan.a.axes],
        db_strides=[f"dstride_{plan.b.name}_{a}" for a in plan.b.axes],
        size_args=", ".join(f'sizes["{s}"]' for s in sizes),
        shape_args="".join(f'sizes["{g}"], ' for g in plan.grid).rstrip(" "),
        n_other=n_other, c_guard=_guard(conds[plan.c]),
        fill="-inf" if plan.select == "max" else "inf",
        better=">" if plan.select == "max" else "<", combine="maximum" if plan.select == "max" else "minimum", cell_expr=_flat(plan.grid),
        a_cells_py=" * ".join(f'sizes["{g}"]' for g in plan.a.grid_axes) or "1",
    )

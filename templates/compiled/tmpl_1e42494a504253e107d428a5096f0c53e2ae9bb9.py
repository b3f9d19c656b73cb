from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'select_reduce/parts_host.py.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_t = resolve('t')
    l_0_R = l_0_C = l_0_K = l_0_A = l_0_B = l_0_P = missing
    pass
    (l_0_R, l_0_C, l_0_K, l_0_A, l_0_B, l_0_P) = (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'R'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'C'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'K'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'A'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'B'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'P'))
    context.vars.update({'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R})
    context.exported_vars.update(('A', 'B', 'C', 'K', 'P', 'R'))
    if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') in ('max', 'min')):
        pass
        yield 'def _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_merge(vals, rows, out, stat):\n    """Merge chunk partials [cells, chunks] of the outer '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer'))
        yield ' into out (and stat), one launch."""\n    n_cells, n_chunks = vals.shape\n    block = min(1024, triton.next_power_of_2(max(n_cells, 1)))\n    launcher.launch('
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_merge, (triton.cdiv(n_cells, block),), vals, rows, out, stat if stat is not None else rows,\n                    n_cells, n_chunks, HAS_STAT=stat is not None, BLOCK=block)\n\n\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_parts'):
        pass
        yield 'def _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_part_buffers(parts, out, idx_arg, stat_arg, xsel_arg):\n    """The forward\'s (out, idx, stat, xsel) arguments, and what the merge writes (None: no parts): in\n    parts, each part writes [parts, ...] slices (stat: the value that ranked its selection), and the\n    merge writes out, idx_arg and xsel_arg (a real one: not out, the placeholder)."""\n    if parts == 1:\n        return out, idx_arg, stat_arg, xsel_arg, None\n    merged = (out, idx_arg, xsel_arg if xsel_arg is not out else None)\n    device = out.device\n    out_arg = torch.'
        yield str(('zeros' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ragged_r') else 'empty'))
        yield '((parts, *out.shape), dtype=out.dtype, device=device)\n    idx_arg = torch.'
        yield str(('full' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ragged_r') else 'empty'))
        yield '((parts, *idx_arg.shape)'
        yield str((', -2' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ragged_r') else cond_expr_undefined("the inline if-expression on line 25 in 'select_reduce/parts_host.py.jinja' evaluated to false and no else section was defined.")))
        yield ', dtype=idx_arg.dtype, device=device)\n    stat_arg = torch.empty(idx_arg.shape, dtype=torch.float32, device=device)\n'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'need_x'):
            pass
            yield '    xsel_arg = torch.'
            yield str(('zeros' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ragged_r') else 'empty'))
            yield '(idx_arg.shape, dtype=torch.float32, device=device)\n'
        yield '    return out_arg, idx_arg, stat_arg, xsel_arg, merged\n\n\ndef _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_part_merge(keys, out_parts, idx_parts, xsel_parts, out, idx, xsel):\n    """Each row\'s parts of '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ' ([parts, ...] each) merged in order into out, idx and xsel (those\n    not None), one launch."""\n    parts, n = keys.shape[0], out.numel()\n    block = min(1024, triton.next_power_of_2(max(n, 1)))\n    launcher.launch('
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_part_merge, (triton.cdiv(n, block),), keys, out_parts, idx_parts,\n                    xsel_parts if xsel_parts is not None else keys, out, idx if idx is not None else idx_parts,\n                    xsel if xsel is not None else keys, n, parts, HAS_IDX=idx is not None, HAS_X=xsel is not None,\n                    BLOCK=block)\n\n\n'

blocks = {}
debug_info = '4=13&5=16&6=19&7=21&10=23&15=25&16=28&24=30&25=32&27=36&28=39&33=42&34=44&38=46'
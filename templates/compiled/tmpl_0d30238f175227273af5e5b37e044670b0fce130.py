from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'select_reduce/both_ways.py.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_t = resolve('t')
    l_0_both_tile = resolve('both_tile')
    l_0_range = resolve('range')
    l_0_bound_end = l_0_cond_code = l_0_row_loads = l_0_small_a_loads = l_0_dot_tile = l_0_row_finish = l_0_R = l_0_C = l_0_K = l_0_A = l_0_B = l_0_P = missing
    try:
        t_1 = environment.filters['indent']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'indent' found.")
    try:
        t_2 = environment.filters['join']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'join' found.")
    try:
        t_3 = environment.filters['length']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'length' found.")
    try:
        t_4 = environment.filters['replace']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'replace' found.")
    try:
        t_5 = environment.filters['trim']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No filter named 'trim' found.")
    try:
        t_6 = environment.filters['upper']
    except KeyError:
        @internalcode
        def t_6(*unused):
            raise TemplateRuntimeError("No filter named 'upper' found.")
    pass
    included_template = environment.get_template('select_reduce/common.py.jinja', 'select_reduce/both_ways.py.jinja').make_module(context.get_all(), True, {'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R, 'both_tile': l_0_both_tile, 'bound_end': l_0_bound_end, 'cond_code': l_0_cond_code, 'dot_tile': l_0_dot_tile, 'row_finish': l_0_row_finish, 'row_loads': l_0_row_loads, 'small_a_loads': l_0_small_a_loads})
    l_0_bound_end = getattr(included_template, 'bound_end', missing)
    if l_0_bound_end is missing:
        l_0_bound_end = undefined(f"the template {included_template.__name__!r} (imported on line 3 in 'select_reduce/both_ways.py.jinja') does not export the requested name 'bound_end'", name='bound_end')
    l_0_cond_code = getattr(included_template, 'cond_code', missing)
    if l_0_cond_code is missing:
        l_0_cond_code = undefined(f"the template {included_template.__name__!r} (imported on line 3 in 'select_reduce/both_ways.py.jinja') does not export the requested name 'cond_code'", name='cond_code')
    l_0_row_loads = getattr(included_template, 'row_loads', missing)
    if l_0_row_loads is missing:
        l_0_row_loads = undefined(f"the template {included_template.__name__!r} (imported on line 3 in 'select_reduce/both_ways.py.jinja') does not export the requested name 'row_loads'", name='row_loads')
    l_0_small_a_loads = getattr(included_template, 'small_a_loads', missing)
    if l_0_small_a_loads is missing:
        l_0_small_a_loads = undefined(f"the template {included_template.__name__!r} (imported on line 3 in 'select_reduce/both_ways.py.jinja') does not export the requested name 'small_a_loads'", name='small_a_loads')
    context.vars.update({'bound_end': l_0_bound_end, 'cond_code': l_0_cond_code, 'row_loads': l_0_row_loads, 'small_a_loads': l_0_small_a_loads})
    context.exported_vars.difference_update(('bound_end', 'cond_code', 'row_loads', 'small_a_loads'))
    included_template = environment.get_template('select_reduce/tile.py.jinja', 'select_reduce/both_ways.py.jinja').make_module(context.get_all(), True, {'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R, 'both_tile': l_0_both_tile, 'bound_end': l_0_bound_end, 'cond_code': l_0_cond_code, 'dot_tile': l_0_dot_tile, 'row_finish': l_0_row_finish, 'row_loads': l_0_row_loads, 'small_a_loads': l_0_small_a_loads})
    l_0_dot_tile = getattr(included_template, 'dot_tile', missing)
    if l_0_dot_tile is missing:
        l_0_dot_tile = undefined(f"the template {included_template.__name__!r} (imported on line 4 in 'select_reduce/both_ways.py.jinja') does not export the requested name 'dot_tile'", name='dot_tile')
    l_0_row_finish = getattr(included_template, 'row_finish', missing)
    if l_0_row_finish is missing:
        l_0_row_finish = undefined(f"the template {included_template.__name__!r} (imported on line 4 in 'select_reduce/both_ways.py.jinja') does not export the requested name 'row_finish'", name='row_finish')
    context.vars.update({'dot_tile': l_0_dot_tile, 'row_finish': l_0_row_finish})
    context.exported_vars.difference_update(('dot_tile', 'row_finish'))
    (l_0_R, l_0_C, l_0_K, l_0_A, l_0_B, l_0_P) = (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'R'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'C'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'K'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'A'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'B'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'P'))
    context.vars.update({'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R})
    context.exported_vars.update(('A', 'B', 'C', 'K', 'P', 'R'))
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'both'):
        pass
        def macro(l_1_row_mode):
            t_7 = []
            l_1_R = l_0_R
            l_1_C = l_0_C
            l_1_K = l_0_K
            l_1_A = l_0_A
            l_1_B = l_0_B
            l_1_P = l_0_P
            if l_1_row_mode is missing:
                l_1_row_mode = undefined("parameter 'row_mode' was not provided", name='row_mode')
            pass
            (l_1_R, l_1_C, l_1_K, l_1_A, l_1_B, l_1_P) = (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'R'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'C'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'K'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'A'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'B'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'P'))
            t_7.extend((
                'offs_',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                ' = ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '0 + tl.arange(0, BLOCK_',
                str(t_6((undefined(name='C') if l_1_C is missing else l_1_C))),
                ')\n',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_in = offs_',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                ' < size_',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '\nb_row = b_rows + offs_',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '.to(tl.int64) * stride_',
                str((undefined(name='B') if l_1_B is missing else l_1_B)),
                '_',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '  # int64: tall operands pass 2^31\ncol_at = col_ptr + cell * size_',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                ' + offs_',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '\nheld = tl.load(col_at, mask=',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                "_in, other=0)  # every program's best so far, read before it is needed\n",
            ))
            def t_8(fiter):
                for l_2_x in fiter:
                    if (environment.getattr(l_2_x, 'name') == 'bsq'):
                        yield l_2_x
            for l_2_x in t_8(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'aux')):
                _loop_vars = {}
                pass
                t_7.extend((
                    'bsq = tl.load(aux_bsq_ptr + ',
                    str(environment.getattr(l_2_x, 'base')),
                    ' + offs_',
                    str((undefined(name='C') if l_1_C is missing else l_1_C)),
                    ' * stride_aux_bsq_',
                    str((undefined(name='C') if l_1_C is missing else l_1_C)),
                    ', mask=',
                    str((undefined(name='C') if l_1_C is missing else l_1_C)),
                    '_in, other=0.0)\n',
                ))
            l_2_x = missing
            t_7.extend((
                '# spec line ',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'pair_line')),
                ': ',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'pair_text')),
                '\n',
                str(context.call((undefined(name='dot_tile') if l_0_dot_tile is missing else l_0_dot_tile))),
                '\n',
            ))
            if (not environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'key_linear')):
                pass
                t_7.extend((
                    'key = ',
                    str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'key')),
                    '\n',
                ))
            if (l_1_row_mode != 'none'):
                pass
                if (l_1_row_mode == 'partial'):
                    pass
                    t_7.extend((
                        str((undefined(name='C') if l_1_C is missing else l_1_C)),
                        '_ok = ',
                        str((undefined(name='C') if l_1_C is missing else l_1_C)),
                        '_in\n',
                    ))
                    for l_2_c in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'conds_c'):
                        _loop_vars = {}
                        pass
                        t_7.extend((
                            str(context.call((undefined(name='cond_code') if l_0_cond_code is missing else l_0_cond_code), l_2_c, str_join(((undefined(name='C') if l_1_C is missing else l_1_C), '_ok', )), str_join(((undefined(name='C') if l_1_C is missing else l_1_C), '_in', )), _loop_vars=_loop_vars)),
                            '\n',
                        ))
                    l_2_c = missing
                    t_7.extend((
                        'key_r = tl.where(',
                        str((undefined(name='C') if l_1_C is missing else l_1_C)),
                        '_ok[None, :], key, float("',
                        str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'fill')),
                        '"))\n',
                    ))
                else:
                    pass
                    t_7.extend((
                        str((undefined(name='C') if l_1_C is missing else l_1_C)),
                        '_ok = ',
                        str((undefined(name='C') if l_1_C is missing else l_1_C)),
                        '_in\nkey_r = key\n',
                    ))
                t_7.extend((
                    '# the term: running ',
                    str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'select')),
                    ' per tile slot, as ',
                    str((undefined(name='P') if l_1_P is missing else l_1_P)),
                    '_fwd keeps it\nif NEED_IDX:\n    better = key_r ',
                    str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'better')),
                    ' best2\n    idx2 = tl.where(better, offs_',
                    str((undefined(name='C') if l_1_C is missing else l_1_C)),
                    '[None, :], idx2)\n',
                ))
                if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'track_x'):
                    pass
                    t_7.extend((
                        '    if SMALL_D == 0:  # (d = 0; with coordinates, x is recomputed at the selected index)\n        x2 = tl.where(better, ',
                        str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'prim')),
                        ', x2)\n',
                    ))
                t_7.extend((
                    'best2 = tl.',
                    str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'combine')),
                    '(best2, key_r, propagate_nan=tl.PropagateNan.ALL)\n',
                    str((undefined(name='C') if l_1_C is missing else l_1_C)),
                    '_seen += ',
                    str((undefined(name='C') if l_1_C is missing else l_1_C)),
                    '_ok.to(tl.int32)\n',
                ))
            t_7.extend((
                'if col_active:  # the swapped term: each ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                " point's best over this program's ",
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                ' points\n    s = key  # symmetric: the same key ranks the rows of a column\n    if rows_all:\n        cbest = tl.reduce(s, 0, _',
                str((undefined(name='P') if l_1_P is missing else l_1_P)),
                '_select)\n    else:\n        cbest = tl.reduce(tl.where(rows_sw[:, None], s, float("',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'fill')),
                '")), 0, _',
                str((undefined(name='P') if l_1_P is missing else l_1_P)),
                '_select)\n    col_nan2 = tl.maximum(col_nan2, (cbest != cbest).to(tl.int32))  # per column: no reduction a tile\n    cbest = cbest + 0.0  # -0.0 as +0.0: the order key tells them apart, the reference does not\n    ckey = _',
                str((undefined(name='P') if l_1_P is missing else l_1_P)),
                '_order(cbest).to(tl.int64)\n    improve = ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                "_in & (cbest == cbest) & (ckey <= (held >> 32))  # a NaN waits for the second pass\n    if NEED_IDX:\n        # value and lowest row from one reduction (a recomputed key may round apart). Every tile:\n        # Triton 3.6 miscompiled a block-wide `if any improves` around it (the rows' indices came\n        # back as float bits; bench/NOTES.md, experiment both_ways_index_variants)\n        rows_at = tl.broadcast_to(offs_",
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                '[:, None], [BLOCK_',
                str(t_6((undefined(name='R') if l_1_R is missing else l_1_R))),
                ', BLOCK_',
                str(t_6((undefined(name='C') if l_1_C is missing else l_1_C))),
                '])\n        cval, cidx = tl.reduce((tl.where(rows_sw[:, None], s, float("',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'fill')),
                '")), rows_at), 0, _',
                str((undefined(name='P') if l_1_P is missing else l_1_P)),
                '_argsel)\n        ckey = _',
                str((undefined(name='P') if l_1_P is missing else l_1_P)),
                '_order(cval + 0.0).to(tl.int64)\n        tl.atomic_min(col_at, (ckey << 32) | cidx.to(tl.int64), mask=improve)\n    else:  # the value alone: a masked atomic, no block-wide test (bench/NOTES.md, session 14)\n        tl.atomic_min(col_at, ckey << 32, mask=improve)',
            ))
            return concat(t_7)
        context.exported_vars.add('both_tile')
        context.vars['both_tile'] = l_0_both_tile = Macro(environment, macro, 'both_tile', ('row_mode',), False, False, False, context.eval_ctx.autoescape)
        yield '\n\n@triton.jit\ndef _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_argsel(v1, i1, v2, i2):\n    """'
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'select'))
        yield ' with its row: the lower row wins ties (NaN columns are left to the second pass)."""\n    take = (v2 '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'better'))
        yield ' v1) | ((v2 == v1) & (i2 < i1))\n    return tl.where(take, v2, v1), tl.where(take, i2, i1)\n\n\n@triton.jit\ndef _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_order(x):\n    """An int32 that orders as the float x does (NaN aside); its own inverse."""\n    bits = x.to(tl.int32, bitcast=True)\n    return bits ^ ((bits >> 31) & 0x7FFFFFFF)\n\n\n@triton.jit\ndef '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_fwd_both(\n    '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_ptr, '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_ptr,'
        for l_1_x in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'aux'):
            _loop_vars = {}
            pass
            yield ' aux_'
            yield str(environment.getattr(l_1_x, 'name'))
            yield '_ptr,'
        l_1_x = missing
        for l_1_c in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cond_tensors'):
            _loop_vars = {}
            pass
            yield ' '
            yield str(l_1_c)
            yield '_ptr, '
            yield str(l_1_c)
            yield '_sw_ptr,'
        l_1_c = missing
        yield '\n    out_ptr, idx_ptr, xsel_ptr, col_ptr,\n    '
        yield str(t_2(context.eval_ctx, environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'sizes'), ', '))
        yield ',\n'
        for l_1_line in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'stride_params')[:(2 + t_3(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'aux')))]:
            _loop_vars = {}
            pass
            yield '    '
            yield str(l_1_line)
            yield ',\n'
        l_1_line = missing
        l_1_loop = missing
        for l_1_c, l_1_loop in LoopContext(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cond_tensors'), undefined):
            _loop_vars = {}
            pass
            yield '    '
            yield str(environment.getitem(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'stride_params'), ((2 + t_3(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'aux'))) + environment.getattr(l_1_loop, 'index0'))))
            yield ', '
            yield str(t_4(context.eval_ctx, environment.getitem(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'stride_params'), ((2 + t_3(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'aux'))) + environment.getattr(l_1_loop, 'index0'))), str_join(('stride_', l_1_c, '_', )), str_join(('stride_', l_1_c, '_sw_', ))))
            yield ',\n'
        l_1_loop = l_1_c = missing
        yield '    '
        yield str(t_2(context.eval_ctx, environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ostrides'), ', '))
        yield ',\n'
        for l_1_name in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'optional'):
            _loop_vars = {}
            pass
            yield '    HAS_'
            yield str(l_1_name)
            yield ': tl.constexpr, HAS_'
            yield str(l_1_name)
            yield '_sw: tl.constexpr,\n'
        l_1_name = missing
        yield '    BLOCK_'
        yield str(t_6((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield ': tl.constexpr, BLOCK_'
        yield str(t_6((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield ': tl.constexpr, BLOCK_'
        yield str(t_6((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield ': tl.constexpr,\n    NEED_IDX: tl.constexpr, PRECISION: tl.constexpr, DOT_FP32: tl.constexpr, DOT_MODE: tl.constexpr, SMALL_D: tl.constexpr,'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ties'):
            pass
            yield ' TIES: tl.constexpr,'
        yield '):\n    """'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield ' both ways in one pass over the pairs: the term on ('
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield ', '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield ') and the\n    same term on ('
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield ', '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '). One program per (cell, block of '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield "): each pair's\n    key serves the rows' running "
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'select'))
        yield " and the columns' "
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'select'))
        yield " over the program's\n    rows, which programs merge with int64 atomic mins of (order key, row) (exact,\n    deterministic: the lowest row wins ties). "
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_both_cols decodes the columns."""\n    # spec line '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'line'))
        yield ': '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'spec_line'))
        yield ', and the same with '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield ' and '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield ' swapped\n    cell = tl.program_id(0).to(tl.int64)\n'
        for l_1_stmt in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'decompose_cell'):
            _loop_vars = {}
            pass
            yield '    '
            yield str(l_1_stmt)
            yield '\n'
        l_1_stmt = missing
        yield '    a_rows = '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_ptr + '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'a_base'))
        yield '\n    b_rows = '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_ptr + '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'b_base'))
        yield '\n    offs_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield ' = tl.arange(0, BLOCK_'
        yield str(t_6((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield ')\n    '
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '_in = offs_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield ' < size_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '\n    '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '0 = tl.program_id(1) * BLOCK_'
        yield str(t_6((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield '\n    offs_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ' = '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '0 + tl.arange(0, BLOCK_'
        yield str(t_6((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield ')\n    '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '_in = offs_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ' < size_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '\n    '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '_ok = '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '_in\n    a_row = a_rows + offs_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '.to(tl.int64) * stride_'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '\n    '
        yield str(t_1(context.call((undefined(name='row_loads') if l_0_row_loads is missing else l_0_row_loads)), 4))
        yield '\n    '
        yield str(t_1(context.call((undefined(name='small_a_loads') if l_0_small_a_loads is missing else l_0_small_a_loads)), 4))
        yield '\n    best2 = tl.full([BLOCK_'
        yield str(t_6((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield ', BLOCK_'
        yield str(t_6((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield '], float("'
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'fill'))
        yield '"), tl.float32)\n    if NEED_IDX:\n        idx2 = tl.full([BLOCK_'
        yield str(t_6((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield ', BLOCK_'
        yield str(t_6((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield '], -1, tl.int32)\n'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'track_x'):
            pass
            yield '        x2 = tl.zeros([BLOCK_'
            yield str(t_6((undefined(name='R') if l_0_R is missing else l_0_R)))
            yield ', BLOCK_'
            yield str(t_6((undefined(name='C') if l_0_C is missing else l_0_C)))
            yield '], tl.float32)\n'
        yield '    '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_seen = tl.zeros([BLOCK_'
        yield str(t_6((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield '], tl.int32)\n    '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_end = size_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '\n'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'c_bounds'):
            pass
            yield '    '
            yield str(t_1(t_5(context.call((undefined(name='bound_end') if l_0_bound_end is missing else l_0_bound_end), str_join(((undefined(name='C') if l_0_C is missing else l_0_C), '_end', )), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'c_bounds'), ": the term's tiles end there")), 4))
            yield '\n'
        yield '    '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '_end = size_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '\n'
        if environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'both'), 'bounds'):
            pass
            yield '    '
            yield str(t_1(t_5(context.call((undefined(name='bound_end') if l_0_bound_end is missing else l_0_bound_end), str_join(((undefined(name='R') if l_0_R is missing else l_0_R), '_end', )), environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'both'), 'bounds'), ' in the swapped term: only these rows are its candidates')), 4))
            yield '\n'
        yield '    rows_sw = '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '_in & (offs_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ' < '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '_end)\n    col_active = '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '0 < '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '_end\n    rows_all = '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '0 + BLOCK_'
        yield str(t_6((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield ' <= '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '_end\n    col_nan2 = tl.zeros([BLOCK_'
        yield str(t_6((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield '], tl.int32)\n    '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_full = ('
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_end // BLOCK_'
        yield str(t_6((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield ') * BLOCK_'
        yield str(t_6((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield '\n    for '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '0 in range(0, '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_full, BLOCK_'
        yield str(t_6((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield '):\n        '
        yield str(t_1(context.call((undefined(name='both_tile') if l_0_both_tile is missing else l_0_both_tile), 'full'), 8))
        yield '\n    if '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_full < '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield "_end:  # the term's last, partial tile\n        "
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '0 = '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_full\n        '
        yield str(t_1(context.call((undefined(name='both_tile') if l_0_both_tile is missing else l_0_both_tile), 'partial'), 8))
        yield "\n    if col_active:  # past the term's bound: the swapped term's columns only\n        for "
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '0 in range(tl.cdiv('
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_end, BLOCK_'
        yield str(t_6((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield ') * BLOCK_'
        yield str(t_6((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield ', size_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ', BLOCK_'
        yield str(t_6((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield '):\n            '
        yield str(t_1(context.call((undefined(name='both_tile') if l_0_both_tile is missing else l_0_both_tile), 'none'), 12))
        yield '\n    '
        yield str(t_1(context.call((undefined(name='row_finish') if l_0_row_finish is missing else l_0_row_finish)), 4))
        yield '\n    if tl.max(col_nan2, axis=0) > 0:  # a column met NaN: its best is the first NaN row, found by a second pass\n        for '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '0 in range(0, size_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ', BLOCK_'
        yield str(t_6((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield '):\n            offs_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ' = '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '0 + tl.arange(0, BLOCK_'
        yield str(t_6((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield ')\n            '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_in = offs_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ' < size_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '\n            b_row = b_rows + offs_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '.to(tl.int64) * stride_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '\n'
        def t_9(fiter):
            for l_1_x in fiter:
                if (environment.getattr(l_1_x, 'name') == 'bsq'):
                    yield l_1_x
        for l_1_x in t_9(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'aux')):
            _loop_vars = {}
            pass
            yield '            bsq = tl.load(aux_bsq_ptr + '
            yield str(environment.getattr(l_1_x, 'base'))
            yield ' + offs_'
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield ' * stride_aux_bsq_'
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield ', mask='
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield '_in, other=0.0)\n'
        l_1_x = missing
        yield '            '
        yield str(t_1(context.call((undefined(name='dot_tile') if l_0_dot_tile is missing else l_0_dot_tile)), 12))
        yield '\n'
        if (not environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'key_linear')):
            pass
            yield '            key = '
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'key'))
            yield '\n'
        yield '            s = key\n            first = tl.min(tl.where((s != s) & rows_sw[:, None], offs_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '[:, None], size_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '), axis=0)\n            nan_key = (tl.zeros_like(first).to(tl.int64) - 2147483648) << 32  # below every order key\n            tl.atomic_min(col_ptr + cell * size_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ' + offs_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ', nan_key | first.to(tl.int64),\n                          mask='
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_in & (first < size_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '))\n\n\n@triton.jit\ndef '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_both_cols(\n    '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_ptr, '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_ptr,'
        for l_1_x in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'aux'):
            _loop_vars = {}
            pass
            yield ' aux_'
            yield str(environment.getattr(l_1_x, 'name'))
            yield '_ptr,'
        l_1_x = missing
        yield ' col_ptr, out_ptr, idx_ptr, xsel_ptr,\n    '
        yield str(t_2(context.eval_ctx, environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'sizes'), ', '))
        yield ',\n'
        for l_1_line in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'stride_params')[:(2 + t_3(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'aux')))]:
            _loop_vars = {}
            pass
            yield '    '
            yield str(l_1_line)
            yield ',\n'
        l_1_line = missing
        yield '    '
        yield str(t_2(context.eval_ctx, environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ostrides'), ', '))
        yield ',\n    BLOCK_'
        yield str(t_6((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield ': tl.constexpr, NEED_IDX: tl.constexpr, SMALL_D: tl.constexpr,\n):\n    """The swapped term\'s epilogue: each '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield " point's merged (order key, row), decoded\n    into its value, index and saved x, laid out as "
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_fwd lays out its rows."""\n    cell = tl.program_id(0).to(tl.int64)\n'
        for l_1_stmt in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'decompose_cell'):
            _loop_vars = {}
            pass
            yield '    '
            yield str(l_1_stmt)
            yield '\n'
        l_1_stmt = missing
        yield '    offs_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ' = tl.program_id(1) * BLOCK_'
        yield str(t_6((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield ' + tl.arange(0, BLOCK_'
        yield str(t_6((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield ')\n    '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_in = offs_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ' < size_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '\n    held = tl.load(col_ptr + cell * size_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ' + offs_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ', mask='
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_in, other=9223372036854775807)\n    # spec line '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'line'))
        yield ': an empty selection (no candidate row) is 0 and passes no gradient\n    picked = '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_in & (held != 9223372036854775807)\n    hi = (held >> 32).to(tl.int32)\n    best_idx = (held - ((held >> 32) << 32)).to(tl.int32)\n    best_s = _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_order(hi).to(tl.float32, bitcast=True)\n    best_s = tl.where(hi == -2147483648, float("nan"), best_s)\n'
        def t_10(fiter):
            for l_1_x in fiter:
                if (environment.getattr(l_1_x, 'name') == 'bsq'):
                    yield l_1_x
        for l_1_x in t_10(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'aux')):
            _loop_vars = {}
            pass
            yield '    asq = tl.load(aux_bsq_ptr + '
            yield str(environment.getattr(l_1_x, 'base'))
            yield ' + offs_'
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield ' * stride_aux_bsq_'
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield ', mask='
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield "_in, other=0.0)  # the swapped term's rows are "
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield "'s\n"
        l_1_x = missing
        yield "    best = best_s  # the symmetric key is the term's\n"
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'need_x'):
            pass
            yield '    if NEED_IDX:  # x at the selected row, formed as the tile loop forms it\n        a_row = '
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield '_ptr + '
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'b_base'))
            yield ' + offs_'
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield '.to(tl.int64) * stride_'
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield '_'
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield '\n        sel_row = '
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield '_ptr + '
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'a_base'))
            yield ' + tl.maximum(best_idx, 0).to(tl.int64) * stride_'
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield '_'
            yield str((undefined(name='R') if l_0_R is missing else l_0_R))
            yield '\n        x_best = tl.zeros([BLOCK_'
            yield str(t_6((undefined(name='C') if l_0_C is missing else l_0_C)))
            yield '], tl.float32)\n'
            for l_1_k in context.call((undefined(name='range') if l_0_range is missing else l_0_range), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'small_d_max')):
                _loop_vars = {}
                pass
                yield '        if SMALL_D > '
                yield str(l_1_k)
                yield ':\n'
                if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2'):
                    pass
                    yield '            diff = tl.load(a_row + '
                    yield str(l_1_k)
                    yield ' * stride_'
                    yield str((undefined(name='B') if l_0_B is missing else l_0_B))
                    yield '_'
                    yield str((undefined(name='K') if l_0_K is missing else l_0_K))
                    yield ', mask=picked, other=0.0).to(tl.float32) - \\\n                tl.load(sel_row + '
                    yield str(l_1_k)
                    yield ' * stride_'
                    yield str((undefined(name='A') if l_0_A is missing else l_0_A))
                    yield '_'
                    yield str((undefined(name='K') if l_0_K is missing else l_0_K))
                    yield ', mask=picked, other=0.0).to(tl.float32)\n            x_best = tl.fma(diff, diff, x_best)\n'
                elif (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'pair') == 'l1'):
                    pass
                    yield '            x_best += tl.abs(tl.load(a_row + '
                    yield str(l_1_k)
                    yield ' * stride_'
                    yield str((undefined(name='B') if l_0_B is missing else l_0_B))
                    yield '_'
                    yield str((undefined(name='K') if l_0_K is missing else l_0_K))
                    yield ', mask=picked, other=0.0).to(tl.float32) -\n                             tl.load(sel_row + '
                    yield str(l_1_k)
                    yield ' * stride_'
                    yield str((undefined(name='A') if l_0_A is missing else l_0_A))
                    yield '_'
                    yield str((undefined(name='K') if l_0_K is missing else l_0_K))
                    yield ', mask=picked, other=0.0).to(tl.float32))\n'
                else:
                    pass
                    yield '            x_best += tl.load(a_row + '
                    yield str(l_1_k)
                    yield ' * stride_'
                    yield str((undefined(name='B') if l_0_B is missing else l_0_B))
                    yield '_'
                    yield str((undefined(name='K') if l_0_K is missing else l_0_K))
                    yield ', mask=picked, other=0.0).to(tl.float32) * \\\n                tl.load(sel_row + '
                    yield str(l_1_k)
                    yield ' * stride_'
                    yield str((undefined(name='A') if l_0_A is missing else l_0_A))
                    yield '_'
                    yield str((undefined(name='K') if l_0_K is missing else l_0_K))
                    yield ', mask=picked, other=0.0).to(tl.float32)\n'
            l_1_k = missing
            yield '        tl.store(xsel_ptr + cell * size_'
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield ' + offs_'
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield ', x_best, mask='
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield '_in)\n'
        yield '    value = tl.where(picked, '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'h'))
        yield ', 0.0)\n    rowval = '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'post'))
        yield '\n    tl.store(out_ptr + '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'out_base'))
        yield ' + '
        yield str(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'both'), 'out_row'))
        yield ', rowval, mask='
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_in)\n    if NEED_IDX:\n        tl.store(idx_ptr + cell * size_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ' + offs_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ', tl.where(picked, best_idx, -1), mask='
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_in)\n'

blocks = {}
debug_info = '3=51&4=66&5=75&6=78&7=80&8=91&11=94&12=100&13=106&14=112&15=116&16=119&17=128&19=140&20=144&21=147&22=151&24=154&25=156&26=159&27=164&28=168&30=174&32=182&35=189&37=193&38=195&39=198&41=202&43=207&44=209&46=216&49=220&51=222&54=226&55=228&60=230&61=236&62=240&70=247&71=249&72=251&77=253&84=255&85=257&88=278&89=280&90=284&92=288&93=292&95=298&96=300&97=304&99=310&100=316&102=320&103=326&104=332&106=336&107=338&109=346&110=350&112=354&113=358&114=362&115=366&116=372&117=376&118=382&119=388&120=392&121=398&122=400&123=402&125=408&126=412&127=415&129=420&130=424&131=428&132=431&134=434&135=438&136=441&138=444&139=450&140=454&141=460&142=462&143=470&144=476&145=478&146=482&147=486&149=488&150=500&151=502&153=504&154=510&155=516&156=522&157=528&158=536&160=546&161=548&162=551&165=554&167=558&168=562&172=566&173=568&174=580&175=582&176=586&178=590&179=592&181=594&182=596&184=598&185=602&187=606&188=612&189=618&190=624&191=626&194=628&196=630&197=638&200=650&202=653&203=663&204=671&205=673&206=677&207=679&208=682&209=688&211=694&212=697&213=703&215=712&216=718&219=726&221=733&222=735&223=737&225=743'
from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'select_reduce/forward.py.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_t = resolve('t')
    l_0_cond_code = l_0_row_loads = l_0_small_a_loads = l_0_bound_end = l_0_rows_params = l_0_c_tile = l_0_row_finish = l_0_split_select = l_0_R = l_0_C = l_0_K = l_0_A = l_0_B = l_0_P = l_0_tile_norms_a = l_0_c_end = l_0_tile_loops = l_0_row_prologue = l_0_row_selection = l_0_row_block = l_0_acc_init = l_0_cell_epilogue = l_0_stacked_rows = l_0_per_cell = l_0_persistent = missing
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
        t_3 = environment.filters['list']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'list' found.")
    try:
        t_4 = environment.filters['selectattr']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'selectattr' found.")
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
    included_template = environment.get_template('select_reduce/common.py.jinja', 'select_reduce/forward.py.jinja').make_module(context.get_all(), True, {'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R, 'acc_init': l_0_acc_init, 'bound_end': l_0_bound_end, 'c_end': l_0_c_end, 'c_tile': l_0_c_tile, 'cell_epilogue': l_0_cell_epilogue, 'cond_code': l_0_cond_code, 'per_cell': l_0_per_cell, 'persistent': l_0_persistent, 'row_block': l_0_row_block, 'row_finish': l_0_row_finish, 'row_loads': l_0_row_loads, 'row_prologue': l_0_row_prologue, 'row_selection': l_0_row_selection, 'rows_params': l_0_rows_params, 'small_a_loads': l_0_small_a_loads, 'split_select': l_0_split_select, 'stacked_rows': l_0_stacked_rows, 'tile_loops': l_0_tile_loops, 'tile_norms_a': l_0_tile_norms_a})
    l_0_cond_code = getattr(included_template, 'cond_code', missing)
    if l_0_cond_code is missing:
        l_0_cond_code = undefined(f"the template {included_template.__name__!r} (imported on line 5 in 'select_reduce/forward.py.jinja') does not export the requested name 'cond_code'", name='cond_code')
    l_0_row_loads = getattr(included_template, 'row_loads', missing)
    if l_0_row_loads is missing:
        l_0_row_loads = undefined(f"the template {included_template.__name__!r} (imported on line 5 in 'select_reduce/forward.py.jinja') does not export the requested name 'row_loads'", name='row_loads')
    l_0_small_a_loads = getattr(included_template, 'small_a_loads', missing)
    if l_0_small_a_loads is missing:
        l_0_small_a_loads = undefined(f"the template {included_template.__name__!r} (imported on line 5 in 'select_reduce/forward.py.jinja') does not export the requested name 'small_a_loads'", name='small_a_loads')
    l_0_bound_end = getattr(included_template, 'bound_end', missing)
    if l_0_bound_end is missing:
        l_0_bound_end = undefined(f"the template {included_template.__name__!r} (imported on line 5 in 'select_reduce/forward.py.jinja') does not export the requested name 'bound_end'", name='bound_end')
    l_0_rows_params = getattr(included_template, 'rows_params', missing)
    if l_0_rows_params is missing:
        l_0_rows_params = undefined(f"the template {included_template.__name__!r} (imported on line 5 in 'select_reduce/forward.py.jinja') does not export the requested name 'rows_params'", name='rows_params')
    context.vars.update({'cond_code': l_0_cond_code, 'row_loads': l_0_row_loads, 'small_a_loads': l_0_small_a_loads, 'bound_end': l_0_bound_end, 'rows_params': l_0_rows_params})
    context.exported_vars.difference_update(('cond_code', 'row_loads', 'small_a_loads', 'bound_end', 'rows_params'))
    included_template = environment.get_template('select_reduce/tile.py.jinja', 'select_reduce/forward.py.jinja').make_module(context.get_all(), True, {'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R, 'acc_init': l_0_acc_init, 'bound_end': l_0_bound_end, 'c_end': l_0_c_end, 'c_tile': l_0_c_tile, 'cell_epilogue': l_0_cell_epilogue, 'cond_code': l_0_cond_code, 'per_cell': l_0_per_cell, 'persistent': l_0_persistent, 'row_block': l_0_row_block, 'row_finish': l_0_row_finish, 'row_loads': l_0_row_loads, 'row_prologue': l_0_row_prologue, 'row_selection': l_0_row_selection, 'rows_params': l_0_rows_params, 'small_a_loads': l_0_small_a_loads, 'split_select': l_0_split_select, 'stacked_rows': l_0_stacked_rows, 'tile_loops': l_0_tile_loops, 'tile_norms_a': l_0_tile_norms_a})
    l_0_c_tile = getattr(included_template, 'c_tile', missing)
    if l_0_c_tile is missing:
        l_0_c_tile = undefined(f"the template {included_template.__name__!r} (imported on line 6 in 'select_reduce/forward.py.jinja') does not export the requested name 'c_tile'", name='c_tile')
    l_0_row_finish = getattr(included_template, 'row_finish', missing)
    if l_0_row_finish is missing:
        l_0_row_finish = undefined(f"the template {included_template.__name__!r} (imported on line 6 in 'select_reduce/forward.py.jinja') does not export the requested name 'row_finish'", name='row_finish')
    context.vars.update({'c_tile': l_0_c_tile, 'row_finish': l_0_row_finish})
    context.exported_vars.difference_update(('c_tile', 'row_finish'))
    included_template = environment.get_template('select_reduce/split.py.jinja', 'select_reduce/forward.py.jinja').make_module(context.get_all(), True, {'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R, 'acc_init': l_0_acc_init, 'bound_end': l_0_bound_end, 'c_end': l_0_c_end, 'c_tile': l_0_c_tile, 'cell_epilogue': l_0_cell_epilogue, 'cond_code': l_0_cond_code, 'per_cell': l_0_per_cell, 'persistent': l_0_persistent, 'row_block': l_0_row_block, 'row_finish': l_0_row_finish, 'row_loads': l_0_row_loads, 'row_prologue': l_0_row_prologue, 'row_selection': l_0_row_selection, 'rows_params': l_0_rows_params, 'small_a_loads': l_0_small_a_loads, 'split_select': l_0_split_select, 'stacked_rows': l_0_stacked_rows, 'tile_loops': l_0_tile_loops, 'tile_norms_a': l_0_tile_norms_a})
    l_0_split_select = getattr(included_template, 'split_select', missing)
    if l_0_split_select is missing:
        l_0_split_select = undefined(f"the template {included_template.__name__!r} (imported on line 7 in 'select_reduce/forward.py.jinja') does not export the requested name 'split_select'", name='split_select')
    context.vars['split_select'] = l_0_split_select
    context.exported_vars.discard('split_select')
    (l_0_R, l_0_C, l_0_K, l_0_A, l_0_B, l_0_P) = (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'R'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'C'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'K'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'A'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'B'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'P'))
    context.vars.update({'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R})
    context.exported_vars.update(('A', 'B', 'C', 'K', 'P', 'R'))
    def macro():
        t_7 = []
        l_1_R = l_0_R
        l_1_K = l_0_K
        l_1_range = resolve('range')
        pass
        (l_1_R, l_1_K) = (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'R'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'K'))
        t_7.extend((
            '# spec line ',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'pair_line')),
            ": the rows' norms from ",
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'A')),
            "'s own rows, once a row block (no pre-pass)\nif DOT_MODE == 0:\n    asq = tl.sum(a.to(tl.float32) * a.to(tl.float32), axis=1)\nelif DOT_MODE == 1:\n    asq = tl.zeros([",
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ROWS')),
            '], tl.float32)\n    for ',
            str((undefined(name='K') if l_1_K is missing else l_1_K)),
            '0 in range(0, size_',
            str((undefined(name='K') if l_1_K is missing else l_1_K)),
            ', BLOCK_',
            str(t_6((undefined(name='K') if l_1_K is missing else l_1_K))),
            '):\n        nrm_at = ',
            str((undefined(name='K') if l_1_K is missing else l_1_K)),
            '0 + tl.arange(0, BLOCK_',
            str(t_6((undefined(name='K') if l_1_K is missing else l_1_K))),
            ')\n        nrm_rows = tl.load(a_row[:, None] + nrm_at[None, :] * stride_',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'A')),
            '_',
            str((undefined(name='K') if l_1_K is missing else l_1_K)),
            ',\n                           mask=',
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            '_ok[:, None] & (nrm_at < size_',
            str((undefined(name='K') if l_1_K is missing else l_1_K)),
            ')[None, :], other=0.0).to(tl.float32)\n        asq += tl.sum(nrm_rows * nrm_rows, axis=1)\nelse:\n    asq = tl.zeros([',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ROWS')),
            '], tl.float32)\n',
        ))
        for l_2_k in context.call((undefined(name='range') if l_1_range is missing else l_1_range), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'small_d_max')):
            _loop_vars = {}
            pass
            t_7.extend((
                '    if SMALL_D > ',
                str(l_2_k),
                ':\n        asq += _a',
                str(l_2_k),
                ' * _a',
                str(l_2_k),
                '\n',
            ))
        l_2_k = missing
        t_7.append(
            'ia = 1.0 / tl.maximum(tl.sqrt(asq), 1e-12)',
        )
        return concat(t_7)
    context.exported_vars.add('tile_norms_a')
    context.vars['tile_norms_a'] = l_0_tile_norms_a = Macro(environment, macro, 'tile_norms_a', (), False, False, False, context.eval_ctx.autoescape)
    def macro(l_1_scan):
        t_8 = []
        l_1_C = l_0_C
        if l_1_scan is missing:
            l_1_scan = False
        pass
        l_1_C = environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'C')
        t_8.extend((
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_end = size_',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '\n',
        ))
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'c_bounds'):
            pass
            t_8.extend((
                str(t_5(context.call((undefined(name='bound_end') if l_0_bound_end is missing else l_0_bound_end), str_join(((undefined(name='C') if l_1_C is missing else l_1_C), '_end', )), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'c_bounds'), ': the tiles past the bound are skipped, the full ones need no where'))),
                '\n',
            ))
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_parts'):
            pass
            t_8.extend((
                "if COL_PARTS:  # this program's part of ",
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                ': columns from ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_lo, part_cols of them (dispatch.general_parts)\n    ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_lo = tl.program_id(1) * part_cols\n    ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_end = tl.minimum(tl.maximum(',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_end, ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_lo), ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_lo + part_cols)\nelse:\n    ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_lo = 0\n',
            ))
        else:
            pass
            t_8.extend((
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_lo = 0\n',
            ))
        if l_1_scan:
            pass
            t_8.extend((
                'if TMA:  # the tiles past the last kept ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                ' are skipped (bench/NOTES.md, v21): a scan of the conditions\n    ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_last = tl.max(tl.full([BLOCK_',
                str(t_6((undefined(name='C') if l_1_C is missing else l_1_C))),
                '], -1, tl.int32), axis=0)\n    for ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '0 in range(',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_lo, ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_end, BLOCK_',
                str(t_6((undefined(name='C') if l_1_C is missing else l_1_C))),
                '):\n        offs_',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                ' = ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '0 + tl.arange(0, BLOCK_',
                str(t_6((undefined(name='C') if l_1_C is missing else l_1_C))),
                ')\n        ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_in = offs_',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                ' < ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_end\n        ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_ok = ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_in\n',
            ))
            for l_2_c in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'conds_c'):
                _loop_vars = {}
                pass
                t_8.extend((
                    '        ',
                    str(t_1(context.call((undefined(name='cond_code') if l_0_cond_code is missing else l_0_cond_code), l_2_c, str_join(((undefined(name='C') if l_1_C is missing else l_1_C), '_ok', )), str_join(((undefined(name='C') if l_1_C is missing else l_1_C), '_in', )), _loop_vars=_loop_vars), 8)),
                    '\n',
                ))
            l_2_c = missing
            t_8.extend((
                '        ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_last = tl.maximum(',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_last, tl.max(tl.where(',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_ok, offs_',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                ', -1), axis=0))\n    ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_end = tl.maximum(',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_last + 1, ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_lo)\n',
            ))
        t_8.extend((
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_full = ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_lo + ((',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_end - ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_lo) // BLOCK_',
            str(t_6((undefined(name='C') if l_1_C is missing else l_1_C))),
            ') * BLOCK_',
            str(t_6((undefined(name='C') if l_1_C is missing else l_1_C))),
        ))
        return concat(t_8)
    context.exported_vars.add('c_end')
    context.vars['c_end'] = l_0_c_end = Macro(environment, macro, 'c_end', ('scan',), False, False, False, context.eval_ctx.autoescape)
    def macro(l_1_with_end):
        t_9 = []
        l_1_R = l_0_R
        l_1_C = l_0_C
        l_1_K = l_0_K
        l_1_masked = missing
        if l_1_with_end is missing:
            l_1_with_end = True
        pass
        (l_1_R, l_1_C, l_1_K) = (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'R'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'C'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'K'))
        t_9.extend((
            'if ROW_SLOT:  # one slot per row: each tile reduced at once (dispatch.row_slot)\n    best2 = tl.full([',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ROWS')),
            ', 1], float("',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'fill')),
            '"), tl.float32)\n    if NEED_IDX:\n        idx2 = tl.full([',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ROWS')),
            ', 1], -1, tl.int32)\n',
        ))
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'track_x'):
            pass
            t_9.extend((
                '        x2 = tl.zeros([',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ROWS')),
                ', 1], tl.float32)\n',
            ))
        t_9.extend((
            'else:  # a slot per row and column of the tile\n    best2 = tl.full([',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ROWS')),
            ', BLOCK_',
            str(t_6((undefined(name='C') if l_1_C is missing else l_1_C))),
            '], float("',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'fill')),
            '"), tl.float32)\n    if NEED_IDX:\n        idx2 = tl.full([',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ROWS')),
            ', BLOCK_',
            str(t_6((undefined(name='C') if l_1_C is missing else l_1_C))),
            '], -1, tl.int32)\n',
        ))
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'track_x'):
            pass
            t_9.extend((
                '        x2 = tl.zeros([',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ROWS')),
                ', BLOCK_',
                str(t_6((undefined(name='C') if l_1_C is missing else l_1_C))),
                '], tl.float32)\n',
            ))
        t_9.extend((
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_seen = tl.zeros([BLOCK_',
            str(t_6((undefined(name='C') if l_1_C is missing else l_1_C))),
            '], tl.int32)\n',
        ))
        l_1_masked = (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'tma') and t_3(context.eval_ctx, t_4(context, environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'conds_c'), 'kind', 'equalto', 'mask')))
        if l_1_with_end:
            pass
            t_9.extend((
                str(context.call((undefined(name='c_end') if l_0_c_end is missing else l_0_c_end), (undefined(name='masked') if l_1_masked is missing else l_1_masked))),
                '\n',
            ))
        if (undefined(name='masked') if l_1_masked is missing else l_1_masked):
            pass
            t_9.extend((
                'for ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '0 in range(',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_lo, ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_full, BLOCK_',
                str(t_6((undefined(name='C') if l_1_C is missing else l_1_C))),
                '):\n    ',
                str(t_1(context.call((undefined(name='c_tile') if l_0_c_tile is missing else l_0_c_tile), False, halves=(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2') and environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'key_is_prim'))), 4)),
                '\ntail_end = ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_end  # where the last, partial tile ends: a half tile takes it first\nif TMA:\n    if (',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_full < ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_end) & (',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_end - ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_full <= BLOCK_',
                str(t_6((undefined(name='C') if l_1_C is missing else l_1_C))),
                " // 2):\n        # at most half a tile left: a tile of half the columns (an if of its own: the\n        # compiler joins the two sides of an if-else, and the tiles' shapes differ)\n        ",
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '0 = ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_full\n        ',
                str(t_1(context.call((undefined(name='c_tile') if l_0_c_tile is missing else l_0_c_tile), True, half=True, halves=(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2') and environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'key_is_prim'))), 8)),
                '\n        tail_end = ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_full\nif ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_full < tail_end:  # the last, partial tile\n    ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '0 = ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_full\n    ',
                str(t_1(context.call((undefined(name='c_tile') if l_0_c_tile is missing else l_0_c_tile), True, halves=(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2') and environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'key_is_prim'))), 4)),
                '\n',
            ))
        else:
            pass
            t_9.extend((
                'if ONE_LOOP:  # the last, partial tile in the loop too: its loads join the pipeline (dispatch.one_loop)\n    for ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '0 in range(',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_lo, ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_end, BLOCK_',
                str(t_6((undefined(name='C') if l_1_C is missing else l_1_C))),
                '):\n        ',
                str(t_1(context.call((undefined(name='c_tile') if l_0_c_tile is missing else l_0_c_tile), True, halves=(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2') and environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'key_is_prim'))), 8)),
                "\nelse:  # the full tiles without bounds' masks, then the last, partial tile\n    for ",
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '0 in range(',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_lo, ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_full, BLOCK_',
                str(t_6((undefined(name='C') if l_1_C is missing else l_1_C))),
                '):\n        ',
                str(t_1(context.call((undefined(name='c_tile') if l_0_c_tile is missing else l_0_c_tile), False, halves=(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2') and environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'key_is_prim'))), 8)),
                '\n',
            ))
            if (not environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'conds_c')):
                pass
                t_9.extend((
                    '    ',
                    str((undefined(name='C') if l_1_C is missing else l_1_C)),
                    '_seen += (',
                    str((undefined(name='C') if l_1_C is missing else l_1_C)),
                    '_full > ',
                    str((undefined(name='C') if l_1_C is missing else l_1_C)),
                    '_lo).to(tl.int32)  # full tiles without conditions: each kept every column\n',
                ))
            t_9.extend((
                '    if ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_full < ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_end:\n        ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '0 = ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_full\n        ',
                str(t_1(context.call((undefined(name='c_tile') if l_0_c_tile is missing else l_0_c_tile), True, halves=(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2') and environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'key_is_prim'))), 8)),
                '\n',
            ))
        return concat(t_9)
    context.exported_vars.add('tile_loops')
    context.vars['tile_loops'] = l_0_tile_loops = Macro(environment, macro, 'tile_loops', ('with_end',), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_10 = []
        l_1_R = l_0_R
        l_1_C = l_0_C
        l_1_K = l_0_K
        pass
        (l_1_R, l_1_C, l_1_K) = (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'R'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'C'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'K'))
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'):
            pass
            t_10.extend((
                'offs_',
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                ' = ',
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                '0 + rows % BLOCK_',
                str(t_6((undefined(name='R') if l_1_R is missing else l_1_R))),
                '\n',
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                '_in = (offs_',
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                ' < ',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'end_R')),
                ') & ',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G')),
                '_in\n',
            ))
        else:
            pass
            t_10.extend((
                'offs_',
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                ' = ',
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                '0 + tl.arange(0, BLOCK_',
                str(t_6((undefined(name='R') if l_1_R is missing else l_1_R))),
                ')\n',
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                '_in = offs_',
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                ' < ',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'end_R')),
                '\n',
            ))
        t_10.extend((
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            '_ok = ',
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            '_in\n',
        ))
        for l_2_c in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'conds_r'):
            _loop_vars = {}
            pass
            t_10.extend((
                str(context.call((undefined(name='cond_code') if l_0_cond_code is missing else l_0_cond_code), l_2_c, str_join(((undefined(name='R') if l_1_R is missing else l_1_R), '_ok', )), str_join(((undefined(name='R') if l_1_R is missing else l_1_R), '_in', )), _loop_vars=_loop_vars)),
                '\n',
            ))
        l_2_c = missing
        t_10.extend((
            'a_row = a_rows + offs_',
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            '.to(tl.int64) * stride_',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'A')),
            '_',
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            '\n',
        ))
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2'):
            pass
            t_10.extend((
                'if DOT_MODE < 2:  # the expansion reads the rows less their shift\n    a_row_s = a_rows_s + offs_',
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                '.to(tl.int64) * stride_',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'A')),
                '_',
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                '\n',
            ))
            if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'key_is_prim'):
                pass
                t_10.extend((
                    '    a_row_lo = a_rows_lo + offs_',
                    str((undefined(name='R') if l_1_R is missing else l_1_R)),
                    '.to(tl.int64) * stride_',
                    str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'A')),
                    '_',
                    str((undefined(name='R') if l_1_R is missing else l_1_R)),
                    '\n',
                ))
        t_10.extend((
            str(context.call((undefined(name='row_loads') if l_0_row_loads is missing else l_0_row_loads), forward=True)),
            '\n',
        ))
        if ((environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'pair') != 'l1') and environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2')):
            pass
            t_10.extend((
                "if DOT_MODE == 0:\n    if SHIFT_A == 2:  # 16-bit rows (dispatch.shifts_16bit): read less their shift where the shift is not 0 (a row\n        # whose subtraction rounded holds a NaN there, so it is ranked again from its differences). One load\n        # from either address, by the flag the shift's pass stores past its last coordinate: a load under a\n        # branch, or rows changed in registers, ran the call 3.5-3.9x slower\n        a_src = tl.where(tl.load(shift_ptr + size_",
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                ') != 0, a_row_s, a_row)\n    else:  # the rows less an fp32 shift (written whatever it is), or the rows themselves\n        a_src = a_row_s\n    a = tl.load(a_src[:, None] + offs_',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                '[None, :] * stride_',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'A')),
                '_',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                ',\n                mask=',
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                '_ok[:, None] & ',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                '_in[None, :], other=0.0)\n',
            ))
        elif (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'pair') != 'l1'):
            pass
            t_10.extend((
                'if DOT_MODE == 0:\n    a = tl.load(a_row[:, None] + offs_',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                '[None, :] * stride_',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'A')),
                '_',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                ',\n                mask=',
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                '_ok[:, None] & ',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                '_in[None, :], other=0.0)\n',
            ))
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2'):
            pass
            t_10.append(
                'if DOT_MODE == 0:\n    asq = tl.sum(a.to(tl.float32) * a.to(tl.float32), axis=1)  # the norms from the tile\n',
            )
            if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'key_is_prim'):
                pass
                t_10.extend((
                    '    if HALVES > 0:  # fp32 rows ranked on the fp16 tensor cores (dispatch.halves): a holds the hi halves\n        a_hi = a\n        if HALVES == 3:\n            a_lo = tl.load(a_row_lo[:, None] + offs_',
                    str((undefined(name='K') if l_1_K is missing else l_1_K)),
                    '[None, :] * stride_',
                    str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'A')),
                    '_',
                    str((undefined(name='K') if l_1_K is missing else l_1_K)),
                    ',\n                           mask=',
                    str((undefined(name='R') if l_1_R is missing else l_1_R)),
                    '_ok[:, None] & ',
                    str((undefined(name='K') if l_1_K is missing else l_1_K)),
                    "_in[None, :], other=0.0)\n        # the products back to the rows' own, doubled: each ",
                    str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'A')),
                    " row's 1 / scale (hsr.halves) by its\n        # element offset in the row matrix, ",
                    str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'B')),
                    "'s one\n        a_at = (",
                    str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'a_base')),
                    ' + offs_',
                    str((undefined(name='R') if l_1_R is missing else l_1_R)),
                    '.to(tl.int64) * stride_',
                    str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'A')),
                    '_',
                    str((undefined(name='R') if l_1_R is missing else l_1_R)),
                    ') // a_row_stride\n        two_inv = (2.0 * tl.load(bscale_ptr)) * tl.load(ascale_ptr + a_at, mask=',
                    str((undefined(name='R') if l_1_R is missing else l_1_R)),
                    '_in, other=1.0)[:, None]\n',
                ))
        t_10.extend((
            str(context.call((undefined(name='small_a_loads') if l_0_small_a_loads is missing else l_0_small_a_loads))),
            '\n',
        ))
        if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'pair') == 'cos'):
            pass
            t_10.extend((
                str(context.call((undefined(name='tile_norms_a') if l_0_tile_norms_a is missing else l_0_tile_norms_a))),
                '\n',
            ))
        return concat(t_10)
    context.exported_vars.add('row_prologue')
    context.vars['row_prologue'] = l_0_row_prologue = Macro(environment, macro, 'row_prologue', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_11 = []
        pass
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'split'):
            pass
            t_11.extend((
                str(context.call((undefined(name='c_end') if l_0_c_end is missing else l_0_c_end))),
                "\nif DOT_MODE == 3:  # the key on the tensor cores, then each row's two candidate tiles exactly\n    ",
                str(t_1(context.call((undefined(name='split_select') if l_0_split_select is missing else l_0_split_select)), 4)),
                '\nelse:\n    ',
                str(t_1(context.call((undefined(name='tile_loops') if l_0_tile_loops is missing else l_0_tile_loops), False), 4)),
                '\n',
            ))
        else:
            pass
            t_11.extend((
                str(context.call((undefined(name='tile_loops') if l_0_tile_loops is missing else l_0_tile_loops))),
                '\n',
            ))
        t_11.append(
            str(context.call((undefined(name='row_finish') if l_0_row_finish is missing else l_0_row_finish), halves=(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2') and environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'key_is_prim')), exact=environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ranked_dot'), tile_start=True, parts=environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_parts'))),
        )
        return concat(t_11)
    context.exported_vars.add('row_selection')
    context.vars['row_selection'] = l_0_row_selection = Macro(environment, macro, 'row_selection', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_12 = []
        pass
        t_12.extend((
            str(context.call((undefined(name='row_prologue') if l_0_row_prologue is missing else l_0_row_prologue))),
            str(context.call((undefined(name='row_selection') if l_0_row_selection is missing else l_0_row_selection))),
        ))
        return concat(t_12)
    context.exported_vars.add('row_block')
    context.vars['row_block'] = l_0_row_block = Macro(environment, macro, 'row_block', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_13 = []
        pass
        if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') in ('sum', 'mean')):
            pass
            t_13.extend((
                'acc = tl.zeros([',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ROWS')),
                '], tl.float32)\n',
            ))
            if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') == 'mean'):
                pass
                t_13.extend((
                    'kept = tl.zeros([',
                    str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ROWS')),
                    '], tl.float32)\n',
                ))
        elif (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') in ('max', 'min')):
            pass
            if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'):
                pass
                t_13.extend((
                    'o_best = tl.full([BLOCK_',
                    str(t_6(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'))),
                    '], float("',
                    str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ofill')),
                    '"), tl.float32)\no_idx = tl.full([BLOCK_',
                    str(t_6(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'))),
                    '], -1, tl.int32)\n',
                ))
            else:
                pass
                t_13.extend((
                    'o_best = tl.max(tl.full([BLOCK_',
                    str(t_6((undefined(name='R') if l_0_R is missing else l_0_R))),
                    '], float("',
                    str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ofill')),
                    '"), tl.float32), axis=0)\no_idx = tl.max(tl.full([BLOCK_',
                    str(t_6((undefined(name='R') if l_0_R is missing else l_0_R))),
                    '], -1, tl.int32), axis=0)\n',
                ))
        return concat(t_13)
    context.exported_vars.add('acc_init')
    context.vars['acc_init'] = l_0_acc_init = Macro(environment, macro, 'acc_init', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_14 = []
        l_1_cv = missing
        pass
        l_1_cv = ('cell_out' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G') else 'cell')
        if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') in ('sum', 'mean')):
            pass
            if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'):
                pass
                t_14.extend((
                    '# the outer ',
                    str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer')),
                    ' of each ',
                    str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G')),
                    ': the rows of one ',
                    str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G')),
                    ' are consecutive\ntotal = tl.sum(tl.reshape(acc, [BLOCK_',
                    str(t_6(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'))),
                    ', BLOCK_',
                    str(t_6((undefined(name='R') if l_0_R is missing else l_0_R))),
                    ']), axis=1)\npid_',
                    str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G')),
                    '_out = pid_',
                    str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G')),
                    '_block * BLOCK_',
                    str(t_6(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'))),
                    ' + tl.arange(0, BLOCK_',
                    str(t_6(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'))),
                    ')\ncell_out = ',
                    str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'out_cell_expr')),
                    '\ndone = pid_',
                    str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G')),
                    '_out < size_',
                    str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G')),
                    '\n',
                ))
            else:
                pass
                t_14.append(
                    'total = tl.sum(acc, axis=0)\n',
                )
            if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') == 'mean'):
                pass
                t_14.extend((
                    '# spec line ',
                    str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'line')),
                    ': mean_',
                    str((undefined(name='R') if l_0_R is missing else l_0_R)),
                    ' counts the kept positions only\n',
                ))
                if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'):
                    pass
                    t_14.extend((
                        'n_kept = tl.sum(tl.reshape(kept, [BLOCK_',
                        str(t_6(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'))),
                        ', BLOCK_',
                        str(t_6((undefined(name='R') if l_0_R is missing else l_0_R))),
                        ']), axis=1)\n',
                    ))
                else:
                    pass
                    t_14.append(
                        'n_kept = tl.sum(kept, axis=0)\n',
                    )
                if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'row_split'):
                    pass
                    t_14.extend((
                        'if SPLIT_',
                        str(t_6((undefined(name='R') if l_0_R is missing else l_0_R))),
                        " > 0:  # this chunk's sum and count: the host adds a cell's in order, then divides\n    tl.store(out_ptr + ",
                        str((undefined(name='cv') if l_1_cv is missing else l_1_cv)),
                        ' * n_chunks + chunk, total)\n    tl.store(stat_ptr + ',
                        str((undefined(name='cv') if l_1_cv is missing else l_1_cv)),
                        ' * n_chunks + chunk, n_kept)\nelse:\n    tl.store(out_ptr + ',
                        str((undefined(name='cv') if l_1_cv is missing else l_1_cv)),
                        ', tl.where(n_kept > 0, total / tl.maximum(n_kept, 1.0), 0.0))\n    if NEED_IDX:\n        tl.store(stat_ptr + ',
                        str((undefined(name='cv') if l_1_cv is missing else l_1_cv)),
                        ', n_kept)\n',
                    ))
                else:
                    pass
                    t_14.extend((
                        'total = tl.where(n_kept > 0, total / tl.maximum(n_kept, 1.0), 0.0)\nif NEED_IDX:\n    tl.store(stat_ptr + ',
                        str((undefined(name='cv') if l_1_cv is missing else l_1_cv)),
                        ', n_kept',
                        str((', mask=done' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G') else '')),
                        ')\n',
                    ))
            if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') == 'sum'):
                pass
                t_14.extend((
                    'if SPLIT_',
                    str(t_6((undefined(name='R') if l_0_R is missing else l_0_R))),
                    " > 0:  # this chunk's share of the cell: out is [cells, chunks]\n    tl.store(out_ptr + ",
                    str((undefined(name='cv') if l_1_cv is missing else l_1_cv)),
                    ' * n_chunks + chunk, total',
                    str((', mask=done' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G') else '')),
                    ')\nelse:\n    tl.store(out_ptr + ',
                    str((undefined(name='cv') if l_1_cv is missing else l_1_cv)),
                    ', total',
                    str((', mask=done' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G') else '')),
                    ')\n',
                ))
            elif (not environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'row_split')):
                pass
                t_14.extend((
                    'tl.store(out_ptr + ',
                    str((undefined(name='cv') if l_1_cv is missing else l_1_cv)),
                    ', total',
                    str((', mask=done' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G') else '')),
                    ')\n',
                ))
        elif (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') in ('max', 'min')):
            pass
            t_14.extend((
                '# spec line ',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'line')),
                ': an outer ',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer')),
                ' over no kept row is 0\n',
            ))
            if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'):
                pass
                t_14.extend((
                    'pid_',
                    str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G')),
                    '_out = pid_',
                    str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G')),
                    '_block * BLOCK_',
                    str(t_6(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'))),
                    ' + tl.arange(0, BLOCK_',
                    str(t_6(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'))),
                    ')\ncell_out = ',
                    str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'out_cell_expr')),
                    '\ndone = pid_',
                    str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G')),
                    '_out < size_',
                    str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G')),
                    '\n',
                ))
            if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'row_split'):
                pass
                t_14.extend((
                    'if SPLIT_',
                    str(t_6((undefined(name='R') if l_0_R is missing else l_0_R))),
                    " > 0:  # this chunk's (value, row): the ",
                    str((undefined(name='P') if l_0_P is missing else l_0_P)),
                    "_merge kernel merges a cell's in order\n    tl.store(out_ptr + ",
                    str((undefined(name='cv') if l_1_cv is missing else l_1_cv)),
                    ' * n_chunks + chunk, o_best)\n    tl.store(stat_ptr + ',
                    str((undefined(name='cv') if l_1_cv is missing else l_1_cv)),
                    ' * n_chunks + chunk, o_idx)\nelse:\n    tl.store(out_ptr + ',
                    str((undefined(name='cv') if l_1_cv is missing else l_1_cv)),
                    ', tl.where(o_idx >= 0, o_best, 0.0))\n    if NEED_IDX:\n        tl.store(stat_ptr + ',
                    str((undefined(name='cv') if l_1_cv is missing else l_1_cv)),
                    ', o_idx)\n',
                ))
            else:
                pass
                t_14.extend((
                    'tl.store(out_ptr + ',
                    str((undefined(name='cv') if l_1_cv is missing else l_1_cv)),
                    ', tl.where(o_idx >= 0, o_best, 0.0)',
                    str((', mask=done' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G') else cond_expr_undefined("the inline if-expression on line 259 in 'select_reduce/forward.py.jinja' evaluated to false and no else section was defined."))),
                    ')\nif NEED_IDX:\n    tl.store(stat_ptr + ',
                    str((undefined(name='cv') if l_1_cv is missing else l_1_cv)),
                    ', o_idx',
                    str((', mask=done' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G') else cond_expr_undefined("the inline if-expression on line 261 in 'select_reduce/forward.py.jinja' evaluated to false and no else section was defined."))),
                    ')\n',
                ))
        return concat(t_14)
    context.exported_vars.add('cell_epilogue')
    context.vars['cell_epilogue'] = l_0_cell_epilogue = Macro(environment, macro, 'cell_epilogue', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_15 = []
        pass
        t_15.extend((
            '# rows of the ',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'A')),
            ' tile: BLOCK_',
            str(t_6(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'))),
            ' values of ',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G')),
            ' x BLOCK_',
            str(t_6(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'R'))),
            ' values of ',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'R')),
            '\nrows = tl.arange(0, BLOCK_',
            str(t_6(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'))),
            ' * BLOCK_',
            str(t_6(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'R'))),
            ')\npid_',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G')),
            ' = pid_',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G')),
            '_block * BLOCK_',
            str(t_6(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'))),
            ' + rows // BLOCK_',
            str(t_6(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'R'))),
            '\n',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G')),
            '_in = pid_',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G')),
            ' < size_',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G')),
        ))
        return concat(t_15)
    context.exported_vars.add('stacked_rows')
    context.vars['stacked_rows'] = l_0_stacked_rows = Macro(environment, macro, 'stacked_rows', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_16 = []
        pass
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'row_split'):
            pass
            t_16.extend((
                'if SPLIT_',
                str(t_6((undefined(name='R') if l_0_R is missing else l_0_R))),
                ' > 0:\n    # one program per (cell, chunk of ',
                str((undefined(name='R') if l_0_R is missing else l_0_R)),
                "): a cell's chunks are neighbours in launch\n    # order, so they read its ",
                str((undefined(name='B') if l_0_B is missing else l_0_B)),
                ' tiles from L2 (bench/NOTES.md, v15); each\n    # writes its share',
                str((' (its best row and value)' if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') != 'sum') else cond_expr_undefined("the inline if-expression on line 276 in 'select_reduce/forward.py.jinja' evaluated to false and no else section was defined."))),
                ", and the host merges a cell's in a fixed order\n    tl.static_assert(BLOCK_",
                str(t_6((undefined(name='R') if l_0_R is missing else l_0_R))),
                ' == SPLIT_',
                str(t_6((undefined(name='R') if l_0_R is missing else l_0_R))),
                ')\n    n_chunks = tl.cdiv(size_',
                str((undefined(name='R') if l_0_R is missing else l_0_R)),
                ', BLOCK_',
                str(t_6((undefined(name='R') if l_0_R is missing else l_0_R))),
                ')\n    chunk = tl.program_id(0) % n_chunks\n    cell = (tl.program_id(0) // n_chunks).to(tl.int64)\n    ',
                str((undefined(name='R') if l_0_R is missing else l_0_R)),
                '_lo = chunk * BLOCK_',
                str(t_6((undefined(name='R') if l_0_R is missing else l_0_R))),
                '\n    ',
                str((undefined(name='R') if l_0_R is missing else l_0_R)),
                '_hi = ',
                str((undefined(name='R') if l_0_R is missing else l_0_R)),
                '_lo + 1  # one chunk\nelse:\n    cell = tl.program_id(0).to(tl.int64)\n    ',
                str((undefined(name='R') if l_0_R is missing else l_0_R)),
                '_lo = 0\n    ',
                str((undefined(name='R') if l_0_R is missing else l_0_R)),
                '_hi = size_',
                str((undefined(name='R') if l_0_R is missing else l_0_R)),
                '\n',
            ))
        elif (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') == 'none'):
            pass
            t_16.extend((
                '# one program per (cell, block of ',
                str((undefined(name='R') if l_0_R is missing else l_0_R)),
                ") on a flat grid (a grid's second axis stops at 65535\n# blocks): the cells of one block are neighbours in launch order\nn_cells = ",
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'n_cells_kernel')),
                '\ncell = (tl.program_id(0) % n_cells).to(tl.int64)\n',
                str((undefined(name='R') if l_0_R is missing else l_0_R)),
                '_block = tl.program_id(0) // n_cells\n',
            ))
            if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_parts'):
                pass
                t_16.extend((
                    "if COL_PARTS:  # a part's outputs: its own slice of [parts, cells x ",
                    str((undefined(name='R') if l_0_R is missing else l_0_R)),
                    '] (the merge reads them)\n    part_at = tl.program_id(1).to(tl.int64) * n_cells * size_',
                    str((undefined(name='R') if l_0_R is missing else l_0_R)),
                    '\n    out_ptr += part_at\n    idx_ptr += part_at\n    stat_ptr += part_at\n    xsel_ptr += part_at\n',
                ))
        else:
            pass
            t_16.append(
                'cell = tl.program_id(0).to(tl.int64)\n',
            )
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'):
            pass
            t_16.extend((
                'if G_FIRST:  # blocks of ',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G')),
                ' first: programs running at once share ',
                str((undefined(name='B') if l_0_B is missing else l_0_B)),
                ' tiles (dispatch.stacked_first)\n',
            ))
            for l_2_stmt in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'decompose_cell_g_first'):
                _loop_vars = {}
                pass
                t_16.extend((
                    '    ',
                    str(l_2_stmt),
                    '\n',
                ))
            l_2_stmt = missing
            t_16.append(
                'else:\n',
            )
            for l_2_stmt in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'decompose_cell'):
                _loop_vars = {}
                pass
                t_16.extend((
                    '    ',
                    str(l_2_stmt),
                    '\n',
                ))
            l_2_stmt = missing
        else:
            pass
            for l_2_stmt in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'decompose_cell'):
                _loop_vars = {}
                pass
                t_16.extend((
                    str(l_2_stmt),
                    '\n',
                ))
            l_2_stmt = missing
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'):
            pass
            t_16.extend((
                str(context.call((undefined(name='stacked_rows') if l_0_stacked_rows is missing else l_0_stacked_rows))),
                '\nrow_cell = ',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cell_expr')),
                '\n',
            ))
        t_16.extend((
            'a_rows = ',
            str((undefined(name='A') if l_0_A is missing else l_0_A)),
            '_ptr + ',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'a_base')),
            '\nb_rows = ',
            str((undefined(name='B') if l_0_B is missing else l_0_B)),
            '_ptr + ',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'b_base')),
            '\n',
        ))
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2'):
            pass
            t_16.extend((
                'a_rows_s = ',
                str((undefined(name='A') if l_0_A is missing else l_0_A)),
                's_ptr + ',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'a_base')),
                '  # the rows less their shift, for the expansion (DOT_MODE 0, 1)\na_rows_lo = ',
                str((undefined(name='A') if l_0_A is missing else l_0_A)),
                'lo_ptr + ',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'a_base')),
                '  # with HALVES, *s hold the hi halves of the scaled rows, *lo the lo ones\nb_rows_s = ',
                str((undefined(name='B') if l_0_B is missing else l_0_B)),
                's_ptr + ',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'b_base')),
                '\nb_rows_lo = ',
                str((undefined(name='B') if l_0_B is missing else l_0_B)),
                'lo_ptr + ',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'b_base')),
                '\ncn_rows = cn_ptr + ',
                str(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cn'), 'base')),
                "  # with COL_NORMS, the shifted rows' squared norms (dispatch.col_norms)\n",
            ))
        t_16.extend((
            'offs_',
            str((undefined(name='K') if l_0_K is missing else l_0_K)),
            ' = tl.arange(0, BLOCK_',
            str(t_6((undefined(name='K') if l_0_K is missing else l_0_K))),
            ')\n',
            str((undefined(name='K') if l_0_K is missing else l_0_K)),
            '_in = offs_',
            str((undefined(name='K') if l_0_K is missing else l_0_K)),
            ' < size_',
            str((undefined(name='K') if l_0_K is missing else l_0_K)),
            '\n',
            str(context.call((undefined(name='acc_init') if l_0_acc_init is missing else l_0_acc_init))),
        ))
        if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') == 'none'):
            pass
            t_16.extend((
                str((undefined(name='R') if l_0_R is missing else l_0_R)),
                '0 = ',
                str((undefined(name='R') if l_0_R is missing else l_0_R)),
                '_block * BLOCK_',
                str(t_6((undefined(name='R') if l_0_R is missing else l_0_R))),
                '\n',
                str(context.call((undefined(name='row_block') if l_0_row_block is missing else l_0_row_block))),
                '\n',
            ))
        elif environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'row_split'):
            pass
            if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ragged_r'):
                pass
                t_16.extend((
                    '# spec line ',
                    str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'line')),
                    ': ',
                    str((undefined(name='R') if l_0_R is missing else l_0_R)),
                    " is ragged: the rows past this sequence's end are not visited\nfor ",
                    str((undefined(name='R') if l_0_R is missing else l_0_R)),
                    '0 in range(',
                    str((undefined(name='R') if l_0_R is missing else l_0_R)),
                    '_lo, tl.minimum(',
                    str((undefined(name='R') if l_0_R is missing else l_0_R)),
                    '_hi, ',
                    str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'loop_end_R')),
                    '), BLOCK_',
                    str(t_6((undefined(name='R') if l_0_R is missing else l_0_R))),
                    '):\n',
                ))
            else:
                pass
                t_16.extend((
                    'for ',
                    str((undefined(name='R') if l_0_R is missing else l_0_R)),
                    '0 in range(',
                    str((undefined(name='R') if l_0_R is missing else l_0_R)),
                    '_lo, ',
                    str((undefined(name='R') if l_0_R is missing else l_0_R)),
                    '_hi, BLOCK_',
                    str(t_6((undefined(name='R') if l_0_R is missing else l_0_R))),
                    '):\n',
                ))
            t_16.extend((
                '    ',
                str(t_1(context.call((undefined(name='row_block') if l_0_row_block is missing else l_0_row_block)), 4)),
                '\n',
            ))
        else:
            pass
            t_16.extend((
                'for ',
                str((undefined(name='R') if l_0_R is missing else l_0_R)),
                '0 in range(0, ',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'loop_end_R')),
                ', BLOCK_',
                str(t_6((undefined(name='R') if l_0_R is missing else l_0_R))),
                '):\n    ',
                str(t_1(context.call((undefined(name='row_block') if l_0_row_block is missing else l_0_row_block)), 4)),
                '\n',
            ))
        t_16.append(
            str(context.call((undefined(name='cell_epilogue') if l_0_cell_epilogue is missing else l_0_cell_epilogue))),
        )
        return concat(t_16)
    context.exported_vars.add('per_cell')
    context.vars['per_cell'] = l_0_per_cell = Macro(environment, macro, 'per_cell', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_17 = []
        pass
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'row_split'):
            pass
            t_17.extend((
                'tl.static_assert(SPLIT_',
                str(t_6((undefined(name='R') if l_0_R is missing else l_0_R))),
                ' == 0)\n',
            ))
        t_17.extend((
            'n_blocks = tl.cdiv(size_',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G')),
            ', BLOCK_',
            str(t_6(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'))),
            ')\npid_',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G')),
            '_block = tl.program_id(0) % n_blocks\nrun = (tl.program_id(0) // n_blocks).to(tl.int64)\nn_runs = tl.num_programs(0) // n_blocks\nn_run_cells = ',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'n_run_cells')),
            "\n# this program's run of the other cells; the blocks' programs of one run sit side by side in launch\n# order, so the programs running at once share their ",
            str((undefined(name='B') if l_0_B is missing else l_0_B)),
            ' tiles\nrun_lo = (run * n_run_cells) // n_runs\nrun_hi = ((run + 1) * n_run_cells) // n_runs\n',
            str(context.call((undefined(name='stacked_rows') if l_0_stacked_rows is missing else l_0_stacked_rows))),
            '\na_rows = ',
            str((undefined(name='A') if l_0_A is missing else l_0_A)),
            '_ptr + ',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'a_base')),
            '\n',
        ))
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2'):
            pass
            t_17.extend((
                'a_rows_s = ',
                str((undefined(name='A') if l_0_A is missing else l_0_A)),
                's_ptr + ',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'a_base')),
                '  # the rows less their shift, for the expansion (DOT_MODE 0, 1)\na_rows_lo = ',
                str((undefined(name='A') if l_0_A is missing else l_0_A)),
                'lo_ptr + ',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'a_base')),
                '  # with HALVES, the lo halves of the scaled rows\n',
            ))
        t_17.extend((
            'offs_',
            str((undefined(name='K') if l_0_K is missing else l_0_K)),
            ' = tl.arange(0, BLOCK_',
            str(t_6((undefined(name='K') if l_0_K is missing else l_0_K))),
            ')\n',
            str((undefined(name='K') if l_0_K is missing else l_0_K)),
            '_in = offs_',
            str((undefined(name='K') if l_0_K is missing else l_0_K)),
            ' < size_',
            str((undefined(name='K') if l_0_K is missing else l_0_K)),
            '\n',
            str((undefined(name='R') if l_0_R is missing else l_0_R)),
            '0 = 0  # the host runs it where one row block holds ',
            str((undefined(name='R') if l_0_R is missing else l_0_R)),
            ' (dispatch.PERSIST_MAX_ROWS)\n',
            str(context.call((undefined(name='row_prologue') if l_0_row_prologue is missing else l_0_row_prologue))),
            '\nfor run_cell in range(run_lo, run_hi):\n',
        ))
        for l_2_stmt in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'decompose_run'):
            _loop_vars = {}
            pass
            t_17.extend((
                '    ',
                str(l_2_stmt),
                '\n',
            ))
        l_2_stmt = missing
        t_17.extend((
            '    row_cell = ',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cell_expr')),
            '\n    b_rows = ',
            str((undefined(name='B') if l_0_B is missing else l_0_B)),
            '_ptr + ',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'b_base')),
            '\n',
        ))
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2'):
            pass
            t_17.extend((
                '    b_rows_s = ',
                str((undefined(name='B') if l_0_B is missing else l_0_B)),
                's_ptr + ',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'b_base')),
                '\n    b_rows_lo = ',
                str((undefined(name='B') if l_0_B is missing else l_0_B)),
                'lo_ptr + ',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'b_base')),
                '\n    cn_rows = cn_ptr + ',
                str(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cn'), 'base')),
                "  # with COL_NORMS, the shifted rows' squared norms (dispatch.col_norms)\n",
            ))
        t_17.extend((
            '    ',
            str(t_1(context.call((undefined(name='acc_init') if l_0_acc_init is missing else l_0_acc_init)), 4)),
            '\n    ',
            str(t_1(context.call((undefined(name='row_selection') if l_0_row_selection is missing else l_0_row_selection)), 4)),
            '\n    ',
            str(t_1(context.call((undefined(name='cell_epilogue') if l_0_cell_epilogue is missing else l_0_cell_epilogue)), 4)),
        ))
        return concat(t_17)
    context.exported_vars.add('persistent')
    context.vars['persistent'] = l_0_persistent = Macro(environment, macro, 'persistent', (), False, False, False, context.eval_ctx.autoescape)
    yield '\n'
    if ((environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'aux') or environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2')) or (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean') and environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cos'))):
        pass
        yield '@triton.jit\ndef '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_row_norms(x_ptr, out_ptr, n_rows, n_out, size_k, row_stride, BLOCK: tl.constexpr, BLOCK_K: tl.constexpr,\n                     INVERSE: tl.constexpr):\n    """Each row\'s squared norm in fp32, out [n_rows], from x read as [n_rows, size_k] rows,\n    in one launch: the lean forward\'s column norms (formed in every program\'s tiles they\n    cost more than the loop\'s dot, bench/NOTES.md, session 19), the general loop\'s L2\n    column norms (dispatch.col_norms) and the backward\'s row norms. out holds n_out >= n_rows\n    values: zeros past n_rows. INVERSE: 1 / max(|x|, 1e-12), a cosine\'s column scale (formed\n    in each tile, its square root and division were most of the lean loop\'s instructions)."""\n    # spec line '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'pair_line'))
        yield ': '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'pair_text'))
        yield '\n    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n    acc = tl.zeros([BLOCK], tl.float32)\n    for k0 in range(0, size_k, BLOCK_K):\n        offs = k0 + tl.arange(0, BLOCK_K)\n        x = tl.load(x_ptr + rows.to(tl.int64)[:, None] * row_stride + offs[None, :],\n                    mask=(rows < n_rows)[:, None] & (offs < size_k)[None, :], other=0.0).to(tl.float32)\n        acc += tl.sum(x * x, axis=1)\n    if INVERSE:\n        acc = tl.where(rows < n_rows, 1.0 / tl.maximum(tl.sqrt(acc), 1e-12), 0.0)\n    tl.store(out_ptr + rows, acc, mask=rows < n_out)\n\n\n'
    if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') in ('max', 'min')):
        pass
        yield '\n@triton.jit\ndef _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_outer(x, y):\n    """The outer '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer'))
        yield ', keeping NaN."""\n    return tl.'
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ocombine'))
        yield '(x, y, propagate_nan=tl.PropagateNan.ALL)\n\n\n@triton.jit\ndef '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_merge(vals_ptr, rows_ptr, out_ptr, stat_ptr, n_cells, n_chunks, HAS_STAT: tl.constexpr, BLOCK: tl.constexpr):\n    """Each cell\'s chunk partials of the outer '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer'))
        yield ' ([cells, chunks] values and rows, row\n    -1 where a chunk kept none), merged in chunk order: the best value wins, NaN first; a tie\n    keeps the earlier chunk (its lower row). A cell with no kept row is 0 with row -1."""\n    cells = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n    ok = cells < n_cells\n    at = cells.to(tl.int64) * n_chunks\n    best = tl.full([BLOCK], float("'
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ofill'))
        yield '"), tl.float32)\n    row = tl.full([BLOCK], -1, tl.int32)\n    for c in range(0, n_chunks):\n        v = tl.load(vals_ptr + at + c, mask=ok, other=float("'
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ofill'))
        yield '"))\n        r = tl.load(rows_ptr + at + c, mask=ok, other=-1)\n        take = (r >= 0) & ((row < 0) | (v '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'obetter'))
        yield ' best) | ((v != v) & (best == best)))\n        best = tl.where(take, v, best)\n        row = tl.where(take, r, row)\n    tl.store(out_ptr + cells, tl.where(row >= 0, best, 0.0), mask=ok)\n    if HAS_STAT:\n        tl.store(stat_ptr + cells, row, mask=ok)\n'
    yield '\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_parts'):
        pass
        yield '\n\n@triton.jit\ndef '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_part_merge(key_ptr, out_parts_ptr, idx_parts_ptr, xsel_parts_ptr, out_ptr, idx_ptr, xsel_ptr, n, n_parts,\n                       HAS_IDX: tl.constexpr, HAS_X: tl.constexpr, BLOCK: tl.constexpr):\n    """Each row\'s parts of '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield " ([parts, n]: the ranking value, the output, the index, x at the\n    index), merged in part order as one program's tiles would go: the "
        yield str(('greatest' if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'select') == 'max') else 'least'))
        yield ' value wins, NaN\n    first; a tie keeps the earlier part (its lower index); a part that selected nothing (index < 0)\n    is passed over. A row no part selected in takes part 0\'s (-1, or -2 where the row is left out)."""\n    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n    ok = rows < n\n    best = tl.full([BLOCK], float("'
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'fill'))
        yield '"), tl.float32)\n    part = tl.full([BLOCK], -1, tl.int32)\n    for p in range(0, n_parts):\n        at = p * n + rows.to(tl.int64)\n        k = tl.load(key_ptr + at, mask=ok, other=0.0)\n        i = tl.load(idx_parts_ptr + at, mask=ok, other=-1)\n        take = (i >= 0) & ((part < 0) | (k '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'better'))
        yield ' best) | ((k != k) & (best == best)))\n        best = tl.where(take, k, best)\n        part = tl.where(take, p, part)\n    src = tl.maximum(part, 0).to(tl.int64) * n + rows\n    tl.store(out_ptr + rows, tl.load(out_parts_ptr + src, mask=ok), mask=ok)\n    if HAS_IDX:\n        tl.store(idx_ptr + rows, tl.load(idx_parts_ptr + src, mask=ok), mask=ok)\n    if HAS_X:\n        tl.store(xsel_ptr + rows, tl.load(xsel_parts_ptr + src, mask=ok), mask=ok)\n'
    yield '\n\n@triton.jit\ndef '
    yield str((undefined(name='P') if l_0_P is missing else l_0_P))
    yield '_fwd(\n    '
    yield str((undefined(name='A') if l_0_A is missing else l_0_A))
    yield '_ptr, '
    yield str((undefined(name='B') if l_0_B is missing else l_0_B))
    yield '_ptr,'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2'):
        pass
        yield ' '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield 's_ptr, '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield 's_ptr, '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield 'lo_ptr, '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield 'lo_ptr, ascale_ptr, bscale_ptr, cn_ptr, shift_ptr,'
    for l_1_x in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'aux'):
        _loop_vars = {}
        pass
        yield ' aux_'
        yield str(environment.getattr(l_1_x, 'name'))
        yield '_ptr,'
    l_1_x = missing
    for l_1_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'sides'):
        _loop_vars = {}
        pass
        yield ' '
        yield str(environment.getattr(l_1_s, 'name'))
        yield '_ptr,'
    l_1_s = missing
    for l_1_c in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cond_tensors'):
        _loop_vars = {}
        pass
        yield ' '
        yield str(l_1_c)
        yield '_ptr,'
    l_1_c = missing
    def t_18(fiter):
        for l_1_o in fiter:
            if (l_1_o not in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cond_tensors')):
                yield l_1_o
    for l_1_o in t_18(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'offsets')):
        _loop_vars = {}
        pass
        yield ' '
        yield str(l_1_o)
        yield '_ptr,'
    l_1_o = missing
    yield '\n    out_ptr, idx_ptr, stat_ptr, xsel_ptr,'
    yield str((' part_cols,' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_parts') else cond_expr_undefined("the inline if-expression on line 478 in 'select_reduce/forward.py.jinja' evaluated to false and no else section was defined.")))
    yield str((' split_a_ptr, split_b_ptr, split_tol_ptr,' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'split') else cond_expr_undefined("the inline if-expression on line 478 in 'select_reduce/forward.py.jinja' evaluated to false and no else section was defined.")))
    yield str((' a_desc, b_desc, b_half,' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'tma') else cond_expr_undefined("the inline if-expression on line 478 in 'select_reduce/forward.py.jinja' evaluated to false and no else section was defined.")))
    yield '\n    '
    yield str(t_2(context.eval_ctx, environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'sizes'), ', '))
    yield ',\n'
    for l_1_line in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'stride_params'):
        _loop_vars = {}
        pass
        yield '    '
        yield str(l_1_line)
        yield ',\n'
    l_1_line = missing
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2'):
        pass
        yield '    '
        yield str(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cn'), 'strides'))
        yield ', a_row_stride,\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ostrides'):
        pass
        yield '    '
        yield str(t_2(context.eval_ctx, environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ostrides'), ', '))
        yield ',\n'
    yield '    r_bucket, c_bucket,'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'):
        pass
        yield ' g_bucket,'
    yield '  # autotune keys only\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows'):
        pass
        yield '    '
        yield str(context.call((undefined(name='rows_params') if l_0_rows_params is missing else l_0_rows_params)))
        yield '\n'
    for l_1_name in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'optional'):
        _loop_vars = {}
        pass
        yield '    HAS_'
        yield str(l_1_name)
        yield ': tl.constexpr,\n'
    l_1_name = missing
    yield '    BLOCK_'
    yield str(t_6((undefined(name='R') if l_0_R is missing else l_0_R)))
    yield ': tl.constexpr, BLOCK_'
    yield str(t_6((undefined(name='C') if l_0_C is missing else l_0_C)))
    yield ': tl.constexpr, BLOCK_'
    yield str(t_6((undefined(name='K') if l_0_K is missing else l_0_K)))
    yield ': tl.constexpr,\n    NEED_IDX: tl.constexpr, PRECISION: tl.constexpr, DOT_FP32: tl.constexpr, DOT_MODE: tl.constexpr, ROW_SLOT: tl.constexpr, SMALL_D: tl.constexpr,'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ties'):
        pass
        yield ' TIES: tl.constexpr,'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2'):
        pass
        yield ' COL_NORMS: tl.constexpr, HALVES: tl.constexpr, SHIFT_A: tl.constexpr,'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ranked_dot'):
        pass
        yield ' EXACT_SEL: tl.constexpr,'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'):
        pass
        yield ' BLOCK_'
        yield str(t_6(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G')))
        yield ': tl.constexpr, G_FIRST: tl.constexpr,'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'persist'):
        pass
        yield ' PERSIST: tl.constexpr,'
    yield ' ONE_LOOP: tl.constexpr,'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'row_split'):
        pass
        yield ' SPLIT_'
        yield str(t_6((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield ': tl.constexpr,'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_parts'):
        pass
        yield ' COL_PARTS: tl.constexpr,'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'tma'):
        pass
        yield ' TMA: tl.constexpr,'
    if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows') and (not environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows'), 'projects'))):
        pass
        yield ' SWAP: tl.constexpr,'
    yield '\n):\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'):
        pass
        yield '    """Forward of '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield ': one program per output cell ('
        yield str(t_2(context.eval_ctx, environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'grid'), ', '))
        yield '), with\n    BLOCK_'
        yield str(t_6(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G')))
        yield ' values of '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'))
        yield ' stacked in one '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield ' tile, so that each '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield ' tile\n    loaded serves them all'
        yield str(('; or with PERSIST, programs that each keep one such tile and walk a run of cells' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'persist') else cond_expr_undefined("the inline if-expression on line 503 in 'select_reduce/forward.py.jinja' evaluated to false and no else section was defined.")))
        yield '."""\n'
    elif (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') == 'none'):
        pass
        yield '    """Forward of '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield ': one program per ('
        yield str(t_2(context.eval_ctx, (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'grid') + [str_join(('block of ', (undefined(name='R') if l_0_R is missing else l_0_R), ))]), ', '))
        yield ')'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_parts'):
            pass
            yield ', or\n    with COL_PARTS one per (those, part of '
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield "), each writing its rows' selection in its part"
        yield '."""\n'
    elif environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'row_split'):
        pass
        yield '    """Forward of '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield ': one program per output cell ('
        yield str(t_2(context.eval_ctx, environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'grid'), ', '))
        yield '), or with\n    SPLIT_'
        yield str(t_6((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield ' (rows per chunk) one per (cell, chunk of '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ')."""\n'
    else:
        pass
        yield '    """Forward of '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield ': one program per output cell ('
        yield str(t_2(context.eval_ctx, environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'grid'), ', '))
        yield ')."""\n'
    yield '    # spec line '
    yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'line'))
    yield ': '
    yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'spec_line'))
    yield '\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'persist'):
        pass
        yield '    if PERSIST:  # programs that keep their block of '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'))
        yield ' and walk the other cells (dispatch.persistent)\n        '
        yield str(t_1(context.call((undefined(name='persistent') if l_0_persistent is missing else l_0_persistent)), 8))
        yield '\n    else:\n        '
        yield str(t_1(context.call((undefined(name='per_cell') if l_0_per_cell is missing else l_0_per_cell)), 8))
        yield '\n'
    else:
        pass
        yield '    '
        yield str(t_1(context.call((undefined(name='per_cell') if l_0_per_cell is missing else l_0_per_cell)), 4))
        yield '\n'

blocks = {}
debug_info = '5=49&6=67&7=76&8=82&9=85&10=91&11=94&15=98&16=100&17=106&18=110&19=114&22=118&23=121&24=126&25=128&29=140&30=146&31=148&32=153&33=156&35=159&36=163&37=167&38=169&40=177&42=183&44=186&45=190&46=192&47=196&48=204&49=210&50=216&51=221&52=226&54=232&55=240&57=248&59=263&60=272&62=275&64=279&65=282&66=286&69=291&71=297&72=302&73=306&75=312&76=317&77=318&78=321&80=324&81=328&82=336&83=338&85=340&88=350&89=354&90=356&91=358&92=360&93=364&96=371&97=379&99=381&100=389&101=392&102=396&104=405&105=409&106=413&109=419&111=425&112=426&113=430&114=436&116=449&117=455&119=463&120=468&121=472&123=478&124=485&126=489&127=496&128=500&131=508&132=511&138=515&141=517&142=523&143=528&145=532&146=538&148=543&151=548&155=552&156=558&157=562&158=564&159=566&160=574&163=578&164=581&165=584&168=590&170=593&171=596&173=598&175=600&177=606&179=610&181=615&182=619&185=625&186=628&187=632&188=635&189=639&191=642&192=644&193=648&194=652&196=659&197=663&201=669&203=673&204=674&205=676&206=680&207=686&208=690&209=698&210=700&214=710&215=714&216=719&217=723&221=733&222=737&223=739&224=741&226=743&228=745&232=752&235=757&236=761&237=763&239=767&240=772&241=776&243=781&244=785&245=790&246=794&247=802&248=804&250=809&251=813&252=817&253=819&255=821&257=823&259=830&261=834&265=842&266=847&267=857&268=861&269=869&271=878&272=881&273=885&274=887&275=889&276=891&277=893&278=897&281=901&282=905&285=909&286=911&287=916&288=920&290=922&292=924&293=927&294=931&295=933&304=941&305=945&306=950&307=955&310=962&311=967&314=973&315=977&318=981&319=984&320=986&322=991&323=995&324=1000&325=1004&326=1008&327=1012&328=1016&329=1020&331=1025&332=1029&333=1035&334=1040&335=1046&336=1049&337=1051&338=1055&339=1059&341=1074&343=1085&345=1092&346=1098&348=1102&350=1107&353=1110&354=1114&356=1119&357=1123&360=1125&362=1127&365=1129&366=1131&367=1136&368=1140&369=1144&371=1151&372=1155&373=1161&374=1165&376=1168&377=1173&379=1179&380=1181&381=1186&382=1190&383=1194&384=1198&386=1203&387=1205&388=1207&391=1213&393=1216&401=1218&415=1222&418=1225&419=1227&420=1229&424=1231&425=1233&431=1235&434=1237&436=1239&444=1242&448=1245&450=1247&451=1249&456=1251&462=1253&475=1256&476=1258&478=1306&479=1310&480=1312&481=1316&483=1319&484=1322&486=1324&487=1327&489=1330&490=1334&491=1337&493=1339&494=1343&496=1347&497=1353&500=1386&501=1389&502=1393&503=1401&504=1403&505=1406&506=1413&507=1416&508=1419&509=1423&511=1430&513=1435&514=1439&515=1442&516=1444&518=1446&520=1451'
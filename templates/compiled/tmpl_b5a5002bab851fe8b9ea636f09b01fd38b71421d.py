from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'select_reduce/lean.py.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_t = resolve('t')
    l_0_cond_code = l_0_side_load = l_0_rank_again = l_0_R = l_0_C = l_0_K = l_0_A = l_0_B = l_0_P = l_0_R_END = l_0_C_END = l_0_lean_c_ok = l_0_lean_mask_loads = l_0_lean_col_loads = l_0_lean_step = l_0_lean_l2_at_selection = l_0_lean_merge = l_0_lean_l2_again = missing
    try:
        t_1 = environment.filters['indent']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'indent' found.")
    try:
        t_2 = environment.filters['list']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'list' found.")
    try:
        t_3 = environment.filters['selectattr']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'selectattr' found.")
    try:
        t_4 = environment.filters['trim']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'trim' found.")
    try:
        t_5 = environment.filters['upper']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No filter named 'upper' found.")
    pass
    included_template = environment.get_template('select_reduce/common.py.jinja', 'select_reduce/lean.py.jinja').make_module(context.get_all(), True, {'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'C_END': l_0_C_END, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R, 'R_END': l_0_R_END, 'cond_code': l_0_cond_code, 'lean_c_ok': l_0_lean_c_ok, 'lean_col_loads': l_0_lean_col_loads, 'lean_l2_again': l_0_lean_l2_again, 'lean_l2_at_selection': l_0_lean_l2_at_selection, 'lean_mask_loads': l_0_lean_mask_loads, 'lean_merge': l_0_lean_merge, 'lean_step': l_0_lean_step, 'rank_again': l_0_rank_again, 'side_load': l_0_side_load})
    l_0_cond_code = getattr(included_template, 'cond_code', missing)
    if l_0_cond_code is missing:
        l_0_cond_code = undefined(f"the template {included_template.__name__!r} (imported on line 3 in 'select_reduce/lean.py.jinja') does not export the requested name 'cond_code'", name='cond_code')
    l_0_side_load = getattr(included_template, 'side_load', missing)
    if l_0_side_load is missing:
        l_0_side_load = undefined(f"the template {included_template.__name__!r} (imported on line 3 in 'select_reduce/lean.py.jinja') does not export the requested name 'side_load'", name='side_load')
    l_0_rank_again = getattr(included_template, 'rank_again', missing)
    if l_0_rank_again is missing:
        l_0_rank_again = undefined(f"the template {included_template.__name__!r} (imported on line 3 in 'select_reduce/lean.py.jinja') does not export the requested name 'rank_again'", name='rank_again')
    context.vars.update({'cond_code': l_0_cond_code, 'side_load': l_0_side_load, 'rank_again': l_0_rank_again})
    context.exported_vars.difference_update(('cond_code', 'side_load', 'rank_again'))
    (l_0_R, l_0_C, l_0_K, l_0_A, l_0_B, l_0_P) = (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'R'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'C'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'K'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'A'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'B'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'P'))
    context.vars.update({'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R})
    context.exported_vars.update(('A', 'B', 'C', 'K', 'P', 'R'))
    (l_0_R_END, l_0_C_END) = ((environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'end_r'), environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'end_c')) if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean') else (str_join(('size_', environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'R'), )), str_join(('size_', environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'C'), ))))
    context.vars.update({'C_END': l_0_C_END, 'R_END': l_0_R_END})
    context.exported_vars.update(('C_END', 'R_END'))
    def macro():
        t_6 = []
        l_1_C = l_0_C
        pass
        l_1_C = environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'C')
        t_6.extend((
            'if ',
            str(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'c_guard')),
            ':  # the conditions on ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            ', where a mask is given\n    ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_in = offs_',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            ' < size_',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '\n    ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_ok = ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_in\n',
        ))
        def t_7(fiter):
            for l_2_c in fiter:
                if (environment.getattr(l_2_c, 'name') in environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'masks')):
                    yield l_2_c
        for l_2_c in t_7(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'conds_c')):
            _loop_vars = {}
            pass
            t_6.extend((
                '    ',
                str(t_1(context.call((undefined(name='cond_code') if l_0_cond_code is missing else l_0_cond_code), l_2_c, str_join(((undefined(name='C') if l_1_C is missing else l_1_C), '_ok', )), str_join(((undefined(name='C') if l_1_C is missing else l_1_C), '_in', )), _loop_vars=_loop_vars), 4)),
                '\n',
            ))
        l_2_c = missing
        t_6.extend((
            '    dot = tl.where(',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_ok[None, :], dot, float("',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'fill')),
            '"))',
        ))
        return concat(t_6)
    context.exported_vars.add('lean_c_ok')
    context.vars['lean_c_ok'] = l_0_lean_c_ok = Macro(environment, macro, 'lean_c_ok', (), False, False, False, context.eval_ctx.autoescape)
    def macro(l_1_var):
        t_8 = []
        l_1_C = l_0_C
        if l_1_var is missing:
            l_1_var = undefined("parameter 'var' was not provided", name='var')
        pass
        l_1_C = environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'C')
        def t_9(fiter):
            for l_2_c in fiter:
                if (environment.getattr(l_2_c, 'name') in environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'masks')):
                    yield l_2_c
        for l_2_c in t_9(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'conds_c')):
            _loop_vars = {}
            pass
            t_8.extend((
                '# spec line ',
                str(environment.getattr(l_2_c, 'line')),
                ': where ',
                str(environment.getattr(l_2_c, 'text')),
                '\nif HAS_',
                str(environment.getattr(l_2_c, 'name')),
                ':\n    ',
                str(environment.getattr(l_2_c, 'name')),
                '_',
                str(l_1_var),
                ' = tl.load(',
                str(environment.getattr(l_2_c, 'name')),
                '_ptr + ',
                str(environment.getattr(l_2_c, 'offset')),
                ', mask=offs_',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                ' < size_',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                ', other=0)\n',
            ))
        l_2_c = missing
        return concat(t_8)
    context.exported_vars.add('lean_mask_loads')
    context.vars['lean_mask_loads'] = l_0_lean_mask_loads = Macro(environment, macro, 'lean_mask_loads', ('var',), False, False, False, context.eval_ctx.autoescape)
    def macro(l_1_when):
        t_10 = []
        l_1_C = l_0_C
        if l_1_when is missing:
            l_1_when = 'here'
        pass
        l_1_C = environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'C')
        for l_2_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_sides'):
            _loop_vars = {}
            pass
            t_10.extend((
                '# spec line ',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'line')),
                ': the per-column term ',
                str(environment.getattr(l_2_s, 'name')),
                str((', a tile ahead' if (l_1_when != 'here') else cond_expr_undefined("the inline if-expression on line 31 in 'select_reduce/lean.py.jinja' evaluated to false and no else section was defined."))),
                '\n',
            ))
            if (l_1_when == 'ahead'):
                pass
                t_10.extend((
                    'col_',
                    str(environment.getattr(l_2_s, 'name')),
                    ' = col_',
                    str(environment.getattr(l_2_s, 'name')),
                    '_next\n',
                    str(context.call((undefined(name='side_load') if l_0_side_load is missing else l_0_side_load), l_2_s, str_join(('col_', environment.getattr(l_2_s, 'name'), '_next', )), environment.getattr(l_2_s, 'next'), str_join(('offs_', (undefined(name='C') if l_1_C is missing else l_1_C), ' + BLOCK_', t_5((undefined(name='C') if l_1_C is missing else l_1_C)), ' < ', (undefined(name='C') if l_1_C is missing else l_1_C), '_hi', )), str_join(('offs_', (undefined(name='C') if l_1_C is missing else l_1_C), )), _loop_vars=_loop_vars)),
                    '\n',
                ))
            else:
                pass
                t_10.extend((
                    str(context.call((undefined(name='side_load') if l_0_side_load is missing else l_0_side_load), l_2_s, str_join(('col_', environment.getattr(l_2_s, 'name'), ('_next' if (l_1_when == 'first') else ''), )), environment.getattr(l_2_s, 'row'), str_join(('offs_', (undefined(name='C') if l_1_C is missing else l_1_C), ' < ', (undefined(name='C') if l_1_C is missing else l_1_C), '_hi', )), str_join(('offs_', (undefined(name='C') if l_1_C is missing else l_1_C), )), _loop_vars=_loop_vars)),
                    '\n',
                ))
        l_2_s = missing
        return concat(t_10)
    context.exported_vars.add('lean_col_loads')
    context.vars['lean_col_loads'] = l_0_lean_col_loads = Macro(environment, macro, 'lean_col_loads', ('when',), False, False, False, context.eval_ctx.autoescape)
    def macro(l_1_partial):
        t_11 = []
        l_1_C = l_0_C
        l_1_K = l_0_K
        l_1_C_END = l_0_C_END
        if l_1_partial is missing:
            l_1_partial = undefined("parameter 'partial' was not provided", name='partial')
        pass
        (l_1_C, l_1_K) = (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'C'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'K'))
        l_1_C_END = environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'end_c')
        if environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'c_guard'):
            pass
            def t_12(fiter):
                for l_2_c in fiter:
                    if (environment.getattr(l_2_c, 'name') in environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'masks')):
                        yield l_2_c
            for l_2_c in t_12(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'conds_c')):
                _loop_vars = {}
                pass
                t_11.extend((
                    str(environment.getattr(l_2_c, 'name')),
                    '_cur = ',
                    str(environment.getattr(l_2_c, 'name')),
                    '_next\n',
                ))
            l_2_c = missing
            t_11.extend((
                'offs_',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                ' = ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '0 + BLOCK_',
                str(t_5((undefined(name='C') if l_1_C is missing else l_1_C))),
                ' + tl.arange(0, BLOCK_',
                str(t_5((undefined(name='C') if l_1_C is missing else l_1_C))),
                ")  # the next tile's masks load during this tile's dot\n",
                str(context.call((undefined(name='lean_mask_loads') if l_0_lean_mask_loads is missing else l_0_lean_mask_loads), 'next')),
                '\n',
            ))
        t_11.extend((
            'offs_',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            ' = ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '0 + tl.arange(0, BLOCK_',
            str(t_5((undefined(name='C') if l_1_C is missing else l_1_C))),
            ')\n',
        ))
        if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cos') or environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2')):
            pass
            t_11.extend((
                "bsq = bsq_next  # this tile's column norms (",
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'P')),
                "_row_norms); the next tile's load during its dot\nif COL_NORMS:  # (unmasked: the pre-pass pads them by two tiles; a column past the row's end is never kept)\n    bsq_next = tl.load(bsq_ptr + b_row0 + offs_",
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                ' + BLOCK_',
                str(t_5((undefined(name='C') if l_1_C is missing else l_1_C))),
                ')\n',
            ))
        t_11.extend((
            str(context.call((undefined(name='lean_col_loads') if l_0_lean_col_loads is missing else l_0_lean_col_loads), 'ahead')),
            '\ndot = _',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'P')),
            '_lean_tile(a, ',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'B')),
            str(('s' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2') else cond_expr_undefined("the inline if-expression on line 57 in 'select_reduce/lean.py.jinja' evaluated to false and no else section was defined."))),
            '_ptr, b_desc, b_row0, ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '0, ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_hi, row_stride_',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'B')),
            ',',
            str(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'tile_args')),
            '\n                    BLOCK_',
            str(t_5((undefined(name='C') if l_1_C is missing else l_1_C))),
            ', BLOCK_',
            str(t_5((undefined(name='K') if l_1_K is missing else l_1_K))),
            ', SIZE_',
            str(t_5((undefined(name='K') if l_1_K is missing else l_1_K))),
            ', LOAD, DOT_FP32, SWAP, ',
            str(l_1_partial),
            ')\n',
        ))
        if environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'c_guard'):
            pass
            t_11.extend((
                'if ',
                str(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'c_guard')),
                ':  # the conditions on ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                ', where a mask is given\n    ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_ok = offs_',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                ' < ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_hi\n',
            ))
            def t_13(fiter):
                for l_2_c in fiter:
                    if (environment.getattr(l_2_c, 'name') in environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'masks')):
                        yield l_2_c
            for l_2_c in t_13(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'conds_c')):
                _loop_vars = {}
                pass
                t_11.extend((
                    '    if HAS_',
                    str(environment.getattr(l_2_c, 'name')),
                    ':\n        ',
                    str((undefined(name='C') if l_1_C is missing else l_1_C)),
                    '_ok = ',
                    str((undefined(name='C') if l_1_C is missing else l_1_C)),
                    '_ok & (',
                    str(environment.getattr(l_2_c, 'name')),
                    '_cur != 0)\n',
                ))
            l_2_c = missing
            t_11.extend((
                '    ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_seen += ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_ok.to(tl.int32)\n    dot = tl.where(',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_ok[None, :], dot, float("',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'fill')),
                '"))\n',
            ))
        t_11.extend((
            "if NEED_IDX:  # strictly better: an earlier tile keeps a tie; a NaN never counts here. Each slot keeps its\n    # tile's start (a scalar: no column tile in the loop); the column is the start plus the slot, after the loop\n    idx2 = tl.where(dot ",
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'better')),
            ' best, ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '0, idx2)\nbest = _',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'P')),
            '_select(best, dot)  # a running ',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'select')),
            ' per slot, NaN-keeping',
        ))
        return concat(t_11)
    context.exported_vars.add('lean_step')
    context.vars['lean_step'] = l_0_lean_step = Macro(environment, macro, 'lean_step', ('partial',), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_14 = []
        l_1_R = l_0_R
        l_1_K = l_0_K
        l_1_A = l_0_A
        l_1_B = l_0_B
        pass
        (l_1_R, l_1_K, l_1_A, l_1_B) = (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'R'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'K'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'A'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'B'))
        t_14.extend((
            "# in chunks of 16 coordinates, each row read again (L2 hits): the rows' whole tile in fp32 here held\n# the kernel at 255 registers, spilling, where its loop needs half (bench/NOTES.md, session 29)\nsel_rows = (b_row0 + tl.maximum(best_idx, 0)).to(tl.int64)\na_at = (a_row0 + offs_",
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            ' - ',
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            '0).to(tl.int64) * row_stride_',
            str((undefined(name='A') if l_1_A is missing else l_1_A)),
            '\nx_best = tl.zeros([BLOCK_',
            str(t_5((undefined(name='R') if l_1_R is missing else l_1_R))),
            '], tl.float32)\nfor x0 in range(0, SIZE_',
            str(t_5((undefined(name='K') if l_1_K is missing else l_1_K))),
            ', 16):\n    offs_x = x0 + tl.arange(0, 16)\n    x_ok = (picked != 0)[:, None] & (offs_x < SIZE_',
            str(t_5((undefined(name='K') if l_1_K is missing else l_1_K))),
            ')[None, :]  # (the interpreter may hold picked as int32)\n    a_x = tl.load(',
            str((undefined(name='A') if l_1_A is missing else l_1_A)),
            '_ptr + a_at[:, None] + offs_x[None, :], mask=x_ok, other=0.0).to(tl.float32)\n    b_x = tl.load(',
            str((undefined(name='B') if l_1_B is missing else l_1_B)),
            '_ptr + sel_rows[:, None] * row_stride_',
            str((undefined(name='B') if l_1_B is missing else l_1_B)),
            ' + offs_x[None, :], mask=x_ok, other=0.0).to(tl.float32)\n    diff = a_x - b_x\n    x_best += tl.sum(diff * diff, axis=1)',
        ))
        return concat(t_14)
    context.exported_vars.add('lean_l2_at_selection')
    context.vars['lean_l2_at_selection'] = l_0_lean_l2_at_selection = Macro(environment, macro, 'lean_l2_at_selection', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_15 = []
        l_1_R = l_0_R
        l_1_C = l_0_C
        pass
        (l_1_R, l_1_C) = (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'R'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'C'))
        t_15.extend((
            'row_best = tl.full([BLOCK_',
            str(t_5((undefined(name='R') if l_1_R is missing else l_1_R))),
            '], float("',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'fill')),
            '"), tl.float32)\nbest_idx = tl.zeros([BLOCK_',
            str(t_5((undefined(name='R') if l_1_R is missing else l_1_R))),
            '], tl.int32)\nkept = tl.zeros([BLOCK_',
            str(t_5((undefined(name='R') if l_1_R is missing else l_1_R))),
            '], tl.int32)\nat = (cell.to(tl.int64) * size_',
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            ' + offs_',
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            ') * n_parts\nfor p in range(0, n_parts):\n    v = tl.load(part_val_ptr + at + p, mask=',
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            '_in, other=float("',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'fill')),
            '"))\n    i = tl.load(part_idx_ptr + at + p, mask=',
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            '_in, other=-1)\n    # strictly better, a NaN over a number, or the first part that kept a column: a tie keeps the earlier part\n    take = (i >= 0) & ((kept == 0) | (v ',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'better')),
            ' row_best) | ((v != v) & (row_best == row_best)))\n    row_best = tl.where(take, v, row_best)\n    best_idx = tl.where(take, i, best_idx)\n    kept = tl.maximum(kept, (i >= 0).to(tl.int32))\npicked = ',
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            '_ok & (kept > 0)',
        ))
        return concat(t_15)
    context.exported_vars.add('lean_merge')
    context.vars['lean_merge'] = l_0_lean_merge = Macro(environment, macro, 'lean_merge', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_16 = []
        l_1_R = l_0_R
        l_1_C = l_0_C
        l_1_K = l_0_K
        pass
        (l_1_R, l_1_C, l_1_K) = (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'R'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'C'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'K'))
        t_16.extend((
            'again = (picked != 0) & ~(tl.abs(row_best) < float("inf"))  # (the interpreter may hold picked as int32)\na_at = (a_row0 + offs_',
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            ' - ',
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            '0).to(tl.int64) * row_stride_',
            str((undefined(name='A') if l_0_A is missing else l_0_A)),
            '\n',
            str(context.call((undefined(name='rank_again') if l_0_rank_again is missing else l_0_rank_again), str_join(('BLOCK_', t_5((undefined(name='R') if l_1_R is missing else l_1_R)), )), environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'end_c'), t_2(context.eval_ctx, t_3(context, environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'conds_c'), 'name', 'in', environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'masks'))), str_join(((undefined(name='A') if l_0_A is missing else l_0_A), '_ptr + a_at + k', )), str_join(('(b_row0 + offs_', (undefined(name='C') if l_1_C is missing else l_1_C), ').to(tl.int64) * row_stride_', (undefined(name='B') if l_0_B is missing else l_0_B), )), str_join(((undefined(name='B') if l_0_B is missing else l_0_B), '_ptr + b_at + k', )), str_join(('SIZE_', t_5((undefined(name='K') if l_1_K is missing else l_1_K)), )), 'AGAIN_COLS')),
        ))
        return concat(t_16)
    context.exported_vars.add('lean_l2_again')
    context.vars['lean_l2_again'] = l_0_lean_l2_again = Macro(environment, macro, 'lean_l2_again', (), False, False, False, context.eval_ctx.autoescape)
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'):
        pass
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2'):
            pass
            yield '# the columns a tile of the rank-again pass (lean_l2_again): 16, not BLOCK_'
            yield str(t_5((undefined(name='C') if l_0_C is missing else l_0_C)))
            yield ", so that a thread holds\n# a few rows' addresses (at 64 columns a thread held 32 rows' int64 addresses: the kernel's register peak)\nAGAIN_COLS: tl.constexpr = tl.constexpr(16)\n"
        yield '\n\n\n@triton.jit\ndef _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_lean_tile(a, '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_ptr, b_desc, b_row0, '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '0, size_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ', row_stride_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield ','
        yield str(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'tile_params'))
        yield '\n        BLOCK_'
        yield str(t_5((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield ': tl.constexpr, BLOCK_'
        yield str(t_5((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield ': tl.constexpr, SIZE_'
        yield str(t_5((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield ': tl.constexpr, LOAD: tl.constexpr,\n        DOT_FP32: tl.constexpr, SWAP: tl.constexpr, PARTIAL: tl.constexpr):\n    """Scores of a\'s rows against the '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield ' tile at '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '0 ([rows, BLOCK_'
        yield str(t_5((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield "], fp32); a PARTIAL\n    tile's columns past size_"
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield " (the next cell's rows, or zeros) are "
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'fill'))
        yield '. A contraction of\n    SIZE_'
        yield str(t_5((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield ' < BLOCK_'
        yield str(t_5((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield ' (not a power of two: pointer loads) reads zeros past its end.\n    SWAP (dispatch.lean_swap): the product taken as b a^T, the tile\'s columns on the MMA\'s M side, and\n    transposed back in registers."""\n    # spec line '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'pair_line'))
        yield ': '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'pair_text'))
        yield '\n    offs_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ' = tl.arange(0, BLOCK_'
        yield str(t_5((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield ')\n    offs_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield ' = tl.arange(0, BLOCK_'
        yield str(t_5((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield ')\n    if LOAD == 1:\n        b = b_desc.load([b_row0 + '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '0, 0])\n    elif PARTIAL or SIZE_'
        yield str(t_5((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield ' < BLOCK_'
        yield str(t_5((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield ':\n        b = tl.load('
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_ptr + (b_row0 + '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '0 + offs_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ').to(tl.int64)[:, None] * row_stride_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield ' + offs_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '[None, :],\n                    mask=('
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '0 + offs_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ' < size_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ')[:, None] & (offs_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield ' < SIZE_'
        yield str(t_5((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield ')[None, :], other=0.0)\n    else:\n        b = tl.load('
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_ptr + (b_row0 + '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '0 + offs_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ').to(tl.int64)[:, None] * row_stride_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield ' + offs_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '[None, :])\n    if DOT_FP32:  # the interpreter (Triton 3.9) multiplies bf16 bit patterns as integers\n        dot = tl.dot(a, tl.trans(b.to(tl.float32)), input_precision="ieee")\n    elif SWAP:\n        dot = tl.trans(tl.dot(b, tl.trans(a)))'
        yield str(('.to(tl.float32)  # int8 x int8: exact int32' if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'quantized') == 'int8') else cond_expr_undefined("the inline if-expression on line 146 in 'select_reduce/lean.py.jinja' evaluated to false and no else section was defined.")))
        yield '\n    else:\n        dot = tl.dot(a, tl.trans(b))'
        yield str(('.to(tl.float32)  # int8 x int8: exact int32' if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'quantized') == 'int8') else cond_expr_undefined("the inline if-expression on line 148 in 'select_reduce/lean.py.jinja' evaluated to false and no else section was defined.")))
        yield '\n'
        if environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'key'):
            pass
            yield '    # spec line '
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'line'))
            yield ": the selection's key on the tile, from the dot"
            yield str((" and the columns' terms" if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_sides') else cond_expr_undefined("the inline if-expression on line 150 in 'select_reduce/lean.py.jinja' evaluated to false and no else section was defined.")))
            yield '\n    dot = '
            yield str(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'key'))
            yield '\n'
        if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cos') or environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2')):
            pass
            yield '    if not COL_NORMS:  # few programs read each tile (dispatch.col_norms): its norms formed here\n        bsq = tl.sum(b.to(tl.float32) * b.to(tl.float32), axis=1)\n'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cos'):
            pass
            yield "    if COL_NORMS:  # the key, dot * ib: the pre-pass's 1 / |b|\n        dot = dot * bsq[None, :]\n    else:\n        dot = dot * (1.0 / tl.maximum(tl.sqrt(bsq), 1e-12))[None, :]\n"
        elif environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2'):
            pass
            yield "    # the ranking key, |b|^2 - 2<a, b> (|a|^2 is the row's own): one FMA a pair; the selected\n    # pair's value then comes from its differences\n    dot = bsq[None, :] - 2.0 * dot\n"
        yield '    if PARTIAL:\n        dot = tl.where(('
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '0 + offs_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ' < size_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ')[None, :], dot, float("'
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'fill'))
        yield '"))\n    return dot\n\n\n@triton.jit\ndef '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_fwd_lean(\n    '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_ptr, '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_ptr, a_desc, b_desc,'
        yield str((str_join((' ', (undefined(name='A') if l_0_A is missing else l_0_A), 's_ptr, ', (undefined(name='B') if l_0_B is missing else l_0_B), 's_ptr, shift_ptr,', )) if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2') else cond_expr_undefined("the inline if-expression on line 174 in 'select_reduce/lean.py.jinja' evaluated to false and no else section was defined.")))
        yield str((' bsq_ptr,' if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cos') or environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2')) else cond_expr_undefined("the inline if-expression on line 174 in 'select_reduce/lean.py.jinja' evaluated to false and no else section was defined.")))
        yield ' out_ptr, idx_ptr,'
        for l_1_m in environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'masks'):
            _loop_vars = {}
            pass
            yield ' '
            yield str(l_1_m)
            yield '_ptr,'
        l_1_m = missing
        for l_1_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'sides'):
            _loop_vars = {}
            pass
            yield ' '
            yield str(environment.getattr(l_1_s, 'name'))
            yield '_ptr,'
        l_1_s = missing
        for l_1_o in environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'offsets'):
            _loop_vars = {}
            pass
            yield ' '
            yield str(l_1_o)
            yield '_ptr,'
        l_1_o = missing
        if environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'fold'):
            pass
            yield ' offsets_ok_ptr,'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'need_x'):
            pass
            yield ' xsel_ptr,'
        if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') in ('max', 'min')):
            pass
            yield ' orow_ptr,'
        yield ' part_val_ptr, part_idx_ptr,\n\n    '
        yield str(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'grid_sizes'))
        yield 'size_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ', size_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ', row_stride_'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield ', row_stride_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield ', scale, part_len, n_parts,'
        for l_1_c in environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'checks'):
            _loop_vars = {}
            pass
            yield ' rows_'
            yield str(environment.getattr(l_1_c, 'cu'))
            yield ','
        l_1_c = missing
        yield '\n'
        for l_1_line in (environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'mask_strides') + environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'side_strides')):
            _loop_vars = {}
            pass
            yield '    '
            yield str(l_1_line)
            yield ',\n'
        l_1_line = missing
        for l_1_m in environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'masks'):
            _loop_vars = {}
            pass
            yield '    HAS_'
            yield str(l_1_m)
            yield ': tl.constexpr,\n'
        l_1_m = missing
        def t_17(fiter):
            for l_1_s in fiter:
                if environment.getattr(l_1_s, 'optional'):
                    yield l_1_s
        for l_1_s in t_17(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'sides')):
            _loop_vars = {}
            pass
            yield '    HAS_'
            yield str(environment.getattr(l_1_s, 'name'))
            yield ': tl.constexpr,\n'
        l_1_s = missing
        yield '    BLOCK_'
        yield str(t_5((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield ': tl.constexpr, BLOCK_'
        yield str(t_5((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield ': tl.constexpr, BLOCK_'
        yield str(t_5((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield ': tl.constexpr,\n    SIZE_'
        yield str(t_5((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield ': tl.constexpr, LOAD: tl.constexpr, DOT_FP32: tl.constexpr, SWAP: tl.constexpr, NEED_IDX: tl.constexpr,'
        yield str((' COL_NORMS: tl.constexpr,' if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cos') or environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2')) else cond_expr_undefined("the inline if-expression on line 188 in 'select_reduce/lean.py.jinja' evaluated to false and no else section was defined.")))
        yield str((' SHIFT_A: tl.constexpr,' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2') else cond_expr_undefined("the inline if-expression on line 188 in 'select_reduce/lean.py.jinja' evaluated to false and no else section was defined.")))
        if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') in ('max', 'min')):
            pass
            yield ' FINAL: tl.constexpr,'
        if environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'fold'):
            pass
            yield ' CHECK_OFFSETS: tl.constexpr,'
        yield '\n    PHASE: tl.constexpr,\n):\n    """Forward of '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield ' in its common case (16-bit rows, '
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield ' a power of two'
        yield str((', masks as given' if environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'masks') else ', no mask given'))
        yield '):\n    one program per (cell, chunk of BLOCK_'
        yield str(t_5((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield " rows), a cell's chunks neighbours in\n    launch order so that they read its "
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield ' tiles from L2, and nothing carried but the\n    running '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'select'))
        yield ' (and with NEED_IDX its index) (bench/NOTES.md, v16).\n    '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield ' and '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield ' are read as [cells x '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ', '
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '] and [cells x '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ', '
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '] row matrices:\n    LOAD=1 through TMA descriptors (a_desc, b_desc), LOAD=0 through pointers.\n'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2'):
            pass
            yield "    The key's tiles read "
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield 's ('
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield ' less a per-coordinate shift with SHIFT_A = 2, else '
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield '\n    itself) and '
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield ' or '
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield "s by the shift's flag; the selected pair's value and a row ranked\n    again read "
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield ' and '
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield ' as passed (their differences need no shift).\n'
        yield "    Each program stores its chunk's share times `scale` into out [cells, chunks].\n\n    Few cells, long rows (dispatch.column_parts): PHASE 1 splits "
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield " in n_parts parts of\n    part_len columns across programs, each storing its rows' partial "
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'select'))
        yield ' and index into\n    part_val/part_idx [cells x '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ", n_parts] (index -1: the part kept no column); PHASE 2 merges\n    a row's parts in order (the earlier part keeps a tie: the lowest index wins) and finishes\n    as PHASE 0 does, which runs the whole row in one program."
        if environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'fold'):
            pass
            yield "\n    CHECK_OFFSETS (dispatch.offsets_check_fold): each program checks its own sequences'\n    offsets before it reads them (rows_*: the packed rows, -1 where unknown):\n    1 a device assert (compiled with debug on), 2 a flag in offsets_ok_ptr."
        yield '"""\n    # spec line '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'line'))
        yield ': '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'spec_line'))
        yield '\n    n_chunks = tl.cdiv(size_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ', BLOCK_'
        yield str(t_5((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield ")\n    pid = tl.program_id(0)\n    if PHASE == 1:  # a cell's parts are neighbours in launch order: they share its "
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield ' tile\n        part = pid % n_parts\n        pid = pid // n_parts\n    chunk = pid % n_chunks\n    cell = pid // n_chunks\n'
        for l_1_stmt in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'decompose_cell_flat'):
            _loop_vars = {}
            pass
            yield '    '
            yield str(l_1_stmt)
            yield '\n'
        l_1_stmt = missing
        yield '    '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '0 = chunk * BLOCK_'
        yield str(t_5((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield '\n'
        if environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'ragged_r'):
            pass
            yield '    # spec line '
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'line'))
            yield ': '
            yield str((undefined(name='R') if l_0_R is missing else l_0_R))
            yield " is ragged: this sequence's rows end at its length\n    "
            yield str((undefined(name='R_END') if l_0_R_END is missing else l_0_R_END))
            yield ' = '
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'end_R'))
            yield '\n'
        if environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'ragged_c'):
            pass
            yield '    # spec line '
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'line'))
            yield ': '
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield " is ragged: the tiles end at this sequence's length\n    "
            yield str((undefined(name='C_END') if l_0_C_END is missing else l_0_C_END))
            yield ' = '
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'end_C'))
            yield '\n'
        yield '    a_row0 = '
        yield str(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'a_start'))
        yield ' + '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '0  # int32 rows: the host checks they fit\n    b_row0 = '
        yield str(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'b_start'))
        yield '\n'
        if environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'fold'):
            pass
            yield "    if CHECK_OFFSETS:  # the offsets' checks, folded in: this program's sequences, before any row is read\n"
            l_1_loop = missing
            for l_1_c, l_1_loop in LoopContext(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'checks'), undefined):
                _loop_vars = {}
                pass
                yield '        # spec line '
                yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'line'))
                yield ': sequence pid_'
                yield str(environment.getattr(l_1_c, 'outer'))
                yield ' of '
                yield str(environment.getattr(l_1_c, 'axis'))
                yield ' is rows '
                yield str(environment.getattr(l_1_c, 'cu'))
                yield '[pid_'
                yield str(environment.getattr(l_1_c, 'outer'))
                yield '] .. '
                yield str(environment.getattr(l_1_c, 'cu'))
                yield '[pid_'
                yield str(environment.getattr(l_1_c, 'outer'))
                yield ' + 1] - 1\n        lo = tl.load('
                yield str(environment.getattr(l_1_c, 'cu'))
                yield '_ptr + pid_'
                yield str(environment.getattr(l_1_c, 'outer'))
                yield ').to(tl.int64)\n        hi = tl.load('
                yield str(environment.getattr(l_1_c, 'cu'))
                yield '_ptr + pid_'
                yield str(environment.getattr(l_1_c, 'outer'))
                yield ' + 1).to(tl.int64)\n        last = tl.load('
                yield str(environment.getattr(l_1_c, 'cu'))
                yield '_ptr + size_'
                yield str(environment.getattr(l_1_c, 'outer'))
                yield ').to(tl.int64)\n        '
                yield str(('offsets_ok = ' if environment.getattr(l_1_loop, 'first') else 'offsets_ok = offsets_ok & '))
                yield '(lo >= 0) & (hi >= lo) & (hi - lo <= size_'
                yield str(environment.getattr(l_1_c, 'axis'))
                yield ') & ((pid_'
                yield str(environment.getattr(l_1_c, 'outer'))
                yield ' > 0) | (lo == 0))\n        offsets_ok = offsets_ok & ((rows_'
                yield str(environment.getattr(l_1_c, 'cu'))
                yield ' < 0) | ((hi <= rows_'
                yield str(environment.getattr(l_1_c, 'cu'))
                yield ') & (last == rows_'
                yield str(environment.getattr(l_1_c, 'cu'))
                yield ')))\n'
            l_1_loop = l_1_c = missing
            yield '        if CHECK_OFFSETS == 1:\n            tl.device_assert(offsets_ok, "'
            yield str(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'offsets_message'))
            yield '")\n        else:  # (the interpreter skips device asserts) a flag for torch._assert_async\n            tl.store(offsets_ok_ptr, offsets_ok, mask=offsets_ok == 0)\n        # a program whose offsets fail reads no row\n'
            if environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'ragged_r'):
                pass
                yield '        '
                yield str((undefined(name='R_END') if l_0_R_END is missing else l_0_R_END))
                yield ' = tl.where(offsets_ok, '
                yield str((undefined(name='R_END') if l_0_R_END is missing else l_0_R_END))
                yield ', 0)\n'
            if environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'ragged_c'):
                pass
                yield '        '
                yield str((undefined(name='C_END') if l_0_C_END is missing else l_0_C_END))
                yield ' = tl.where(offsets_ok, '
                yield str((undefined(name='C_END') if l_0_C_END is missing else l_0_C_END))
                yield ', 0)\n'
            yield '        a_row0 = tl.where(offsets_ok, a_row0, 0)\n        b_row0 = tl.where(offsets_ok, b_row0, 0)\n'
        yield '    offs_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ' = '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '0 + tl.arange(0, BLOCK_'
        yield str(t_5((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield ')\n    offs_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield ' = tl.arange(0, BLOCK_'
        yield str(t_5((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield ')\n    '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '_in = offs_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ' < '
        yield str((undefined(name='R_END') if l_0_R_END is missing else l_0_R_END))
        yield '\n    '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '_ok = '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '_in\n'
        def t_18(fiter):
            for l_1_c in fiter:
                if (environment.getattr(l_1_c, 'name') in environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'masks')):
                    yield l_1_c
        for l_1_c in t_18(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'conds_r')):
            _loop_vars = {}
            pass
            yield '    '
            yield str(t_1(context.call((undefined(name='cond_code') if l_0_cond_code is missing else l_0_cond_code), l_1_c, str_join(((undefined(name='R') if l_0_R is missing else l_0_R), '_ok', )), str_join(((undefined(name='R') if l_0_R is missing else l_0_R), '_in', )), _loop_vars=_loop_vars), 4))
            yield '\n'
        l_1_c = missing
        yield '    # rows past size_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield " read the next cell's rows (or zeros past the end): left out below\n"
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2'):
            pass
            yield '    if SHIFT_A == 2:  # 16-bit rows (dispatch.shifts_16bit): less their shift where it is not 0, by the flag its\n        # pass stores past its last coordinate (a row that rounds holds a NaN: ranked again from its differences)\n        a_src = tl.where(tl.load(shift_ptr + SIZE_'
            yield str(t_5((undefined(name='K') if l_0_K is missing else l_0_K)))
            yield ') != 0, '
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield 's_ptr, '
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield '_ptr)\n        a = tl.load(a_src + (a_row0 + offs_'
            yield str((undefined(name='R') if l_0_R is missing else l_0_R))
            yield ' - '
            yield str((undefined(name='R') if l_0_R is missing else l_0_R))
            yield '0).to(tl.int64)[:, None] * row_stride_'
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield ' + offs_'
            yield str((undefined(name='K') if l_0_K is missing else l_0_K))
            yield '[None, :],\n                    mask='
            yield str((undefined(name='R') if l_0_R is missing else l_0_R))
            yield '_in[:, None] & (offs_'
            yield str((undefined(name='K') if l_0_K is missing else l_0_K))
            yield ' < SIZE_'
            yield str(t_5((undefined(name='K') if l_0_K is missing else l_0_K)))
            yield ')[None, :], other=0.0)\n    elif LOAD == 1:\n'
        else:
            pass
            yield '    if LOAD == 1:\n'
        yield '        a = a_desc.load([a_row0, 0])\n    else:\n        a = tl.load('
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_ptr + (a_row0 + offs_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ' - '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '0).to(tl.int64)[:, None] * row_stride_'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield ' + offs_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '[None, :],\n                    mask='
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '_in[:, None] & (offs_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield ' < SIZE_'
        yield str(t_5((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield ')[None, :], other=0.0)\n    if DOT_FP32:\n        a = a.to(tl.float32)\n'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cos'):
            pass
            yield '    # spec line '
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'pair_line'))
            yield ": the rows' norms from the tile\n    ia = 1.0 / tl.maximum(tl.sqrt(tl.sum(a.to(tl.float32) * a.to(tl.float32), axis=1)), 1e-12)\n"
        yield "    if PHASE == 2:  # a row's parts, merged in order\n        "
        yield str(t_1(context.call((undefined(name='lean_merge') if l_0_lean_merge is missing else l_0_lean_merge)), 8))
        yield '\n    else:\n        '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_lo = 0\n        '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_hi = '
        yield str((undefined(name='C_END') if l_0_C_END is missing else l_0_C_END))
        yield "\n        if PHASE == 1:  # this program's part of "
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '\n            '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_lo = part * part_len\n            '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_hi = tl.maximum(tl.minimum('
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_lo + part_len, '
        yield str((undefined(name='C_END') if l_0_C_END is missing else l_0_C_END))
        yield '), '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_lo)\n        best = tl.full([BLOCK_'
        yield str(t_5((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield ', BLOCK_'
        yield str(t_5((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield '], float("'
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'fill'))
        yield '"), tl.float32)\n        if NEED_IDX:'
        yield str(("  # (L2: always, the selected pair's value comes from its index)" if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2') else cond_expr_undefined("the inline if-expression on line 297 in 'select_reduce/lean.py.jinja' evaluated to false and no else section was defined.")))
        yield '\n            idx2 = tl.zeros([BLOCK_'
        yield str(t_5((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield ', BLOCK_'
        yield str(t_5((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield '], tl.int32)\n'
        if environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'c_guard'):
            pass
            yield '        '
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield '_seen = tl.zeros([BLOCK_'
            yield str(t_5((undefined(name='C') if l_0_C is missing else l_0_C)))
            yield '], tl.int32)\n        offs_'
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield ' = '
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield '_lo + tl.arange(0, BLOCK_'
            yield str(t_5((undefined(name='C') if l_0_C is missing else l_0_C)))
            yield ')\n'
            def t_19(fiter):
                for l_1_c in fiter:
                    if (environment.getattr(l_1_c, 'name') in environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'masks')):
                        yield l_1_c
            for l_1_c in t_19(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'conds_c')):
                _loop_vars = {}
                pass
                yield '        '
                yield str(environment.getattr(l_1_c, 'name'))
                yield '_next = tl.zeros([BLOCK_'
                yield str(t_5((undefined(name='C') if l_0_C is missing else l_0_C)))
                yield '], '
                yield str(environment.getattr(l_1_c, 'name'))
                yield '_ptr.dtype.element_ty)\n'
            l_1_c = missing
            yield '        '
            yield str(t_1(context.call((undefined(name='lean_mask_loads') if l_0_lean_mask_loads is missing else l_0_lean_mask_loads), 'next'), 8))
            yield '\n'
        if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cos') or environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2')):
            pass
            yield '        offs_'
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield ' = tl.arange(0, BLOCK_'
            yield str(t_5((undefined(name='C') if l_0_C is missing else l_0_C)))
            yield ")\n        if COL_NORMS:  # the columns' norms from the pre-pass, else from each tile (dispatch.col_norms)\n            bsq_next = tl.load(bsq_ptr + b_row0 + "
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield '_lo + offs_'
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield ')  # (padded: unmasked)\n        else:\n            bsq_next = tl.zeros([BLOCK_'
            yield str(t_5((undefined(name='C') if l_0_C is missing else l_0_C)))
            yield '], tl.float32)\n'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_sides'):
            pass
            yield '        offs_'
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield ' = '
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield '_lo + tl.arange(0, BLOCK_'
            yield str(t_5((undefined(name='C') if l_0_C is missing else l_0_C)))
            yield ')\n        '
            yield str(t_1(t_4(context.call((undefined(name='lean_col_loads') if l_0_lean_col_loads is missing else l_0_lean_col_loads), 'first')), 8))
            yield '\n'
        yield '        '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_full = '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_lo + (('
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_hi - '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_lo) // BLOCK_'
        yield str(t_5((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield ') * BLOCK_'
        yield str(t_5((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield '\n        for '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '0 in range('
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_lo, '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_full, BLOCK_'
        yield str(t_5((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield '):\n            '
        yield str(t_1(context.call((undefined(name='lean_step') if l_0_lean_step is missing else l_0_lean_step), 'False'), 12))
        yield '\n        if '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_full < '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_hi:  # the last, partial tile\n            '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '0 = '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_full\n            '
        yield str(t_1(context.call((undefined(name='lean_step') if l_0_lean_step is missing else l_0_lean_step), 'True'), 12))
        yield '\n        row_best = tl.reduce(best, 1, _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_select)\n'
        if environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'c_guard'):
            pass
            yield '        # spec line '
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'line'))
            yield ': an empty selection is 0 and passes no gradient\n        if '
            yield str(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'c_guard'))
            yield ':\n            picked = '
            yield str((undefined(name='R') if l_0_R is missing else l_0_R))
            yield '_ok & (tl.sum('
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield '_seen, axis=0) > 0)\n        else:\n            picked = '
            yield str((undefined(name='R') if l_0_R is missing else l_0_R))
            yield '_ok\n'
        elif environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'ragged_c'):
            pass
            yield '        # spec line '
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'line'))
            yield ': an empty sequence selects nothing: 0, no gradient\n        picked = '
            yield str((undefined(name='R') if l_0_R is missing else l_0_R))
            yield '_ok & ('
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield '_hi > '
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield '_lo)\n'
        else:
            pass
            yield '        picked = '
            yield str((undefined(name='R') if l_0_R is missing else l_0_R))
            yield '_ok\n'
        yield "        if NEED_IDX:\n            # the lowest index holding the best; a NaN best: the row's first NaN, from a second pass\n            best_idx = tl.min(tl.where(best == row_best[:, None], idx2 + tl.arange(0, BLOCK_"
        yield str(t_5((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield ')[None, :], size_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '), axis=1)\n'
        if (not environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2')):
            pass
            yield '            row_nan = (row_best != row_best) & picked\n            if tl.sum(row_nan.to(tl.int32), axis=0) > 0:\n                nan_idx = tl.full([BLOCK_'
            yield str(t_5((undefined(name='R') if l_0_R is missing else l_0_R)))
            yield '], size_'
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield ', tl.int32)\n                for '
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield '0 in range('
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield '_lo, '
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield '_hi, BLOCK_'
            yield str(t_5((undefined(name='C') if l_0_C is missing else l_0_C)))
            yield '):\n                    offs_'
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield ' = '
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield '0 + tl.arange(0, BLOCK_'
            yield str(t_5((undefined(name='C') if l_0_C is missing else l_0_C)))
            yield ')\n'
            if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cos'):
                pass
                yield '                    if COL_NORMS:\n                        bsq = tl.load(bsq_ptr + b_row0 + offs_'
                yield str((undefined(name='C') if l_0_C is missing else l_0_C))
                yield ', mask=offs_'
                yield str((undefined(name='C') if l_0_C is missing else l_0_C))
                yield ' < '
                yield str((undefined(name='C') if l_0_C is missing else l_0_C))
                yield '_hi, other=0.0)\n                    else:\n                        bsq = bsq_next  # (unused: the tile forms its own)\n'
            yield '                    '
            yield str(t_1(context.call((undefined(name='lean_col_loads') if l_0_lean_col_loads is missing else l_0_lean_col_loads)), 20))
            yield '\n                    dot = _'
            yield str((undefined(name='P') if l_0_P is missing else l_0_P))
            yield '_lean_tile(a, '
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield '_ptr, b_desc, b_row0, '
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield '0, '
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield '_hi, row_stride_'
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield ','
            yield str(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'tile_args'))
            yield '\n                                        BLOCK_'
            yield str(t_5((undefined(name='C') if l_0_C is missing else l_0_C)))
            yield ', BLOCK_'
            yield str(t_5((undefined(name='K') if l_0_K is missing else l_0_K)))
            yield ', SIZE_'
            yield str(t_5((undefined(name='K') if l_0_K is missing else l_0_K)))
            yield ', LOAD, DOT_FP32, SWAP, True)\n'
            if environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'c_guard'):
                pass
                yield '                    '
                yield str(t_1(context.call((undefined(name='lean_c_ok') if l_0_lean_c_ok is missing else l_0_lean_c_ok)), 20))
                yield '\n'
            yield '                    nan_idx = tl.minimum(nan_idx, tl.min(tl.where(dot != dot, offs_'
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield '[None, :], size_'
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield '), axis=1))\n                best_idx = tl.where(row_nan, nan_idx, best_idx)\n'
        yield "    if PHASE == 1:  # this part's rows: their "
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'select'))
        yield ' and its index (-1: the part kept no column)\n        at = (cell.to(tl.int64) * size_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ' + offs_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ') * n_parts + part\n        tl.store(part_val_ptr + at, row_best, mask='
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '_in)\n        if NEED_IDX:\n            tl.store(part_idx_ptr + at, tl.where(picked, best_idx, -1), mask='
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '_in)\n        else:\n            tl.store(part_idx_ptr + at, tl.where(picked, 0, -1), mask='
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '_in)\n    else:\n        if NEED_IDX:\n'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2'):
            pass
            yield '            '
            yield str(t_1(context.call((undefined(name='lean_l2_again') if l_0_lean_l2_again is missing else l_0_lean_l2_again)), 12))
            yield '\n            # spec line '
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'pair_line'))
            yield ": the selected pair's squared distance from its differences (exact at any offset)\n            "
            yield str(t_1(context.call((undefined(name='lean_l2_at_selection') if l_0_lean_l2_at_selection is missing else l_0_lean_l2_at_selection)), 12))
            yield '\n            row_best = tl.where(picked, '
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'key_sel'))
            yield ', row_best)\n'
        yield '            # -1: nothing to select; -2: the row itself is left out\n            tl.store(idx_ptr + cell.to(tl.int64) * size_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ' + offs_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ',\n                     tl.where(picked, best_idx, tl.where('
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '_ok, -1, -2)), mask='
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '_in)\n'
        if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'need_x') and environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'key_is_prim')):
            pass
            yield "            # the pair's value at the selection, for the backward: the key is the plain "
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'pair'))
            yield '\n            tl.store(xsel_ptr + cell.to(tl.int64) * size_'
            yield str((undefined(name='R') if l_0_R is missing else l_0_R))
            yield ' + offs_'
            yield str((undefined(name='R') if l_0_R is missing else l_0_R))
            yield ', row_best, mask='
            yield str((undefined(name='R') if l_0_R is missing else l_0_R))
            yield '_in)\n'
        elif environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'need_x'):
            pass
            yield '            # the dot at the selection, for the backward: the selected '
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield ' row against the row\n            sel_rows = (b_row0 + tl.maximum(best_idx, 0)).to(tl.int64)\n            b_sel = tl.load('
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield '_ptr + sel_rows[:, None] * row_stride_'
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield ' + offs_'
            yield str((undefined(name='K') if l_0_K is missing else l_0_K))
            yield '[None, :],\n                            mask=(picked != 0)[:, None] & (offs_'
            yield str((undefined(name='K') if l_0_K is missing else l_0_K))
            yield ' < SIZE_'
            yield str(t_5((undefined(name='K') if l_0_K is missing else l_0_K)))
            yield ')[None, :], other=0.0)  # (the interpreter may hold picked as int32)\n            x_sel = tl.sum(a.to(tl.float32) * b_sel.to(tl.float32), axis=1)\n            tl.store(xsel_ptr + cell.to(tl.int64) * size_'
            yield str((undefined(name='R') if l_0_R is missing else l_0_R))
            yield ' + offs_'
            yield str((undefined(name='R') if l_0_R is missing else l_0_R))
            yield ', x_sel, mask='
            yield str((undefined(name='R') if l_0_R is missing else l_0_R))
            yield '_in)\n'
        if (((environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'h') == 'best') and (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'post') == 'value')) and (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') in ('sum', 'mean'))):
            pass
            yield '        # spec line '
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'line'))
            yield ': the outer '
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer'))
            yield " of this chunk's rows (where, not a product: a padding row's NaN stays out)\n        share = tl.sum(tl.where(picked, row_best, 0.0), axis=0) * scale\n"
        else:
            pass
            yield '        # spec line '
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'line'))
            yield ': the epilogue, once a row at its selection, then the outer '
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer'))
            yield " of this chunk's rows\n"
            for l_1_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'row_sides'):
                _loop_vars = {}
                pass
                yield '        '
                yield str(t_1(context.call((undefined(name='side_load') if l_0_side_load is missing else l_0_side_load), l_1_s, str_join(('row_', environment.getattr(l_1_s, 'name'), )), environment.getattr(l_1_s, 'row'), str_join(((undefined(name='R') if l_0_R is missing else l_0_R), '_in', )), str_join(('offs_', (undefined(name='R') if l_0_R is missing else l_0_R), )), _loop_vars=_loop_vars), 8))
                yield '\n'
            l_1_s = missing
            yield '        best = row_best\n        value = tl.where(picked, '
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'h'))
            yield ', 0.0)\n        rowval = '
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'post'))
            yield '\n'
            if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') in ('max', 'min')):
                pass
                yield '        # the outer '
                yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer'))
                yield " of this chunk's rows: NaN-keeping, the lowest kept row wins ties\n        rv = tl.where("
                yield str((undefined(name='R') if l_0_R is missing else l_0_R))
                yield '_ok, rowval, float("'
                yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ofill'))
                yield '"))\n        blk = tl.reduce(rv, 0, _'
                yield str((undefined(name='P') if l_0_P is missing else l_0_P))
                yield '_outer)\n        blk_idx = tl.min(tl.where((rv == blk) & '
                yield str((undefined(name='R') if l_0_R is missing else l_0_R))
                yield '_ok, offs_'
                yield str((undefined(name='R') if l_0_R is missing else l_0_R))
                yield ', size_'
                yield str((undefined(name='R') if l_0_R is missing else l_0_R))
                yield '), axis=0)\n        nan_idx = tl.min(tl.where(rv != rv, offs_'
                yield str((undefined(name='R') if l_0_R is missing else l_0_R))
                yield ', size_'
                yield str((undefined(name='R') if l_0_R is missing else l_0_R))
                yield '), axis=0)\n        blk_idx = tl.where(blk != blk, nan_idx, blk_idx)\n        blk_idx = tl.where(blk_idx < size_'
                yield str((undefined(name='R') if l_0_R is missing else l_0_R))
                yield ", blk_idx, -1)\n        if FINAL:  # one chunk: the cell's result (an outer "
                yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer'))
                yield " over no kept row is 0)\n            tl.store(out_ptr + cell.to(tl.int64), tl.where(blk_idx >= 0, blk, 0.0))\n            if NEED_IDX:\n                tl.store(orow_ptr + cell.to(tl.int64), blk_idx)\n        else:  # this chunk's (value, row): the "
                yield str((undefined(name='P') if l_0_P is missing else l_0_P))
                yield "_merge kernel merges a cell's chunks in order\n            tl.store(out_ptr + cell.to(tl.int64) * n_chunks + chunk, blk)\n            tl.store(orow_ptr + cell.to(tl.int64) * n_chunks + chunk, blk_idx)\n"
            else:
                pass
                yield '        share = tl.sum(tl.where('
                yield str((undefined(name='R') if l_0_R is missing else l_0_R))
                yield '_ok, rowval, 0.0), axis=0) * scale\n'
        if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') in ('sum', 'mean')):
            pass
            yield '        tl.store(out_ptr + cell.to(tl.int64) * n_chunks + chunk, share)\n'

blocks = {}
debug_info = '3=43&4=55&5=58&6=61&8=65&9=68&10=72&11=78&12=83&13=92&15=98&17=106&18=112&19=113&20=122&21=126&22=128&25=145&29=151&30=152&31=157&32=163&33=167&34=171&36=177&40=184&41=192&42=193&43=194&44=196&45=204&47=212&48=220&50=225&51=232&52=236&54=238&56=244&57=246&58=259&59=268&60=272&61=276&62=283&63=292&64=294&66=304&67=308&71=315&72=319&74=327&76=334&80=337&81=343&82=345&84=347&85=349&86=351&90=359&91=364&93=367&94=371&95=373&96=375&98=379&99=383&101=385&105=387&107=393&108=399&110=402&111=408&115=413&116=415&117=418&125=421&126=433&128=439&129=445&130=449&133=453&134=457&135=461&137=465&138=467&139=471&140=481&142=491&146=501&148=503&149=505&150=508&151=512&153=514&157=517&162=520&168=524&173=532&174=534&176=572&178=590&179=594&181=597&182=601&184=604&185=612&187=616&188=622&192=633&193=639&194=641&195=643&196=645&198=657&199=660&200=666&201=670&205=675&206=677&207=679&209=681&214=685&215=689&217=693&222=695&223=699&225=703&226=707&227=710&228=714&230=718&231=721&232=725&234=730&235=734&236=736&238=740&239=744&240=758&241=762&242=766&243=770&244=776&247=784&251=786&252=789&254=793&255=796&260=802&261=808&262=812&263=818&264=822&265=830&267=834&268=836&271=839&272=845&273=853&280=863&281=873&284=879&285=882&289=885&291=887&292=889&293=893&294=895&295=897&296=905&297=911&298=913&299=917&300=920&301=924&302=930&303=938&305=946&307=948&308=951&310=955&312=959&314=961&315=964&316=970&318=973&319=985&320=993&321=995&322=999&323=1003&324=1005&325=1007&326=1010&327=1012&328=1014&330=1018&331=1020&332=1023&333=1025&335=1034&339=1037&340=1041&343=1044&344=1048&345=1056&346=1062&348=1065&352=1072&353=1074&354=1086&355=1092&356=1095&358=1098&361=1103&362=1105&363=1109&365=1111&367=1113&370=1115&371=1118&372=1120&373=1122&374=1124&377=1127&378=1131&379=1135&380=1138&381=1140&382=1146&383=1149&385=1151&386=1157&388=1161&390=1167&391=1170&394=1177&395=1181&396=1185&399=1189&400=1191&401=1193&402=1196&403=1198&404=1202&405=1204&406=1210&408=1214&409=1216&413=1218&417=1223&420=1225'
from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'select_reduce/common.py.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_cond_code = l_0_side_load = l_0_row_loads = l_0_small_a_loads = l_0_small_b_loads = l_0_bound_end = l_0_rank_again = l_0_rows_params = l_0_rows_args = missing
    try:
        t_1 = environment.filters['indent']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'indent' found.")
    try:
        t_2 = environment.filters['replace']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'replace' found.")
    try:
        t_3 = environment.filters['upper']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'upper' found.")
    try:
        t_4 = environment.tests['none']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No test named 'none' found.")
    pass
    def macro(l_1_c, l_1_var, l_1_in_var):
        t_5 = []
        if l_1_c is missing:
            l_1_c = undefined("parameter 'c' was not provided", name='c')
        if l_1_var is missing:
            l_1_var = undefined("parameter 'var' was not provided", name='var')
        if l_1_in_var is missing:
            l_1_in_var = undefined("parameter 'in_var' was not provided", name='in_var')
        pass
        t_5.extend((
            '# spec line ',
            str(environment.getattr(l_1_c, 'line')),
            ': where ',
            str(environment.getattr(l_1_c, 'text')),
            '\n',
        ))
        if ((environment.getattr(l_1_c, 'kind') == 'mask') and environment.getattr(l_1_c, 'optional')):
            pass
            t_5.extend((
                'if HAS_',
                str(environment.getattr(l_1_c, 'name')),
                ':\n    ',
                str(l_1_var),
                ' = ',
                str(l_1_var),
                ' & (tl.load(',
                str(environment.getattr(l_1_c, 'name')),
                '_ptr + ',
                str(environment.getattr(l_1_c, 'offset')),
                ', mask=',
                str(l_1_in_var),
                ', other=0) != 0)\n',
            ))
        elif (environment.getattr(l_1_c, 'kind') == 'mask'):
            pass
            t_5.extend((
                str(l_1_var),
                ' = ',
                str(l_1_var),
                ' & (tl.load(',
                str(environment.getattr(l_1_c, 'name')),
                '_ptr + ',
                str(environment.getattr(l_1_c, 'offset')),
                ', mask=',
                str(l_1_in_var),
                ', other=0) != 0)\n',
            ))
        elif (environment.getattr(l_1_c, 'name') and environment.getattr(l_1_c, 'optional')):
            pass
            t_5.extend((
                'if HAS_',
                str(environment.getattr(l_1_c, 'name')),
                ':\n    ',
                str(l_1_var),
                ' = ',
                str(l_1_var),
                ' & (offs_',
                str(environment.getattr(l_1_c, 'axis')),
                ' < ',
                str(environment.getattr(l_1_c, 'limit')),
                ')\n',
            ))
        else:
            pass
            t_5.extend((
                str(l_1_var),
                ' = ',
                str(l_1_var),
                ' & (offs_',
                str(environment.getattr(l_1_c, 'axis')),
                ' < ',
                str(environment.getattr(l_1_c, 'limit')),
                ')\n',
            ))
        return concat(t_5)
    context.exported_vars.add('cond_code')
    context.vars['cond_code'] = l_0_cond_code = Macro(environment, macro, 'cond_code', ('c', 'var', 'in_var'), False, False, False, context.eval_ctx.autoescape)
    def macro(l_1_s, l_1_var, l_1_at, l_1_mask, l_1_like):
        t_6 = []
        if l_1_s is missing:
            l_1_s = undefined("parameter 's' was not provided", name='s')
        if l_1_var is missing:
            l_1_var = undefined("parameter 'var' was not provided", name='var')
        if l_1_at is missing:
            l_1_at = undefined("parameter 'at' was not provided", name='at')
        if l_1_mask is missing:
            l_1_mask = undefined("parameter 'mask' was not provided", name='mask')
        if l_1_like is missing:
            l_1_like = undefined("parameter 'like' was not provided", name='like')
        pass
        if environment.getattr(l_1_s, 'optional'):
            pass
            t_6.extend((
                'if HAS_',
                str(environment.getattr(l_1_s, 'name')),
                ':\n    ',
                str(l_1_var),
                ' = tl.load(',
                str(environment.getattr(l_1_s, 'name')),
                '_ptr + ',
                str(environment.getattr(l_1_s, 'base')),
                ' + ',
                str(l_1_at),
                ', mask=',
                str(l_1_mask),
                ', other=0.0).to(tl.float32)\nelse:\n    ',
                str(l_1_var),
                ' = tl.zeros_like(',
                str(l_1_like),
                '.to(tl.float32)) + ',
                str(environment.getattr(l_1_s, 'default')),
                '\n',
            ))
        else:
            pass
            t_6.extend((
                str(l_1_var),
                ' = tl.load(',
                str(environment.getattr(l_1_s, 'name')),
                '_ptr + ',
                str(environment.getattr(l_1_s, 'base')),
                ' + ',
                str(l_1_at),
                ', mask=',
                str(l_1_mask),
                ', other=0.0).to(tl.float32)\n',
            ))
        return concat(t_6)
    context.exported_vars.add('side_load')
    context.vars['side_load'] = l_0_side_load = Macro(environment, macro, 'side_load', ('s', 'var', 'at', 'mask', 'like'), False, False, False, context.eval_ctx.autoescape)
    def macro(l_1_forward):
        t_7 = []
        l_1_t = resolve('t')
        if l_1_forward is missing:
            l_1_forward = False
        pass
        def t_8(fiter):
            for l_2_x in fiter:
                if ((environment.getattr(l_2_x, 'name') == 'asq') and (not (l_1_forward and (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'pair') == 'cos')))):
                    yield l_2_x
        for l_2_x in t_8(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'aux')):
            _loop_vars = {}
            pass
            t_7.extend((
                'asq = tl.load(aux_asq_ptr + ',
                str(environment.getattr(l_2_x, 'base')),
                ' + offs_',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'R')),
                ' * stride_aux_asq_',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'R')),
                ', mask=',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'R')),
                '_in, other=0.0)\n',
            ))
            if (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'pair') == 'cos'):
                pass
                t_7.append(
                    'ia = 1.0 / tl.maximum(tl.sqrt(asq), 1e-12)\n',
                )
        l_2_x = missing
        for l_2_s in environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'row_sides'):
            _loop_vars = {}
            pass
            t_7.extend((
                str(context.call((undefined(name='side_load') if l_0_side_load is missing else l_0_side_load), l_2_s, str_join(('row_', environment.getattr(l_2_s, 'name'), )), environment.getattr(l_2_s, 'row'), str_join((environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'R'), '_in', )), str_join(('offs_', environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'R'), )), _loop_vars=_loop_vars)),
                '\n',
            ))
        l_2_s = missing
        return concat(t_7)
    context.exported_vars.add('row_loads')
    context.vars['row_loads'] = l_0_row_loads = Macro(environment, macro, 'row_loads', ('forward',), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_9 = []
        l_1_t = resolve('t')
        l_1_range = resolve('range')
        pass
        t_9.extend((
            '# a few coordinates (SMALL_D of them): each ',
            str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'A')),
            " row's stay in registers for the whole tile loop\n",
        ))
        for l_2_k in context.call((undefined(name='range') if l_1_range is missing else l_1_range), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'small_d_max')):
            _loop_vars = {}
            pass
            t_9.extend((
                'if SMALL_D > ',
                str(l_2_k),
                ':\n    _a',
                str(l_2_k),
                ' = tl.load(a_row + ',
                str(l_2_k),
                ' * stride_',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'A')),
                '_',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'K')),
                ', mask=',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'R')),
                '_ok, other=0.0).to(tl.float32)\n',
            ))
        l_2_k = missing
        return concat(t_9)
    context.exported_vars.add('small_a_loads')
    context.vars['small_a_loads'] = l_0_small_a_loads = Macro(environment, macro, 'small_a_loads', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_10 = []
        l_1_range = resolve('range')
        l_1_t = resolve('t')
        pass
        for l_2_k in context.call((undefined(name='range') if l_1_range is missing else l_1_range), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'small_d_max')):
            _loop_vars = {}
            pass
            t_10.extend((
                'if SMALL_D > ',
                str(l_2_k),
                ':\n    _b',
                str(l_2_k),
                ' = tl.load(b_row + ',
                str(l_2_k),
                ' * stride_',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B')),
                '_',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'K')),
                ', mask=',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'C')),
                '_in, other=0.0).to(tl.float32)\n',
            ))
        l_2_k = missing
        return concat(t_10)
    context.exported_vars.add('small_b_loads')
    context.vars['small_b_loads'] = l_0_small_b_loads = Macro(environment, macro, 'small_b_loads', (), False, False, False, context.eval_ctx.autoescape)
    def macro(l_1_var, l_1_bounds, l_1_note):
        t_11 = []
        if l_1_var is missing:
            l_1_var = undefined("parameter 'var' was not provided", name='var')
        if l_1_bounds is missing:
            l_1_bounds = undefined("parameter 'bounds' was not provided", name='bounds')
        if l_1_note is missing:
            l_1_note = undefined("parameter 'note' was not provided", name='note')
        pass
        for l_2_c in l_1_bounds:
            _loop_vars = {}
            pass
            t_11.extend((
                '# spec line ',
                str(environment.getattr(l_2_c, 'line')),
                ': where ',
                str(environment.getattr(l_2_c, 'text')),
                str(l_1_note),
                '\n',
            ))
            if (not t_4(environment.getattr(l_2_c, 'literal'))):
                pass
                t_11.extend((
                    str(l_1_var),
                    ' = tl.minimum(',
                    str(l_1_var),
                    ', ',
                    str(environment.getattr(l_2_c, 'literal')),
                    ')\n',
                ))
            elif environment.getattr(l_2_c, 'optional'):
                pass
                t_11.extend((
                    'if HAS_',
                    str(environment.getattr(l_2_c, 'name')),
                    ':\n    ',
                    str(l_1_var),
                    ' = tl.maximum(tl.minimum(',
                    str(environment.getattr(l_2_c, 'limit')),
                    ', ',
                    str(l_1_var),
                    '), 0).to(tl.int32)\n',
                ))
            else:
                pass
                t_11.extend((
                    str(l_1_var),
                    ' = tl.maximum(tl.minimum(',
                    str(environment.getattr(l_2_c, 'limit')),
                    ', ',
                    str(l_1_var),
                    '), 0).to(tl.int32)\n',
                ))
        l_2_c = missing
        return concat(t_11)
    context.exported_vars.add('bound_end')
    context.vars['bound_end'] = l_0_bound_end = Macro(environment, macro, 'bound_end', ('var', 'bounds', 'note'), False, False, False, context.eval_ctx.autoescape)
    def macro(l_1_rows, l_1_end, l_1_conds, l_1_a_k, l_1_b_at, l_1_b_k, l_1_k_end, l_1_cols, l_1_start, l_1_key_out, l_1_formed):
        t_12 = []
        l_1_t = resolve('t')
        l_1_C = l_1_narrow = l_1_BC = l_1_O = missing
        if l_1_rows is missing:
            l_1_rows = undefined("parameter 'rows' was not provided", name='rows')
        if l_1_end is missing:
            l_1_end = undefined("parameter 'end' was not provided", name='end')
        if l_1_conds is missing:
            l_1_conds = undefined("parameter 'conds' was not provided", name='conds')
        if l_1_a_k is missing:
            l_1_a_k = undefined("parameter 'a_k' was not provided", name='a_k')
        if l_1_b_at is missing:
            l_1_b_at = undefined("parameter 'b_at' was not provided", name='b_at')
        if l_1_b_k is missing:
            l_1_b_k = undefined("parameter 'b_k' was not provided", name='b_k')
        if l_1_k_end is missing:
            l_1_k_end = undefined("parameter 'k_end' was not provided", name='k_end')
        if l_1_cols is missing:
            l_1_cols = None
        if l_1_start is missing:
            l_1_start = '0'
        if l_1_key_out is missing:
            l_1_key_out = None
        if l_1_formed is missing:
            l_1_formed = None
        pass
        l_1_C = environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'C')
        l_1_narrow = (l_1_cols and (not l_1_conds))
        l_1_BC = (l_1_cols if (undefined(name='narrow') if l_1_narrow is missing else l_1_narrow) else str_join(('BLOCK_', t_3((undefined(name='C') if l_1_C is missing else l_1_C)), )))
        l_1_O = ('again_' if (undefined(name='narrow') if l_1_narrow is missing else l_1_narrow) else '')
        t_12.extend((
            '# rows whose ranking key is not finite (an inf or NaN coordinate: inf - inf, 0 * inf) ranked again\n# by their distances from the differences, as the reference forms them: the first NaN, else the\n# lowest index of the ',
            str(('least' if (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'select') == 'min') else 'greatest')),
            ' (a slow pass, for such rows only)\nif tl.sum(again.to(tl.int32), axis=0) > 0:\n    nan_at = tl.full([',
            str(l_1_rows),
            '], size_',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            ', tl.int32)\n    top = tl.full([',
            str(l_1_rows),
            '], float("',
            str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'fill')),
            '"), tl.float32)\n    top_idx = tl.full([',
            str(l_1_rows),
            '], size_',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            ', tl.int32)\n    for ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '0 in range(',
            str(l_1_start),
            ', ',
            str(l_1_end),
            ', ',
            str((undefined(name='BC') if l_1_BC is missing else l_1_BC)),
            '):\n        ',
            str((undefined(name='O') if l_1_O is missing else l_1_O)),
            'offs_',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            ' = ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '0 + tl.arange(0, ',
            str((undefined(name='BC') if l_1_BC is missing else l_1_BC)),
            ')\n        ',
            str((undefined(name='O') if l_1_O is missing else l_1_O)),
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_in = ',
            str((undefined(name='O') if l_1_O is missing else l_1_O)),
            'offs_',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            ' < ',
            str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'end_C')),
            '\n        ',
            str((undefined(name='O') if l_1_O is missing else l_1_O)),
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_ok = ',
            str((undefined(name='O') if l_1_O is missing else l_1_O)),
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_in\n',
        ))
        for l_2_c in l_1_conds:
            _loop_vars = {}
            pass
            t_12.extend((
                '        ',
                str(t_1(context.call((undefined(name='cond_code') if l_0_cond_code is missing else l_0_cond_code), l_2_c, str_join(((undefined(name='C') if l_1_C is missing else l_1_C), '_ok', )), str_join(((undefined(name='C') if l_1_C is missing else l_1_C), '_in', )), _loop_vars=_loop_vars), 8)),
                '\n',
            ))
        l_2_c = missing
        if l_1_formed:
            pass
            t_12.extend((
                '        ',
                str(t_1(l_1_formed, 8)),
                '\n',
            ))
        else:
            pass
            t_12.extend((
                '        b_at = ',
                str(t_2(context.eval_ctx, l_1_b_at, str_join(('offs_', (undefined(name='C') if l_1_C is missing else l_1_C), )), str_join(((undefined(name='O') if l_1_O is missing else l_1_O), 'offs_', (undefined(name='C') if l_1_C is missing else l_1_C), )))),
                '\n',
            ))
        t_12.extend((
            '        key = tl.zeros([',
            str(l_1_rows),
            ', ',
            str((undefined(name='BC') if l_1_BC is missing else l_1_BC)),
            '], tl.float32)\n        for k in range(0, ',
            str(l_1_k_end),
            '):\n            diff = tl.load(',
            str(l_1_a_k),
            ', mask=again, other=0.0).to(tl.float32)[:, None] - \\\n                ',
            str((str_join(('(', l_1_b_k, ')', )) if l_1_formed else str_join(('tl.load(', l_1_b_k, ', mask=', (undefined(name='O') if l_1_O is missing else l_1_O), (undefined(name='C') if l_1_C is missing else l_1_C), '_in, other=0.0).to(tl.float32)', )))),
            '[None, :]\n            key += diff * diff\n        key = tl.where(',
            str((undefined(name='O') if l_1_O is missing else l_1_O)),
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_ok[None, :], key, float("',
            str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'fill')),
            '"))\n        nan_at = tl.minimum(nan_at, tl.min(tl.where(key != key, ',
            str((undefined(name='O') if l_1_O is missing else l_1_O)),
            'offs_',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '[None, :], size_',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '), axis=1))\n        key = tl.where(key == key, key, float("',
            str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'fill')),
            '"))\n        tile_top = tl.',
            str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'select')),
            '(key, axis=1)\n        tile_idx = tl.min(tl.where((key == tile_top[:, None]) & ',
            str((undefined(name='O') if l_1_O is missing else l_1_O)),
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_ok[None, :], ',
            str((undefined(name='O') if l_1_O is missing else l_1_O)),
            'offs_',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '[None, :], size_',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '), axis=1)\n        # strictly better, or the first kept column: an earlier tile keeps a tie\n        take = (tile_top ',
            str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'better')),
            ' top) | ((top_idx == size_',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            ') & (tile_idx < size_',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '))\n        top_idx = tl.where(take, tile_idx, top_idx)\n        top = tl.where(take, tile_top, top)\n    best_idx = tl.where(again, tl.where(nan_at < size_',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            ', nan_at, top_idx), best_idx)\n',
        ))
        if l_1_key_out:
            pass
            t_12.extend((
                '    ',
                str(l_1_key_out),
                ' = tl.where(again, tl.where(nan_at < size_',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                ', float("nan"), top), ',
                str(l_1_key_out),
                ')\n',
            ))
        return concat(t_12)
    context.exported_vars.add('rank_again')
    context.vars['rank_again'] = l_0_rank_again = Macro(environment, macro, 'rank_again', ('rows', 'end', 'conds', 'a_k', 'b_at', 'b_k', 'k_end', 'cols', 'start', 'key_out', 'formed'), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_13 = []
        l_1_t = resolve('t')
        pass
        for l_2_x in environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows'), 'inputs'):
            _loop_vars = {}
            pass
            t_13.extend((
                str(environment.getattr(l_2_x, 'name')),
                '_ptr, ',
                str(environment.getattr(l_2_x, 'strides')),
                ', ',
            ))
        l_2_x = missing
        for l_2_a in environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows'), 'sizes'):
            _loop_vars = {}
            pass
            t_13.extend((
                'size_',
                str(l_2_a),
                ', ',
            ))
        l_2_a = missing
        if environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows'), 'projects'):
            pass
            t_13.append(
                'RX_FP32: tl.constexpr, ',
            )
        t_13.extend((
            ' # ',
            str(environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows'), 'name')),
            "'s inputs",
        ))
        return concat(t_13)
    context.exported_vars.add('rows_params')
    context.vars['rows_params'] = l_0_rows_params = Macro(environment, macro, 'rows_params', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_14 = []
        l_1_t = resolve('t')
        pass
        for l_2_x in environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows'), 'inputs'):
            _loop_vars = {}
            pass
            t_14.extend((
                't["',
                str(environment.getattr(l_2_x, 'name')),
                '"], *_strides(t["',
                str(environment.getattr(l_2_x, 'name')),
                '"], ',
                str(environment.getattr(l_2_x, 'rank')),
                str((str_join((', "', environment.getattr(l_2_x, 'name'), '"', )) if environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'packing') else cond_expr_undefined("the inline if-expression on line 123 in 'select_reduce/common.py.jinja' evaluated to false and no else section was defined."))),
                '), ',
            ))
        l_2_x = missing
        for l_2_a in environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows'), 'sizes'):
            _loop_vars = {}
            pass
            t_14.extend((
                'sizes["',
                str(l_2_a),
                '"], ',
            ))
        l_2_a = missing
        if environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows'), 'projects'):
            pass
            t_14.append(
                'runtime.interpreting(), ',
            )
        return concat(t_14)
    context.exported_vars.add('rows_args')
    context.vars['rows_args'] = l_0_rows_args = Macro(environment, macro, 'rows_args', (), False, False, False, context.eval_ctx.autoescape)

blocks = {}
debug_info = '5=36&6=47&7=52&8=56&9=58&10=69&11=72&12=83&13=87&14=89&16=101&19=113&20=126&21=130&22=132&24=142&26=152&29=166&31=172&32=181&33=190&37=196&38=200&41=207&42=214&43=217&44=222&45=224&48=239&49=244&50=249&51=251&54=266&56=275&57=280&58=286&59=289&60=296&61=300&62=302&64=312&68=323&69=350&77=351&78=352&79=353&82=356&84=358&85=362&86=366&87=370&88=378&89=386&90=395&91=402&92=407&94=411&95=415&97=422&99=427&100=431&101=433&102=435&104=437&105=442&106=448&107=450&108=452&110=461&113=467&114=470&115=474&118=484&120=488&122=520&123=524'
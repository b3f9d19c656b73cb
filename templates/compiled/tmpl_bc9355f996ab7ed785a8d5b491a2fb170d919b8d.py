from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'select_reduce/backward.py.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_t = resolve('t')
    l_0_row_loads = l_0_side_load = l_0_rows_params = l_0_R = l_0_C = l_0_K = l_0_A = l_0_B = l_0_P = l_0_weights = l_0_pair_grads = missing
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
        t_4 = environment.filters['upper']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'upper' found.")
    pass
    included_template = environment.get_template('select_reduce/common.py.jinja', 'select_reduce/backward.py.jinja').make_module(context.get_all(), True, {'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R, 'pair_grads': l_0_pair_grads, 'row_loads': l_0_row_loads, 'rows_params': l_0_rows_params, 'side_load': l_0_side_load, 'weights': l_0_weights})
    l_0_row_loads = getattr(included_template, 'row_loads', missing)
    if l_0_row_loads is missing:
        l_0_row_loads = undefined(f"the template {included_template.__name__!r} (imported on line 3 in 'select_reduce/backward.py.jinja') does not export the requested name 'row_loads'", name='row_loads')
    l_0_side_load = getattr(included_template, 'side_load', missing)
    if l_0_side_load is missing:
        l_0_side_load = undefined(f"the template {included_template.__name__!r} (imported on line 3 in 'select_reduce/backward.py.jinja') does not export the requested name 'side_load'", name='side_load')
    l_0_rows_params = getattr(included_template, 'rows_params', missing)
    if l_0_rows_params is missing:
        l_0_rows_params = undefined(f"the template {included_template.__name__!r} (imported on line 3 in 'select_reduce/backward.py.jinja') does not export the requested name 'rows_params'", name='rows_params')
    context.vars.update({'row_loads': l_0_row_loads, 'side_load': l_0_side_load, 'rows_params': l_0_rows_params})
    context.exported_vars.difference_update(('row_loads', 'side_load', 'rows_params'))
    (l_0_R, l_0_C, l_0_K, l_0_A, l_0_B, l_0_P) = (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'R'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'C'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'K'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'A'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'B'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'P'))
    context.vars.update({'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R})
    context.exported_vars.update(('A', 'B', 'C', 'K', 'P', 'R'))
    def macro():
        t_5 = []
        l_1_R = l_0_R
        l_1_C = l_0_C
        pass
        (l_1_R, l_1_C) = (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'R'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'C'))
        t_5.extend((
            'sel = tl.load(idx_ptr + cell * size_',
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            ' + offs_',
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            ', mask=',
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            '_in, other=-2)\nkept = sel >= -1\npicked = sel >= 0\nsel_safe = tl.maximum(sel, 0)\n',
        ))
        if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') == 'none'):
            pass
            t_5.extend((
                'g_row = tl.load(grad_ptr + ',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'out_base')),
                ' + ',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'out_row')),
                ', mask=',
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                '_in, other=0.0)\n',
            ))
        elif (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') in ('max', 'min')):
            pass
            t_5.extend((
                'win = tl.load(stat_ptr + cell)\ng_row = tl.where(offs_',
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                ' == win, tl.load(grad_ptr + ',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'out_base')),
                '), 0.0)\n',
            ))
        else:
            pass
            t_5.extend((
                'g_row = tl.zeros([BLOCK_',
                str(t_4((undefined(name='R') if l_1_R is missing else l_1_R))),
                '], tl.float32) + tl.load(grad_ptr + ',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'out_base')),
                ')  # (through its strides)\n',
            ))
            if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') == 'mean'):
                pass
                t_5.append(
                    'n_kept = tl.load(stat_ptr + cell)\ng_row = tl.where(n_kept > 0, g_row / tl.maximum(n_kept, 1.0), 0.0)\n',
                )
        t_5.append(
            'g_row = tl.where(kept, g_row, 0.0)\n',
        )
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'need_x'):
            pass
            t_5.extend((
                'x_sel = tl.load(xsel_ptr + cell * size_',
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                ' + offs_',
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                ', mask=picked, other=0.0)\n',
            ))
        def t_6(fiter):
            for l_2_x in fiter:
                if (environment.getattr(l_2_x, 'name') == 'bsq'):
                    yield l_2_x
        for l_2_x in t_6(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'aux')):
            _loop_vars = {}
            pass
            t_5.extend((
                'bsq_sel = tl.load(aux_bsq_ptr + ',
                str(environment.getattr(l_2_x, 'base')),
                ' + sel_safe * stride_aux_bsq_',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                ', mask=picked, other=0.0)\n',
            ))
            if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'pair') == 'cos'):
                pass
                t_5.append(
                    'ib_sel = 1.0 / tl.maximum(tl.sqrt(bsq_sel), 1e-12)\n',
                )
        l_2_x = missing
        for l_2_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_sides'):
            _loop_vars = {}
            pass
            t_5.extend((
                str(context.call((undefined(name='side_load') if l_0_side_load is missing else l_0_side_load), l_2_s, str_join(('col_', environment.getattr(l_2_s, 'name'), '_sel', )), environment.getattr(l_2_s, 'sel'), 'picked', 'sel', _loop_vars=_loop_vars)),
                '\n',
            ))
        l_2_s = missing
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'uses_value'):
            pass
            t_5.extend((
                'v = tl.where(picked, ',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'value')),
                ', 0.0)\n',
            ))
        for (l_2_sym, l_2_code) in context.call(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'weights'), 'items')):
            _loop_vars = {}
            pass
            t_5.extend((
                'w_',
                str(l_2_sym),
                ' = tl.where(picked, g_row * ',
                str(l_2_code),
                ', 0.0)\n',
            ))
        l_2_sym = l_2_code = missing
        return concat(t_5)
    context.exported_vars.add('weights')
    context.vars['weights'] = l_0_weights = Macro(environment, macro, 'weights', (), False, False, False, context.eval_ctx.autoescape)
    def macro(l_1_with_a):
        t_7 = []
        if l_1_with_a is missing:
            l_1_with_a = True
        pass
        t_7.append(
            'a_use = tl.where(picked[:, None], a, 0.0)  # a row left out (masked; NaN there, say) passes nothing\ncontrib = tl.zeros_like(a)\n',
        )
        if ('dot' in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'weights')):
            pass
            if l_1_with_a:
                pass
                t_7.append(
                    'grad_a += w_dot[:, None] * b\n',
                )
            t_7.append(
                'contrib += w_dot[:, None] * a_use\n',
            )
        if ('l1' in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'weights')):
            pass
            t_7.append(
                'sign = _hsr_sign(a_use - b)\n',
            )
            if l_1_with_a:
                pass
                t_7.append(
                    'grad_a += w_l1[:, None] * sign\n',
                )
            t_7.append(
                'contrib -= w_l1[:, None] * sign\n',
            )
        if ('sq' in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'weights')):
            pass
            t_7.append(
                '# d ||a - b||^2 = 2 (a - b): from the differences, exact far from the origin\ndiff = a_use - b\n',
            )
            if l_1_with_a:
                pass
                t_7.append(
                    'grad_a += (2.0 * w_sq)[:, None] * diff\n',
                )
            t_7.append(
                'contrib -= (2.0 * w_sq)[:, None] * diff\n',
            )
        if ('asq' in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'weights')):
            pass
            if l_1_with_a:
                pass
                t_7.append(
                    'grad_a += (2.0 * w_asq)[:, None] * a_use\n',
                )
        if ('bsq' in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'weights')):
            pass
            t_7.append(
                'contrib += (2.0 * w_bsq)[:, None] * b\n',
            )
        if ('ia' in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'weights')):
            pass
            if l_1_with_a:
                pass
                t_7.append(
                    'grad_a -= tl.where(picked & (asq > 1e-24), w_ia * ia * ia * ia, 0.0)[:, None] * a_use  # d(1 / max(|a|, eps))\n',
                )
        if ('ib' in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'weights')):
            pass
            t_7.append(
                'contrib -= (w_ib * ib_sel * ib_sel * ib_sel * (bsq_sel > 1e-24).to(tl.float32))[:, None] * b\n',
            )
        return concat(t_7)
    context.exported_vars.add('pair_grads')
    context.vars['pair_grads'] = l_0_pair_grads = Macro(environment, macro, 'pair_grads', ('with_a',), False, False, False, context.eval_ctx.autoescape)
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'has_backward'):
        pass
        yield '\n\n@triton.jit\ndef '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_bwd(\n    '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_ptr, '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_ptr,'
        for l_1_o in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'offsets'):
            _loop_vars = {}
            pass
            yield ' '
            yield str(l_1_o)
            yield '_ptr,'
        l_1_o = missing
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
        yield '\n    grad_ptr, idx_ptr, stat_ptr, xsel_ptr, grad_'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_ptr, grad_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_ptr,'
        for l_1_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'sides'):
            _loop_vars = {}
            pass
            yield ' grad_'
            yield str(environment.getattr(l_1_s, 'name'))
            yield '_ptr,'
        l_1_s = missing
        yield '\n    '
        yield str(t_2(context.eval_ctx, environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'sizes'), ', '))
        yield ',\n'
        for l_1_line in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'stride_params')[:((2 + t_3(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'aux'))) + t_3(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'sides')))]:
            _loop_vars = {}
            pass
            yield '    '
            yield str(l_1_line)
            yield ',\n'
        l_1_line = missing
        yield '    '
        yield str(t_2(context.eval_ctx, environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'da_strides'), ', '))
        yield ',\n    '
        yield str(t_2(context.eval_ctx, environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'db_strides'), ', '))
        yield ',\n'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ostrides'):
            pass
            yield '    '
            yield str(t_2(context.eval_ctx, environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ostrides'), ', '))
            yield ',\n'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows'):
            pass
            yield '    '
            yield str(context.call((undefined(name='rows_params') if l_0_rows_params is missing else l_0_rows_params)))
            yield '\n'
            if environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows'), 'flat_rows'):
                pass
                yield "    sel_rows_ptr,  # with COMPACT, each selection's row of "
                yield str((undefined(name='B') if l_0_B is missing else l_0_B))
                yield ' (row-major over its axes but the last)\n'
        yield '    other_per, part_stride,  # the other cells in parts across programs (axis 2), each its own grad_'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield ' partial\n'
        def t_8(fiter):
            for l_1_s in fiter:
                if environment.getattr(l_1_s, 'optional'):
                    yield l_1_s
        for l_1_s in t_8(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'sides')):
            _loop_vars = {}
            pass
            yield '    HAS_'
            yield str(environment.getattr(l_1_s, 'name'))
            yield ': tl.constexpr,\n'
        l_1_s = missing
        yield '    BLOCK_'
        yield str(t_4((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield ': tl.constexpr, BLOCK_'
        yield str(t_4((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield ': tl.constexpr, SCATTER: tl.constexpr,\n    ACCUMULATE: tl.constexpr,'
        yield str((' COMPACT: tl.constexpr,' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows') else cond_expr_undefined("the inline if-expression on line 115 in 'select_reduce/backward.py.jinja' evaluated to false and no else section was defined.")))
        yield '\n):\n    """Backward of '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield ' from the saved arg'
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'select'))
        yield ', one program per block of\n    '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield ' rows: gathers the selected '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield ' rows into grad_'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield ' (each row\n    written once; with ACCUMULATE added to what it holds) and, with SCATTER, adds\n    into grad_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        for l_1_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_sides'):
            _loop_vars = {}
            pass
            yield ' and grad_'
            yield str(environment.getattr(l_1_s, 'name'))
        l_1_s = missing
        yield ' with fp32\n    atomics in the same pass ("atomic"); without, '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_bwd_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield ' owns them."""\n    # spec line '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'line'))
        yield ': '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'spec_line'))
        yield '\n    a_cell = tl.program_id(0).to(tl.int64)\n'
        for l_1_stmt in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'decompose_a'):
            _loop_vars = {}
            pass
            yield '    '
            yield str(l_1_stmt)
            yield '\n'
        l_1_stmt = missing
        yield '    offs_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ' = tl.program_id(1) * BLOCK_'
        yield str(t_4((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield ' + tl.arange(0, BLOCK_'
        yield str(t_4((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield ')\n    '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '_in = offs_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ' < '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'end_R'))
        yield '\n    '
        yield str(t_1(context.call((undefined(name='row_loads') if l_0_row_loads is missing else l_0_row_loads)), 4))
        yield '\n'
        for (l_1_name, l_1_direct, l_1_through) in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'row_grads'):
            _loop_vars = {}
            pass
            yield '    grad_row_'
            yield str(l_1_name)
            yield ' = tl.zeros([BLOCK_'
            yield str(t_4((undefined(name='R') if l_0_R is missing else l_0_R)))
            yield '], tl.float32)\n'
        l_1_name = l_1_direct = l_1_through = missing
        yield '    # one pass at least: the per-row and per-column terms ('
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '0 == 0) count when size_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield ' is 0\n    for '
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '0 in range(0, size_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield ' + (size_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield ' == 0), BLOCK_'
        yield str(t_4((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield '):\n        offs_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield ' = '
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '0 + tl.arange(0, BLOCK_'
        yield str(t_4((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield ')\n        '
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '_in = offs_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield ' < size_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '\n        a = tl.load('
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_ptr + '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'a_base'))
        yield ' + offs_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '.to(tl.int64)[:, None] * stride_'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ' + offs_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '[None, :] * stride_'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield ',\n                    mask='
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '_in[:, None] & '
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '_in[None, :], other=0.0).to(tl.float32)\n        grad_a = tl.zeros([BLOCK_'
        yield str(t_4((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield ', BLOCK_'
        yield str(t_4((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield '], tl.float32)\n        # the other cells, or a part of them (axis 2: dispatch.gather_parts; its grad_'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield ' partial at part_stride)\n        part = tl.program_id(2)\n        for other in range(part * other_per, tl.minimum((part + 1) * other_per, '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'n_other'))
        yield ')):\n'
        for l_1_stmt in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'decompose_other'):
            _loop_vars = {}
            pass
            yield '            '
            yield str(l_1_stmt)
            yield '\n'
        l_1_stmt = missing
        yield '            cell = '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cell_expr'))
        yield '\n            '
        yield str(t_1(context.call((undefined(name='weights') if l_0_weights is missing else l_0_weights)), 12))
        yield '\n            hit_k = picked[:, None] & '
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '_in[None, :]\n'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows'):
            pass
            yield '            '
            yield str(t_1(context.call(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows'), 'tile'), 'sel_safe', 'picked', str_join(('offs_', (undefined(name='K') if l_0_K is missing else l_0_K), )), str_join(((undefined(name='K') if l_0_K is missing else l_0_K), '_in', )), 'b', 'tl.float32', None, (str_join(('BLOCK_', t_4((undefined(name='R') if l_0_R is missing else l_0_R)), )), str_join(('BLOCK_', t_4((undefined(name='K') if l_0_K is missing else l_0_K)), )), str_join(((undefined(name='K') if l_0_K is missing else l_0_K), '0', )))), 12))
            yield '\n'
        else:
            pass
            yield '            b = tl.load('
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield '_ptr + '
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'b_base'))
            yield ' + sel_safe.to(tl.int64)[:, None] * stride_'
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield '_'
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield ' + offs_'
            yield str((undefined(name='K') if l_0_K is missing else l_0_K))
            yield '[None, :] * stride_'
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield '_'
            yield str((undefined(name='K') if l_0_K is missing else l_0_K))
            yield ',\n                        mask=hit_k, other=0.0).to(tl.float32)\n'
        yield '            '
        yield str(t_1(context.call((undefined(name='pair_grads') if l_0_pair_grads is missing else l_0_pair_grads)), 12))
        yield '\n'
        if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows') and environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows'), 'normalize')):
            pass
            yield "            # back through the rows' L2 normalisation (y = x / max(|x|, eps): (g - y <y, g>) / |x|, or g / eps):\n            # the gradient of the rows before it, which hsr.row_grads takes on to their inputs\n            contrib = tl.where((b_inv < 1e12)[:, None], contrib - b * tl.sum(b * contrib, axis=1)[:, None], contrib) * b_inv[:, None]\n"
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows'):
            pass
            yield '            if COMPACT:  # one row a selection, where idx has it (hsr.row_grads adds them up)\n                tl.store(grad_'
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield '_ptr + (cell * size_'
            yield str((undefined(name='R') if l_0_R is missing else l_0_R))
            yield ' + offs_'
            yield str((undefined(name='R') if l_0_R is missing else l_0_R))
            yield ').to(tl.int64)[:, None] * size_'
            yield str((undefined(name='K') if l_0_K is missing else l_0_K))
            yield ' + offs_'
            yield str((undefined(name='K') if l_0_K is missing else l_0_K))
            yield '[None, :],\n                         contrib, mask='
            yield str((undefined(name='R') if l_0_R is missing else l_0_R))
            yield '_in[:, None] & '
            yield str((undefined(name='K') if l_0_K is missing else l_0_K))
            yield '_in[None, :])\n'
            if environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows'), 'flat_rows'):
                pass
                yield '                if '
                yield str((undefined(name='K') if l_0_K is missing else l_0_K))
                yield '0 == 0:  # and the row it is of: hsr.row_grads reads the inputs there (row 0 of the cell where none)\n                    tl.store(sel_rows_ptr + cell * size_'
                yield str((undefined(name='R') if l_0_R is missing else l_0_R))
                yield ' + offs_'
                yield str((undefined(name='R') if l_0_R is missing else l_0_R))
                yield ',\n                             ('
                yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'b_cell_expr'))
                yield ') * size_'
                yield str((undefined(name='C') if l_0_C is missing else l_0_C))
                yield ' + sel_safe.to(tl.int64), mask='
                yield str((undefined(name='R') if l_0_R is missing else l_0_R))
                yield '_in)\n'
            yield '            elif SCATTER:\n'
        else:
            pass
            yield '            if SCATTER:\n'
        yield '                tl.atomic_add(grad_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_ptr + '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'db_base'))
        yield ' + sel_safe.to(tl.int64)[:, None] * dstride_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ' + offs_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '[None, :] * dstride_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield ',\n                              contrib, mask=hit_k)\n'
        if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'row_grads') or environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_sides')):
            pass
            yield '            if '
            yield str((undefined(name='K') if l_0_K is missing else l_0_K))
            yield '0 == 0:  # per-row and per-column terms, once\n'
            for (l_1_name, l_1_direct, l_1_through) in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'row_grads'):
                _loop_vars = {}
                pass
                yield '                grad_row_'
                yield str(l_1_name)
                yield ' += tl.where(kept, g_row * '
                yield str(l_1_direct)
                yield ', 0.0) + tl.where(picked, g_row * '
                yield str(l_1_through)
                yield ', 0.0)\n'
            l_1_name = l_1_direct = l_1_through = missing
            for l_1_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_sides'):
                _loop_vars = {}
                pass
                yield '                if SCATTER:\n                    tl.atomic_add(grad_'
                yield str(environment.getattr(l_1_s, 'name'))
                yield '_ptr + ('
                yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'b_cell_expr'))
                yield ') * size_'
                yield str((undefined(name='C') if l_0_C is missing else l_0_C))
                yield ' + sel_safe,\n                                  tl.where(picked, g_row * '
                yield str(environment.getitem(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_grads'), environment.getattr(l_1_s, 'name')))
                yield ', 0.0), mask=picked)\n'
            l_1_s = missing
        yield '        grad_a_ptrs = grad_'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_ptr + part.to(tl.int64) * part_stride + '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'da_base'))
        yield ' + offs_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '.to(tl.int64)[:, None] * dstride_'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ' + offs_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '[None, :] * dstride_'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield "\n        if ACCUMULATE:  # a buffer the other way's backward has scattered into (both_ways_sum)\n            grad_a += tl.load(grad_a_ptrs, mask="
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '_in[:, None] & '
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '_in[None, :], other=0.0).to(tl.float32)\n        tl.store(grad_a_ptrs, grad_a.to(grad_'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_ptr.dtype.element_ty), mask='
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '_in[:, None] & '
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '_in[None, :])\n'
        for (l_1_name, l_1_direct, l_1_through) in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'row_grads'):
            _loop_vars = {}
            pass
            yield '    tl.store(grad_'
            yield str(l_1_name)
            yield '_ptr + a_cell * size_'
            yield str((undefined(name='R') if l_0_R is missing else l_0_R))
            yield ' + offs_'
            yield str((undefined(name='R') if l_0_R is missing else l_0_R))
            yield ', grad_row_'
            yield str(l_1_name)
            yield ', mask='
            yield str((undefined(name='R') if l_0_R is missing else l_0_R))
            yield '_in)\n'
        l_1_name = l_1_direct = l_1_through = missing

blocks = {}
debug_info = '3=37&4=49&5=52&6=57&7=60&11=67&12=71&13=78&15=82&17=91&18=96&24=104&25=108&27=113&28=122&29=127&33=133&34=137&36=141&37=145&39=148&40=153&43=162&48=170&49=172&54=180&56=185&61=193&64=198&69=206&70=208&74=213&77=218&78=220&82=225&86=233&90=236&91=238&93=264&95=276&96=278&97=282&99=286&100=288&101=290&102=293&104=295&105=298&106=300&107=303&110=306&111=308&112=316&114=320&115=324&117=326&118=330&120=336&121=344&122=348&124=352&125=356&127=360&128=366&129=372&130=374&131=378&133=384&134=388&135=396&136=402&137=408&138=424&139=428&140=432&142=434&143=436&144=440&146=444&147=446&148=448&149=450&150=453&152=458&155=473&156=475&161=478&163=481&164=491&165=495&166=498&167=500&168=504&174=515&176=529&177=532&178=534&179=538&181=545&183=549&184=555&187=559&189=575&190=579&191=585&192=589'
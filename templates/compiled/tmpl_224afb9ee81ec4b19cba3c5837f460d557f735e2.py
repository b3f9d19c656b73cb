from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'select_reduce/tile.py.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_cond_code = l_0_side_load = l_0_small_b_loads = l_0_rank_again = l_0_cn_load = l_0_col_norms = l_0_dot_tile = l_0_c_tile = l_0_l2_at_selection = l_0_dot_at_selection = l_0_l2_rank_again = l_0_row_finish = missing
    try:
        t_1 = environment.filters['indent']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'indent' found.")
    try:
        t_2 = environment.filters['trim']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'trim' found.")
    try:
        t_3 = environment.filters['upper']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'upper' found.")
    pass
    included_template = environment.get_template('select_reduce/common.py.jinja', 'select_reduce/tile.py.jinja').make_module(context.get_all(), True, {'c_tile': l_0_c_tile, 'cn_load': l_0_cn_load, 'col_norms': l_0_col_norms, 'cond_code': l_0_cond_code, 'dot_at_selection': l_0_dot_at_selection, 'dot_tile': l_0_dot_tile, 'l2_at_selection': l_0_l2_at_selection, 'l2_rank_again': l_0_l2_rank_again, 'rank_again': l_0_rank_again, 'row_finish': l_0_row_finish, 'side_load': l_0_side_load, 'small_b_loads': l_0_small_b_loads})
    l_0_cond_code = getattr(included_template, 'cond_code', missing)
    if l_0_cond_code is missing:
        l_0_cond_code = undefined(f"the template {included_template.__name__!r} (imported on line 5 in 'select_reduce/tile.py.jinja') does not export the requested name 'cond_code'", name='cond_code')
    l_0_side_load = getattr(included_template, 'side_load', missing)
    if l_0_side_load is missing:
        l_0_side_load = undefined(f"the template {included_template.__name__!r} (imported on line 5 in 'select_reduce/tile.py.jinja') does not export the requested name 'side_load'", name='side_load')
    l_0_small_b_loads = getattr(included_template, 'small_b_loads', missing)
    if l_0_small_b_loads is missing:
        l_0_small_b_loads = undefined(f"the template {included_template.__name__!r} (imported on line 5 in 'select_reduce/tile.py.jinja') does not export the requested name 'small_b_loads'", name='small_b_loads')
    l_0_rank_again = getattr(included_template, 'rank_again', missing)
    if l_0_rank_again is missing:
        l_0_rank_again = undefined(f"the template {included_template.__name__!r} (imported on line 5 in 'select_reduce/tile.py.jinja') does not export the requested name 'rank_again'", name='rank_again')
    context.vars.update({'cond_code': l_0_cond_code, 'side_load': l_0_side_load, 'small_b_loads': l_0_small_b_loads, 'rank_again': l_0_rank_again})
    context.exported_vars.difference_update(('cond_code', 'side_load', 'small_b_loads', 'rank_again'))
    def macro(l_1_full):
        t_4 = []
        l_1_t = resolve('t')
        if l_1_full is missing:
            l_1_full = False
        pass
        if l_1_full:
            pass
            t_4.extend((
                'bsq = tl.load(cn_rows + offs_',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'C')),
                ' * stride_cn_',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'C')),
                ')  # a full tile: every column in bounds\n',
            ))
        else:
            pass
            t_4.extend((
                'bsq = tl.load(cn_rows + offs_',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'C')),
                ' * stride_cn_',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'C')),
                ', mask=',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'C')),
                '_in, other=0.0)\n',
            ))
        return concat(t_4)
    context.exported_vars.add('cn_load')
    context.vars['cn_load'] = l_0_cn_load = Macro(environment, macro, 'cn_load', ('full',), False, False, False, context.eval_ctx.autoescape)
    def macro(l_1_full):
        t_5 = []
        if l_1_full is missing:
            l_1_full = False
        pass
        t_5.extend((
            "if COL_NORMS:  # the columns' norms from the pre-pass (dispatch.col_norms): no work on the tile\n    ",
            str(context.call((undefined(name='cn_load') if l_0_cn_load is missing else l_0_cn_load), l_1_full)),
            '\nelse:\n    bsq = tl.sum(b.to(tl.float32) * b.to(tl.float32), axis=1)  # the norms from the tile',
        ))
        return concat(t_5)
    context.exported_vars.add('col_norms')
    context.vars['col_norms'] = l_0_col_norms = Macro(environment, macro, 'col_norms', ('full',), False, False, False, context.eval_ctx.autoescape)
    def macro(l_1_tail, l_1_half, l_1_norms, l_1_rank, l_1_halves, l_1_swap):
        t_6 = []
        l_1_t = resolve('t')
        l_1_range = resolve('range')
        l_1_pointer_loads = resolve('pointer_loads')
        l_1_R = l_1_C = l_1_K = l_1_tile_norms = l_1_BC = l_1_beta = l_1_a_row = l_1_b_row = missing
        if l_1_tail is missing:
            l_1_tail = True
        if l_1_half is missing:
            l_1_half = False
        if l_1_norms is missing:
            l_1_norms = False
        if l_1_rank is missing:
            l_1_rank = False
        if l_1_halves is missing:
            l_1_halves = False
        if l_1_swap is missing:
            l_1_swap = False
        pass
        (l_1_R, l_1_C, l_1_K) = (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'R'), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'C'), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'K'))
        l_1_tile_norms = (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'l2') or (l_1_norms and (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'pair') == 'cos')))
        l_1_BC = str_join(('BLOCK_', t_3((undefined(name='C') if l_1_C is missing else l_1_C)), (' // 2' if l_1_half else ''), ))
        l_1_beta = (environment.getitem(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'key_linear'), 1) if environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'key_linear') else None)
        (l_1_a_row, l_1_b_row) = (('a_row_s', 'b_row_s') if environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'l2') else ('a_row', 'b_row'))
        if ((environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'pair') == 'l1') and environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows')):
            pass
            t_6.extend((
                'l1 = tl.zeros([',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'ROWS')),
                ', ',
                str((undefined(name='BC') if l_1_BC is missing else l_1_BC)),
                '], tl.float32)\n# ',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B')),
                ' is computed: the tile formed whole, each coordinate read from it (a slow path: the reads cost\n# ',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                "'s length over the rows' block in work beyond the pairs')\n",
                str(context.call(environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows'), 'tile'), str_join(('offs_', (undefined(name='C') if l_1_C is missing else l_1_C), )), str_join(((undefined(name='C') if l_1_C is missing else l_1_C), '_in', )), str_join(('offs_', (undefined(name='K') if l_1_K is missing else l_1_K), )), str_join(((undefined(name='K') if l_1_K is missing else l_1_K), '_in', )), 'b_tile', 'tl.float32', None, ((undefined(name='BC') if l_1_BC is missing else l_1_BC), str_join(('BLOCK_', t_3((undefined(name='K') if l_1_K is missing else l_1_K)), )), '0'), None, 'lx')),
                '\nfor ',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                '0 in range(0, size_',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                '):  # elementwise: |a - b| summed over ',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                '\n    a_k = tl.load(a_row + ',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                '0 * stride_',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'A')),
                '_',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                ', mask=',
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                '_ok, other=0.0).to(tl.float32)\n    b_k = tl.sum(tl.where(offs_',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                '[None, :] == ',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                '0, b_tile, 0.0), axis=1)\n    l1 += tl.abs(a_k[:, None] - b_k[None, :])\n',
            ))
        elif (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'pair') == 'l1'):
            pass
            t_6.extend((
                'l1 = tl.zeros([',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'ROWS')),
                ', ',
                str((undefined(name='BC') if l_1_BC is missing else l_1_BC)),
                '], tl.float32)\nif SMALL_D > 0:  # a few coordinates: unrolled, every load of the tile issued before the first use\n    ',
                str(t_1(context.call((undefined(name='small_b_loads') if l_0_small_b_loads is missing else l_0_small_b_loads)), 4)),
                '\n',
            ))
            for l_2_k in context.call((undefined(name='range') if l_1_range is missing else l_1_range), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'small_d_max')):
                _loop_vars = {}
                pass
                t_6.extend((
                    '    if SMALL_D > ',
                    str(l_2_k),
                    ':\n        l1 += tl.abs(_a',
                    str(l_2_k),
                    '[:, None] - _b',
                    str(l_2_k),
                    '[None, :])\n',
                ))
            l_2_k = missing
            t_6.extend((
                'else:\n    for ',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                '0 in range(0, size_',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                '):  # elementwise: |a - b| summed over ',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                '\n        a_k = tl.load(a_row + ',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                '0 * stride_',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'A')),
                '_',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                ', mask=',
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                '_ok, other=0.0).to(tl.float32)\n        b_k = tl.load(b_row + ',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                '0 * stride_',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B')),
                '_',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                ', mask=',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_in, other=0.0).to(tl.float32)\n        l1 += tl.abs(a_k[:, None] - b_k[None, :])\n',
            ))
        else:
            pass
            t_6.extend((
                'if DOT_MODE == 0:  # the whole contraction in one tile, ',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'A')),
                ' rows held in registers\n',
            ))
            if (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows') and environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'l2')):
                pass
                t_6.extend((
                    '    if SHIFT_A == 1:  # fp32 rows: ',
                    str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B')),
                    "'s formed less the point ",
                    str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'A')),
                    "'s were taken from (runtime.l2_point)\n        row_shift = tl.load(shift_ptr + offs_",
                    str((undefined(name='K') if l_1_K is missing else l_1_K)),
                    ', mask=',
                    str((undefined(name='K') if l_1_K is missing else l_1_K)),
                    '_in, other=0.0)\n    else:\n        row_shift = tl.zeros([BLOCK_',
                    str(t_3((undefined(name='K') if l_1_K is missing else l_1_K))),
                    '], tl.float32)\n    ',
                    str(t_1(context.call(environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows'), 'tile'), str_join(('offs_', (undefined(name='C') if l_1_C is missing else l_1_C), )), str_join(((undefined(name='C') if l_1_C is missing else l_1_C), '_in', )), str_join(('offs_', (undefined(name='K') if l_1_K is missing else l_1_K), )), str_join(((undefined(name='K') if l_1_K is missing else l_1_K), '_in', )), 'b', str_join((environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B'), '_ptr.dtype.element_ty', )), None, ((undefined(name='BC') if l_1_BC is missing else l_1_BC), str_join(('BLOCK_', t_3((undefined(name='K') if l_1_K is missing else l_1_K)), )), '0'), 'row_shift'), 4)),
                    '\n',
                ))
            elif environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows'):
                pass
                t_6.extend((
                    '    ',
                    str(t_1(context.call(environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows'), 'tile'), str_join(('offs_', (undefined(name='C') if l_1_C is missing else l_1_C), )), str_join(((undefined(name='C') if l_1_C is missing else l_1_C), '_in', )), str_join(('offs_', (undefined(name='K') if l_1_K is missing else l_1_K), )), str_join(((undefined(name='K') if l_1_K is missing else l_1_K), '_in', )), 'b', str_join((environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B'), '_ptr.dtype.element_ty', )), None, ((undefined(name='BC') if l_1_BC is missing else l_1_BC), str_join(('BLOCK_', t_3((undefined(name='K') if l_1_K is missing else l_1_K)), )), '0')), 4)),
                    '\n',
                ))
            elif l_1_tail:
                pass
                t_6.extend((
                    '    b = tl.load(',
                    str((undefined(name='b_row') if l_1_b_row is missing else l_1_b_row)),
                    '[:, None] + offs_',
                    str((undefined(name='K') if l_1_K is missing else l_1_K)),
                    '[None, :] * stride_',
                    str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B')),
                    '_',
                    str((undefined(name='K') if l_1_K is missing else l_1_K)),
                    ',\n                mask=',
                    str((undefined(name='C') if l_1_C is missing else l_1_C)),
                    '_in[:, None] & ',
                    str((undefined(name='K') if l_1_K is missing else l_1_K)),
                    '_in[None, :], other=0.0)\n',
                ))
            else:
                pass
                t_6.extend((
                    '    b = tl.load(',
                    str((undefined(name='b_row') if l_1_b_row is missing else l_1_b_row)),
                    '[:, None] + offs_',
                    str((undefined(name='K') if l_1_K is missing else l_1_K)),
                    '[None, :] * stride_',
                    str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B')),
                    '_',
                    str((undefined(name='K') if l_1_K is missing else l_1_K)),
                    ',\n                mask=',
                    str((undefined(name='K') if l_1_K is missing else l_1_K)),
                    '_in[None, :], other=0.0)  # a full tile: every row in bounds\n',
                ))
            if (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'l2') and l_1_rank):
                pass
                t_6.extend((
                    '    ',
                    str(t_1(context.call((undefined(name='col_norms') if l_0_col_norms is missing else l_0_col_norms), (not l_1_tail)), 4)),
                    '\n',
                ))
            elif (undefined(name='tile_norms') if l_1_tile_norms is missing else l_1_tile_norms):
                pass
                t_6.append(
                    '    bsq = tl.sum(b.to(tl.float32) * b.to(tl.float32), axis=1)  # the norms from the tile\n',
                )
            if l_1_halves:
                pass
                t_6.append(
                    "    if HALVES > 0:  # b: the hi halves of B's scaled rows; the products scaled back in the key's FMA (two_inv)\n        dot = tl.dot(a_hi, tl.trans(b))\n        if HALVES == 3:  # hi.hi + lo.hi + hi.lo: about 2^-22 of the terms\n",
                )
                if l_1_tail:
                    pass
                    t_6.extend((
                        '            b_lo = tl.load(b_row_lo[:, None] + offs_',
                        str((undefined(name='K') if l_1_K is missing else l_1_K)),
                        '[None, :] * stride_',
                        str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B')),
                        '_',
                        str((undefined(name='K') if l_1_K is missing else l_1_K)),
                        ',\n                           mask=',
                        str((undefined(name='C') if l_1_C is missing else l_1_C)),
                        '_in[:, None] & ',
                        str((undefined(name='K') if l_1_K is missing else l_1_K)),
                        '_in[None, :], other=0.0)\n',
                    ))
                else:
                    pass
                    t_6.extend((
                        '            b_lo = tl.load(b_row_lo[:, None] + offs_',
                        str((undefined(name='K') if l_1_K is missing else l_1_K)),
                        '[None, :] * stride_',
                        str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B')),
                        '_',
                        str((undefined(name='K') if l_1_K is missing else l_1_K)),
                        ',\n                           mask=',
                        str((undefined(name='K') if l_1_K is missing else l_1_K)),
                        '_in[None, :], other=0.0)\n',
                    ))
                t_6.append(
                    '            dot = tl.dot(a_lo, tl.trans(b), dot)\n            dot = tl.dot(a_hi, tl.trans(b_lo), dot)\n    elif DOT_FP32:  # the interpreter (Triton 3.9) multiplies bf16 bit patterns as integers\n',
                )
            else:
                pass
                t_6.append(
                    '    if DOT_FP32:  # the interpreter (Triton 3.9) multiplies bf16 bit patterns as integers\n',
                )
            t_6.append(
                '        dot = tl.dot(a.to(tl.float32), tl.trans(b.to(tl.float32)), input_precision="ieee")\n',
            )
            if l_1_swap:
                pass
                t_6.extend((
                    '    elif SWAP & (',
                    str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'ROWS')),
                    ' <= ',
                    str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'swap_rows')),
                    ') & (',
                    str((undefined(name='BC') if l_1_BC is missing else l_1_BC)),
                    ' >= ',
                    str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'swap_cols')),
                    "):  # b a^T: the formed tile on the MMA's M side (dispatch.GENERAL_SWAP_FORMED)\n        dot = tl.trans(tl.dot(b, tl.trans(a), input_precision=PRECISION))",
                    str(('.to(tl.float32)  # int8 x int8: exact int32' if (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'quantized') == 'int8') else cond_expr_undefined("the inline if-expression on line 94 in 'select_reduce/tile.py.jinja' evaluated to false and no else section was defined."))),
                    '\n',
                ))
            t_6.extend((
                '    else:\n        dot = tl.dot(a, tl.trans(b), input_precision=PRECISION)',
                str(('.to(tl.float32)  # int8 x int8: exact int32' if (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'quantized') == 'int8') else cond_expr_undefined("the inline if-expression on line 97 in 'select_reduce/tile.py.jinja' evaluated to false and no else section was defined."))),
                '\nelif DOT_MODE == 1:  # a long contraction, in chunks of BLOCK_',
                str(t_3((undefined(name='K') if l_1_K is missing else l_1_K))),
                '\n    dot = tl.zeros([',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'ROWS')),
                ', ',
                str((undefined(name='BC') if l_1_BC is missing else l_1_BC)),
                '], tl.float32)\n',
            ))
            if environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'l2'):
                pass
                t_6.extend((
                    '    asq = tl.zeros([',
                    str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'ROWS')),
                    '], tl.float32)\n',
                ))
            if (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'l2') and l_1_rank):
                pass
                t_6.extend((
                    '    if COL_NORMS:\n        ',
                    str(context.call((undefined(name='cn_load') if l_0_cn_load is missing else l_0_cn_load), (not l_1_tail))),
                    '\n    else:\n        bsq = tl.zeros([',
                    str((undefined(name='BC') if l_1_BC is missing else l_1_BC)),
                    '], tl.float32)\n',
                ))
            elif (undefined(name='tile_norms') if l_1_tile_norms is missing else l_1_tile_norms):
                pass
                t_6.extend((
                    '    bsq = tl.zeros([',
                    str((undefined(name='BC') if l_1_BC is missing else l_1_BC)),
                    '], tl.float32)\n',
                ))
            if (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows') and environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows'), 'normalize')):
                pass
                t_6.extend((
                    '    rows_sq = tl.zeros([',
                    str((undefined(name='BC') if l_1_BC is missing else l_1_BC)),
                    '], tl.float32)  # ',
                    str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B')),
                    "'s rows' squared norms, chunk by chunk: normalised after the loop\n",
                ))
            t_6.extend((
                '    for ',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                '0 in range(0, size_',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                ', BLOCK_',
                str(t_3((undefined(name='K') if l_1_K is missing else l_1_K))),
                '):\n',
            ))
            t_7 = []
            pass
            t_7.extend((
                'offs_',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                ' = ',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                '0 + tl.arange(0, BLOCK_',
                str(t_3((undefined(name='K') if l_1_K is missing else l_1_K))),
                ')\n',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                '_in = offs_',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                ' < size_',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                '\na = tl.load(',
                str((undefined(name='a_row') if l_1_a_row is missing else l_1_a_row)),
                '[:, None] + offs_',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                '[None, :] * stride_',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'A')),
                '_',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                ',\n            mask=',
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                '_ok[:, None] & ',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                '_in[None, :], other=0.0)\n',
            ))
            if environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows'):
                pass
                t_7.extend((
                    str(context.call(environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows'), 'tile'), str_join(('offs_', (undefined(name='C') if l_1_C is missing else l_1_C), )), str_join(((undefined(name='C') if l_1_C is missing else l_1_C), '_in', )), str_join(('offs_', (undefined(name='K') if l_1_K is missing else l_1_K), )), str_join(((undefined(name='K') if l_1_K is missing else l_1_K), '_in', )), 'b', str_join((environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B'), '_ptr.dtype.element_ty', )), 'rows_sq', ((undefined(name='BC') if l_1_BC is missing else l_1_BC), str_join(('BLOCK_', t_3((undefined(name='K') if l_1_K is missing else l_1_K)), )), str_join(((undefined(name='K') if l_1_K is missing else l_1_K), '0', ))))),
                    '\n',
                ))
            else:
                pass
                t_7.extend((
                    'b = tl.load(',
                    str((undefined(name='b_row') if l_1_b_row is missing else l_1_b_row)),
                    '[:, None] + offs_',
                    str((undefined(name='K') if l_1_K is missing else l_1_K)),
                    '[None, :] * stride_',
                    str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B')),
                    '_',
                    str((undefined(name='K') if l_1_K is missing else l_1_K)),
                    ',\n            mask=',
                    str((undefined(name='C') if l_1_C is missing else l_1_C)),
                    '_in[:, None] & ',
                    str((undefined(name='K') if l_1_K is missing else l_1_K)),
                    '_in[None, :], other=0.0)\n',
                ))
            l_1_pointer_loads = (Markup if context.eval_ctx.autoescape else identity)(concat(t_7))
            if environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'tma'):
                pass
                t_6.extend((
                    "        if TMA:  # through the host's tensor descriptors (dispatch.long_tma): rows and columns past the ends load as 0\n            a = a_desc.load([",
                    str(environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'tma'), 'a_coords')),
                    str((undefined(name='R') if l_1_R is missing else l_1_R)),
                    '0, ',
                    str((undefined(name='K') if l_1_K is missing else l_1_K)),
                    '0])',
                    str((str_join(('.reshape(BLOCK_', t_3((undefined(name='R') if l_1_R is missing else l_1_R)), ', BLOCK_', t_3((undefined(name='K') if l_1_K is missing else l_1_K)), ')', )) if environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'tma'), 'a_coords') else cond_expr_undefined("the inline if-expression on line 129 in 'select_reduce/tile.py.jinja' evaluated to false and no else section was defined."))),
                    '\n            b = ',
                    str(('b_half' if l_1_half else 'b_desc')),
                    '.load([',
                    str(environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'tma'), 'b_coords')),
                    str((undefined(name='C') if l_1_C is missing else l_1_C)),
                    '0, ',
                    str((undefined(name='K') if l_1_K is missing else l_1_K)),
                    '0])',
                    str((str_join(('.reshape(', (undefined(name='BC') if l_1_BC is missing else l_1_BC), ', BLOCK_', t_3((undefined(name='K') if l_1_K is missing else l_1_K)), ')', )) if environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'tma'), 'b_coords') else cond_expr_undefined("the inline if-expression on line 130 in 'select_reduce/tile.py.jinja' evaluated to false and no else section was defined."))),
                    '\n        else:\n            ',
                    str(t_1(t_2((undefined(name='pointer_loads') if l_1_pointer_loads is missing else l_1_pointer_loads)), 12)),
                    '\n',
                ))
            else:
                pass
                t_6.extend((
                    '        ',
                    str(t_1(t_2((undefined(name='pointer_loads') if l_1_pointer_loads is missing else l_1_pointer_loads)), 8)),
                    '\n',
                ))
            if environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'l2'):
                pass
                t_6.append(
                    '        asq += tl.sum(a.to(tl.float32) * a.to(tl.float32), axis=1)\n',
                )
            if (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'l2') and l_1_rank):
                pass
                t_6.append(
                    '        if not COL_NORMS:\n            bsq += tl.sum(b.to(tl.float32) * b.to(tl.float32), axis=1)\n',
                )
            elif (undefined(name='tile_norms') if l_1_tile_norms is missing else l_1_tile_norms):
                pass
                t_6.append(
                    '        bsq += tl.sum(b.to(tl.float32) * b.to(tl.float32), axis=1)\n',
                )
            t_6.extend((
                '        if DOT_FP32:\n            dot += tl.dot(a.to(tl.float32), tl.trans(b.to(tl.float32)), input_precision="ieee")\n        else:\n            dot += tl.dot(a, tl.trans(b), input_precision=PRECISION)',
                str(('.to(tl.float32)' if (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'quantized') == 'int8') else cond_expr_undefined("the inline if-expression on line 148 in 'select_reduce/tile.py.jinja' evaluated to false and no else section was defined."))),
                '\n',
            ))
            if (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows') and environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows'), 'normalize')):
                pass
                t_6.extend((
                    '    dot = dot * (1.0 / tl.maximum(tl.sqrt(rows_sq), 1e-12))[None, :]  # <a, b / |b|>: ',
                    str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B')),
                    "'s rows normalised\n",
                ))
            t_6.extend((
                'else:  # a short contraction (SMALL_D coordinates, unrolled): exact fp32 products on the CUDA cores\n    ',
                str(t_1(context.call((undefined(name='small_b_loads') if l_0_small_b_loads is missing else l_0_small_b_loads)), 4)),
                '\n',
            ))
            if environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'l2'):
                pass
                t_6.extend((
                    '    # the squared distance from the differences: as exact as fp32 allows, at any offset\n    sq = tl.zeros([',
                    str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'ROWS')),
                    ', ',
                    str((undefined(name='BC') if l_1_BC is missing else l_1_BC)),
                    '], tl.float32)\n',
                ))
                for l_2_k in context.call((undefined(name='range') if l_1_range is missing else l_1_range), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'small_d_max')):
                    _loop_vars = {}
                    pass
                    t_6.extend((
                        '    if SMALL_D > ',
                        str(l_2_k),
                        ':\n        diff = _a',
                        str(l_2_k),
                        '[:, None] - _b',
                        str(l_2_k),
                        '[None, :]\n        sq = tl.fma(diff, diff, sq)  # an explicit fma: every path that forms this sum rounds it alike\n',
                    ))
                l_2_k = missing
            elif environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'key_linear'):
                pass
                t_6.extend((
                    '    # the key, ',
                    str(environment.getitem(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'key_linear'), 0)),
                    " * dot + beta, formed in the products' own accumulator:\n    # beta first, then one FMA per coordinate with ",
                    str(environment.getitem(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'key_linear'), 0)),
                    " folded into B's\n",
                ))
                if ('[' in (undefined(name='beta') if l_1_beta is missing else l_1_beta)):
                    pass
                    t_6.extend((
                        '    key = tl.broadcast_to(',
                        str((undefined(name='beta') if l_1_beta is missing else l_1_beta)),
                        ', [',
                        str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'ROWS')),
                        ', ',
                        str((undefined(name='BC') if l_1_BC is missing else l_1_BC)),
                        '])\n',
                    ))
                else:
                    pass
                    t_6.extend((
                        '    key = tl.broadcast_to(tl.zeros([1, 1], tl.float32) + (',
                        str((undefined(name='beta') if l_1_beta is missing else l_1_beta)),
                        '), [',
                        str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'ROWS')),
                        ', ',
                        str((undefined(name='BC') if l_1_BC is missing else l_1_BC)),
                        '])\n',
                    ))
                for l_2_k in context.call((undefined(name='range') if l_1_range is missing else l_1_range), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'small_d_max')):
                    _loop_vars = {}
                    pass
                    t_6.extend((
                        '    if SMALL_D > ',
                        str(l_2_k),
                        ':\n        key += _a',
                        str(l_2_k),
                        '[:, None] * (',
                        str(environment.getitem(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'key_linear'), 0)),
                        ' * _b',
                        str(l_2_k),
                        ')[None, :]\n',
                    ))
                l_2_k = missing
                t_6.extend((
                    '    if SMALL_D == 0:  # no coordinates (d = 0): the dot the index pass carries\n        dot = tl.zeros([',
                    str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'ROWS')),
                    ', ',
                    str((undefined(name='BC') if l_1_BC is missing else l_1_BC)),
                    '], tl.float32)\n',
                ))
            else:
                pass
                t_6.extend((
                    '    dot = tl.zeros([',
                    str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'ROWS')),
                    ', ',
                    str((undefined(name='BC') if l_1_BC is missing else l_1_BC)),
                    '], tl.float32)\n',
                ))
                for l_2_k in context.call((undefined(name='range') if l_1_range is missing else l_1_range), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'small_d_max')):
                    _loop_vars = {}
                    pass
                    t_6.extend((
                        '    if SMALL_D > ',
                        str(l_2_k),
                        ':\n        dot += _a',
                        str(l_2_k),
                        '[:, None] * _b',
                        str(l_2_k),
                        '[None, :]\n',
                    ))
                l_2_k = missing
                if (l_1_norms and (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'pair') == 'cos')):
                    pass
                    t_6.extend((
                        '    bsq = tl.zeros([',
                        str((undefined(name='BC') if l_1_BC is missing else l_1_BC)),
                        '], tl.float32)\n',
                    ))
                    for l_2_k in context.call((undefined(name='range') if l_1_range is missing else l_1_range), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'small_d_max')):
                        _loop_vars = {}
                        pass
                        t_6.extend((
                            '    if SMALL_D > ',
                            str(l_2_k),
                            ':\n        bsq += _b',
                            str(l_2_k),
                            ' * _b',
                            str(l_2_k),
                            '\n',
                        ))
                    l_2_k = missing
            if (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'l2') and l_1_rank):
                pass
                t_6.append(
                    "if DOT_MODE < 2:  # the expansion ranks the pairs; the selected pair's value comes from its differences (row_finish)\n    # |b|^2 - 2<a, b>: |a|^2 is the row's own, so it ranks alike with one FMA a pair. A row that\n    # meets an inf (inf - inf) turns NaN here and is ranked again from its differences.\n",
                )
                if l_1_halves:
                    pass
                    t_6.append(
                        "    if HALVES > 0:  # the halves' products, scaled back by two_inv in the same FMA\n        sq = bsq[None, :] - two_inv * dot\n    else:\n        sq = bsq[None, :] - 2.0 * dot\n",
                    )
                else:
                    pass
                    t_6.append(
                        '    sq = bsq[None, :] - 2.0 * dot\n',
                    )
            elif environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'l2'):
                pass
                t_6.append(
                    "if DOT_MODE < 2:  # the expansion; the selected pair's value comes from its differences (row_finish)\n    sq = asq[:, None] + bsq[None, :] - 2.0 * dot\n    sq = tl.where(sq == sq, sq, asq[:, None] + bsq[None, :])  # inf - inf: an inf coordinate is inf away; NaN stays\n",
                )
        return concat(t_6)
    context.exported_vars.add('dot_tile')
    context.vars['dot_tile'] = l_0_dot_tile = Macro(environment, macro, 'dot_tile', ('tail', 'half', 'norms', 'rank', 'halves', 'swap'), False, False, False, context.eval_ctx.autoescape)
    def macro(l_1_tail, l_1_nan_pass, l_1_half, l_1_ties, l_1_halves):
        t_8 = []
        l_1_t = resolve('t')
        l_1_R = l_1_C = l_1_K = l_1_BC = missing
        if l_1_tail is missing:
            l_1_tail = undefined("parameter 'tail' was not provided", name='tail')
        if l_1_nan_pass is missing:
            l_1_nan_pass = False
        if l_1_half is missing:
            l_1_half = False
        if l_1_ties is missing:
            l_1_ties = False
        if l_1_halves is missing:
            l_1_halves = False
        pass
        (l_1_R, l_1_C, l_1_K) = (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'R'), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'C'), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'K'))
        l_1_BC = str_join(('BLOCK_', t_3((undefined(name='C') if l_1_C is missing else l_1_C)), (' // 2' if l_1_half else ''), ))
        t_8.extend((
            'offs_',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            ' = ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '0 + tl.arange(0, ',
            str((undefined(name='BC') if l_1_BC is missing else l_1_BC)),
            ')\n',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_in = offs_',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            ' < ',
            str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'end_C')),
            '\n',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_ok = ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_in\n',
        ))
        for l_2_c in environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'conds_c'):
            _loop_vars = {}
            pass
            t_8.extend((
                str(context.call((undefined(name='cond_code') if l_0_cond_code is missing else l_0_cond_code), l_2_c, str_join(((undefined(name='C') if l_1_C is missing else l_1_C), '_ok', )), str_join(((undefined(name='C') if l_1_C is missing else l_1_C), '_in', )), _loop_vars=_loop_vars)),
                '\n',
            ))
        l_2_c = missing
        t_8.extend((
            'b_row = b_rows + offs_',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '.to(tl.int64) * stride_',
            str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B')),
            '_',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '  # int64: tall operands pass 2^31\n',
        ))
        if environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'l2'):
            pass
            t_8.extend((
                'if DOT_MODE < 2:  # the expansion reads the rows less their shift\n    b_row_s = b_rows_s + offs_',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '.to(tl.int64) * stride_',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B')),
                '_',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '\n',
            ))
            if l_1_halves:
                pass
                t_8.extend((
                    '    b_row_lo = b_rows_lo + offs_',
                    str((undefined(name='C') if l_1_C is missing else l_1_C)),
                    '.to(tl.int64) * stride_',
                    str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B')),
                    '_',
                    str((undefined(name='C') if l_1_C is missing else l_1_C)),
                    '\n',
                ))
        for l_2_s in environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'col_sides'):
            _loop_vars = {}
            pass
            t_8.extend((
                str(context.call((undefined(name='side_load') if l_0_side_load is missing else l_0_side_load), l_2_s, str_join(('col_', environment.getattr(l_2_s, 'name'), )), environment.getattr(l_2_s, 'row'), str_join(((undefined(name='C') if l_1_C is missing else l_1_C), '_in', )), str_join(('offs_', (undefined(name='C') if l_1_C is missing else l_1_C), )), _loop_vars=_loop_vars)),
                '\n',
            ))
        l_2_s = missing
        t_8.extend((
            '# spec line ',
            str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'pair_line')),
            ': ',
            str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'pair_text')),
            '\n',
            str(context.call((undefined(name='dot_tile') if l_0_dot_tile is missing else l_0_dot_tile), ((l_1_tail or l_1_nan_pass) or l_1_ties), l_1_half, norms=True, rank=environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'key_is_prim'), halves=l_1_halves, swap=(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows') and (not environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows'), 'projects'))))),
            '\n',
        ))
        if (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'pair') == 'cos'):
            pass
            t_8.append(
                "ib = 1.0 / tl.maximum(tl.sqrt(bsq), 1e-12)  # the columns' norms, formed with the tile\n",
            )
        if environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'key_linear'):
            pass
            t_8.extend((
                'if DOT_MODE < 2:  # (the unrolled paths, 2 and 3, formed the key themselves)\n    key = ',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'key')),
                '\n',
            ))
        else:
            pass
            t_8.extend((
                'key = ',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'key')),
                '\n',
            ))
        if (l_1_tail or (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'c_guard') == 'True')):
            pass
            t_8.extend((
                'key = tl.where(',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_ok[None, :], key, float("',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'fill')),
                '"))\n',
            ))
        elif environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'c_guard'):
            pass
            t_8.extend((
                'if ',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'c_guard')),
                ':  # a full tile needs only the conditions that are not bounds\n    key = tl.where(',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_ok[None, :], key, float("',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'fill')),
                '"))\n',
            ))
        if l_1_ties:
            pass
            t_8.extend((
                "# the first kept column whose epilogue value ties the selection's (spec line ",
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'line')),
                ')\ntie_key = ',
                str(environment.getitem(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'ties'), 1)),
                '\nhit = flat[:, None] & ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_ok[None, :] & (tie_key == h_best[:, None])\ntie_idx = tl.minimum(tie_idx, tl.min(tl.where(hit, offs_',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '[None, :], size_',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '), axis=1))\n',
            ))
        elif l_1_nan_pass:
            pass
            t_8.extend((
                '# the first NaN of each row\nfirst = tl.min(tl.where(key != key, offs_',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '[None, :], size_',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '), axis=1)\n',
            ))
            if environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'track_x'):
                pass
                t_8.extend((
                    'if SMALL_D == 0:  # (with a few coordinates, x is recomputed at the selected index)\n    x_first = tl.sum(tl.where(offs_',
                    str((undefined(name='C') if l_1_C is missing else l_1_C)),
                    '[None, :] == first[:, None], ',
                    str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'prim')),
                    ', 0.0), axis=1)\n    x_nan = tl.where(first < nan_idx, x_first, x_nan)\n',
                ))
            t_8.append(
                'nan_idx = tl.minimum(nan_idx, first)\n',
            )
        else:
            pass
            t_8.extend((
                "if ROW_SLOT:\n    # the tile reduced to its rows' ",
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'select')),
                ' at once (NaN-keeping), kept in one slot per\n    # row: fewer registers than a slot per column (bench/NOTES.md, v12; dispatch.row_slot)\n    key_row = tl.reduce(key, 1, _',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'P')),
                "_select)[:, None]\n    if NEED_IDX:\n        # the tile's lowest index holding it; strictly better: an earlier tile keeps a tie.\n        # A NaN never counts here; a row that met one is searched again after the loop.\n        at_row = tl.min(tl.where(key == key_row, offs_",
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '[None, :], size_',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '), axis=1)[:, None]\n        better = key_row ',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'better')),
                ' best2\n        idx2 = tl.where(better, at_row, idx2)\n',
            ))
            if environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'track_x'):
                pass
                t_8.extend((
                    '        x_row = tl.sum(tl.where(offs_',
                    str((undefined(name='C') if l_1_C is missing else l_1_C)),
                    '[None, :] == at_row, ',
                    str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'prim')),
                    ', 0.0), axis=1)[:, None]\n        x2 = tl.where(better, x_row, x2)\n',
                ))
            t_8.extend((
                '    best2 = tl.',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'combine')),
                '(best2, key_row, propagate_nan=tl.PropagateNan.ALL)\nelse:\n    # running ',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'select')),
                ' per tile slot (NaN-keeping), reduced across slots once after the loop\n    if NEED_IDX:\n        # strictly better: an earlier tile keeps a tie (it holds the lower index). A NaN\n        # never counts here; a row that met one is searched again after the loop.\n        better = key ',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'better')),
                " best2\n        # each slot keeps its tile's start (a scalar); the column adds the slot after the loop (row_finish)\n        idx2 = tl.where(better, ",
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '0, idx2)\n',
            ))
            if environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'track_x'):
                pass
                t_8.extend((
                    '        if SMALL_D == 0:  # (with a few coordinates, x is recomputed at the selected index instead)\n            x2 = tl.where(better, ',
                    str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'prim')),
                    ', x2)\n',
                ))
            t_8.extend((
                '    best2 = tl.',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'combine')),
                '(best2, key, propagate_nan=tl.PropagateNan.ALL)\n',
            ))
            if l_1_half:
                pass
                t_8.extend((
                    str((undefined(name='C') if l_1_C is missing else l_1_C)),
                    '_seen += tl.sum(',
                    str((undefined(name='C') if l_1_C is missing else l_1_C)),
                    '_ok.to(tl.int32), axis=0)  # (only whether any column was kept is read)\n',
                ))
            elif (l_1_tail or environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'conds_c')):
                pass
                t_8.extend((
                    str((undefined(name='C') if l_1_C is missing else l_1_C)),
                    '_seen += ',
                    str((undefined(name='C') if l_1_C is missing else l_1_C)),
                    '_ok.to(tl.int32)\n',
                ))
        return concat(t_8)
    context.exported_vars.add('c_tile')
    context.vars['c_tile'] = l_0_c_tile = Macro(environment, macro, 'c_tile', ('tail', 'nan_pass', 'half', 'ties', 'halves'), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_9 = []
        l_1_t = resolve('t')
        l_1_range = resolve('range')
        l_1_R = l_1_C = l_1_K = missing
        pass
        (l_1_R, l_1_C, l_1_K) = (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'R'), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'C'), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'K'))
        t_9.extend((
            '# spec line ',
            str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'pair_line')),
            ": the selected pair's squared distance from its differences (exact at any offset;\n# sel_diff: a name of its own, which a later loop's tile of differences does not carry)\nsel_safe = tl.maximum(best_idx, 0)\nsel_row = b_rows + sel_safe.to(tl.int64) * stride_",
            str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B')),
            '_',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '\nsel_ok = ',
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            '_ok & (best_idx >= 0)\nx_best = tl.zeros([',
            str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'ROWS')),
            '], tl.float32)\n',
        ))
        if environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows'):
            pass
            t_9.extend((
                'if SMALL_D == 0:  # (always: ',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B')),
                ' is computed) each selected row formed again whole, as the backward forms it, unshifted\n    ',
                str(t_1(context.call(environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows'), 'tile'), 'sel_safe', 'sel_ok', str_join(('offs_', (undefined(name='K') if l_1_K is missing else l_1_K), )), str_join(((undefined(name='K') if l_1_K is missing else l_1_K), '_in', )), 'sel_b', 'tl.float32', None, (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'ROWS'), str_join(('BLOCK_', t_3((undefined(name='K') if l_1_K is missing else l_1_K)), )), '0'), None, 'sx'), 4)),
                '\n    sel_diff = tl.load(a_row[:, None] + offs_',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                '[None, :] * stride_',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'A')),
                '_',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                ',\n                       mask=sel_ok[:, None] & ',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                '_in[None, :], other=0.0).to(tl.float32) - sel_b\n    x_best = tl.sum(sel_diff * sel_diff, axis=1)\n',
            ))
        else:
            pass
            t_9.append(
                'if SMALL_D > 0:  # as the tile loop formed it: the same value, bit for bit\n',
            )
            for l_2_k in context.call((undefined(name='range') if l_1_range is missing else l_1_range), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'small_d_max')):
                _loop_vars = {}
                pass
                t_9.extend((
                    '    if SMALL_D > ',
                    str(l_2_k),
                    ':\n        sel_diff = _a',
                    str(l_2_k),
                    ' - tl.load(sel_row + ',
                    str(l_2_k),
                    ' * stride_',
                    str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B')),
                    '_',
                    str((undefined(name='K') if l_1_K is missing else l_1_K)),
                    ', mask=sel_ok, other=0.0).to(tl.float32)\n        x_best = tl.fma(sel_diff, sel_diff, x_best)\n',
                ))
            l_2_k = missing
            t_9.extend((
                "else:  # the tile loop ranked the expansion: the selected pair's value and key from the differences\n    # (in chunks of 16 coordinates: the rows' whole tile in fp32 here held the kernel at 255\n    # registers, spilling, bench/NOTES.md, session 29)\n    for x0 in range(0, size_",
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                ', 16):\n        offs_x = x0 + tl.arange(0, 16)\n        x_ok = sel_ok[:, None] & (offs_x < size_',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                ')[None, :]\n        sel_diff = tl.load(a_row[:, None] + offs_x[None, :] * stride_',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'A')),
                '_',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                ', mask=x_ok, other=0.0).to(tl.float32) - \\\n            tl.load(sel_row[:, None] + offs_x[None, :] * stride_',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B')),
                '_',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                ', mask=x_ok, other=0.0).to(tl.float32)\n        x_best += tl.sum(sel_diff * sel_diff, axis=1)\n',
            ))
        def t_10(fiter):
            for l_2_s in fiter:
                if (str_join(('col_', environment.getattr(l_2_s, 'name'), '_sel', )) in environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'key_sel')):
                    yield l_2_s
        for l_2_s in t_10(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'col_sides')):
            _loop_vars = {}
            pass
            t_9.extend((
                '    ',
                str(t_1(context.call((undefined(name='side_load') if l_0_side_load is missing else l_0_side_load), l_2_s, str_join(('col_', environment.getattr(l_2_s, 'name'), '_sel', )), environment.getattr(l_2_s, 'sel'), 'sel_ok', 'sel_safe', _loop_vars=_loop_vars), 4)),
                '\n',
            ))
        l_2_s = missing
        t_9.extend((
            '    best = tl.where(sel_ok, ',
            str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'key_sel')),
            ', best)',
        ))
        return concat(t_9)
    context.exported_vars.add('l2_at_selection')
    context.vars['l2_at_selection'] = l_0_l2_at_selection = Macro(environment, macro, 'l2_at_selection', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_11 = []
        l_1_t = resolve('t')
        l_1_R = l_1_C = l_1_K = missing
        pass
        (l_1_R, l_1_C, l_1_K) = (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'R'), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'C'), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'K'))
        t_11.extend((
            '# spec line ',
            str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'pair_line')),
            ": the key ranked the pairs at PRECISION (fp32 rows on the tensor cores,\n# dispatch.precision); the selected pair's value is its IEEE fp32 dot, formed again at its index\n# in chunks of 16 coordinates (a NaN best keeps its NaN)\nsel_safe = tl.maximum(best_idx, 0)\nsel_row = b_rows + sel_safe.to(tl.int64) * stride_",
            str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B')),
            '_',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '\nsel_ok = ',
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            '_ok & (best_idx >= 0) & (best == best)\nx_sel = tl.zeros([',
            str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'ROWS')),
            '], tl.float32)\nfor x0 in range(0, size_',
            str((undefined(name='K') if l_1_K is missing else l_1_K)),
            ', 16):\n    offs_x = x0 + tl.arange(0, 16)\n    x_ok = sel_ok[:, None] & (offs_x < size_',
            str((undefined(name='K') if l_1_K is missing else l_1_K)),
            ')[None, :]\n    x_sel += tl.sum(tl.load(a_row[:, None] + offs_x[None, :] * stride_',
            str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'A')),
            '_',
            str((undefined(name='K') if l_1_K is missing else l_1_K)),
            ', mask=x_ok, other=0.0).to(tl.float32) *\n                    tl.load(sel_row[:, None] + offs_x[None, :] * stride_',
            str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B')),
            '_',
            str((undefined(name='K') if l_1_K is missing else l_1_K)),
            ', mask=x_ok, other=0.0).to(tl.float32), axis=1)\nbest = tl.where(sel_ok, x_sel, best)',
        ))
        return concat(t_11)
    context.exported_vars.add('dot_at_selection')
    context.vars['dot_at_selection'] = l_0_dot_at_selection = Macro(environment, macro, 'dot_at_selection', (), False, False, False, context.eval_ctx.autoescape)
    def macro(l_1_lo, l_1_parts):
        t_12 = []
        l_1_t = resolve('t')
        l_1_formed = resolve('formed')
        l_1_R = l_1_C = l_1_K = missing
        if l_1_lo is missing:
            l_1_lo = '0'
        if l_1_parts is missing:
            l_1_parts = False
        pass
        (l_1_R, l_1_C, l_1_K) = (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'R'), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'C'), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'K'))
        t_12.extend((
            'again = (',
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            '_ok & (tl.sum(',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_seen, axis=0) > 0) & ~(tl.abs(best) < float("inf"))) != 0  # (a bool mask)\n',
        ))
        if environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows'):
            pass
            l_1_formed = context.call(environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows'), 'tile'), str_join(('offs_', (undefined(name='C') if l_1_C is missing else l_1_C), )), str_join(((undefined(name='C') if l_1_C is missing else l_1_C), '_in', )), str_join(('offs_', (undefined(name='K') if l_1_K is missing else l_1_K), )), str_join(((undefined(name='K') if l_1_K is missing else l_1_K), '_in', )), 'again_b', 'tl.float32', None, (str_join(('BLOCK_', t_3((undefined(name='C') if l_1_C is missing else l_1_C)), )), str_join(('BLOCK_', t_3((undefined(name='K') if l_1_K is missing else l_1_K)), )), '0'), None, 'qx')
            t_12.extend((
                str(context.call((undefined(name='rank_again') if l_0_rank_again is missing else l_0_rank_again), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'ROWS'), str_join(((undefined(name='C') if l_1_C is missing else l_1_C), '_end', )), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'conds_c'), str_join(('a_row + k * stride_', environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'A'), '_', (undefined(name='K') if l_1_K is missing else l_1_K), )), '0', str_join(('tl.sum(tl.where(offs_', (undefined(name='K') if l_1_K is missing else l_1_K), '[None, :] == k, again_b, 0.0), axis=1)', )), str_join(('size_', (undefined(name='K') if l_1_K is missing else l_1_K), )), start=l_1_lo, key_out=('part_key' if l_1_parts else None), formed=(undefined(name='formed') if l_1_formed is missing else l_1_formed))),
                '\n',
            ))
        else:
            pass
            t_12.extend((
                str(context.call((undefined(name='rank_again') if l_0_rank_again is missing else l_0_rank_again), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'ROWS'), str_join(((undefined(name='C') if l_1_C is missing else l_1_C), '_end', )), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'conds_c'), str_join(('a_row + k * stride_', environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'A'), '_', (undefined(name='K') if l_1_K is missing else l_1_K), )), str_join(('b_rows + offs_', (undefined(name='C') if l_1_C is missing else l_1_C), '.to(tl.int64) * stride_', environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B'), '_', (undefined(name='C') if l_1_C is missing else l_1_C), )), str_join(('b_at + k * stride_', environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B'), '_', (undefined(name='K') if l_1_K is missing else l_1_K), )), str_join(('size_', (undefined(name='K') if l_1_K is missing else l_1_K), )), start=l_1_lo, key_out=('part_key' if l_1_parts else None))),
                '\n',
            ))
        return concat(t_12)
    context.exported_vars.add('l2_rank_again')
    context.vars['l2_rank_again'] = l_0_l2_rank_again = Macro(environment, macro, 'l2_rank_again', ('lo', 'parts'), False, False, False, context.eval_ctx.autoescape)
    def macro(l_1_halves, l_1_exact, l_1_tile_start, l_1_parts):
        t_13 = []
        l_1_t = resolve('t')
        l_1_range = resolve('range')
        l_1_lo = l_1_R = l_1_C = l_1_K = missing
        if l_1_halves is missing:
            l_1_halves = False
        if l_1_exact is missing:
            l_1_exact = False
        if l_1_tile_start is missing:
            l_1_tile_start = False
        if l_1_parts is missing:
            l_1_parts = False
        pass
        l_1_lo = (str_join((environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'C'), '_lo', )) if l_1_parts else '0')
        (l_1_R, l_1_C, l_1_K) = (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'R'), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'C'), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'K'))
        t_13.extend((
            'best = tl.reduce(best2, 1, _',
            str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'P')),
            '_select)  # keeps NaN, as torch.',
            str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'select')),
            ' does\nif NEED_IDX:\n',
        ))
        if l_1_tile_start:
            pass
            t_13.extend((
                "    if ROW_SLOT or DOT_MODE == 3:\n        at2 = idx2\n    else:  # a slot's index: its tile's start and its column (-1: the slot kept nothing)\n        at2 = tl.where(idx2 >= 0, idx2 + tl.arange(0, BLOCK_",
                str(t_3((undefined(name='C') if l_1_C is missing else l_1_C))),
                ')[None, :], -1)\n',
            ))
        else:
            pass
            t_13.append(
                '    at2 = idx2\n',
            )
        t_13.extend((
            '    # the lowest index holding the best\n    hit = best2 == best[:, None]\n    best_idx = tl.min(tl.where(hit, at2, size_',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '), axis=1)\n',
        ))
        if environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'track_x'):
            pass
            t_13.extend((
                '    if SMALL_D == 0:\n        x_best = tl.sum(tl.where(hit & (at2 == best_idx[:, None]), x2, 0.0), axis=1)\n    else:\n        x_best = tl.zeros([',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'ROWS')),
                '], tl.float32)  # recomputed below\n',
            ))
        t_13.extend((
            "    row_nan = best != best\n    if tl.sum(row_nan.to(tl.int32), axis=0) > 0:  # a NaN best: its index is the row's first NaN, from a second pass\n        nan_idx = tl.full([",
            str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'ROWS')),
            '], size_',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            ', tl.int32)\n',
        ))
        if environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'track_x'):
            pass
            t_13.extend((
                '        x_nan = tl.zeros([',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'ROWS')),
                '], tl.float32)\n',
            ))
        t_13.extend((
            '        for ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '0 in range(',
            str((undefined(name='lo') if l_1_lo is missing else l_1_lo)),
            ', ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_full, BLOCK_',
            str(t_3((undefined(name='C') if l_1_C is missing else l_1_C))),
            '):\n            ',
            str(t_1(context.call((undefined(name='c_tile') if l_0_c_tile is missing else l_0_c_tile), False, True, halves=l_1_halves), 12)),
            '\n        if ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_full < ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_end:\n            ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '0 = ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_full\n            ',
            str(t_1(context.call((undefined(name='c_tile') if l_0_c_tile is missing else l_0_c_tile), True, True, halves=l_1_halves), 12)),
            '\n        best_idx = tl.where(row_nan, nan_idx, best_idx)\n',
        ))
        if environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'track_x'):
            pass
            t_13.extend((
                '        x_best = tl.where(row_nan, x_nan, x_best)\n    if SMALL_D > 0:  # x at the selected index, from its few coordinates, formed as the tile loop formed it\n        sel_row = b_rows + tl.maximum(best_idx, 0).to(tl.int64) * stride_',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B')),
                '_',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '\n        sel_ok = ',
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                '_ok & (best_idx >= 0)\n',
            ))
            for l_2_k in context.call((undefined(name='range') if l_1_range is missing else l_1_range), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'small_d_max')):
                _loop_vars = {}
                pass
                t_13.extend((
                    '        if SMALL_D > ',
                    str(l_2_k),
                    ':\n            _s',
                    str(l_2_k),
                    ' = tl.load(sel_row + ',
                    str(l_2_k),
                    ' * stride_',
                    str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B')),
                    '_',
                    str((undefined(name='K') if l_1_K is missing else l_1_K)),
                    ', mask=sel_ok, other=0.0).to(tl.float32)\n',
                ))
            l_2_k = missing
            t_13.extend((
                '        x_best = tl.zeros([',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'ROWS')),
                '], tl.float32)\n',
            ))
            for l_2_k in context.call((undefined(name='range') if l_1_range is missing else l_1_range), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'small_d_max')):
                _loop_vars = {}
                pass
                t_13.extend((
                    '        if SMALL_D > ',
                    str(l_2_k),
                    ':\n',
                ))
                if (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'pair') == 'l1'):
                    pass
                    t_13.extend((
                        '            x_best += tl.abs(_a',
                        str(l_2_k),
                        ' - _s',
                        str(l_2_k),
                        ')\n',
                    ))
                else:
                    pass
                    t_13.extend((
                        '            x_best += _a',
                        str(l_2_k),
                        ' * _s',
                        str(l_2_k),
                        '\n',
                    ))
            l_2_k = missing
        if l_1_parts:
            pass
            t_13.append(
                "    part_key = best  # what ranked this part's selection (the merge of parts compares it)\n",
            )
        if environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'l2'):
            pass
            t_13.extend((
                '    if DOT_MODE < 2:\n        ',
                str(t_1(context.call((undefined(name='l2_rank_again') if l_0_l2_rank_again is missing else l_0_l2_rank_again), (undefined(name='lo') if l_1_lo is missing else l_1_lo), l_1_parts), 8)),
                '\n',
            ))
        if (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'l2') and (not environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'index_out'))):
            pass
            t_13.extend((
                '    ',
                str(t_1(context.call((undefined(name='l2_at_selection') if l_0_l2_at_selection is missing else l_0_l2_at_selection)), 4)),
                '\n',
            ))
        if environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'ties'):
            pass
            t_13.extend((
                '    # spec line ',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'line')),
                ': the epilogue is flat at the selection (relu at or below 0): keys\n    # that differ tie in it, and the lowest index of its value wins, from a second pass\n    # (TIES: where the index is an output, or forward_with_indices reports it)\n    flat = ',
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                '_ok & (',
                str(environment.getitem(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'ties'), 0)),
                ')\n    if TIES and (tl.sum(flat.to(tl.int32), axis=0) > 0):\n        h_best = ',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'h')),
                '\n        tie_idx = tl.full([',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'ROWS')),
                '], size_',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                ', tl.int32)\n        for ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '0 in range(',
                str((undefined(name='lo') if l_1_lo is missing else l_1_lo)),
                ', ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_full, BLOCK_',
                str(t_3((undefined(name='C') if l_1_C is missing else l_1_C))),
                '):\n            ',
                str(t_1(context.call((undefined(name='c_tile') if l_0_c_tile is missing else l_0_c_tile), False, ties=True, halves=l_1_halves), 12)),
                '\n        if ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_full < ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_end:\n            ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '0 = ',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_full\n            ',
                str(t_1(context.call((undefined(name='c_tile') if l_0_c_tile is missing else l_0_c_tile), True, ties=True, halves=l_1_halves), 12)),
                '\n        best_idx = tl.where(flat & (tie_idx < size_',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '), tie_idx, best_idx)\n',
            ))
        if (l_1_exact and (not environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'index_out'))):
            pass
            t_13.extend((
                '    if EXACT_SEL:\n        ',
                str(t_1(context.call((undefined(name='dot_at_selection') if l_0_dot_at_selection is missing else l_0_dot_at_selection)), 8)),
                '\n',
            ))
        if l_1_parts:
            pass
            t_13.append(
                "    if COL_PARTS:  # this part's ranking value: the selected value where it was formed exactly\n",
            )
            if (not environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'index_out')):
                pass
                t_13.append(
                    '        part_key = best\n',
                )
            t_13.extend((
                '        tl.store(stat_ptr + ',
                str(('row_cell' if environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'G') else 'cell')),
                ' * size_',
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                ' + offs_',
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                ', part_key, mask=',
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                '_in)\n',
            ))
        t_13.extend((
            'else:\n    best_idx = tl.zeros([',
            str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'ROWS')),
            '], tl.int32)\n',
        ))
        if ((environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'need_x') and environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'key_is_prim')) and (not environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'l2'))):
            pass
            t_13.append(
                'x_best = best\n',
            )
        t_13.extend((
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_any = tl.sum(',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_seen, axis=0) > 0\n# spec line ',
            str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'line')),
            ': an empty selection is 0 and passes no gradient\npicked = ',
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            '_ok & ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_any\n',
        ))
        if environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'index_out'):
            pass
            t_13.extend((
                'value = tl.where(picked, best_idx, -1).to(tl.int64)\ntl.store(out_ptr + ',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'out_base')),
                ' + ',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'out_row')),
                ', value, mask=',
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                '_in)\n',
            ))
        else:
            pass
            t_13.extend((
                'value = tl.where(picked, ',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'h')),
                ', 0.0)\nrowval = ',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'post')),
                '\n',
            ))
            if (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'outer') in ('sum', 'mean')):
                pass
                t_13.extend((
                    'acc += tl.where(',
                    str((undefined(name='R') if l_1_R is missing else l_1_R)),
                    '_ok, rowval, 0.0)\n',
                ))
                if (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'outer') == 'mean'):
                    pass
                    t_13.extend((
                        'kept += ',
                        str((undefined(name='R') if l_1_R is missing else l_1_R)),
                        '_ok.to(tl.float32)\n',
                    ))
            elif (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'outer') in ('max', 'min')):
                pass
                t_13.extend((
                    '# the outer ',
                    str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'outer')),
                    ': NaN-keeping, the lowest kept row wins ties\nrv = tl.where(',
                    str((undefined(name='R') if l_1_R is missing else l_1_R)),
                    '_ok, rowval, float("',
                    str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'ofill')),
                    '"))\n',
                ))
                if environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'G'):
                    pass
                    t_13.extend((
                        '# one outer ',
                        str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'outer')),
                        ' per stacked ',
                        str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'G')),
                        ': the rows of one ',
                        str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'G')),
                        ' are consecutive\nrv = tl.reshape(rv, [BLOCK_',
                        str(t_3(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'G'))),
                        ', BLOCK_',
                        str(t_3((undefined(name='R') if l_1_R is missing else l_1_R))),
                        '])\nrow_at = tl.reshape(offs_',
                        str((undefined(name='R') if l_1_R is missing else l_1_R)),
                        ', [BLOCK_',
                        str(t_3(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'G'))),
                        ', BLOCK_',
                        str(t_3((undefined(name='R') if l_1_R is missing else l_1_R))),
                        '])\nrow_kept = tl.reshape(',
                        str((undefined(name='R') if l_1_R is missing else l_1_R)),
                        '_ok, [BLOCK_',
                        str(t_3(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'G'))),
                        ', BLOCK_',
                        str(t_3((undefined(name='R') if l_1_R is missing else l_1_R))),
                        '])\nblk = tl.reduce(rv, 1, _',
                        str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'P')),
                        '_outer)\nblk_idx = tl.min(tl.where((rv == blk[:, None]) & row_kept, row_at, size_',
                        str((undefined(name='R') if l_1_R is missing else l_1_R)),
                        '), axis=1)\nnan_idx = tl.min(tl.where(rv != rv, row_at, size_',
                        str((undefined(name='R') if l_1_R is missing else l_1_R)),
                        '), axis=1)\n',
                    ))
                else:
                    pass
                    t_13.extend((
                        'blk = tl.reduce(rv, 0, _',
                        str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'P')),
                        '_outer)\nblk_idx = tl.min(tl.where((rv == blk) & ',
                        str((undefined(name='R') if l_1_R is missing else l_1_R)),
                        '_ok, offs_',
                        str((undefined(name='R') if l_1_R is missing else l_1_R)),
                        ', size_',
                        str((undefined(name='R') if l_1_R is missing else l_1_R)),
                        '), axis=0)\nnan_idx = tl.min(tl.where(rv != rv, offs_',
                        str((undefined(name='R') if l_1_R is missing else l_1_R)),
                        ', size_',
                        str((undefined(name='R') if l_1_R is missing else l_1_R)),
                        '), axis=0)\n',
                    ))
                t_13.extend((
                    'blk_idx = tl.where(blk != blk, nan_idx, blk_idx)\nobetter = (blk_idx < size_',
                    str((undefined(name='R') if l_1_R is missing else l_1_R)),
                    ') & ((o_idx < 0) | (blk ',
                    str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'obetter')),
                    ' o_best) | ((blk != blk) & (o_best == o_best)))\no_idx = tl.where(obetter, blk_idx, o_idx)\no_best = tl.where(obetter, blk, o_best)\n',
                ))
            else:
                pass
                t_13.extend((
                    'tl.store(out_ptr + ',
                    str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'out_base')),
                    ' + ',
                    str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'out_row')),
                    ', rowval, mask=',
                    str((undefined(name='R') if l_1_R is missing else l_1_R)),
                    '_in)\n',
                ))
        t_13.extend((
            'if NEED_IDX:\n    # -1: nothing to select; -2: the row itself is left out\n    tl.store(idx_ptr + ',
            str(('row_cell' if environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'G') else 'cell')),
            ' * size_',
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            ' + offs_',
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            ',\n             tl.where(picked, best_idx, tl.where(',
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            '_ok, -1, -2)), mask=',
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            '_in)\n',
        ))
        if environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'need_x'):
            pass
            t_13.extend((
                '    tl.store(xsel_ptr + ',
                str(('row_cell' if environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'G') else 'cell')),
                ' * size_',
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                ' + offs_',
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                ', x_best, mask=',
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                '_in)\n',
            ))
        return concat(t_13)
    context.exported_vars.add('row_finish')
    context.vars['row_finish'] = l_0_row_finish = Macro(environment, macro, 'row_finish', ('halves', 'exact', 'tile_start', 'parts'), False, False, False, context.eval_ctx.autoescape)

blocks = {}
debug_info = '5=30&6=45&7=51&8=55&10=64&13=74&15=81&19=87&24=106&25=107&26=108&27=109&29=110&30=111&31=115&32=119&33=121&34=123&35=125&36=131&37=139&39=144&40=148&42=152&43=155&44=160&45=162&48=170&49=176&50=184&53=197&54=200&55=204&56=208&58=212&59=214&60=217&61=221&62=224&63=228&64=236&66=245&67=253&69=256&70=260&71=263&74=268&78=273&79=277&80=283&82=292&83=298&92=312&93=316&94=324&97=329&98=331&99=333&100=338&101=342&103=345&105=349&107=351&108=354&109=358&111=361&112=365&114=372&116=383&117=389&118=395&119=403&120=408&121=411&123=418&124=426&115=431&127=432&129=436&130=443&132=452&134=459&136=462&139=467&142=472&148=479&149=482&150=486&153=491&154=494&156=498&157=503&158=508&159=510&162=516&163=520&164=522&168=525&169=529&171=540&173=547&174=552&175=554&178=564&180=573&181=578&182=583&183=585&185=591&186=595&187=598&188=603&189=605&193=611&197=616&205=626&212=634&214=649&215=650&216=653&217=659&218=665&219=670&220=674&222=680&223=687&225=691&226=698&227=702&230=709&231=713&233=719&234=723&235=726&238=731&240=735&242=742&244=745&245=749&246=754&247=758&248=760&250=765&251=769&252=771&253=773&254=775&255=780&257=784&258=789&260=793&266=805&268=807&272=809&273=813&275=816&276=820&279=827&281=829&285=831&287=833&288=836&290=840&292=845&293=848&294=851&295=856&296=859&300=867&301=873&302=876&305=878&306=882&307=884&308=887&309=891&310=893&311=895&312=901&316=909&317=914&318=916&324=928&326=930&327=932&328=936&331=941&332=950&334=956&336=962&337=967&338=970&342=972&343=976&344=978&345=980&347=982&348=984&349=988&352=996&353=1006&354=1009&355=1014&357=1016&358=1018&362=1024&367=1030&372=1044&373=1045&374=1048&376=1053&380=1057&386=1067&387=1070&391=1074&395=1079&396=1084&397=1088&399=1093&400=1101&401=1103&402=1107&403=1111&405=1114&408=1118&409=1122&410=1125&411=1130&412=1132&414=1144&415=1147&416=1152&417=1155&418=1159&420=1168&424=1174&427=1179&429=1183&431=1186&432=1190&434=1193&435=1197&438=1199&440=1203&441=1205&442=1209&443=1217&444=1219&445=1223&446=1227&447=1229&449=1232&451=1236&453=1239&455=1244&458=1251&461=1262&462=1265&465=1271&466=1275&467=1277&468=1282&470=1286&472=1297&473=1299&474=1302&475=1306&476=1309&477=1313&479=1316&480=1320&481=1322&482=1327&483=1331&484=1337&485=1341&486=1347&487=1353&488=1355&489=1357&491=1364&492=1366&493=1372&496=1379&500=1388&505=1397&506=1403&507=1408&508=1412'
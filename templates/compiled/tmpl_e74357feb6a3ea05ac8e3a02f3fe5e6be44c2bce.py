from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'select_reduce/scatter.py.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_t = resolve('t')
    l_0_row_loads = l_0_weights = l_0_pair_grads = l_0_R = l_0_C = l_0_K = l_0_A = l_0_B = l_0_P = l_0_entry_cell = missing
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
    included_template = environment.get_template('select_reduce/common.py.jinja', 'select_reduce/scatter.py.jinja').make_module(context.get_all(), True, {'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R, 'entry_cell': l_0_entry_cell, 'pair_grads': l_0_pair_grads, 'row_loads': l_0_row_loads, 'weights': l_0_weights})
    l_0_row_loads = getattr(included_template, 'row_loads', missing)
    if l_0_row_loads is missing:
        l_0_row_loads = undefined(f"the template {included_template.__name__!r} (imported on line 4 in 'select_reduce/scatter.py.jinja') does not export the requested name 'row_loads'", name='row_loads')
    context.vars['row_loads'] = l_0_row_loads
    context.exported_vars.discard('row_loads')
    included_template = environment.get_template('select_reduce/backward.py.jinja', 'select_reduce/scatter.py.jinja').make_module(context.get_all(), True, {'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R, 'entry_cell': l_0_entry_cell, 'pair_grads': l_0_pair_grads, 'row_loads': l_0_row_loads, 'weights': l_0_weights})
    l_0_weights = getattr(included_template, 'weights', missing)
    if l_0_weights is missing:
        l_0_weights = undefined(f"the template {included_template.__name__!r} (imported on line 5 in 'select_reduce/scatter.py.jinja') does not export the requested name 'weights'", name='weights')
    l_0_pair_grads = getattr(included_template, 'pair_grads', missing)
    if l_0_pair_grads is missing:
        l_0_pair_grads = undefined(f"the template {included_template.__name__!r} (imported on line 5 in 'select_reduce/scatter.py.jinja') does not export the requested name 'pair_grads'", name='pair_grads')
    context.vars.update({'weights': l_0_weights, 'pair_grads': l_0_pair_grads})
    context.exported_vars.difference_update(('weights', 'pair_grads'))
    (l_0_R, l_0_C, l_0_K, l_0_A, l_0_B, l_0_P) = (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'R'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'C'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'K'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'A'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'B'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'P'))
    context.vars.update({'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R})
    context.exported_vars.update(('A', 'B', 'C', 'K', 'P', 'R'))
    def macro(l_1_e, l_1_chunk_wide):
        t_5 = []
        if l_1_e is missing:
            l_1_e = undefined("parameter 'e' was not provided", name='e')
        if l_1_chunk_wide is missing:
            l_1_chunk_wide = False
        pass
        t_5.extend((
            'offs_',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'R')),
            ' = ',
            str(l_1_e),
            ' % size_',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'R')),
            '\n',
        ))
        if l_1_chunk_wide:
            pass
            t_5.extend((
                'other = (',
                str(l_1_e),
                ' // size_',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'R')),
                ') % (',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'n_other_b')),
                ')\n',
            ))
        else:
            pass
            t_5.extend((
                'other = ',
                str(l_1_e),
                ' // size_',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'R')),
                '\n',
            ))
        for l_2_stmt in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'decompose_other_b'):
            _loop_vars = {}
            pass
            t_5.extend((
                str(l_2_stmt),
                '\n',
            ))
        l_2_stmt = missing
        t_5.extend((
            'cell = ',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cell_expr')),
        ))
        return concat(t_5)
    context.exported_vars.add('entry_cell')
    context.vars['entry_cell'] = l_0_entry_cell = Macro(environment, macro, 'entry_cell', ('e', 'chunk_wide'), False, False, False, context.eval_ctx.autoescape)
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'has_backward'):
        pass
        yield '\n\n@triton.jit\ndef '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_bwd_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '(\n    '
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
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_ptr,'
        for l_1_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_sides'):
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
        yield str(t_2(context.eval_ctx, environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'db_strides'), ', '))
        yield ',\n'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ostrides'):
            pass
            yield '    '
            yield str(t_2(context.eval_ctx, environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ostrides'), ', '))
            yield ',\n'
        def t_6(fiter):
            for l_1_s in fiter:
                if environment.getattr(l_1_s, 'optional'):
                    yield l_1_s
        for l_1_s in t_6(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'sides')):
            _loop_vars = {}
            pass
            yield '    HAS_'
            yield str(environment.getattr(l_1_s, 'name'))
            yield ': tl.constexpr,\n'
        l_1_s = missing
        yield '    BLOCK_'
        yield str(t_4((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield ': tl.constexpr, BLOCK_'
        yield str(t_4((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield ': tl.constexpr, BLOCK_'
        yield str(t_4((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield ': tl.constexpr,\n    PRECISION: tl.constexpr, DOT_FP32: tl.constexpr, SPLIT_W: tl.constexpr, W_PRECISION: tl.constexpr,\n):\n    """grad_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        for l_1_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_sides'):
            _loop_vars = {}
            pass
            yield ' and grad_'
            yield str(environment.getattr(l_1_s, 'name'))
        l_1_s = missing
        yield ' of '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield ', destination-owned ("deterministic"): one\n    program per block of '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield ' rows and block of '
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield ' sums, in a fixed order and in\n    fp32, what the '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield ' rows that selected them contribute (a one-hot tile times a\n    tile of contributions, on the tensor cores), and writes each row once: no\n    atomics, bitwise reproducible."""\n    # spec line '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'line'))
        yield ': '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'spec_line'))
        yield '\n    b_cell = tl.program_id(0).to(tl.int64)\n'
        for l_1_stmt in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'decompose_b'):
            _loop_vars = {}
            pass
            yield '    '
            yield str(l_1_stmt)
            yield '\n'
        l_1_stmt = missing
        yield '    offs_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ' = tl.program_id(1) * BLOCK_'
        yield str(t_4((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield ' + tl.arange(0, BLOCK_'
        yield str(t_4((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield ')\n    '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_in = offs_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ' < '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'end_C'))
        yield '\n'
        for l_1_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_sides'):
            _loop_vars = {}
            pass
            yield '    grad_col_'
            yield str(environment.getattr(l_1_s, 'name'))
            yield ' = tl.zeros([BLOCK_'
            yield str(t_4((undefined(name='C') if l_0_C is missing else l_0_C)))
            yield '], tl.float32)\n'
        l_1_s = missing
        yield '    offs_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield ' = tl.program_id(2) * BLOCK_'
        yield str(t_4((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield ' + tl.arange(0, BLOCK_'
        yield str(t_4((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield ')\n    '
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '_in = offs_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield ' < size_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '\n    acc = tl.zeros([BLOCK_'
        yield str(t_4((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield ', BLOCK_'
        yield str(t_4((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield '], tl.float32)\n    for other in range(0, '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'n_other_b'))
        yield '):\n'
        for l_1_stmt in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'decompose_other_b'):
            _loop_vars = {}
            pass
            yield '        '
            yield str(l_1_stmt)
            yield '\n'
        l_1_stmt = missing
        yield '        cell = '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cell_expr'))
        yield '\n        a_rows = '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_ptr + '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'a_base'))
        yield '\n        for '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '0 in range(0, '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'end_R'))
        yield ', BLOCK_'
        yield str(t_4((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield '):\n            offs_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ' = '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '0 + tl.arange(0, BLOCK_'
        yield str(t_4((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield ')\n            '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '_in = offs_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ' < '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'end_R'))
        yield '\n            sel = tl.load(idx_ptr + cell * size_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ' + offs_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ', mask='
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '_in, other=-2)\n            onehot = offs_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '[:, None] == sel[None, :]\n'
        if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'uniform') or environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'weighted')):
            pass
            yield '            if True:  # tensor-core tiles: no branch around the loads, so that they pipeline\n'
        else:
            pass
            yield '            if tl.max(tl.max(onehot.to(tl.int32), axis=1), axis=0) > 0:  # some row of this block chose this block\n'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'uniform'):
            pass
            yield "                # every row's gradient is the cell's: one-hot x "
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield ' tile in the input dtype\n                '
            yield str(t_1(context.call((undefined(name='weights') if l_0_weights is missing else l_0_weights)), 16))
            yield '\n                w_cell = tl.max(tl.where(picked, w_dot, -float("inf")), axis=0)\n                w_cell = tl.where(tl.max(picked.to(tl.int32), axis=0) > 0, w_cell, 0.0)  # no row picked: no -inf * 0\n                a = tl.load(a_rows + offs_'
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
            yield ',\n                            mask=(sel >= 0)[:, None] & '
            yield str((undefined(name='K') if l_0_K is missing else l_0_K))
            yield '_in[None, :], other=0.0)\n                if DOT_FP32:  # the interpreter (Triton 3.9) multiplies bf16 bit patterns as integers\n                    part = tl.dot(onehot.to(tl.float32), a.to(tl.float32), input_precision="ieee")\n                else:\n                    part = tl.dot(onehot.to(a.dtype), a, input_precision=PRECISION)\n                acc += w_cell * part\n'
        elif environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'weighted'):
            pass
            yield "                # a row's gradient is its weight times its "
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield ' row: the weights go into the one-hot tile\n                '
            yield str(t_1(context.call((undefined(name='row_loads') if l_0_row_loads is missing else l_0_row_loads)), 16))
            yield '\n                '
            yield str(t_1(context.call((undefined(name='weights') if l_0_weights is missing else l_0_weights)), 16))
            yield '\n                a = tl.load(a_rows + offs_'
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
            yield ',\n                            mask=picked[:, None] & '
            yield str((undefined(name='K') if l_0_K is missing else l_0_K))
            yield '_in[None, :], other=0.0)  # a row left out passes nothing\n                w_hot = tl.where(onehot, w_dot[None, :], 0.0)\n                if DOT_FP32:\n                    acc += tl.dot(w_hot, a.to(tl.float32), input_precision="ieee")\n                elif SPLIT_W:\n                    # bf16 '
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield ': the fp32 weights as a high and a low half in bf16, two\n                    # tensor-core dots with exact products: about 16 bits of the weight kept\n                    w_hi = w_hot.to(a.dtype)\n                    w_lo = (w_hot - w_hi.to(tl.float32)).to(a.dtype)\n                    acc += tl.dot(w_hi, a) + tl.dot(w_lo, a)\n                else:  # fp32 '
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield ': ieee; fp16 (whose range the weights may leave): tf32x3 on the fp32 weights\n                    acc += tl.dot(w_hot, a.to(tl.float32), input_precision=W_PRECISION)\n'
        else:
            pass
            yield '                '
            yield str(t_1(context.call((undefined(name='row_loads') if l_0_row_loads is missing else l_0_row_loads)), 16))
            yield '\n                '
            yield str(t_1(context.call((undefined(name='weights') if l_0_weights is missing else l_0_weights)), 16))
            yield '\n                a = tl.load(a_rows + offs_'
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
            yield ',\n                            mask='
            yield str((undefined(name='R') if l_0_R is missing else l_0_R))
            yield '_in[:, None] & '
            yield str((undefined(name='K') if l_0_K is missing else l_0_K))
            yield '_in[None, :], other=0.0).to(tl.float32)\n                b = tl.load('
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
            yield ',\n                            mask=picked[:, None] & '
            yield str((undefined(name='K') if l_0_K is missing else l_0_K))
            yield '_in[None, :], other=0.0).to(tl.float32)\n                grad_a = tl.zeros_like(a)\n                '
            yield str(t_1(context.call((undefined(name='pair_grads') if l_0_pair_grads is missing else l_0_pair_grads)), 16))
            yield '\n                acc += tl.dot(onehot.to(tl.float32), contrib, input_precision="ieee")\n'
        for l_1_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_sides'):
            _loop_vars = {}
            pass
            yield '                gc = tl.where(picked, g_row * '
            yield str(environment.getitem(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_grads'), environment.getattr(l_1_s, 'name')))
            yield ', 0.0)\n                grad_col_'
            yield str(environment.getattr(l_1_s, 'name'))
            yield ' += tl.sum(tl.where(onehot, gc[None, :], 0.0), axis=1)\n'
        l_1_s = missing
        yield '    tl.store(grad_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_ptr + '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'db_base'))
        yield ' + offs_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '.to(tl.int64)[:, None] * dstride_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ' + offs_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '[None, :] * dstride_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield ',\n             acc.to(grad_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_ptr.dtype.element_ty), mask='
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_in[:, None] & '
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '_in[None, :])\n'
        for l_1_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_sides'):
            _loop_vars = {}
            pass
            yield '    if tl.program_id(2) == 0:  # the per-column terms: once, by the first block of '
            yield str((undefined(name='K') if l_0_K is missing else l_0_K))
            yield '\n        tl.store(grad_'
            yield str(environment.getattr(l_1_s, 'name'))
            yield '_ptr + b_cell * size_'
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield ' + offs_'
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield ', grad_col_'
            yield str(environment.getattr(l_1_s, 'name'))
            yield ', mask='
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield '_in)\n'
        l_1_s = missing
        yield '\n\n@triton.jit\ndef '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_inverse_keys(\n    idx_ptr, keys_ptr,\n    '
        yield str(t_2(context.eval_ctx, environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'sizes'), ', '))
        yield ',\n    n_entries, n_rows, c0,\n    BLOCK: tl.constexpr,\n):\n    """The inverse index\'s sort keys for the '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield ' cells c0, c0 + 1, ..: their\n    saved index entries enumerated cell by cell (then by the '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield ' cell that\n    paired with it, then by '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ' row), and for each the '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield ' row it selected,\n    counted from the chunk\'s first row; n_rows (sorted last, read by no one)\n    where it selected nothing. A stable sort of the keys then lists each row\'s\n    entries in a fixed order, whatever the chunk (bitwise the same gradients)."""\n    e = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)\n    e_in = e < n_entries\n    b_cell = c0 + e // (size_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ' * ('
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'n_other_b'))
        yield '))\n'
        for l_1_stmt in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'decompose_b'):
            _loop_vars = {}
            pass
            yield '    '
            yield str(l_1_stmt)
            yield '\n'
        l_1_stmt = missing
        yield '    '
        yield str(t_1(context.call((undefined(name='entry_cell') if l_0_entry_cell is missing else l_0_entry_cell), 'e', chunk_wide=True), 4))
        yield '\n    sel = tl.load(idx_ptr + cell * size_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ' + offs_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ', mask=e_in, other=-1)\n    key = tl.where(sel >= 0, (b_cell - c0) * size_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ' + sel, n_rows)\n    tl.store(keys_ptr + e, key.to(keys_ptr.dtype.element_ty), mask=e_in)\n\n\n@triton.jit\ndef '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_inverse_count(\n    idx_ptr, hist_ptr,\n    '
        yield str(t_2(context.eval_ctx, environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'sizes'), ', '))
        yield ',\n    c0, n_blocks,\n    NB: tl.constexpr, BLOCK: tl.constexpr,\n):\n    """The counting sort\'s first pass, one program per (cell of the chunk, block of\n    its entries, enumerated as '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield "_inverse_keys counts them): how many of the\n    block's entries selected each "
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield ' row (bin size_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ': selected nothing)."""\n    b_cell = c0 + tl.program_id(0)\n'
        for l_1_stmt in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'decompose_b'):
            _loop_vars = {}
            pass
            yield '    '
            yield str(l_1_stmt)
            yield '\n'
        l_1_stmt = missing
        yield '    e = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)\n    e_in = e < size_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ' * ('
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'n_other_b'))
        yield ')\n    '
        yield str(t_1(context.call((undefined(name='entry_cell') if l_0_entry_cell is missing else l_0_entry_cell), 'e'), 4))
        yield '\n    sel = tl.load(idx_ptr + cell * size_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ' + offs_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ', mask=e_in, other=-1)\n    key = tl.where(sel >= 0, sel.to(tl.int32), size_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ')\n    counts = tl.histogram(key, NB)\n    tl.store(hist_ptr + (tl.program_id(0) * n_blocks + tl.program_id(1)) * NB + tl.arange(0, NB), counts)\n\n\n@triton.jit\ndef '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_inverse_place(\n    idx_ptr, offsets_ptr, order_ptr,\n    '
        yield str(t_2(context.eval_ctx, environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'sizes'), ', '))
        yield ',\n    c0, n_blocks,\n    BLOCK: tl.constexpr, SUB: tl.constexpr,\n):\n    """The counting sort\'s second pass: each entry of the block that selected a row\n    goes to order[offsets[row] + the entries before it in the block that selected the\n    same row], as its number within its cell; offsets (the row\'s first free place for\n    this block, from the first pass\'s counts) moves on after every SUB entries.\n    Entries keep their order within a row: the same order as a stable sort."""\n    b_cell = c0 + tl.program_id(0)\n'
        for l_1_stmt in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'decompose_b'):
            _loop_vars = {}
            pass
            yield '    '
            yield str(l_1_stmt)
            yield '\n'
        l_1_stmt = missing
        yield '    row_offsets = offsets_ptr + (tl.program_id(0) * n_blocks + tl.program_id(1)) * size_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '\n    lane = tl.arange(0, SUB)\n    n_cell = size_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ' * ('
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'n_other_b'))
        yield ")  # the cell's entries\n    for first in range(0, tl.minimum(BLOCK, n_cell - tl.program_id(1) * BLOCK), SUB):  # the block's, SUB at a time\n        e = tl.program_id(1) * BLOCK + first + lane\n        e_in = e < n_cell\n        "
        yield str(t_1(context.call((undefined(name='entry_cell') if l_0_entry_cell is missing else l_0_entry_cell), 'e'), 8))
        yield '\n        sel = tl.load(idx_ptr + cell * size_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ' + offs_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ", mask=e_in, other=-1).to(tl.int32)\n        chosen = sel >= 0\n        same = (sel[:, None] == sel[None, :]) & chosen[None, :]\n        before = tl.sum((same & (lane[None, :] < lane[:, None])).to(tl.int32), axis=1)\n        after = tl.sum((same & (lane[None, :] > lane[:, None])).to(tl.int32), axis=1)\n        at = tl.load(row_offsets + tl.maximum(sel, 0), mask=chosen, other=0) + before\n        tl.store(order_ptr + at, e.to(tl.int32), mask=chosen)\n        tl.debug_barrier()  # every lane has read its row's offset before the last of each row moves it\n        tl.store(row_offsets + tl.maximum(sel, 0), at + 1, mask=chosen & (after == 0))\n        tl.debug_barrier()  # the moved offsets, seen by the next SUB entries\n\n\n@triton.jit\ndef "
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_bwd_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_csr(\n    '
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
        yield '\n    grad_ptr, idx_ptr, stat_ptr, xsel_ptr, order_ptr, starts_ptr, keys_ptr, grad_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_ptr,'
        for l_1_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_sides'):
            _loop_vars = {}
            pass
            yield ' grad_'
            yield str(environment.getattr(l_1_s, 'name'))
            yield '_ptr,'
        l_1_s = missing
        yield '\n    '
        yield str(t_2(context.eval_ctx, environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'sizes'), ', '))
        yield ', c0, n_rows,\n'
        for l_1_line in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'stride_params')[:((2 + t_3(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'aux'))) + t_3(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'sides')))]:
            _loop_vars = {}
            pass
            yield '    '
            yield str(l_1_line)
            yield ',\n'
        l_1_line = missing
        yield '    '
        yield str(t_2(context.eval_ctx, environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'db_strides'), ', '))
        yield ',\n'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ostrides'):
            pass
            yield '    '
            yield str(t_2(context.eval_ctx, environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ostrides'), ', '))
            yield ',\n'
        def t_7(fiter):
            for l_1_s in fiter:
                if environment.getattr(l_1_s, 'optional'):
                    yield l_1_s
        for l_1_s in t_7(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'sides')):
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
        yield ': tl.constexpr, SPARSE: tl.constexpr,\n):\n    """grad_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        for l_1_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_sides'):
            _loop_vars = {}
            pass
            yield ' and grad_'
            yield str(environment.getattr(l_1_s, 'name'))
        l_1_s = missing
        yield ' of '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield ', destination-owned ("deterministic")\n    through an inverse index: one program per '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield ' row of the chunk that starts at\n    '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield ' cell c0 and block of '
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield ' reads the entries that selected the row\n    (order[starts[row]:starts[row + 1]], entries as '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_inverse_keys counts them,\n    sorted by row, stably) and sums their contributions in that order, in\n    fp32, BLOCK_'
        yield str(t_4((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield ' at a time; each row is written once, no atomics, bitwise\n    reproducible. Work follows the entries, not the scan of every index that\n    one-hot tiles make.\n\n    SPARSE (dispatch.sparse_rows: far fewer entries than rows): one program per\n    entry of the sorted keys instead; the first entry of a row sums the row\'s\n    entries (up to starts[entry], the end of its run of keys) and writes it, the\n    others write nothing: rows no entry selected keep the zeros they start with."""\n    # spec line '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'line'))
        yield ': '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'spec_line'))
        yield "\n    if SPARSE:\n        at = tl.program_id(0).to(tl.int64)\n        row = tl.load(keys_ptr + at).to(tl.int64)\n        before = tl.load(keys_ptr + tl.maximum(at - 1, 0)).to(tl.int64)\n        first = ((row < n_rows) & ((at == 0) | (before != row))).to(tl.int32)  # (int: the interpreter's masks)\n        start = at\n        end = tl.where(first > 0, tl.load(starts_ptr + at), at)\n        row = tl.where(first > 0, row, 0)\n    else:\n        row = tl.program_id(0).to(tl.int64)\n        first = 1\n        start = tl.load(starts_ptr + row)\n        end = tl.load(starts_ptr + row + 1)\n    b_cell = c0 + row // size_"
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '\n    offs_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ' = row % size_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '\n'
        for l_1_stmt in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'decompose_b'):
            _loop_vars = {}
            pass
            yield '    '
            yield str(l_1_stmt)
            yield '\n'
        l_1_stmt = missing
        yield '    offs_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield ' = tl.program_id(1) * BLOCK_'
        yield str(t_4((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield ' + tl.arange(0, BLOCK_'
        yield str(t_4((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield ')\n    '
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '_in = offs_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield ' < size_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '\n    acc = tl.zeros([BLOCK_'
        yield str(t_4((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield ', BLOCK_'
        yield str(t_4((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield '], tl.float32)\n'
        for l_1_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_sides'):
            _loop_vars = {}
            pass
            yield '    grad_col_'
            yield str(environment.getattr(l_1_s, 'name'))
            yield ' = tl.zeros([BLOCK_'
            yield str(t_4((undefined(name='R') if l_0_R is missing else l_0_R)))
            yield '], tl.float32)\n'
        l_1_s = missing
        yield "    # (names of this loop cannot be an axis's: no offs_ / pid_ prefix, no _in or 0 suffix)\n    for block_start in range(start, end, BLOCK_"
        yield str(t_4((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield '):\n        entry_pos = block_start + tl.arange(0, BLOCK_'
        yield str(t_4((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield ')\n        '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '_in = entry_pos < end\n        entry = tl.load(order_ptr + entry_pos, mask='
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield "_in, other=0)\n        # (the sort's order counts entries across the chunk; the counting sort's, within the cell)\n        "
        yield str(t_1(context.call((undefined(name='entry_cell') if l_0_entry_cell is missing else l_0_entry_cell), 'entry', chunk_wide=True), 8))
        yield '\n        '
        yield str(t_1(context.call((undefined(name='row_loads') if l_0_row_loads is missing else l_0_row_loads)), 8))
        yield '\n        '
        yield str(t_1(context.call((undefined(name='weights') if l_0_weights is missing else l_0_weights)), 8))
        yield '\n        a_rows = '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_ptr + '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'a_base'))
        yield ' + offs_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '.to(tl.int64) * stride_'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '  # one row per entry: cells differ\n        a = tl.load(a_rows[:, None] + offs_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '[None, :] * stride_'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield ',\n                    mask=picked[:, None] & '
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '_in[None, :], other=0.0).to(tl.float32)\n'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'pair_uses_b'):
            pass
            yield '        b_rows = '
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield '_ptr + '
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'b_base'))
            yield ' + sel_safe.to(tl.int64) * stride_'
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield '_'
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield "  # this program's row, once per entry\n        b = tl.load(b_rows[:, None] + offs_"
            yield str((undefined(name='K') if l_0_K is missing else l_0_K))
            yield '[None, :] * stride_'
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield '_'
            yield str((undefined(name='K') if l_0_K is missing else l_0_K))
            yield ',\n                    mask=picked[:, None] & '
            yield str((undefined(name='K') if l_0_K is missing else l_0_K))
            yield '_in[None, :], other=0.0).to(tl.float32)\n'
        yield '        '
        yield str(t_1(context.call((undefined(name='pair_grads') if l_0_pair_grads is missing else l_0_pair_grads), with_a=False), 8))
        yield '\n        acc += contrib\n'
        for l_1_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_sides'):
            _loop_vars = {}
            pass
            yield '        grad_col_'
            yield str(environment.getattr(l_1_s, 'name'))
            yield ' += tl.where(picked, g_row * '
            yield str(environment.getitem(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_grads'), environment.getattr(l_1_s, 'name')))
            yield ', 0.0)\n'
        l_1_s = missing
        if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'end_C') != str_join(('size_', (undefined(name='C') if l_0_C is missing else l_0_C), ))):
            pass
            yield '    # '
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield " is ragged: a row past its sequence's end is another sequence's (or past the packed rows)\n    "
            yield str((undefined(name='K') if l_0_K is missing else l_0_K))
            yield '_in = '
            yield str((undefined(name='K') if l_0_K is missing else l_0_K))
            yield '_in & (offs_'
            yield str((undefined(name='K') if l_0_K is missing else l_0_K))
            yield ' * 0 + offs_'
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield ' < '
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'end_C'))
            yield ')\n'
        yield '    '
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '_in = '
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '_in & (offs_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield " * 0 + first > 0)  # SPARSE: the row's first entry writes it\n    tl.store(grad_"
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_ptr + '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'db_base'))
        yield ' + offs_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ' * dstride_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ' + offs_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield ' * dstride_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield ',\n             tl.sum(acc, axis=0).to(grad_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_ptr.dtype.element_ty), mask='
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '_in)\n'
        for l_1_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_sides'):
            _loop_vars = {}
            pass
            yield '    if (tl.program_id(1) == 0) & (first > 0):  # the per-column terms: once, by the first block of '
            yield str((undefined(name='K') if l_0_K is missing else l_0_K))
            yield '\n        tl.store(grad_'
            yield str(environment.getattr(l_1_s, 'name'))
            yield '_ptr + b_cell * size_'
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield ' + offs_'
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield ', tl.sum(grad_col_'
            yield str(environment.getattr(l_1_s, 'name'))
            yield ', axis=0))\n'
        l_1_s = missing

blocks = {}
debug_info = '4=37&5=43&6=52&7=55&11=64&12=71&13=75&15=86&17=91&18=95&20=101&22=106&26=109&27=113&29=139&31=149&32=151&33=155&35=159&36=161&37=164&39=166&40=174&42=178&45=184&46=194&47=198&50=200&52=204&53=208&55=212&56=218&57=224&58=228&60=234&61=240&62=246&63=250&64=252&65=256&67=260&68=262&69=266&70=272&71=278&72=284&73=290&74=292&79=298&80=301&81=303&84=305&85=317&91=319&92=322&93=324&94=326&95=328&96=340&101=342&106=344&109=349&110=351&111=353&112=365&113=369&114=383&116=385&119=387&120=391&121=393&123=397&124=413&125=419&126=423&127=425&132=437&134=439&138=441&139=443&140=445&146=449&147=453&148=457&150=461&151=463&152=467&157=469&159=471&164=473&165=475&167=479&168=483&171=487&172=491&173=493&174=497&180=499&182=501&192=503&193=507&195=511&197=513&201=517&202=519&215=523&216=527&218=553&220=563&221=565&222=569&224=573&225=575&226=578&228=580&229=588&231=592&233=596&234=606&235=608&236=612&238=614&246=616&260=620&261=622&262=626&263=630&265=634&266=640&267=646&268=650&269=654&272=660&273=662&274=664&275=666&277=668&278=670&279=672&280=674&281=684&282=690&283=692&284=695&285=703&286=709&288=712&290=714&291=718&293=723&294=726&295=728&297=739&298=745&299=761&300=765&301=769&302=771'
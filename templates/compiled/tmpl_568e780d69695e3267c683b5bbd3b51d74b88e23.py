from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'select_reduce_host.py.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_t = resolve('t')
    l_0_packed = resolve('packed')
    l_0_R = l_0_C = l_0_K = l_0_A = l_0_B = l_0_P = l_0_rows_args = l_0_rows_grad_wrapper = l_0_packed_rows_grad = l_0_rows_grad_buffers = l_0_gather_parts = l_0_st = missing
    try:
        t_1 = environment.filters['join']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'join' found.")
    try:
        t_2 = environment.filters['length']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'length' found.")
    try:
        t_3 = environment.filters['list']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'list' found.")
    try:
        t_4 = environment.filters['tojson']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'tojson' found.")
    try:
        t_5 = environment.filters['upper']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No filter named 'upper' found.")
    pass
    (l_0_R, l_0_C, l_0_K, l_0_A, l_0_B, l_0_P) = (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'R'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'C'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'K'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'A'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'B'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'P'))
    context.vars.update({'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R})
    context.exported_vars.update(('A', 'B', 'C', 'K', 'P', 'R'))
    included_template = environment.get_template('select_reduce/common.py.jinja', 'select_reduce_host.py.jinja').make_module(context.get_all(), True, {'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R, 'gather_parts': l_0_gather_parts, 'packed_rows_grad': l_0_packed_rows_grad, 'rows_args': l_0_rows_args, 'rows_grad_buffers': l_0_rows_grad_buffers, 'rows_grad_wrapper': l_0_rows_grad_wrapper, 'st': l_0_st})
    l_0_rows_args = getattr(included_template, 'rows_args', missing)
    if l_0_rows_args is missing:
        l_0_rows_args = undefined(f"the template {included_template.__name__!r} (imported on line 5 in 'select_reduce_host.py.jinja') does not export the requested name 'rows_args'", name='rows_args')
    context.vars['rows_args'] = l_0_rows_args
    context.exported_vars.discard('rows_args')
    included_template = environment.get_template('select_reduce/rows_host.py.jinja', 'select_reduce_host.py.jinja').make_module(context.get_all(), True, {'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R, 'gather_parts': l_0_gather_parts, 'packed_rows_grad': l_0_packed_rows_grad, 'rows_args': l_0_rows_args, 'rows_grad_buffers': l_0_rows_grad_buffers, 'rows_grad_wrapper': l_0_rows_grad_wrapper, 'st': l_0_st})
    l_0_rows_grad_wrapper = getattr(included_template, 'rows_grad_wrapper', missing)
    if l_0_rows_grad_wrapper is missing:
        l_0_rows_grad_wrapper = undefined(f"the template {included_template.__name__!r} (imported on line 6 in 'select_reduce_host.py.jinja') does not export the requested name 'rows_grad_wrapper'", name='rows_grad_wrapper')
    l_0_packed_rows_grad = getattr(included_template, 'packed_rows_grad', missing)
    if l_0_packed_rows_grad is missing:
        l_0_packed_rows_grad = undefined(f"the template {included_template.__name__!r} (imported on line 6 in 'select_reduce_host.py.jinja') does not export the requested name 'packed_rows_grad'", name='packed_rows_grad')
    l_0_rows_grad_buffers = getattr(included_template, 'rows_grad_buffers', missing)
    if l_0_rows_grad_buffers is missing:
        l_0_rows_grad_buffers = undefined(f"the template {included_template.__name__!r} (imported on line 6 in 'select_reduce_host.py.jinja') does not export the requested name 'rows_grad_buffers'", name='rows_grad_buffers')
    l_0_gather_parts = getattr(included_template, 'gather_parts', missing)
    if l_0_gather_parts is missing:
        l_0_gather_parts = undefined(f"the template {included_template.__name__!r} (imported on line 6 in 'select_reduce_host.py.jinja') does not export the requested name 'gather_parts'", name='gather_parts')
    context.vars.update({'rows_grad_wrapper': l_0_rows_grad_wrapper, 'packed_rows_grad': l_0_packed_rows_grad, 'rows_grad_buffers': l_0_rows_grad_buffers, 'gather_parts': l_0_gather_parts})
    context.exported_vars.difference_update(('rows_grad_wrapper', 'packed_rows_grad', 'rows_grad_buffers', 'gather_parts'))
    def macro(l_1_var, l_1_name, l_1_axes):
        t_6 = []
        if l_1_var is missing:
            l_1_var = undefined("parameter 'var' was not provided", name='var')
        if l_1_name is missing:
            l_1_name = undefined("parameter 'name' was not provided", name='name')
        if l_1_axes is missing:
            l_1_axes = undefined("parameter 'axes' was not provided", name='axes')
        pass
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'packing'):
            pass
            t_6.extend((
                '*ragged.strides(',
                str(l_1_var),
                ', ',
                str(t_4(context.eval_ctx, l_1_axes)),
                ', RAGGED.get("',
                str(l_1_name),
                '"))',
            ))
        else:
            pass
            t_6.extend((
                '*',
                str(l_1_var),
                '.stride()',
            ))
        return concat(t_6)
    context.exported_vars.add('st')
    context.vars['st'] = l_0_st = Macro(environment, macro, 'st', ('var', 'name', 'axes'), False, False, False, context.eval_ctx.autoescape)
    yield 'def _'
    yield str((undefined(name='P') if l_0_P is missing else l_0_P))
    yield '_kernel():\n    """The autotuned forward on a GPU; None for fixed blocks (interpreter, HSR_AUTOTUNE=0)."""\n    return autotune.forward('
    yield str((undefined(name='P') if l_0_P is missing else l_0_P))
    yield '_fwd, lowering="'
    yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lowering'))
    yield '",\n                            operand="'
    yield str((undefined(name='A') if l_0_A is missing else l_0_A))
    yield '_ptr", block_r="BLOCK_'
    yield str(t_5((undefined(name='R') if l_0_R is missing else l_0_R)))
    yield '",\n                            block_c="BLOCK_'
    yield str(t_5((undefined(name='C') if l_0_C is missing else l_0_C)))
    yield '", block_k="BLOCK_'
    yield str(t_5((undefined(name='K') if l_0_K is missing else l_0_K)))
    yield '",\n                            size_r="size_'
    yield str((undefined(name='R') if l_0_R is missing else l_0_R))
    yield '", size_c="size_'
    yield str((undefined(name='C') if l_0_C is missing else l_0_C))
    yield '", size_k="size_'
    yield str((undefined(name='K') if l_0_K is missing else l_0_K))
    yield '",\n                            block_g='
    yield str((str_join(('"BLOCK_', t_5(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G')), '"', )) if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G') else 'None'))
    yield ', size_g='
    yield str((str_join(('"size_', environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'), '"', )) if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G') else 'None'))
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'row_split'):
        pass
        yield ',\n                            split="SPLIT_'
        yield str(t_5((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield '"'
    yield ')\n\n\n'
    if ((environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'aux') or environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2')) or (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean') and environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cos'))):
        pass
        yield 'def _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_row_norms(rows, pad=0, inverse=False):\n    """Squared norms of rows [n, k] (row-strided, contiguous along k), in fp32: one launch.\n    pad: zeros after the n norms, so that a loop a tile ahead reads them unmasked (the lean\n    forward); inverse: 1 / max(|row|, 1e-12) instead (a cosine\'s, once a row, not a tile)."""\n    out = torch.empty((rows.shape[0] + pad,), dtype=torch.float32, device=rows.device)\n    if out.numel():\n        launcher.launch('
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_row_norms, (triton.cdiv(out.numel(), 64),), rows, out, rows.shape[0], out.numel(),\n                        rows.shape[1], rows.stride(0), BLOCK=64, BLOCK_K=min(128, runtime.next_pow2(rows.shape[1], 16)),\n                        INVERSE=inverse)\n    return out\n\n\n'
    yield 'def _'
    yield str((undefined(name='P') if l_0_P is missing else l_0_P))
    yield '_aux(t, need, launch=True):\n    """Squared row norms the backward needs, once per row, in fp32 (the forward\n    forms them from its tiles): one launch where the contraction axis is the last\n    and contiguous (else torch ops, as for the custom op\'s fake, launch=False);\n    placeholders where no backward will run."""\n    aux = []\n'
    for l_1_x in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'aux'):
        _loop_vars = {}
        pass
        yield '    rows_of = t["'
        yield str(environment.getattr(l_1_x, 'operand'))
        yield '"]\n'
        if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows') and (environment.getattr(l_1_x, 'operand') == environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows'), 'name'))):
            pass
            yield '    # '
            yield str(environment.getattr(l_1_x, 'operand'))
            yield " is computed, its rows normalised (a cosine reads it so): each row's squared norm is 1\n    aux.append(torch.ones((), device=rows_of.device, dtype=torch.float32).expand(\n        [n for i, n in enumerate(rows_of.shape) if i != "
            yield str(environment.getattr(l_1_x, 'k_dim'))
            yield '] if need else [1] * '
            yield str(t_2(environment.getattr(l_1_x, 'axes')))
            yield '))\n'
        else:
            pass
            yield '    rows = dispatch.row_matrix(rows_of) if need and launch and '
            yield str(environment.getattr(l_1_x, 'k_dim'))
            yield ' == rows_of.dim() - 1 else None\n    if not need:\n        aux.append(rows_of.new_zeros((1,) * '
            yield str(t_2(environment.getattr(l_1_x, 'axes')))
            yield ', dtype=torch.float32))\n    elif rows is not None:\n        aux.append(_'
            yield str((undefined(name='P') if l_0_P is missing else l_0_P))
            yield '_row_norms(rows).view(rows_of.shape[:-1]))\n    else:\n        aux.append(runtime.squared_norms(rows_of, '
            yield str(environment.getattr(l_1_x, 'k_dim'))
            yield '))\n'
    l_1_x = missing
    yield '    return aux\n\n\n'
    template = environment.get_template('select_reduce/split_host.py.jinja', 'select_reduce_host.py.jinja')
    gen = template.root_render_func(template.new_context(context.get_all(), True, {'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R, 'gather_parts': l_0_gather_parts, 'packed_rows_grad': l_0_packed_rows_grad, 'rows_args': l_0_rows_args, 'rows_grad_buffers': l_0_rows_grad_buffers, 'rows_grad_wrapper': l_0_rows_grad_wrapper, 'st': l_0_st}))
    try:
        for event in gen:
            yield event
    finally: gen.close()
    template = environment.get_template('select_reduce/parts_host.py.jinja', 'select_reduce_host.py.jinja')
    gen = template.root_render_func(template.new_context(context.get_all(), True, {'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R, 'gather_parts': l_0_gather_parts, 'packed_rows_grad': l_0_packed_rows_grad, 'rows_args': l_0_rows_args, 'rows_grad_buffers': l_0_rows_grad_buffers, 'rows_grad_wrapper': l_0_rows_grad_wrapper, 'st': l_0_st}))
    try:
        for event in gen:
            yield event
    finally: gen.close()
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'):
        pass
        yield 'def _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_forward_lean(t, sizes, out, idx, stat, xsel, blocks'
        for l_1_m in environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'masks'):
            _loop_vars = {}
            pass
            yield ', '
            yield str(l_1_m)
            yield '_'
        l_1_m = missing
        yield str((', fold=0' if environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'fold') else cond_expr_undefined("the inline if-expression on line 64 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
        yield '):\n    """The lean forward into out (and idx, unless None)'
        yield str((', masks as given' if environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'masks') else ''))
        yield ' (dispatch.lean_blocks)'
        yield str((";\n    fold: the offsets' check in the kernel (dispatch.offsets_check_fold)" if environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'fold') else cond_expr_undefined("the inline if-expression on line 65 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
        yield '."""\n    block_r, block_c, warps, stages, load, a_rows, b_rows = blocks\n    n_chunks = triton.cdiv(sizes["'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '"], block_r)\n    target = out if n_chunks == 1 else torch.empty(('
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cells_py'))
        yield ', n_chunks), dtype=torch.float32, device=out.device)\n'
        if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') in ('max', 'min')):
            pass
            yield "    # each chunk's best row (-1: none kept); one chunk writes the selected row into stat\n    orow = (stat if stat is not None else out) if n_chunks == 1 else torch.empty_like(target, dtype=torch.int32)\n"
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2'):
            pass
            yield "    a_rows_s, b_rows_s, shift, shift_a, bsq = a_rows, b_rows, out, 0, None  # what the key's tiles read\n"
            if (((not environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'packing')) and (not environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'shared_axes'))) and (not environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows'))):
                pass
                yield '    if dispatch.shifts_16bit(a_rows.dtype, 0, True, sizes["'
                yield str((undefined(name='R') if l_0_R is missing else l_0_R))
                yield '"] * '
                yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'n_other_b_py'))
                yield '):\n        # 16-bit rows less a per-coordinate shift (hsr.shift16): '
                yield str((undefined(name='B') if l_0_B is missing else l_0_B))
                yield "'s exact, with its norms (padded by two\n        # column tiles: the loop reads the next tile's unmasked); "
                yield str((undefined(name='A') if l_0_A is missing else l_0_A))
                yield "'s rows that round marked NaN (ranked\n        # again); nothing shifted where the shift is 0. (Contiguous: the shifted rows index as the rows do.)\n        a_rows, b_rows = a_rows.contiguous(), b_rows.contiguous()\n        shift, b_rows_s, bsq, a_rows_s = runtime.shift_16bit_rows(a_rows, b_rows, dispatch.multiprocessors(out.device),\n                                                                  pad=2 * block_c)\n        shift_a = 2\n"
        if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cos') or environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2')):
            pass
            yield '    # '
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield "'s squared row norms, once, where many programs read each of its row sets; else each\n    # program forms them from its tiles (dispatch.col_norms)\n    col_norms = "
            yield str(('bsq is not None or ' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2') else cond_expr_undefined("the inline if-expression on line 90 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
            yield 'dispatch.col_norms(sizes["'
            yield str((undefined(name='R') if l_0_R is missing else l_0_R))
            yield '"] * '
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'n_other_b_py'))
            yield ", lean=True)\n    # (padded by two column tiles: the loop reads the next tile's unmasked; a cosine's as 1 / |b|)\n"
            if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2'):
                pass
                yield "    if bsq is None:  # (else the shift's pass wrote them)\n        bsq = _"
                yield str((undefined(name='P') if l_0_P is missing else l_0_P))
                yield '_row_norms(b_rows, pad=2 * block_c) if col_norms else out\n'
            else:
                pass
                yield '    bsq = _'
                yield str((undefined(name='P') if l_0_P is missing else l_0_P))
                yield '_row_norms(b_rows, pad=2 * block_c, inverse=True) if col_norms else out\n'
        if environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'fold'):
            pass
            yield '    # a flag under the interpreter (fold 2); on a GPU a device assert (fold 1: debug on, no overflow checks)\n    ok = torch.ones(1, dtype=torch.bool, device=out.device) if fold == 2 else target\n    debug = dict(debug=True, sanitize_overflow=False) if fold == 1 else {}\n'
        yield '    a_desc = b_desc = None\n    if load:\n        a_desc = TensorDescriptor.from_tensor(a_rows, [block_r, sizes["'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '"]])\n        b_desc = TensorDescriptor.from_tensor(b_rows'
        yield str(('_s' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2') else cond_expr_undefined("the inline if-expression on line 107 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
        yield ', [block_c, sizes["'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '"]])\n    # few cells, long rows: the columns in parts across programs, then a merge (dispatch.column_parts)\n    parts, part_len = dispatch.column_parts(target.numel(), sizes["'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '"], block_c,\n                                            dispatch.multiprocessors(out.device))\n    part_val = part_idx = target\n    if parts > 1:\n        part_val = torch.empty(('
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cells_py'))
        yield ' * sizes["'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '"], parts), dtype=torch.float32, device=out.device)\n        part_idx = torch.empty_like(part_val, dtype=torch.int32)\n    args = (\n        a_rows, b_rows, a_desc, b_desc,'
        yield str((' a_rows_s, b_rows_s, shift,' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2') else cond_expr_undefined("the inline if-expression on line 116 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
        yield str((' bsq,' if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cos') or environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2')) else cond_expr_undefined("the inline if-expression on line 116 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
        yield ' target, idx if idx is not None else target,'
        for l_1_m in environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'masks'):
            _loop_vars = {}
            pass
            yield ' '
            yield str(l_1_m)
            yield '_.view(torch.uint8) if '
            yield str(l_1_m)
            yield '_ is not None else target,'
        l_1_m = missing
        for l_1_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'sides'):
            _loop_vars = {}
            pass
            yield ' t["'
            yield str(environment.getattr(l_1_s, 'name'))
            yield '"] if t["'
            yield str(environment.getattr(l_1_s, 'name'))
            yield '"] is not None else target,'
        l_1_s = missing
        for l_1_o in environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'offsets'):
            _loop_vars = {}
            pass
            yield ' t["'
            yield str(l_1_o)
            yield '"],'
        l_1_o = missing
        if environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'fold'):
            pass
            yield ' ok,'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'need_x'):
            pass
            yield ' xsel if xsel is not None else target,'
        if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') in ('max', 'min')):
            pass
            yield ' orow,'
        yield ' part_val, part_idx,\n\n        '
        yield str(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'grid_size_args'))
        yield 'sizes["'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '"], sizes["'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '"], a_rows.stride(0), b_rows.stride(0),\n        '
        yield str((str_join(('1.0 / sizes["', (undefined(name='R') if l_0_R is missing else l_0_R), '"]', )) if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') == 'mean') else '1.0'))
        yield ', part_len, parts,'
        for l_1_c in environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'checks'):
            _loop_vars = {}
            pass
            yield ' sizes.get(ragged.rows_key("'
            yield str(environment.getattr(l_1_c, 'cu'))
            yield '"), -1),'
        l_1_c = missing
        l_1_loop = missing
        for l_1_m, l_1_loop in LoopContext(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'masks'), undefined):
            _loop_vars = {}
            pass
            yield ' *_strides('
            yield str(l_1_m)
            yield '_, '
            yield str(environment.getitem(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'mask_ranks'), environment.getattr(l_1_loop, 'index0')))
            yield '),'
        l_1_loop = l_1_m = missing
        for l_1_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'sides'):
            _loop_vars = {}
            pass
            yield ' *_strides(t["'
            yield str(environment.getattr(l_1_s, 'name'))
            yield '"], '
            yield str(t_2(environment.getattr(l_1_s, 'axes')))
            yield str((str_join((', "', environment.getattr(l_1_s, 'name'), '"', )) if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'packing') else cond_expr_undefined("the inline if-expression on line 119 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
            yield '),'
        l_1_s = missing
        yield '\n    )\n    meta = dict(\n'
        for l_1_m in environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'masks'):
            _loop_vars = {}
            pass
            yield '        HAS_'
            yield str(l_1_m)
            yield '='
            yield str(l_1_m)
            yield '_ is not None,\n'
        l_1_m = missing
        def t_7(fiter):
            for l_1_s in fiter:
                if environment.getattr(l_1_s, 'optional'):
                    yield l_1_s
        for l_1_s in t_7(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'sides')):
            _loop_vars = {}
            pass
            yield '        HAS_'
            yield str(environment.getattr(l_1_s, 'name'))
            yield '=t["'
            yield str(environment.getattr(l_1_s, 'name'))
            yield '"] is not None,\n'
        l_1_s = missing
        yield '        BLOCK_'
        yield str(t_5((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield '=block_r, BLOCK_'
        yield str(t_5((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield '=block_c, BLOCK_'
        yield str(t_5((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield '=dispatch.lean_block_k(a_rows),\n        SIZE_'
        yield str(t_5((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield '=sizes["'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '"], LOAD=load,\n        DOT_FP32=runtime.interpreting() and a_rows.dtype == torch.bfloat16, SWAP=dispatch.lean_swap(block_r, block_c, warps),\n        NEED_IDX=idx is not None,'
        if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cos') or environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2')):
            pass
            yield ' COL_NORMS=col_norms,'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2'):
            pass
            yield ' SHIFT_A=shift_a,'
        if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') in ('max', 'min')):
            pass
            yield ' FINAL=n_chunks == 1,'
        if environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'fold'):
            pass
            yield ' CHECK_OFFSETS=fold,'
        yield '\n        num_warps=warps, num_stages=stages'
        yield str((', **debug' if environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'fold') else cond_expr_undefined("the inline if-expression on line 134 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
        yield ')\n    if parts > 1:\n        launcher.launch('
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_fwd_lean, (target.numel() * parts,), *args, PHASE=1, **meta)\n    launcher.launch('
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_fwd_lean, (target.numel(),), *args, PHASE=2 if parts > 1 else 0, **meta)\n'
        if environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'fold'):
            pass
            yield '    if fold == 2:\n        torch._assert_async(ok, "'
            yield str(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'offsets_message'))
            yield '")\n'
        if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') in ('max', 'min')):
            pass
            yield "    if n_chunks > 1:  # each cell's chunks merged in a fixed order: the same bits every run\n        _"
            yield str((undefined(name='P') if l_0_P is missing else l_0_P))
            yield '_merge(target, orow, out, stat)\n'
        else:
            pass
            yield "    if n_chunks > 1:  # each cell's chunks summed in a fixed order: the same bits every run\n        torch.sum(target, dim=1, out=out.view(-1))\n"
        yield '\n\n'
    yield '_'
    yield str((undefined(name='P') if l_0_P is missing else l_0_P))
    yield '_KEPT_FORWARD = kept.Table()  # _'
    yield str((undefined(name='P') if l_0_P is missing else l_0_P))
    yield "_forward's calls by signature (hsr.kept)\n\n\ndef _"
    yield str((undefined(name='P') if l_0_P is missing else l_0_P))
    yield '_forward(t, sizes, need_idx, launch=True, ties=False):\n    """_'
    yield str((undefined(name='P') if l_0_P is missing else l_0_P))
    yield '_forward_as_written, replayed where its signature was seen before\n    (not for a custom op\'s fake, which only allocates)."""\n    if not launch or torch.compiler.is_compiling():\n        return _'
    yield str((undefined(name='P') if l_0_P is missing else l_0_P))
    yield '_forward_as_written(t, sizes, need_idx, launch, ties)\n    inputs = tuple(t[name] for name in NAMES)\n    return kept.call(_'
    yield str((undefined(name='P') if l_0_P is missing else l_0_P))
    yield '_KEPT_FORWARD, kept.signature(inputs, need_idx, ties'
    yield str((', *sizes.values()' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'packing') else cond_expr_undefined("the inline if-expression on line 161 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
    yield '), inputs,\n                     _'
    yield str((undefined(name='P') if l_0_P is missing else l_0_P))
    yield '_forward_as_written, t, sizes, need_idx, True, ties)\n\n\ndef _'
    yield str((undefined(name='P') if l_0_P is missing else l_0_P))
    yield '_forward_as_written(t, sizes, need_idx, launch=True, ties=False):\n    """Launch the forward; returns (out, saved for the backward). launch=False\n    only allocates them (the fake implementation of the custom op). ties: the\n    index is reported, so where the epilogue is flat at a selection the lowest\n    index of its value is searched (the gradient there is 0 whichever it is)."""\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'index_out'):
        pass
        yield '    need_idx = True  # the output is the index\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'packing'):
        pass
        yield '    t = _declared(t)  # packed inputs as passed: their strides over the declared axes go to the kernels\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows'):
        pass
        yield '    t = runtime.stand_ins(t, sizes, ROWS)  # '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield ' is computed in the kernels: a stand-in of its shape and dtype\n'
    yield '    '
    yield str((undefined(name='A') if l_0_A is missing else l_0_A))
    yield '_, '
    yield str((undefined(name='B') if l_0_B is missing else l_0_B))
    yield '_ = t["'
    yield str((undefined(name='A') if l_0_A is missing else l_0_A))
    yield '"], t["'
    yield str((undefined(name='B') if l_0_B is missing else l_0_B))
    yield '"]\n    device = '
    yield str((undefined(name='A') if l_0_A is missing else l_0_A))
    yield '_.device\n'
    if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'quantized') == 'fp8'):
        pass
        yield '    runtime.require_fp8(device)\n'
    yield '    n_cells = '
    yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cells_py'))
    yield '\n'
    if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ragged_r') and (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') == 'none')):
        pass
        yield "    # (zeros: the rows past a sequence's end are not visited, and the op's outputs are defined everywhere)\n    out = torch.zeros(("
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'shape_args'))
        yield '), dtype='
        yield str(('torch.int64' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'index_out') else 'torch.float32'))
        yield ', device=device)\n'
    else:
        pass
        yield '    out = torch.empty(('
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'shape_args'))
        yield '), dtype='
        yield str(('torch.int64' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'index_out') else 'torch.float32'))
        yield ', device=device)\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ragged_r'):
        pass
        yield '    # the rows past a sequence\'s end are not visited: -2 (left out) there\n    idx = torch.full((n_cells, sizes["'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '"]), -2, dtype=runtime.index_dtype(sizes["'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '"]), device=device) if need_idx else None\n'
    else:
        pass
        yield '    idx = torch.empty((n_cells, sizes["'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '"]), dtype=runtime.index_dtype(sizes["'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '"]), device=device) if need_idx else None\n'
    if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') == 'mean'):
        pass
        yield '    stat = torch.empty((n_cells,), dtype=torch.float32, device=device) if need_idx else None\n'
    elif (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') in ('max', 'min')):
        pass
        yield '    stat = torch.empty((n_cells,), dtype=torch.int32, device=device) if need_idx else None\n'
    else:
        pass
        yield '    stat = None\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'need_x'):
        pass
        yield '    xsel = torch.'
        yield str(('zeros' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ragged_r') else 'empty'))
        yield '((n_cells, sizes["'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '"]), dtype=torch.float32, device=device) if need_idx else None\n'
    else:
        pass
        yield '    xsel = None\n'
    yield '    aux = _'
    yield str((undefined(name='P') if l_0_P is missing else l_0_P))
    yield '_aux(t, need_idx, launch)\n    saved = (idx, stat, xsel, aux)\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'packing'):
        pass
        yield "    owed = ragged.owed(PACKING, t, sizes) if launch else []  # the offsets' device check, left to this forward\n"
    yield '    if out.numel() == 0 or not launch:\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'packing'):
        pass
        yield '        if owed:\n            ragged.check_on_device(OUTPUT, owed)\n'
    yield '        return out, saved\n'
    for l_1_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'sides'):
        _loop_vars = {}
        pass
        yield '    '
        yield str(environment.getattr(l_1_s, 'name'))
        yield '_arg_ = t["'
        yield str(environment.getattr(l_1_s, 'name'))
        yield '"] if t["'
        yield str(environment.getattr(l_1_s, 'name'))
        yield '"] is not None else out\n'
    l_1_s = missing
    for l_1_c in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cond_tensor_info'):
        _loop_vars = {}
        pass
        yield '    '
        yield str(environment.getattr(l_1_c, 'name'))
        yield '_ = t["'
        yield str(environment.getattr(l_1_c, 'name'))
        yield '"]\n'
        if (environment.getattr(l_1_c, 'kind') == 'bool'):
            pass
            yield '    '
            yield str(environment.getattr(l_1_c, 'name'))
            yield '_arg_ = '
            yield str(environment.getattr(l_1_c, 'name'))
            yield '_.view(torch.uint8) if '
            yield str(environment.getattr(l_1_c, 'name'))
            yield '_ is not None else out\n'
        else:
            pass
            yield '    '
            yield str(environment.getattr(l_1_c, 'name'))
            yield '_arg_ = '
            yield str(environment.getattr(l_1_c, 'name'))
            yield '_ if '
            yield str(environment.getattr(l_1_c, 'name'))
            yield '_ is not None else out\n'
    l_1_c = missing
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'):
        pass
        yield '    blocks = None\n    if '
        yield str(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'runs'))
        yield str((' and not ties' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ties') else cond_expr_undefined("the inline if-expression on line 233 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
        yield ':\n        blocks = dispatch.lean_blocks('
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_, '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_, sizes["'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '"], sizes["'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '"], '
        yield str(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'a_cells'))
        yield ', '
        yield str(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'shared'))
        yield str((', l2=True' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2') else cond_expr_undefined("the inline if-expression on line 234 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
        yield ')\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'packing'):
        pass
        yield '    # the owed check folded into the lean kernel, or launched first (dispatch.offsets_check_fold)\n    fold = dispatch.offsets_check_fold(bool(owed), '
        yield str(('blocks is not None' if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean') and environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'fold')) else 'False'))
        yield ', n_cells * sizes["'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '"], device)\n    if owed and not fold:\n        ragged.check_on_device(OUTPUT, owed)\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'):
        pass
        yield '    if blocks is not None:\n'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2'):
            pass
            yield '        if idx is None:  # the expansion ranks the pairs; the selected one\'s value needs its index\n            idx_ = torch.empty((n_cells, sizes["'
            yield str((undefined(name='R') if l_0_R is missing else l_0_R))
            yield '"]), dtype=torch.int32, device=device)\n            stat_ = '
            yield str(('torch.empty((n_cells,), dtype=torch.int32, device=device)' if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') in ('max', 'min')) else 'None'))
            yield '\n            xsel_ = '
            yield str(('torch.empty_like(idx_, dtype=torch.float32)' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'need_x') else 'None'))
            yield '\n            _'
            yield str((undefined(name='P') if l_0_P is missing else l_0_P))
            yield '_forward_lean(t, sizes, out, idx_, stat_, xsel_, blocks'
            for l_1_m in environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'masks'):
                _loop_vars = {}
                pass
                yield ', '
                yield str(l_1_m)
                yield '_'
            l_1_m = missing
            yield str((', fold' if environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'fold') else cond_expr_undefined("the inline if-expression on line 249 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
            yield ')\n            return out, saved\n'
        yield '        _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_forward_lean(t, sizes, out, idx, stat, xsel, blocks'
        for l_1_m in environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'masks'):
            _loop_vars = {}
            pass
            yield ', '
            yield str(l_1_m)
            yield '_'
        l_1_m = missing
        yield str((', fold' if environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'lean'), 'fold') else cond_expr_undefined("the inline if-expression on line 252 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
        yield ')\n'
        if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') == 'mean'):
            pass
            yield '        if stat is not None:  # every row kept: the count of each cell\n            stat.fill_(sizes["'
            yield str((undefined(name='R') if l_0_R is missing else l_0_R))
            yield '"])\n'
        yield '        return out, saved\n'
    yield '    precision = dispatch.precision('
    yield str((undefined(name='A') if l_0_A is missing else l_0_A))
    yield '_.dtype, '
    yield str((environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2') or environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ranked_dot')))
    yield ', device)\n'
    if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2') and environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'key_is_prim')):
        pass
        yield '    # fp32 rows ranked as fp16 halves of scaled rows on the tensor cores (0: as precision says)\n    halves = dispatch.halves(precision, True, sizes["'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '"], sizes["'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '"] * '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'n_other_b_py'))
        yield ')\n'
    else:
        pass
        yield '    halves = 0\n'
    yield '    dot_mode, block_k, small_d = dispatch.contraction(sizes["'
    yield str((undefined(name='K') if l_0_K is missing else l_0_K))
    yield '"]'
    yield str((', quantized=True' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'quantized') else cond_expr_undefined("the inline if-expression on line 266 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
    yield str((str_join((', computed=True, pair="', environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'pair'), '"', )) if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows') else cond_expr_undefined("the inline if-expression on line 266 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
    yield ',\n                                                      three_products=precision == "tf32x3" and not halves)\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ranked_dot'):
        pass
        yield "    # fp32 rows ranked on the tensor cores: the selected pair's value an IEEE dot at its index\n    exact = dispatch.exact_at_selection("
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_.dtype, precision, dot_mode)\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'split'):
        pass
        yield '    split_args = (out, out, out)\n    if dispatch.split_pass(device, sizes["'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '"], n_cells * sizes["'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '"] * sizes["'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '"]):\n        dot_mode = 3  # the nearest point on the tensor cores\n        split_args = _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_split(t, sizes)\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2'):
        pass
        template = environment.get_template('select_reduce/l2_host.py.jinja', 'select_reduce_host.py.jinja')
        gen = template.root_render_func(template.new_context(context.get_all(), True, {'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R, 'gather_parts': l_0_gather_parts, 'packed_rows_grad': l_0_packed_rows_grad, 'rows_args': l_0_rows_args, 'rows_grad_buffers': l_0_rows_grad_buffers, 'rows_grad_wrapper': l_0_rows_grad_wrapper, 'st': l_0_st}))
        try:
            for event in gen:
                yield event
        finally: gen.close()
        yield '    cn_strides = ('
        yield str(context.call((undefined(name='st') if l_0_st is missing else l_0_st), 'cn', (undefined(name='B') if l_0_B is missing else l_0_B), environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cn'), 'axes')))
        yield ',) if col_norms else ('
        yield str(('0, ' * t_2(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cn'), 'axes'))))
        yield ')\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'tma'):
        pass
        yield '    tma = None  # TMA loads with fixed blocks (dispatch.long_tma), or the autotuned pointer loads\n    if dot_mode == 1:\n        a_view, b_view = '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield str(('s' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2') else cond_expr_undefined("the inline if-expression on line 285 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
        yield '_.permute('
        yield str(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'tma'), 'a_perm'))
        yield '), '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield str(('s' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2') else cond_expr_undefined("the inline if-expression on line 285 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
        yield '_.permute('
        yield str(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'tma'), 'b_perm'))
        yield ')\n        tma = dispatch.long_tma(a_view, b_view, sizes["'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '"], sizes["'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '"])\n    descs = (None, None, None)\n    if tma is not None:  # '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield ' rows, '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield ' rows, and '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield ' rows by half tiles (the last tile, where the rest fits)\n        descs = (TensorDescriptor(a_view, list(a_view.shape), list(a_view.stride()), ['
        yield str(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'tma'), 'a_lead'))
        yield 'tma[0], block_k]),\n                 TensorDescriptor(b_view, list(b_view.shape), list(b_view.stride()), ['
        yield str(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'tma'), 'b_lead'))
        yield 'tma[1], block_k]),\n                 TensorDescriptor(b_view, list(b_view.shape), list(b_view.stride()), ['
        yield str(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'tma'), 'b_lead'))
        yield 'tma[1] // 2, block_k]))\n'
    yield '    kernel = _'
    yield str((undefined(name='P') if l_0_P is missing else l_0_P))
    yield '_kernel()\n'
    if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') == 'sum'):
        pass
        yield '    # rows per chunk where one program per (cell, chunk of '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ') runs; 0: one per cell\n    split = dispatch.split_rows(n_cells, sizes["'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '"], sizes["'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '"], autotuned=kernel is not None'
        yield str((', split_pass=dot_mode == 3' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'split') else cond_expr_undefined("the inline if-expression on line 296 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
        yield ')\n'
    elif environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'row_split'):
        pass
        yield '    # rows per chunk where one program per (cell, chunk of '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ') runs (few cells, long rows); 0: one per cell\n    split = dispatch.outer_split(n_cells, sizes["'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '"], sizes["'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '"], autotuned=kernel is not None'
        yield str((', split_pass=dot_mode == 3' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'split') else cond_expr_undefined("the inline if-expression on line 299 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
        yield ')\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'row_split'):
        pass
        yield '    n_chunks = triton.cdiv(sizes["'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '"], split) if split else 1\n    target = torch.empty((n_cells, n_chunks), dtype=torch.float32, device=device) if split else out\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_parts'):
        pass
        yield '    # few rows, a long selected axis: '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ' in parts across programs, each row\'s parts merged in order\n    parts, part_cols = dispatch.general_parts(n_cells, sizes["'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '"], sizes["'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '"], dispatch.multiprocessors(device),\n                                              tuned=kernel is not None'
        yield str((', excluded=dot_mode == 3' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'split') else cond_expr_undefined("the inline if-expression on line 308 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
        yield ')\n'
    yield '    idx_arg = idx if idx is not None else out\n    stat_arg = stat if stat is not None else out\n    xsel_arg = xsel if xsel is not None else out\n'
    if ((environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2') or environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ranked_dot')) or environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_parts')):
        pass
        yield "    # the selected pair's index where the output has none: "
        yield str(t_1(context.eval_ctx, ((["the key ranks the pairs; the selected pair's value needs it"] if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2') or environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ranked_dot')) else []) + (['a part that selected nothing is known by it'] if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_parts') else [])), '; '))
        yield '\n    need_sel = need_idx'
        yield str((' or dot_mode < 2' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2') else cond_expr_undefined("the inline if-expression on line 315 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
        yield str((' or exact' if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ranked_dot') and (not environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2'))) else cond_expr_undefined("the inline if-expression on line 315 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
        yield str((' or parts > 1' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_parts') else cond_expr_undefined("the inline if-expression on line 315 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
        yield '\n    if need_sel and idx is None:\n        idx_arg = torch.empty((n_cells, sizes["'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '"]), dtype=runtime.index_dtype(sizes["'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '"]), device=device)\n'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'need_x'):
            pass
            yield '        xsel_arg = torch.empty((n_cells, sizes["'
            yield str((undefined(name='R') if l_0_R is missing else l_0_R))
            yield '"]), dtype=torch.float32, device=device)\n'
        if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') in ('mean', 'max', 'min')):
            pass
            yield '        stat_arg = torch.empty((n_cells,), dtype='
            yield str(('torch.float32' if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') == 'mean') else 'torch.int32'))
            yield ', device=device)\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_parts'):
        pass
        yield '    out_arg, idx_arg, stat_arg, xsel_arg, merged = _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_part_buffers(parts, out, idx_arg, stat_arg, xsel_arg)\n'
    if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'row_split') and (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') == 'mean')):
        pass
        yield "    if split:  # each chunk's count of kept rows, added on the host\n        stat_arg = torch.empty((n_cells, n_chunks), dtype=torch.float32, device=device)\n"
    elif (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'row_split') and (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') != 'sum')):
        pass
        yield "    if split:  # each chunk's best row, merged by the "
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_merge kernel\n        stat_arg = torch.empty((n_cells, n_chunks), dtype=torch.int32, device=device)\n'
    yield '    args = (\n        '
    yield str((undefined(name='A') if l_0_A is missing else l_0_A))
    yield '_, '
    yield str((undefined(name='B') if l_0_B is missing else l_0_B))
    yield '_,'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2'):
        pass
        yield ' '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield 's_, '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield 's_, '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield 'lo_, '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield 'lo_, a_inv, b_inv, cn, out if shift is None else shift,'
    yield ' *aux,'
    for l_1_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'sides'):
        _loop_vars = {}
        pass
        yield ' '
        yield str(environment.getattr(l_1_s, 'name'))
        yield '_arg_,'
    l_1_s = missing
    for l_1_c in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cond_tensor_info'):
        _loop_vars = {}
        pass
        yield ' '
        yield str(environment.getattr(l_1_c, 'name'))
        yield '_arg_,'
    l_1_c = missing
    def t_8(fiter):
        for l_1_o in fiter:
            if (l_1_o not in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cond_tensors')):
                yield l_1_o
    for l_1_o in t_8(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'offsets')):
        _loop_vars = {}
        pass
        yield ' t["'
        yield str(l_1_o)
        yield '"],'
    l_1_o = missing
    yield '\n        '
    yield str(('target' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'row_split') else ('out_arg' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_parts') else 'out')))
    yield ', idx_arg, stat_arg, xsel_arg,'
    yield str((' part_cols,' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_parts') else cond_expr_undefined("the inline if-expression on line 338 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
    yield str((' *split_args,' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'split') else cond_expr_undefined("the inline if-expression on line 338 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
    yield str((' *descs,' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'tma') else cond_expr_undefined("the inline if-expression on line 338 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
    yield '\n        '
    yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'size_args'))
    yield ',\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'packing'):
        pass
        yield '        '
        yield str(context.call((undefined(name='st') if l_0_st is missing else l_0_st), str_join(((undefined(name='A') if l_0_A is missing else l_0_A), '_', )), (undefined(name='A') if l_0_A is missing else l_0_A), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'a_axes')))
        yield ', '
        yield str(context.call((undefined(name='st') if l_0_st is missing else l_0_st), str_join(((undefined(name='B') if l_0_B is missing else l_0_B), '_', )), (undefined(name='B') if l_0_B is missing else l_0_B), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'b_axes')))
        yield ','
        l_1_loop = missing
        for l_1_x, l_1_loop in LoopContext(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'aux'), undefined):
            _loop_vars = {}
            pass
            yield ' '
            yield str(context.call((undefined(name='st') if l_0_st is missing else l_0_st), str_join(('aux[', environment.getattr(l_1_loop, 'index0'), ']', )), environment.getattr(l_1_x, 'operand'), environment.getattr(l_1_x, 'axes'), _loop_vars=_loop_vars))
            yield ','
        l_1_loop = l_1_x = missing
        for l_1_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'sides'):
            _loop_vars = {}
            pass
            yield ' *_strides(t["'
            yield str(environment.getattr(l_1_s, 'name'))
            yield '"], '
            yield str(t_2(environment.getattr(l_1_s, 'axes')))
            yield ', "'
            yield str(environment.getattr(l_1_s, 'name'))
            yield '"),'
        l_1_s = missing
        for l_1_c in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cond_tensor_info'):
            _loop_vars = {}
            pass
            yield ' *_strides('
            yield str(environment.getattr(l_1_c, 'name'))
            yield '_, '
            yield str(environment.getattr(l_1_c, 'rank'))
            yield ', "'
            yield str(environment.getattr(l_1_c, 'name'))
            yield '"),'
        l_1_c = missing
        yield '\n'
    else:
        pass
        yield '        *'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_.stride(), *'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_.stride(), *(s for x in aux for s in x.stride()),'
        for l_1_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'sides'):
            _loop_vars = {}
            pass
            yield ' *_strides(t["'
            yield str(environment.getattr(l_1_s, 'name'))
            yield '"], '
            yield str(t_2(environment.getattr(l_1_s, 'axes')))
            yield '),'
        l_1_s = missing
        for l_1_c in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cond_tensor_info'):
            _loop_vars = {}
            pass
            yield ' *_strides('
            yield str(environment.getattr(l_1_c, 'name'))
            yield '_, '
            yield str(environment.getattr(l_1_c, 'rank'))
            yield '),'
        l_1_c = missing
        yield '\n'
    yield '        '
    yield str(('*cn_strides, a_row_stride, ' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2') else cond_expr_undefined("the inline if-expression on line 347 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
    yield '*out.stride(),\n        runtime.length_bucket(sizes["'
    yield str((undefined(name='R') if l_0_R is missing else l_0_R))
    yield '"]), runtime.length_bucket(sizes["'
    yield str((undefined(name='C') if l_0_C is missing else l_0_C))
    yield '"]),'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'):
        pass
        yield ' runtime.length_bucket(sizes["'
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'))
        yield '"]),'
    yield '\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows'):
        pass
        yield '        '
        yield str(context.call((undefined(name='rows_args') if l_0_rows_args is missing else l_0_rows_args)))
        yield '\n'
    yield '    )\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'persist'):
        pass
        yield '    # programs that keep a block of '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'))
        yield ' and walk a run of the other cells (dispatch.persistent)\n    sms = dispatch.multiprocessors(device)\n    persist = dispatch.persistent(sizes["'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '"], n_cells, sms, '
        yield str(('split' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'row_split') else '0'))
        yield str((', tma is not None' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'tma') else cond_expr_undefined("the inline if-expression on line 357 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
        yield ')\n'
    yield '    flags = dict(\n'
    for l_1_name in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'optional'):
        _loop_vars = {}
        pass
        yield '        HAS_'
        yield str(l_1_name)
        yield '=t["'
        yield str(l_1_name)
        yield '"] is not None,\n'
    l_1_name = missing
    yield '        BLOCK_'
    yield str(t_5((undefined(name='K') if l_0_K is missing else l_0_K)))
    yield '=block_k, NEED_IDX='
    yield str(('need_sel' if ((environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2') or environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ranked_dot')) or environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_parts')) else 'need_idx'))
    yield ', DOT_MODE=dot_mode, SMALL_D=small_d,\n        ROW_SLOT=dispatch.row_slot(dot_mode, '
    yield str(('need_sel' if ((environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2') or environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ranked_dot')) or environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_parts')) else 'need_idx'))
    yield ', '
    yield str((('sizes["%s"] * sizes["%s"]' % (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'), (undefined(name='R') if l_0_R is missing else l_0_R))) if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G') else 0))
    yield ', sizes["'
    yield str((undefined(name='C') if l_0_C is missing else l_0_C))
    yield '"], l2='
    yield str(('True' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2') else 'False'))
    yield '),\n\n        ONE_LOOP=dispatch.one_loop(sizes["'
    yield str((undefined(name='C') if l_0_C is missing else l_0_C))
    yield '"]),'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'):
        pass
        yield ' G_FIRST=dispatch.stacked_first('
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_.numel() * '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_.element_size()),'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'persist'):
        pass
        yield ' PERSIST=persist,'
    yield '\n        PRECISION=precision,'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2'):
        pass
        yield ' COL_NORMS=col_norms, HALVES=halves, SHIFT_A=shift_a,'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ranked_dot'):
        pass
        yield ' EXACT_SEL='
        yield str(('False' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'index_out') else 'exact'))
        yield ','
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ties'):
        pass
        yield ' TIES='
        yield str(('True' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'index_out') else 'ties'))
        yield ','
    yield '\n        DOT_FP32=runtime.interpreting() and '
    yield str((undefined(name='A') if l_0_A is missing else l_0_A))
    yield '_.dtype == torch.bfloat16,'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'row_split'):
        pass
        yield ' SPLIT_'
        yield str(t_5((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield '=split,'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_parts'):
        pass
        yield ' COL_PARTS=parts > 1,'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'tma'):
        pass
        yield ' TMA=tma is not None,'
    if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows') and (not environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows'), 'projects'))):
        pass
        yield ' SWAP=dispatch.GENERAL_SWAP_FORMED,'
    yield '\n'
    if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'pair') == 'cos'):
        pass
        yield '        # (with no index: registers capped so that two programs share a multiprocessor)\n        **dispatch.register_cap("'
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'pair'))
        yield '", '
        yield str(('need_sel' if ((environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'l2') or environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ranked_dot')) or environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_parts')) else 'need_idx'))
        yield ', dispatch.where('
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_.device)),\n'
    yield '    )\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'):
        pass
        yield '    other_cells = n_cells // sizes["'
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'))
        yield '"]'
        yield str((' * n_chunks' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'row_split') else cond_expr_undefined("the inline if-expression on line 378 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
        yield '\n\n    def grid(meta):  # the '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'))
        yield ' axis goes in blocks of BLOCK_'
        yield str(t_5(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G')))
        yield '\n'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'persist'):
            pass
            yield '        if persist:\n            return (dispatch.persistent_programs(triton.cdiv(sizes["'
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'))
            yield '"], meta["BLOCK_'
            yield str(t_5(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G')))
            yield '"]), other_cells, sms),)\n'
        yield '        return (triton.cdiv(sizes["'
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'))
        yield '"], meta["BLOCK_'
        yield str(t_5(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G')))
        yield '"]) * other_cells,)\n'
    elif (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') == 'none'):
        pass
        yield '\n    def grid(meta):  # one program per cell and block of '
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield ', on a flat grid'
        yield str((str_join(('; and per part of ', (undefined(name='C') if l_0_C is missing else l_0_C), )) if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_parts') else cond_expr_undefined("the inline if-expression on line 388 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
        yield '\n        return (n_cells * triton.cdiv(sizes["'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '"], meta["BLOCK_'
        yield str(t_5((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield '"]),'
        yield str((' parts' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_parts') else cond_expr_undefined("the inline if-expression on line 389 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
        yield ')\n'
    else:
        pass
        yield '    grid = ('
        yield str(('n_cells * n_chunks' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'row_split') else 'n_cells'))
        yield ',)\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'tma'):
        pass
        yield '    if tma is not None:\n        launcher.launch('
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_fwd, grid, *args, BLOCK_'
        yield str(t_5((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield '=tma[0], BLOCK_'
        yield str(t_5((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield '=tma[1], **flags,\n                        num_warps=tma[2], num_stages=tma[3])\n    elif kernel is None:\n'
    else:
        pass
        yield '    if kernel is None:\n'
    yield '        blocks = dict(BLOCK_'
    yield str(t_5((undefined(name='R') if l_0_R is missing else l_0_R)))
    yield '=min(64, runtime.next_pow2(sizes["'
    yield str((undefined(name='R') if l_0_R is missing else l_0_R))
    yield '"])),\n                      BLOCK_'
    yield str(t_5((undefined(name='C') if l_0_C is missing else l_0_C)))
    yield '=min(64, runtime.next_pow2(sizes["'
    yield str((undefined(name='C') if l_0_C is missing else l_0_C))
    yield '"])),\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'):
        pass
        yield '                      BLOCK_'
        yield str(t_5(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G')))
        yield '=min(2, runtime.next_pow2(sizes["'
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'G'))
        yield '"], 1)),\n'
    yield '                      )\n        launcher.launch('
    yield str((undefined(name='P') if l_0_P is missing else l_0_P))
    yield '_fwd, grid, *args, **blocks, **flags)\n    else:\n        kernel[grid](*args, **flags)\n'
    if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') == 'sum'):
        pass
        yield "    if split:  # each cell's chunks summed in a fixed order: the same bits every run\n        torch.sum(target, dim=1, out=out.view(-1))\n"
    elif ((environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'outer') == 'mean') and environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'row_split')):
        pass
        yield "    if split:  # each cell's chunks added in a fixed order, then divided by its count of kept rows\n        kept_rows = stat_arg.sum(dim=1)\n        torch.div(target.sum(dim=1), kept_rows.clamp_min(1.0), out=out.view(-1))\n        out.view(-1).masked_fill_(kept_rows == 0, 0.0)\n        if stat is not None:\n            stat.copy_(kept_rows)\n"
    elif environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'row_split'):
        pass
        yield "    if split:  # each cell's chunks merged in a fixed order: the same bits every run\n        _"
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_merge(target, stat_arg, out, stat)\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_parts'):
        pass
        yield "    if merged is not None:  # each row's parts merged in a fixed order: the same bits every run\n        _"
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_part_merge(stat_arg, out_arg, idx_arg, '
        yield str(('xsel_arg' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'need_x') else 'None'))
        yield ', *merged)\n'
    yield '    return out, saved\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'has_backward'):
        pass
        yield '\n\n_'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_KEPT_BACKWARD = kept.Table()  # _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield "_backward's calls by signature (hsr.kept)\n\n\ndef _"
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_backward(t, sizes, saved, grad_out, mode, into=None'
        yield str((', rows_grad=None' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows') else cond_expr_undefined("the inline if-expression on line 435 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
        yield '):\n    """_'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_backward_as_written, replayed where its signature was seen before."""\n'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows'):
            pass
            yield str(context.call((undefined(name='rows_grad_wrapper') if l_0_rows_grad_wrapper is missing else l_0_rows_grad_wrapper)))
            yield '\n'
        else:
            pass
            yield '    if torch.compiler.is_compiling():\n        return _'
            yield str((undefined(name='P') if l_0_P is missing else l_0_P))
            yield '_backward_as_written(t, sizes, saved, grad_out, mode, into)\n    inputs = (*(t[name] for name in NAMES), *saved[:3], *saved[3], grad_out, *(into or ()))\n    return kept.call(_'
            yield str((undefined(name='P') if l_0_P is missing else l_0_P))
            yield '_KEPT_BACKWARD, kept.signature(inputs, mode, len(saved[3]), into is None'
            yield str((', *sizes.values()' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'packing') else cond_expr_undefined("the inline if-expression on line 443 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
            yield '), inputs,\n                     _'
            yield str((undefined(name='P') if l_0_P is missing else l_0_P))
            yield '_backward_as_written, t, sizes, saved, grad_out, mode, into)\n'
        yield '\n\ndef _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_backward_as_written(t, sizes, saved, grad_out, mode, into=None'
        yield str((', rows_grad=False' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows') else cond_expr_undefined("the inline if-expression on line 448 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
        yield '):\n    """Gradients {name: tensor} of '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'differentiable'))
        yield ', in their input dtypes.\n    mode "atomic": one pass, fp32 atomics into grad_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '; "deterministic":\n    grad_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield ' owned by its rows. into: fp32 buffers (grad_'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield ', grad_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '), atomic\n    only, that the gradients are added to (and returned as they are).'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows'):
            pass
            yield ' rows_grad: the\n    gradients of a computed '
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield "'s inputs too (hsr.row_grads)."
        yield '"""\n    idx, stat, xsel, aux = saved\n'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'packing'):
            pass
            yield '    t = _declared(t)  # packed inputs as passed: their strides over the declared axes go to the kernels\n'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows'):
            pass
            yield '    t = runtime.stand_ins(t, sizes, ROWS)  # '
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield ' is computed in the kernels: a stand-in of its shape and dtype\n'
        yield '    '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_, '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_ = t["'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '"], t["'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '"]\n    if mode == "auto":\n        mode = '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_auto_backward(sizes)\n    atomic = mode == "atomic"\n'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows'):
            pass
            yield '    # '
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield " is computed: its rows' gradient is scattered (fp32 atomics) where its inputs want one, else\n    # nothing scatters (the gather is deterministic)\n    atomic = True\n"
        yield '    gathers = idx is not None and idx.numel() > 0  # then the gather pass writes all of grad_'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '\n'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'packing'):
            pass
            yield '    # the gradients as the inputs were passed (packed), written through views over the declared axes\n    grad_'
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield 'p_ = grad_'
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield '_ = (torch.empty if gathers else torch.zeros)('
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield '_.shape, dtype='
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield '_.dtype, device='
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield '_.device)\n'
            if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows'):
                pass
                yield '    grad_'
                yield str((undefined(name='B') if l_0_B is missing else l_0_B))
                yield 'p_ = grad_'
                yield str((undefined(name='B') if l_0_B is missing else l_0_B))
                yield '_ = torch.zeros((1,), dtype=torch.float32, device='
                yield str((undefined(name='B') if l_0_B is missing else l_0_B))
                yield '_.device).expand('
                yield str((undefined(name='B') if l_0_B is missing else l_0_B))
                yield '_.shape)\n'
            else:
                pass
                yield '    grad_'
                yield str((undefined(name='B') if l_0_B is missing else l_0_B))
                yield 'p_ = grad_'
                yield str((undefined(name='B') if l_0_B is missing else l_0_B))
                yield '_ = zeros.zeros('
                yield str((undefined(name='B') if l_0_B is missing else l_0_B))
                yield '_.shape, torch.float32 if atomic else '
                yield str((undefined(name='B') if l_0_B is missing else l_0_B))
                yield '_.dtype, '
                yield str((undefined(name='B') if l_0_B is missing else l_0_B))
                yield '_.device)\n'
            if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows'):
                pass
                yield str(context.call((undefined(name='packed_rows_grad') if l_0_packed_rows_grad is missing else l_0_packed_rows_grad)))
                yield '\n'
        else:
            pass
            yield '    if into is not None:\n        grad_'
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield '_, grad_'
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield '_ = into\n    else:\n        grad_'
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield '_ = (torch.empty if gathers else torch.zeros)('
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield '_.shape, dtype='
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield '_.dtype, device='
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield '_.device)\n'
            if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows'):
                pass
                yield str(context.call((undefined(name='rows_grad_buffers') if l_0_rows_grad_buffers is missing else l_0_rows_grad_buffers)))
                yield '\n'
            else:
                pass
                yield '        grad_'
                yield str((undefined(name='B') if l_0_B is missing else l_0_B))
                yield '_ = zeros.zeros('
                yield str((undefined(name='B') if l_0_B is missing else l_0_B))
                yield '_.shape, torch.float32 if atomic else '
                yield str((undefined(name='B') if l_0_B is missing else l_0_B))
                yield '_.dtype, '
                yield str((undefined(name='B') if l_0_B is missing else l_0_B))
                yield '_.device)  # (a store kernel where large)\n'
        for l_1_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'sides'):
            _loop_vars = {}
            pass
            yield '    grad_'
            yield str(environment.getattr(l_1_s, 'name'))
            yield '_ = torch.zeros(('
            yield str(environment.getattr(l_1_s, 'cells_py'))
            yield ', sizes["'
            yield str(environment.getattr(l_1_s, 'axis'))
            yield '"]), dtype=torch.float32, device='
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield '_.device)\n'
        l_1_s = missing
        yield "    if gathers:\n        grad = grad_out.to(torch.float32)  # read through its strides: a broadcast one (a sum's) is not copied\n        stat = stat if stat is not None else grad\n        xsel = xsel if xsel is not None else grad\n        side_args = ("
        for l_1_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'sides'):
            _loop_vars = {}
            pass
            yield 't["'
            yield str(environment.getattr(l_1_s, 'name'))
            yield '"] if t["'
            yield str(environment.getattr(l_1_s, 'name'))
            yield '"] is not None else grad, '
        l_1_s = missing
        yield ')\n        side_strides = ('
        for l_1_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'sides'):
            _loop_vars = {}
            pass
            yield '*_strides(t["'
            yield str(environment.getattr(l_1_s, 'name'))
            yield '"], '
            yield str(t_2(environment.getattr(l_1_s, 'axes')))
            yield str((str_join((', "', environment.getattr(l_1_s, 'name'), '"', )) if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'packing') else cond_expr_undefined("the inline if-expression on line 501 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
            yield '), '
        l_1_s = missing
        yield ')\n        has = dict('
        def t_9(fiter):
            for l_1_s in fiter:
                if environment.getattr(l_1_s, 'optional'):
                    yield l_1_s
        for l_1_s in t_9(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'sides')):
            _loop_vars = {}
            pass
            yield 'HAS_'
            yield str(environment.getattr(l_1_s, 'name'))
            yield '=t["'
            yield str(environment.getattr(l_1_s, 'name'))
            yield '"] is not None, '
        l_1_s = missing
        yield ')\n'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'packing'):
            pass
            yield '        aux_strides = ('
            l_1_loop = missing
            for l_1_x, l_1_loop in LoopContext(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'aux'), undefined):
                _loop_vars = {}
                pass
                yield str(context.call((undefined(name='st') if l_0_st is missing else l_0_st), str_join(('aux[', environment.getattr(l_1_loop, 'index0'), ']', )), environment.getattr(l_1_x, 'operand'), environment.getattr(l_1_x, 'axes'), _loop_vars=_loop_vars))
                yield ', '
            l_1_loop = l_1_x = missing
            yield ')\n'
        else:
            pass
            yield '        aux_strides = tuple(s for x in aux for s in x.stride())\n'
        yield '        block_r = dispatch.gather_rows(sizes["'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '"], sizes["'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '"])'
        yield str((str_join(('\n        block_r = max(block_r, 16)  # ', (undefined(name='B') if l_0_B is missing else l_0_B), "'s rows are a projection: tl.dot takes 16 rows at least", )) if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows') and environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows'), 'projects')) else cond_expr_undefined("the inline if-expression on line 508 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
        yield '\n'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows'):
            pass
            yield '        block_k = runtime.next_pow2(sizes["'
            yield str((undefined(name='K') if l_0_K is missing else l_0_K))
            yield '"])  # a computed row in one chunk: its norm needs it whole\n'
        else:
            pass
            yield '        block_k = min(128, runtime.next_pow2(sizes["'
            yield str((undefined(name='K') if l_0_K is missing else l_0_K))
            yield '"]))\n'
        yield str(context.call((undefined(name='gather_parts') if l_0_gather_parts is missing else l_0_gather_parts)))
        yield '\n        launcher.launch('
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_bwd, ('
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'a_cells_py'))
        yield ', triton.cdiv(sizes["'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '"], block_r), parts),\n            '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_, '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_,'
        for l_1_o in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'offsets'):
            _loop_vars = {}
            pass
            yield ' t["'
            yield str(l_1_o)
            yield '"],'
        l_1_o = missing
        yield ' *aux, *side_args, grad, idx, stat, xsel, partials, '
        yield str(('at_selections' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows') else str_join(('grad_', (undefined(name='B') if l_0_B is missing else l_0_B), '_', ))))
        yield ','
        for l_1_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'sides'):
            _loop_vars = {}
            pass
            yield ' grad_'
            yield str(environment.getattr(l_1_s, 'name'))
            yield '_,'
        l_1_s = missing
        yield '\n            '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'size_args'))
        yield ',\n            '
        yield str(context.call((undefined(name='st') if l_0_st is missing else l_0_st), str_join(((undefined(name='A') if l_0_A is missing else l_0_A), '_', )), (undefined(name='A') if l_0_A is missing else l_0_A), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'a_axes')))
        yield ', '
        yield str(context.call((undefined(name='st') if l_0_st is missing else l_0_st), str_join(((undefined(name='B') if l_0_B is missing else l_0_B), '_', )), (undefined(name='B') if l_0_B is missing else l_0_B), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'b_axes')))
        yield ', *aux_strides, *side_strides,\n            '
        yield str(context.call((undefined(name='st') if l_0_st is missing else l_0_st), str_join(('grad_', (undefined(name='A') if l_0_A is missing else l_0_A), '_', )), (undefined(name='A') if l_0_A is missing else l_0_A), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'a_axes')))
        yield ', '
        yield str(context.call((undefined(name='st') if l_0_st is missing else l_0_st), str_join(('grad_', (undefined(name='B') if l_0_B is missing else l_0_B), '_', )), (undefined(name='B') if l_0_B is missing else l_0_B), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'b_axes')))
        yield ', *grad.stride(),'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows'):
            pass
            yield '            '
            yield str(context.call((undefined(name='rows_args') if l_0_rows_args is missing else l_0_rows_args)))
            yield str(('sel_rows, ' if environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows'), 'flat_rows') else cond_expr_undefined("the inline if-expression on line 521 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
        yield ' other_per, grad_'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_.numel(),\n\n            **has, BLOCK_'
        yield str(t_5((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield '=block_r, BLOCK_'
        yield str(t_5((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield '=block_k, SCATTER=atomic'
        yield str((' and rows_grad' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows') else cond_expr_undefined("the inline if-expression on line 523 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
        yield ',\n            ACCUMULATE='
        yield str(('False' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'packing') else 'into is not None'))
        yield ','
        yield str((' COMPACT=compact,' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows') else cond_expr_undefined("the inline if-expression on line 524 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
        yield ' num_warps=8,\n        )\n        if parts > 1:\n            grad_'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_.copy_(partials.sum(dim=0))  # (a fixed order: deterministic)\n        scatter = None if atomic else '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_scatter(sizes)\n        if scatter in ("inverse", "sparse"):\n            # the inverse index, a chunk of '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield ' cells at a time (its memory is the chunk\'s:\n            # runtime.inverse_chunk): each row\'s entries in order[starts[row]:starts[row + 1]];\n            # sparse: a program per sorted entry, starts[entry] the end of its row\'s run\n            sparse = scatter == "sparse"\n            per_cell = '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'n_other_b_py'))
        yield ' * sizes["'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '"]\n            n_cells, rows = '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'b_cells_py'))
        yield ', sizes["'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '"]\n            bins = 0 if sparse else runtime.counting_bins(rows)\n            chunk = max(1, runtime.inverse_chunk(bins > 0) // max(per_cell, 1))\n            block_e, block_k, warps = runtime.inverse_blocks(sizes["'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '"])\n            for c0 in range(0, n_cells if per_cell * rows > 0 else 0, chunk):\n                n_here = min(chunk, n_cells - c0)\n                n_rows = n_here * rows\n                if bins:\n                    # a counting sort: each block\'s entries counted per row, then placed\n                    count_block, count_sub = runtime.count_blocks()\n                    n_blocks = triton.cdiv(per_cell, count_block)\n                    hist = torch.empty((n_here, n_blocks, bins), dtype=torch.int32, device=idx.device)\n                    launcher.launch('
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_inverse_count, (n_here, n_blocks), idx, hist, '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'size_args'))
        yield ', c0, n_blocks,\n                                                          NB=bins, BLOCK=count_block)\n                    counts = hist[:, :, :rows]\n                    offsets = counts.cumsum(1, dtype=torch.int32)\n                    starts = torch.zeros(n_rows + 1, dtype=torch.int64, device=idx.device)\n                    torch.cumsum(offsets[:, -1, :].reshape(-1), 0, out=starts[1:])\n                    offsets.sub_(counts).add_(starts[:-1].view(n_here, 1, rows).to(torch.int32))\n                    del hist, counts\n                    order = torch.empty(n_here * per_cell, dtype=torch.int32, device=idx.device)\n                    launcher.launch('
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_inverse_place, (n_here, n_blocks), idx, offsets, order, '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'size_args'))
        yield ", c0, n_blocks,\n                                                          BLOCK=count_block, SUB=count_sub)\n                    del offsets\n                else:\n                    # a stable sort of each entry's "
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield ' row\n                    n_entries = n_here * per_cell\n                    key_dtype = torch.int32 if n_rows < 2**31 - 1 else torch.int64\n                    keys = torch.empty(n_entries, dtype=key_dtype, device=idx.device)\n                    launcher.launch('
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_inverse_keys, (triton.cdiv(n_entries, 1024),), idx, keys, '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'size_args'))
        yield ', n_entries, n_rows, c0, BLOCK=1024)\n                    keys, order = torch.sort(keys, stable=True)\n                    starts = torch.searchsorted(keys, keys if sparse else torch.arange(n_rows + 1, dtype=key_dtype,\n                                                device=idx.device), right=sparse)\n                    if not sparse:\n                        del keys\n                launcher.launch('
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_bwd_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_csr, (n_here * per_cell if sparse else n_rows,\n                                                          max(1, triton.cdiv(sizes["'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '"], block_k))),\n                    '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_, '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_,'
        for l_1_o in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'offsets'):
            _loop_vars = {}
            pass
            yield ' t["'
            yield str(l_1_o)
            yield '"],'
        l_1_o = missing
        yield ' *aux, *side_args, grad, idx, stat, xsel, order, starts, keys if sparse else starts, grad_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_,'
        for l_1_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_sides'):
            _loop_vars = {}
            pass
            yield ' grad_'
            yield str(environment.getattr(l_1_s, 'name'))
            yield '_,'
        l_1_s = missing
        yield '\n                    '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'size_args'))
        yield ', c0, n_rows,\n                    '
        yield str(context.call((undefined(name='st') if l_0_st is missing else l_0_st), str_join(((undefined(name='A') if l_0_A is missing else l_0_A), '_', )), (undefined(name='A') if l_0_A is missing else l_0_A), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'a_axes')))
        yield ', '
        yield str(context.call((undefined(name='st') if l_0_st is missing else l_0_st), str_join(((undefined(name='B') if l_0_B is missing else l_0_B), '_', )), (undefined(name='B') if l_0_B is missing else l_0_B), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'b_axes')))
        yield ', *aux_strides, *side_strides,\n                    '
        yield str(context.call((undefined(name='st') if l_0_st is missing else l_0_st), str_join(('grad_', (undefined(name='B') if l_0_B is missing else l_0_B), '_', )), (undefined(name='B') if l_0_B is missing else l_0_B), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'b_axes')))
        yield ', *grad.stride(),\n                    **has, BLOCK_'
        yield str(t_5((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield '=block_e, BLOCK_'
        yield str(t_5((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield '=block_k, SPARSE=sparse, num_warps=warps,\n                )\n                del order, starts\n        elif not atomic:\n'
        if (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'weighted') or environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'uniform')):
            pass
            yield '            block_c, block_r, block_k, warps, stages = runtime.onehot_blocks(sizes["'
            yield str((undefined(name='C') if l_0_C is missing else l_0_C))
            yield '"], sizes["'
            yield str((undefined(name='R') if l_0_R is missing else l_0_R))
            yield '"], sizes["'
            yield str((undefined(name='K') if l_0_K is missing else l_0_K))
            yield '"])\n'
        else:
            pass
            yield '            # the one-hot tile\'s inner dimension: 16 rows at least for tl.dot on a GPU\n            block_c, block_r, warps, stages = 32, min(32, runtime.next_pow2(sizes["'
            yield str((undefined(name='R') if l_0_R is missing else l_0_R))
            yield '"])), 4, 1\n'
        yield '            grid_b = ('
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'b_cells_py'))
        yield ', triton.cdiv(sizes["'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '"], block_c), max(1, triton.cdiv(sizes["'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '"], block_k)))\n            launcher.launch('
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_bwd_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield ', grid_b,\n                '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_, '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_,'
        for l_1_o in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'offsets'):
            _loop_vars = {}
            pass
            yield ' t["'
            yield str(l_1_o)
            yield '"],'
        l_1_o = missing
        yield ' *aux, *side_args, grad, idx, stat, xsel, grad_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_,'
        for l_1_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'col_sides'):
            _loop_vars = {}
            pass
            yield ' grad_'
            yield str(environment.getattr(l_1_s, 'name'))
            yield '_,'
        l_1_s = missing
        yield '\n                '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'size_args'))
        yield ',\n                '
        yield str(context.call((undefined(name='st') if l_0_st is missing else l_0_st), str_join(((undefined(name='A') if l_0_A is missing else l_0_A), '_', )), (undefined(name='A') if l_0_A is missing else l_0_A), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'a_axes')))
        yield ', '
        yield str(context.call((undefined(name='st') if l_0_st is missing else l_0_st), str_join(((undefined(name='B') if l_0_B is missing else l_0_B), '_', )), (undefined(name='B') if l_0_B is missing else l_0_B), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'b_axes')))
        yield ', *aux_strides, *side_strides,\n                '
        yield str(context.call((undefined(name='st') if l_0_st is missing else l_0_st), str_join(('grad_', (undefined(name='B') if l_0_B is missing else l_0_B), '_', )), (undefined(name='B') if l_0_B is missing else l_0_B), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'b_axes')))
        yield ', *grad.stride(),\n                **has, BLOCK_'
        yield str(t_5((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield '=block_r, BLOCK_'
        yield str(t_5((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield '=block_c, BLOCK_'
        yield str(t_5((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield '=block_k,\n                PRECISION="ieee" if '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_.dtype == torch.float32 else "tf32",\n                DOT_FP32=runtime.interpreting() and '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_.dtype == torch.bfloat16,\n                SPLIT_W='
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_.dtype == torch.bfloat16, W_PRECISION="ieee" if '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_.dtype == torch.float32 else "tf32x3",\n                num_warps=warps, num_stages=stages,\n            )\n'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'packing'):
            pass
            yield '    grads = {"'
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield '": grad_'
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield 'p_'
            if (not environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows')):
                pass
                yield ', "'
                yield str((undefined(name='B') if l_0_B is missing else l_0_B))
                yield '": grad_'
                yield str((undefined(name='B') if l_0_B is missing else l_0_B))
                yield 'p_.to('
                yield str((undefined(name='B') if l_0_B is missing else l_0_B))
                yield '_.dtype)'
            yield '}\n'
        else:
            pass
            yield '    if into is not None:\n        return {"'
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield '": grad_'
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield '_, "'
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield '": grad_'
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield '_}\n    grads = {"'
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield '": grad_'
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield '_'
            if (not environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows')):
                pass
                yield ', "'
                yield str((undefined(name='B') if l_0_B is missing else l_0_B))
                yield '": grad_'
                yield str((undefined(name='B') if l_0_B is missing else l_0_B))
                yield '_.to('
                yield str((undefined(name='B') if l_0_B is missing else l_0_B))
                yield '_.dtype)'
            yield '}\n'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows'):
            pass
            yield '    if rows_grad and gathers:  # '
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield "'s rows' gradient, for _"
            yield str((undefined(name='P') if l_0_P is missing else l_0_P))
            yield '_backward\'s hsr.row_grads\n        grads["'
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield '"] = at_selections\n'
            if environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows'), 'flat_rows'):
                pass
                yield '        if compact:  # and the row of each selection\'s\n            grads["'
                yield str((undefined(name='B') if l_0_B is missing else l_0_B))
                yield ' rows"] = sel_rows\n'
        for l_1_s in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'sides'):
            _loop_vars = {}
            pass
            yield '    if t["'
            yield str(environment.getattr(l_1_s, 'name'))
            yield '"] is not None:  # per-'
            yield str(('row' if (environment.getattr(l_1_s, 'side') == 'row') else 'column'))
            yield ' buffer -> the shape of '
            yield str(environment.getattr(l_1_s, 'name'))
            yield '\n        grads["'
            yield str(environment.getattr(l_1_s, 'name'))
            yield '"] = runtime.reduce_to(grad_'
            yield str(environment.getattr(l_1_s, 'name'))
            yield '_, '
            yield str(t_4(context.eval_ctx, ((environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'a_grid_axes') if (environment.getattr(l_1_s, 'side') == 'row') else environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'b_grid_axes')) + [environment.getattr(l_1_s, 'axis')])))
            yield ',\n                                                  '
            yield str(t_4(context.eval_ctx, t_3(context.eval_ctx, environment.getattr(l_1_s, 'axes'))))
            yield ', sizes).to(t["'
            yield str(environment.getattr(l_1_s, 'name'))
            yield '"].dtype)\n'
            if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'packing'):
                pass
                yield '        if "'
                yield str(environment.getattr(l_1_s, 'name'))
                yield '" in RAGGED:  # as it was passed: packed\n            grads["'
                yield str(environment.getattr(l_1_s, 'name'))
                yield '"] = ragged.pack(grads["'
                yield str(environment.getattr(l_1_s, 'name'))
                yield '"], AXES["'
                yield str(environment.getattr(l_1_s, 'name'))
                yield '"], RAGGED["'
                yield str(environment.getattr(l_1_s, 'name'))
                yield '"],\n                                                   t[RAGGED["'
                yield str(environment.getattr(l_1_s, 'name'))
                yield '"][2]], sizes[ragged.rows_key(RAGGED["'
                yield str(environment.getattr(l_1_s, 'name'))
                yield '"][2])])\n'
        l_1_s = missing
        yield '    return grads\n\n\ndef '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_auto_backward(sizes) -> str:\n    """The backward that "auto" picks for these sizes (see bench/NOTES.md)."""\n    return dispatch.auto_backward(n_contenders='
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'n_other_b_py'))
        yield ', outer=sizes["'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '"], selected=sizes["'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '"]'
        yield str((', ragged_selected=True' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ragged_c') else cond_expr_undefined("the inline if-expression on line 630 in 'select_reduce_host.py.jinja' evaluated to false and no else section was defined.")))
        yield ',\n                                  cells='
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'b_cells_py'))
        yield ', width=sizes["'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '"])\n\n\ndef '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_scatter(sizes) -> str:\n    """How "deterministic" owns grad_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield ' at these sizes: "inverse", "onehot" or "sparse"."""\n    return dispatch.deterministic_scatter(n_contenders='
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'n_other_b_py'))
        yield ', outer=sizes["'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '"], selected=sizes["'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '"],\n                                          cells='
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'b_cells_py'))
        yield ', width=sizes["'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '"])\n\n\nclass _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_Function(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, sizes, mode, *inputs):\n        t = dict(zip(NAMES, inputs))\n        need = any(ctx.needs_input_grad[2 + NAMES.index(n)] for n in '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'differentiable'))
        yield ')\n        out, saved = _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_forward(t, sizes, need)\n        if need:\n            idx, stat, xsel, aux = saved\n            ctx.save_for_backward(*inputs, idx, stat, xsel, *aux)\n            ctx.sizes, ctx.mode = sizes, mode\n        return out\n\n    @staticmethod\n    def backward(ctx, grad_out):\n        stored = ctx.saved_tensors\n        n = len(NAMES)\n        t = dict(zip(NAMES, stored[:n]))\n        idx, stat, xsel = stored[n:n + 3]\n        grads = _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_backward(t, ctx.sizes, (idx, stat, xsel, list(stored[n + 3:])), grad_out, ctx.mode)\n        out = [None] * n\n        for name, g in grads.items():\n            if ctx.needs_input_grad[2 + NAMES.index(name)]:\n                out[NAMES.index(name)] = g\n        return (None, None, *out)\n'
    yield '\n\ndef _'
    yield str((undefined(name='P') if l_0_P is missing else l_0_P))
    yield '_run(t, sizes, backward, grad):\n    """The term\'s output, through autograd when a gradient is wanted. Under\n    torch.compile it goes through the custom op (fake shapes, registered\n    autograd); eagerly through the autograd.Function, which costs less per call."""\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'has_backward'):
        pass
        yield '    need = grad and any(t[n] is not None and t[n].requires_grad for n in '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'differentiable'))
        yield ')\n'
    else:
        pass
        yield '    need = False\n'
    yield '    if torch.compiler.is_compiling():\n'
    if (undefined(name='packed') if l_0_packed is missing else l_0_packed):
        pass
        yield "        # each ragged axis's size (max_seqlen, or all the rows where fewer): the op binds it again\n        return "
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_op(*(t[name] for name in NAMES), need, backward, [sizes[a] for a in SEQLEN_AXES])[0]\n'
    else:
        pass
        yield '        return '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_op(*(t[name] for name in NAMES), need, backward)[0]\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'has_backward'):
        pass
        yield '    if need:\n        return _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_Function.apply(sizes, backward, *(t[name] for name in NAMES))\n'
    yield '    return _'
    yield str((undefined(name='P') if l_0_P is missing else l_0_P))
    yield '_forward(t, sizes, False)[0]\n\n\n'
    template = environment.get_template('select_reduce/library_host.py.jinja', 'select_reduce_host.py.jinja')
    gen = template.root_render_func(template.new_context(context.get_all(), True, {'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R, 'gather_parts': l_0_gather_parts, 'packed_rows_grad': l_0_packed_rows_grad, 'rows_args': l_0_rows_args, 'rows_grad_buffers': l_0_rows_grad_buffers, 'rows_grad_wrapper': l_0_rows_grad_wrapper, 'st': l_0_st}))
    try:
        for event in gen:
            yield event
    finally: gen.close()
    template = environment.get_template('select_reduce/both_ways_host.py.jinja', 'select_reduce_host.py.jinja')
    gen = template.root_render_func(template.new_context(context.get_all(), True, {'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R, 'gather_parts': l_0_gather_parts, 'packed_rows_grad': l_0_packed_rows_grad, 'rows_args': l_0_rows_args, 'rows_grad_buffers': l_0_rows_grad_buffers, 'rows_grad_wrapper': l_0_rows_grad_wrapper, 'st': l_0_st}))
    try:
        for event in gen:
            yield event
    finally: gen.close()

blocks = {}
debug_info = '4=44&5=47&6=53&7=68&10=77&12=99&14=101&15=105&16=109&17=113&18=119&19=125&22=128&23=131&29=133&36=136&42=138&43=142&44=144&45=147&47=149&49=156&51=158&53=160&55=162&61=166&62=172&63=178&64=181&65=192&68=196&69=198&70=200&74=203&76=206&77=209&78=213&79=215&87=217&88=220&90=222&92=228&94=231&96=236&99=238&106=242&107=244&109=248&113=250&116=254&118=292&119=298&123=328&124=332&126=337&127=345&129=351&130=357&132=361&134=374&136=376&137=378&138=380&140=383&142=385&144=388&152=395&155=399&156=401&159=403&161=405&162=409&165=411&170=413&173=416&176=419&177=422&179=425&180=433&181=435&184=439&185=441&187=444&189=451&191=455&193=458&195=465&197=469&199=472&204=478&205=481&209=489&211=491&215=495&220=499&221=503&223=510&224=514&225=518&226=521&228=530&231=537&233=540&234=543&236=556&238=559&242=563&244=566&246=569&247=571&248=573&249=575&252=587&253=598&255=601&259=605&260=609&262=612&266=622&268=627&270=630&272=632&274=635&276=641&278=643&279=645&280=652&282=656&285=659&286=669&288=673&289=679&290=681&291=683&293=686&294=688&295=691&296=693&297=699&298=702&299=704&301=710&302=713&305=715&306=718&307=720&308=724&313=727&314=730&315=732&317=736&318=740&319=743&321=745&322=748&325=750&326=753&328=755&331=758&332=761&336=764&338=806&339=812&340=814&341=817&344=855&347=879&348=881&350=891&351=894&354=897&355=900&357=902&360=908&361=912&363=918&364=922&366=930&368=943&370=957&372=974&374=977&377=984&378=987&380=991&381=995&383=998&385=1003&386=1007&388=1010&389=1014&391=1023&393=1025&395=1028&401=1038&402=1042&403=1046&404=1049&407=1054&410=1056&413=1059&420=1062&422=1065&424=1067&426=1070&429=1075&432=1078&435=1082&436=1086&437=1088&438=1090&441=1095&443=1097&444=1101&448=1104&449=1108&450=1110&451=1112&452=1118&453=1121&455=1124&458=1127&459=1130&461=1133&463=1141&465=1143&466=1146&470=1149&471=1151&473=1154&474=1164&475=1167&477=1178&479=1188&480=1190&484=1195&486=1199&487=1207&488=1209&490=1214&493=1222&494=1226&500=1236&501=1246&502=1257&503=1271&504=1275&508=1286&509=1292&510=1295&512=1300&514=1302&515=1304&516=1310&518=1332&519=1334&520=1338&521=1345&523=1350&524=1356&527=1360&528=1362&530=1364&534=1366&535=1370&538=1374&547=1376&556=1380&560=1384&564=1386&570=1390&571=1394&572=1396&574=1418&575=1420&576=1424&577=1426&581=1430&582=1433&585=1442&587=1445&588=1451&589=1455&591=1477&592=1479&593=1483&594=1485&595=1491&596=1493&597=1495&600=1499&601=1502&604=1519&605=1527&607=1541&608=1544&609=1548&610=1550&612=1553&615=1555&616=1559&617=1565&618=1571&619=1575&620=1578&621=1580&622=1588&628=1594&630=1596&631=1604&634=1608&635=1610&636=1612&637=1618&640=1622&644=1624&645=1626&658=1628&667=1631&671=1633&672=1636&677=1642&679=1645&681=1650&683=1652&685=1655&687=1658&690=1660&691=1666'
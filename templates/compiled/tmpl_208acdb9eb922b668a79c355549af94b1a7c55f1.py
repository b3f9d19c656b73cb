from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'select_reduce/rows_host.py.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_rows_grad_wrapper = l_0_packed_rows_grad = l_0_rows_grad_buffers = l_0_gather_parts = missing
    try:
        t_1 = environment.filters['join']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'join' found.")
    try:
        t_2 = environment.filters['map']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'map' found.")
    try:
        t_3 = environment.filters['tojson']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'tojson' found.")
    pass
    def macro():
        t_4 = []
        l_1_t = resolve('t')
        l_1_P = l_1_B = l_1_C = missing
        pass
        (l_1_P, l_1_B, l_1_C) = (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'P'), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B'), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'C'))
        t_4.extend((
            '    if rows_grad is None:  # ',
            str((undefined(name='B') if l_1_B is missing else l_1_B)),
            "'s inputs' gradients: where one of them requires grad\n        rows_grad = any(t[n] is not None and t[n].requires_grad for n in ",
            str(environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows'), 'floats')),
            ')\n    if torch.compiler.is_compiling():\n        return _',
            str((undefined(name='P') if l_1_P is missing else l_1_P)),
            '_backward_with_rows(t, sizes, saved, grad_out, mode, into, rows_grad)\n    inputs = (*(t[name] for name in NAMES), *saved[:3], *saved[3], grad_out, *(into or ()))\n    return kept.call(_',
            str((undefined(name='P') if l_1_P is missing else l_1_P)),
            '_KEPT_BACKWARD, kept.signature(inputs, mode, len(saved[3]), into is None, rows_grad',
            str((', *sizes.values()' if environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'packing') else cond_expr_undefined("the inline if-expression on line 11 in 'select_reduce/rows_host.py.jinja' evaluated to false and no else section was defined."))),
            '),\n                     inputs, _',
            str((undefined(name='P') if l_1_P is missing else l_1_P)),
            '_backward_with_rows, t, sizes, saved, grad_out, mode, into, rows_grad)\n\n\ndef _',
            str((undefined(name='P') if l_1_P is missing else l_1_P)),
            '_backward_with_rows(t, sizes, saved, grad_out, mode, into=None, rows_grad=False):\n    """_',
            str((undefined(name='P') if l_1_P is missing else l_1_P)),
            '_backward_as_written, then ',
            str((undefined(name='B') if l_1_B is missing else l_1_B)),
            '\'s rows\' gradient taken on to its inputs in torch\n    (hsr.row_grads): one call, so that a replay runs both (no Python of row_grads again)."""\n    grads = _',
            str((undefined(name='P') if l_1_P is missing else l_1_P)),
            '_backward_as_written(t, sizes, saved, grad_out, mode, into, rows_grad)\n    if rows_grad and "',
            str((undefined(name='B') if l_1_B is missing else l_1_B)),
            '" in grads:\n        idx = saved[0]\n',
        ))
        if environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows'), 'ragged'):
            pass
            t_4.extend((
                '        # packed: a gradient row a selection always, its inputs read as passed\n        grads.update(row_grads.grads(ROWS_BY_NAME["',
                str((undefined(name='B') if l_1_B is missing else l_1_B)),
                '"], t, sizes, grads.pop("',
                str((undefined(name='B') if l_1_B is missing else l_1_B)),
                '"), (idx, ',
                str(t_3(context.eval_ctx, environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'grid'))),
                ', "',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '"),\n                                     packed=(',
                str(t_1(context.eval_ctx, t_2(context, environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows'), 'ragged'), 'tojson'), ', ')),
                ', RAGGED)',
                str((', before_norm=True' if environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows'), 'normalize') else cond_expr_undefined("the inline if-expression on line 24 in 'select_reduce/rows_host.py.jinja' evaluated to false and no else section was defined."))),
                '))\n',
            ))
        else:
            pass
            t_4.extend((
                '        compact = row_grads.compact(idx.numel(), row_grads.n_rows(ROWS_BY_NAME["',
                str((undefined(name='B') if l_1_B is missing else l_1_B)),
                '"], sizes))\n',
            ))
            if environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows'), 'flat_rows'):
                pass
                t_4.extend((
                    '        rows = grads.pop("',
                    str((undefined(name='B') if l_1_B is missing else l_1_B)),
                    ' rows", None)  # each selection\'s row, as the gather backward wrote it\n',
                ))
            else:
                pass
                t_4.append(
                    '        rows = None\n',
                )
            t_4.extend((
                '        grads.update(row_grads.grads(ROWS_BY_NAME["',
                str((undefined(name='B') if l_1_B is missing else l_1_B)),
                '"], t, sizes, grads.pop("',
                str((undefined(name='B') if l_1_B is missing else l_1_B)),
                '"),\n                                     (idx, ',
                str(t_3(context.eval_ctx, environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'grid'))),
                ', "',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '", rows) if compact else None',
                str((', before_norm=True' if environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows'), 'normalize') else cond_expr_undefined("the inline if-expression on line 33 in 'select_reduce/rows_host.py.jinja' evaluated to false and no else section was defined."))),
                '))\n',
            ))
        t_4.append(
            '    return grads',
        )
        return concat(t_4)
    context.exported_vars.add('rows_grad_wrapper')
    context.vars['rows_grad_wrapper'] = l_0_rows_grad_wrapper = Macro(environment, macro, 'rows_grad_wrapper', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_5 = []
        l_1_t = resolve('t')
        l_1_B = l_1_K = missing
        pass
        (l_1_B, l_1_K) = (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B'), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'K'))
        t_5.extend((
            '    # ',
            str((undefined(name='B') if l_1_B is missing else l_1_B)),
            '\'s rows\' gradient where its inputs want one (hsr.row_grads): a row a selection\n    compact = rows_grad and idx is not None\n    at_selections = torch.empty((idx.numel(), sizes["',
            str((undefined(name='K') if l_1_K is missing else l_1_K)),
            '"]), dtype=torch.float32, device=',
            str((undefined(name='B') if l_1_B is missing else l_1_B)),
            '_.device) \\\n        if compact else grad_',
            str((undefined(name='B') if l_1_B is missing else l_1_B)),
            '_',
        ))
        return concat(t_5)
    context.exported_vars.add('packed_rows_grad')
    context.vars['packed_rows_grad'] = l_0_packed_rows_grad = Macro(environment, macro, 'packed_rows_grad', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_6 = []
        l_1_t = resolve('t')
        l_1_B = l_1_K = missing
        pass
        (l_1_B, l_1_K) = (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B'), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'K'))
        t_6.extend((
            '        # ',
            str((undefined(name='B') if l_1_B is missing else l_1_B)),
            "'s rows' gradient where its inputs want one (hsr.row_grads): a row a selection (compact), or\n        # over ",
            str((undefined(name='B') if l_1_B is missing else l_1_B)),
            '\'s rows (atomics); else a stand-in nothing writes\n        compact = rows_grad and idx is not None and row_grads.compact(idx.numel(), row_grads.n_rows(ROWS_BY_NAME["',
            str((undefined(name='B') if l_1_B is missing else l_1_B)),
            '"], sizes))\n        if rows_grad and not compact:  # the atomics\' buffer (zeros.zeros: a store kernel where large)\n            grad_',
            str((undefined(name='B') if l_1_B is missing else l_1_B)),
            '_ = zeros.zeros(',
            str((undefined(name='B') if l_1_B is missing else l_1_B)),
            '_.shape, torch.float32, ',
            str((undefined(name='B') if l_1_B is missing else l_1_B)),
            '_.device)\n        else:  # a stand-in nothing writes\n            grad_',
            str((undefined(name='B') if l_1_B is missing else l_1_B)),
            '_ = torch.empty((1,), dtype=torch.float32, device=',
            str((undefined(name='B') if l_1_B is missing else l_1_B)),
            '_.device).expand(',
            str((undefined(name='B') if l_1_B is missing else l_1_B)),
            '_.shape)\n        at_selections = torch.empty((idx.numel(), sizes["',
            str((undefined(name='K') if l_1_K is missing else l_1_K)),
            '"]), dtype=torch.float32, device=',
            str((undefined(name='B') if l_1_B is missing else l_1_B)),
            '_.device) \\\n            if compact else grad_',
            str((undefined(name='B') if l_1_B is missing else l_1_B)),
            '_\n',
        ))
        if environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows'), 'flat_rows'):
            pass
            t_6.extend((
                "        # each selection's row of ",
                str((undefined(name='B') if l_1_B is missing else l_1_B)),
                ', written beside its gradient row (else a stand-in nothing writes)\n        sel_rows = torch.empty(idx.numel(), dtype=torch.int64, device=',
                str((undefined(name='B') if l_1_B is missing else l_1_B)),
                '_.device) if compact else idx',
            ))
        return concat(t_6)
    context.exported_vars.add('rows_grad_buffers')
    context.vars['rows_grad_buffers'] = l_0_rows_grad_buffers = Macro(environment, macro, 'rows_grad_buffers', (), False, False, False, context.eval_ctx.autoescape)
    def macro():
        t_7 = []
        l_1_t = resolve('t')
        l_1_A = l_1_B = l_1_R = missing
        pass
        (l_1_A, l_1_B, l_1_R) = (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'A'), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'B'), environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'R'))
        t_7.extend((
            '        # the other cells in parts across programs where ',
            str((undefined(name='B') if l_1_B is missing else l_1_B)),
            "'s rows are formed again at each selection (a\n        # projection) or where the atomic pass's programs are too few to fill the GPU and walk long\n        # (dispatch.gather_parts), each part writing its partial of grad_",
            str((undefined(name='A') if l_1_A is missing else l_1_A)),
            ' (fp32), added in a fixed order\n        # after; one part: grad_',
            str((undefined(name='A') if l_1_A is missing else l_1_A)),
            ' itself\n        n_other = ',
            str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'n_other_py')),
            '\n',
        ))
        if (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'row_grads') and (not (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows') and environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows'), 'projects')))):
            pass
            t_7.append(
                "        parts = 1  # (the per-row terms' gradients: each row's one program sums them over the other cells)\n",
            )
        else:
            pass
            t_7.extend((
                '        parts = 1 if into is not None else dispatch.gather_parts(\n            ',
                str(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'a_cells_py')),
                ' * triton.cdiv(sizes["',
                str((undefined(name='R') if l_1_R is missing else l_1_R)),
                '"], block_r), n_other,\n            formed=',
                str(('True' if (environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows') and environment.getattr(environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows'), 'projects')) else 'False')),
                ', sms=dispatch.multiprocessors(',
                str((undefined(name='A') if l_1_A is missing else l_1_A)),
                '_.device),\n            scatter=atomic',
                str((' and rows_grad' if environment.getattr((undefined(name='t') if l_1_t is missing else l_1_t), 'rows') else cond_expr_undefined("the inline if-expression on line 73 in 'select_reduce/rows_host.py.jinja' evaluated to false and no else section was defined."))),
                ')\n',
            ))
        t_7.extend((
            '        other_per = max(1, triton.cdiv(n_other, parts))\n        parts = max(1, triton.cdiv(n_other, other_per))\n        partials = torch.empty((parts, *grad_',
            str((undefined(name='A') if l_1_A is missing else l_1_A)),
            '_.shape), dtype=torch.float32, device=grad_',
            str((undefined(name='A') if l_1_A is missing else l_1_A)),
            '_.device) \\\n            if parts > 1 else grad_',
            str((undefined(name='A') if l_1_A is missing else l_1_A)),
            '_',
        ))
        return concat(t_7)
    context.exported_vars.add('gather_parts')
    context.vars['gather_parts'] = l_0_gather_parts = Macro(environment, macro, 'gather_parts', (), False, False, False, context.eval_ctx.autoescape)

blocks = {}
debug_info = '4=30&5=35&6=38&7=40&9=42&11=44&12=48&15=50&16=52&18=56&19=58&21=61&23=65&24=73&26=82&27=85&28=89&32=99&33=103&37=116&38=121&39=124&41=126&42=130&44=136&45=141&46=144&47=146&48=148&50=150&52=156&53=162&54=166&55=169&56=173&57=175&60=181&61=186&62=189&64=191&65=193&66=195&67=198&71=207&72=211&73=215&77=220&78=224'
from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'select_reduce/library_host.py.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_t = resolve('t')
    l_0_op_params = resolve('op_params')
    l_0_packed = resolve('packed')
    l_0_op_names = resolve('op_names')
    l_0_R = l_0_C = l_0_K = l_0_A = l_0_B = l_0_P = missing
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
    pass
    (l_0_R, l_0_C, l_0_K, l_0_A, l_0_B, l_0_P) = (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'R'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'C'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'K'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'A'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'B'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'P'))
    context.vars.update({'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R})
    context.exported_vars.update(('A', 'B', 'C', 'K', 'P', 'R'))
    yield '# torch.library: the same forward'
    yield str((' and backward' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'has_backward') else cond_expr_undefined("the inline if-expression on line 4 in 'select_reduce/library_host.py.jinja' evaluated to false and no else section was defined.")))
    yield ' as custom ops, so that torch.compile\n# traces through them. Outputs: (out, idx, stat, xsel, *row norms); empty where unused.\n# Parameters past the spec\'s inputs start with "_": no spec name does.\ndef _'
    yield str((undefined(name='P') if l_0_P is missing else l_0_P))
    yield '_op_forward('
    yield str((undefined(name='op_params') if l_0_op_params is missing else l_0_op_params))
    yield ', _need_idx: bool, _backward: str'
    yield str((', _max_seqlen: list[int]' if (undefined(name='packed') if l_0_packed is missing else l_0_packed) else cond_expr_undefined("the inline if-expression on line 7 in 'select_reduce/library_host.py.jinja' evaluated to false and no else section was defined.")))
    yield ') -> tuple['
    yield str(t_1(context.eval_ctx, (['torch.Tensor'] * (4 + t_2(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'aux')))), ', '))
    yield ']:\n    return _'
    yield str((undefined(name='P') if l_0_P is missing else l_0_P))
    yield '_op_outputs(('
    yield str((undefined(name='op_names') if l_0_op_names is missing else l_0_op_names))
    yield '), _need_idx, launch=True'
    yield str((', max_seqlen=_max_seqlen' if (undefined(name='packed') if l_0_packed is missing else l_0_packed) else cond_expr_undefined("the inline if-expression on line 8 in 'select_reduce/library_host.py.jinja' evaluated to false and no else section was defined.")))
    yield ')\n\n\ndef _'
    yield str((undefined(name='P') if l_0_P is missing else l_0_P))
    yield '_op_outputs(inputs, need_idx, launch, max_seqlen=None):\n    """The custom op\'s outputs; launch=False allocates them only (its fake).'
    if (undefined(name='packed') if l_0_packed is missing else l_0_packed):
        pass
        yield " The\n    ragged axes' sizes come from max_seqlen; the offsets are checked where it launches."
    yield '"""\n'
    if (undefined(name='packed') if l_0_packed is missing else l_0_packed):
        pass
        yield '    t, sizes = runtime.bind(OUTPUT, SIGNATURE, inputs, {}, packing=PACKING, max_seqlen=dict(zip(SEQLEN_AXES, max_seqlen)),\n                            check=launch)\n'
    else:
        pass
        yield '    t, sizes = runtime.bind(OUTPUT, SIGNATURE, inputs, {})\n'
    yield '    out, (idx, stat, xsel, aux) = _'
    yield str((undefined(name='P') if l_0_P is missing else l_0_P))
    yield '_forward(t, sizes, need_idx, launch)\n    kept = [x if x is not None else out.new_empty((0,)) for x in (idx, stat, xsel)]  # no two outputs alias\n    return (out, *kept, *aux)\n\n\n'
    yield str((undefined(name='P') if l_0_P is missing else l_0_P))
    yield '_op = torch.library.custom_op(runtime.library_op_name(__name__, "'
    yield str((undefined(name='P') if l_0_P is missing else l_0_P))
    yield '"), _'
    yield str((undefined(name='P') if l_0_P is missing else l_0_P))
    yield '_op_forward, mutates_args=())\n'
    yield str((undefined(name='P') if l_0_P is missing else l_0_P))
    yield '_op.register_fake(lambda *a: _'
    yield str((undefined(name='P') if l_0_P is missing else l_0_P))
    yield '_op_outputs(a[:len(NAMES)], a[len(NAMES)], launch=False'
    yield str((', max_seqlen=a[-1]' if (undefined(name='packed') if l_0_packed is missing else l_0_packed) else cond_expr_undefined("the inline if-expression on line 26 in 'select_reduce/library_host.py.jinja' evaluated to false and no else section was defined.")))
    yield '))\n'
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'has_backward'):
        pass
        yield '\n\ndef _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_op_backward('
        yield str((undefined(name='op_params') if l_0_op_params is missing else l_0_op_params))
        yield ', _idx: torch.Tensor, _stat: torch.Tensor, _xsel: torch.Tensor,\n'
        for l_1_x in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'aux'):
            _loop_vars = {}
            pass
            yield '        _aux_'
            yield str(environment.getattr(l_1_x, 'name'))
            yield ': torch.Tensor,\n'
        l_1_x = missing
        yield '        _grad_out: torch.Tensor, _backward: str'
        yield str((', _max_seqlen: list[int]' if (undefined(name='packed') if l_0_packed is missing else l_0_packed) else cond_expr_undefined("the inline if-expression on line 34 in 'select_reduce/library_host.py.jinja' evaluated to false and no else section was defined.")))
        yield ') -> tuple['
        yield str(t_1(context.eval_ctx, (['torch.Tensor'] * t_2(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'differentiable_names'))), ', '))
        yield ']:\n    """Gradients of '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'differentiable'))
        yield ', in that order; empty for an absent input."""\n    return _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_op_grads(('
        yield str((undefined(name='op_names') if l_0_op_names is missing else l_0_op_names))
        yield '), (_idx, _stat, _xsel'
        for l_1_x in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'aux'):
            _loop_vars = {}
            pass
            yield ', _aux_'
            yield str(environment.getattr(l_1_x, 'name'))
        l_1_x = missing
        yield '), _grad_out, _backward,\n                            launch=True'
        yield str((', max_seqlen=_max_seqlen' if (undefined(name='packed') if l_0_packed is missing else l_0_packed) else cond_expr_undefined("the inline if-expression on line 37 in 'select_reduce/library_host.py.jinja' evaluated to false and no else section was defined.")))
        yield ')\n\n\ndef _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_op_grads(inputs, saved, grad_out, backward, launch, max_seqlen=None):\n    """The backward op\'s outputs; launch=False allocates them only (its fake)."""\n'
        if (undefined(name='packed') if l_0_packed is missing else l_0_packed):
            pass
            yield '    # (the forward checked the offsets)\n    t, sizes = runtime.bind(OUTPUT, SIGNATURE, inputs, {}, packing=PACKING, max_seqlen=dict(zip(SEQLEN_AXES, max_seqlen)),\n                            check=False)\n'
        else:
            pass
            yield '    t, sizes = runtime.bind(OUTPUT, SIGNATURE, inputs, {})\n'
        yield '    if launch:\n        idx, stat, xsel, *aux = saved\n        kept = (idx if idx.numel() else None, stat if stat.numel() else None, xsel if xsel.numel() else None, aux)\n        grads = _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_backward(t, sizes, kept, grad_out, backward'
        yield str((', rows_grad=True' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows') else cond_expr_undefined("the inline if-expression on line 52 in 'select_reduce/library_host.py.jinja' evaluated to false and no else section was defined.")))
        yield ')\n    else:\n        grads = {n: torch.empty_like(t[n], memory_format=torch.contiguous_format) for n in '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'differentiable'))
        yield ' if t[n] is not None}\n    return tuple(grads[n].contiguous() if n in grads else grad_out.new_empty((0,)) for n in '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'differentiable'))
        yield ')\n\n\n_'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_op_grad = torch.library.custom_op(runtime.library_op_name(__name__, "'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_backward"), _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_op_backward,\n                                          mutates_args=())\n'
        if (undefined(name='packed') if l_0_packed is missing else l_0_packed):
            pass
            yield '_'
            yield str((undefined(name='P') if l_0_P is missing else l_0_P))
            yield '_op_grad.register_fake(lambda *a: _'
            yield str((undefined(name='P') if l_0_P is missing else l_0_P))
            yield '_op_grads(a[:len(NAMES)], a[len(NAMES):-3], a[-3], a[-2], launch=False,\n                                                          max_seqlen=a[-1]))\n'
        else:
            pass
            yield '_'
            yield str((undefined(name='P') if l_0_P is missing else l_0_P))
            yield '_op_grad.register_fake(lambda *a: _'
            yield str((undefined(name='P') if l_0_P is missing else l_0_P))
            yield '_op_grads(a[:len(NAMES)], a[len(NAMES):-2], a[-2], a[-1], launch=False))\n'
        yield '\n\ndef _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_op_setup(ctx, inputs, output):\n    ctx.save_for_backward(*inputs[:len(NAMES)], *output[1:])\n'
        if (undefined(name='packed') if l_0_packed is missing else l_0_packed):
            pass
            yield '    ctx.backward_mode, ctx.max_seqlen = inputs[-2], inputs[-1]\n'
        else:
            pass
            yield '    ctx.backward_mode = inputs[-1]\n'
        yield '\n\ndef _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_op_derivative(ctx, grad_out, *unused):\n    grads = _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_op_grad(*ctx.saved_tensors, grad_out, ctx.backward_mode'
        yield str((', ctx.max_seqlen' if (undefined(name='packed') if l_0_packed is missing else l_0_packed) else cond_expr_undefined("the inline if-expression on line 78 in 'select_reduce/library_host.py.jinja' evaluated to false and no else section was defined.")))
        yield ')\n    out = [None] * (len(NAMES) + '
        yield str((3 if (undefined(name='packed') if l_0_packed is missing else l_0_packed) else 2))
        yield ')\n    for name, g in zip('
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'differentiable'))
        yield ', grads):\n        if ctx.needs_input_grad[NAMES.index(name)]:\n            out[NAMES.index(name)] = g\n    return tuple(out)\n\n\n'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_op.register_autograd(_'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_op_derivative, setup_context=_'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_op_setup)\n'

blocks = {}
debug_info = '3=28&4=32&7=34&8=42&11=48&12=50&14=54&20=61&25=63&26=69&27=75&30=78&31=82&32=86&34=90&35=94&36=96&37=107&40=109&42=111&52=118&54=122&55=124&58=126&60=132&61=135&64=142&68=147&70=149&77=156&78=158&79=162&80=164&86=166'
from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'select_reduce/both_ways_host.py.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_t = resolve('t')
    l_0_R = l_0_C = l_0_K = l_0_A = l_0_B = l_0_P = missing
    try:
        t_1 = environment.filters['upper']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'upper' found.")
    pass
    (l_0_R, l_0_C, l_0_K, l_0_A, l_0_B, l_0_P) = (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'R'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'C'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'K'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'A'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'B'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'P'))
    context.vars.update({'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R})
    context.exported_vars.update(('A', 'B', 'C', 'K', 'P', 'R'))
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'both'):
        pass
        yield '\n\ndef _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_forward_both(t, t_sw, sizes, sizes_sw, need_idx):\n    """Both ways in one pass: (out, saved) of the term on t and of the term on\n    t_sw, which holds the same operands swapped (and the swapped call\'s bounds)."""\n    '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_, '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_ = t["'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '"], t["'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '"]\n    device = '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_.device\n    n_cells = '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cells_py'))
        yield '\n\n    def outputs(sizes):\n        out = torch.empty(('
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'shape_args'))
        yield '), dtype=torch.float32, device=device)\n        idx = torch.empty((n_cells, sizes["'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '"]), dtype=torch.int32, device=device) if need_idx else None\n'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'need_x'):
            pass
            yield '        xsel = torch.empty((n_cells, sizes["'
            yield str((undefined(name='R') if l_0_R is missing else l_0_R))
            yield '"]), dtype=torch.float32, device=device) if need_idx else None\n'
        else:
            pass
            yield '        xsel = None\n'
        yield '        return out, idx, xsel\n\n    out, idx, xsel = outputs(sizes)\n    out_sw, idx_sw, xsel_sw = outputs(sizes_sw)\n    aux = _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_aux(t, True)\n    saved, saved_sw = (idx, None, xsel, aux), (idx_sw, None, xsel_sw, aux[::-1])  # swapped: '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield "'s norms first\n    # each "
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ' point\'s best (order key << 32 | row) over every program\'s rows\n    col = torch.full((n_cells, sizes["'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '"]), 2**63 - 1, dtype=torch.int64, device=device)\n    small_d = dispatch.contraction(sizes["'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '"])[2]\n    block_r, block_c, warps = dispatch.both_ways_blocks(sizes["'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '"], sizes["'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '"], need_idx)\n    if n_cells * sizes["'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '"] > 0:\n        launcher.launch('
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_fwd_both, (n_cells, triton.cdiv(sizes["'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '"], block_r)),\n            '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_, '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_, *aux,'
        for l_1_c in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cond_tensors'):
            _loop_vars = {}
            pass
            yield ' t["'
            yield str(l_1_c)
            yield '"] if t["'
            yield str(l_1_c)
            yield '"] is not None else col, t_sw["'
            yield str(l_1_c)
            yield '"] if t_sw["'
            yield str(l_1_c)
            yield '"] is not None else col,'
        l_1_c = missing
        yield '\n            out, idx if idx is not None else col, xsel if xsel is not None else col, col,\n            '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'size_args'))
        yield ',\n            *'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_.stride(), *'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_.stride(), *(s for x in aux for s in x.stride()),'
        for l_1_c in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cond_tensor_info'):
            _loop_vars = {}
            pass
            yield ' *_strides(t["'
            yield str(environment.getattr(l_1_c, 'name'))
            yield '"], '
            yield str(environment.getattr(l_1_c, 'rank'))
            yield '), *_strides(t_sw["'
            yield str(environment.getattr(l_1_c, 'name'))
            yield '"], '
            yield str(environment.getattr(l_1_c, 'rank'))
            yield '),'
        l_1_c = missing
        yield '\n            *out.stride(),\n'
        for l_1_name in environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'optional'):
            _loop_vars = {}
            pass
            yield '            HAS_'
            yield str(l_1_name)
            yield '=t["'
            yield str(l_1_name)
            yield '"] is not None, HAS_'
            yield str(l_1_name)
            yield '_sw=t_sw["'
            yield str(l_1_name)
            yield '"] is not None,\n'
        l_1_name = missing
        yield '            BLOCK_'
        yield str(t_1((undefined(name='R') if l_0_R is missing else l_0_R)))
        yield '=block_r, BLOCK_'
        yield str(t_1((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield '=block_c, BLOCK_'
        yield str(t_1((undefined(name='K') if l_0_K is missing else l_0_K)))
        yield '=16, NEED_IDX=need_idx,\n            PRECISION="ieee", DOT_FP32=False, DOT_MODE=2, SMALL_D=small_d,'
        yield str((' TIES=False,' if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ties') else cond_expr_undefined("the inline if-expression on line 46 in 'select_reduce/both_ways_host.py.jinja' evaluated to false and no else section was defined.")))
        yield ' num_warps=warps,\n        )\n    if n_cells * sizes["'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '"] > 0:\n        block = min(1024, runtime.next_pow2(sizes["'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '"]))\n        launcher.launch('
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_both_cols, (n_cells, triton.cdiv(sizes["'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '"], block)),\n            '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_, '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_, *aux, col, out_sw, idx_sw if idx_sw is not None else col,\n            xsel_sw if xsel_sw is not None else col,\n            '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'size_args'))
        yield ',\n            *'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_.stride(), *'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_.stride(), *(s for x in aux for s in x.stride()),\n            *out_sw.stride(),\n            BLOCK_'
        yield str(t_1((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield '=block, NEED_IDX=need_idx, SMALL_D=small_d,\n        )\n    return out, saved, out_sw, saved_sw\n\n\ndef _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_both_forward(ctx, sizes, sizes_sw, mode, fused, inputs):\n    """(out, out_sw) of both ways with indices, saved on ctx for _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_both_backward:\n    the fused pass (fused) or the two calls\' forwards."""\n    n = len(NAMES)\n    t, t_sw = dict(zip(NAMES, inputs[:n])), dict(zip(NAMES, inputs[n:]))\n    if fused:\n        out, saved, out_sw, saved_sw = _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_forward_both(t, t_sw, sizes, sizes_sw, True)\n    else:\n        (out, saved), (out_sw, saved_sw) = _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_forward(t, sizes, True), _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_forward(t_sw, sizes_sw, True)\n    ctx.save_for_backward(*inputs, *saved[:3], *saved_sw[:3], *saved[3], *saved_sw[3])\n    ctx.sizes, ctx.sizes_sw, ctx.mode, ctx.n_aux = sizes, sizes_sw, mode, len(saved[3])\n    return out, out_sw\n\n\ndef _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_both_saved(ctx):\n    """(t, saved, t_sw, saved_sw) of the two calls, as _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_both_forward saved them."""\n    stored = ctx.saved_tensors\n    n, k = len(NAMES), ctx.n_aux\n    return (dict(zip(NAMES, stored[:n])), (*stored[2 * n:2 * n + 3], list(stored[2 * n + 6:2 * n + 6 + k])),\n            dict(zip(NAMES, stored[n:2 * n])), (*stored[2 * n + 3:2 * n + 6], list(stored[2 * n + 6 + k:])))\n\n\ndef _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_both_backward(ctx, grad_out, grad_out_sw, first_input):\n    """The gradients of the inputs (given twice: as the first call and as the\n    swapped call takes them) from the two backwards; autograd adds each input\'s\n    two. first_input: the index of the first input among the node\'s arguments."""\n    t, saved, t_sw, saved_sw = _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_both_saved(ctx)\n    n = len(NAMES)\n    out = [None] * (2 * n)\n    for first, t_call, sizes, saved_call, grad in ((0, t, ctx.sizes, saved, grad_out),\n                                                   (n, t_sw, ctx.sizes_sw, saved_sw, grad_out_sw)):\n        grads = _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_backward(t_call, sizes, saved_call, grad, ctx.mode)\n        for name, g in grads.items():\n            if ctx.needs_input_grad[first_input + first + NAMES.index(name)]:\n                out[first + NAMES.index(name)] = g\n    return out\n\n\nclass _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_BothFunction(torch.autograd.Function):\n    """Both ways with gradients, one autograd node."""\n    @staticmethod\n    def forward(ctx, sizes, sizes_sw, mode, fused, *inputs):\n        return _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_both_forward(ctx, sizes, sizes_sw, mode, fused, inputs)\n\n    @staticmethod\n    def backward(ctx, grad_out, grad_out_sw):\n        return (None, None, None, None, *_'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_both_backward(ctx, grad_out, grad_out_sw, 4))\n\n\nclass _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_BothSumFunction(torch.autograd.Function):\n    """scale * sum(out) + scale_sw * sum(out_sw) of both ways, one autograd node\n    (a loss such as Chamfer\'s mean over points and clouds): the forwards, then one\n    weighted sum of both outputs (weights: scale over out\'s values, then scale_sw\n    over out_sw\'s). Backward: the weights times the loss\'s gradient are the\n    per-point gradients of the two backwards."""\n    @staticmethod\n    def forward(ctx, sizes, sizes_sw, mode, fused, weights, *inputs):\n        out, out_sw = _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_both_forward(ctx, sizes, sizes_sw, mode, fused, inputs)\n        ctx.weights, ctx.shapes = weights, (out.shape, out_sw.shape)\n        return torch.dot(torch.cat((out.reshape(-1), out_sw.reshape(-1))), weights)\n\n    @staticmethod\n    def backward(ctx, grad):\n        per_value = ctx.weights * grad\n        shape, shape_sw = ctx.shapes\n        split = shape.numel()\n        grad_out, grad_out_sw = per_value[:split].view(shape), per_value[split:].view(shape_sw)\n        mode = ctx.mode if ctx.mode != "auto" else '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_auto_backward(ctx.sizes)\n        if dispatch.both_ways_shared_grads(mode, DIFFERENTIABLE, ("'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '", "'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '")):\n            return (None, None, None, None, None, *_'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_both_backward_shared(ctx, grad_out, grad_out_sw))\n        return (None, None, None, None, None, *_'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_both_backward(ctx, grad_out, grad_out_sw, 5))\n\n\ndef _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_both_backward_shared(ctx, grad_out, grad_out_sw):\n    """_'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_both_backward with one fp32 buffer per operand, zeroed once: each\n    way\'s gather adds into its rows\' buffer and its atomics scatter into the\n    other\'s, so no second buffer and no addition (atomic mode only)."""\n    t, saved, t_sw, saved_sw = _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_both_saved(ctx)\n    '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_, '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_ = t["'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '"], t["'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '"]\n    flat = torch.zeros('
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_.numel() + '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_.numel(), dtype=torch.float32, device='
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_.device)\n    grad_'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_ = flat[:'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_.numel()].view('
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_.shape)\n    grad_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_ = flat['
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_.numel():].view('
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_.shape)\n    _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_backward(t, ctx.sizes, saved, grad_out, "atomic", into=(grad_'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_, grad_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_))\n    _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_backward(t_sw, ctx.sizes_sw, saved_sw, grad_out_sw, "atomic", into=(grad_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_, grad_'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_))\n    out = [None] * (2 * len(NAMES))\n    out[NAMES.index("'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '")] = grad_'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_.to('
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_.dtype) if ctx.needs_input_grad[5 + NAMES.index("'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '")] else None\n    out[NAMES.index("'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '")] = grad_'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_.to('
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_.dtype) if ctx.needs_input_grad[5 + NAMES.index("'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '")] else None\n    return out\n\n'

blocks = {}
debug_info = '4=19&5=22&8=25&11=27&12=35&13=37&16=39&17=41&18=43&19=46&27=52&28=54&29=56&30=58&31=60&32=62&33=66&34=68&35=72&38=90&39=92&42=110&43=114&45=124&46=130&48=132&49=134&50=136&51=140&53=144&54=146&56=150&61=152&62=154&67=156&69=158&75=162&76=164&83=166&87=168&92=170&99=172&103=174&107=176&110=178&118=180&128=182&129=184&130=188&131=190&134=192&135=194&138=196&139=198&140=206&141=212&142=218&143=224&144=230&146=236&147=244'
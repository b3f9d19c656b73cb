from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'select_reduce/l2_host.py.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_t = resolve('t')
    l_0_R = l_0_K = l_0_A = l_0_B = l_0_P = missing
    pass
    (l_0_R, l_0_K, l_0_A, l_0_B, l_0_P) = (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'R'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'K'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'A'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'B'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'P'))
    context.vars.update({'A': l_0_A, 'B': l_0_B, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R})
    context.exported_vars.update(('A', 'B', 'K', 'P', 'R'))
    yield '    '
    yield str((undefined(name='A') if l_0_A is missing else l_0_A))
    yield 's_, '
    yield str((undefined(name='B') if l_0_B is missing else l_0_B))
    yield 's_ = '
    yield str((undefined(name='A') if l_0_A is missing else l_0_A))
    yield '_, '
    yield str((undefined(name='B') if l_0_B is missing else l_0_B))
    yield '_  # what the expansion reads: rows less a shift (runtime.l2_shift, shift_16bit)\n    # with halves: the hi halves in '
    yield str((undefined(name='A') if l_0_A is missing else l_0_A))
    yield 's_ and '
    yield str((undefined(name='B') if l_0_B is missing else l_0_B))
    yield 's_, the lo ones in '
    yield str((undefined(name='A') if l_0_A is missing else l_0_A))
    yield 'lo_ and '
    yield str((undefined(name='B') if l_0_B is missing else l_0_B))
    yield "lo_, each side's 1 / scale\n    halves = halves if dot_mode == 0 and "
    yield str((undefined(name='A') if l_0_A is missing else l_0_A))
    yield '_.dtype == torch.float32 else 0\n    '
    yield str((undefined(name='A') if l_0_A is missing else l_0_A))
    yield 'lo_, '
    yield str((undefined(name='B') if l_0_B is missing else l_0_B))
    yield 'lo_, a_inv, b_inv = '
    yield str((undefined(name='A') if l_0_A is missing else l_0_A))
    yield '_, '
    yield str((undefined(name='B') if l_0_B is missing else l_0_B))
    yield '_, out, out\n    a_row_stride = 1  # with halves, '
    yield str((undefined(name='A') if l_0_A is missing else l_0_A))
    yield "'s row matrix's: a row's 1 / scale at its element offset // this\n    cn, col_norms, centre, shift = out, False, None, None\n    shift_a = 0  # SHIFT_A: 1 the rows less an fp32 point (runtime.l2_point), 2 16-bit rows less a shift (shifts_16bit)\n"
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'rows'):
        pass
        yield '    # '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield ' is computed in the kernel: its rows are formed there less the point '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield "'s rows are taken from\n    # (fp32 rows: "
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield "'s first row, one for every cell; runtime.l2_point), their norms from the tiles\n    halves = 0\n    if dot_mode < 2 and "
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_.dtype == torch.float32:\n        shift, '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_, '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield 's_ = runtime.l2_point('
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_, '
        yield str((str_join(('_held(("', (undefined(name='A') if l_0_A is missing else l_0_A), '",))[0].index("', (undefined(name='K') if l_0_K is missing else l_0_K), '")', )) if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'packing') else context.call(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'a_axes'), 'index'), (undefined(name='K') if l_0_K is missing else l_0_K))))
        yield ')\n        shift_a = 1\n'
    else:
        pass
        if (not environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'packing')):
            pass
            yield '    if halves and '
            yield str(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cn'), 'k_dim'))
            yield ' == '
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield '_.dim() - 1 and runtime.halves_layout('
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield '_) and runtime.halves_layout('
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield '_):\n        centre = runtime.l2_centre('
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield '_, '
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'b_axes'))
            yield ', '
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'shared_axes'))
            yield ', "'
            yield str((undefined(name='K') if l_0_K is missing else l_0_K))
            yield '")  # one shift for every cell\n'
        yield '    if centre is not None:  # the shift, the split and '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield "'s norms in one pass a side (hsr.halves)\n        a_row_stride = dispatch.row_matrix("
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_).stride(0)  # '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield "'s rows: a scale each (one read)\n        "
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield 's_, '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield 'lo_, a_inv, _ = runtime.split_halves('
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_, halves == 3, centre, per_row=True)\n        '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield 's_, '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield 'lo_, b_inv, cn = runtime.split_halves('
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '_, halves == 3, centre, norms=True)\n        col_norms = True\n    else:\n        if dot_mode < 2 and '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '_.dtype == torch.float32:\n'
        if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'packing'):
            pass
            yield "            # packed rows: shifted as passed (each cell's own shift)\n            "
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield '_, '
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield '_, '
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield 's_, '
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield 's_ = runtime.l2_shift('
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield '_, '
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield '_, *_held(("'
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield '", "'
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield '")), '
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'shared_axes'))
            yield ',\n                                                       "'
            yield str((undefined(name='K') if l_0_K is missing else l_0_K))
            yield '", *_packings(t, ("'
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield '", "'
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield '")))\n'
        else:
            pass
            yield '            '
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield '_, '
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield '_, '
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield 's_, '
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield 's_ = runtime.l2_shift('
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield '_, '
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield '_, '
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'a_axes'))
            yield ', '
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'b_axes'))
            yield ',\n                                                       '
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'shared_axes'))
            yield ', "'
            yield str((undefined(name='K') if l_0_K is missing else l_0_K))
            yield '")\n'
        if ((not environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'packing')) and (not environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'shared_axes'))):
            pass
            yield '        elif dispatch.shifts_16bit('
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield '_.dtype, dot_mode, True, sizes["'
            yield str((undefined(name='R') if l_0_R is missing else l_0_R))
            yield '"] * '
            yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'n_other_b_py'))
            yield '):\n            # 16-bit rows less a per-coordinate shift (hsr.shift16): '
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield "'s exact, with its norms; "
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield "'s rows\n            # that round marked NaN (ranked again); nothing shifted where the shift is 0\n            shift, "
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield '_, '
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield 's_, cn, '
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield '_, '
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield 's_ = runtime.shift_16bit(\n                '
            yield str((undefined(name='A') if l_0_A is missing else l_0_A))
            yield '_, '
            yield str((undefined(name='B') if l_0_B is missing else l_0_B))
            yield '_, '
            yield str(context.call(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'a_axes'), 'index'), (undefined(name='K') if l_0_K is missing else l_0_K)))
            yield ', '
            yield str(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cn'), 'k_dim'))
            yield ', dispatch.multiprocessors(device))\n            shift_a = 2\n'
        yield '        if halves and not (runtime.halves_layout('
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield 's_) and runtime.halves_layout('
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield "s_)):\n            halves = 0  # (a layout whose halves would not index as its rows do)\n        # the columns' squared norms once, where many programs read each of "
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '\'s row sets (dispatch.col_norms);\n        # with halves, the fp32 rows\' (the halves\' own would round them)\n        col_norms = dot_mode < 2 and (bool(halves) or shift is not None\n                                      or dispatch.col_norms(sizes["'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '"] * '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'n_other_b_py'))
        yield '))\n        if col_norms and shift is None:\n            rows = dispatch.row_matrix('
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield 's_) if '
        yield str(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cn'), 'k_dim'))
        yield ' == '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield 's_.dim() - 1 else None\n            cn = _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_row_norms(rows).view('
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield 's_.shape[:-1]) if rows is not None \\\n                else runtime.squared_norms('
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield 's_, '
        yield str(environment.getattr(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'cn'), 'k_dim'))
        yield ')\n        if halves:\n            a_row_stride = dispatch.row_matrix('
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield 's_).stride(0)\n            '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield 's_, '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield 'lo_, a_inv, _ = runtime.split_halves('
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield 's_, halves == 3, per_row=True)\n            '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield 's_, '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield 'lo_, b_inv, _ = runtime.split_halves('
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield 's_, halves == 3)\n'

blocks = {}
debug_info = '5=13&6=17&7=25&8=33&9=35&10=43&13=45&14=48&15=52&17=54&18=56&21=66&22=69&23=77&25=86&26=88&27=92&28=98&31=104&32=106&34=109&35=127&37=136&38=152&40=156&41=159&42=165&44=169&45=177&48=186&50=190&53=192&55=196&56=202&57=206&59=210&60=212&61=218'
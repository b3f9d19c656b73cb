from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'select_reduce/split.py.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_t = resolve('t')
    l_0_range = resolve('range')
    l_0_R = l_0_C = l_0_K = l_0_A = l_0_B = l_0_P = l_0_split_select = missing
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
    def macro():
        t_2 = []
        l_1_R = l_0_R
        l_1_C = l_0_C
        l_1_K = l_0_K
        l_1_P = l_0_P
        pass
        (l_1_R, l_1_C, l_1_K, l_1_P) = (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'R'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'C'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'K'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'P'))
        t_2.extend((
            '# (bench/NOTES.md, session 15) ',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'B')),
            " rows split in fp16 pieces (dispatch.split_pass) make the key\n# |b|^2 - 2<a, b> one dot on the tensor cores, each tile reduced to its rows' min at once;\n# each row keeps the tile that first reached its least min, the runner-up, and the first\n# tile no later one beats by more than the dot's rounding (tol): a tie keeps the lower one\noffs_s = tl.arange(0, ",
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'split_k')),
            ')\ns_rows = (cell * size_',
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            ' + offs_',
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            ').to(tl.int64)\na_split = tl.load(split_a_ptr + s_rows[:, None] * ',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'split_k')),
            ' + offs_s[None, :], mask=',
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            '_ok[:, None], other=0.0)\ntol = tl.load(split_tol_ptr + s_rows, mask=',
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            '_ok, other=0.0)\nb_split = split_b_ptr + cell * size_',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            ' * ',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'split_k')),
            '\nt_best = tl.full([',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ROWS')),
            '], float("inf"), tl.float32)\nt_tile = tl.zeros([',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ROWS')),
            '], tl.int32)\nt_second = tl.full([',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ROWS')),
            '], float("inf"), tl.float32)\nt_second_tile = tl.zeros([',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ROWS')),
            '], tl.int32)\nt_near = tl.full([',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ROWS')),
            '], float("inf"), tl.float32)\nt_near_tile = tl.zeros([',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ROWS')),
            '], tl.int32)\nfor ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '0 in range(0, ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_full, BLOCK_',
            str(t_1((undefined(name='C') if l_1_C is missing else l_1_C))),
            '):\n    t_best, t_tile, t_second, t_second_tile, t_near, t_near_tile = _',
            str((undefined(name='P') if l_1_P is missing else l_1_P)),
            '_split_tile(\n        a_split, b_split, ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '0, ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_end, tol, t_best, t_tile, t_second, t_second_tile, t_near, t_near_tile,\n        BLOCK_',
            str(t_1((undefined(name='C') if l_1_C is missing else l_1_C))),
            ', ',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'split_k')),
            ', False, DOT_FP32)\nif ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_full < ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_end:  # the last, partial tile\n    t_best, t_tile, t_second, t_second_tile, t_near, t_near_tile = _',
            str((undefined(name='P') if l_1_P is missing else l_1_P)),
            '_split_tile(\n        a_split, b_split, ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_full, ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_end, tol, t_best, t_tile, t_second, t_second_tile, t_near, t_near_tile,\n        BLOCK_',
            str(t_1((undefined(name='C') if l_1_C is missing else l_1_C))),
            ', ',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'split_k')),
            ', True, DOT_FP32)\n# the candidates, searched with the exact key the CUDA-core loop forms; a row whose tile mins\n# were not finite (NaN or inf among the inputs: their pieces give NaN) searches every tile\nodd = ',
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            '_ok & ((t_best != t_best) | (tl.abs(t_best) == float("inf")))\nany_odd = tl.max(odd.to(tl.int32), axis=0)\n# the runner-up only where it is within tol of the best (tol bounds twice the pieces\' rounding):\n# most blocks search one tile a row\nclose = (t_second <= t_best + tol) & (t_second_tile != t_tile)\nmore = tl.max((',
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            '_ok & (close | (t_near_tile != t_tile))).to(tl.int32), axis=0)\nn_pieces = 1 + 2 * more + any_odd * (tl.cdiv(',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_end, BLOCK_',
            str(t_1((undefined(name='C') if l_1_C is missing else l_1_C))),
            ') - 1 - 2 * more)\nscan_all = (tl.zeros([',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ROWS')),
            '], tl.int32) + any_odd) > 0\nbest = tl.full([',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ROWS')),
            '], float("inf"), tl.float32)\nbest_at = tl.full([',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ROWS')),
            '], -1, tl.int32)\nfor piece in range(0, n_pieces):\n    which = tl.zeros([',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ROWS')),
            "], tl.int32) + piece  # (a tensor: the interpreter's bool ops need one)\n    start = tl.where(scan_all, piece * BLOCK_",
            str(t_1((undefined(name='C') if l_1_C is missing else l_1_C))),
            ',\n                     tl.where(which == 0, t_tile, tl.where(which == 1, t_second_tile, t_near_tile)))\n    # each tile once: the runner-up if it is close, the near tile if it is neither\n    fresh = (which == 0) | ((which == 1) & close) | \\\n        ((which == 2) & (t_near_tile != t_tile) & ((t_near_tile != t_second_tile) | ~close))\n    active = ',
            str((undefined(name='R') if l_1_R is missing else l_1_R)),
            '_ok & (fresh | scan_all)\n    for c0 in range(0, BLOCK_',
            str(t_1((undefined(name='C') if l_1_C is missing else l_1_C))),
            ', 16):  # in chunks of 16 columns: registers\n        offs_',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            ' = start[:, None] + c0 + tl.arange(0, 16)[None, :]\n        ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_ok = active[:, None] & (offs_',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            ' < ',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_end)\n        b_row = b_rows + offs_',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '.to(tl.int64) * stride_',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'B')),
            '_',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '\n        key = tl.zeros([',
            str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'ROWS')),
            ', 16], tl.float32)  # the squared distance from the differences\n',
        ))
        for l_2_k in context.call((undefined(name='range') if l_0_range is missing else l_0_range), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'small_d_max')):
            _loop_vars = {}
            pass
            t_2.extend((
                '        if SMALL_D > ',
                str(l_2_k),
                ':\n            diff = _a',
                str(l_2_k),
                '[:, None] - tl.load(b_row + ',
                str(l_2_k),
                ' * stride_',
                str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'B')),
                '_',
                str((undefined(name='K') if l_1_K is missing else l_1_K)),
                ', mask=',
                str((undefined(name='C') if l_1_C is missing else l_1_C)),
                '_ok, other=0.0).to(tl.float32)\n            key = tl.fma(diff, diff, key)\n',
            ))
        l_2_k = missing
        t_2.extend((
            '        key = tl.where(',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_ok, key, float("inf"))\n        k_min = tl.reduce(key, 1, _',
            str((undefined(name='P') if l_1_P is missing else l_1_P)),
            '_select)\n        k_at = tl.min(tl.where(key == k_min[:, None], offs_',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            ', size_',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '), axis=1)\n        better = (k_min < best) | ((k_min == best) & (k_at < best_at))\n        best_at = tl.where(better, k_at, best_at)\n        best = tl.minimum(best, k_min, propagate_nan=tl.PropagateNan.ALL)\nbest2 = best[:, None]\nif NEED_IDX:\n    idx2 = best_at[:, None]\n',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_seen = tl.zeros([BLOCK_',
            str(t_1((undefined(name='C') if l_1_C is missing else l_1_C))),
            '], tl.int32) + (',
            str((undefined(name='C') if l_1_C is missing else l_1_C)),
            '_end > 0).to(tl.int32)',
        ))
        return concat(t_2)
    context.exported_vars.add('split_select')
    context.vars['split_select'] = l_0_split_select = Macro(environment, macro, 'split_select', (), False, False, False, context.eval_ctx.autoescape)
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'split'):
        pass
        yield '\n\n@triton.jit\ndef _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_split_tile(a_split, b_split, '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '0, '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_end, tol, t_best, t_tile, t_second, t_second_tile,\n        t_near, t_near_tile, BLOCK_'
        yield str(t_1((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield ': tl.constexpr, SPLIT_K: tl.constexpr, PARTIAL: tl.constexpr,\n        DOT_FP32: tl.constexpr):\n    """One tile of the split pass: its rows\' min of the key (one fp16 dot), merged into each\n    row\'s least tile min and the first tile reaching it, the runner-up tile (the pieces\' key\n    is a little less exact than the fp32 one: a near tie may rank the two the other way), and\n    the first tile within tol of every later one (a tie across tiles keeps the lower)."""\n    offs_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ' = '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '0 + tl.arange(0, BLOCK_'
        yield str(t_1((undefined(name='C') if l_0_C is missing else l_0_C)))
        yield ')\n    offs_s = tl.arange(0, SPLIT_K)\n    at = b_split + offs_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '.to(tl.int64)[None, :] * SPLIT_K + offs_s[:, None]\n    if PARTIAL:\n        b = tl.load(at, mask=(offs_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ' < '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_end)[None, :], other=0.0)\n    else:\n        b = tl.load(at)\n    if DOT_FP32:  # the interpreter: fp32 products of the pieces, as the tensor cores form them\n        key = tl.dot(a_split.to(tl.float32), b.to(tl.float32), input_precision="ieee")\n    else:\n        key = tl.dot(a_split, b)\n    if PARTIAL:\n        key = tl.where((offs_'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield ' < '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '_end)[None, :], key, float("inf"))\n    tile_min = tl.reduce(key, 1, _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_select)\n    better = tile_min < t_best\n    second = tile_min < t_second\n    t_second_tile = tl.where(better, t_tile, tl.where(second, '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '0, t_second_tile))\n    t_second = tl.where(better, t_best, tl.minimum(t_second, tile_min))\n    t_tile = tl.where(better, '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '0, t_tile)\n    t_best = tl.minimum(t_best, tile_min, propagate_nan=tl.PropagateNan.ALL)\n    clear = tile_min < t_near - tol\n    t_near_tile = tl.where(clear, '
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '0, t_near_tile)\n    t_near = tl.where(clear, tile_min, t_near)\n    return t_best, t_tile, t_second, t_second_tile, t_near, t_near_tile\n\n\n@triton.jit\ndef '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_split_max(src_ptr, shift_ptr, big_ptr, n_rows, per_cell, stride_row, stride_k, SMALL_D: tl.constexpr,\n        BLOCK: tl.constexpr):\n    """The largest finite |coordinate - shift| of a block of rows, atomically into big_ptr\n    (zeroed): the split\'s scale, with no host sync. The shift is a point of each cell\n    (shift_ptr [cells, SMALL_D], per_cell rows a cell), so that the pieces keep the\n    distances\' digits however far the clouds sit from the origin."""\n    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n    ok = rows < n_rows\n    src = src_ptr + rows.to(tl.int64) * stride_row\n    shift = shift_ptr + (rows // per_cell).to(tl.int64) * SMALL_D\n    big = tl.zeros([BLOCK], tl.float32)\n'
        for l_1_k in context.call((undefined(name='range') if l_0_range is missing else l_0_range), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'small_d_max')):
            _loop_vars = {}
            pass
            yield '    if SMALL_D > '
            yield str(l_1_k)
            yield ':\n        v = tl.abs(tl.load(src + '
            yield str(l_1_k)
            yield ' * stride_k, mask=ok, other=0.0).to(tl.float32) - tl.load(shift + '
            yield str(l_1_k)
            yield ', mask=ok, other=0.0))\n        big = tl.maximum(big, tl.where(v < float("inf"), v, 0.0))  # NaN and inf left out\n'
        l_1_k = missing
        yield '    tl.atomic_max(big_ptr, tl.max(big, axis=0))\n\n\n@triton.jit\ndef '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_split_rows(src_ptr, shift_ptr, dst_ptr, tol_ptr, big_ptr, n_rows, per_cell, size_k, stride_row, stride_k,\n        SIDE: tl.constexpr, SMALL_D: tl.constexpr, SPLIT_K: tl.constexpr, BLOCK: tl.constexpr):\n    """Rows of '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'A'))
        yield ' (SIDE 0) or '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'B'))
        yield ' (SIDE 1), less their cell\'s shift c, as SPLIT_K\n    fp16 pieces, so that <a\', b\'> = s^2 (|b|^2 - 2<a, b>) (a, b less c: the same order of\n    candidates as the distances) with exact products: each scaled coordinate is hi + lo\n    (fp16), a\' holds (hi, hi, lo) and b\' the pieces of -2 s b as (hi, lo, hi) per coordinate,\n    then a\' three ones and b\' three pieces of |s b|^2. SIDE 0 also writes each row\'s tol: 2^-18 of\n    |s a|^2 + d 2^12, a bound many times the rounding of the dot\'s fp32 sum."""\n    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n    ok = rows < n_rows\n    # the power of two that brings the largest finite |coordinate| (big) to (2^5, 2^6]: the\n    # scaled norms fit fp16 (d <= 4) and the low pieces stay far above its subnormals; from\n    # big\'s bits (exact), clamped so that s stays a normal fp32; 1 where big is 0\n    bits = tl.load(big_ptr).to(tl.int32, bitcast=True)\n    ceil_log2 = ((bits >> 23) & 0xFF) - 127 + ((bits & 0x7FFFFF) != 0).to(tl.int32)\n    e = tl.minimum(tl.maximum(6 - ceil_log2, -100), 100)\n    s = tl.where(bits > 0, ((e + 127) << 23).to(tl.float32, bitcast=True), 1.0)\n    col = tl.arange(0, SPLIT_K)[None, :]\n    src = src_ptr + rows.to(tl.int64) * stride_row\n    shift = shift_ptr + (rows // per_cell).to(tl.int64) * SMALL_D\n    out = tl.zeros([BLOCK, SPLIT_K], tl.float32)\n    norm = tl.zeros([BLOCK], tl.float32)\n'
        for l_1_k in context.call((undefined(name='range') if l_0_range is missing else l_0_range), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'small_d_max')):
            _loop_vars = {}
            pass
            yield '    if SMALL_D > '
            yield str(l_1_k)
            yield ':\n        v = (tl.load(src + '
            yield str(l_1_k)
            yield ' * stride_k, mask=ok, other=0.0).to(tl.float32) - tl.load(shift + '
            yield str(l_1_k)
            yield ', mask=ok, other=0.0)) * s\n        norm += v * v\n        if SIDE == 1:\n            v = -2.0 * v\n        hi = v.to(tl.float16).to(tl.float32)\n        lo = (v - hi).to(tl.float16).to(tl.float32)\n        out = tl.where(col == '
            yield str((3 * l_1_k))
            yield ', hi[:, None], out)\n        out = tl.where(col == '
            yield str(((3 * l_1_k) + 1))
            yield ', (hi if SIDE == 0 else lo)[:, None], out)\n        out = tl.where(col == '
            yield str(((3 * l_1_k) + 2))
            yield ', (lo if SIDE == 0 else hi)[:, None], out)\n'
        l_1_k = missing
        yield "    if SIDE == 0:\n        out = tl.where((col >= 3 * SMALL_D) & (col < 3 * SMALL_D + 3), 1.0, out)\n        tl.store(tol_ptr + rows, (norm + size_k * 4096.0) * (1.0 / 262144.0), mask=ok)\n    else:  # the norm in three pieces (33 bits): it is the key's largest term\n        n_hi = norm.to(tl.float16).to(tl.float32)\n        n_mid = (norm - n_hi).to(tl.float16).to(tl.float32)\n        out = tl.where(col == 3 * SMALL_D, n_hi[:, None], out)\n        out = tl.where(col == 3 * SMALL_D + 1, n_mid[:, None], out)\n        out = tl.where(col == 3 * SMALL_D + 2, (norm - n_hi - n_mid).to(tl.float16).to(tl.float32)[:, None], out)\n    tl.store(dst_ptr + rows.to(tl.int64)[:, None] * SPLIT_K + col, out.to(tl.float16), mask=ok[:, None])\n"

blocks = {}
debug_info = '4=20&5=23&6=30&7=33&11=35&12=37&13=41&14=45&15=47&16=51&17=53&18=55&19=57&20=59&21=61&22=63&23=69&24=71&25=75&26=79&27=83&28=85&29=89&32=93&37=95&38=97&39=101&40=103&41=105&43=107&44=109&49=111&50=113&51=115&52=117&53=123&54=129&55=132&56=137&57=139&60=153&61=155&62=157&69=161&71=171&75=174&76=180&82=182&84=188&86=190&94=194&95=198&98=200&100=202&103=204&109=206&120=208&121=212&122=214&129=220&131=222&151=226&152=230&153=232&159=236&160=238&161=240'
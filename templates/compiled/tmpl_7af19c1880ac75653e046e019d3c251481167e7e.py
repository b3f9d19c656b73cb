from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'select_reduce/split_host.py.jinja'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_t = resolve('t')
    l_0_R = l_0_C = l_0_K = l_0_A = l_0_B = l_0_P = missing
    pass
    (l_0_R, l_0_C, l_0_K, l_0_A, l_0_B, l_0_P) = (environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'R'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'C'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'K'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'A'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'B'), environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'P'))
    context.vars.update({'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R})
    context.exported_vars.update(('A', 'B', 'C', 'K', 'P', 'R'))
    if environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'split'):
        pass
        yield 'def _'
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_split(t, sizes):\n    """DOT_MODE 3\'s inputs: '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield ' and '
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield ' rows as fp16 pieces ('
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_split_rows, one\n    power-of-two scale for both from '
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_split_max) and each '
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield ' row\'s tie tolerance:\n    (a, b, tol). Six launches and no host sync."""\n    # [cells x points, '
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '] each: a copy only where the layout needs one\n    rows = [t[name].permute(perm).reshape(-1, sizes["'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '"]) for name, perm in (("'
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield '", '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'a_perm'))
        yield '), ("'
        yield str((undefined(name='B') if l_0_B is missing else l_0_B))
        yield '", '
        yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'b_perm'))
        yield "))]\n    # each cell's shift: its first "
        yield str((undefined(name='A') if l_0_A is missing else l_0_A))
        yield ' point (non-finite coordinates 0), taken from both clouds\n    per_cell = (max(sizes["'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '"], 1), max(sizes["'
        yield str((undefined(name='C') if l_0_C is missing else l_0_C))
        yield '"], 1))\n    shift = torch.nan_to_num(rows[0][::per_cell[0]].float(), nan=0.0, posinf=0.0, neginf=0.0) \\\n        if sizes["'
        yield str((undefined(name='R') if l_0_R is missing else l_0_R))
        yield '"] else rows[0].new_zeros((rows[1].shape[0] // per_cell[1], sizes["'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '"]), dtype=torch.float32)\n    shift = shift.contiguous()\n    big = torch.zeros(1, dtype=torch.float32, device=rows[0].device)  # the largest finite |coordinate - shift|\n    block, warps = runtime.split_blocks()\n    for r, cell_rows in zip(rows, per_cell):\n        if r.shape[0]:\n            launcher.launch('
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_split_max, (triton.cdiv(r.shape[0], block),), r, shift, big, r.shape[0], cell_rows,\n                            r.stride(0), r.stride(1), SMALL_D=sizes["'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '"], BLOCK=block, num_warps=warps)\n    made = []\n    for side, r in enumerate(rows):\n        dst = torch.empty((r.shape[0], dispatch.SPLIT_K), dtype=torch.float16, device=r.device)\n        tol = torch.empty((r.shape[0],), dtype=torch.float32, device=r.device) if side == 0 else dst\n        if r.shape[0]:\n            launcher.launch('
        yield str((undefined(name='P') if l_0_P is missing else l_0_P))
        yield '_split_rows, (triton.cdiv(r.shape[0], block),), r, shift, dst, tol, big,\n                            r.shape[0], per_cell[side], sizes["'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '"], r.stride(0), r.stride(1), SIDE=side,\n                            SMALL_D=sizes["'
        yield str((undefined(name='K') if l_0_K is missing else l_0_K))
        yield '"], SPLIT_K=dispatch.SPLIT_K, BLOCK=block, num_warps=warps)\n        made.append((dst, tol))\n    return made[0][0], made[1][0], made[0][1]\n\n\n'

blocks = {}
debug_info = '3=13&4=16&5=19&6=21&7=27&9=31&10=33&11=43&12=45&14=49&20=53&21=55&27=57&28=59&29=61'
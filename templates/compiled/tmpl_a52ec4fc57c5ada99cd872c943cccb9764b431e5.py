from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'select_reduce.py.jinja'

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
    yield '@triton.jit\ndef _'
    yield str((undefined(name='P') if l_0_P is missing else l_0_P))
    yield '_select(x, y):\n    """'
    yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'select'))
    yield ' that keeps NaN, as torch.'
    yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'select'))
    yield ' does."""\n    return tl.'
    yield str(environment.getattr((undefined(name='t') if l_0_t is missing else l_0_t), 'combine'))
    yield '(x, y, propagate_nan=tl.PropagateNan.ALL)\n'
    template = environment.get_template('select_reduce/split.py.jinja', 'select_reduce.py.jinja')
    gen = template.root_render_func(template.new_context(context.get_all(), True, {'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R}))
    try:
        for event in gen:
            yield event
    finally: gen.close()
    template = environment.get_template('select_reduce/forward.py.jinja', 'select_reduce.py.jinja')
    gen = template.root_render_func(template.new_context(context.get_all(), True, {'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R}))
    try:
        for event in gen:
            yield event
    finally: gen.close()
    template = environment.get_template('select_reduce/lean.py.jinja', 'select_reduce.py.jinja')
    gen = template.root_render_func(template.new_context(context.get_all(), True, {'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R}))
    try:
        for event in gen:
            yield event
    finally: gen.close()
    template = environment.get_template('select_reduce/backward.py.jinja', 'select_reduce.py.jinja')
    gen = template.root_render_func(template.new_context(context.get_all(), True, {'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R}))
    try:
        for event in gen:
            yield event
    finally: gen.close()
    template = environment.get_template('select_reduce/scatter.py.jinja', 'select_reduce.py.jinja')
    gen = template.root_render_func(template.new_context(context.get_all(), True, {'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R}))
    try:
        for event in gen:
            yield event
    finally: gen.close()
    template = environment.get_template('select_reduce/both_ways.py.jinja', 'select_reduce.py.jinja')
    gen = template.root_render_func(template.new_context(context.get_all(), True, {'A': l_0_A, 'B': l_0_B, 'C': l_0_C, 'K': l_0_K, 'P': l_0_P, 'R': l_0_R}))
    try:
        for event in gen:
            yield event
    finally: gen.close()

blocks = {}
debug_info = '6=13&8=17&9=19&10=23&11=25&12=31&13=37&14=43&15=49&16=55'
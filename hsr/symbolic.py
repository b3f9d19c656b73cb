"""Symbolic algebra for the planner: epilogues as sympy expressions.

The planner turns the parts of a normal form around the selection into sympy
expressions over a few named symbols (the pairwise primitive, row norms,
per-row and per-column terms). Here it decides whether an epilogue is monotone
in the selected key (so it can be hoisted after the selection), differentiates
it, and prints expressions as Triton code.

Functions whose derivatives need care at a kink (relu, abs, the clamped square
root of a distance) are sympy Functions of our own, so that the derivative is
the one torch uses (0 at the kink) and its sign is known to sympy's
assumptions system.
"""

from __future__ import annotations

import sympy as sp


class Relu(sp.Function):
    """max(x, 0); NaN stays NaN."""

    def fdiff(self, argindex=1):
        return Step(self.args[0])

    def _eval_is_nonnegative(self):
        return True if self.args[0].is_real else None

    def _eval_is_real(self):
        return self.args[0].is_real


class Step(sp.Function):
    """1 where x > 0, else 0 (torch's derivative of relu)."""

    def _eval_is_nonnegative(self):
        return True

    def _eval_is_real(self):
        return True


class Log1p(sp.Function):
    def fdiff(self, argindex=1):
        return 1 / (1 + self.args[0])

    def _eval_is_real(self):
        x = self.args[0]
        return True if (x.is_nonnegative or (1 + x).is_positive) else None

    def _eval_is_nonnegative(self):
        return True if self.args[0].is_nonnegative else None


class Softplus(sp.Function):
    def fdiff(self, argindex=1):
        return Sigmoid(self.args[0])

    def _eval_is_positive(self):
        return True if self.args[0].is_real else None

    def _eval_is_real(self):
        return self.args[0].is_real


class Sigmoid(sp.Function):
    def fdiff(self, argindex=1):
        return SigmoidPrime(self.args[0])

    def _eval_is_positive(self):
        return True if self.args[0].is_real else None

    def _eval_is_real(self):
        return self.args[0].is_real


class SigmoidPrime(sp.Function):
    def _eval_is_positive(self):
        return True if self.args[0].is_real else None

    def _eval_is_real(self):
        return self.args[0].is_real


class Tanh(sp.Function):
    def fdiff(self, argindex=1):
        return TanhPrime(self.args[0])

    def _eval_is_real(self):
        return self.args[0].is_real


class TanhPrime(sp.Function):
    def _eval_is_positive(self):
        return True if self.args[0].is_real else None

    def _eval_is_real(self):
        return self.args[0].is_real


class Sign(sp.Function):
    """-1, 0 or 1 (torch's derivative of abs)."""

    def _eval_is_real(self):
        return True


class AbsVal(sp.Function):
    def fdiff(self, argindex=1):
        return Sign(self.args[0])

    def _eval_is_nonnegative(self):
        return True if self.args[0].is_real else None

    def _eval_is_real(self):
        return self.args[0].is_real


class ClampedSqrt(sp.Function):
    """sqrt(max(x, 0)): a distance from a squared distance that rounding may
    have left slightly negative. Its derivative is 0 at and below 0."""

    def fdiff(self, argindex=1):
        return HalfRsqrt(self.args[0])

    def _eval_is_nonnegative(self):
        return True if self.args[0].is_real else None

    def _eval_is_real(self):
        return self.args[0].is_real


class HalfRsqrt(sp.Function):
    """1 / (2 sqrt(x)) where x > 0, else 0."""

    def _eval_is_nonnegative(self):
        return True

    def _eval_is_real(self):
        return True


UNARY = {
    "relu": Relu, "log1p": Log1p, "exp": sp.exp, "log": sp.log, "sqrt": sp.sqrt, "abs": AbsVal,
    "sigmoid": Sigmoid, "tanh": Tanh, "softplus": Softplus,
}

KEY = sp.Symbol("key", real=True)
KEY_NONNEG = sp.Symbol("key", nonnegative=True)  # a key that cannot be negative (a distance)


def monotone(h: sp.Expr, var: sp.Symbol = KEY, strict: bool = False) -> int:
    """+1 if h never decreases in var over the reals (whatever the other
    symbols hold), -1 if it never increases, 0 if sympy cannot tell.
    ``strict``: only strictly monotone functions count (an argmax output must
    not gain ties)."""
    d = sp.diff(h, var)
    if d == 0:
        return 0
    if (d.is_positive if strict else d.is_nonnegative):
        return 1
    if (d.is_negative if strict else d.is_nonpositive):
        return -1
    return 0


def hoist(expr: sp.Expr, dependent: set, strict: bool = False) -> tuple[sp.Expr, sp.Expr, int]:
    """Split expr into h(key): key is what the tile loop must compute (every
    symbol in ``dependent`` varies over the selected axis), h a monotone
    function of KEY applied once after the selection.

    Peels layers off expr from the outside (a function of one argument, a
    sum or product with one dependent term, a power) and keeps the deepest
    split whose h sympy proves monotone. Returns (key, h, direction): direction
    +1 keeps max/min, -1 flips it."""
    best = (expr, KEY, 1)
    for key, h in _splits(expr, dependent):
        # over the key's own range: 1 / (1 + key) is monotone where the key is a distance
        var = KEY_NONNEG if key.is_nonnegative else KEY
        direction = monotone(h.subs(KEY, var), var, strict)
        if direction:
            best = (key, h, direction)
    return best


def flat_somewhere(h: sp.Expr, key: sp.Expr) -> bool:
    """Whether a monotone h(KEY) may be flat over the key's range (relu at or below
    0): not provably strictly monotone there, so distinct keys may tie in h."""
    var = KEY_NONNEG if key.is_nonnegative else KEY
    return h != KEY and not monotone(h.subs(KEY, var), var, strict=True)


def _splits(expr, dependent):
    """Every (key, h) with h(key) == expr, from the outermost layer inwards."""
    yield expr, KEY
    inner = _peel(expr, dependent)
    if inner is None:
        return
    arg, wrap = inner
    for key, h in _splits(arg, dependent):
        yield key, wrap(h)


def _peel(expr, dependent):
    """(the one dependent argument, a function rebuilding expr around it), or None."""
    def dep(e):
        return bool(e.free_symbols & dependent)

    if isinstance(expr, (sp.Add, sp.Mul)):
        deps = [a for a in expr.args if dep(a)]
        rest = [a for a in expr.args if not dep(a)]
        if not deps or (len(deps) > 1 and not rest):
            return None
        return expr.func(*deps), lambda h: expr.func(h, *rest)
    if isinstance(expr, sp.Pow) and dep(expr.base) and not dep(expr.exp):
        return expr.base, lambda h: sp.Pow(h, expr.exp)
    if isinstance(expr, sp.Function) and len(expr.args) == 1 and dep(expr.args[0]):
        return expr.args[0], lambda h: expr.func(h)
    return None


def triton_code(expr: sp.Expr, leaves: dict) -> str:
    """Triton source for expr; ``leaves`` maps each symbol to its code."""
    return _Printer(leaves).print(expr)


class _Printer:
    """A small, deterministic printer of the functions above to Triton."""

    def __init__(self, leaves: dict):
        self.leaves = {str(k): v for k, v in leaves.items()}

    def print(self, e) -> str:
        if isinstance(e, sp.Symbol):
            return self.leaves[e.name]
        if e.is_Number:
            return _number(e)
        if isinstance(e, sp.Add):
            terms = [self.print(a) for a in sp.Add.make_args(e)]
            return "(" + " + ".join(terms) + ")"
        if isinstance(e, sp.Mul):
            num, den = [], []
            for a in e.args:
                if isinstance(a, sp.Pow) and a.exp.is_Number and a.exp < 0:
                    den.append(self.print(sp.Pow(a.base, -a.exp)))
                elif a.is_Rational and not a.is_Integer and a.p == 1:
                    den.append(_number(sp.Integer(a.q)))
                else:
                    num.append(self.print(a))
            text = " * ".join(num) if num else "1.0"
            if den:
                text = f"{text} / ({' * '.join(den)})"
            return f"({text})"
        if isinstance(e, sp.Pow):
            base, exp = self.print(e.base), e.exp
            if exp == sp.Rational(1, 2):
                return f"tl.sqrt({base})"
            if exp == sp.Rational(-1, 2):
                return f"(1.0 / tl.sqrt({base}))"
            if exp.is_Integer and 0 < exp <= 4:
                return "(" + " * ".join([base] * int(exp)) + ")"
            if exp.is_Integer and -4 <= exp < 0:
                return "(1.0 / (" + " * ".join([base] * int(-exp)) + "))"
            if exp.is_Number:
                return f"tl.exp({_number(exp)} * tl.log({base}))"
            return f"tl.exp({self.print(exp)} * tl.log({base}))"
        if isinstance(e, sp.exp):
            return f"tl.exp({self.print(e.args[0])})"
        if isinstance(e, sp.log):
            return f"tl.log({self.print(e.args[0])})"
        name = _FUNCTIONS.get(type(e).__name__)
        if name is not None:
            return f"{name}({self.print(e.args[0])})"
        raise NotImplementedError(f"no Triton form for {e!r}")  # a planner bug, not a user error


_FUNCTIONS = {
    "Relu": "_hsr_relu", "Step": "_hsr_step", "Log1p": "_hsr_log1p", "Softplus": "_hsr_softplus",
    "Sigmoid": "tl.sigmoid", "SigmoidPrime": "_hsr_sigmoid_prime", "Tanh": "_hsr_tanh",
    "TanhPrime": "_hsr_tanh_prime", "Sign": "_hsr_sign", "AbsVal": "tl.abs",
    "ClampedSqrt": "_hsr_clamped_sqrt", "HalfRsqrt": "_hsr_half_rsqrt",
}


def _number(n) -> str:
    value = float(n)
    if value != value or value in (float("inf"), float("-inf")):
        return f'float("{value}")'
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value)}.0" if value >= 0 else f"({int(value)}.0)"
    text = repr(value)
    return text if value >= 0 else f"({text})"

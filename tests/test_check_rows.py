"""hsr.check_rows: a computed operand's definition, and each misuse a positioned error."""

from __future__ import annotations

import pytest

import hsr
from hsr.errors import SpecError

HEAD = """Q[i, s, d]: float
C[c, d]: float
codes[j, t]: int
res[j, t, d]: uint2
w[b]: float
"""


def _error(body: str, out: str = "score[i, j] = sum_s max_t <Q_s, D_t>") -> SpecError:
    with pytest.raises(SpecError) as err:
        hsr.compile(HEAD + body + "\n" + out + "\n")
    return err.value


def test_a_definition_before_the_output_is_a_computed_operand():
    op = hsr.compile(HEAD + "D[j, t, d] = normalize(C[codes[j, t], d] + w[res[j, t, d]])\n"
                     "score[i, j] = sum_s max_t <Q_s, D_t>\n")
    rows = op.program.rows[0]
    assert rows.name == "D" and rows.rows.normalize and rows.rows.line == 6
    assert [t.name for t in op.program.tensors] == ["Q", "C", "codes", "res", "w"]


def test_a_computed_operand_read_by_cosines_only_is_normalised():
    """A cosine of a computed operand's rows is one of its normalised rows: read by cosines only, the
    operand is normalised (each selected row's norm then 1 in the backward), and explain says why."""
    for out, normalised in (("score[i, j] = sum_s max_t cos(Q_s, D_t)\n", True),
                            ("score[i, j] = sum_s max_t cos(Q_s, D_t) - sum_s max_t cos(Q[i, s, :], D[j, t, :])\n",
                             True),
                            ("score[i, j] = sum_s max_t <Q_s, D_t>\n", False)):
        op = hsr.compile(HEAD + "D[j, t, d] = C[codes[j, t], d] + w[res[j, t, d]]\n" + out)
        assert op.program.rows[0].rows.normalize == normalised
        assert ("L2-normalised (read by cosines only" in op.explain()) == normalised


@pytest.mark.parametrize("body, out, message, line, col", [
    ("D[j, t, d] = C[codes[j, t], d] + w[res[j, t, d]] + sum_b w[b]", None,
     "a second definition ('score'); a spec has one output", 7, 1),
    ("D[j, t, d] = C[codes, d] + w[res[j, t, d]]", None, "C's axis 'c' is indexed as 'codes'", 6, 14),
    ("D[j, t, d] = C_d + w[res[j, t, d]]", None, "write 'C_d' with its axes in a computed operand", 6, 14),
    ("D[j, t, d] = C[codes[j, t], d] + w[res[j, t, d]]",
     "score[i, j] = sum_s max_t cos(Q_s, D_t) + sum_s max_t <Q_s, D_t>",
     "D is a computed operand read by a cosine and another pair", 7, 27),
    ("D[j, t, d] = C[codes[j, t], d] + res[j, t, d]", None,
     "'res' is uint2; a computed operand's values come from float inputs", 6, 34),
    ("D[j, t] = C[codes[j, t], t] + w[res[j, t, t]]", None, "C's axis 'd' is indexed as 't'", 6, 11),
    ("D[j, t, d] = C[codes[j, t], d] + w[res[j, t, d]]", "score[i, j] = sum_s max_t <Q_s, C[codes[j, t], :]>",
     "C is read at an index (codes) in the output's definition", 7, 35),
    ("D[j, t, d] = C[codes[j, t], d] + w[codes[j, t]]", None, "'res' is declared but never used", 4, 1),
])
def test_misuse_is_a_positioned_error(body, out, message, line, col):
    err = _error(body, out or "score[i, j] = sum_s max_t <Q_s, D_t>")
    assert message in str(err)
    assert (err.line, err.col) == (line, col)
    assert "^" in str(err)


def test_a_computed_operand_left_unused_or_on_the_outer_side():
    err = _error("D[j, t, d] = C[codes[j, t], d] + w[res[j, t, d]]", "score[i] = sum_s max_c <Q_s, C_c>")
    assert "'D' is defined but never used" in str(err)
    with pytest.raises(Exception, match="computed operand D is read on the outer side"):
        hsr.compile(HEAD + "D[j, t, d] = C[codes[j, t], d] + w[res[j, t, d]]\n"
                    "score[i, j] = sum_t max_s <D_t, Q_s>\n")


PROJECTION = """Q[i, s, d]: float
H[j, t, h]: float
W[d, h]: float
V[j, d, h]: float
G[d, m]: float
n[j, t, h]: int
"""


@pytest.mark.parametrize("body, message, line, col", [
    ("D[j, t, d] = <H[j, t, :], V[j, d, :]>",
     "a projection is rows times a weight that carries the operand's last axis ('d') and the contracted one only", 7, 14),
    ("D[j, t, d] = <H[j, t, :], G[d, :]>", "the projection contracts 'h' on one side and 'm' on the other", 7, 14),
    ("D[j, t, d] = <H[j, t, h], W[d, h]> + <n[j, t, :], W[d, :]>", "'n' is int; a projection multiplies float", 7, 39),
    ("D[j, t, d] = <H[j, :, :], W[d, :]>", "H needs exactly one axis to contract, written ':'", 7, 15),
    ("D[j, t, d] = <H, W>", "a projection reads two inputs with their axes written out", 7, 15),
])
def test_a_projection_misused_is_a_positioned_error(body, message, line, col):
    with pytest.raises(SpecError) as err:
        hsr.compile(PROJECTION + body + "\nscore[i, j] = sum_s max_t <Q_s, D_t>\n")
    assert message in str(err.value)
    assert (err.value.line, err.value.col) == (line, col) and "^" in str(err.value)


def test_a_projection_names_its_contracted_axis_or_writes_a_colon():
    for body in ("<H[j, t, :], W[d, :]>", "<H[j, t, h], W[d, h]>", "<W[d, :], H[j, t, :]>"):
        op = hsr.compile(PROJECTION.replace("V[j, d, h]: float\nG[d, m]: float\nn[j, t, h]: int\n", "")
                         + f"D[j, t, d] = {body}\nscore[i, j] = sum_s max_t <Q_s, D_t>\n")
        pair = op.program.rows[0].rows.expr
        assert (pair.a.tensor.name, pair.b.tensor.name, pair.axis) == ("H", "W", "h")

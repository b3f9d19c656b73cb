"""hsr.shift16: the per-coordinate shift of 16-bit L2 rows, its passes checked on their own
(the kernels that read them are checked in test_select_reduce_l2.py)."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from profiles import examples

from hsr import shift16


def _exact(x: torch.Tensor) -> torch.Tensor:
    return x.double().nan_to_num(7.0, posinf=8.0, neginf=9.0)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # NaN and inf fed on purpose
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@settings(max_examples=examples(6))
@given(st.integers(0, 300), st.integers(1, 40), st.integers(0, 7), st.booleans(), st.integers(0, 2**31 - 1))
def test_the_shift_from_the_range_parts(device, dtype, n, k, pad, strays, seed):
    """c from B's range over up to RANGE_PARTS programs' row blocks (a program walking several
    where B is long): each coordinate's c lets every B value subtract it exactly (all within a
    factor 2 of it), 0 where B spans zero, holds NaN or inf, or is empty; the flag past c says
    whether any c is not 0; B less c exact, its norms with pad zeros past them; A less c, a row
    whose subtraction rounds marked NaN at its first coordinate."""
    g = torch.Generator().manual_seed(seed)
    b = torch.rand(n, k, generator=g) * 6 + 1000
    if k > 1 and n > 1:
        b[:, 1] -= 1003  # spans zero: c 0
        b[0, 1], b[n - 1, 1] = -1.0, 1.0
    if strays and n > 2:
        b[n - 1, 0], b[n - 2, 0] = float("nan"), float("inf")  # (in the last part, where B is long)
    a = torch.rand(17, k, generator=g) * 6 + 1000
    far = strays and k > 2 and n > 0
    if far:
        a[3, k - 1] = 250.375  # far outside B's range: rounds less c (fp16 and bf16)
    b, a = b.to(dtype), a.to(dtype)
    c, b_s, norms, a_s = shift16.shift_rows(a.to(device), b.to(device), 64, pad=pad)
    c, b_s, norms, a_s = c.cpu(), b_s.cpu(), norms.cpu(), a_s.cpu()
    shift = c[:k].double()
    fine = b.double().isfinite().all(0) & (n > 0)
    lo, hi = b.double().amin(0) if n else shift, b.double().amax(0) if n else shift
    kept = shift != 0
    assert (~kept | fine).all() and (~kept | ((lo > 0) & (hi > 0)) | ((lo < 0) & (hi < 0))).all()
    assert (~kept | ((hi <= 2 * shift) & (shift <= 2 * lo)) | ((lo >= 2 * shift) & (shift >= 2 * hi))).all()
    assert (n < 2 or not kept[1:2].any()) and (n <= 2 or not strays or not kept[0])
    assert c[k].item() == float(kept.any())
    assert torch.equal(_exact(b_s), _exact(b.double() - shift)), "B less c is exact"
    assert torch.equal(norms[n:], torch.zeros(pad))
    want = (b_s.float() ** 2).sum(1)
    assert torch.allclose(norms[:n], want, rtol=1e-6, equal_nan=True)
    if kept.any():
        exact = a.double() - shift
        rounds = (exact.to(dtype).double() != exact).any(1)
        assert torch.equal(a_s[:, 0].isnan(), rounds)
        assert torch.equal(_exact(a_s[~rounds]), _exact(exact[~rounds]))
        assert not far or rounds[3]


def test_a_long_b_is_walked_by_at_most_range_parts_programs(device):
    """Rows past RANGE_PARTS row blocks: each range program walks several, and c is still each
    coordinate's midpoint (one value far from the others in another program's block moves it)."""
    block_r, _ = shift16._blocks(8)
    n = shift16.RANGE_PARTS * block_r * 3 + 5
    b = torch.full((n, 8), 1000.0)
    b[block_r * 5 + 3, 0] = 1500.0  # in a block of program 5: c = 1250 there (fp16 keeps it)
    b[block_r * 6 + 1, 1] = 600.0  # of program 6: c = 800
    c, _, _, _ = shift16.shift_rows(torch.full((4, 8), 1000.0).half().to(device), b.half().to(device), 64)
    assert c.cpu()[:8].tolist() == [1250.0, 800.0] + [1000.0] * 6 and c[8].item() == 1.0

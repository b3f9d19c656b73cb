"""hsr.ragged: the offsets' device check (through the interpreter here), and
packing a tensor laid out over its declared axes, and back."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
import torch

from hsr import ragged


@pytest.mark.parametrize("cu, limit, total, good", [
    ([0, 3, 3, 7], 4, 7, True),
    ([0, 3, 3, 7], 4, None, True),
    ([0], 0, 0, True),
    ([0, 3, 2, 7], 5, 7, False),     # decreases
    ([0, 3, 3, 7], 3, 7, False),     # a sequence longer than max_seqlen
    ([0, 3, 3, 7], 4, 8, False),     # does not end at the packed rows
    ([1, 3, 3, 7], 4, 7, False),     # does not start at 0
])
def test_check_on_device(device, cu, limit, total, good):
    if not good and device == "cuda":
        pytest.skip("a failed device-side assert ends the CUDA context")
    entries = [("cu", torch.tensor(cu, dtype=torch.int32, device=device), limit, total)]
    if good:
        ragged.check_on_device("op", entries)
        if device == "cuda":
            torch.cuda.synchronize()
    else:
        with pytest.raises(RuntimeError, match="offsets 'cu' must start at 0"):
            ragged.check_on_device("op", entries)


def test_check_on_device_of_two_and_long_offsets(device):
    long = torch.arange(0, 3 * 2500 + 1, 3, dtype=torch.int64, device=device)  # past one block of the kernel
    ragged.check_on_device("op", [("a", long, 3, 7500), ("b", torch.tensor([0, 2], device=device), 2, 2)])
    if device == "cuda":
        torch.cuda.synchronize()
        return  # (a failed device-side assert ends the CUDA context)
    bad = long.clone()
    bad[2100] = bad[2099] - 1
    with pytest.raises(RuntimeError, match="offsets 'a', 'b'"):
        ragged.check_on_device("op", [("a", bad, 3, None), ("b", torch.tensor([0, 2]), 2, 2)])


def test_bad_offsets_fail_a_device_assert_on_a_gpu(device):
    """On a GPU the check is a device-side assert, which ends the process's CUDA
    context: run apart, bad offsets must fail the process, good ones not."""
    if device != "cuda":
        pytest.skip("a device-side assert: CUDA only (the interpreter skips them; its flag path is tested above)")
    code = textwrap.dedent("""
        import sys, torch
        from hsr import ragged
        cu = torch.tensor([int(v) for v in sys.argv[1].split(",")], dtype=torch.int32, device="cuda")
        ragged.check_on_device("op", [("cu", cu, 5, 7)])
        torch.cuda.synchronize()
        print("passed")
    """)
    _run_apart(code, (("0,3,3,7", True), ("0,3,2,7", False), ("0,3,3,8", False)), "offsets 'cu'")


def _run_apart(code: str, cases, message: str) -> None:
    """Run code in a process of its own per (offsets, good) case: a good case prints
    "passed", a bad one fails the process by a device-side assert (its message)."""
    for offsets, good in cases:
        done = subprocess.run([sys.executable, "-c", code, offsets], capture_output=True, text=True, timeout=300)
        if good:
            assert done.returncode == 0 and "passed" in done.stdout, done.stderr[-2000:]
        else:
            assert done.returncode != 0 and "passed" not in done.stdout
            assert "device-side assert" in done.stderr or message in done.stdout + done.stderr, done.stderr[-2000:]


def test_bad_offsets_fail_the_folded_assert_on_a_gpu(device):
    """A packed call on the lean forward checks its offsets in that kernel (a device
    assert compiled with debug on): run apart, bad offsets fail the process, good
    ones not, and the lean kernel ran with the check folded in."""
    if device != "cuda":
        pytest.skip("a device-side assert: CUDA only (the interpreter's flag: test_select_reduce_ragged)")
    code = textwrap.dedent("""
        import sys, torch
        from hsr import launcher, ragged
        from hsr.ops import maxsim_pairs
        seen, plain = [], launcher.launch
        def spy(kernel, grid, *args, **kwargs):
            seen.append((getattr(kernel, "fn", kernel).__name__, kwargs.get("CHECK_OFFSETS"), kwargs.get("debug")))
            return plain(kernel, grid, *args, **kwargs)
        launcher.launch = spy
        cd = torch.tensor([int(v) for v in sys.argv[1].split(",")], dtype=torch.int32, device="cuda")
        cq = torch.tensor([0, 2, 3, 5], dtype=torch.int32, device="cuda")
        Q = torch.randn(5, 64, device="cuda", dtype=torch.float16)
        D = torch.randn(7, 64, device="cuda", dtype=torch.float16)
        out = maxsim_pairs(Q, D, cq, cd, 2, 5)
        torch.cuda.synchronize()
        assert [s for s in seen if s[0].endswith("_fwd_lean")] == [("score_fwd_lean", 1, True)], seen
        assert not any(s[0].startswith("_offsets") for s in seen), seen
        print("passed", out.tolist())
    """)
    _run_apart(code, (("0,3,3,7", True), ("0,3,2,7", False), ("0,3,3,8", False), ("0,1,7,7", False)),
               "offsets 'cu_q', 'cu_d'")


def test_strides_pack_unpack():
    cu = torch.tensor([0, 2, 2, 5])
    x = torch.arange(5 * 4, dtype=torch.float32).reshape(5, 4)        # packed [s, d] of Q[i, s by cu, d]
    axes, entry = ("i", "s", "d"), ("s", "i", "cu")
    padded = ragged.unpack(x, axes, entry, cu, 3)
    assert padded.shape == (3, 3, 4)
    assert torch.equal(padded[0, :2], x[:2]) and (padded[1] == 0).all() and torch.equal(padded[2], x[2:5])
    assert torch.equal(ragged.pack(padded, axes, entry, cu, 5), x)
    assert ragged.strides(x, axes, entry) == (0, 4, 1)   # the kernels add cu[i] rows to the base
    assert ragged.strides(x, ("s", "i", "d"), entry) == (4, 0, 1)
    assert ragged.strides(x, ("s", "d"), None) == (4, 1)
    # an axis order with the ragged axis first: w[s by cu, i]
    w = torch.arange(5.0)
    assert torch.equal(ragged.pack(ragged.unpack(w, ("s", "i"), entry, cu, 3), ("s", "i"), entry, cu, 5), w)


def test_unpacking_nothing_keeps_the_graph():
    """Every sequence empty: the padded form is zeros, and a gradient through it
    is the packed input's (empty), not absent (the reference evaluator's backward)."""
    x = torch.zeros(0, 3, dtype=torch.float64, requires_grad=True)
    cu = torch.tensor([0, 0], dtype=torch.int32)
    out = ragged.unpack(x, ["b", "n", "k"], ("n", "b", "cu"), cu, 2)
    assert out.shape == (1, 2, 3) and not out.any()
    (grad,) = torch.autograd.grad(out.sum(), x)
    assert grad.shape == (0, 3)

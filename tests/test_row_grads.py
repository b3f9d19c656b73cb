"""hsr.row_grads: the flat rows the selections took, and a computed operand's inputs'
gradients from a gradient row a selection (compact) equal to those from its rows'
gradient over every row, against torch autograd through the definition written out."""

import torch

from hsr import row_grads

# D[j, t, d] = normalize(<H[j, t, :], W[d, :]> + bias[d] + C[codes[j, t], d] * s[j, t]), as a module's ROWS entry
ENTRY = ("D", ("j", "t", "d"), "H", (("codes", "C", "c", 0),), "d",
         ("+", ("+", ("project", "H", ("j", "t", "h"), "W", ("d", "h"), "h"), ("load", "bias", ("d",))),
          ("*", ("gather", "C", ("c", "d"), "c", "codes", ("j", "t"), 0), ("load", "s", ("j", "t")))), True)


def test_selected_rows_are_the_operands_flat_rows():
    idx = torch.tensor([[[2, -1], [0, 3]]])  # [i, j, s]: document j's token idx (-1: none, read as row 0)
    sizes = {"i": 1, "j": 2, "s": 2, "t": 4}
    assert row_grads.selected_rows(idx, ["i", "j"], "t", ("j", "t"), sizes).tolist() == [2, 0, 4, 7]


def test_compact_and_dense_gradients_match_autograd():
    gen = torch.Generator().manual_seed(0)
    nj, nt, h, d, nc = 3, 5, 7, 6, 4
    t = {"H": torch.randn(nj, nt, h, generator=gen, dtype=torch.float64),
         "W": torch.randn(d, h, generator=gen, dtype=torch.float64),
         "bias": torch.randn(d, generator=gen, dtype=torch.float64),
         "C": torch.randn(nc, d, generator=gen, dtype=torch.float64),
         "s": torch.randn(nj, nt, generator=gen, dtype=torch.float64),
         "codes": torch.randint(0, nc, (nj, nt), generator=gen)}
    sizes = {"j": nj, "t": nt, "h": h, "d": d, "c": nc, "i": 2, "s": 3}
    idx = torch.randint(-1, nt, (2, nj, 3), generator=gen)  # [i, j, s]; -1: no selection
    g_sel = torch.randn(idx.numel(), d, generator=gen, dtype=torch.float64) * (idx.reshape(-1, 1) >= 0)
    compact = row_grads.grads(ENTRY, t, sizes, g_sel.float(), (idx, ["i", "j"], "t"))
    flat = row_grads.selected_rows(idx, ["i", "j"], "t", ("j", "t"), sizes)
    g_rows = torch.zeros(nj * nt, d, dtype=torch.float64).index_add_(0, flat, g_sel).view(nj, nt, d)
    dense = row_grads.grads(ENTRY, t, sizes, g_rows.float())
    leaves = {n: t[n].clone().requires_grad_() for n in ("H", "W", "bias", "C", "s")}
    rows = (torch.einsum("jth,dh->jtd", leaves["H"], leaves["W"]) + leaves["bias"]
            + leaves["C"][t["codes"]] * leaves["s"][..., None])
    rows = torch.nn.functional.normalize(rows, dim=-1)
    want = dict(zip(leaves, torch.autograd.grad((rows * g_rows).sum(), list(leaves.values()))))
    assert set(compact) == set(dense) == set(want)
    for name in want:
        torch.testing.assert_close(compact[name], want[name], rtol=1e-5, atol=1e-5, msg=name)
        torch.testing.assert_close(dense[name], want[name], rtol=1e-5, atol=1e-5, msg=name)

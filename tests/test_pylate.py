"""hsr.ops.pylate: PyLate's ColBERT scoring functions on hsr's MaxSim kernels,
through the Triton interpreter here (and on CUDA with HSR_TEST_DEVICE=cuda).

Values and gradients are checked against eager float64 formulas of both mask
semantics:

    exclude: score = sum over real s of max over real t of <q_s, d_t>   (0 if no real t)
    pylate:  score = sum_s max_t qmask_s * dmask_t * <q_s, d_t>         (PyLate's torch path)

The call conventions PyLate uses (stacked [Nd, N, Ld, d] documents in query-major
order, per-query candidates, ragged lists, numpy arrays) are exercised by a
local stand-in of its losses' calls, and against the real package where it is
installed (pytest.importorskip).
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from hsr.errors import TensorError
from hsr.ops import pylate as hp

TOL = 2e-5


# ----------------------------------------------------------------------------- float64 formulas

def sims(Q, D):
    """[Nq, Lq, d] x [Nd, Ld, d] -> [Nq, Nd, Lq, Ld]; [Nq, K, Ld, d] -> [Nq, K, Lq, Ld]."""
    return torch.einsum("ash,bth->abst", Q, D) if D.dim() == 3 else torch.einsum("ash,abth->abst", Q, D)


def _expand(q_mask, d_mask, per_query):
    qm = None if q_mask is None else q_mask.double()[:, None, :, None]
    if d_mask is None:
        dm = None
    else:
        dm = d_mask.double()[:, :, None, :] if per_query else d_mask.double()[None, :, None, :]
    return qm, dm


def pylate_formula(Q, D, q_mask=None, d_mask=None):
    """PyLate's multiply-by-mask formula, float64 (differentiable in Q and D)."""
    s = sims(Q.double(), D.double())
    qm, dm = _expand(q_mask, d_mask, D.dim() == 4)
    if qm is not None:
        s = s * qm
    if dm is not None:
        s = s * dm
    return s.max(-1).values.sum(-1)


def exclude_formula(Q, D, q_mask=None, d_mask=None):
    """hsr's exclusion semantics, float64 (differentiable in Q and D)."""
    s = sims(Q.double(), D.double())
    qm, dm = _expand(q_mask, d_mask, D.dim() == 4)
    if dm is not None:
        s = s.masked_fill(dm == 0, float("-inf"))
    best = s.max(-1).values
    best = torch.where(torch.isfinite(best), best, torch.zeros_like(best))
    if qm is not None:
        best = best * qm[..., 0]
    return best.sum(-1)


FORMULAS = {"exclude": exclude_formula, "pylate": pylate_formula}


def _close(mine, ref, what, tol=TOL):
    mine = mine.detach().cpu().double()
    ref = ref.detach().cpu().double()
    assert mine.shape == ref.shape, f"{what}: shape {tuple(mine.shape)}, expected {tuple(ref.shape)}"
    err = (mine - ref).abs().max().item() if ref.numel() else 0.0
    bound = tol * max(ref.abs().max().item() if ref.numel() else 0.0, 1.0)
    assert err <= bound, f"{what}: max abs error {err:.3g} > {bound:.3g}"


def _grads(fn, Q, D, device, seed=0):
    """Value and (grad Q, grad D) of sum(w * fn(Q, D)) for a fixed random w."""
    q = Q.clone().to(device).requires_grad_()
    d = D.clone().to(device).requires_grad_()
    out = fn(q, d)
    w = torch.randn(out.shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    (out * w.to(out.device, out.dtype)).sum().backward()
    return out, q.grad, d.grad


def _data(gen, nq, lq, nd, ld, d, per_query_k=None, stacked_n=None):
    Q = torch.randn(nq, lq, d, generator=gen)
    if per_query_k is not None:
        D = torch.randn(nq, per_query_k, ld, d, generator=gen)
    elif stacked_n is not None:
        D = torch.randn(nd, stacked_n, ld, d, generator=gen)
    else:
        D = torch.randn(nd, ld, d, generator=gen)
    qm = torch.rand(nq, lq, generator=gen) < 0.7
    qm[:, 0] = True
    dm = torch.rand(D.shape[:-1], generator=gen) < 0.5
    dm.view(-1, D.shape[-2])[0] = False              # one document with no real token
    dm.view(-1, D.shape[-2])[1] = True               # one with no masked token
    return Q, D, qm, dm


def _mask_as(mask, kind):
    return {"bool": mask, "long": mask.long(), "float": mask.float()}[kind]


# ----------------------------------------------------------------------------- the three functions

@pytest.mark.parametrize("semantics", ["exclude", "pylate"])
@pytest.mark.parametrize("mask_kind", ["bool", "float"])
def test_colbert_scores_values_and_grads(device, semantics, mask_kind):
    gen = torch.Generator().manual_seed(1)
    Q, D, qm, dm = _data(gen, 3, 5, 4, 7, 16)
    qmk, dmk = _mask_as(qm, mask_kind), _mask_as(dm, mask_kind)
    mine, gq, gd = _grads(lambda q, d: hp.colbert_scores(q, d, qmk.to(device), dmk.to(device),
                                                         mask_semantics=semantics), Q, D, device)
    ref, rq, rd = _grads(lambda q, d: FORMULAS[semantics](q, d, qm, dm), Q.double(), D.double(), "cpu")
    assert mine.dtype == torch.float32 and mine.shape == (3, 4)
    _close(mine, ref, "scores")
    _close(gq, rq, "grad Q")
    _close(gd, rd, "grad D")


def test_the_two_semantics_differ_where_the_notes_say(device):
    """A query token whose every real similarity is negative: PyLate's formula
    gives it 0 in a document with a masked token, exclusion its best (negative)
    similarity; with no masked document token they agree."""
    q = torch.tensor([[[1.0, 0.0], [0.0, 1.0]]])
    d = torch.tensor([[[-1.0, 0.0], [-2.0, 5.0], [3.0, 3.0]]])       # token 2 masked below
    dm = torch.tensor([[True, True, False]])
    ex = hp.colbert_scores(q.to(device), d.to(device), None, dm.to(device))
    py = hp.colbert_scores(q.to(device), d.to(device), None, dm.to(device), mask_semantics="pylate")
    assert ex.cpu().tolist() == [[-1.0 + 5.0]]
    assert py.cpu().tolist() == [[0.0 + 5.0]]
    full = torch.ones_like(dm)
    assert torch.equal(hp.colbert_scores(q, d, None, full).cpu(),
                       hp.colbert_scores(q, d, None, full, mask_semantics="pylate").cpu())


@pytest.mark.parametrize("semantics", ["exclude", "pylate"])
def test_stacked_documents_are_query_major(device, semantics):
    """Contrastive's score_metric call: documents [Nd, N, Ld, d] -> [Nq, Nd * N],
    column j * N + k = group j's k-th document (PyLate's ColBERTScores layout)."""
    gen = torch.Generator().manual_seed(2)
    Q, D, qm, dm = _data(gen, 3, 4, 3, 6, 8, stacked_n=2)
    mine, gq, gd = _grads(lambda q, d: hp.colbert_scores(q, d, qm.to(device), dm.to(device),
                                                         mask_semantics=semantics), Q, D, device)

    def ref_fn(q, d):
        cols = [[FORMULAS[semantics](q, d[j, k][None], qm, dm[j, k][None])[:, 0] for k in range(2)] for j in range(3)]
        return torch.stack([c for group in cols for c in group], dim=1)

    ref, rq, rd = _grads(ref_fn, Q.double(), D.double(), "cpu")
    assert mine.shape == (3, 6)
    _close(mine, ref, "scores")
    _close(gq, rq, "grad Q")
    _close(gd, rd, "grad D")
    scorer = hp.ColBERTScores(mask_semantics=semantics)
    _close(scorer(Q.to(device), D.to(device), qm.to(device), dm.to(device)), ref, "ColBERTScores")
    assert semantics in repr(scorer)


@pytest.mark.parametrize("semantics", ["exclude", "pylate"])
def test_colbert_kd_scores_values_and_grads(device, semantics):
    gen = torch.Generator().manual_seed(3)
    Q, D, qm, dm = _data(gen, 3, 5, None, 6, 16, per_query_k=4)
    mine, gq, gd = _grads(lambda q, d: hp.colbert_kd_scores(q, d, qm.long().to(device), dm.to(device),
                                                            mask_semantics=semantics), Q, D, device)
    ref, rq, rd = _grads(lambda q, d: FORMULAS[semantics](q, d, qm, dm), Q.double(), D.double(), "cpu")
    assert mine.shape == (3, 4)
    _close(mine, ref, "scores")
    _close(gq, rq, "grad Q")
    _close(gd, rd, "grad D")


def test_colbert_scores_pairwise_on_ragged_lists(device):
    """What PyLate's evaluators pass: lists of unpadded per-sentence tensors.
    Padding added here never enters a score; gradients reach every list item."""
    gen = torch.Generator().manual_seed(4)
    qs = [torch.randn(n, 8, generator=gen).to(device).requires_grad_() for n in (3, 5, 2)]
    ds = [torch.randn(n, 8, generator=gen).to(device).requires_grad_() for n in (4, 1, 7)]
    mine = hp.colbert_scores_pairwise(qs, ds)
    rq = [q.detach().double().cpu().requires_grad_() for q in qs]
    rd = [d.detach().double().cpu().requires_grad_() for d in ds]
    ref = torch.stack([torch.einsum("sh,th->st", q, d).max(-1).values.sum() for q, d in zip(rq, rd)])
    assert mine.shape == (3,)
    _close(mine, ref, "pairwise")
    w = torch.randn(3, generator=gen, dtype=torch.float64)
    (mine * w.to(mine.device, mine.dtype)).sum().backward()
    (ref * w).sum().backward()
    for i in range(3):
        _close(qs[i].grad, rq[i].grad, f"grad query {i}")
        _close(ds[i].grad, rd[i].grad, f"grad document {i}")
    # the same pairs padded, with masks, give the same numbers
    Q = torch.nn.utils.rnn.pad_sequence([q.detach() for q in qs], batch_first=True)
    D = torch.nn.utils.rnn.pad_sequence([d.detach() for d in ds], batch_first=True)
    dm = torch.nn.utils.rnn.pad_sequence([torch.ones(d.shape[0], dtype=torch.bool) for d in ds],
                                         batch_first=True).to(device)
    _close(hp.colbert_scores_pairwise(Q, D, documents_mask=dm), ref, "pairwise padded + mask")


@pytest.mark.parametrize("semantics", ["exclude", "pylate"])
def test_colbert_scores_pairwise_padded_with_masks(device, semantics):
    gen = torch.Generator().manual_seed(5)
    Q, D, qm, dm = _data(gen, 3, 4, 3, 6, 8)
    mine, gq, gd = _grads(lambda q, d: hp.colbert_scores_pairwise(q, d, queries_mask=qm.to(device),
                                                                  documents_mask=dm.to(device),
                                                                  mask_semantics=semantics), Q, D, device)
    ref, rq, rd = _grads(lambda q, d: torch.diagonal(FORMULAS[semantics](q, d, qm, dm)), Q.double(), D.double(), "cpu")
    _close(mine, ref, "pairwise")
    _close(gq, rq, "grad Q")
    _close(gd, rd, "grad D")


# ----------------------------------------------------------------------------- input forms

def test_numpy_lists_and_dtypes(device):
    gen = torch.Generator().manual_seed(6)
    Q, D, qm, dm = _data(gen, 2, 3, 3, 5, 8)
    ref = exclude_formula(Q, D, qm, dm)
    if device == "cpu":
        _close(hp.colbert_scores(Q.double().numpy(), D.numpy(), qm.numpy(), dm.numpy()), ref, "numpy")
        _close(hp.colbert_scores(list(Q.numpy()), list(D), qm.tolist(), dm), ref, "lists")
    _close(hp.colbert_scores(Q.double().to(device), D.double().to(device), qm.to(device), dm.to(device)),
           ref, "float64 in")
    mixed = hp.colbert_scores(Q.half().to(device), D.to(device), qm.to(device), dm.to(device))
    assert mixed.dtype == torch.float32
    _close(mixed, exclude_formula(Q.half().float(), D, qm, dm), "fp16 with fp32", tol=1e-4)


def test_ragged_list_of_documents_with_masks(device):
    """Ragged lists are padded; a user mask then has the padded shape, and both apply."""
    gen = torch.Generator().manual_seed(7)
    Q = torch.randn(2, 3, 8, generator=gen)
    docs = [torch.randn(n, 8, generator=gen) for n in (4, 2, 6)]
    D = torch.nn.utils.rnn.pad_sequence(docs, batch_first=True)
    pad = torch.nn.utils.rnn.pad_sequence([torch.ones(len(x), dtype=torch.bool) for x in docs], batch_first=True)
    user = torch.rand(pad.shape, generator=gen) < 0.6
    user[:, 0] = True
    for semantics in ("exclude", "pylate"):
        mine = hp.colbert_scores(Q.to(device), [x.to(device) for x in docs], None, user.to(device),
                                 mask_semantics=semantics)
        # padding always excluded; the user mask per the semantics
        s = sims(Q.double(), D.double())
        if semantics == "pylate":
            s = s * user.double()[None, :, None, :]
        else:
            s = s.masked_fill(~user[None, :, None, :], float("-inf"))
        s = s.masked_fill(~pad[None, :, None, :], float("-inf")).max(-1).values
        ref = torch.where(torch.isfinite(s), s, torch.zeros_like(s)).sum(-1)
        _close(mine, ref, f"ragged + mask ({semantics})")


def test_bad_arguments():
    Q, D = torch.randn(2, 3, 8), torch.randn(2, 4, 8)
    with pytest.raises(ValueError, match="mask_semantics"):
        hp.colbert_scores(Q, D, mask_semantics="multiply")
    with pytest.raises(ValueError, match="mask_semantics"):
        hp.ColBERTScores(mask_semantics="nope")
    with pytest.raises(TensorError):
        hp.colbert_scores(Q, D[0])
    with pytest.raises(TensorError):
        hp.colbert_kd_scores(Q, D)
    with pytest.raises(TensorError):
        hp.colbert_scores_pairwise(Q, torch.randn(3, 4, 8))
    with pytest.raises(TensorError):
        hp.colbert_scores([torch.randn(2, 8), torch.randn(2, 4)], D)
    with pytest.raises(TensorError):
        hp.colbert_scores(Q, D, None, torch.ones(2, 5), mask_semantics="pylate")


# ----------------------------------------------------------------------------- PyLate's losses' calls

class _Encoder(torch.nn.Module):
    """A stand-in ColBERT model: what PyLate's losses read from theirs."""

    skiplist = [7]
    do_query_expansion = False

    def __init__(self, vocab=16, dim=8, seed=0):
        super().__init__()
        torch.manual_seed(seed)
        self.embed = torch.nn.Embedding(vocab, dim)

    def forward(self, features):
        return {"token_embeddings": self.embed(features["input_ids"])}


def _features(gen, batch, length, vocab=16):
    ids = torch.randint(0, vocab, (batch, length), generator=gen)
    lengths = torch.randint(1, length + 1, (batch,), generator=gen)
    mask = (torch.arange(length)[None, :] < lengths[:, None]).long()
    return {"input_ids": ids * mask, "attention_mask": mask}


def _contrastive_like(model, score_metric, sentence_features, skiplist_mask):
    """The call convention of PyLate's Contrastive loss, written here so the
    convention is checked without PyLate: normalised token embeddings, documents
    stacked [B, N, Ld, d] with masks [B, N, Ld], scores [B, B * N] in query-major
    order, the positive of query i at column i * N."""
    emb = [F.normalize(model(f)["token_embeddings"], p=2, dim=-1) for f in sentence_features]
    masks = [sentence_features[0]["attention_mask"].bool()]
    masks += [skiplist_mask(f) for f in sentence_features[1:]]
    docs = torch.stack(emb[1:], dim=1)
    docs_mask = torch.stack(masks[1:], dim=1)
    scores = score_metric(emb[0], docs, queries_mask=masks[0], documents_mask=docs_mask)
    n = len(emb) - 1
    return F.cross_entropy(scores, torch.arange(emb[0].shape[0]) * n)


def _skiplist_mask(features, skiplist=(7,)):
    keep = features["attention_mask"].bool()
    for token in skiplist:
        keep = keep & (features["input_ids"] != token)
    return keep


@pytest.mark.parametrize("semantics", ["exclude", "pylate"])
def test_contrastive_call_convention_stand_in(semantics):
    gen = torch.Generator().manual_seed(8)
    feats = [_features(gen, 3, 5), _features(gen, 3, 6), _features(gen, 3, 6)]
    model = _Encoder()
    loss = _contrastive_like(model, hp.ColBERTScores(mask_semantics=semantics), feats, _skiplist_mask)
    loss.backward()
    grad = model.embed.weight.grad.clone()

    def eager(q, docs, queries_mask=None, documents_mask=None):
        flat = docs.reshape(-1, *docs.shape[2:])
        fmask = documents_mask.reshape(-1, documents_mask.shape[-1])
        return FORMULAS[semantics](q, flat, queries_mask, fmask)

    ref_model = _Encoder().double()
    ref = _contrastive_like(ref_model, eager, feats, _skiplist_mask)
    ref.backward()
    _close(loss, ref, "loss")
    _close(grad, ref_model.embed.weight.grad, "grad embeddings")


# ----------------------------------------------------------------------------- the real PyLate

@pytest.fixture(scope="module")
def pylate_pkg():
    pytest.importorskip("pylate.losses")
    return pytest.importorskip("pylate.scores")


def test_matches_pylate_scores_exactly_in_pylate_semantics(pylate_pkg):
    from pylate import scores as ps
    gen = torch.Generator().manual_seed(9)
    Q, D, qm, dm = _data(gen, 3, 4, 4, 6, 8)
    for mask_kind in ("bool", "float"):
        qmk, dmk = _mask_as(qm, mask_kind), _mask_as(dm, mask_kind)
        _close(hp.colbert_scores(Q, D, qmk, dmk, mask_semantics="pylate"),
               ps.colbert_scores(Q, D, qmk, dmk, backend="torch"), "colbert_scores", tol=1e-6)
    _, Dk, _, dmk = _data(gen, 3, 4, None, 6, 8, per_query_k=2)
    _close(hp.colbert_kd_scores(Q, Dk, qm, dmk, mask_semantics="pylate"),
           ps.colbert_kd_scores(Q, Dk, qm, dmk, backend="torch"), "colbert_kd_scores", tol=1e-6)
    _, Ds, _, dms = _data(gen, 3, 4, 2, 6, 8, stacked_n=3)
    _close(hp.ColBERTScores(mask_semantics="pylate")(Q, Ds, qm, dms),
           ps.ColBERTScores()(Q, Ds, qm, dms, backend="torch"), "ColBERTScores", tol=1e-6)
    qs = [torch.randn(n, 8, generator=gen) for n in (2, 5, 3)]
    ds = [torch.randn(n, 8, generator=gen) for n in (6, 1, 4)]
    _close(hp.colbert_scores_pairwise(qs, ds), ps.colbert_scores_pairwise(qs, ds, backend="torch"),
           "colbert_scores_pairwise", tol=1e-6)


@pytest.mark.parametrize("loss_name", ["Contrastive", "CachedContrastive", "Distillation"])
def test_as_the_score_metric_of_pylate_losses(pylate_pkg, loss_name):
    """Our functions in PyLate's own losses (with a stand-in encoder): the loss
    and its gradient equal PyLate's default scoring, with mask_semantics="pylate"."""
    import functools

    from pylate import losses
    from pylate import scores as ps
    gen = torch.Generator().manual_seed(10)
    if loss_name != "Distillation":
        feats = [_features(gen, 4, 5), _features(gen, 4, 6), _features(gen, 4, 6)]
        labels = None
        ours = hp.ColBERTScores(mask_semantics="pylate")
        theirs = functools.partial(ps.ColBERTScores(), backend="torch")
        make = (losses.Contrastive if loss_name == "Contrastive"
                else functools.partial(losses.CachedContrastive, mini_batch_size=2))
    else:
        feats = [_features(gen, 2, 5), _features(gen, 2 * 3, 6)]
        labels = torch.randn(2, 3, generator=gen)
        ours = functools.partial(hp.colbert_kd_scores, mask_semantics="pylate")
        theirs = functools.partial(ps.colbert_kd_scores, backend="torch")
        make = losses.Distillation
    results = []
    for metric in (ours, theirs):
        model = _Encoder()
        loss = make(model=model, score_metric=metric)(feats, labels)
        loss.backward()
        results.append((loss.detach(), model.embed.weight.grad.clone()))
    (mine, g_mine), (ref, g_ref) = results
    _close(mine, ref, f"{loss_name} loss", tol=1e-5)
    _close(g_mine, g_ref, f"{loss_name} grad", tol=1e-5)
    # the default semantics runs in the same losses too
    model = _Encoder()
    default = hp.colbert_kd_scores if loss_name == "Distillation" else hp.colbert_scores
    value = make(model=model, score_metric=default)(feats, labels)
    value.backward()
    assert torch.isfinite(value) and model.embed.weight.grad is not None

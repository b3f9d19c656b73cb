"""hsr.ops.sentence_transformers: SpladePooling (max) with the MLM decoder fused,
through the Triton interpreter here (and on CUDA with HSR_TEST_DEVICE=cuda).

Checked against sentence-transformers' formula in float64, values and gradients:

    logits = hidden @ W.T + b,  act = log1p(relu(logits * mask))  ["relu"]
                                act = log1p(log1p(relu(logits * mask)))  ["log1p_relu"]
    rep[b, v] = max_s act[b, s, v]

with a local stand-in of a SparseEncoder (an MLM module exposing ``auto_model``
and a SpladePooling-like module), and with the real package where it is
installed (pytest.importorskip): a tiny random BERT built on the spot.
"""

from __future__ import annotations

import copy
import warnings

import pytest
import torch
from torch import nn

from hsr.ops.sentence_transformers import FusedSpladePooling, fuse_splade, unfuse_splade

ACTIVATIONS = ["relu", "log1p_relu"]
TOL = 1e-4


def st_formula(logits, mask, activation):
    """sentence-transformers' SpladePooling, max pooling, on logits."""
    if mask is not None:
        logits = logits * mask.unsqueeze(-1).to(logits.dtype)
    act = torch.log1p(torch.relu(logits))
    if activation == "log1p_relu":
        act = torch.log1p(act)
    return act.max(dim=1).values


def _close(mine, ref, what, tol=TOL):
    mine, ref = mine.detach().cpu().double(), ref.detach().cpu().double()
    assert mine.shape == ref.shape, f"{what}: shape {tuple(mine.shape)}, expected {tuple(ref.shape)}"
    err = (mine - ref).abs().max().item() if ref.numel() else 0.0
    bound = tol * max(ref.abs().max().item() if ref.numel() else 0.0, 1.0)
    assert err <= bound, f"{what}: max abs error {err:.3g} > {bound:.3g}"


def _decoder(gen, h, v, bias=True):
    lin = nn.Linear(h, v, bias=bias)
    with torch.no_grad():
        lin.weight.copy_(torch.randn(v, h, generator=gen) / h ** 0.5)
        if bias:
            lin.bias.copy_(torch.randn(v, generator=gen) * 0.5)
    return lin


# ----------------------------------------------------------------------------- the module on features

@pytest.mark.parametrize("activation", ACTIVATIONS)
@pytest.mark.parametrize("bias", [True, False])
def test_fused_pooling_values_and_grads(device, activation, bias):
    gen = torch.Generator().manual_seed(1)
    hidden = torch.randn(3, 6, 8, generator=gen)
    decoder = _decoder(gen, 8, 21, bias).to(device)
    mask = torch.tensor([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1], [0, 0, 0, 0, 0, 0]])   # a row with no token
    module = FusedSpladePooling(decoder, activation_function=activation)
    h = hidden.clone().to(device).requires_grad_()
    features = {"token_embeddings": h, "attention_mask": mask.to(device), "input_ids": torch.zeros(3, 6)}
    out = module(features)
    assert out is features and "input_ids" in out and out["token_embeddings"] is h
    rep = out["sentence_embedding"]
    assert rep.shape == (3, 21) and rep.dtype == torch.float32
    assert module.get_sentence_embedding_dimension() == 21 == module.get_embedding_dimension()

    rh = hidden.double().requires_grad_()
    rw = decoder.weight.detach().cpu().double().requires_grad_()
    rb = decoder.bias.detach().cpu().double().requires_grad_() if bias else None
    logits = rh @ rw.T + (rb if bias else 0)
    ref = st_formula(logits, mask, activation)
    _close(rep, ref, "sentence_embedding")
    assert rep[2].abs().max() == 0
    w = torch.randn(ref.shape, generator=gen, dtype=torch.float64)
    (rep * w.to(rep.device, rep.dtype)).sum().backward()
    (ref * w).sum().backward()
    _close(h.grad, rh.grad, "grad hidden", 4e-4)
    _close(decoder.weight.grad, rw.grad, "grad decoder weight", 4e-4)
    if bias:
        _close(decoder.bias.grad, rb.grad, "grad decoder bias", 4e-4)
    assert list(module.parameters()) == []            # the decoder is borrowed, not owned


def test_unpadded_batches_match_padded(device):
    """sentence-transformers 6 may hand over [1, T, H] tokens with cu_seq_lens_q."""
    gen = torch.Generator().manual_seed(2)
    decoder = _decoder(gen, 8, 13).to(device)
    lengths = [3, 1, 5]
    seqs = [torch.randn(n, 8, generator=gen) for n in lengths]
    flat = torch.cat(seqs)[None].to(device)
    offsets = torch.tensor([0, 3, 4, 9])
    module = FusedSpladePooling(decoder)
    rep = module({"token_embeddings": flat, "cu_seq_lens_q": offsets})["sentence_embedding"]
    padded = torch.nn.utils.rnn.pad_sequence(seqs, batch_first=True).to(device)
    mask = (torch.arange(5)[None] < torch.tensor(lengths)[:, None]).to(device)
    _close(rep, module({"token_embeddings": padded, "attention_mask": mask})["sentence_embedding"], "unpadded")


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_unbound_module_pools_logits_as_sentence_transformers_does(activation):
    gen = torch.Generator().manual_seed(3)
    logits = torch.randn(2, 4, 11, generator=gen)
    mask = torch.tensor([[1, 1, 0, 0], [1, 1, 1, 1]])
    module = FusedSpladePooling(activation_function=activation, word_embedding_dimension=11)
    with pytest.warns(UserWarning, match="fuse_splade"):
        rep = module({"token_embeddings": logits, "attention_mask": mask})["sentence_embedding"]
    _close(rep, st_formula(logits.double(), mask, activation), "unbound")
    with warnings.catch_warnings():
        warnings.simplefilter("error")                 # warned once only
        module({"token_embeddings": logits, "attention_mask": mask})
    with pytest.raises(Exception, match="width"):
        module({"token_embeddings": torch.randn(2, 4, 7), "attention_mask": mask})


def test_config_save_and_load(tmp_path):
    gen = torch.Generator().manual_seed(4)
    module = FusedSpladePooling(_decoder(gen, 4, 9), activation_function="log1p_relu")
    assert module.get_config_dict() == {"pooling_strategy": "max", "activation_function": "log1p_relu",
                                        "word_embedding_dimension": 9}
    module.save(str(tmp_path))
    loaded = FusedSpladePooling.load(str(tmp_path))
    assert loaded.get_config_dict() == module.get_config_dict() and loaded.decoder is None
    assert "unbound" in repr(loaded) and "bound" in repr(module)
    # sentence-transformers 6 names the dimension embedding_dimension
    assert FusedSpladePooling(embedding_dimension=9).get_sentence_embedding_dimension() == 9
    with pytest.raises(ValueError, match="rows"):
        FusedSpladePooling(_decoder(gen, 4, 9), word_embedding_dimension=10)


def test_refuses_what_is_not_fused():
    with pytest.raises(ValueError, match="max"):
        FusedSpladePooling(pooling_strategy="sum")
    with pytest.raises(ValueError, match="activation_function"):
        FusedSpladePooling(activation_function="gelu")
    with pytest.raises(TypeError):
        FusedSpladePooling(nn.ReLU())


# ----------------------------------------------------------------------------- fuse_splade on a stand-in encoder

class _TinyMaskedLM(nn.Module):
    """What fuse_splade needs of a Hugging Face masked-LM model: a head whose
    last step is get_output_embeddings(), an nn.Linear."""

    def __init__(self, vocab=23, hidden=8, seed=0):
        super().__init__()
        torch.manual_seed(seed)
        self.embed = nn.Embedding(vocab, hidden)
        self.transform = nn.Sequential(nn.Linear(hidden, hidden), nn.GELU(), nn.LayerNorm(hidden))
        self.decoder = nn.Linear(hidden, vocab)
        self.decoder.weight = self.embed.weight                  # tied, as BERT's is

    def get_output_embeddings(self):
        return self.decoder

    def forward(self, input_ids, attention_mask=None):
        return self.decoder(self.transform(self.embed(input_ids)))


class _MLMModule(nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.auto_model = _TinyMaskedLM(**kw)

    def forward(self, features):
        features["token_embeddings"] = self.auto_model(features["input_ids"], features["attention_mask"])
        return features


class SpladePooling(nn.Module):
    """A stand-in of sentence-transformers' SpladePooling (max)."""

    def __init__(self, pooling_strategy="max", activation_function="relu", word_embedding_dimension=None,
                 chunk_size=None):
        super().__init__()
        self.pooling_strategy, self.activation_function = pooling_strategy, activation_function
        self.word_embedding_dimension, self.chunk_size = word_embedding_dimension, chunk_size

    def forward(self, features):
        features["sentence_embedding"] = st_formula(features["token_embeddings"], features["attention_mask"],
                                                    self.activation_function)
        return features


def _batch(gen, b=3, length=6, vocab=23):
    ids = torch.randint(0, vocab, (b, length), generator=gen)
    lengths = torch.tensor([length, 2, 4])[:b]
    return {"input_ids": ids, "attention_mask": (torch.arange(length)[None] < lengths[:, None]).long()}


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_fuse_splade_on_a_stand_in_encoder(device, activation):
    gen = torch.Generator().manual_seed(5)
    batch = _batch(gen)
    plain = nn.Sequential(_MLMModule(), SpladePooling(activation_function=activation)).to(device)
    fused = fuse_splade(copy.deepcopy(plain))
    assert isinstance(fused[1], FusedSpladePooling) and fused[1].decoder is fused[0].auto_model.decoder
    assert fuse_splade(fused) is fused                        # idempotent
    assert set(dict(plain.named_parameters())) == set(dict(fused.named_parameters()))
    assert plain.state_dict().keys() == fused.state_dict().keys()

    outs = []
    for model in (plain, fused):
        rep = model({k: v.to(device) for k, v in batch.items()})["sentence_embedding"]
        w = torch.randn(rep.shape, generator=torch.Generator().manual_seed(0))
        (rep * w.to(device)).sum().backward()
        outs.append((rep, {n: p.grad for n, p in model.named_parameters()}))
    (ref, ref_grads), (mine, grads) = outs
    _close(mine, ref, "fused vs unfused")
    for name, g in ref_grads.items():
        _close(grads[name], g, f"grad {name}", 4e-4)
    # a deep copy stays fused, on its own copy of the decoder
    twin = copy.deepcopy(fused)
    assert twin[1].decoder is twin[0].auto_model.decoder is not fused[0].auto_model.decoder


def test_fuse_splade_refuses():
    with pytest.raises(ValueError, match="SpladePooling"):
        fuse_splade(nn.Sequential(_MLMModule()))
    with pytest.raises(ValueError, match="max"):
        fuse_splade(nn.Sequential(_MLMModule(), SpladePooling(pooling_strategy="sum")))
    with pytest.raises(ValueError, match="masked-LM"):
        fuse_splade(nn.Sequential(nn.Identity(), SpladePooling()))


# ----------------------------------------------------------------------------- the real sentence-transformers

@pytest.fixture(scope="module")
def st_tiny(tmp_path_factory):
    """A tiny random BERT masked-LM with a word-piece tokenizer, saved locally."""
    pytest.importorskip("sentence_transformers")
    transformers = pytest.importorskip("transformers")
    path = tmp_path_factory.mktemp("tiny-bert")
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *"abcdefghijklmnopqrstuvwxyz",
             "hello", "world", "the", "cat", "dog", "sat", "on", "mat"]
    (path / "vocab.txt").write_text("\n".join(words) + "\n")
    tokenizer = transformers.BertTokenizerFast(vocab_file=str(path / "vocab.txt"), do_lower_case=True)
    config = transformers.BertConfig(vocab_size=len(words), hidden_size=16, num_hidden_layers=1,
                                     num_attention_heads=2, intermediate_size=32, max_position_embeddings=32,
                                     hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    torch.manual_seed(0)
    transformers.BertForMaskedLM(config).save_pretrained(str(path))
    tokenizer.save_pretrained(str(path))
    return path


def _st_classes():
    """SparseEncoder, a masked-LM transformer module factory, SpladePooling."""
    from sentence_transformers import SparseEncoder
    try:                                                                            # v6
        from sentence_transformers.base.modules import Transformer
        from sentence_transformers.sparse_encoder.modules import SpladePooling

        def mlm(path):
            return Transformer(path, transformer_task="fill-mask")
    except ImportError:                                                             # v5
        from sentence_transformers.sparse_encoder.models import MLMTransformer as mlm
        from sentence_transformers.sparse_encoder.models import SpladePooling
    return SparseEncoder, mlm, SpladePooling


TEXTS = ["hello world", "the cat sat on the mat", "dog"]


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_sparse_encoder_fused_equals_unfused(st_tiny, device, activation):
    SparseEncoder, mlm, SpladePooling = _st_classes()
    model = SparseEncoder(modules=[mlm(str(st_tiny)), SpladePooling("max", activation)], device=device)
    ref = model.encode(TEXTS, convert_to_tensor=True).to_dense()
    fused = fuse_splade(copy.deepcopy(model))
    assert isinstance(fused[1], FusedSpladePooling)
    _close(fused.encode(TEXTS, convert_to_tensor=True).to_dense(), ref, "encode")
    # training: the same loss gradient on every parameter (the decoder's tied weight included)
    prepare = getattr(model, "preprocess", None) or model.tokenize          # v6 / v5
    features = {k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in prepare(TEXTS).items()}
    grads = []
    for m in (model, fused):
        m.train()
        rep = m(dict(features))["sentence_embedding"]
        w = torch.randn(rep.shape, generator=torch.Generator().manual_seed(0))
        (rep * w.to(device)).sum().backward()
        grads.append({n: p.grad for n, p in m.named_parameters() if p.grad is not None})
    assert grads[0].keys() == grads[1].keys() and grads[0]
    for name, g in grads[0].items():
        _close(grads[1][name], g, f"grad {name}", 4e-4)


def test_sparse_encoder_save_load_roundtrips(st_tiny, tmp_path, device):
    SparseEncoder, mlm, SpladePooling = _st_classes()
    model = SparseEncoder(modules=[mlm(str(st_tiny)), SpladePooling("max", "relu")], device=device)
    ref = model.encode(TEXTS, convert_to_tensor=True).to_dense()
    fused = fuse_splade(model)
    fused.save(str(tmp_path / "fused"))
    # a saved fused model names hsr's class in modules.json (so sentence-transformers 6
    # asks for trust_remote_code); it loads unbound and pools the logits, then fuses again
    loaded = SparseEncoder(str(tmp_path / "fused"), device=device, trust_remote_code=True)
    assert isinstance(loaded[1], FusedSpladePooling) and loaded[1].decoder is None
    with pytest.warns(UserWarning, match="fuse_splade"):
        _close(loaded.encode(TEXTS, convert_to_tensor=True).to_dense(), ref, "loaded unbound")
    _close(fuse_splade(loaded).encode(TEXTS, convert_to_tensor=True).to_dense(), ref, "loaded, fused again")
    # unfused, it saves as a plain sentence-transformers model
    unfuse_splade(fused)
    assert type(fused[1]) is SpladePooling
    fused.save(str(tmp_path / "plain"))
    plain = SparseEncoder(str(tmp_path / "plain"), device=device)
    assert type(plain[1]) is SpladePooling
    _close(plain.encode(TEXTS, convert_to_tensor=True).to_dense(), ref, "unfused, saved, loaded")

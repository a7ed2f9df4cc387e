"""The Models page's LLaMA-style block equals transformers' LlamaDecoderLayer with the same
weights, and it is causal: a later token never changes an earlier output. Its table of model
families is well formed and agrees with the configurations it was checked against, and the
page's Markdown table of them is what families.py prints. Two defaults the pages state in
words are transformers'."""

from itertools import groupby

import pytest
import torch
from page_text import read
from site_layout import ROOT
from transformers import (
    BertConfig,
    FalconConfig,
    GPT2Config,
    GptOssConfig,
    LlamaConfig,
    LlamaForCausalLM,
    MistralConfig,
    MixtralConfig,
    Qwen3Config,
    Qwen3NextConfig,
    T5Config,
    ViTConfig,
)
from transformers.models.llama.modeling_llama import (
    LlamaDecoderLayer,
    LlamaRotaryEmbedding,
)

from scripts import model_table
from snippets.models.checkpoints import MODELS
from snippets.models.configs import LLAMA_2_7B, LLAMA_2_70B
from snippets.models.fused_block import FusedDecoderBlock
from snippets.models.llama_block import DecoderBlock, TinyLlama, rotary_tables

CONFIG = {
    "hidden_size": 64,
    "intermediate_size": 172,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,  # grouped-query attention: 2 queries per key/value head
    "rms_norm_eps": 1e-5,
    "num_hidden_layers": 1,
    "vocab_size": 32,
}


def bfloat16_steps(t):
    """The spacing of bfloat16 values at the size of t's largest entry."""
    return 2.0 ** (torch.floor(torch.log2(t.abs().max().float())) - 7)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_block_matches_transformers_llama_decoder_layer(dtype):
    """Float32: within 1e-5. Bfloat16: the site's norm rounds once, after the gain, where
    transformers' rounds before it (Pitfalls), so within three steps of the largest output;
    with transformers' norms in the block the two outputs are equal bit for bit."""
    torch.manual_seed(0)
    config = LlamaConfig(**CONFIG)
    config._attn_implementation = "eager"
    theirs = LlamaDecoderLayer(config, layer_idx=0).eval()
    with torch.no_grad():  # non-trivial norm weights, so they are really compared
        for norm in (theirs.input_layernorm, theirs.post_attention_layernorm):
            norm.weight.uniform_(0.5, 1.5)
    ours = DecoderBlock(64, n_heads=4, n_kv_heads=2, hidden=172, eps=1e-5)
    ours.load_state_dict(theirs.state_dict())  # the same names and shapes
    theirs, ours = theirs.to(dtype), ours.to(dtype)

    x = (torch.randn(2, 10, 64) * 3e-3).to(
        dtype
    )  # mean square 9e-6: the eps (1e-5) matters
    positions = torch.arange(10).unsqueeze(0).expand(2, -1)
    cos_sin = LlamaRotaryEmbedding(config)(x, positions)
    causal = torch.full((10, 10), float("-inf"), dtype=dtype).triu(1)[None, None]
    with torch.no_grad():
        expected = theirs(x, attention_mask=causal, position_embeddings=cos_sin)
        expected = expected[0] if isinstance(expected, tuple) else expected
        got = ours(x, *rotary_tables(10, 16))
    assert got.dtype == expected.dtype == dtype
    tolerance = 1e-5 if dtype == torch.float32 else 3 * bfloat16_steps(expected)
    assert torch.allclose(got, expected, atol=tolerance, rtol=0)
    if dtype == torch.bfloat16:  # everything but the norms rounds as transformers does
        ours.input_layernorm = theirs.input_layernorm
        ours.post_attention_layernorm = theirs.post_attention_layernorm
        with torch.no_grad():
            assert torch.equal(ours(x, *rotary_tables(10, 16)), expected)


def test_fused_block_matches_transformers_in_outputs_and_gradients():
    """The block with the Kernel page's fused add and norm: transformers' decoder layer's
    output, and its gradients for the input and every parameter, in float32."""
    torch.manual_seed(1)
    config = LlamaConfig(**CONFIG | {"rms_norm_eps": 0.1})  # large, so that it matters
    config._attn_implementation = "eager"
    theirs = LlamaDecoderLayer(config, layer_idx=0)
    with torch.no_grad():
        for norm in (theirs.input_layernorm, theirs.post_attention_layernorm):
            norm.weight.uniform_(0.5, 1.5)
    ours = FusedDecoderBlock(64, n_heads=4, n_kv_heads=2, hidden=172, eps=0.1)
    ours.load_state_dict(theirs.state_dict())
    x = torch.randn(2, 10, 64)
    positions = torch.arange(10).unsqueeze(0).expand(2, -1)
    cos_sin = LlamaRotaryEmbedding(config)(x, positions)
    causal = torch.full((10, 10), float("-inf")).triu(1)[None, None]
    results = []
    for layer, call in [
        (
            theirs,
            lambda h: theirs(h, attention_mask=causal, position_embeddings=cos_sin),
        ),
        (ours, lambda h: ours(h, *rotary_tables(10, 16))),
    ]:
        h = x.clone().requires_grad_()
        out = call(h)
        out = out[0] if isinstance(out, tuple) else out
        (out * torch.linspace(-1, 1, 64)).sum().backward()
        grads = {name: p.grad for name, p in layer.named_parameters()}
        results.append((out.detach(), h.grad, grads))
    (want, want_dx, want_grads), (got, got_dx, got_grads) = results
    assert torch.allclose(got, want, atol=1e-5, rtol=0)
    assert torch.allclose(got_dx, want_dx, atol=1e-5, rtol=0)
    assert want_grads.keys() == got_grads.keys()
    for name, grad in want_grads.items():
        assert torch.allclose(got_grads[name], grad, atol=1e-5, rtol=0), name


def test_rotary_tables_match_transformers():
    config = LlamaConfig(**CONFIG)
    x = torch.zeros(1, 7, 64)
    cos, sin = LlamaRotaryEmbedding(config)(x, torch.arange(7)[None])
    ours = rotary_tables(7, 16)
    assert torch.allclose(ours[0], cos[0], atol=1e-6)
    assert torch.allclose(ours[1], sin[0], atol=1e-6)


def test_tiny_llama_takes_a_transformers_checkpoint_with_its_eps_and_theta():
    """LlamaForCausalLM's weights load by name; with the checkpoint's eps and RoPE base
    (not the class defaults) the logits are transformers'."""
    torch.manual_seed(0)
    config = LlamaConfig(
        **CONFIG | {"num_hidden_layers": 2, "rms_norm_eps": 1e-6},
        rope_parameters={"rope_type": "default", "rope_theta": 500000.0},
    )
    config._attn_implementation = "eager"
    theirs = LlamaForCausalLM(config).eval()
    with torch.no_grad():
        for name, parameter in theirs.named_parameters():
            if "norm" in name:
                parameter.uniform_(0.5, 1.5)
    ours = TinyLlama(vocab=32, eps=1e-6, theta=500000.0).eval()
    state = {k.removeprefix("model."): v for k, v in theirs.state_dict().items()}
    ours.load_state_dict(state)  # strict: every name matches
    tokens = torch.randint(0, 32, (2, 10))
    with torch.no_grad():
        assert torch.allclose(ours(tokens), theirs(tokens).logits, atol=1e-5, rtol=0)


def test_model_is_causal():
    torch.manual_seed(0)
    model = TinyLlama(vocab=32).eval()
    tokens = torch.randint(0, 32, (1, 12))
    changed = tokens.clone()
    changed[0, 8:] = (changed[0, 8:] + 1) % 32  # change every token from position 8 on
    with torch.no_grad():
        before, after = model(tokens), model(changed)
    assert torch.equal(before[:, :8], after[:, :8])
    assert not torch.allclose(before[:, 8:], after[:, 8:])


@pytest.mark.parametrize(
    "dim, n_heads, n_kv_heads",
    [(64, 5, 5), (64, 4, 3), (40, 8, 8)],  # 64 / 5, 4 / 3, a head size of 5
    ids=["partial head", "partial group", "odd head size"],
)
def test_a_block_whose_heads_do_not_divide_is_refused_by_name(dim, n_heads, n_kv_heads):
    message = f"got dim={dim}, n_heads={n_heads}, n_kv_heads={n_kv_heads}"
    with pytest.raises(ValueError, match=message):
        DecoderBlock(dim, n_heads, n_kv_heads, hidden=172)


def test_each_family_is_one_block_with_one_model_type_and_distinct_models():
    families = [family for family, *_ in MODELS]
    blocks = [family for family, _ in groupby(families)]
    assert len(blocks) == len(set(blocks))  # a family split in two would print twice
    for family in blocks:
        lines = [line for line in MODELS if line[0] == family]
        assert len({model_type for _, model_type, *_ in lines}) == 1, family
        assert len({model for _, _, model, *_ in lines}) == len(lines), family


# The family table's lines that transformers' configuration classes describe too: the
# page's LLaMA-2 configurations, and the defaults of classes whose defaults are the named
# checkpoint's (transformers names it in the class's auto_docstring).
# meta-llama/Llama-2-7b-hf and Llama-2-70b-hf, config.json: written here, not taken from
# snippets/models/configs.py, so that a value mistyped there fails.
PUBLISHED = {
    "7B": {"hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
           "num_attention_heads": 32, "num_key_value_heads": 32, "vocab_size": 32000,
           "rms_norm_eps": 1e-5},
    "70B": {"hidden_size": 8192, "intermediate_size": 28672, "num_hidden_layers": 80,
            "num_attention_heads": 64, "num_key_value_heads": 8, "vocab_size": 32000,
            "rms_norm_eps": 1e-5},
}  # fmt: skip


@pytest.mark.parametrize("model, config", [("7B", LLAMA_2_7B), ("70B", LLAMA_2_70B)])
def test_llama_2_configs_are_the_published_ones(model, config):
    assert {key: getattr(config, key) for key in PUBLISHED[model]} == PUBLISHED[model]


@pytest.mark.parametrize(
    "family, model, config, hidden, eps",
    [
        (
            "LLaMA 2",
            "7B",
            LlamaConfig(**PUBLISHED["7B"]),
            "hidden_size",
            "rms_norm_eps",
        ),
        (
            "LLaMA 2",
            "70B",
            LlamaConfig(**PUBLISHED["70B"]),
            "hidden_size",
            "rms_norm_eps",
        ),
        ("Mixtral", "8x7B", MixtralConfig(), "hidden_size", "rms_norm_eps"),
        ("Qwen3", "8B", Qwen3Config(), "hidden_size", "rms_norm_eps"),
        ("Qwen3-Next", "80B-A3B", Qwen3NextConfig(), "hidden_size", "rms_norm_eps"),
        ("GPT-OSS", "20B", GptOssConfig(), "hidden_size", "rms_norm_eps"),
        ("T5", "Small", T5Config(), "d_model", "layer_norm_epsilon"),
        ("GPT-2", "124M", GPT2Config(), "n_embd", "layer_norm_epsilon"),
        ("BERT", "Base", BertConfig(), "hidden_size", "layer_norm_eps"),
        ("ViT", "Base", ViTConfig(), "hidden_size", "layer_norm_eps"),
        ("Falcon", "7B", FalconConfig(), "hidden_size", "layer_norm_epsilon"),
    ],
)
def test_family_table_agrees_with_transformers_configs(
    family, model, config, hidden, eps
):
    lines = {(line[0], line[2]): line for line in MODELS}
    _, model_type, _, table_hidden, table_eps = lines[(family, model)]
    assert model_type == config.model_type
    assert (table_hidden, table_eps) == (getattr(config, hidden), getattr(config, eps))


def test_the_pages_family_table_is_what_families_py_prints(tmp_path):
    """scripts/model_table.py reads families.py's output lines, every model of MODELS in
    its family's row, and the committed tables are what it writes from them."""
    source = model_table.SNIPPET.read_text(encoding="utf-8")
    entries = model_table.families(model_table.printed_table(source))
    assert [entry["family"] for entry in entries] == [
        family for family, _ in groupby(family for family, *_ in MODELS)
    ]
    shown = [model for entry in entries for model in entry["models"]]
    assert shown == [f"{model}: {hidden}, {eps:g}" for *_, model, hidden, eps in MODELS]
    for fresh in model_table.write(tmp_path):
        committed = model_table.SNIPPET.parent / fresh.name
        assert committed.read_text(encoding="utf-8") == fresh.read_text(
            encoding="utf-8"
        ), f"{fresh.name}: run `python -m scripts.model_table`"


def test_mistral_7bs_sliding_window_is_stated_as_its_config_gives():
    """A default the Models page gives in prose, not printed by a block."""
    window = MistralConfig().sliding_window
    stated = {
        "en": f"its sliding window of {window} tokens",
        "ko": f"{window}토큰의 슬라이딩 윈도",
    }
    for language, words in stated.items():
        page = " ".join(read(ROOT / "docs" / language / "models.md").split())
        assert words in page, f"docs/{language}/models.md must say '{words}'"

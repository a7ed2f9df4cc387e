"""The Activations and attention page's claims: one large channel's effect on the others;
float16's largest square; QK-norm's bound on the logits, per head and over whole
projections; Gemma 2's logit cap; Llama 4's share of layers with RoPE, as stated."""

import math

import pytest
import torch
import torch.nn.functional as F
from page_text import read
from site_layout import ROOT

from snippets.activations.attention_lm import Attention, logit_bound


@pytest.mark.parametrize("m", [10.0, 100.0, 1000.0])
def test_large_channel_scales_the_others(m):
    torch.manual_seed(1)
    n = 4096
    x = torch.randn(n, dtype=torch.float64)
    x = x / x.pow(2).mean().sqrt()
    x[0] = m
    rest = x[1:]
    y = F.rms_norm(x, (n,), eps=0.0)[1:]
    expected = 1 / math.sqrt((rest.pow(2).sum() + m**2) / n)
    assert torch.allclose(y, rest * expected, rtol=1e-12)
    assert math.isclose(expected, (1 + m**2 / n) ** -0.5, rel_tol=1e-3)


def test_llama_4s_share_of_rope_layers_is_stated_as_its_config_gives():
    """The share of Llama 4's layers that use RoPE, the layers whose queries and keys its
    L2 norm normalizes: given in prose, not printed by a block."""
    from transformers import Llama4TextConfig

    uses_rope = Llama4TextConfig().no_rope_layers  # 1 where a layer uses RoPE
    assert 4 * sum(uses_rope) == 3 * len(uses_rope)
    stated = {
        "en": "(by default three layers in four)",
        "ko": "(기본값으로는 네 층 중 세 층)",
    }
    for language, words in stated.items():
        page = read(ROOT / "docs" / language / "activations.md")
        assert words in page, f"docs/{language}/activations.md must say '{words}'"


def test_float16_square_overflows_above_255_875():
    assert torch.tensor(255.875, dtype=torch.float16).pow(2).isfinite()
    assert torch.tensor(256.0, dtype=torch.float16).pow(2).isinf()


def test_qk_norm_bounds_the_logits():
    torch.manual_seed(2)
    attention = Attention(64, 4, qk_norm=True)
    with torch.no_grad():
        attention.q_norm.weight.uniform_(-3, 3)
        attention.k_norm.weight.uniform_(-3, 3)
        attention.qkv.weight.mul_(1000)
        attention(torch.randn(2, 16, 64))
    assert 0 < attention.max_logit <= logit_bound(attention)


def test_the_logit_bound_is_reached_when_keys_align_with_queries():
    """The bound is tight: with constant gains (2 and -1.5) and keys that are minus the
    queries, each token's logit on itself is sqrt(head_dim) * 2 * 1.5, the bound."""
    torch.manual_seed(3)
    attention = Attention(64, 4, qk_norm=True)
    with torch.no_grad():
        attention.q_norm.weight.fill_(2.0)
        attention.k_norm.weight.fill_(-1.5)
        attention.qkv.weight[64:128] = -attention.qkv.weight[:64]  # k = -q
        attention(torch.randn(2, 16, 64))
    assert logit_bound(attention) == pytest.approx(12.0)  # head_dim 16
    assert attention.max_logit == pytest.approx(12.0, rel=1e-4)


def test_gemma3s_bound_uses_its_scale_and_its_1_plus_w_gains():
    """Gemma 3 scales logits by query_pre_attn_scalar ** -0.5 and applies 1 + w: the bound
    is d * max|1 + w_q| * max|1 + w_k| / sqrt(query_pre_attn_scalar), reached by k = q."""
    from transformers.models.gemma3.modeling_gemma3 import Gemma3RMSNorm

    torch.manual_seed(4)
    d, scalar = 16, 24.0  # a scalar other than head_dim
    q_norm, k_norm = Gemma3RMSNorm(d, eps=1e-6), Gemma3RMSNorm(d, eps=1e-6)
    with torch.no_grad():
        q_norm.weight.uniform_(-3, 3)
        k_norm.weight.uniform_(-3, 3)
        q, k = torch.randn(32, d) * 100, torch.randn(32, d) * 100
        logits = q_norm(q) @ k_norm(k).T * scalar**-0.5
        gains = (1 + q_norm.weight).abs().max() * (1 + k_norm.weight).abs().max()
        bound = d * gains / scalar**0.5
        assert 0 < logits.abs().max() <= bound
        q_norm.weight.fill_(1.0)  # gains 1 + w = 2, reached by a key equal to its query
        k_norm.weight.fill_(0.5)
        reached = q_norm(q[:1]) @ k_norm(q[:1]).T * scalar**-0.5
    assert reached.item() == pytest.approx(d * 2 * 1.5 / scalar**0.5, rel=1e-4)


def test_gemma4s_bound_has_no_scale_and_its_gains_stored_as_they_are():
    """Gemma 4's attention scales its logits by 1 and its norms multiply by w itself: the
    bound is d * max|w_q| * max|w_k|, reached by k = q with constant gains."""
    from transformers import Gemma4TextConfig
    from transformers.models.gemma4.modeling_gemma4 import (
        Gemma4RMSNorm,
        Gemma4TextAttention,
    )

    config = Gemma4TextConfig(
        hidden_size=32, num_attention_heads=2, num_key_value_heads=1, head_dim=16
    )
    with torch.device("meta"):
        attention = Gemma4TextAttention(config, layer_idx=0)
    assert attention.scaling == 1.0
    assert isinstance(attention.q_norm, Gemma4RMSNorm)

    torch.manual_seed(5)
    d = 16
    q_norm, k_norm = Gemma4RMSNorm(d, eps=1e-6), Gemma4RMSNorm(d, eps=1e-6)
    with torch.no_grad():
        q_norm.weight.uniform_(-3, 3)
        k_norm.weight.uniform_(-3, 3)
        q, k = torch.randn(32, d) * 100, torch.randn(32, d) * 100
        logits = q_norm(q) @ k_norm(k).T
        bound = d * q_norm.weight.abs().max() * k_norm.weight.abs().max()
        assert 0 < logits.abs().max() <= bound
        q_norm.weight.fill_(2.0)
        k_norm.weight.fill_(1.5)
        reached = q_norm(q[:1]) @ k_norm(q[:1]).T
    assert reached.item() == pytest.approx(d * 2 * 1.5, rel=1e-4)


def test_gemma2_caps_attention_logits_at_50():
    from transformers import Gemma2Config
    from transformers.models.gemma2 import modeling_gemma2

    assert Gemma2Config().attn_logit_softcapping == 50.0

    class Module:
        head_dim, num_key_value_groups, training = 4, 1, False

    q = torch.full((1, 1, 1, 4), 10.0)
    k = torch.full((1, 1, 2, 4), 3.0)
    k[..., 1, :] = 2.5
    v = torch.randn(1, 1, 2, 4)
    _, weights = modeling_gemma2.eager_attention_forward(
        Module(), q, k, v, None, scaling=0.5, softcap=50.0
    )
    # Logits 60 and 50 become 50 tanh(60 / 50) and 50 tanh(50 / 50): weights 0.973 and
    # 0.027, where uncapped ones are 0.99995 and 0.00005, and clamped at 50 both 0.5.
    capped = 50.0 * torch.tanh(torch.tensor([60.0, 50.0]) / 50.0)
    assert torch.allclose(weights[0, 0, 0], capped.softmax(0))
    assert weights[0, 0, 0, 0].item() == pytest.approx(0.973, abs=1e-3)


def test_a_norm_over_the_whole_projections_raises_the_bound_by_sqrt_h_h_kv():
    """OLMo 2's QK-norm spans all heads: one head's slice can hold the whole normalized
    vector, so a logit can reach sqrt(H H_kv) times the per-head bound sqrt(d) (gains 1)."""
    heads, kv_heads, d = 4, 2, 16
    q, k = torch.zeros(heads * d), torch.zeros(kv_heads * d)
    q[0] = k[0] = 1.0  # everything in the first head's first feature
    q = F.rms_norm(q, (heads * d,), eps=0.0)
    k = F.rms_norm(k, (kv_heads * d,), eps=0.0)
    logit = q[:d] @ k[:d] / math.sqrt(d)
    assert logit.item() == pytest.approx(math.sqrt(heads * kv_heads) * math.sqrt(d))
    per_head = F.rms_norm(q[:d], (d,), eps=0.0) @ F.rms_norm(k[:d], (d,), eps=0.0)
    assert (per_head / math.sqrt(d)).item() == pytest.approx(math.sqrt(d))

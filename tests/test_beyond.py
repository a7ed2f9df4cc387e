"""The Beyond RMSNorm page's formulas: DeepNorm's decoder-only constants, where they go and
Norm(αx + F(x)) in both models, Peri-LN's x + Norm_out(F(Norm_in(x))), nGPT's update staying
on the unit sphere, and DyT as γ tanh(αx) + β, elementwise, with α starting at 0.5."""

import math

import pytest
import torch
import torch.nn.functional as F

from snippets.beyond.lm import TinyLM
from snippets.beyond.norms import DyT, deepnorm_constants, unit
from snippets.beyond.stack import NGPT_RATE, Block, Stack


@pytest.mark.parametrize("layers", [1, 4, 24, 250])
def test_deepnorm_constants_are_the_decoder_only_ones(layers):
    alpha, beta = deepnorm_constants(layers)
    # DeepNet, decoder-only: α = (2N)^(1/4), β = (8N)^(-1/4).
    assert alpha**4 == pytest.approx(2 * layers)
    assert beta**-4 == pytest.approx(8 * layers)
    # So α > 1 up-weights the residual, and β < 1 shrinks the initialization.
    assert alpha > 1 and beta < 1


def test_deepnorm_scales_the_residual_and_the_right_weights():
    torch.manual_seed(0)
    width, layers = 64, 4
    alpha, beta = deepnorm_constants(layers)
    deep = TinyLM(20, "DeepNorm", width=width, layers=layers, length=8)
    post = TinyLM(20, "post-norm", width=width, layers=layers, length=8)
    assert all(layer.alpha == alpha for layer in deep.layers)
    assert all(layer.alpha == 1.0 for layer in post.layers)
    xavier = math.sqrt(2 / (width + width))  # Xavier-normal std of a square matrix
    for model, gain_v in [(post, 1.0), (deep, beta)]:
        q, k, v = model.layers[1].attention.qkv.weight.view(3, width, width)
        for part, gain in [(q, 1.0), (k, 1.0), (v, gain_v)]:
            assert part.std().item() == pytest.approx(gain * xavier, rel=0.05)
    qkv = deep.layers[0].attention.qkv.weight.view(3, width, width)
    # Queries and keys keep gain 1; values and the output projection get gain β.
    for part, gain in zip(qkv, [1.0, 1.0, beta]):
        assert part.std().item() == pytest.approx(gain * xavier, rel=0.05)
    out = deep.layers[0].attention.out.weight
    assert out.std().item() == pytest.approx(beta * xavier, rel=0.05)
    for mlp in deep.layers[0].mlp[0].weight, deep.layers[0].mlp[2].weight:
        assert mlp.std().item() == pytest.approx(
            beta * math.sqrt(2 / (width + 4 * width)), rel=0.05
        )
    # The residual scaled by α in the tiny LM's layer and in the deep stack's block.
    layer, x = deep.layers[0], torch.randn(2, 8, width)
    h = layer.norm1(alpha * x + layer.attention(x))
    assert torch.allclose(layer(x), layer.norm2(alpha * h + layer.mlp(h)), atol=1e-6)
    block = Block(width, "DeepNorm", alpha)
    expected = F.rms_norm(alpha * x + block.f(x), (width,), eps=1e-6)
    assert torch.allclose(block(x), expected, atol=1e-6)


def test_peri_ln_adds_a_normalized_output():
    torch.manual_seed(0)
    block = Block(32, "Peri-LN").double()
    x = torch.randn(5, 32, dtype=torch.float64) * 7
    update = block(x) - x  # Norm_out(F(Norm_in(x))), gain 1: RMS 1 per row (but for ε)
    rms = update.pow(2).mean(-1).sqrt()
    assert torch.allclose(rms, torch.ones(5, dtype=torch.float64), atol=1e-3)

    def norm(v):
        return F.rms_norm(v, (32,), eps=1e-6)

    assert torch.allclose(update, norm(block.f(norm(x))))


def test_bert_is_post_norm_as_the_comparison_says():
    """The Comparison table's post-norm row: each of BERT's sublayers reads the stream as it
    is, and its LayerNorm normalizes the sum x + F(x) (transformers' BertLayer)."""
    from transformers import BertConfig
    from transformers.models.bert.modeling_bert import BertLayer

    torch.manual_seed(0)
    config = BertConfig(hidden_size=32, num_attention_heads=2, intermediate_size=64)
    layer = BertLayer(config).eval()
    seen = {}

    def keep(name):
        return lambda module, args, out: seen.update({name: (args[0], out)})

    for name, module in [
        ("attention", layer.attention.self),
        ("attention projection", layer.attention.output.dense),
        ("attention norm", layer.attention.output.LayerNorm),
        ("feed-forward", layer.intermediate.dense),
        ("feed-forward projection", layer.output.dense),
        ("feed-forward norm", layer.output.LayerNorm),
    ]:
        module.register_forward_hook(keep(name))
    x = torch.randn(1, 6, 32) * 3
    with torch.no_grad():
        out = layer(x)
    assert torch.equal(seen["attention"][0], x)  # no norm before the sublayer
    summed = x + seen["attention projection"][1]
    assert torch.allclose(seen["attention norm"][0], summed)
    attention_out = seen["attention norm"][1]
    assert torch.equal(seen["feed-forward"][0], attention_out)
    summed = attention_out + seen["feed-forward projection"][1]
    assert torch.allclose(seen["feed-forward norm"][0], summed)
    assert torch.equal(out, seen["feed-forward norm"][1])  # the norm comes last


def test_ngpt_update_stays_on_the_unit_sphere():
    torch.manual_seed(0)
    h = unit(torch.randn(6, 16, dtype=torch.float64))
    assert torch.allclose(h.norm(dim=-1), torch.ones(6, dtype=torch.float64))
    block = Block(16, "nGPT").double()
    assert torch.allclose(block.rate, torch.full((16,), NGPT_RATE, dtype=torch.float64))
    # Rate 0 keeps the state; rate 1 jumps to the normalized sublayer output; rate 0.5
    # lands halfway along the arc between the two.
    block.rate.data.fill_(0.5)
    assert torch.allclose(block(h), unit(h + unit(block.f(h))))
    block.rate.data.fill_(0.0)
    assert torch.allclose(block(h), h)
    block.rate.data.fill_(1.0)
    assert torch.allclose(block(h), unit(block.f(h)))


def test_dory_moves_each_unit_state_toward_its_normalized_sublayer_output():
    """beyond.md: transformers' Nemotron-Labs Dory normalizes each layer's input and each
    sublayer's output with an L2 norm and moves toward the output at a learned
    per-channel rate, ngpt_alpha_init at the start: nGPT's update."""
    from transformers import DoryConfig, DoryModel

    config = DoryConfig(
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        head_dim=16,
        vocab_size=100,
    )
    torch.manual_seed(0)
    model = DoryModel(config).double().eval()
    layer, seen = model.layers[0], {}
    for name in ("self_attn", "mlp"):

        def keep(module, args, out, name=name):
            seen[name] = (args[0], out[0] if isinstance(out, tuple) else out)

        getattr(layer, name).register_forward_hook(keep)
    with torch.no_grad():
        model(input_ids=torch.arange(8).unsqueeze(0))
    h, attention = seen["self_attn"]
    assert torch.allclose(h.norm(dim=-1), torch.ones(1, 8, dtype=torch.float64))
    rate = (layer.lambda_1 * layer.lambda_scale).abs()
    assert torch.allclose(rate, torch.full_like(rate, config.ngpt_alpha_init))
    # The attention's output divided by its L2 norm (with an eps of 1e-6 in the root,
    # not negligible beside this small model's outputs).
    sum_of_squares = attention.pow(2).sum(-1, keepdim=True)
    normalized = layer.post_attention_layernorm(attention)
    assert torch.allclose(normalized, attention / torch.sqrt(sum_of_squares + 1e-6))
    assert torch.allclose(seen["mlp"][0], unit(h + rate * (normalized - h)))
    # Not a plain residual sum, normalized or not.
    assert not torch.allclose(seen["mlp"][0], unit(h + attention), atol=1e-3)


def test_ngpt_stack_feeds_unit_states_to_every_block():
    torch.manual_seed(0)
    model = Stack(6, 16, 4, "nGPT").double()
    _, inputs = model(torch.randn(3, 16, dtype=torch.float64) * 5)
    for h in inputs:
        assert torch.allclose(h.norm(dim=-1), torch.ones(3, dtype=torch.float64))


def test_dyt_is_gamma_tanh_alpha_x_plus_beta():
    torch.manual_seed(0)
    dyt = DyT(8).double()
    assert dyt.alpha.item() == 0.5 and dyt.alpha.numel() == 1
    with torch.no_grad():
        dyt.alpha.fill_(1.7)
        dyt.weight.copy_(torch.randn(8))
        dyt.bias.copy_(torch.randn(8))
    x = torch.randn(3, 8, dtype=torch.float64) * 3
    expected = dyt.weight * torch.tanh(1.7 * x) + dyt.bias
    assert torch.allclose(dyt(x), expected)
    # A whole number, as a reader picking α per model size may write it, is a float α too.
    assert DyT(8, alpha=1).alpha.dtype == torch.float32


def test_dyt_is_elementwise_and_rmsnorm_is_not():
    # Each output of DyT depends on its own input only: a diagonal Jacobian. RMSNorm's
    # output depends on the whole row, through the sum of squares.
    x = torch.randn(8, dtype=torch.float64)
    dyt = DyT(8).double()
    rms = torch.nn.RMSNorm(8).double()
    off_diagonal = ~torch.eye(8, dtype=torch.bool)
    j_dyt = torch.autograd.functional.jacobian(dyt, x)
    j_rms = torch.autograd.functional.jacobian(rms, x)
    assert torch.all(j_dyt[off_diagonal] == 0)
    assert torch.any(j_rms[off_diagonal].abs() > 1e-3)

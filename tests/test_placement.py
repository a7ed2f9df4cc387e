"""The plots helper of the Placement page (snippets/placement/plots.py), which every page's
figures use: without its Korean font it says what to install, and where the stale font list
is when the font was installed after matplotlib listed the fonts; a label without its
Korean is named; a phone's version of a
figure stacks its panels. And the page's formula for a stack's Jacobian, and where Gemma 4
puts its norms with its default layer types, and what the page says of it beyond its table;
and that each of the nine newer models adds its branches to the stream as it came."""

import matplotlib
import pytest
import torch
from matplotlib.figure import Figure
from torch.autograd.functional import jacobian

from snippets.placement import plots


def test_a_missing_korean_font_says_what_to_do(monkeypatch):
    monkeypatch.setattr(plots, "KOREAN_FONT", "No Such Font")
    assert plots.fonts("en") == ["DejaVu Sans"]  # English figures need no other font
    with pytest.raises(RuntimeError) as raised:
        plots.fonts("ko")
    message = str(raised.value)
    assert "No Such Font (Debian: fonts-nanum)" in message
    assert matplotlib.get_cachedir() in message


def test_a_label_without_its_korean_is_named(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(plots, "fonts", lambda language: ["DejaVu Sans"])

    def draw(translate):
        fig = Figure()
        fig.subplots().set_title(translate("a title"))
        return fig

    with pytest.raises(KeyError, match="a title"):
        plots.save_svgs(draw, "untranslated", {})
    assert (tmp_path / "docs/assets/plots/untranslated.svg").exists()  # English first


def test_a_phone_gets_the_panels_one_above_another_and_the_legend_below():
    fig = Figure(figsize=(8.5, 3.4), layout="constrained")
    left, right = fig.subplots(1, 2, sharey=True)
    for ax in (left, right):
        ax.plot([1, 2], [1, 2], label="a line")
    left.set_ylabel("y")
    fig.legend(*left.get_legend_handles_labels(), loc="outside right upper")
    plots.stacked(fig)
    fig.draw_without_rendering()
    assert tuple(fig.get_size_inches()) == (
        plots.PHONE_WIDTH,
        2 * plots.PANEL_HEIGHT + 0.25,
    )
    top, bottom = left.get_position(), right.get_position()
    assert top.x0 == bottom.x0 and top.y0 > bottom.y1  # stacked, not side by side
    assert right.get_ylabel() == "y" and right.yaxis.get_tick_params()["labelleft"]
    (legend,) = fig.legends
    assert legend.get_window_extent().y1 <= bottom.y0 * fig.bbox.height  # below them
    assert [text.get_text() for text in legend.texts] == ["a line"]


def test_a_pre_norm_stacks_jacobian_is_the_product_of_its_blocks():
    """Through L pre-norm blocks h <- h + F(Norm(h)), dh_L/dh_0 = (I + A_L) ... (I + A_1),
    with A_l = J_F J_Norm at block l's input."""
    torch.manual_seed(0)
    n, eye = 8, torch.eye(8, dtype=torch.float64)
    blocks = []
    for _ in range(3):
        norm = torch.nn.RMSNorm(n, eps=1e-6, dtype=torch.float64)
        torch.nn.init.uniform_(norm.weight, 0.5, 2.0)
        f = torch.nn.Sequential(
            torch.nn.Linear(n, 4 * n), torch.nn.ReLU(), torch.nn.Linear(4 * n, n)
        ).double()
        blocks.append((norm, f))

    def stack(h):
        for norm, f in blocks:
            h = h + f(norm(h))
        return h

    h0 = torch.randn(n, dtype=torch.float64)
    product, h = eye, h0
    for norm, f in blocks:
        product = (eye + jacobian(f, norm(h)) @ jacobian(norm, h)) @ product
        h = h + f(norm(h))
    assert torch.allclose(jacobian(stack, h0), product, rtol=1e-10, atol=1e-12)
    assert not torch.allclose(product, eye, atol=0.1)  # the blocks do change the stream


def test_gemma4_normalizes_as_the_placement_page_says():
    """Gemma 4, in the page's table with one full-attention layer, here with the default
    layer types: norms before and after both sublayers, each head's queries and keys
    normalized before RoPE (q_norm reads q_proj's output), and what the table does not
    show: a norm without a gain on the values, logits scaled by 1, each layer's output
    scaled by a buffer of its own, and a third branch with a norm after it only."""
    from transformers import Gemma4TextConfig, Gemma4TextModel

    config = Gemma4TextConfig(
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=16,
        intermediate_size=64,
        vocab_size=64,
    )
    with torch.device("meta"):
        model = Gemma4TextModel(config)
    layer = model.layers[0]
    attention = layer.self_attn
    calls = []  # (name, its first positional input or None, its output), in call order

    def record(name):
        def hook(module, args, output):
            calls.append((name, args[0] if args else None, output))

        return hook

    for name, module in [*layer.named_children(), *attention.named_children()]:
        module.register_forward_hook(record(name))
    model(input_ids=torch.zeros(1, 5, dtype=torch.long, device="meta"))
    order = [name for name, *_ in calls]
    norms = [
        name
        for name in order
        if "norm" in name and name in dict(layer.named_children())
    ]
    # Then, with per-layer inputs (the configuration's default), a fifth norm.
    assert config.hidden_size_per_layer_input == 256
    assert norms == [
        "input_layernorm",
        "post_attention_layernorm",
        "pre_feedforward_layernorm",
        "post_feedforward_layernorm",
        "post_per_layer_input_norm",
    ]
    seen = {name: (received, returned) for name, received, returned in calls}
    # After each sublayer: the norm reads the sublayer's output itself.
    assert seen["post_attention_layernorm"][0] is seen["self_attn"][1][0]
    assert seen["post_feedforward_layernorm"][0] is seen["mlp"][1]
    # The third branch's norm comes after it only.
    assert seen["post_per_layer_input_norm"][0] is seen["per_layer_projection"][1]
    assert seen["q_norm"][0]._base is seen["q_proj"][1]  # before RoPE, per head
    assert seen["q_norm"][0].shape[-1] == attention.head_dim
    assert attention.q_norm.weight is not None and attention.k_norm.weight is not None
    assert not hasattr(attention.v_norm, "weight") and "v_norm" in order
    assert attention.scaling == 1.0
    assert "layer_scalar" in dict(layer.named_buffers())
    # The third branch reads the unnormalized stream: on real tensors the gate's input is
    # the layer's input plus the two normalized sublayer outputs, not a norm of that sum.
    torch.manual_seed(0)
    real = Gemma4TextModel(config).eval()
    values = {}

    def keep(name):
        def hook(module, args, kwargs, output):
            values[name] = (args[0] if args else kwargs["hidden_states"], output)

        return hook

    layer = real.layers[0]
    layer.register_forward_hook(keep("layer"), with_kwargs=True)
    for name in [
        "post_attention_layernorm",
        "post_feedforward_layernorm",
        "per_layer_input_gate",
    ]:
        getattr(layer, name).register_forward_hook(keep(name), with_kwargs=True)
    with torch.no_grad():
        real(input_ids=torch.arange(5)[None])
    stream = (
        values["layer"][0]
        + values["post_attention_layernorm"][1]
        + values["post_feedforward_layernorm"][1]
    )
    assert torch.allclose(values["per_layer_input_gate"][0], stream, atol=1e-6)


def test_each_newer_model_adds_its_branches_to_the_stream_as_it_came():
    """What the page's table cannot show (a layout that normalizes the sum at the next
    norm, as MiniMax-Text-01's does, prints False under Norm(x+F) too): in each of the nine,
    on real tensors, a layer's output is its input plus what each branch hands back (the
    norm after a sublayer where there is one, else the sublayer), times Gemma 4's layer
    scalar; MiniMax's is not."""
    import transformers

    from snippets.placement import newer_models  # prints its table (on meta tensors)

    # MiniMax-Text-01's layout, with its released alpha for 80 layers, (2 * 80) ** 0.25.
    alphas = ["full_attn_alpha_factor", "linear_attn_alpha_factor", "mlp_alpha_factor"]
    minimax = {"num_local_experts": 2, "block_size": 4} | dict.fromkeys(alphas, 3.5566)
    extras = {"Gemma4TextModel": newer_models.gemma4, "MiniMaxModel": minimax}
    as_it_came = {}
    for model_name, config_name in [
        *newer_models.models,
        ("MiniMaxModel", "MiniMaxConfig"),
    ]:
        torch.manual_seed(0)
        extra = extras.get(model_name, {})
        config = getattr(transformers, config_name)(**newer_models.tiny, **extra)
        model = getattr(transformers, model_name)(config).eval()
        layer = model.layers[0]
        seen = {}

        def record(name, seen=seen):
            def hook(module, args, kwargs, output):
                received = args[0] if args else kwargs["hidden_states"]
                returned = output[0] if isinstance(output, tuple) else output
                seen.setdefault(name, (received, returned))

            return hook

        for name, child in [*layer.named_children(), ("layer", layer)]:
            child.register_forward_hook(record(name), with_kwargs=True)
        with torch.no_grad():
            if hasattr(layer, "layer_scalar"):  # ones at first: a value that shows
                layer.layer_scalar.fill_(0.5)
            model(input_ids=torch.arange(5)[None])
        norms = [
            n for n, child in layer.named_children() if newer_models.is_norm(child)
        ]
        # The branches: attention, the MLP (Llama 4's feed_forward) and Gemma 4's third.
        ends = []
        for name in ["self_attn", "mlp", "feed_forward", "per_layer_projection"]:
            if name in seen:
                after = [norm for norm in norms if seen[norm][0] is seen[name][1]]
                ends.append(seen[after[0]][1] if after else seen[name][1])
        received, returned = seen["layer"]
        expected = (received + sum(ends)) * getattr(layer, "layer_scalar", 1.0)
        as_it_came[model_name] = torch.allclose(
            returned, expected, rtol=1e-5, atol=1e-5
        )
    assert as_it_came == {
        model_name: model_name != "MiniMaxModel" for model_name in as_it_came
    }
    assert len(as_it_came) == 10

"""The Training dynamics page's claims: the gradient of a weight matrix feeding a norm is
orthogonal to it and scales as 1/c; SGD grows |W|^2 by lr^2 |grad|^2; the equilibrium norm
and angle under weight decay, and under AdamW's momentum; AdamW's step as the page writes
it; what weight decay does to each gain style, and which gains transformers' Trainer
decays."""

import importlib
import math

import pytest
import torch
import torch.nn.functional as F


def loss_grad(W, x, head, labels):
    W = W.clone().requires_grad_()
    loss = F.cross_entropy(F.rms_norm(x @ W.T, (W.shape[0],), eps=0.0) @ head.T, labels)
    return torch.autograd.grad(loss, W)[0]


@pytest.mark.parametrize("c", [0.1, 3.0, 100.0])
def test_gradient_orthogonal_and_scales_as_one_over_c(c):
    torch.manual_seed(0)
    x, labels = torch.randn(50, 8, dtype=torch.float64), torch.randint(5, (50,))
    head, W = (
        torch.randn(5, 12, dtype=torch.float64),
        torch.randn(12, 8, dtype=torch.float64),
    )
    G, Gc = loss_grad(W, x, head, labels), loss_grad(c * W, x, head, labels)
    assert abs((G * W).sum()) < 1e-12 * G.norm() * W.norm()
    assert torch.allclose(Gc, G / c, rtol=1e-10, atol=0)
    lr = 0.3
    growth = (W - lr * G).pow(2).sum() - W.pow(2).sum()
    assert math.isclose(growth, lr**2 * G.pow(2).sum(), rel_tol=1e-9)


def test_equilibrium_norm_and_angle():
    lr, decay, c = 0.2, 0.05, 1.5
    n = 1.0
    for _ in range(20000):
        n = (1 - lr * decay) ** 2 * n + lr**2 * c**2 / n
    assert math.isclose(
        n**0.5, (lr * c**2 / (decay * (2 - lr * decay))) ** 0.25, rel_tol=1e-9
    )
    # The angle of a step at equilibrium: cos = (1 - lr decay) |W| / |W_next|, |W_next| = |W|.
    tangent = lr * (c / n**0.5) / ((1 - lr * decay) * n**0.5)
    assert math.isclose(math.atan(tangent), math.acos(1 - lr * decay), rel_tol=1e-9)


def test_the_mean_log_cosine_of_the_steps_is_log_1_minus_lr_decay_when_the_norm_returns():
    """With g orthogonal to W, each step's cos = (1 - lr decay) |W_t| / |W_t+1|, so the
    mean of log cos over steps is log(1 - lr decay) - log(|W_T| / |W_0|) / T: exactly
    log(1 - lr decay) when the norm ends where it started, whatever the gradients' sizes."""
    torch.manual_seed(0)
    lr, decay, steps = 0.5, 0.01, 2000
    W = torch.randn(64, dtype=torch.float64)
    start, log_cosines = W.norm(), []
    for _ in range(steps):
        g = torch.randn(64, dtype=torch.float64)
        g -= (g @ W) / (W @ W) * W  # orthogonal to W, as for a weight feeding a norm
        g *= torch.empty(()).log_normal_(0.0, 1.0).item() / W.norm()  # sizes vary
        new = (1 - lr * decay) * W - lr * g
        cosine = (W @ new) / (W.norm() * new.norm())
        assert math.isclose(
            cosine, (1 - lr * decay) * W.norm() / new.norm(), rel_tol=1e-12
        )
        log_cosines.append(math.log(cosine))
        W = new
    drift = math.log(W.norm() / start) / steps
    mean = sum(log_cosines) / steps
    assert math.isclose(mean, math.log(1 - lr * decay) - drift, rel_tol=1e-9)
    # The mean angle is not arccos(1 - lr decay) when the sizes vary this much.
    angle = sum(math.acos(math.exp(c)) for c in log_cosines) / steps
    assert abs(angle - math.acos(1 - lr * decay)) > 0.1 * math.acos(1 - lr * decay)


@pytest.mark.parametrize("beta1", [0.0, 0.9])
def test_momentum_shortens_the_equilibrium_angle_not_the_norm(beta1):
    # AdamW's step on uncorrelated gradients orthogonal to W, each coordinate of RMS 1 (as
    # Adam's rescaling makes them), averaged with momentum beta1.
    lr, decay, size, steps = 0.01, 0.5, 4096, 3000
    generator = torch.Generator().manual_seed(0)
    W = torch.randn(size, dtype=torch.float64, generator=generator)
    momentum = torch.zeros(size, dtype=torch.float64)
    angles, norms = [], []
    for _ in range(steps):
        g = torch.randn(size, dtype=torch.float64, generator=generator)
        g -= (g @ W) / (W @ W) * W
        momentum = beta1 * momentum + (1 - beta1) * g
        new = (1 - lr * decay) * W - lr * momentum
        angles.append(math.acos(((new @ W) / (new.norm() * W.norm())).item()))
        W = new
        norms.append(W.norm().item())
    settled = slice(steps // 2, None)
    angle = sum(angles[settled]) / len(angles[settled])
    norm = sum(norms[settled]) / len(norms[settled])
    expected = math.sqrt(2 * lr * decay * (1 - beta1) / (1 + beta1))
    assert math.isclose(angle, expected, rel_tol=0.01)
    # Without momentum, |W|^2 = lr size / (2 decay) balances decay; momentum changes it little.
    assert math.isclose(norm, math.sqrt(lr * size / (2 * decay)), rel_tol=0.03)


@pytest.fixture(scope="module")
def gain_decay():
    """The page's script on weight decay and gains. Importing it runs it (three trainings,
    about 2 s), so it is imported by the tests that use it, not when tests are collected."""
    return importlib.import_module("snippets.dynamics.gain_decay")


def test_weight_decay_moves_unread_gains_to_zero_or_to_one(gain_decay):
    steps, lr, decay, train = 30, 0.01, 0.1, gain_decay.train
    llama, _ = train("llama", gains_too=True, lr=lr, decay=decay, steps=steps)
    gemma, _ = train("gemma", gains_too=True, lr=lr, decay=decay, steps=steps)
    kept, _ = train("llama", gains_too=False, lr=lr, decay=decay, steps=steps)
    expected = torch.full((16,), (1 - lr * decay) ** steps)
    assert torch.allclose(llama[16:], expected, rtol=1e-5)
    assert torch.equal(gemma[16:], torch.ones(16))
    assert torch.equal(kept[16:], torch.ones(16))


def test_nanogpt_rule_leaves_gains_and_biases_undecayed(gain_decay):
    model = gain_decay.Model("llama")
    decayed, rest = gain_decay.param_groups(model, 0.1, gains_too=False)
    # The two weight matrices decayed; the gain and the head's bias not; nothing left out.
    assert [tuple(p.shape) for p in decayed["params"]] == [(32, 32), (10, 16)]
    assert [tuple(p.shape) for p in rest["params"]] == [(32,), (10,)]
    assert decayed["weight_decay"] == 0.1 and rest["weight_decay"] == 0.0
    grouped = {id(p) for group in (decayed, rest) for p in group["params"]}
    assert grouped == {id(p) for p in model.parameters()}
    # gains_too adds the gain, and only the gain: the head's bias stays undecayed.
    with_gain, bias = gain_decay.param_groups(model, 0.1, gains_too=True)
    assert [tuple(p.shape) for p in with_gain["params"]] == [(32, 32), (32,), (10, 16)]
    assert [tuple(p.shape) for p in bias["params"]] == [(10,)]


def trainer_decay(family: str, **sizes) -> tuple[set[str], set[str], torch.nn.Module]:
    """A small model of `family` (on the meta device), the gains of its norms (found by
    class, not by the names the Trainer picks them by) and the parameters that
    transformers' Trainer decays."""
    from transformers import AutoConfig, AutoModelForCausalLM, Trainer

    config = AutoConfig.for_model(
        family, hidden_size=64, num_hidden_layers=2, vocab_size=100, **sizes
    )
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config)
    # The method uses no state of a Trainer: called on the class, it needs none built.
    decayed = set(Trainer.get_decay_parameter_names(None, model))
    norms = {
        f"{name}.{parameter}"
        for name, module in model.named_modules()
        if "RMSNorm" in type(module).__name__  # MambaRMSNormGated too
        for parameter, _ in module.named_parameters(recurse=False)
    }
    return norms, decayed, model


@pytest.mark.parametrize("family", ["llama", "qwen3", "gemma3_text"])
def test_the_trainer_leaves_every_norm_gain_out_of_weight_decay(family):
    """Dynamics: transformers' Trainer decays none of the gains of LLaMA's, Qwen3's and
    Gemma 3's norms, and decays the matrices."""
    norms, decayed, model = trainer_decay(
        family, intermediate_size=128, num_attention_heads=4, num_key_value_heads=2,
        head_dim=16,
    )  # fmt: skip
    matrices = {n for n, p in model.named_parameters() if p.dim() == 2}
    assert norms and not norms & decayed
    assert matrices <= decayed


@pytest.mark.parametrize(
    "family, sizes",
    [
        ("mamba", {"state_size": 4}),
        # Mamba-2's heads must cover hidden_size * expand (128).
        ("mamba2", {"state_size": 4, "num_heads": 4, "head_dim": 32, "n_groups": 1}),
    ],
)
def test_the_trainer_decays_the_gain_of_mambas_final_norm(family, sizes):
    """Dynamics: a gain whose name the Trainer's patterns miss is decayed, as Mamba's and
    Mamba-2's final norm, backbone.norm_f (its other norms are named norm)."""
    norms, decayed, _ = trainer_decay(family, **sizes)
    assert len(norms) > 1
    assert norms & decayed == {"backbone.norm_f.weight"}


def test_adamw_takes_the_step_the_page_writes():
    """W <- (1 - lr decay) W - lr m_hat / sqrt(v_hat), with m and v running means of the
    gradients and of their squares (betas 0.9 and 0.999), the hats their start-up
    corrections, and eps left out (0 here)."""
    torch.manual_seed(0)
    lr, decay = 0.01, 0.5
    p = torch.nn.Parameter(torch.randn(5, dtype=torch.float64))
    optimizer = torch.optim.AdamW([p], lr=lr, weight_decay=decay, eps=0.0)
    w, m, v = p.detach().clone(), 0.0, 0.0
    for t in range(1, 6):
        p.grad = g = torch.randn(5, dtype=torch.float64)
        optimizer.step()
        m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g**2
        u = (m / (1 - 0.9**t)) / (v / (1 - 0.999**t)).sqrt()
        w = (1 - lr * decay) * w - lr * u
        assert torch.allclose(p.detach(), w, rtol=1e-12, atol=0)


def test_sgd_with_decay_takes_the_step_and_keeps_the_norm_identity():
    """SGD with weight decay and no momentum: W <- (1 - lr decay) W - lr g, and with g
    orthogonal to W (a weight feeding a norm), |W'|^2 = (1 - lr decay)^2 |W|^2 + lr^2 |g|^2."""
    torch.manual_seed(1)
    lr, decay = 0.1, 0.5
    W = torch.nn.Parameter(torch.randn(6, 4, dtype=torch.float64))
    x, head = (
        torch.randn(32, 4, dtype=torch.float64),
        torch.randn(3, 6, dtype=torch.float64),
    )
    labels = torch.randint(3, (32,))
    before = W.detach().clone()
    W.grad = g = loss_grad(before, x, head, labels)
    torch.optim.SGD([W], lr=lr, weight_decay=decay).step()
    assert torch.allclose(W.detach(), (1 - lr * decay) * before - lr * g, rtol=1e-12)
    norm = (1 - lr * decay) ** 2 * before.pow(2).sum() + lr**2 * g.pow(2).sum()
    assert W.detach().pow(2).sum().item() == pytest.approx(norm.item(), rel=1e-10)

"""The Gradients page's backward pass: right at every input scale, for a general gain, on
batches with several leading dimensions, on the all-zero row and on float16 rows whose
squares overflow; the share of the gradient along x that the page derives; and a weight
matrix feeding a norm of each head, orthogonal to its gradient head by head; and what
Apex's gain clamp, written out from its code, does to a zero or tiny gain's gradients; and
Pitfalls' backward that takes r without eps, off only near sqrt(eps); the authors' code on a
zero row."""

import pytest
import torch

from snippets.gradients.backward import RMSNormFunction, rms_norm_backward


def plain(x, weight, eps):
    return weight * x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps)


@pytest.mark.parametrize("scale", [1e-3, 0.1, 1.0, 10.0, 1e3])
def test_gradcheck_at_many_scales(scale):
    torch.manual_seed(0)
    x = (torch.randn(3, 2, 8, dtype=torch.float64) * scale).requires_grad_()
    weight = (torch.rand(8, dtype=torch.float64) + 0.5).requires_grad_()
    assert torch.autograd.gradcheck(RMSNormFunction.apply, (x, weight, 1e-6))


def test_matches_autograd_for_input_and_gain():
    torch.manual_seed(1)
    x = torch.randn(6, 32, dtype=torch.float64, requires_grad=True)
    weight = torch.randn(32, dtype=torch.float64, requires_grad=True)
    grad_out = torch.randn(6, 32, dtype=torch.float64)
    expected = torch.autograd.grad(plain(x, weight, 1e-5), (x, weight), grad_out)
    ours = rms_norm_backward(x.detach(), weight.detach(), grad_out, 1e-5)
    for a, b in zip(ours, expected):
        assert torch.allclose(a, b, rtol=1e-12, atol=1e-14)


def test_the_derivations_steps_match_autograd():
    """The Derivation's steps: dr/dx_j = x_j / (n r), and dx_hat_i/dx_j by the quotient rule,
    (delta_ij r - x_i dr/dx_j) / r^2."""
    torch.manual_seed(0)
    n, eps = 8, 1e-6
    x = torch.randn(n, dtype=torch.float64, requires_grad=True)
    r = (x.pow(2).mean() + eps).sqrt()
    (dr,) = torch.autograd.grad(r, x)
    x, r = x.detach(), r.detach()
    assert torch.allclose(dr, x / (n * r), rtol=1e-12)
    jacobian = torch.autograd.functional.jacobian(
        lambda v: v / (v.pow(2).mean() + eps).sqrt(), x
    )
    quotient = (torch.eye(n, dtype=torch.float64) * r - x[:, None] * dr[None, :]) / r**2
    assert torch.allclose(jacobian, quotient, rtol=1e-12)


def test_all_zero_row_gradient_is_gain_over_sqrt_eps():
    x = torch.zeros(2, 4, dtype=torch.float64)
    weight = torch.tensor([1.0, 2.0, -1.0, 0.5], dtype=torch.float64)
    grad_out = torch.ones(2, 4, dtype=torch.float64)
    grad_x, grad_weight = rms_norm_backward(x, weight, grad_out, 1e-6)
    assert torch.allclose(grad_x, (weight / 1e-3).expand(2, 4))
    assert torch.equal(grad_weight, torch.zeros(4, dtype=torch.float64))


@pytest.mark.parametrize("rms, off", [(1.0, False), (1e-2, False), (1e-3, True)])
def test_a_backward_with_r_taken_without_eps_is_off_only_near_sqrt_eps(rms, off):
    """Pitfalls' fix: the forward's r with eps; taken without it (eps 0 in the backward
    alone), the gradient is another function's, off on rows whose RMS nears sqrt(eps)."""
    torch.manual_seed(0)
    x = torch.randn(8, 64, dtype=torch.float64)
    x = x * rms / x.pow(2).mean(-1, keepdim=True).sqrt()
    weight = torch.rand(64, dtype=torch.float64) + 0.5
    grad_out = torch.randn(8, 64, dtype=torch.float64)
    truth = torch.func.vjp(lambda x: plain(x, weight, 1e-6), x)[1](grad_out)[0]
    without_eps = rms_norm_backward(x, weight, grad_out, eps=0.0)[0]
    error = ((without_eps - truth).norm() / truth.norm()).item()
    assert (error > 0.1) if off else (error < 1e-2)


def test_float16_rows_of_300_keep_their_output_and_gradients():
    """Their squares (90000) overflow float16: the function computes in float32."""
    x = torch.full((2, 4), 300.0, dtype=torch.float16, requires_grad=True)
    weight = torch.ones(4, dtype=torch.float16, requires_grad=True)
    upstream = torch.tensor([1.0, -1.0, 2.0, 0.5])
    y = RMSNormFunction.apply(x, weight, 1e-6)
    (y * upstream.half()).sum().backward()
    assert y.dtype == x.grad.dtype == weight.grad.dtype == torch.float16

    x64 = x.detach().double().requires_grad_()
    w64 = weight.detach().double().requires_grad_()
    y64 = plain(x64, w64, 1e-6)
    (y64 * upstream.double()).sum().backward()
    assert torch.allclose(y.double(), y64, rtol=1e-3, atol=0)
    assert torch.allclose(x.grad.double(), x64.grad, rtol=1e-3, atol=1e-6)
    assert torch.allclose(weight.grad.double(), w64.grad, rtol=1e-3, atol=0)


@pytest.mark.parametrize("eps, within", [(0.0, 1e-13), (1e-6, 1e-6)])
def test_a_matrix_feeding_a_norm_of_each_head_is_orthogonal_to_its_gradient(
    eps, within
):
    # Scaling one head's rows of W by a leaves the loss unchanged at eps = 0, so its
    # derivative in a at 1, the sum of dL/dW * W over those rows, is 0; with eps, nearly,
    # as the rows fed to the norm have an RMS near 4, far above sqrt(eps). Not row by row.
    torch.manual_seed(0)
    x = torch.randn(50, 16, dtype=torch.float64)
    W = torch.randn(32, 16, dtype=torch.float64, requires_grad=True)  # 4 heads of 8
    heads = torch.nn.functional.rms_norm((x @ W.T).view(50, 4, 8), (8,), eps=eps)
    loss = (heads.flatten(1) @ torch.randn(32, 5, dtype=torch.float64)).sin().sum()
    (grad,) = torch.autograd.grad(loss, W)
    products = (grad * W.detach()).view(4, 8, 16)
    sizes = grad.view(4, -1).norm(dim=1) * W.detach().view(4, -1).norm(dim=1)
    assert (products.sum((1, 2)).abs() < within * sizes).all()
    assert (products.sum(2).abs().amax(1) > 1e-3 * sizes).all()


# Up to RMS 10: beyond it the fraction (below 1e-8) is a difference of dot products
# whose float64 rounding error is no longer far below it.
@pytest.mark.parametrize("scale", [10.0, 1.0, 0.1, 1e-2, 1e-3, 1e-4, 1e-6])
def test_radial_part_of_the_gradient_is_eps_over_ms_plus_eps(scale):
    # Along x_hat, dL/dx keeps eps / (ms + eps) of weight * g / r: the page's derivation,
    # checked against autograd on several rows at once.
    torch.manual_seed(2)
    eps = 1e-6
    x = (torch.randn(5, 256, dtype=torch.float64) * scale).requires_grad_()
    weight = torch.rand(256, dtype=torch.float64) + 0.5
    grad_out = torch.randn(5, 256, dtype=torch.float64)
    (grad_x,) = torch.autograd.grad(plain(x, weight, eps), x, grad_out)
    ms = x.detach().pow(2).mean(-1)
    r = torch.sqrt(ms + eps).unsqueeze(-1)
    x_hat = x.detach() / r
    measured = (x_hat * grad_x).sum(-1) / (x_hat * weight * grad_out / r).sum(-1)
    assert torch.allclose(measured, eps / (ms + eps), rtol=1e-6, atol=0)


def test_torch_func_transforms_take_the_function():
    """setup_context apart from forward: vmap, grad and per-sample gradients work."""
    torch.manual_seed(2)
    x = torch.randn(4, 3, 8, dtype=torch.float64)
    weight = torch.rand(8, dtype=torch.float64) + 0.5

    def ours(row):
        return RMSNormFunction.apply(row, weight, 1e-6)

    def torchs(row):
        return torch.nn.functional.rms_norm(row, (8,), weight, 1e-6)

    assert torch.allclose(torch.func.vmap(ours)(x), torchs(x))

    def per_sample_grads(norm):
        return torch.func.vmap(torch.func.grad(lambda row: norm(row).pow(2).sum()))(x)

    per_sample = [per_sample_grads(ours), per_sample_grads(torchs)]
    assert torch.allclose(*per_sample)


def test_a_weight_of_another_shape_is_refused_in_the_forward():
    with pytest.raises(
        ValueError, match=r"weight must have shape \(n,\).*got \(4, 8\)"
    ):
        RMSNormFunction.apply(torch.randn(3, 4, 8), torch.ones(4, 8), 1e-6)


@pytest.mark.parametrize(
    "x, weight, eps, error, message",
    [
        (torch.ones(3, 8), None, 1e-6, TypeError, "weight must be a tensor; got NoneType"),
        (torch.ones(3, 8, dtype=torch.int64), torch.ones(8), 1e-6, TypeError,
         "must be floating point; got torch.int64 and torch.float32"),
        (torch.zeros(3, 8), torch.ones(8), 0.0, ValueError, "eps must be a normal float32 number > 0"),
        (torch.zeros(3, 8), torch.ones(8), None, ValueError, "eps must be a normal float32 number > 0"),
        (torch.zeros(3, 8), torch.ones(8), True, ValueError, "eps must be a normal float32 number > 0"),
        (torch.zeros(3, 8), torch.ones(8), 1e-50, ValueError, "number > 0; got 1e-50"),
        ([[0.0] * 8], torch.ones(8), 1e-6, TypeError, "x must be a tensor; got list"),
    ],
)  # fmt: skip
def test_bad_input_gets_a_clear_error(x, weight, eps, error, message):
    with pytest.raises(error, match=message):
        RMSNormFunction.apply(x, weight, eps)


def test_an_upstream_gradient_of_another_shape_is_refused():
    # Broadcast, a (1, n) gradient would pass for every row's.
    with pytest.raises(ValueError, match=r"grad_out must have x's shape; got \(1, 8\)"):
        rms_norm_backward(torch.randn(3, 8), torch.ones(8), torch.randn(1, 8))


def test_a_weight_of_another_shape_is_refused_in_the_backward():
    with pytest.raises(ValueError, match=r"weight must have shape \(n,\).*got \(7,\)"):
        rms_norm_backward(torch.randn(3, 8), torch.ones(7), torch.randn(3, 8))


def apex_rms_norm_backward(x, weight, grad_out, eps, memory_efficient):
    """Apex's RMSNorm backward (csrc/layer_norm_cuda_kernel.cu at 6424da3, rms_only) written
    in PyTorch: each gain's size raised to at least eps (clamp_by_magnitude) where it is
    used, and x-hat recomputed from the output y in the memory-efficient mode."""
    n = x.shape[-1]
    inv_rms = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    clamped = torch.where(weight >= 0, weight.clamp(min=eps), weight.clamp(max=-eps))
    if memory_efficient:
        x_hat = (weight * x * inv_rms) / clamped  # y / clamped gain
        total = (grad_out * weight * x * inv_rms).sum(-1, keepdim=True)  # sum of dy * y
    else:
        x_hat = x * inv_rms
        total = (grad_out * weight * x_hat).sum(-1, keepdim=True)
    grad_x = inv_rms / n * (n * grad_out * clamped - x_hat * total)
    return grad_x, (grad_out * x_hat).sum(0)


@pytest.mark.parametrize("memory_efficient", [True, False])
def test_apex_clamped_gains_give_a_zero_gain_eps_g_over_r(memory_efficient):
    """The Gradients page, read from Apex's code: a zero gain's gradient comes out as 0 in
    the memory-efficient mode, and its feature's input gradient as eps g_i / r there (the
    true term lost), or with eps g_i / r added in the default mode; a gain smaller than eps
    in size puts both off in the memory-efficient mode; the other features are right."""
    eps = 1e-5
    torch.manual_seed(0)
    x = torch.randn(3, 8, dtype=torch.float64, requires_grad=True)
    weight = torch.randn(8, dtype=torch.float64)
    weight[2], weight[5] = 0.0, eps / 10
    weight.requires_grad_()
    grad_out = torch.randn(3, 8, dtype=torch.float64)
    plain(x, weight, eps).backward(grad_out)
    grad_x, grad_weight = apex_rms_norm_backward(
        x.detach(), weight.detach(), grad_out, eps, memory_efficient
    )
    r = x.detach().pow(2).mean(-1).add(eps).sqrt()
    others = (torch.arange(8) != 2) & (torch.arange(8) != 5)
    assert torch.allclose(grad_x[:, others], x.grad[:, others])
    assert torch.allclose(grad_weight[others], weight.grad[others])
    zero_gain_term = eps * grad_out[:, 2] / r
    assert (x.grad[:, 2] - zero_gain_term).abs().min() > 1e-3  # not the true value
    if memory_efficient:
        assert grad_weight[2] == 0 and weight.grad[2] != 0
        assert torch.allclose(grad_x[:, 2], zero_gain_term)
        # The small gain's two gradients are off as well: its gradient |gain| / eps
        # times the true one, x-hat being recomputed as y over the raised gain.
        assert (grad_x[:, 5] - x.grad[:, 5]).abs().min() > 1e-3
        ratio = weight[5].abs() / eps
        assert torch.allclose(grad_weight[5], ratio * weight.grad[5])
        assert not torch.allclose(grad_weight[5], weight.grad[5])
    else:
        assert torch.allclose(grad_weight[2], weight.grad[2])
        assert torch.allclose(grad_x[:, 2] - x.grad[:, 2], zero_gain_term)


def test_the_authors_code_gives_a_zero_row_the_gain_times_g_over_eps():
    """Pitfalls and Gradients: the RMSNorm authors' code, its root through x.norm(2), gives
    an all-zero row the finite input gradient gamma * g / eps (not g / eps)."""
    from snippets.implementations.variants import rms_norm_paper_code

    torch.manual_seed(0)
    x = torch.zeros(1, 8, dtype=torch.float64, requires_grad=True)
    gain = torch.linspace(0.5, 2, 8, dtype=torch.float64)
    g = torch.randn(1, 8, dtype=torch.float64)
    rms_norm_paper_code(x, gain, eps=1e-8).backward(g)
    torch.testing.assert_close(x.grad, gain * g / 1e-8)

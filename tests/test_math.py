"""The Math page's code: the two orders of summing a row round as the page says, and Triton's
tl.sum adds in the dtype it is given (why the kernel casts each row to float32 first); and
the formulas the page states without printing them: the output's length and mean, which eps
form is the larger, and SliceGPT's rotated blocks (the gains folded, each residual
connection given Q_{l-1}^T Q_l); and the Numerics page's shrink of a mean over n - 1 and
the range where a bfloat16 value's square is exact in float32; and the LayerNorm conversion
keeps the model's device and dtype; and the Glossary's type promotion (a bfloat16 tensor
times a Python float, computed in float32 and rounded once); and the worked example's x is
the same in every block that reuses it."""

import math
import re

import pytest
import torch
from site_layout import ROOT

from snippets.math.summation import running_sum, tree_sum


@pytest.mark.parametrize("dtype, n", [(torch.float32, 4096), (torch.float16, 64)])
def test_both_orders_of_summing_stay_within_the_bound_for_positive_terms(dtype, n):
    # Adding n terms of one sign, each total rounded at most k times on its way:
    # relative error at most k u / (1 - k u), with k = n - 1 running and log2(n) in a tree.
    u = torch.finfo(dtype).eps / 2
    roundings = {running_sum: n - 1, tree_sum: math.log2(n)}
    torch.manual_seed(0)
    for _ in range(5):
        values = (torch.randn(n) ** 2).to(dtype)
        exact = values.double().sum().item()
        for add_up, k in roundings.items():
            assert abs(add_up(values).item() / exact - 1) <= k * u / (1 - k * u)


def test_a_float16_running_total_stalls_where_numbers_are_2_apart():
    ones = torch.ones(4096, dtype=torch.float16)
    assert running_sum(ones).item() == 2048  # 2049 is a tie: round half to even
    assert tree_sum(ones).item() == 4096  # every partial sum is a power of two
    # Each pair rounds to float16: 2048 + 1 loses the 1, where one rounding would not.
    mixed = torch.tensor([2048.0, 1.0, 1.0, 0.0], dtype=torch.float16)
    assert tree_sum(mixed).item() == running_sum(mixed).item() == 2048
    assert mixed.sum().item() == 2050  # torch adds in float32, rounds once
    assert tree_sum(ones.float()).item() == running_sum(ones.float()).item() == 4096


@pytest.mark.parametrize("shape", [(3,), (0,), (2, 4)])
def test_tree_sum_asks_for_a_power_of_two_length(shape):
    with pytest.raises(ValueError, match=r"power of two, got shape"):
        tree_sum(torch.ones(shape))


def test_tritons_sum_adds_in_the_dtype_it_is_given():
    tl = pytest.importorskip("triton.language")
    from triton.language.standard import _pick_sum_dtype

    assert _pick_sum_dtype(tl.float16, None) == tl.float16
    assert _pick_sum_dtype(tl.bfloat16, None) == tl.bfloat16


@pytest.mark.parametrize("eps", [1e-6, 1e-3])
@pytest.mark.parametrize("rms", [0.01, 0.05, 1.0])
def test_the_outputs_length_is_sqrt_of_n_m_over_m_plus_eps(rms, eps):
    """Bounds: with gain 1 the output's length is sqrt(n m / (m + eps)), under sqrt(n)."""
    torch.manual_seed(0)
    n = 4096
    x = torch.randn(n, dtype=torch.float64)
    x = rms * x / x.pow(2).mean().sqrt()
    m = x.pow(2).mean()
    length = torch.nn.functional.rms_norm(x, (n,), eps=eps).norm()
    assert torch.isclose(length, (n * m / (m + eps)).sqrt(), rtol=1e-12)
    assert length < n**0.5


@pytest.mark.parametrize("eps, rms", [(1e-6, 1e-2), (1e-6, 1.0), (1.0, 100.0)])
def test_the_two_eps_forms_differ_by_eps_over_rms_minus_eps_over_2_rms_squared(
    eps, rms
):
    """Where eps goes: 1 / (RMS + eps) against 1 / sqrt(RMS^2 + eps), relative gap to first
    order in eps; with eps = 1, a row of RMS 100 (100 sqrt(eps)) still differs by 1%."""
    inside, outside = 1 / math.sqrt(rms**2 + eps), 1 / (rms + eps)
    gap = 1 - outside / inside
    first_order = eps / rms - eps / (2 * rms**2)
    assert gap == pytest.approx(first_order, rel=0.05)
    assert eps < 1 or gap > 0.009  # far above sqrt(eps) is not enough when eps >= 1


def test_the_outputs_mean_is_the_inputs_mean_over_its_rms():
    """The worked example: RMSNorm does not centre; its output's mean is mu / RMS_eps."""
    x = torch.tensor([2.0, 0.5, -1.0, 1.5], dtype=torch.float64)
    rms = (x.pow(2).mean() + 1e-6).sqrt()
    y = torch.nn.functional.rms_norm(x, (4,), eps=1e-6)
    assert torch.isclose(y.mean(), x.mean() / rms, rtol=1e-12)


def pre_norm_network(tokens, embedding, blocks, final_gain, head, residuals=None):
    """Pre-RMSNorm blocks (each: a gain, a weight that reads the normalized stream, one
    that writes into it, ReLU between), a final norm and a head. `residuals[l]`, where
    given, multiplies the stream before block l, as a rotated model's connections do."""
    h = embedding[tokens]
    for index, (gain, read, write) in enumerate(blocks):
        if residuals is not None:
            h = h @ residuals[index]
        norm = torch.nn.functional.rms_norm(h, (h.shape[-1],), gain, eps=1e-6)
        h = h + torch.relu(norm @ read) @ write
    return torch.nn.functional.rms_norm(h, (h.shape[-1],), final_gain, eps=1e-6) @ head


def test_rotated_blocks_with_folded_gains_and_q_prev_t_q_connections_match():
    """SliceGPT, as the page states it: each block's gain folded into the weight that reads
    the norm (the norm's gain then 1), a rotation Q_l per block folded into the weights
    that read (Q_l^T in front) and write (Q_l after), the embedding written as E Q_1, and
    each residual connection given Q_{l-1}^T Q_l: the outputs do not change. The same with
    Q_l^T Q_{l-1} on the connections does."""
    torch.manual_seed(0)
    d, hidden, vocab, depth = 16, 32, 50, 3

    def random(*shape):
        return torch.randn(*shape, dtype=torch.float64) / shape[0] ** 0.5

    embedding, head = random(vocab, d), random(d, vocab)
    blocks = [
        (1 + random(d), random(d, hidden), random(hidden, d)) for _ in range(depth)
    ]
    final_gain = 1 + random(d)
    q = [torch.linalg.qr(random(d, d))[0] for _ in range(depth)]
    ones = torch.ones(d, dtype=torch.float64)
    rotated = [
        (ones, q_l.T @ torch.diag(gain) @ read, write @ q_l)
        for q_l, (gain, read, write) in zip(q, blocks)
    ]
    eye = torch.eye(d, dtype=torch.float64)
    tokens = torch.randint(vocab, (7,))
    original = pre_norm_network(tokens, embedding, blocks, final_gain, head)

    def rotated_output(residuals):
        folded_head = q[-1].T @ torch.diag(final_gain) @ head
        e = embedding @ q[0]
        return pre_norm_network(tokens, e, rotated, ones, folded_head, residuals)

    right = [eye] + [q[i - 1].T @ q[i] for i in range(1, depth)]
    wrong = [eye] + [q[i].T @ q[i - 1] for i in range(1, depth)]
    assert torch.allclose(rotated_output(right), original, atol=1e-10)
    assert not torch.allclose(rotated_output(wrong), original, atol=1e-3)


@pytest.mark.parametrize("eps", [1e-6, 0.01, 0.5])
def test_the_inside_form_is_the_larger_exactly_above_one_minus_eps_over_2(eps):
    """Squaring the denominators: 1 / sqrt(R^2 + eps) > 1 / (R + eps) for R > (1 - eps) / 2,
    and the smaller below, whatever eps."""
    cross = (1 - eps) / 2
    for rms in [1e-4, 0.99 * cross, 1.01 * cross, 1.0, 100.0]:
        inside, outside = 1 / math.sqrt(rms**2 + eps), 1 / (rms + eps)
        assert (inside > outside) == (rms > cross), rms


def test_a_mean_over_n_minus_1_shrinks_each_output_by_about_1_over_2n():
    """The Numerics page: dividing the sum of squares by n - 1 rather than n shrinks every
    output by about 1/(2n) of itself (1 - sqrt((n - 1)/n), to first order in 1/n)."""
    torch.manual_seed(0)
    for n in [64, 4096]:
        x = torch.randn(256, n, dtype=torch.float64)
        right = torch.nn.functional.rms_norm(x, (n,), eps=1e-6)
        wrong = x / (x.pow(2).sum(-1, keepdim=True) / (n - 1) + 1e-6).sqrt()
        shrink = 1 - wrong / right
        assert torch.allclose(shrink, torch.full_like(shrink, 1 / (2 * n)), rtol=0.01)


@pytest.mark.parametrize("eps", [1e-6, 1e-5])
def test_eps_inside_shrinks_a_row_of_rms_1_by_eps_over_2(eps):
    """The Math page's advice: inside the root, either usual eps shrinks the output of a row
    of RMS 1 by a relative eps/2 (1 - 1/sqrt(1 + eps))."""
    x = torch.ones(4096, dtype=torch.float64)
    shrink = 1 - torch.nn.functional.rms_norm(x, (4096,), eps=eps)
    assert torch.allclose(shrink, torch.full_like(shrink, eps / 2), rtol=1e-5)


def test_a_bfloat16_square_is_exact_in_float32_from_2_to_the_minus_67_below_2_to_the_64():
    """The Numerics page: a bfloat16 value's square is exact in float32 while
    2^-67 <= |x| < 2^64, and a normal float32 number from 2^-63 (where subnormals are
    flushed to zero); every float16 value's square is exact. Checked on every positive
    finite value against float64, where each square is exact."""
    bits = torch.arange(1, 0x7F80, dtype=torch.int32).to(torch.int16)  # +0 < x < +inf
    x = bits.view(torch.bfloat16)
    square, exact = x.float() * x.float(), x.double() ** 2
    is_exact = square.double() == exact
    inside = (x.double() >= 2.0**-67) & (x.double() < 2.0**64)
    assert is_exact[inside].all()
    assert is_exact[x.double() == 2.0**-67 - 2.0**-75].tolist() == [False]  # next below
    assert torch.isinf(square[x.double() >= 2.0**64]).all()
    # Flushed to zero: the squares below float32's smallest normal, 2^-126 = (2^-63)^2.
    normal = square >= torch.finfo(torch.float32).tiny
    assert torch.equal(normal, x.double() >= 2.0**-63)
    halves = torch.arange(1, 0x7C00, dtype=torch.int16).view(torch.float16)
    assert torch.equal((halves.float() * halves.float()).double(), halves.double() ** 2)


def test_a_bfloat16_tensor_times_a_python_float_is_computed_in_float32_and_rounded_once():
    """The Glossary's type promotion: the product stays bfloat16, but the CPU computes it
    in float32, the scalar rounded to float32 (not to bfloat16), and rounds the product once."""
    x = torch.linspace(-8, 8, 1001).bfloat16()
    product = x * (1 / 3)
    assert product.dtype == torch.bfloat16
    assert torch.equal(product, (x.float() * (1 / 3)).bfloat16())
    assert not torch.equal(product, x * torch.tensor(1 / 3, dtype=torch.bfloat16))
    assert torch.equal(x * torch.tensor(1 / 3), product)  # a 0-dim float32 tensor too
    # The scalar is rounded to float32 first: 1 + 2^-8 + 2^-30 becomes 1 + 2^-8, exactly
    # halfway between bfloat16's 1 and its next value, 1 + 2^-7, so 1 times it rounds to
    # even, to 1; rounded once from its exact value, or rounded to bfloat16 itself, it
    # would give 1 + 2^-7.
    ones = torch.ones(4, dtype=torch.bfloat16)
    assert torch.equal(ones * (1 + 2**-8 + 2**-30), ones)


def test_the_conversion_builds_each_rms_norm_on_the_models_device_and_dtype():
    """A model on another device (meta here, as a GPU would be) keeps its norms there."""
    from snippets.math.layer_norm_to_rms_norm import Model, to_rms_norm

    converted = to_rms_norm(Model().to("meta", torch.float64))
    norms = [m for m in converted.modules() if isinstance(m, torch.nn.RMSNorm)]
    assert norms and all(
        n.weight.is_meta and n.weight.dtype == torch.float64 for n in norms
    )


@pytest.mark.parametrize("affine", [{"bias": False}, {"elementwise_affine": False}])
def test_the_layer_norm_conversion_takes_a_layer_norm_without_beta(affine):
    """No beta to move: the reading layer is left as it was, and the RMSNorm has the
    LayerNorm's gain, or none, and its eps; on centered rows the two agree."""
    from snippets.math.layer_norm_to_rms_norm import rms_norm_for

    torch.manual_seed(0)
    layer_norm = torch.nn.LayerNorm(8, eps=1e-3, **affine).double()
    reader = torch.nn.Linear(8, 3, bias=False).double()
    with torch.no_grad():
        if layer_norm.weight is not None:
            layer_norm.weight.uniform_(0.5, 1.5)
        rms_norm = rms_norm_for(layer_norm, reader)
    assert reader.bias is None and rms_norm.eps == 1e-3
    assert (rms_norm.weight is None) == (layer_norm.weight is None)
    x = torch.randn(4, 8, dtype=torch.float64)
    x -= x.mean(-1, keepdim=True)
    torch.testing.assert_close(rms_norm(x), layer_norm(x))


# The pages that carry on with the Math page's worked example, each block standalone.
WORKED_EXAMPLE_REUSED = [
    "math/worked_example_layer_norm.py",
    "gradients/worked_example.py",
    "gradients/layer_norm_backward.py",
    "exercises/gradient_component.py",
    "exercises/gain_gradient.py",
    "exercises/gain_gradient_rows.py",  # its first row
]


def test_the_worked_examples_x_is_the_same_wherever_it_is_reused():
    """Math's worked example names its x on other pages (Gradients: 'As on the Math page,
    r = 1.3693'): a change to it must be made in every block."""

    def first_row(file):
        source = (ROOT / "snippets" / file).read_text(encoding="utf-8")
        return re.search(r"x = torch\.tensor\(\[+([^\]]*)\]", source)[1]

    math_x = first_row("math/worked_example.py")
    for file in WORKED_EXAMPLE_REUSED:
        assert first_row(file) == math_x, f"snippets/{file}: Math's x is [{math_x}]"

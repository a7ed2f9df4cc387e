"""The Math page's code: the two orders of summing a row round as the page says, and Triton's
tl.sum adds in the dtype it is given (why the kernel casts each row to float32 first)."""

import math

import pytest
import torch

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

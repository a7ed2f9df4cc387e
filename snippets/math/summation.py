"""Two orders of adding up a row, every addition rounded to the row's dtype."""

import torch

def running_sum(values: torch.Tensor) -> torch.Tensor:
    """Left to right into one total, as a loop over the row does."""
    total = torch.zeros((), dtype=values.dtype)
    for value in values:
        total = total + value  # rounds to values.dtype
    return total

def tree_sum(values: torch.Tensor) -> torch.Tensor:
    """In pairs, then pairs of pairs: the shape of a parallel reduction such as tl.sum."""
    n = values.numel()
    if values.dim() != 1 or n == 0 or n & (n - 1):
        raise ValueError(
            f"tree_sum needs a 1-D tensor whose length is a power of two, "
            f"got shape {tuple(values.shape)}"
        )
    while values.numel() > 1:
        values = values[0::2] + values[1::2]  # each sum rounds to values.dtype
    return values[0]

"""A copyable RMSNorm: torch.nn.RMSNorm's arguments, checked inputs, float32 math (at
least: float64 input stays float64)."""

import numbers
from collections.abc import Sequence

import torch
from torch import nn

def rms_norm(x: torch.Tensor, normalized_shape, weight=None, eps: float = 1e-6):
    """weight * x / sqrt(mean(x^2) + eps) over the trailing `normalized_shape` dims."""
    shape, eps = _as_shape(normalized_shape), _check_eps(eps)
    _check_input(x, shape, weight)

    # Float32 at least: in float16, x * x overflows for |x| >= 256 and zeroes the row.
    # (A row whose squares sum past float32's 3.4e38 gives zeros, as torch's does.)
    compute = torch.promote_types(x.dtype, torch.float32)
    h = x.to(compute)
    dims = tuple(range(-len(shape), 0))
    h = h * torch.rsqrt(h.pow(2).mean(dims, keepdim=True) + eps)
    if weight is not None:
        h = h * weight  # in the wider dtype of the two, as torch's does
    return h.to(x.dtype)  # one rounding, at the end; the output has x's dtype

class RMSNorm(nn.Module):
    """torch.nn.RMSNorm(normalized_shape, eps, elementwise_affine, device, dtype),
    except that every input is checked and eps must be a normal float32 number > 0, 1e-6
    by default.

    Among the eps values torch takes and this refuses are None, torch's default,
    which takes the machine epsilon of the dtype it computes in (float32's for float16
    and bfloat16 inputs too, on a CPU; pass the eps the model was trained with), and a
    negative eps, which torch computes (its own test samples for rms_norm use eps =
    -0.5) although mean(x^2) + eps can then be zero or negative, and its inverse square
    root inf or NaN. device and dtype place the weight, as torch's factory arguments do.
    """

    def __init__(
        self,
        normalized_shape,
        eps: float = 1e-6,
        elementwise_affine: bool = True,
        device=None,
        dtype=None,
    ):
        super().__init__()
        self.normalized_shape = _as_shape(normalized_shape)
        self.eps = _check_eps(eps)
        _check_options(elementwise_affine, dtype)
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            empty = torch.empty(self.normalized_shape, device=device, dtype=dtype)
            self.weight = nn.Parameter(empty)
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """The weight to ones, as torch's does: also what fills in a model built on the
        meta device (materialized with to_empty, then reset)."""
        if self.weight is not None:
            nn.init.ones_(self.weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        affine = f"elementwise_affine={self.elementwise_affine}"
        return f"{self.normalized_shape}, eps={self.eps}, {affine}"  # as torch's

# The checks: a bad input gets an error that names what was expected and what came.
def _is_size(n) -> bool:
    # numbers.Integral takes Python and NumPy integers, as torch does; bool is refused.
    return isinstance(n, numbers.Integral) and not isinstance(n, bool) and n > 0

def _as_shape(normalized_shape) -> tuple[int, ...]:
    shape = (normalized_shape,) if _is_size(normalized_shape) else normalized_shape
    if not isinstance(shape, Sequence) or not shape or not all(map(_is_size, shape)):
        raise ValueError(
            "normalized_shape must be a positive int or a non-empty sequence of them,"
            f" got {normalized_shape!r}"
        )
    return tuple(int(n) for n in shape)

def _check_eps(eps) -> float:
    if eps is None:  # torch.nn.RMSNorm's default: a machine epsilon, no model's eps
        raise TypeError(
            "eps must be a real number, got None:"
            " pass the eps the model was trained with"
        )
    if isinstance(eps, bool) or not isinstance(eps, numbers.Real):
        raise TypeError(f"eps must be a real number, got {type(eps).__name__}")
    # eps > 0 keeps all-zero rows finite: they map to zeros instead of 0 * inf = NaN. It
    # is added in float32 (at least), so it must be a normal float32 number (1.2e-38 to
    # 3.4e38): a smaller eps loses precision and, below about 7e-46, rounds to 0; a
    # larger one rounds to float32's largest value or to inf. NaN fails the comparison
    # too.
    float32 = torch.finfo(torch.float32)
    if not float32.tiny <= eps <= float32.max:
        raise ValueError(f"eps must be a normal float32 number > 0, got {eps}")
    return float(eps)

# The dtypes it takes: float8 is floating point too, but torch's rms_norm refuses it
# ("not implemented for 'Float8_e4m3fn'").
FLOATS = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
FLOAT_NAMES = "a float16, bfloat16, float32 or float64 tensor"

def _check_input(x, shape, weight) -> None:
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in FLOATS:
        raise TypeError(f"x must be {FLOAT_NAMES}, got dtype {x.dtype}")
    if tuple(x.shape[-len(shape) :]) != shape:
        raise ValueError(
            f"x must end in the dimensions {shape},"
            f" got a tensor of shape {tuple(x.shape)}"
        )
    if weight is not None and not isinstance(weight, torch.Tensor):
        raise TypeError(
            f"weight must be a torch.Tensor or None, got {type(weight).__name__}"
        )
    if weight is not None and weight.dtype not in FLOATS:
        raise TypeError(f"weight must be {FLOAT_NAMES}, got dtype {weight.dtype}")
    if weight is not None and tuple(weight.shape) != shape:
        raise ValueError(f"weight must have shape {shape}, got {tuple(weight.shape)}")

def _check_options(elementwise_affine, dtype) -> None:
    if not isinstance(elementwise_affine, bool):
        raise TypeError(
            f"elementwise_affine must be True or False, got {elementwise_affine!r}"
        )
    if dtype is not None and dtype not in FLOATS:
        names = ", ".join(str(float_dtype) for float_dtype in FLOATS)
        raise TypeError(f"dtype must be None or one of {names}, got {dtype!r}")

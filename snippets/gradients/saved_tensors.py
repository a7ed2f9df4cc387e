"""What RMSNorm's backward pass needs from the forward pass, and what keeping it costs."""

import torch
import torch.nn.functional as F

rows, n, eps = 8, 4096, 1e-6

def input_gradients(x_hat, inv_r, weight, grad_out):
    """The Gradients page's formulas, given x_hat = x / r and 1/r (float32 math)."""
    weighted = grad_out.float() * weight.float()
    grad_x = inv_r * (weighted - x_hat * (weighted * x_hat).mean(-1, keepdim=True))
    grad_weight = (grad_out.float() * x_hat).sum(0)
    return grad_x.to(grad_out.dtype), grad_weight.to(weight.dtype)

def forward(x, weight):
    inv_r = torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + eps)
    return (x.float() * inv_r * weight.float()).to(x.dtype), inv_r

class KeepInput(torch.autograd.Function):
    """Keeps x and 1/r, as the Kernel page's kernel does; x_hat = x / r is recomputed."""

    @staticmethod
    def forward(ctx, x, weight):
        y, inv_r = forward(x, weight)
        ctx.save_for_backward(x, weight, inv_r)
        return y

    @staticmethod
    def backward(ctx, grad_out):
        x, weight, inv_r = ctx.saved_tensors
        return input_gradients(x.float() * inv_r, inv_r, weight, grad_out)

class KeepOutput(torch.autograd.Function):
    """Keeps y and 1/r, as Apex's memory_efficient=True does; x_hat = y / weight."""

    @staticmethod
    def forward(ctx, x, weight):
        y, inv_r = forward(x, weight)
        ctx.save_for_backward(y, weight, inv_r)
        return y

    @staticmethod
    def backward(ctx, grad_out):
        y, weight, inv_r = ctx.saved_tensors
        return input_gradients(y.float() / weight.float(), inv_r, weight, grad_out)

def formula(x, weight, llama_order):
    """Plain operations with a float32 upcast; autograd keeps what each one needs.
    LLaMA's order rounds x_hat to x's dtype before the weight; the other rounds once."""
    h = x.float()
    h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
    if llama_order:
        return weight * h.to(x.dtype)
    return (h * weight.float()).to(x.dtype)

def kept_bytes_per_row(norm, x, weight, linear):
    """Bytes autograd keeps for norm then linear (the next layer), per row, without
    the weights (kept once, whatever the number of rows)."""
    kept = {}

    def pack(t):
        if t.dim() > 1:  # a tensor with a dim per row, not a weight vector
            kept[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        linear(norm(x, weight))
    kept.pop(linear.weight.untyped_storage().data_ptr(), None)
    return sum(kept.values()) // rows

torch.manual_seed(0)
x = torch.randn(rows, n, dtype=torch.bfloat16, requires_grad=True)
weight = (1 + 0.1 * torch.randn(n)).to(torch.bfloat16).requires_grad_()
# The layer that reads the norm's output (a query projection, say) keeps its input y.
linear = torch.nn.Linear(n, 64, bias=False, dtype=torch.bfloat16)

print(f"one bfloat16 row is {2 * n} bytes")
#> one bfloat16 row is 8192 bytes
norms = {
    "keep x and 1/r": KeepInput.apply,
    "keep y and 1/r": KeepOutput.apply,
    "LLaMA's order": lambda x, w: formula(x, w, llama_order=True),
    "one rounding": lambda x, w: formula(x, w, llama_order=False),
    "F.rms_norm (CPU)": lambda x, w: F.rms_norm(x, (n,), w, eps),
}
for name, norm in norms.items():
    print(
        f"{name:17} norm + linear keep {kept_bytes_per_row(norm, x, weight, linear)} B/row"
    )
    #> keep x and 1/r    norm + linear keep 16388 B/row
    #> keep y and 1/r    norm + linear keep 8196 B/row
    #> LLaMA's order     norm + linear keep 32772 B/row
    #> one rounding      norm + linear keep 40964 B/row
    #> F.rms_norm (CPU)  norm + linear keep 40964 B/row

# Both give the gradients of the formula, up to rounding; x_hat = y / weight carries y's
# rounding to bfloat16 into the float32 math, and needs every gain to be nonzero.
grad_out = torch.randn(rows, 64, dtype=torch.bfloat16)
exact = [
    x.detach().double().requires_grad_(),
    weight.detach().double().requires_grad_(),
]
x64, weight64 = (
    exact  # the formula in float64 throughout (formula() upcasts to float32)
)
y64 = weight64 * x64 * torch.rsqrt(x64.pow(2).mean(-1, keepdim=True) + eps)
exact_out = torch.nn.functional.linear(y64, linear.weight.double())
reference = torch.autograd.grad(exact_out, exact, grad_out.double())
for name in ["keep x and 1/r", "keep y and 1/r"]:
    grads = torch.autograd.grad(linear(norms[name](x, weight)), (x, weight), grad_out)
    errors = [
        ((a.double() - b).norm() / b.norm()).item() for a, b in zip(grads, reference)
    ]
    print(f"{name}: relative error of dx {errors[0]:.1e}, of dw {errors[1]:.1e}")
    #> keep x and 1/r: relative error of dx 2.4e-03, of dw 2.4e-03
    #> keep y and 1/r: relative error of dx 2.4e-03, of dw 2.9e-03

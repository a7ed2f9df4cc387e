import torch
import torch.nn.functional as F

# Exercise 2's row and Exercise 1's vector, each with its upstream gradient.
x = torch.tensor([[2.0, 0.5, -1.0, 1.5], [-2.0, 1.0, 0.0, 3.0]], dtype=torch.float64)
grad_out = torch.tensor(
    [[0.2, 0.1, -0.1, 0.3], [0.1, -0.2, 0.3, -0.1]], dtype=torch.float64
)

# Each row's share, g * x_hat: what a kernel with one row per program writes as its partial.
x_hat = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
partials = grad_out * x_hat
for row in partials:
    print(", ".join(f"{v:.4f}" for v in row))
    #> 0.2921, 0.0365, 0.0730, 0.3286
    #> -0.1069, -0.1069, 0.0000, -0.1604
dw = partials.sum(0)  # one sum over the partials
print("dw:", ", ".join(f"{v:.4f}" for v in dw))
#> dw: 0.1852, -0.0704, 0.0730, 0.1683

def weight_gradient(weight, offset):
    """Autograd's gradient of the stored weight, the gain being offset + weight."""
    weight = weight.clone().requires_grad_()
    F.rms_norm(x, (4,), offset + weight, eps=1e-6).backward(grad_out)
    return weight.grad

# The same gain, stored as w (LLaMA) and as w with the gain 1 + w (Gemma 1 to 3).
llama = weight_gradient(torch.tensor([1.0, 2.0, 1.0, 0.5], dtype=torch.float64), 0.0)
gemma = weight_gradient(torch.tensor([0.0, 1.0, 0.0, -0.5], dtype=torch.float64), 1.0)
same = torch.equal(gemma, llama)
print(f"autograd gives dw: {torch.allclose(llama, dw)}, the same in both forms: {same}")
#> autograd gives dw: True, the same in both forms: True

# Part 3: float32 partials added in one fixed order give the same bits every time; the
# same partials in another order, as adds in the order programs take a lock, differ in
# the last bits of some entries.
torch.manual_seed(0)
many = torch.randn(64, 1024)  # 64 programs' partials of a gain of 1024 features

def in_order(parts):
    total = torch.zeros_like(parts[0])
    for part in parts:
        total += part
    return total

once, again = in_order(many), in_order(many)
reordered = in_order(many[torch.randperm(64)])
print(f"the same order twice: {torch.equal(once, again)} (same bits)")
#> the same order twice: True (same bits)
print(f"another order: {(once != reordered).sum()} of 1024 entries differ")
#> another order: 884 of 1024 entries differ

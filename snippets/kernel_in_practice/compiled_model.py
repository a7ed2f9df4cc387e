import copy

import torch
import torch.nn.functional as F

from snippets.kernel_in_practice.custom_op import add_rms_norm, rms_norm

class Block(torch.nn.Module):
    """A pre-norm block whose residual adds are fused into the norm after each: it takes
    the residual stream and the last sublayer's output not yet added to it, and returns
    that pair for the next block. Linears stand in for attention and the MLP."""

    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.attention_norm = torch.nn.Parameter(torch.ones(n))
        self.mlp_norm = torch.nn.Parameter(torch.ones(n))
        self.attention, self.mlp = torch.nn.Linear(n, n), torch.nn.Linear(n, n)
        self.eps = eps

    def forward(self, stream, pending):
        if pending is None:  # the first block: nothing to add yet
            y = rms_norm(stream, self.attention_norm, self.eps)
        else:  # y = norm(stream + pending), and that sum is the stream from here on
            y, stream = add_rms_norm(pending, stream, self.attention_norm, self.eps)
        y, stream = add_rms_norm(self.attention(y), stream, self.mlp_norm, self.eps)
        return stream, self.mlp(y)

class Model(torch.nn.Module):
    def __init__(self, n=64, layers=2, eps=1e-6):
        super().__init__()
        self.blocks = torch.nn.ModuleList(Block(n, eps) for _ in range(layers))
        self.final_norm, self.eps = torch.nn.Parameter(torch.ones(n)), eps

    def forward(self, x):
        stream, pending = x, None
        for block in self.blocks:
            stream, pending = block(stream, pending)
        # The last block's MLP output joins the stream in the final norm.
        return add_rms_norm(pending, stream, self.final_norm, self.eps)[0]

def unfused(model, x):
    """The same model written with F.rms_norm and plain adds: the numbers to match."""

    def norm(h, weight):
        return F.rms_norm(h, h.shape[-1:], weight, model.eps)

    stream = x
    for block in model.blocks:
        stream = stream + block.attention(norm(stream, block.attention_norm))
        stream = stream + block.mlp(norm(stream, block.mlp_norm))
    return norm(stream, model.final_norm)

def outputs_and_gradients(forward, model, x, dy):
    model.zero_grad()
    out = forward(model, x)
    out.backward(dy)  # dy: the loss's gradient with respect to the output
    return [out.detach()] + [p.grad.clone() for p in model.parameters()]

# On a CPU, run with TRITON_INTERPRET=1: the operators then run Triton's interpreter.
device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)
model = Model().to(device)
# Gains away from their initial ones, which would hide a weight applied wrongly.
with torch.no_grad():
    for name, parameter in model.named_parameters():
        if name.endswith("norm"):
            parameter.uniform_(0.5, 1.5)
x = torch.randn(2, 16, 64, device=device)  # (batch, tokens, features)
dy = torch.randn(2, 16, 64, device=device)
# fullgraph=True raises at a graph break. "aot_eager" traces forward and backward as
# Inductor would, without compiling C++ (on a GPU, leave the backend out: Inductor).
compiled = torch.compile(copy.deepcopy(model), fullgraph=True, backend="aot_eager")
eager = outputs_and_gradients(lambda m, x: m(x), model, x, dy)
traced = outputs_and_gradients(lambda m, x: m(x), compiled, x, dy)
print(
    "compiled, no graph break; same bits as eager:",
    all(torch.equal(a, b) for a, b in zip(traced, eager)),
)
#> compiled, no graph break; same bits as eager: True
reference = outputs_and_gradients(unfused, model, x, dy)
worst = max(((a - b).norm() / b.norm()).item() for a, b in zip(eager, reference))
close = worst < 1e-6
print(f"against F.rms_norm unfused, output and every gradient: within 1e-6: {close}")
#> against F.rms_norm unfused, output and every gradient: within 1e-6: True

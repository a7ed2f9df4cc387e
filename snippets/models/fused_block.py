import torch

from snippets.kernel.rms_norm_triton import add_rms_norm_triton
from snippets.models.llama_block import DecoderBlock, rotary_tables

# On a CPU, run with TRITON_INTERPRET=1: Triton's interpreter then runs the kernel.
device = "cuda" if torch.cuda.is_available() else "cpu"

class FusedDecoderBlock(DecoderBlock):
    """The same block, with the add after attention and the norm after it in one kernel."""

    def forward(self, x, cos, sin):
        attention = self.self_attn(self.input_layernorm(x), cos, sin)
        norm = self.post_attention_layernorm
        normalized, x = add_rms_norm_triton(attention, x, norm.weight, norm.eps)
        return x + self.mlp(normalized)

torch.manual_seed(0)
blocks = [DecoderBlock(64, n_heads=4, n_kv_heads=2, hidden=172).to(device)]
blocks.append(FusedDecoderBlock(64, n_heads=4, n_kv_heads=2, hidden=172).to(device))
blocks[1].load_state_dict(blocks[0].state_dict())
x = torch.randn(2, 10, 64, device=device)
cos, sin = (table.to(device) for table in rotary_tables(10, 16))
outputs, gradients = [], []
for block in blocks:
    inputs = x.clone().requires_grad_()
    out = block(inputs, cos, sin)
    out.pow(2).sum().backward()
    outputs.append(out.detach())
    gradients.append([inputs.grad] + [p.grad for p in block.parameters()])

close = {"rtol": 1e-5, "atol": 1e-5}
print("same output:", torch.allclose(*outputs, **close))
#> same output: True
agree = [torch.allclose(a, b, **close) for a, b in zip(*gradients)]
print(f"same gradients: {sum(agree)} of {len(agree)} (the input and every parameter)")
#> same gradients: 10 of 10 (the input and every parameter)

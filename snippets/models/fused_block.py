"""The Models page's LLaMA-style block with the Kernel page's fused add and norm."""

from snippets.kernel.rms_norm_triton import add_rms_norm_triton
from snippets.models.llama_block import DecoderBlock

# --8<-- [start:block]
class FusedDecoderBlock(DecoderBlock):
    """The same block, with the add after attention and the norm after it in one kernel."""

    def forward(self, x, cos, sin):
        attention = self.self_attn(self.input_layernorm(x), cos, sin)
        norm = self.post_attention_layernorm
        # h = x + attention, the residual stream, and RMSNorm(h), the MLP's input, at once.
        normalized, x = add_rms_norm_triton(attention, x, norm.weight, norm.eps)
        return x + self.mlp(normalized)

# --8<-- [end:block]

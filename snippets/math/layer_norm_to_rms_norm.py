import copy

import torch
from torch import nn

class Block(nn.Module):
    """A pre-norm feed-forward block: h + outer(relu(inner(norm(h))))."""

    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.inner = nn.Linear(width, 4 * width)
        self.outer = nn.Linear(4 * width, width)

    def forward(self, h):
        return h + self.outer(torch.relu(self.inner(self.norm(h))))

class Model(nn.Module):
    def __init__(self, vocab=50, width=64, depth=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.blocks = nn.ModuleList(Block(width) for _ in range(depth))
        self.final_norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)  # as LLaMA's: no bias

    def forward(self, tokens):
        h = self.embed(tokens)
        for block in self.blocks:
            h = block(h)
        return self.head(self.final_norm(h))

def rms_norm_for(layer_norm, reader):
    """An RMSNorm with LayerNorm's gain and eps; beta, if any, moves into the reading
    layer's bias (a layer without a bias, as LLaMA's projections are, gets one)."""
    if layer_norm.bias is not None:  # none with bias=False or elementwise_affine=False
        if reader.bias is None:
            reader.bias = nn.Parameter(torch.zeros_like(reader.weight[:, 0]))
        reader.bias += reader.weight @ layer_norm.bias
    shape, gain, eps = layer_norm.normalized_shape, layer_norm.weight, layer_norm.eps
    if gain is None:
        return nn.RMSNorm(shape, eps=eps, elementwise_affine=False)
    where = {"device": gain.device, "dtype": gain.dtype}  # the model's, not defaults
    rms_norm = nn.RMSNorm(shape, eps=eps, **where)
    rms_norm.weight.copy_(gain)
    return rms_norm

@torch.no_grad()
def to_rms_norm(model, center=True):
    converted = copy.deepcopy(model)
    if center:  # every layer that writes to the residual stream writes zero-mean rows
        converted.embed.weight -= converted.embed.weight.mean(-1, keepdim=True)
        for block in converted.blocks:
            # nn.Linear keeps one row per output feature: center each column.
            block.outer.weight -= block.outer.weight.mean(0, keepdim=True)
            if block.outer.bias is not None:
                block.outer.bias -= block.outer.bias.mean()
    for block in converted.blocks:
        block.norm = rms_norm_for(block.norm, block.inner)
    converted.final_norm = rms_norm_for(converted.final_norm, converted.head)
    return converted

torch.manual_seed(0)
model = Model().double()
with torch.no_grad():  # affine terms as after training, not the initial ones and zeros
    for module in model.modules():
        if isinstance(module, nn.LayerNorm):
            module.weight.uniform_(0.5, 1.5)
            module.bias.normal_(0.0, 0.1)
tokens = torch.randint(50, (2, 16))
logits = model(tokens)

# Centered writers: each norm sees a zero-mean input, where LayerNorm is RMSNorm.
gap = (to_rms_norm(model)(tokens) - logits).abs().max()
print(f"centered: logits move by less than 1e-13: {bool(gap < 1e-13)}")
#> centered: logits move by less than 1e-13: True
# Without centering, the same swap changes the model.
change = (to_rms_norm(model, center=False)(tokens) - logits).abs().max()
print(f"swapped without centering: logits move by up to {change:.4f}")
#> swapped without centering: logits move by up to 0.4053
# Compare in float64: in float32 the model's own rounding moves the logits far more.
rounding = (copy.deepcopy(model).float()(tokens) - logits).abs().max()
# (the exact figure changes from one CPU to another)
print(f"the same model in float32: logits move by over 1e-7: {bool(rounding > 1e-7)}")
#> the same model in float32: logits move by over 1e-7: True

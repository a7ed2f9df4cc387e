import torch
import torch.nn.functional as F
from transformers.models.mamba2.configuration_mamba2 import Mamba2Config
from transformers.models.mamba2.modeling_mamba2 import MambaRMSNormGated
from transformers.models.qwen3_5.modeling_qwen3_5 import (
    Qwen3_5RMSNorm,
    Qwen3_5RMSNormGated,
)
from transformers.models.qwen3_next.modeling_qwen3_next import (
    Qwen3NextRMSNorm,
    Qwen3NextRMSNormGated,
)

def gate_then_norm(x, z, gain, groups, eps):
    """Mamba-2: gate, then normalize each group of features by its own RMS."""
    h = (x * F.silu(z)).unflatten(-1, (groups, -1))
    h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
    return gain * h.flatten(-2)

def norm_then_gate(x, z, gain, eps):
    """Qwen3-Next: normalize each row (in the model, one head of head_v_dim features,
    with one gain shared by all heads), apply the gain, then gate."""
    return gain * F.rms_norm(x, (x.shape[-1],), eps=eps) * F.silu(z)

def norm_then_gate_bf16(x, z, gain, eps):
    """Qwen3-Next's class on bfloat16 x, z and gain, rounding where it does: the
    normalized x to bfloat16 and its product with the gain (as LLaMA's norm), then the
    gated product."""
    h = x.float()
    h = (h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype)
    return (gain * h * F.silu(z.float())).to(x.dtype)

def rms(t):
    return t.pow(2).mean(-1).sqrt()

torch.manual_seed(0)
n, groups, eps = 512, Mamba2Config().n_groups, 1e-6
print(f"Mamba2Config's groups: {groups}")
#> Mamba2Config's groups: 8
x, z = torch.randn(6, n), torch.randn(6, n)  # 6 rows; z is the gate's projection
gain = torch.rand(n) + 0.5

# The two formulas are the transformers classes'.
mamba = MambaRMSNormGated(n, group_size=n // groups, eps=eps)
qwen = Qwen3NextRMSNormGated(n, eps=eps)
with torch.no_grad():
    mamba.weight.copy_(gain)
    qwen.weight.copy_(gain)
print(torch.allclose(mamba(x, z), gate_then_norm(x, z, gain, groups, eps)))
#> True
print(torch.allclose(qwen(x, z), norm_then_gate(x, z, gain, eps)))
#> True

# In bfloat16 the class rounds three times; the formula in float32, rounded once, differs.
xb, zb, gain_bf16 = x.bfloat16(), z.bfloat16(), gain.bfloat16()
qwen_bf16 = Qwen3NextRMSNormGated(n, eps=eps).bfloat16()
with torch.no_grad():
    qwen_bf16.weight.copy_(gain_bf16)
    class_output = qwen_bf16(xb, zb)
print(torch.equal(class_output, norm_then_gate_bf16(xb, zb, gain_bf16, eps)))
#> True
once = norm_then_gate(xb.float(), zb.float(), gain_bf16.float(), eps).bfloat16()
print(f"rounded once, {(once != class_output).float().mean():.1%} of outputs differ")
#> rounded once, 35.6% of outputs differ

# Gate first: every group has RMS 1 before the gain, whatever the gate did.
groups_rms = rms(gate_then_norm(x, z, 1.0, groups, eps).unflatten(-1, (groups, -1)))
low, high = groups_rms.min(), groups_rms.max()
print(f"gate first, RMS of the {groups_rms.numel()} groups: {low:.4f} to {high:.4f}")
#> gate first, RMS of the 48 groups: 1.0000 to 1.0000
# Gate last: the gate sets the size of each row.
rows_rms = rms(norm_then_gate(x, z, 1.0, eps))
print(f"gate last, RMS of each row: {rows_rms.min():.4f} to {rows_rms.max():.4f}")
#> gate last, RMS of each row: 0.5247 to 0.6519

# One model, two conventions: with a stored weight of zeros, a gain w returns zeros.
for plain_class, gated_class in [
    (Qwen3NextRMSNorm, Qwen3NextRMSNormGated),
    (Qwen3_5RMSNorm, Qwen3_5RMSNormGated),
]:
    plain, gated = plain_class(n), gated_class(n)
    torch.nn.init.zeros_(plain.weight)
    torch.nn.init.zeros_(gated.weight)
    for norm, output in [(plain, plain(x)), (gated, gated(x, z))]:
        print(
            f"{type(norm).__name__}: gain {'w' if output.abs().max() == 0 else '1 + w'}"
        )
        #> Qwen3NextRMSNorm: gain 1 + w
        #> Qwen3NextRMSNormGated: gain w
        #> Qwen3_5RMSNorm: gain 1 + w
        #> Qwen3_5RMSNormGated: gain w

import torch
import torch.nn.functional as F

from snippets.kernel.rms_norm_triton import rms_norm_triton

torch.manual_seed(0)
x = torch.randn(4, 16, requires_grad=True)
weight = torch.rand(16) + 0.5
upstream = torch.randn(4, 16)

norms = {
    "torch F.rms_norm": lambda x: F.rms_norm(x, (16,), weight, 1e-6),
    "Triton (this site)": lambda x: rms_norm_triton(x, weight, 1e-6),
}
for name, norm in norms.items():
    try:
        # A gradient penalty: a loss on the input's gradient needs that gradient's own
        # derivative, so the first backward keeps its graph (create_graph=True).
        (dx,) = torch.autograd.grad(norm(x), x, upstream, create_graph=True)
        (second,) = torch.autograd.grad(dx.pow(2).sum(), x)
        print(f"{name}: {second[0, :3]}")
        #> torch F.rms_norm: tensor([ 3.1210,  4.1169, -0.3029])
    except RuntimeError as error:
        print(f"{name}: {type(error).__name__}, {str(error).split(':')[0]}")
        #> Triton (this site): RuntimeError, rms_norm_triton has no second derivatives

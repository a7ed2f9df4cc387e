import torch

from snippets.gradients.backward import RMSNormFunction

torch.manual_seed(0)
# Scale 0: all-zero rows; 0.001: an RMS near sqrt(eps), where eps counts.
for scale in [0.0, 0.001, 0.1, 1.0, 10.0]:
    # float64, as gradcheck compares against finite differences.
    x = (torch.randn(4, 16, dtype=torch.float64) * scale).requires_grad_()
    weight = (torch.rand(16, dtype=torch.float64) + 0.5).requires_grad_()
    inputs = (x, weight, 1e-6)
    passed = torch.autograd.gradcheck(RMSNormFunction.apply, inputs)
    # Second derivatives: autograd differentiates the backward's own tensor operations.
    twice = torch.autograd.gradgradcheck(RMSNormFunction.apply, inputs)

    # The same gradients as autograd through the plain formula.
    grad_out = torch.randn(4, 16, dtype=torch.float64)
    ours = torch.autograd.grad(
        RMSNormFunction.apply(x, weight, 1e-6), (x, weight), grad_out
    )
    plain = weight * x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
    autograd = torch.autograd.grad(plain, (x, weight), grad_out)
    same = all(torch.allclose(a, b, rtol=1e-10, atol=0) for a, b in zip(ours, autograd))
    checks = f"gradcheck {passed}, gradgradcheck {twice}, matches autograd {same}"
    print(f"input scale {scale:>5}: {checks}")
    #> input scale   0.0: gradcheck True, gradgradcheck True, matches autograd True
    #> input scale 0.001: gradcheck True, gradgradcheck True, matches autograd True
    #> input scale   0.1: gradcheck True, gradgradcheck True, matches autograd True
    #> input scale   1.0: gradcheck True, gradgradcheck True, matches autograd True
    #> input scale  10.0: gradcheck True, gradgradcheck True, matches autograd True

import torch

from snippets.kernel_in_practice.custom_op import add_rms_norm_forward, rms_norm_forward

# Run with TRITON_INTERPRET=1, on a GPU machine too: the samples are CPU tensors, which
# only Triton's interpreter runs. They need gradients, so that the autograd registration
# is tested too.
x = torch.randn(8, 64, requires_grad=True)
residual = torch.randn(8, 64, requires_grad=True)
weight = torch.randn(64, requires_grad=True)
samples = {
    "rms_norm_forward": (rms_norm_forward, (x, weight, 1e-6, 0.0)),
    "add_rms_norm_forward": (add_rms_norm_forward, (x, residual, weight, 1e-6, 0.0)),
}
# opcheck tests the operator's schema, its autograd registration, its fake implementation
# (shapes and dtypes without data, what tracing runs) against its real outputs, and
# AOTAutograd's trace of it with dynamic shapes (a trace that may fix sizes, against the
# same registered backward); it raises at the first that fails. Whether the gradient is
# right is gradcheck's or a reference's test.
lines = []
for name, (operator, inputs) in samples.items():
    results = torch.library.opcheck(operator, inputs)
    lines += [f"{name:<21} {test:<26} {result}" for test, result in results.items()]
for line in lines:
    print(line)
    #> rms_norm_forward      test_schema                SUCCESS
    #> rms_norm_forward      test_autograd_registration SUCCESS
    #> rms_norm_forward      test_faketensor            SUCCESS
    #> rms_norm_forward      test_aot_dispatch_dynamic  SUCCESS
    #> add_rms_norm_forward  test_schema                SUCCESS
    #> add_rms_norm_forward  test_autograd_registration SUCCESS
    #> add_rms_norm_forward  test_faketensor            SUCCESS
    #> add_rms_norm_forward  test_aot_dispatch_dynamic  SUCCESS

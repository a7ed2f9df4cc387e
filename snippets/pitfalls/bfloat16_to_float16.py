import torch

# Every bfloat16 value: its 65536 bit patterns, the infinities and NaNs left out.
bits = torch.arange(-32768, 32768, dtype=torch.int32).to(torch.int16)
values = bits.view(torch.bfloat16)
values = values[values.isfinite()]
half = values.to(torch.float16)
tiny, biggest = torch.finfo(torch.float16).tiny, torch.finfo(torch.float16).max
print(f"float16's normal range: {tiny:.2g} to {biggest:g}")
#> float16's normal range: 6.1e-05 to 65504
size = values.float().abs()  # compared in float32: 65504 is no bfloat16 value
normal = (size >= tiny) & (size <= biggest)
exact = torch.equal(half[normal].float(), values[normal].float())
print(f"bfloat16 values in it that convert exactly: {'all' if exact else 'not all'}")
#> bfloat16 values in it that convert exactly: all
# Below it, float16's subnormals (steps of 2^-24) still hold the larger ones exactly.
lost = size[(half.float() != values.float()) & (size < tiny)]
exact_from = size[size > lost.max()].min()
print(f"below it, every one converts exactly down to {exact_from:.2g}")
#> below it, every one converts exactly down to 7.6e-06
print(
    f"largest bfloat16 value finite in float16: {values[half.isfinite()].abs().max()}"
)
#> largest bfloat16 value finite in float16: 65280.0

# A norm's output in each dtype against float64, its input and weight rounded to it first.
torch.manual_seed(0)
x, w = torch.randn(256, 4096, dtype=torch.float64), 1 + torch.randn(4096) / 10
exact = torch.nn.functional.rms_norm(x, (4096,), w.double(), 1e-6)
for dtype in (torch.float16, torch.bfloat16):
    y = torch.nn.functional.rms_norm(x.to(dtype), (4096,), w.to(dtype), 1e-6)
    error = ((y.double() - exact).norm(dim=-1) / exact.norm(dim=-1)).median()
    print(f"F.rms_norm in {str(dtype)[6:]}: median row's error {error:.1e}")
    #> F.rms_norm in float16: median row's error 3.7e-04
    #> F.rms_norm in bfloat16: median row's error 2.9e-03

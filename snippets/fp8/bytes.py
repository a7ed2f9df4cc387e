# The fewest bytes each way of computing q = FP8(RMSNorm(x + r)) moves, per element of a
# bfloat16 activation (2 bytes), with one float32 scale per row of N = 4096 features.
s, fp8, n = 2, 1, 4096
scale = 4 / n  # a float32 scale per row, spread over its elements
ways = {
    # add: read x, r, write h; norm: read h, write y; quantize: read y for the row's
    # largest value, read it again to scale it, write q and the scale.
    "eager PyTorch": 3 * s + 2 * s + s + s + fp8 + scale,
    # the Kernel page's fused add and norm writes h and y; a quantize kernel that holds a
    # row reads y once.
    "fused add+norm, quantize": 4 * s + s + fp8 + scale,
    # one pass: read x and r, write h, q and the scale.
    "one fused kernel": 2 * s + s + fp8 + scale,
}
fused = ways["one fused kernel"]
for name, moved in ways.items():
    print(f"{name}: {moved:.3f} bytes per element, {moved / fused:.2f}x")
    #> eager PyTorch: 15.001 bytes per element, 2.14x
    #> fused add+norm, quantize: 11.001 bytes per element, 1.57x
    #> one fused kernel: 7.001 bytes per element, 1.00x

# The fewest bytes each way of computing q = FP8(RMSNorm(x + r)) moves, per element of a
# bfloat16 activation (s = 2 bytes), with one float32 scale per row of n = 4096 features.
# Each kernel reads its inputs once and writes its outputs once; y goes between kernels in
# bfloat16 (rounded twice then, to bfloat16 and to FP8).
s, fp8, scale = 2, 1, 4 / 4096
add = 3 * s  # read x and r, write h
norm = 2 * s  # read h, write y
add_norm = 4 * s  # fused: read x and r, write h and y
# A quantizer that does not hold a row reads y from memory twice: once for its largest
# value (writing the scale), once to scale it (reading the scale back), as two kernels do, a
# reduction and then the scaling. One that holds the row reads y once (so does one kernel
# that reads a row twice: the second read finds it in cache).
quantize_two_passes = s + scale + s + scale + fp8
quantize_holding_the_row = s + fp8 + scale
ways = {
    "add, norm, quantize (3 steps)": add + norm + quantize_two_passes,
    "fused add+norm, quantize": add_norm + quantize_two_passes,
    "fused add+norm, quantize (row held)": add_norm + quantize_holding_the_row,
    "add, fused norm+quantize": add + quantize_holding_the_row,  # reads h, not y
    "one fused kernel": 2 * s + s + fp8 + scale,  # read x and r, write h, q, the scale
}
fused = ways["one fused kernel"]
for name, moved in ways.items():
    print(f"{name}: {moved:.3f} bytes per element, {moved / fused:.2f}x")
    #> add, norm, quantize (3 steps): 15.002 bytes per element, 2.14x
    #> fused add+norm, quantize: 13.002 bytes per element, 1.86x
    #> fused add+norm, quantize (row held): 11.001 bytes per element, 1.57x
    #> add, fused norm+quantize: 9.001 bytes per element, 1.29x
    #> one fused kernel: 7.001 bytes per element, 1.00x

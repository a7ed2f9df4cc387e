import torch

from snippets.math.summation import running_sum

# (a) The squares of a bfloat16 row of 4096 ones, added one by one into a bfloat16 total.
row = torch.ones(4096, dtype=torch.bfloat16)
total = running_sum(row * row)
print(f"bfloat16 running total: {total.item():.0f} of {row.numel()}")
#> bfloat16 running total: 256 of 4096

# (b) The norm then sees a mean square 16 times too small, and scales the row up 4 times.
rms = (total.float() / row.numel()).sqrt()
output = (row.float() / rms)[0]
print(f"RMS {rms.item():.2f}, output {output.item():.2f} instead of 1.00")
#> RMS 0.25, output 4.00 instead of 1.00

# (c) Where a running total of ones stops: from 2 / eps on, numbers are 2 apart, so adding 1
# lands halfway between two of them, and the tie goes to the one whose last significand bit
# is 0 (round half to even): back down.
for dtype in [torch.float16, torch.bfloat16, torch.float32]:
    stall = torch.tensor(2 / torch.finfo(dtype).eps, dtype=dtype)
    below, at = [
        f"{t.item():.0f} + 1 = {(t + 1).item():.0f}" for t in [stall - 1, stall]
    ]
    print(f"{str(dtype)[6:]:<9} {below}, {at}")
    #> float16   2047 + 1 = 2048, 2048 + 1 = 2048
    #> bfloat16  255 + 1 = 256, 256 + 1 = 256
    #> float32   16777215 + 1 = 16777216, 16777216 + 1 = 16777216

# So on the row of 4096 ones, a float16 total stalls at 2048; a float32 total reaches 4096.
for dtype in [torch.float16, torch.float32]:
    total = running_sum(torch.ones(4096, dtype=dtype))
    print(f"{str(dtype)[6:]:<9} running total of 4096 ones: {total.item():.0f}")
    #> float16   running total of 4096 ones: 2048
    #> float32   running total of 4096 ones: 4096

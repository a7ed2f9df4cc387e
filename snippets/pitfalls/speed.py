import statistics
import time

import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(8, 512, 2048)  # 8 sequences of 512 tokens, hidden size 2048
layer_norm, rms_norm = nn.LayerNorm(2048), nn.RMSNorm(2048, eps=1e-6)

def median_seconds(fn, repeats=15):
    fn(x)  # warm-up (and, for compiled functions, compilation)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(x)
        times.append(time.perf_counter() - start)
    return statistics.median(times)

with torch.no_grad():
    eager = median_seconds(rms_norm) / median_seconds(layer_norm)
    compiled = median_seconds(torch.compile(rms_norm)) / median_seconds(
        torch.compile(layer_norm)
    )
# Ratios, not times: times depend on the machine. Repeated runs on a 2-core CPU measured
# eager ratios near 3 and compiled ratios from 0.7 to just above 1, so the test checks
# bounds with room to spare rather than the ratios themselves.
print(f"eager: RMSNorm takes more than 2x LayerNorm's time: {eager > 2}")
#> eager: RMSNorm takes more than 2x LayerNorm's time: True
print(f"compiled: the gap closes to under 1.5x: {compiled < 1.5}")
#> compiled: the gap closes to under 1.5x: True

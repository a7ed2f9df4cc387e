"""Bytes through GPU memory for the residual add and the norm after it, apart and fused."""

# The tensors of M x N elements each pass reads and writes (the weight, one float32 per
# row and the dw partials are small next to them, as for the lone norm above).
PASSES = {
    "forward": {
        "unfused": [("h = x + r", ["x", "r"], ["h"]), ("y = norm(h)", ["h"], ["y"])],
        "fused": [("h, y", ["x", "r"], ["h", "y"])],
    },
    "backward": {
        # dy comes from the norm's consumer, dh from the residual stream; x and r share
        # h's gradient (an add passes its gradient on to both without a copy).
        "unfused": [
            ("norm backward", ["h", "dy"], ["dh_norm"]),
            ("dh + dh_norm", ["dh", "dh_norm"], ["dh_total"]),
        ],
        "fused": [("dh_total", ["h", "dy", "dh"], ["dh_total"])],
    },
}

# The speed-ups the fused kernels aim at on a GPU (bfloat16, M = 16384, N 1024 to 16384),
# against the add followed by the lone norm: below the ratios of the bytes moved.
TARGETS = {"forward": 1.2, "backward": 1.4}

def tensors_moved(kernels):
    return sum(len(reads) + len(writes) for _, reads, writes in kernels)

m, n, s = 16384, 4096, 2  # bfloat16
print(f"unfused -> fused, and at M {m}, N {n} in bfloat16 (s = {s} bytes):")
#> unfused -> fused, and at M 16384, N 4096 in bfloat16 (s = 2 bytes):
for direction, ways in PASSES.items():
    unfused, fused = (tensors_moved(ways[way]) for way in ("unfused", "fused"))
    mib = [count * m * n * s / 2**20 for count in (unfused, fused)]
    bytes_moved = f"{mib[0]:.0f} -> {mib[1]:.0f} MiB"
    ratio = f"{unfused / fused:.2f}x fewer bytes ({bytes_moved})"
    print(
        f"{direction:<8} {unfused}MNs -> {fused}MNs: {ratio}, target {TARGETS[direction]}x"
    )
    #> forward  5MNs -> 4MNs: 1.25x fewer bytes (640 -> 512 MiB), target 1.2x
    #> backward 6MNs -> 4MNs: 1.50x fewer bytes (768 -> 512 MiB), target 1.4x

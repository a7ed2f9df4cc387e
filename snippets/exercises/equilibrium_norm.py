import math

import torch

# SGD with weight decay on a scale-invariant W: W <- (1 - lr * decay) W - lr g, with g
# orthogonal to W and |g| = c / |W|. Steady state: (1 - lr decay)^2 N + lr^2 c^2 / N = N
# for N = |W|^2, so |W|^4 = lr c^2 / (decay (2 - lr decay)).
lr, decay, c = 0.5, 0.01, 2.0
predicted = (lr * c**2 / (decay * (2 - lr * decay))) ** 0.25
angle = math.acos(1 - lr * decay)
print(
    f"predicted |W| = {predicted:.4f}, angle per step arccos(1 - lr decay) = {angle:.4f}"
)
#> predicted |W| = 3.1643, angle per step arccos(1 - lr decay) = 0.1000

torch.manual_seed(0)
for start in [0.5, 30.0]:  # from below and from above
    W = torch.randn(1000, dtype=torch.float64)
    W = W * start / W.norm()
    for _ in range(3000):
        g = torch.randn(1000, dtype=torch.float64)
        g = g - (g @ W) / (W @ W) * W  # the component orthogonal to W
        g = g * c / (g.norm() * W.norm())  # |g| = c / |W|
        new = (1 - lr * decay) * W - lr * g
        angle = torch.arccos((new @ W) / (new.norm() * W.norm())).item()
        W = new
    print(
        f"from |W| = {start:>4}: after 3000 steps |W| = {W.norm():.4f}, angle {angle:.4f}"
    )
    #> from |W| =  0.5: after 3000 steps |W| = 3.1643, angle 0.1000
    #> from |W| = 30.0: after 3000 steps |W| = 3.1643, angle 0.1000

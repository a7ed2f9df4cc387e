import math

import torch

from snippets.placement.stack import layer_statistics

# Xiong et al. (2020): at initialization their bounds on the last layer's weight gradient
# differ between post-norm and pre-norm by a factor of sqrt(L). Measure the ratio at several
# depths on the same stack as above (the last block's first linear layer, mean of 5 seeds).
def last_layer_gradient(placement, depth):
    runs = [layer_statistics(placement, seed, depth=depth) for seed in range(5)]
    return torch.stack([run["weight_grad"][-1] for run in runs]).mean()

print("depth  post/pre  sqrt(depth)  (post/pre)/sqrt(depth)")
#> depth  post/pre  sqrt(depth)  (post/pre)/sqrt(depth)
for depth in [6, 12, 24, 48]:
    ratio = last_layer_gradient("post", depth) / last_layer_gradient("pre", depth)
    root = math.sqrt(depth)
    print(f"{depth:>5} {ratio:>9.3g} {root:>12.3g} {ratio / root:>23.2f}")
    #>     6      1.61         2.45                    0.66
    #>    12      2.38         3.46                    0.69
    #>    24      3.89          4.9                    0.79
    #>    48      5.49         6.93                    0.79

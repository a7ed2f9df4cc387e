import torch

from snippets.placement.stack import Stack, block_statistics

# The pre-norm stack of the deep_stack snippet, the same weights, with every block's last
# linear layer (the one that writes into the residual stream) scaled down by 1/sqrt(48).
# A transformer layer has two such branches, hence Megatron-LM's 1/sqrt(2L) for L layers.
depth, width, batch, classes = 48, 256, 64, 16

def pre_norm_statistics(seed, scale):
    torch.manual_seed(seed)
    model = Stack(depth, width, classes, "pre").double()
    with torch.no_grad():
        for block in model.blocks:
            block.fc2.weight.mul_(scale)
    x = torch.randn(batch, width, dtype=torch.float64, requires_grad=True)
    return block_statistics(model, x, torch.randint(classes, (batch,)))

print("pre-norm, mean of 5 seeds at layers 1, 24, 48, and the ratio 48 / 1")
#> pre-norm, mean of 5 seeds at layers 1, 24, 48, and the ratio 48 / 1
runs = [pre_norm_statistics(seed, depth**-0.5) for seed in range(5)]
for key in ["stream_rms", "input_grad", "weight_grad"]:
    mean = torch.stack([run[key] for run in runs]).mean(0)
    values = " ".join(f"{value:>6.3g}" for value in (mean[0], mean[23], mean[-1]))
    print(f"scaled init {key:<11} {values}  ratio {mean[-1] / mean[0]:.3g}")
    #> scaled init stream_rms   0.999   1.07   1.14  ratio 1.14
    #> scaled init input_grad   0.182  0.169  0.158  ratio 0.869
    #> scaled init weight_grad  0.374  0.351  0.327  ratio 0.876

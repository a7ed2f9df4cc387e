from snippets.kernel.rms_norm_triton import backward_launch, forward_launch
from snippets.models.checkpoints import MODELS

LAYER_NORM = {"gpt2", "bert", "vit", "falcon"}  # the table's models without RMSNorm

families = {}  # each hidden size, with the families whose models have it
for family, model_type, _, hidden, _ in MODELS:
    if model_type not in LAYER_NORM and family not in families.setdefault(hidden, []):
        families[hidden].append(family)

lines = [f"{'N':>5}{'BLOCK_N':>8}{'masked':>8}{'warps':>7}  families"]
for n, names in sorted(families.items()):
    # The SM count (1 here) sets only how many backward programs run, not their warps.
    forward, backward = forward_launch(n), backward_launch(n, 1)
    warps = f"{forward.num_warps}/{backward.num_warps}"  # forward/backward
    masked = 1 - n / forward.block_n  # the tile's lanes past N, which load nothing
    lines.append(
        f"{n:>5}{forward.block_n:>8}{masked:>8.1%}{warps:>7}  {', '.join(names)}"
    )
others = sum(n & (n - 1) != 0 for n in families)
lines.append(f"{len(families)} widths, {others} of them not powers of two")
lines.append(f"all multiples of 16: {all(n % 16 == 0 for n in families)}")
print("\n".join(lines))
"""
    N BLOCK_N  masked  warps  families
  512     512    0.0%    8/4  T5
  640    1024   37.5%    2/4  Gemma 3
  768    1024   25.0%    2/4  T5
  896    1024   12.5%    2/4  Qwen2
 1024    1024    0.0%    2/4  Qwen3, T5
 1152    2048   43.8%    8/8  Gemma 3
 1536    2048   25.0%    8/8  Gemma 4
 2048    2048    0.0%    8/8  LLaMA 3, Qwen3-Next, Gemma, OLMo 2, Falcon 3
 2304    4096   43.8%    8/8  Gemma 2
 2560    4096   37.5%    8/8  Qwen3, Gemma 3, Gemma 4
 2816    4096   31.2%    8/8  Gemma 4
 2880    4096   29.7%    8/8  GPT-OSS
 3072    4096   25.0%    8/8  LLaMA 3, Gemma, Falcon 3
 3584    4096   12.5%    8/8  Qwen2, Qwen2.5, Gemma 2
 3840    4096    6.2%    8/8  Gemma 3
 4096    4096    0.0%    8/8  LLaMA 1, LLaMA 2, LLaMA 3, Mistral, Mixtral, Qwen3, OLMo 2
 4608    8192   43.8%   8/16  Gemma 2
 5120    8192   37.5%   8/16  LLaMA 1, LLaMA 2, Mistral, Qwen2.5, Qwen3, OLMo 2
 5376    8192   34.4%   8/16  Gemma 3, Gemma 4
 6144    8192   25.0%   8/16  Mixtral
 6656    8192   18.8%   8/16  LLaMA 1
 7168    8192   12.5%   8/16  DeepSeek-V3
 8192    8192    0.0%   8/16  LLaMA 1, LLaMA 2, LLaMA 3, Qwen2, Qwen2.5
12288   16384   25.0%  16/16  Mistral
16384   16384    0.0%  16/16  LLaMA 3
25 widths, 19 of them not powers of two
all multiples of 16: True
"""

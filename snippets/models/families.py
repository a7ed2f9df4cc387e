import copy
import inspect
from itertools import groupby, zip_longest

import torch
import transformers as tf

from snippets.models.checkpoints import MODELS

TINY = {"hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4}
TINY |= {"num_key_value_heads": 2, "intermediate_size": 128}

def gain(norm: torch.nn.Module) -> str:
    """How a norm applies its stored weight w: with w = 0, w gives zeros, 1 + w does not."""
    norm = copy.deepcopy(norm).to_empty(device="cpu")  # real memory, for one call
    # Every parameter: LayerNorm's bias too, or it would hide a gain w.
    for parameter in norm.parameters():
        torch.nn.init.zeros_(parameter)
    x = torch.randn(2, norm.weight.shape[-1])
    # A gated norm (Qwen3-Next's) takes its gate z too: with z = 1, SiLU(z) is not zero.
    gated = "gate" in inspect.signature(norm.forward).parameters
    output = norm(x, torch.ones_like(x)) if gated else norm(x)
    return "w" if output.abs().max() == 0 else "1 + w"

def norm_classes(model_type: str) -> list[str]:
    """The norm classes in the model transformers builds for `model_type` (meta: no memory),
    each with the gain it applies."""
    config = tf.AutoConfig.for_model(model_type, **TINY)
    with torch.device("meta"):
        model = tf.AutoModel.from_config(config)
    norms = {type(m).__name__: m for m in model.modules() if "Norm" in type(m).__name__}
    return [f"{name} ({gain(norms[name])})" for name in sorted(norms)]

table = [
    f"{'family':<11} {'model':<12} {'hidden':>6}  {'eps':<6} {'model type':<11} norm classes (gain)"
]
for (family, model_type), group in groupby(MODELS, key=lambda line: line[:2]):
    models = [f"{model:<12} {hidden:>6}  {eps:<6g}" for *_, model, hidden, eps in group]
    classes = norm_classes(model_type)  # a line each: a model can have two
    for i, (model, norm) in enumerate(zip_longest(models, classes, fillvalue="")):
        start, kind = (family, model_type) if i == 0 else ("", "")  # on the first line
        table.append(f"{start:<11} {model:<27} {kind:<11} {norm}".rstrip())
print("\n".join(table))
"""
family      model        hidden  eps    model type  norm classes (gain)
LLaMA 1     7B             4096  1e-06  llama       LlamaRMSNorm (w)
            13B            5120  1e-06
            33B            6656  1e-06
            65B            8192  1e-05
LLaMA 2     7B             4096  1e-05  llama       LlamaRMSNorm (w)
            13B            5120  1e-05
            70B            8192  1e-05
LLaMA 3     3 8B           4096  1e-05  llama       LlamaRMSNorm (w)
            3 70B          8192  1e-05
            3.1 8B         4096  1e-05
            3.1 70B        8192  1e-05
            3.1 405B      16384  1e-05
            3.2 1B         2048  1e-05
            3.2 3B         3072  1e-05
Mistral     7B             4096  1e-05  mistral     MistralRMSNorm (w)
            NeMo           5120  1e-05
            Large 2407    12288  1e-05
Mixtral     8x7B           4096  1e-05  mixtral     MixtralRMSNorm (w)
            8x22B          6144  1e-05
Qwen2       0.5B            896  1e-06  qwen2       Qwen2RMSNorm (w)
            7B             3584  1e-06
            72B            8192  1e-05
            72B-Instruct   8192  1e-06
Qwen2.5     7B             3584  1e-06  qwen2       Qwen2RMSNorm (w)
            14B            5120  1e-05
            32B            5120  1e-05
            72B            8192  1e-05
Qwen3       0.6B           1024  1e-06  qwen3       Qwen3RMSNorm (w)
            4B             2560  1e-06
            8B             4096  1e-06
            32B            5120  1e-06
Qwen3-Next  80B-A3B        2048  1e-06  qwen3_next  Qwen3NextRMSNorm (1 + w)
                                                    Qwen3NextRMSNormGated (w)
Gemma       2B             2048  1e-06  gemma       GemmaRMSNorm (1 + w)
            7B             3072  1e-06
Gemma 2     2B             2304  1e-06  gemma2      Gemma2RMSNorm (1 + w)
            9B             3584  1e-06
            27B            4608  1e-06
Gemma 3     270M            640  1e-06  gemma3_text Gemma3RMSNorm (1 + w)
            1B             1152  1e-06
            4B             2560  1e-06
            12B            3840  1e-06
            27B            5376  1e-06
Gemma 4     E2B            1536  1e-06  gemma4_text Gemma4RMSNorm (w)
            E4B            2560  1e-06
            26B A4B        2816  1e-06
            31B            5376  1e-06
OLMo 2      1B             2048  1e-06  olmo2       Olmo2RMSNorm (w)
            7B             4096  1e-06
            13B            5120  1e-06
            32B            5120  1e-06
DeepSeek-V3 671B           7168  1e-06  deepseek_v3 DeepseekV3RMSNorm (w)
GPT-OSS     20B            2880  1e-05  gpt_oss     GptOssRMSNorm (w)
            120B           2880  1e-05
T5          Small           512  1e-06  t5          T5LayerNorm (w)
            Base            768  1e-06
            Large          1024  1e-06
            3B             1024  1e-06
            11B            1024  1e-06
GPT-2       124M            768  1e-05  gpt2        LayerNorm (w)
            1.5B           1600  1e-05
BERT        Base            768  1e-12  bert        LayerNorm (w)
            Large          1024  1e-12
ViT         Base            768  1e-12  vit         LayerNorm (w)
            Large          1024  1e-12
            Huge           1280  1e-12
Falcon      7B             4544  1e-05  falcon      LayerNorm (w)
            40B            8192  1e-05
            180B          14848  1e-05
Falcon 3    1B             2048  1e-06  llama       LlamaRMSNorm (w)
            3B             3072  1e-06
            7B             3072  1e-06
            10B            3072  1e-06
"""

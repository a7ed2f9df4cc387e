import torch
import transformers as tf

# family, published hidden sizes (smallest-largest), published eps, transformers model and
# a tiny config of it. The norm column is read from the model transformers builds.
tiny = {"hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4}
llama_like = {**tiny, "num_key_value_heads": 2, "intermediate_size": 128}
families = [
    ("LLaMA 1", "4096-8192", 1e-6, tf.LlamaModel, tf.LlamaConfig(**llama_like)),
    ("LLaMA 2", "4096-8192", 1e-5, tf.LlamaModel, tf.LlamaConfig(**llama_like)),
    ("LLaMA 3", "2048-16384", 1e-5, tf.LlamaModel, tf.LlamaConfig(**llama_like)),
    ("Mistral", "4096", 1e-5, tf.MistralModel, tf.MistralConfig(**llama_like)),
    ("Mixtral", "4096-6144", 1e-5, tf.MixtralModel, tf.MixtralConfig(**llama_like)),
    ("Qwen (1)", "2048-8192", 1e-6, None, None),  # remote code, not in transformers
    ("Qwen2", "896-8192", 1e-6, tf.Qwen2Model, tf.Qwen2Config(**llama_like)),
    ("Qwen3", "1024-5120", 1e-6, tf.Qwen3Model, tf.Qwen3Config(**llama_like)),
    ("Gemma", "2048-3072", 1e-6, tf.GemmaModel, tf.GemmaConfig(**llama_like)),
    ("Gemma 2", "2304-4608", 1e-6, tf.Gemma2Model, tf.Gemma2Config(**llama_like)),
    (
        "Gemma 3",
        "1152-5376",
        1e-6,
        tf.Gemma3TextModel,
        tf.Gemma3TextConfig(**llama_like),
    ),
    ("OLMo 2", "4096-5120", 1e-6, tf.Olmo2Model, tf.Olmo2Config(**llama_like)),
    (
        "GPT-2",
        "768-1600",
        1e-5,
        tf.GPT2Model,
        tf.GPT2Config(n_embd=64, n_layer=1, n_head=4),
    ),
    (
        "BERT",
        "768-1024",
        1e-12,
        tf.BertModel,
        tf.BertConfig(**tiny, intermediate_size=128),
    ),
    (
        "ViT",
        "768-1280",
        1e-12,
        tf.ViTModel,
        tf.ViTConfig(**tiny, intermediate_size=128),
    ),
    ("Falcon", "4544-14848", 1e-5, tf.FalconModel, tf.FalconConfig(**tiny)),
]

print(f"{'family':<9} {'hidden size':<11} {'eps':<6} norm in transformers")
#> family    hidden size eps    norm in transformers
for family, hidden, eps, model_class, config in families:
    if model_class is None:
        norm = "(not in transformers)"
    else:
        with torch.device("meta"):
            model = model_class(config)
        kinds = {type(m).__name__ for m in model.modules()}
        norm = ", ".join(sorted(k for k in kinds if "Norm" in k))
    print(f"{family:<9} {hidden:<11} {eps:<6g} {norm}")
    #> LLaMA 1   4096-8192   1e-06  LlamaRMSNorm
    #> LLaMA 2   4096-8192   1e-05  LlamaRMSNorm
    #> LLaMA 3   2048-16384  1e-05  LlamaRMSNorm
    #> Mistral   4096        1e-05  MistralRMSNorm
    #> Mixtral   4096-6144   1e-05  MixtralRMSNorm
    #> Qwen (1)  2048-8192   1e-06  (not in transformers)
    #> Qwen2     896-8192    1e-06  Qwen2RMSNorm
    #> Qwen3     1024-5120   1e-06  Qwen3RMSNorm
    #> Gemma     2048-3072   1e-06  GemmaRMSNorm
    #> Gemma 2   2304-4608   1e-06  Gemma2RMSNorm
    #> Gemma 3   1152-5376   1e-06  Gemma3RMSNorm
    #> OLMo 2    4096-5120   1e-06  Olmo2RMSNorm
    #> GPT-2     768-1600    1e-05  LayerNorm
    #> BERT      768-1024    1e-12  LayerNorm
    #> ViT       768-1280    1e-12  LayerNorm
    #> Falcon    4544-14848  1e-05  LayerNorm

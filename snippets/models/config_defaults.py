import torch
import torch.nn.functional as F
import transformers as tf

# transformers' config classes have defaults; a checkpoint's config.json overrides them.
# Building a model from a bare config class silently takes the default eps.
for config_class, published in [
    (tf.LlamaConfig, "LLaMA 2 and 3 publish 1e-5"),
    (tf.MistralConfig, "Mistral 7B publishes 1e-5"),
    (tf.Qwen3Config, "Qwen3 publishes 1e-6"),
    (tf.GemmaConfig, "Gemma publishes 1e-6"),
    (tf.Olmo2Config, "OLMo 2 publishes 1e-6"),
]:
    print(f"{config_class.__name__}() eps {config_class().rms_norm_eps:g}; {published}")
    #> LlamaConfig() eps 1e-06; LLaMA 2 and 3 publish 1e-5
    #> MistralConfig() eps 1e-06; Mistral 7B publishes 1e-5
    #> Qwen3Config() eps 1e-06; Qwen3 publishes 1e-6
    #> GemmaConfig() eps 1e-06; Gemma publishes 1e-6
    #> Olmo2Config() eps 1e-05; OLMo 2 publishes 1e-6

# A wrong eps raises no error: it scales each row by sqrt((ms + 1e-5) / (ms + 1e-6)), ms
# the row's mean square. Invisible on rows of RMS near 1, large on rows of small RMS.
row = torch.randn(4096, dtype=torch.float64)
row = row / row.pow(2).mean().sqrt()  # RMS 1
for rms in [1.0, 0.01, 0.003]:
    trained, default = (F.rms_norm(rms * row, (4096,), eps=eps) for eps in (1e-5, 1e-6))
    change = (default / trained - 1).abs().max().item()
    ms = (rms * row).pow(2).mean()
    formula = (((ms + 1e-5) / (ms + 1e-6)).sqrt() - 1).item()
    changes = f"relative change {change:.2g}, formula {formula:.2g}"
    print(f"row RMS {rms:g}: eps 1e-6 instead of 1e-5, {changes}")
    #> row RMS 1: eps 1e-6 instead of 1e-5, relative change 4.5e-06, formula 4.5e-06
    #> row RMS 0.01: eps 1e-6 instead of 1e-5, relative change 0.044, formula 0.044
    #> row RMS 0.003: eps 1e-6 instead of 1e-5, relative change 0.38, formula 0.38

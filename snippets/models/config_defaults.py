import transformers as tf

# transformers' config classes have defaults; a checkpoint's config.json overrides them.
# Building a model from a bare config class silently takes the default eps.
for config_class, published in [
    (tf.LlamaConfig, "LLaMA 2 and 3 publish 1e-5"),
    (tf.MistralConfig, "Mistral 7B publishes 1e-5"),
    (tf.Qwen3Config, "Qwen3 publishes 1e-6"),
    (tf.GemmaConfig, "Gemma publishes 1e-6"),
]:
    print(f"{config_class.__name__}() eps {config_class().rms_norm_eps:g}; {published}")
    #> LlamaConfig() eps 1e-06; LLaMA 2 and 3 publish 1e-5
    #> MistralConfig() eps 1e-06; Mistral 7B publishes 1e-5
    #> Qwen3Config() eps 1e-06; Qwen3 publishes 1e-6
    #> GemmaConfig() eps 1e-06; Gemma publishes 1e-6

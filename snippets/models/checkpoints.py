"""The models of the Models page's table: each with its family, the model_type of its
checkpoints, its hidden size and eps, and where each value was checked."""

# One line per model: the family version it belongs to, the model_type in the checkpoints'
# config.json, the model, its hidden size and eps. Values are those of
# the checkpoints' config.json (or of the maker's own code); where each was checked:
# LLaMA 1: sizes, Meta's MODEL_CARD.md (meta-llama/llama 1076b9c); eps, Meta's params.json
#   as uploaded (huggingface.co nyanko7/LLaMA-7B, TheBlokeAI/llama-13b-pth, datasets/
#   nyanko7/LLaMA-65B) and huggyllama/llama-30b and llama-65b config.json.
# LLaMA 2, 3: Meta's models/sku_list.py (meta-llama/llama-models 364ed4e): dim, norm_eps.
# Mistral: 7B, a duplicate of mistralai/Mistral-7B-Instruct-v0.1 and mlx-community/
#   mistral-7B-v0.1 params.json; NeMo, configs of models tuned from mistralai/Mistral-Nemo-
#   Base-2407 and -Instruct-2407; Large, IntervitensInc/Mistral-Large-Instruct-2407-chatml
#   (a duplicate of Mistral-Large-Instruct-2407).
# Mixtral: 8x7B, transformers' MixtralConfig defaults (for mistralai/Mixtral-8x7B-v0.1) and
#   a config tuned from it; 8x22B, mistral-community/Mixtral-8x22B-v0.1 config.json.
# Qwen2: Qwen/Qwen2-7B, Qwen2-72B and Qwen2-72B-Instruct config.json; 0.5B, configs of
#   models tuned from Qwen/Qwen2-0.5B. Qwen2.5, the base models only (the instruction-tuned
#   ones are not listed): litgpt's config.py (Lightning-AI/litgpt 2685705), which copies
#   each base model's config.json (and reuses it for -Instruct: no source for those).
#   Qwen3: that file, and copies of those configs on the Hub (for 8B a verbatim one;
#   Qwen3Config's default hidden_size and rms_norm_eps are Qwen/Qwen3-8B's too).
#   Qwen3-Next: Qwen3NextConfig's defaults (its docstring names
#   Qwen/Qwen3-Next-80B-A3B-Instruct: hidden_size 2048, rms_norm_eps 1e-6) and copies of
#   that checkpoint's config.json values (a test fixture scaled from revision 9c7f2fbe).
# Gemma, Gemma 2, Gemma 3: Google's code, gemma/config.py (google/gemma_pytorch 014acb7,
#   rms_norm_eps 1e-6 for all) and gemma/gm/nn/_gemma.py (google-deepmind/gemma 7691fd4,
#   the only source here for 270M; its RMSNorm adds 1e-06). Gemma 3 4B-27B checkpoints
#   have model_type gemma3, with a gemma3_text model inside.
# Gemma 4: Google's code (google-deepmind/gemma 7691fd4): the checkpoints in gemma/gm/ckpts/
#   _paths.py, embed_dim 1536, 2560, 2816, 5376 in gemma/gm/nn/gemma4/_gemma4.py, and an
#   RMSNorm that adds 1e-06 and multiplies by its scale, started at ones (gemma4/_layers.py);
#   Google's copies of their config.json in AI-Hypercomputer/maxtext e591f30 (src/maxtext/
#   checkpoint_conversion/utils/hf_model_configs.py): model_type gemma4 with a gemma4_text
#   model inside, the same hidden_size, rms_norm_eps 1e-06.
# OLMo 2: allenai/OLMo-2-1124-7B, -1124-13B and -0325-32B config.json; 1B, OLMo-core's
#   olmo2_1B_v2, the config of allenai/OLMo-2-0425-1B (allenai/OLMo-core fa6c501: d_model
#   2048, layer_norm_eps 1e-6).
# DeepSeek-V3: DeepSeek's own code (deepseek-ai/DeepSeek-V3 9b4e978): dim 7168 in
#   inference/configs/config_671B.json; eps, the default of its RMSNorm, 1e-6, which
#   inference/model.py never changes. DeepseekV3Config's defaults are the same.
# GPT-OSS: 120B, OpenAI's own code (openai/gpt-oss 243a1b0, gpt_oss/torch/model.py):
#   hidden_size 2880 in its ModelConfig (the 120B's 36 layers and 128 experts), eps 1e-5,
#   the default of its RMSNorm, which the model never changes; 20B, two summaries of
#   openai/gpt-oss-20b's config.json (EchoCog/gpt-oss-20b docs/gpt-oss-20b-architecture.md:
#   hidden_size 2880, rms_norm_eps 1e-5; ParagEkbote/hf-model-inspector's report: hidden
#   size 2880) and GptOssConfig's defaults (its docstring names that checkpoint).
# T5: sizes, Google's gin files models/bi_v1_small.gin, bi_bert_base.gin, bi_v1_large.gin,
#   bi_v1_3B.gin, bi_v1_11B.gin (google-research/text-to-text-transfer-transformer
#   9fd7b14); eps, the default of Mesh TensorFlow's LayerStack, norm_epsilon=1e-6
#   (tensorflow/mesh 01231bb), which no gin file changes, and T5Config's defaults (t5-small).
# GPT-2: openai-community/gpt2-xl config.json; 124M, GPT2Config's defaults (for
#   openai-community/gpt2) and eps 1e-5 in OpenAI's src/model.py (openai/gpt-2 9b63575).
# BERT: sizes, google-research/bert README.md; eps, google-bert/bert-large-uncased
#   config.json and BertConfig's defaults (for google-bert/bert-base-uncased).
# ViT: google/vit-huge-patch14-224-in21k and vit-large-patch32-224-in21k config.json,
#   ViTConfig's defaults (for google/vit-base-patch16-224). Those say 1e-12, the value
#   transformers runs; Google trained ViT with Flax's LayerNorm default, 1e-6
#   (google-research/vision_transformer vit_jax/models_vit.py: nn.LayerNorm, no epsilon).
# Falcon: tiiuae/falcon-40b config.json, copies of tiiuae/falcon-7b's and falcon-180B's,
#   FalconConfig's defaults (for tiiuae/falcon-7b).
# Falcon 3: tiiuae/Falcon3-3B-Instruct and Falcon3-7B-Instruct config.json; 1B and 10B,
#   configs made from tiiuae/Falcon3-1B-Instruct and Falcon3-10B-Instruct, and litgpt.
# fmt: off
MODELS = [  # a table, one model a line
    # family         model type     model           hidden  eps
    ("LLaMA 1",     "llama",       "7B",           4096,   1e-6),
    ("LLaMA 1",     "llama",       "13B",          5120,   1e-6),
    ("LLaMA 1",     "llama",       "33B",          6656,   1e-6),
    ("LLaMA 1",     "llama",       "65B",          8192,   1e-5),
    ("LLaMA 2",     "llama",       "7B",           4096,   1e-5),
    ("LLaMA 2",     "llama",       "13B",          5120,   1e-5),
    ("LLaMA 2",     "llama",       "70B",          8192,   1e-5),
    ("LLaMA 3",     "llama",       "3 8B",         4096,   1e-5),
    ("LLaMA 3",     "llama",       "3 70B",        8192,   1e-5),
    ("LLaMA 3",     "llama",       "3.1 8B",       4096,   1e-5),
    ("LLaMA 3",     "llama",       "3.1 70B",      8192,   1e-5),
    ("LLaMA 3",     "llama",       "3.1 405B",     16384,  1e-5),
    ("LLaMA 3",     "llama",       "3.2 1B",       2048,   1e-5),
    ("LLaMA 3",     "llama",       "3.2 3B",       3072,   1e-5),
    ("Mistral",     "mistral",     "7B",           4096,   1e-5),
    ("Mistral",     "mistral",     "NeMo",         5120,   1e-5),
    ("Mistral",     "mistral",     "Large 2407",   12288,  1e-5),
    ("Mixtral",     "mixtral",     "8x7B",         4096,   1e-5),
    ("Mixtral",     "mixtral",     "8x22B",        6144,   1e-5),
    ("Qwen2",       "qwen2",       "0.5B",         896,    1e-6),
    ("Qwen2",       "qwen2",       "7B",           3584,   1e-6),
    ("Qwen2",       "qwen2",       "72B",          8192,   1e-5),
    ("Qwen2",       "qwen2",       "72B-Instruct", 8192,   1e-6),
    ("Qwen2.5",     "qwen2",       "7B",           3584,   1e-6),
    ("Qwen2.5",     "qwen2",       "14B",          5120,   1e-5),
    ("Qwen2.5",     "qwen2",       "32B",          5120,   1e-5),
    ("Qwen2.5",     "qwen2",       "72B",          8192,   1e-5),
    ("Qwen3",       "qwen3",       "0.6B",         1024,   1e-6),
    ("Qwen3",       "qwen3",       "4B",           2560,   1e-6),
    ("Qwen3",       "qwen3",       "8B",           4096,   1e-6),
    ("Qwen3",       "qwen3",       "32B",          5120,   1e-6),
    ("Qwen3-Next",  "qwen3_next",  "80B-A3B",      2048,   1e-6),
    ("Gemma",       "gemma",       "2B",           2048,   1e-6),
    ("Gemma",       "gemma",       "7B",           3072,   1e-6),
    ("Gemma 2",     "gemma2",      "2B",           2304,   1e-6),
    ("Gemma 2",     "gemma2",      "9B",           3584,   1e-6),
    ("Gemma 2",     "gemma2",      "27B",          4608,   1e-6),
    ("Gemma 3",     "gemma3_text", "270M",         640,    1e-6),
    ("Gemma 3",     "gemma3_text", "1B",           1152,   1e-6),
    ("Gemma 3",     "gemma3_text", "4B",           2560,   1e-6),
    ("Gemma 3",     "gemma3_text", "12B",          3840,   1e-6),
    ("Gemma 3",     "gemma3_text", "27B",          5376,   1e-6),
    ("Gemma 4",     "gemma4_text", "E2B",          1536,   1e-6),
    ("Gemma 4",     "gemma4_text", "E4B",          2560,   1e-6),
    ("Gemma 4",     "gemma4_text", "26B A4B",      2816,   1e-6),
    ("Gemma 4",     "gemma4_text", "31B",          5376,   1e-6),
    ("OLMo 2",      "olmo2",       "1B",           2048,   1e-6),
    ("OLMo 2",      "olmo2",       "7B",           4096,   1e-6),
    ("OLMo 2",      "olmo2",       "13B",          5120,   1e-6),
    ("OLMo 2",      "olmo2",       "32B",          5120,   1e-6),
    ("DeepSeek-V3", "deepseek_v3", "671B",         7168,   1e-6),
    ("GPT-OSS",     "gpt_oss",     "20B",          2880,   1e-5),
    ("GPT-OSS",     "gpt_oss",     "120B",         2880,   1e-5),
    ("T5",          "t5",          "Small",        512,    1e-6),
    ("T5",          "t5",          "Base",         768,    1e-6),
    ("T5",          "t5",          "Large",        1024,   1e-6),
    ("T5",          "t5",          "3B",           1024,   1e-6),
    ("T5",          "t5",          "11B",          1024,   1e-6),
    ("GPT-2",       "gpt2",        "124M",         768,    1e-5),
    ("GPT-2",       "gpt2",        "1.5B",         1600,   1e-5),
    ("BERT",        "bert",        "Base",         768,    1e-12),
    ("BERT",        "bert",        "Large",        1024,   1e-12),
    ("ViT",         "vit",         "Base",         768,    1e-12),
    ("ViT",         "vit",         "Large",        1024,   1e-12),
    ("ViT",         "vit",         "Huge",         1280,   1e-12),
    ("Falcon",      "falcon",      "7B",           4544,   1e-5),
    ("Falcon",      "falcon",      "40B",          8192,   1e-5),
    ("Falcon",      "falcon",      "180B",         14848,  1e-5),
    ("Falcon 3",    "llama",       "1B",           2048,   1e-6),
    ("Falcon 3",    "llama",       "3B",           3072,   1e-6),
    ("Falcon 3",    "llama",       "7B",           3072,   1e-6),
    ("Falcon 3",    "llama",       "10B",          3072,   1e-6),
]
# fmt: on

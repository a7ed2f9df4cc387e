import textwrap
from collections import defaultdict

import transformers

from snippets.implementations.transformers_norms import behaviour, rms_norm_classes

classes, failures, files = rms_norm_classes()
print(f"transformers {transformers.__version__}: {len(classes)} *RMSNorm classes")
#> transformers 5.24.0: 198 *RMSNorm classes
print(f"in {files} modeling files")
#> in 538 modeling files
for file, error in failures.items():
    print(f"not imported: {file} ({error})")
    #> not imported: modeling_higgs_audio_v2_tokenizer (No module named 'torchaudio')

groups = defaultdict(list)
for name, cls in sorted(classes.items()):
    groups[behaviour(cls)].append(name)
# Each behaviour with its count, largest first, and the classes of all but the largest.
rows = ["classes  gain  eps     default  bfloat16"]
for line, names in sorted(groups.items(), key=lambda group: -len(group[1])):
    rows.append(f"{len(names):>7}  {line}")
    if len(names) < 40:
        rows += [" " * 9 + row for row in textwrap.wrap(", ".join(names), 70)]
for row in rows:
    print(row)
    #> classes  gain  eps     default  bfloat16
    #>     141  w     inside  1e-06    LLaMA: x-hat rounded, then the gain
    #>      26  w     inside  1e-06    Gemma: the gain in float32, one rounding
    #>          AfmoeRMSNorm, BeamRMSNorm, DeepseekV4RMSNorm, DiffusionGemmaRMSNorm,
    #>          EmbeddingGemma2RMSNorm, FlexOlmoRMSNorm, FlintRMSNorm, Gemma3nRMSNorm,
    #>          Gemma4RMSNorm, Gemma4UnifiedRMSNorm, GptOssRMSNorm, HeliumRMSNorm,
    #>          Inkling2LoopRMSNorm, Inkling2RMSNorm, KyutaiSpeechToTextRMSNorm,
    #>          LaraMiniRMSNorm, MoshiRMSNorm, MuseGlimmerRMSNorm, MuseSparkRMSNorm,
    #>          NemotronHRMSNorm, NemotronH_Omni_RMSNorm, NeoMMERMSNorm, Olmo2RMSNorm,
    #>          Olmo3RMSNorm, OlmoHybridRMSNorm, OpenAIPrivacyFilterRMSNorm
    #>      14  1 + w inside  1e-06    Gemma: the gain in float32, one rounding
    #>          Gemma2RMSNorm, Gemma3RMSNorm, GemmaRMSNorm, MiniMaxM3VLRMSNorm,
    #>          MuseGlimmerTextCenteredRMSNorm, Qwen3NextRMSNorm, Qwen3_5MoeRMSNorm,
    #>          Qwen3_5RMSNorm, Qwen4ExpTextRMSNorm, RecurrentGemmaRMSNorm,
    #>          Step3p7RMSNorm, T5Gemma2RMSNorm, T5GemmaRMSNorm, VaultGemmaRMSNorm
    #>      10  not measured: no learned weight of one gain per feature
    #>          DeepseekV4UnweightedRMSNorm, EsmFold2RMSNorm,
    #>          FalconMambaWeightlessRMSNorm, Glm5NextTextUnweightedRMSNorm,
    #>          HYV4UnweightedRMSNorm, HYV4VLUnweightedRMSNorm, HrmTextRMSNorm,
    #>          Inkling2LoopUnweightedRMSNorm, Inkling2UnweightedRMSNorm,
    #>          NanoChatRMSNorm
    #>       3  w     inside  1e-05    LLaMA: x-hat rounded, then the gain
    #>          EuroBertRMSNorm, Llama4TextRMSNorm, OlmoeRMSNorm
    #>       1  not measured: AXK2GatedRMSNorm(64) raises AttributeError
    #>          AXK2GatedRMSNorm
    #>       1  w     inside  1e-06    LLaMA's; float32 weight: no rounding
    #>          IdeficsRMSNorm
    #>       1  1 + w inside  1e-06    other; float32 weight: Gemma's
    #>          MuseSparkTextCenteredRMSNorm
    #>       1  1 + w inside  1e-06    other
    #>          MuseSparkTextInputScaledRMSNorm

import importlib

import torch

from snippets.check.checks import check
from snippets.check.target import UsageError

# --8<-- [start:classes]
# transformers' norm classes, by model: module, class, and constructor arguments beyond
# the size (the gated norms of Mamba-2 and Zamba2 take a group size).
CLASSES = [
    ("llama", "LlamaRMSNorm", {}),
    ("gemma", "GemmaRMSNorm", {}),
    ("gemma3", "Gemma3RMSNorm", {}),
    ("qwen3_next", "Qwen3NextRMSNorm", {}),
    ("t5", "T5LayerNorm", {}),
    ("olmo2", "Olmo2RMSNorm", {}),
    ("deepseek_v3", "DeepseekV3RMSNorm", {}),
    ("bitnet", "BitNetRMSNorm", {}),
    ("gemma3n", "Gemma3nRMSNorm", {}),
    ("mamba2", "MambaRMSNormGated", {"group_size": 64}),
    ("zamba2", "Zamba2RMSNormGated", {"group_size": 16}),
    ("llama4", "Llama4TextL2Norm", {}),
    ("cohere", "CohereLayerNorm", {}),
    ("olmo", "OlmoLayerNorm", {}),
    ("nemotron", "NemotronLayerNorm1P", {}),
    ("qwen3_next", "Qwen3NextRMSNormGated", {}),
]
targets = [("torch.nn.RMSNorm", torch.nn.RMSNorm, {})]
targets.append(("F.rms_norm", torch.nn.functional.rms_norm, {}))
for model, name, init in CLASSES:
    module = importlib.import_module(f"transformers.models.{model}.modeling_{model}")
    targets.append((name, getattr(module, name), init))

def verdict(target, init) -> str:
    """One line: what the checker finds, or why it could not call the target."""
    try:
        report = check(target, init=init)
    except UsageError as error:  # the message ends with what to do: its first words
        return "not checked: " + str(error).split("; ")[-1].split(":")[0]
    if "form" in report.conventions:
        return "not an RMSNorm: " + report.conventions["form"].split(": ")[-1]
    failed = [v.check for v in report.verdicts if v.passed is False]
    found = report.conventions
    return f"gain {found['gain']:<5}  rounding {found['rounding']:<8}  " + (
        "fails " + ", ".join(failed) if failed else "passes"
    )

for name, target, init in targets:
    print(f"{name:<22} {verdict(target, init)}")
    #> torch.nn.RMSNorm       gain w      rounding float32   passes
    #> F.rms_norm             gain w      rounding float32   passes
    #> LlamaRMSNorm           gain w      rounding llama     passes
    #> GemmaRMSNorm           gain 1 + w  rounding gemma     passes
    #> Gemma3RMSNorm          gain 1 + w  rounding gemma     passes
    #> Qwen3NextRMSNorm       gain 1 + w  rounding gemma     passes
    #> T5LayerNorm            gain w      rounding llama     passes
    #> Olmo2RMSNorm           gain w      rounding float32   passes
    #> DeepseekV3RMSNorm      gain w      rounding llama     passes
    #> BitNetRMSNorm          gain w      rounding llama     passes
    #> Gemma3nRMSNorm         gain w      rounding float32   passes
    #> MambaRMSNormGated      gain w      rounding llama     passes
    #> Zamba2RMSNormGated     not an RMSNorm: a grouped RMSNorm
    #> Llama4TextL2Norm       gain w      rounding llama     passes
    #> CohereLayerNorm        not an RMSNorm: a LayerNorm
    #> OlmoLayerNorm          not an RMSNorm: a LayerNorm
    #> NemotronLayerNorm1P    not an RMSNorm: a LayerNorm
    #> Qwen3NextRMSNormGated  not checked: it needs another input, as a gated norm does
# --8<-- [end:classes]

import importlib

import torch
from transformers.models.llama.modeling_llama import LlamaRMSNorm

from snippets.check.checks import check
from snippets.check.target import UsageError
from snippets.implementations.rms_norm_module import RMSNorm
from snippets.implementations.variants import rms_norm_paper_code

def no_upcast(x, weight, eps=1e-6):
    # The formula in x's own dtype: x * x overflows in float16 for |x| >= 256.
    return weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)

def eps_twice(x, weight, eps=1e-6):
    # eps inside the root, and again outside it.
    return weight * x / (torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps) + eps)

def eps_twice_literal(x, weight):
    # The same mistake with eps written as a number: nothing declares it.
    return weight * x / (torch.sqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) + 1e-6)

def eps_twice_small(x, weight):
    # The same mistake with a small eps: the second one is far below the rows' RMS.
    return weight * x / (torch.sqrt(x.pow(2).mean(-1, keepdim=True) + 1e-8) + 1e-8)

def no_eps(x, weight):
    # No eps at all: an all-zero row divides 0 by 0.
    return weight * x / x.pow(2).mean(-1, keepdim=True).sqrt()

class TruncNormalInit(RMSNorm):
    # The right formula, but the gain initialized like a linear layer's weight.
    def __init__(self, n):
        super().__init__(n)
        torch.nn.init.trunc_normal_(self.weight)

targets = [
    RMSNorm,
    LlamaRMSNorm,
    rms_norm_paper_code,
    no_upcast,
    eps_twice,
    eps_twice_literal,
    eps_twice_small,
    no_eps,
    TruncNormalInit,
]
reports = {target.__name__: check(target) for target in targets}
print(f"{'implementation':<19} {'rounding':<10} failed checks")
#> implementation      rounding   failed checks
for name, report in reports.items():
    failed = [v.check for v in report.verdicts if v.passed is False]
    convention = report.conventions["rounding"]
    print(f"{name:<19} {convention:<10} {', '.join(failed) or '-'}")
    #> RMSNorm             float32    -
    #> LlamaRMSNorm        llama      -
    #> rms_norm_paper_code none       eps
    #> no_upcast           none       half
    #> eps_twice           none       forward, eps, half, gradients
    #> eps_twice_literal   none       forward, half, gradients
    #> eps_twice_small     none       half
    #> no_eps              none       half, zero rows
    #> TruncNormalInit     float32    init

# --8<-- [start:libraries]
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
norms = [("torch.nn.RMSNorm", torch.nn.RMSNorm, {})]
norms.append(("F.rms_norm", torch.nn.functional.rms_norm, {}))
for model, name, init in CLASSES:
    module = importlib.import_module(f"transformers.models.{model}.modeling_{model}")
    norms.append((name, getattr(module, name), init))

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

for name, target, init in norms:
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
# --8<-- [end:libraries]

# In your own CI: a pytest test of three lines (your implementation in place of the site's;
# with the downloaded file beside it, `from check_rmsnorm import check`).
def test_rmsnorm_has_none_of_the_mistakes():
    assert check(RMSNorm).passed

test_rmsnorm_has_none_of_the_mistakes()

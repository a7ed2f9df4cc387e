import contextlib
import importlib
import io
import os
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import torch
from transformers.models.llama.modeling_llama import LlamaRMSNorm

from snippets.check.__main__ import main
from snippets.check.checks import check
from snippets.check.target import UsageError
from snippets.implementations.rms_norm_module import RMSNorm
from snippets.implementations.variants import rms_norm_paper_code

# --8<-- [start:forms]
def no_upcast(x, weight, eps=1e-6):
    # The formula in x's own dtype: x.pow(2) overflows in float16 for |x| >= 256.
    return weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)

def no_upcast_bfloat16(x, weight, eps=1e-6):
    # The upcast for float16 only: bfloat16 does not overflow, but rounds each step.
    h = x.float() if x.dtype == torch.float16 else x
    return (weight * h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype)

def eps_twice(x, weight, eps=1e-6):
    # eps inside the root, and again outside it.
    return weight * x / (torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps) + eps)

def eps_twice_literal(x, weight):
    # The same mistake with eps written as a number: nothing declares it.
    return weight * x / (torch.sqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) + 1e-6)

def eps_twice_large(x, weight):
    # The same with LLaMA 2's eps, 1e-5: large enough to show on the eps check's rows.
    return weight * x / (torch.sqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) + 1e-5)

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
    no_upcast_bfloat16,
    eps_twice,
    eps_twice_literal,
    eps_twice_large,
    eps_twice_small,
    no_eps,
    TruncNormalInit,
]
reports = {target.__name__: check(target) for target in targets}
table = [f"{'implementation':<19} {'rounding':<10} failed checks"]
for name, report in reports.items():
    failed = [v.check for v in report.verdicts if v.passed is False]
    convention = report.conventions["rounding"]
    table.append(f"{name:<19} {convention:<10} {', '.join(failed) or '-'}")
print("\n".join(table))
"""
implementation      rounding   failed checks
RMSNorm             float32    -
LlamaRMSNorm        llama      -
rms_norm_paper_code none       eps, half, zero rows
no_upcast           none       half, zero rows
no_upcast_bfloat16  none       -
eps_twice           none       forward, eps, half, gradients
eps_twice_literal   none       forward, half, gradients
eps_twice_large     none       forward, eps, half, gradients, sizes
eps_twice_small     none       half, zero rows
no_eps              none       half, zero rows
TruncNormalInit     float32    init
"""

# The convention intended, named (--convention on the command line), is checked too.
named = check(no_upcast_bfloat16, convention="float32")
failed = [v.check for v in named.verdicts if v.passed is False]
print(f"no_upcast_bfloat16, convention float32 named: fails {', '.join(failed)}")
#> no_upcast_bfloat16, convention float32 named: fails rounding
# --8<-- [end:forms]

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

# The CI test imports the downloaded checker and the reader's norm by their file names:
# here they are the site's checker and RMSNorm.
sys.modules["check_rmsnorm"] = SimpleNamespace(check=check)
sys.modules["my_norm"] = SimpleNamespace(MyRMSNorm=RMSNorm)

# --8<-- [start:ci]
# test_rmsnorm.py, beside check_rmsnorm.py downloaded from the Check page
from check_rmsnorm import check
from my_norm import MyRMSNorm  # your norm: a module class or a function of (x, weight)

def test_rmsnorm_has_none_of_the_mistakes():
    report = check(MyRMSNorm)
    assert report.passed, report.table()  # a failure shows the whole report
    assert not report.refusals, report.table()  # every width, dtype, layout taken

# --8<-- [end:ci]
test_rmsnorm_has_none_of_the_mistakes()

# The command line, as the Check page's "What it prints" shows it.
def run_in_folder(files: dict[str, str], argv: list[str]) -> tuple[str, int]:
    """What `python check_rmsnorm.py ARGV` prints and the exit status it returns, run from
    a folder that holds `files` (name: text)."""
    with tempfile.TemporaryDirectory() as folder:
        for name, text in files.items():
            Path(folder, name).write_text(text)
        here = os.getcwd()
        os.chdir(folder)
        report = io.StringIO()
        try:
            with contextlib.redirect_stdout(report):
                status = main(argv)
        finally:
            os.chdir(here)
    return report.getvalue().rstrip(), status

# --8<-- [start:cli]
# An RMSNorm as it is often written from memory: no float32 upcast.
MY_NORM = """
import torch

class MyRMSNorm(torch.nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return self.weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
"""

# python check_rmsnorm.py my_norm.py:MyRMSNorm, run from a folder that holds my_norm.py:
printed, status = run_in_folder({"my_norm.py": MY_NORM}, ["my_norm.py:MyRMSNorm"])
print(printed)
"""
my_norm.py:MyRMSNorm: gain w, eps 1e-06, eps placement inside, rounding none
  pass  forward     float32 rows of RMS 1e-2 to 1e2: largest error 8.0e-08
  pass  eps         eps 1e-06 inside the square root (rows of RMS 0.0001, 0.0003)
  FAIL  half        float16 wrong (error 1024.0 ulp, out float16, on the row of RMS 300
                    (all lost) and the row with an outlier channel (all lost) and the
                    rows where eps shows (8.4 ulp), of 64 and 4096 features, where
                    values square to more than float16's largest, 65504, or to less than
                    its smallest normal, 6.1e-05: take the mean square of x.float(), and
                    keep it in float32); bfloat16 ok (error 1.1 ulp, out bfloat16)
                    see https://rmsnorm-reference.github.io/pitfalls/#no-float32-upcast
  pass  mixed       float32 weight, bfloat16 input: error 0.2 bfloat16 ulp, out float32;
                    float16 input: error 0.2 float16 ulp; weight gradient error under 1
                    bfloat16 ulp
  info  rounding    matches none of them, as code without a float32 upcast gives, or
                    code that rounds at another step; float32 differs on 35% of outputs,
                    by up to 2 ulps; llama differs on 45% of outputs, by up to 2 ulps;
                    65% correctly rounded
  FAIL  zero rows   all-zero row in float16: input gradient not finite (right in float32
                    and bfloat16: a backward in float16 overflows there, where the
                    derivative of 1 / sqrt(v) at v = eps, 0.5 / eps^1.5 = 5e+08 in size,
                    passes float16's largest value, 65504: keep the backward in float32,
                    from the mean square of x.float() to an rstd saved in float32)
                    see https://rmsnorm-reference.github.io/gradients/#the-all-zero-row
  pass  gradients   input and weight gradients (each pair: dx, dw) against float64
                    autograd, each relative to its largest entry (bound 1e-4): 6.2e-08,
                    8.3e-08; 3-D: 6.2e-08, 8.3e-08; 3-D, a strided upstream gradient:
                    6.2e-08, 4.2e-08; 3-D, y.sum()'s upstream gradient: 7.5e-08,
                    6.2e-08; 3-D, an upstream gradient past its storage's start:
                    6.2e-08, 8.3e-08; after a second forward: 6.2e-08, 8.3e-08; a frozen
                    gain, dx: 6.2e-08; x frozen, dw: 8.3e-08; one row: 6.7e-08, 9.4e-08;
                    masked rows (their upstream gradient 0): 6.2e-08, 5.5e-08; a gain of
                    0 on one feature: 7.3e-08, 8.3e-08; every other gain negative:
                    6.4e-08, 8.3e-08; a batch of 4097 rows: 1.4e-07, 1.8e-07; gradcheck
                    in float64 passes
  pass  dw          over 4097 rows: in bfloat16 and float16, error under 1 ulp of the
                    largest entry
  pass  shapes      1-D, 3-D and 4-D inputs agree; rows independent
  pass  sizes       rows of 769, 1025 and 3584 features: forward and gradients as
                    float64's
  pass  strides     rows with elements apart, rows spaced apart and a transposed batch,
                    in float32, bfloat16 and float16: as contiguous copies, forward and
                    backward
  info  batch       the same bits alone and last in batches of 7, 256 and 4097 rows
  pass  init        fresh weight: 0 of 64 entries differ from 1
  info  agreement   torch.nn.RMSNorm float32 not bit for bit; torch.nn.RMSNorm bfloat16
                    not bit for bit; LlamaRMSNorm float32 not bit for bit; LlamaRMSNorm
                    bfloat16 not bit for bit
"""
print("exit status:", status)
#> exit status: 1
# --8<-- [end:cli]

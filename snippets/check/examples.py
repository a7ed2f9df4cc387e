import torch
from transformers.models.llama.modeling_llama import LlamaRMSNorm

from snippets.check.checks import check
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

# In your own CI: a pytest test of three lines (your implementation in place of the site's;
# with the downloaded file beside it, `from check_rmsnorm import check`).
def test_rmsnorm_has_none_of_the_mistakes():
    assert check(RMSNorm).passed

test_rmsnorm_has_none_of_the_mistakes()

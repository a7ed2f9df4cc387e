import warnings

import torch
import torch.nn.functional as F

from snippets.implementations.variants import rms_norm_gemma, rms_norm_llama
from snippets.kernel_in_practice.bfloat16 import bfloat16_rounded

torch.manual_seed(0)
n = 256
# Mixed precision: every parameter stays float32.
embed, linear = torch.nn.Embedding(1000, n), torch.nn.Linear(n, n)
offset = 0.1 * torch.randn(n)  # Gemma stores the gain as 1 + offset
gain = 1 + offset  # the same float32 gain, stored as LLaMA and PyTorch store it
norms = {
    "F.rms_norm": lambda x: F.rms_norm(x, (n,), gain, 1e-6),
    "LLaMA form": lambda x: rms_norm_llama(x, gain),
    "Gemma form": lambda x: rms_norm_gemma(x, offset),
}

def name(tensor):
    return str(tensor.dtype)[6:]

# F.rms_norm's warning below is issued once per process: always, so it shows here even in a
# process (a notebook, a test run) that has issued it before.
torch.set_warn_always(True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autocast("cpu", dtype=torch.bfloat16):
        stream = embed(torch.randint(1000, (4096,)))
        x = linear(stream)  # a sublayer's output
        stream = stream + x  # the residual add promotes it to float32
        print(f"residual stream {name(stream)}, after a linear layer {name(x)}")
        #> residual stream float32, after a linear layer bfloat16
        returned = {name(norm(stream)) for norm in norms.values()}
        print("norms of the residual stream return", returned)
        #> norms of the residual stream return {'float32'}

        # A norm right after a linear layer: its exact output in float64, rounded once.
        x64 = x.double()
        exact = gain.double() * x64 / (x64.pow(2).mean(-1, keepdim=True) + 1e-6).sqrt()
        rounded_once = bfloat16_rounded(exact)  # .to(torch.bfloat16) rounds twice
        for label, norm in norms.items():
            y = norm(x)
            # Cast to bfloat16, as autocast does at a matrix multiplication.
            same = (y.to(torch.bfloat16) == rounded_once).double().mean().item()
            # A share to 0.1% only: float32's last bit, and so a few elements in a
            # million, depends on the CPU's vector width.
            share = "every element" if same == 1 else f"{same:.1%}"
            print(f"{label} returns {name(y):<8} rounded once: {share}")
            #> F.rms_norm returns bfloat16 rounded once: every element
            #> LLaMA form returns float32  rounded once: 74.2%
            #> Gemma form returns bfloat16 rounded once: every element
        after = {name(linear(norm(x))) for norm in norms.values()}
        print("a linear layer on it returns", after)
        #> a linear layer on it returns {'bfloat16'}

    # float16 autocast (GPUs without bfloat16) follows the same lists.
    with torch.autocast("cpu", dtype=torch.float16):
        stream = embed(torch.randint(1000, (4096,)))
        x = linear(stream)
        returned = ", ".join(
            f"{label} {name(norm(x))}" for label, norm in norms.items()
        )
        print(f"float16: stream {name(stream + x)}, after a linear layer {name(x)}")
        #> float16: stream float32, after a linear layer float16
        print(f"norms after it: {returned}")
        #> norms after it: F.rms_norm float16, LLaMA form float32, Gemma form float16

# F.rms_norm warns that a bfloat16 input with a float32 gain skips its fused kernel.
message = str(caught[0].message)
print("warning:", message[message.index("Cannot") :].split(".")[0])
#> warning: Cannot dispatch to fused implementation

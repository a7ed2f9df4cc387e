import torch
from transformers import Gemma2Config

# Gemma 2 caps its attention logits: cap * tanh(logits / cap), after their scaling.
cap = Gemma2Config().attn_logit_softcapping
print(f"Gemma2Config().attn_logit_softcapping = {cap}")
#> Gemma2Config().attn_logit_softcapping = 50.0

logits = torch.tensor([1.0, 10.0, 50.0, 100.0, 1000.0], dtype=torch.float64)
logits.requires_grad_()
capped = cap * torch.tanh(logits / cap)
(slope,) = torch.autograd.grad(capped.sum(), logits)  # d capped / d logit
for before, after, d in zip(logits.tolist(), capped.tolist(), slope.tolist()):
    print(f"logit {before:>6g} -> {after:5.2f}, slope {d:.3g}")
    #> logit      1 ->  1.00, slope 1
    #> logit     10 ->  9.87, slope 0.961
    #> logit     50 -> 38.08, slope 0.42
    #> logit    100 -> 48.20, slope 0.0707
    #> logit   1000 -> 50.00, slope 0
# In float32, in which the model above trains, a logit of 451 is capped to 50 exactly
# (450 is not), where the slope is 0: no gradient passes.
near = torch.tensor([450.0, 451.0], requires_grad=True)
capped32 = cap * torch.tanh(near / cap)
(slope32,) = torch.autograd.grad(capped32.sum(), near)
for before, after, d in zip(near.tolist(), capped32.tolist(), slope32.tolist()):
    print(
        f"float32: logit {before:g} -> {after:.6f} (the cap: {after == cap}), slope {d:.3g}"
    )
    #> float32: logit 450 -> 49.999996 (the cap: False), slope 1.19e-07
    #> float32: logit 451 -> 50.000000 (the cap: True), slope 0
# The widest gap: a huge logit against a huge negative one, capped to +cap and -cap.
extremes = cap * torch.tanh(torch.tensor([1e6, -1e6], dtype=torch.float64) / cap)
print(f"widest gap between two capped logits: {extremes[0] - extremes[1]:g} = 2 * cap")
#> widest gap between two capped logits: 100 = 2 * cap

# Logits at most 2 * cap apart can still put almost all the weight on one key.
row = cap * torch.tanh(torch.tensor([1000.0] + [-1000.0] * 31) / cap)
print(f"capped 1000 against 31 capped -1000: weight {row.softmax(0)[0]:.6f}")
#> capped 1000 against 31 capped -1000: weight 1.000000

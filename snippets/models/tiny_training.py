import torch
import torch.nn.functional as F

from snippets.models.llama_block import TinyLlama

torch.manual_seed(0)
# Text made in code: "abcd...z" repeated from random offsets, so each next letter is knowable.
alphabet = 26
starts = torch.randint(0, alphabet, (64, 1))
tokens = (starts + torch.arange(33)) % alphabet

model = TinyLlama(vocab=alphabet)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
for step in range(61):
    logits = model(tokens[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, alphabet), tokens[:, 1:].reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 20 == 0:
        print(f"step {step:>2}: loss {loss.item():.2f}")
        #> step  0: loss 3.31
        #> step 20: loss 0.06
        #> step 40: loss 0.02
        #> step 60: loss 0.01
print(f"{sum(p.numel() for p in model.parameters()):,} parameters")
#> 94,272 parameters

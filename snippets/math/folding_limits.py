import torch
import torch.nn.functional as F
import transformers as tf

def rms_norm(
    x: torch.Tensor, eps: float, gain: torch.Tensor | None = None
) -> torch.Tensor:
    return F.rms_norm(x, (x.shape[-1],), gain, eps=eps)

torch.manual_seed(0)
n, eps = 256, 1e-6
x = torch.randn(8, n, dtype=torch.float64)  # 8 rows of the residual stream
q, _ = torch.linalg.qr(torch.randn(n, n, dtype=torch.float64))  # orthogonal
gain = torch.rand(n, dtype=torch.float64) + 0.5

# A norm after a sublayer, y = x + RMSNorm(F(x)), writes into the stream itself: no
# linear layer reads it, so its gain has nowhere to go. Rotating the stream (x Q, and
# the sublayer's output projection times Q) then changes the block's output, unless the
# gain is the same for every feature.
sublayer_output = torch.randn(8, n, dtype=torch.float64)
for name, g in [("a gain", gain), ("gain of ones", torch.ones(n, dtype=torch.float64))]:
    rotated = x @ q + rms_norm(sublayer_output @ q, eps, g)
    gap = (rotated - (x + rms_norm(sublayer_output, eps, g)) @ q).abs().max()
    print(f"norm after the sublayer, {name}: off by up to {gap:.4f}")
    #> norm after the sublayer, a gain: off by up to 1.7008
    #> norm after the sublayer, gain of ones: off by up to 0.0000

# The final norm is read by the head, but a head tied to the embedding is the embedding:
# one tensor, so folding the gain into the head scales every token's embedding too.
vocab = 1000
embedding = torch.nn.Embedding(vocab, n, dtype=torch.float64)
head = torch.nn.Linear(n, vocab, bias=False, dtype=torch.float64)
head.weight = embedding.weight  # tied, as tie_word_embeddings does
original = embedding.weight.detach().clone()
with torch.no_grad():
    head.weight.mul_(gain)  # the fold
change = (embedding.weight - original).abs().max()
print(f"tied head: the embedding moved by up to {change:.4f}")
#> tied head: the embedding moved by up to 2.3106
# Untie first: the head gets a tensor of its own (a copy: a Parameter made from the
# embedding's tensor would share it), folded in place as above; the embedding stays.
with torch.no_grad():
    embedding.weight.copy_(original)  # undo the fold above
    head.weight = torch.nn.Parameter(embedding.weight.detach().clone())
    head.weight.mul_(gain)
print(torch.allclose(head(rms_norm(x, eps)), rms_norm(x, eps, gain) @ original.T))
#> True
print(torch.equal(embedding.weight, original))
#> True

# transformers' configurations for Gemma 1 to 3 tie them by default.
for config in [tf.GemmaConfig(), tf.Gemma2Config(), tf.Gemma3TextConfig()]:
    print(f"{type(config).__name__}: tie_word_embeddings={config.tie_word_embeddings}")
    #> GemmaConfig: tie_word_embeddings=True
    #> Gemma2Config: tie_word_embeddings=True
    #> Gemma3TextConfig: tie_word_embeddings=True

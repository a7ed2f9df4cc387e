import torch

from snippets.placement.tiny_lm import TinyLM, corpus, next_word_loss

# The Placement page's pre-RMSNorm language model, in float64, its norms' eps set to 0 so
# that the invariance is exact. What writes into its residual stream: the embeddings and
# each sublayer's last layer (weight and bias); the stream is read only through norms.
ids, windows, vocab = corpus()
torch.manual_seed(0)
model = TinyLM(len(vocab), "pre-RMSNorm").double()
for module in model.modules():
    if isinstance(module, torch.nn.RMSNorm):
        module.eps = 0.0
writers = [model.embed.weight, model.position]
for layer in model.layers:
    writers += [*layer.attention.out.parameters(), *layer.mlp[2].parameters()]
one_layer = list(model.layers[0].mlp[2].parameters())  # the first MLP's output layer

loss = next_word_loss(model, windows)
grads = torch.autograd.grad(loss, writers, retain_graph=True)
one_layer_grads = torch.autograd.grad(loss, one_layer)

def change(group, c):
    """How much the loss changes when every parameter of `group` is multiplied by c."""
    with torch.no_grad():
        for parameter in group:
            parameter.mul_(c)
        changed = next_word_loss(model, windows).item() - loss.item()
        for parameter in group:
            parameter.div_(c)
    return changed

# The loss's change: the writers scaled together (under 1e-12?), the one layer alone.
table = ["scale  all writers  one layer"]
for c in [0.5, 3.0]:
    together, alone = change(writers, c), change(one_layer, c)
    table.append(f"x{c:<4}  {abs(together) < 1e-12!s:<11}  {alone:+.1e}")
print("\n".join(table))
"""
scale  all writers  one layer
x0.5   True         -1.1e-02
x3.0   True         +3.1e-02
"""

# So the gradient is orthogonal to the writers taken together, not to each of them.
def cosine(gs, ps):
    inner = sum((g * p).sum() for g, p in zip(gs, ps))
    sizes = sum(g.pow(2).sum() for g in gs) * sum(p.pow(2).sum() for p in ps)
    return (inner / sizes.sqrt()).item()

print(f"cos(gradient, writers) is below 1e-12: {abs(cosine(grads, writers)) < 1e-12}")
#> cos(gradient, writers) is below 1e-12: True
print(f"cos(gradient, one layer): {cosine(one_layer_grads, one_layer):.1e}")
#> cos(gradient, one layer): 1.1e-02

# As for W above, an SGD step on the writers grows their squared norm by lr^2 |g|^2.
lr = 0.1
growth = sum((p - lr * g).pow(2).sum() - p.pow(2).sum() for g, p in zip(grads, writers))
predicted = lr**2 * sum(g.pow(2).sum() for g in grads)
print(f"growth of |writers|^2: {growth.item():.6f}, lr^2 |g|^2: {predicted.item():.6f}")
#> growth of |writers|^2: 0.007776, lr^2 |g|^2: 0.007776

"""A tiny pre-RMSNorm causal language model whose attention computes its own logits, with
or without QK-norm (or Gemma 2's soft-cap), so that training can record the largest logit
and the entropy."""

import torch
from torch import nn

from snippets.placement.tiny_lm import corpus, one_thread, training_steps

class Attention(nn.Module):
    def __init__(self, width, heads, qk_norm, softcap=None):
        super().__init__()
        self.heads, self.head_dim, self.softcap = heads, width // heads, softcap
        self.qkv = nn.Linear(width, 3 * width, bias=False)
        self.out = nn.Linear(width, width, bias=False)
        # QK-norm: one RMSNorm over each head's head_dim, for queries and for keys.
        norm = (lambda: nn.RMSNorm(self.head_dim, eps=1e-6)) if qk_norm else nn.Identity
        self.q_norm, self.k_norm = norm(), norm()
        self.max_logit, self.entropy = 0.0, 0.0
        self.at_cap, self.rows_at_cap, self.median_before_cap = 0.0, 0.0, 0.0

    def forward(self, x):
        batch, length, width = x.shape
        q, k, v = self.qkv(x).view(batch, length, 3, self.heads, -1).unbind(2)
        q, k = self.q_norm(q), self.k_norm(k)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        raw = logits = q @ k.transpose(-1, -2) / self.head_dim**0.5
        if self.softcap:  # Gemma 2's: cap * tanh(logits / cap), after the scaling
            logits = self.softcap * torch.tanh(logits / self.softcap)
        mask = torch.ones(length, length, dtype=torch.bool).tril()
        if self.softcap:  # logits at +cap, where tanh's slope is 0: their share, and
            with torch.no_grad():  # the share of queries with a key there
                at_cap = logits.masked_fill(~mask, 0.0) == self.softcap
                self.at_cap = at_cap[..., mask].float().mean().item()
                self.rows_at_cap = at_cap.any(-1).float().mean().item()
                self.median_before_cap = raw[..., mask].abs().median().item()
        logits = logits.masked_fill(~mask, float("-inf"))
        p = logits.softmax(-1)
        # Records for the plots: the largest logit magnitude, the mean entropy.
        with torch.no_grad():
            self.max_logit = logits[..., mask].abs().max().item()
            plogp = torch.where(p > 0, p * p.log(), torch.zeros(()))
            self.entropy = -plogp.sum(-1).mean().item()
        y = (p @ v).transpose(1, 2).reshape(batch, length, width)
        return self.out(y)

class Layer(nn.Module):
    def __init__(self, width, heads, qk_norm, softcap=None):
        super().__init__()
        self.norm1 = nn.RMSNorm(width, eps=1e-6)
        self.norm2 = nn.RMSNorm(width, eps=1e-6)
        self.attention = Attention(width, heads, qk_norm, softcap)
        self.mlp = nn.Sequential(
            nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width)
        )

    def forward(self, x):
        x = x + self.attention(self.norm1(x))
        return x + self.mlp(self.norm2(x))

class AttentionLM(nn.Module):
    def __init__(
        self, vocab, qk_norm, width=64, heads=4, layers=2, length=32, softcap=None
    ):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.position = nn.Parameter(torch.randn(length, width) * 0.02)
        self.layers = nn.ModuleList(
            Layer(width, heads, qk_norm, softcap) for _ in range(layers)
        )
        self.final_norm = nn.RMSNorm(width, eps=1e-6)
        self.head = nn.Linear(width, vocab)

    def forward(self, tokens):
        x = self.embed(tokens) + self.position[: tokens.shape[1]]
        for layer in self.layers:
            x = layer(x)
        return self.head(self.final_norm(x))

def logit_bound(attention):
    """The largest logit QK-norm allows with the current gains: each normalized head
    vector has norm at most sqrt(head_dim), so |q . k| / sqrt(head_dim) is at most
    sqrt(head_dim) * max|gain_q| * max|gain_k|."""
    gain_q = attention.q_norm.weight.abs().max()
    gain_k = attention.k_norm.weight.abs().max()
    return (attention.head_dim**0.5 * gain_q * gain_k).item()

@one_thread()
def train_attention(qk_norm, lr, steps=200, batch=16, length=32, seed=0, softcap=None):
    """AdamW at a constant learning rate. Per step: the training loss, the largest
    attention logit magnitude of each layer and of any layer, the lowest mean attention
    entropy of any layer, and with QK-norm each layer's logit bound after the step."""
    ids, _, vocab = corpus(length)
    torch.manual_seed(seed)
    model = AttentionLM(len(vocab), qk_norm, length=length, softcap=softcap)
    history = {
        "loss": [],
        "max_logit": [],
        "entropy": [],
        "layer_logits": [],
        "bounds": [],
        "at_cap": [],
        "rows_at_cap": [],
        "median_before_cap": [],
    }
    for loss in training_steps(model, ids, lr, steps, batch, length):
        attention = [layer.attention for layer in model.layers]
        history["loss"].append(loss)
        history["layer_logits"].append([a.max_logit for a in attention])
        history["max_logit"].append(max(history["layer_logits"][-1]))
        history["entropy"].append(min(a.entropy for a in attention))
        if softcap:  # over the layers, the lowest shares at the cap and lowest median
            history["at_cap"].append(min(a.at_cap for a in attention))
            history["rows_at_cap"].append(min(a.rows_at_cap for a in attention))
            medians = [a.median_before_cap for a in attention]
            history["median_before_cap"].append(min(medians))
        if qk_norm:  # |logit| <= sqrt(head_dim) max|gain_q| max|gain_k|, see the page
            history["bounds"].append([logit_bound(a) for a in attention])
    return history

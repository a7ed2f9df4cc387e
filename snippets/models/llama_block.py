"""A minimal LLaMA-style decoder: RMSNorm pre-norm, rotary positions, grouped-query
attention with a causal mask, and a SwiGLU feed-forward network."""

import torch
import torch.nn.functional as F
from torch import nn

from snippets.implementations.rms_norm_module import RMSNorm

def rotary_tables(seq_len, head_dim, theta=10000.0, device=None):
    """cos and sin of position * frequency, shape (seq_len, head_dim), on `device`."""
    if head_dim % 2:
        raise ValueError(f"head_dim must be even (its halves pair up); got {head_dim}")
    halves = torch.arange(0, head_dim, 2, device=device).float()
    inv_freq = 1.0 / theta ** (halves / head_dim)
    angles = torch.outer(torch.arange(seq_len, device=device).float(), inv_freq)
    angles = torch.cat([angles, angles], dim=-1)  # the two halves share frequencies
    return angles.cos(), angles.sin()

def rotate(x, cos, sin):
    """Rotate pairs (x_i, x_{i + d/2}) by their position's angle: transformers' layout.
    Meta's LLaMA code rotates neighbours (x_2i, x_2i+1); transformers' conversion script
    permutes the query and key weights to match, so Meta's raw weights need that too."""
    first, second = x.chunk(2, dim=-1)
    return x * cos + torch.cat([-second, first], dim=-1) * sin

class Attention(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads):
        super().__init__()
        # Whole heads, whole groups of query heads per key/value head, and an even head
        # size, whose two halves the rotation pairs up.
        whole_heads = n_heads >= 1 and n_kv_heads >= 1 and dim % n_heads == 0
        if not whole_heads or n_heads % n_kv_heads or dim // n_heads % 2:
            raise ValueError(
                "dim must split into n_heads heads of an even size, and n_heads into"
                f" groups of n_kv_heads; got dim={dim}, n_heads={n_heads},"
                f" n_kv_heads={n_kv_heads}"
            )
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.head_dim = dim // n_heads
        self.q_proj = nn.Linear(dim, n_heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(n_heads * self.head_dim, dim, bias=False)

    def forward(self, x, cos, sin):
        if x.dim() != 3:
            raise ValueError(f"x must be (batch, seq, dim); got shape {tuple(x.shape)}")
        batch, seq, _ = x.shape
        # The tables are float32; like transformers, rotate in the activations' dtype.
        cos, sin = cos.to(x.dtype), sin.to(x.dtype)

        def heads(proj, n):  # (batch, seq, n * head_dim) -> (batch, n, seq, head_dim)
            return proj(x).view(batch, seq, n, self.head_dim).transpose(1, 2)

        q = rotate(heads(self.q_proj, self.n_heads), cos, sin)
        k = rotate(heads(self.k_proj, self.n_kv_heads), cos, sin)
        v = heads(self.v_proj, self.n_kv_heads)
        # Grouped-query attention: each key/value head serves n_heads / n_kv_heads queries.
        group = self.n_heads // self.n_kv_heads
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        scores = q @ k.transpose(-2, -1) / self.head_dim**0.5
        # Causal mask: position t attends to positions 0..t only.
        future = torch.ones(seq, seq, dtype=torch.bool, device=x.device).triu(1)
        scores = scores.masked_fill(future, float("-inf"))
        # Softmax in float32 as transformers does, then the activations' dtype again.
        out = F.softmax(scores, dim=-1, dtype=torch.float32).to(v.dtype) @ v
        return self.o_proj(out.transpose(1, 2).reshape(batch, seq, -1))

class SwiGLU(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.gate_proj = nn.Linear(dim, hidden, bias=False)
        self.up_proj = nn.Linear(dim, hidden, bias=False)
        self.down_proj = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))

class DecoderBlock(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads, hidden, eps=1e-5):
        super().__init__()
        self.input_layernorm = RMSNorm(dim, eps)
        self.self_attn = Attention(dim, n_heads, n_kv_heads)
        # Before the MLP, despite its name: transformers' names, so its weights load.
        self.post_attention_layernorm = RMSNorm(dim, eps)
        self.mlp = SwiGLU(dim, hidden)

    def forward(self, x, cos, sin):
        # Pre-norm: each sublayer sees a normalized copy; the residual stream is not normalized.
        x = x + self.self_attn(self.input_layernorm(x), cos, sin)
        return x + self.mlp(self.post_attention_layernorm(x))

class TinyLlama(nn.Module):
    # eps, theta: a checkpoint's rms_norm_eps and rope_theta (LLaMA 3: 1e-5, 500000).
    def __init__(
        self, vocab, dim=64, n_layers=2, n_heads=4, n_kv_heads=2, hidden=172,
        eps=1e-5, theta=10000.0,
    ):  # fmt: skip
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList(
            DecoderBlock(dim, n_heads, n_kv_heads, hidden, eps) for _ in range(n_layers)
        )
        self.norm = RMSNorm(dim, eps)  # the final norm, before the output head
        self.lm_head = nn.Linear(dim, vocab, bias=False)
        self.head_dim, self.theta = dim // n_heads, theta

    def forward(self, tokens):
        x = self.embed_tokens(tokens)
        seq = tokens.shape[1]
        cos, sin = rotary_tables(seq, self.head_dim, self.theta, device=tokens.device)
        for layer in self.layers:
            x = layer(x, cos, sin)
        return self.lm_head(self.norm(x))

"""A tiny causal transformer language model in three norm set-ups (post-LN, pre-LN,
pre-RMSNorm), and the text it learns: sentences from a small grammar whose verbs agree
with their subjects."""

import random
from contextlib import contextmanager

import torch
from torch import nn

PLACEMENTS = ["post-LN", "pre-LN", "pre-RMSNorm"]

def grammar_text(sentences, seed):
    """Word tokens of random sentences such as `the dogs that the cat sees run .`"""
    rng = random.Random(seed)
    nouns = {"sg": ["cat", "dog", "bird", "child"], "pl": ["cats", "dogs", "birds"]}
    verbs = {"sg": ["sees", "likes", "chases"], "pl": ["see", "like", "chase"]}
    still = {"sg": ["runs", "sleeps", "sings"], "pl": ["run", "sleep", "sing"]}
    adjectives = ["big", "small", "red", "old"]

    def noun_phrase(depth):
        number = rng.choice(["sg", "pl"])
        words = [rng.choice(["the", "a"] if number == "sg" else ["the", "some"])]
        if rng.random() < 0.3:
            words.append(rng.choice(adjectives))
        words.append(rng.choice(nouns[number]))
        if depth < 2 and rng.random() < 0.25:
            # A relative clause: its verb agrees with its own subject, and the main verb
            # must still agree with the outer noun, several words back.
            inner, inner_number = noun_phrase(depth + 1)
            words += ["that", *inner, rng.choice(verbs[inner_number])]
        return words, number

    words = []
    for _ in range(sentences):
        subject, number = noun_phrase(0)
        if rng.random() < 0.5:
            obj, _ = noun_phrase(1)
            words += [*subject, rng.choice(verbs[number]), *obj, "."]
        else:
            words += [*subject, rng.choice(still[number]), "."]
    return words

class Attention(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)

    def forward(self, x):
        batch, length, width = x.shape
        q, k, v = self.qkv(x).view(batch, length, 3, self.heads, -1).unbind(2)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        y = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out(y.transpose(1, 2).reshape(batch, length, width))

class Layer(nn.Module):
    def __init__(self, width, heads, placement):
        super().__init__()
        self.pre = placement.startswith("pre")
        norm = nn.RMSNorm if placement == "pre-RMSNorm" else nn.LayerNorm
        self.norm1, self.norm2 = norm(width, eps=1e-6), norm(width, eps=1e-6)
        self.attention = Attention(width, heads)
        self.mlp = nn.Sequential(
            nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width)
        )

    def forward(self, x):
        if self.pre:  # x + F(Norm(x)): the residual stream itself is never normalized
            x = x + self.attention(self.norm1(x))
            return x + self.mlp(self.norm2(x))
        # Norm(x + F(x)), as in the original Transformer: the sum is normalized.
        x = self.norm1(x + self.attention(x))
        return self.norm2(x + self.mlp(x))

class TinyLM(nn.Module):
    def __init__(self, vocab, placement, width=64, heads=4, layers=4, length=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.position = nn.Parameter(torch.randn(length, width) * 0.02)
        self.layers = nn.ModuleList(
            Layer(width, heads, placement) for _ in range(layers)
        )
        # Pre-norm stacks need a final norm before the head; post-norm ends with one.
        norm = nn.RMSNorm if placement == "pre-RMSNorm" else nn.LayerNorm
        self.final_norm = norm(width, eps=1e-6) if self.layers[0].pre else nn.Identity()
        self.head = nn.Linear(width, vocab)

    def forward(self, tokens):
        x = self.embed(tokens) + self.position[: tokens.shape[1]]
        for layer in self.layers:
            x = layer(x)
        return self.head(self.final_norm(x))

def corpus(length=32):
    """Training tokens, 64 held-out windows of length + 1 tokens, and the vocabulary."""
    words, held_out = grammar_text(4000, seed=1234), grammar_text(600, seed=4321)
    vocab = sorted(set(words))
    index = {word: i for i, word in enumerate(vocab)}
    ids = torch.tensor([index[word] for word in words])
    windows = torch.tensor([index[word] for word in held_out[: 64 * (length + 1)]])
    return ids, windows.view(64, length + 1), vocab

def baseline_losses(length=32):
    """Held-out losses of two models counted on the training text: one that predicts
    every word from word frequencies alone (unigram), and one that uses the previous
    word (bigram)."""
    ids, windows, vocab = corpus(length)
    previous, targets = windows[:, :-1], windows[:, 1:]
    unigram = torch.bincount(ids, minlength=len(vocab)) + 0.01
    bigram = torch.full((len(vocab), len(vocab)), 0.01)
    bigram.index_put_((ids[:-1], ids[1:]), torch.ones(len(ids) - 1), accumulate=True)
    unigram_loss = -(unigram / unigram.sum()).log()[targets].mean()
    bigram_loss = (
        -(bigram / bigram.sum(1, keepdim=True)).log()[previous, targets].mean()
    )
    return unigram_loss.item(), bigram_loss.item()

@contextmanager
def one_thread():
    """Run on one CPU thread. A sum split across threads rounds differently, so with
    more threads the losses would depend on the machine's core count."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)

@one_thread()
def train(placement, lr, steps=200, batch=16, length=32, seed=0, layers=4, warmup=0):
    """Train with AdamW at learning rate lr (after `warmup` steps, if any, that raise it
    linearly). Return the training loss of every step and the loss on the held-out
    windows at the end, the same on any machine with the same CPU instructions."""
    ids, windows, vocab = corpus(length)
    torch.manual_seed(seed)
    model = TinyLM(len(vocab), placement, layers=layers, length=length)
    losses = list(training_steps(model, ids, lr, steps, batch, length, warmup))
    return losses, held_out_loss(model, windows)

def training_steps(model, ids, lr, steps, batch, length, warmup=0):
    """AdamW on random windows of ids, at a constant learning rate lr; the first `warmup`
    steps (none by default) run at lr / warmup, 2 lr / warmup, ..., lr. Yields each
    step's training loss once the step is taken."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    for step in range(steps):
        if step < warmup:
            optimizer.param_groups[0]["lr"] = lr * (step + 1) / warmup
        starts = torch.randint(len(ids) - length - 1, (batch, 1))
        loss = next_word_loss(model, ids[starts + torch.arange(length + 1)])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        yield loss.item()

def held_out_loss(model, windows):
    with torch.no_grad():
        return next_word_loss(model, windows).item()

def next_word_loss(model, windows):
    """Cross-entropy of predicting each word of each window from the words before it."""
    logits = model(windows[:, :-1])
    return nn.functional.cross_entropy(logits.flatten(0, 1), windows[:, 1:].flatten())

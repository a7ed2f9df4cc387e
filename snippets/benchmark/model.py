"""Time a transformer layer compiled whole, once with each RMSNorm in it: does a faster norm
make a model faster? Write one JSON file.

    python -m snippets.benchmark.model          # a CUDA GPU: results/model/<gpu>.json
    python -m snippets.benchmark.model --smoke  # a tiny layer, any device: build/benchmark/model-smoke.json

The layer is transformers' LlamaDecoderLayer at Llama 3 8B's sizes (hidden size 4096, 32
heads of 128, 8 key-value heads, MLP 14336, SDPA attention) on 4 sequences of 2048 tokens in
bfloat16, its two norms being in turn:

- "LlamaRMSNorm (transformers)": as transformers ships it;
- "torch F.rms_norm": F.rms_norm with the same weight and eps;
- "Triton (this site), as an operator": the site's kernel as a PyTorch operator
  (snippets/kernel_in_practice/custom_op.py), which torch.compile traces without a break.

Each layer is compiled whole (torch.compile, fullgraph=True: a graph break, or more
compiles than one per layer, is recorded as a failure; the layers share their class's code,
so torch.compile counts their compiles together) afresh for each pass, and timed as run.py
times a pass (a CUDA graph replayed, and eager calls from Python; rounds taken in turns
after a warm-up round, the median and range): the forward without autograd (inference),
and the forward with the backward of every weight and of the input (training). The norms' share of the layer's time
is what a faster norm can save.
"""

import copy
from dataclasses import replace
from functools import partial

import torch
import torch.nn.functional as F

# run.py first: without a GPU it chooses Triton's interpreter before triton is imported.
from snippets.benchmark.run import (
    BACKEND,
    ONE_COMPILE,
    SETUPS,
    TIMERS,
    environment,
    spread,
    timed,
)
from snippets.benchmark.own_results import own_results
from snippets.kernel_in_practice.custom_op import rms_norm
import transformers
from transformers import LlamaConfig
from transformers.models.llama.modeling_llama import (
    LlamaDecoderLayer,
    LlamaRMSNorm,
    LlamaRotaryEmbedding,
)

# The code the figures depend on: results measured on other code are stale (run.py's stale()).
CODE = [
    "snippets/benchmark/run.py",
    "snippets/benchmark/own_results.py",
    "snippets/benchmark/model.py",
    "snippets/kernel_in_practice/custom_op.py",
    "snippets/kernel/rms_norm_triton.py",
]
OWN = own_results("model", CODE)  # results/model/<gpu>.json
MODES = ["forward", "forward+backward"]
# Llama 3 8B's layer (meta-llama/Meta-Llama-3-8B's config.json: sizes, eps, RoPE base), and
# a tiny one for smoke runs.
LAYERS = {
    "gpu": {
        "hidden_size": 4096,
        "intermediate_size": 14336,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "rms_norm_eps": 1e-5,
        "rope_theta": 500000.0,
    },
    "smoke": {
        "hidden_size": 64,
        "intermediate_size": 128,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "rms_norm_eps": 1e-5,
        "rope_theta": 500000.0,
    },
}
MODEL_SETUPS = {
    "gpu": replace(
        SETUPS["gpu"],
        kind=OWN.kinds["gpu"],
        groups={
            "layer": ((4 * 2048, 4096),)
        },  # tokens (4 sequences of 2048), hidden size
        dtypes=(torch.bfloat16,),
        host_calls=0,
    ),
    "smoke": replace(
        SETUPS["smoke"],
        kind=OWN.kinds["smoke"],
        groups={"layer": ((2 * 16, 64),)},
        dtypes=(torch.bfloat16,),
        host_calls=0,
    ),
}
SEQUENCES = {"gpu": 4, "smoke": 2}
REFERENCE = "torch F.rms_norm"  # the layer each one is compared with

# --8<-- [start:compared]
class Norm(torch.nn.Module):
    """Takes a LlamaRMSNorm's place: the same weight (the same parameter) and eps, normalized
    by `norm(x, weight, eps)`."""

    def __init__(self, llama_norm: LlamaRMSNorm, norm):
        super().__init__()
        self.weight, self.eps, self.norm = (
            llama_norm.weight,
            llama_norm.variance_epsilon,
            norm,
        )

    def forward(self, x):
        return self.norm(x, self.weight, self.eps)

def torch_rms_norm(x, weight, eps):
    return F.rms_norm(x, x.shape[-1:], weight, eps)

def site_rms_norm(x, weight, eps):
    return rms_norm(x, weight, eps=eps)

NORMS = {
    "LlamaRMSNorm (transformers)": None,
    REFERENCE: torch_rms_norm,
    "Triton (this site), as an operator": site_rms_norm,
}

def layers(kind: str, dtype, device) -> tuple[dict, LlamaConfig]:
    """name -> one layer with that norm, the same weights in each; and the layer's config."""
    config = LlamaConfig(**LAYERS[kind], attn_implementation="sdpa")
    torch.manual_seed(0)
    base = LlamaDecoderLayer(config, layer_idx=0).to(device=device, dtype=dtype)
    found = {}
    for name, norm in NORMS.items():
        layer = copy.deepcopy(base)
        if norm is not None:
            layer.input_layernorm = Norm(layer.input_layernorm, norm)
            layer.post_attention_layernorm = Norm(layer.post_attention_layernorm, norm)
        found[name] = layer
    return found, config

def backend() -> str:
    """Inductor on a GPU. Without one (a smoke run), "eager": torch.compile still traces
    the whole layer (a graph break fails) but generates no code, which takes minutes."""
    return BACKEND if torch.cuda.is_available() else "eager"

def one_pass(layer, mode, x, position_embeddings, dy):
    """The pass to time, of a compiled layer: the forward without autograd, or the forward
    and the backward of the input and of every weight (a training step's)."""
    if mode == "forward":

        def forward():
            with torch.no_grad():
                layer(x, position_embeddings=position_embeddings)

        return forward
    leaves = [x, *layer.parameters()]
    return lambda: torch.autograd.grad(
        layer(x, position_embeddings=position_embeddings), leaves, dy
    )

# --8<-- [end:compared]

def measure(setup, kind, m, n, dtype, device) -> dict:
    """ms per round for each (layer, pass, timing)."""
    found, config = layers(kind, dtype, device)
    sequences = SEQUENCES[kind]
    x = torch.randn(sequences, m // sequences, n, device=device, dtype=dtype)
    x.requires_grad_()
    dy = torch.randn_like(x)
    positions = torch.arange(m // sequences, device=device).expand(sequences, -1)
    with torch.no_grad():
        position_embeddings = LlamaRotaryEmbedding(config).to(device)(x, positions)
    samples = {}
    for mode in MODES:
        torch._dynamo.reset()  # nothing compiled for another pass is reused
        compiled = {
            name: torch.compile(layer, fullgraph=True, dynamic=False, backend=backend())
            for name, layer in found.items()
        }
        for round_ in range(setup.rounds + 1):  # round 0 warms up, its times dropped
            for timing in setup.timings:
                for name, layer in compiled.items():
                    make = partial(one_pass, layer, mode, x, position_embeddings, dy)
                    timed(samples, (name, mode, timing), make, timing, setup, round_)
    return samples

def entries(samples, m, n, dtype) -> list:
    """The JSON entries: each figure's median, range and rounds, or its error."""
    where = {"dtype": str(dtype), "group": "layer", "m": m, "n": n}
    runs = []
    for (name, mode, timing), times in samples.items():
        entry = {**where, "implementation": name, "mode": mode, "timing": timing}
        if isinstance(times, str):
            runs.append({**entry, "error": times})
            continue
        ms, fastest, slowest = spread(times)
        runs.append(
            {
                **entry,
                "ms": ms,
                "ms_min": fastest,
                "ms_max": slowest,
                "ms_rounds": times,
            }
        )
    return runs

def measure_all(kind: str, commit=None) -> dict:
    """Every figure of a run ("gpu" or "smoke"), as the JSON object the page is generated
    from."""
    setup = MODEL_SETUPS[kind]
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    results = environment(setup.kind, device, commit)
    results |= {
        "transformers": transformers.__version__,  # the layer's code
        "rounds": setup.rounds,
        "layer": LAYERS[kind],
        "sequences": SEQUENCES[kind],
        "timings": {t: TIMERS[device.type][t] for t in setup.timings},
        "backend": backend(),
        "grid": {
            "dtypes": [str(d) for d in setup.dtypes],
            "groups": {"layer": [list(s) for s in setup.groups["layer"]]},
        },
        "skipped": {},  # every layer is timed
        "runs": [],
    }
    # One compile per layer: the layers share their class's code, and torch.compile counts
    # the compiles of one code together.
    with torch._dynamo.config.patch(**ONE_COMPILE | {"recompile_limit": len(NORMS)}):
        for dtype in setup.dtypes:
            for m, n in setup.groups["layer"]:
                samples = measure(setup, kind, m, n, dtype, device)
                for entry in entries(samples, m, n, dtype):
                    results["runs"].append(entry)
                    print(summary_of(entry), flush=True)
    return results

def summary_of(entry) -> str:
    where = f"{entry['mode']:<17} {entry['timing']:<6} {entry['implementation']:<36}"
    if "error" in entry:
        return f"{where} failed: {entry['error']}"
    return (
        f"{where} {entry['ms']:9.4f} ms ({entry['ms_min']:.4f}-{entry['ms_max']:.4f})"
    )

def main(argv=None) -> int:
    return OWN.main(measure_all, argv)

if __name__ == "__main__":
    raise SystemExit(main())

"""Tiny transformers models for the snippets that need a whole model: random weights, real
layer and norm names, nothing downloaded."""

import torch
from transformers import AutoConfig, AutoModelForCausalLM

SIZES = {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2}
HEADS = {"num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16}

def tiny(family):
    """A two-layer model of the family, randomly initialized: the norms' names are real."""
    # No end-of-text token: nothing here generates (OLMo 2's default, 50279, is past the
    # vocabulary, and transformers warns of it).
    config = AutoConfig.for_model(
        family, vocab_size=100, eos_token_id=None, **SIZES, **HEADS
    )
    torch.manual_seed(0)
    return AutoModelForCausalLM.from_config(config)

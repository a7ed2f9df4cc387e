import tempfile

import torch
from torch import nn
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments
from transformers.utils import logging

logging.set_verbosity_error()  # the wrong load below: its keys are printed instead
logging.disable_progress_bar()

def fold_beta(layer_norm, reader):
    """An RMSNorm with LayerNorm's gain and eps; beta moves into the reader's bias.
    reader is GPT-2's Conv1D (weight stored (input, output)) or an nn.Linear."""
    weight = reader.weight if isinstance(reader, nn.Linear) else reader.weight.T
    if reader.bias is None:  # GPT-2's head has none: give it one
        reader.bias = nn.Parameter(weight.new_zeros(weight.shape[0]))
    reader.bias += weight @ layer_norm.bias
    shape, gain = layer_norm.normalized_shape, layer_norm.weight
    where = {"device": gain.device, "dtype": gain.dtype}  # the model's, not defaults
    rms_norm = nn.RMSNorm(shape, eps=layer_norm.eps, **where)
    rms_norm.weight.copy_(gain)
    return rms_norm

@torch.no_grad()
def gpt2_to_rms_norm(model):
    """A GPT2LMHeadModel converted in place to RMSNorm, computing the same logits."""
    gpt2 = model.transformer
    # Untie the head first: it keeps the uncentered token embedding.
    model.lm_head.weight = nn.Parameter(gpt2.wte.weight.clone())
    model.config.tie_word_embeddings = False
    # Every writer to the residual stream writes zero-mean rows: both embeddings and,
    # in each block, the attention's and the MLP's output projections.
    for embedding in (gpt2.wte, gpt2.wpe):
        embedding.weight -= embedding.weight.mean(-1, keepdim=True)
    for block in gpt2.h:
        for writer in (block.attn.c_proj, block.mlp.c_proj):
            writer.weight -= writer.weight.mean(-1, keepdim=True)  # over the outputs
            writer.bias -= writer.bias.mean()
        block.ln_1 = fold_beta(block.ln_1, block.attn.c_attn)
        block.ln_2 = fold_beta(block.ln_2, block.mlp.c_fc)
    gpt2.ln_f = fold_beta(gpt2.ln_f, model.lm_head)
    return model

class GainsUndecayed(Trainer):
    """A Trainer that keeps GPT-2's gains (ln_1, ln_2, ln_f) out of weight decay."""

    def get_decay_parameter_names(self, model):
        names = super().get_decay_parameter_names(model)
        return [name for name in names if ".ln_" not in name]

def decayed_gains(model, trainer=Trainer):
    """The norm gains a trainer of this class decays."""
    with tempfile.TemporaryDirectory() as folder:
        args = TrainingArguments(output_dir=folder, report_to=[], use_cpu=True)
        names = trainer(model=model, args=args).get_decay_parameter_names(model)
    return [name for name in names if ".ln_" in name]

def new_gpt2(config):
    return GPT2LMHeadModel(config).double().eval()  # eval: no dropout

torch.manual_seed(0)
config = GPT2Config(
    vocab_size=100, n_positions=32, n_embd=64, n_layer=2, n_head=4,
    bos_token_id=0, eos_token_id=0,
)  # fmt: skip
model = new_gpt2(config)
with torch.no_grad():  # affine terms as after training, not the initial ones and zeros
    for module in model.modules():
        if isinstance(module, nn.LayerNorm):
            module.weight.uniform_(0.5, 1.5)
            module.bias.normal_(0.0, 0.1)
tokens = torch.randint(100, (2, 16))
logits = model(tokens).logits
before = decayed_gains(model)

converted = gpt2_to_rms_norm(model)
gap = (converted(tokens).logits - logits).abs().max()
print(f"converted: logits move by less than 1e-13: {bool(gap < 1e-13)}")
#> converted: logits move by less than 1e-13: True
# Trainer leaves nn.LayerNorm out of weight decay by type, other norms by name, and ln_*
# is not a name it knows.
after = decayed_gains(converted)
print(f"gains Trainer decays: {len(before)} before, {len(after)} after converting")
#> gains Trainer decays: 0 before, 5 after converting
print(f"gains GainsUndecayed decays: {len(decayed_gains(converted, GainsUndecayed))}")
#> gains GainsUndecayed decays: 0

# Saved as a GPT-2 checkpoint, it loads into GPT-2's LayerNorms and bias-free head.
with tempfile.TemporaryDirectory() as folder:
    converted.save_pretrained(folder)
    reloaded, keys = GPT2LMHeadModel.from_pretrained(
        folder, dtype=torch.float64, output_loading_info=True
    )
print(f"dropped: {sorted(keys['unexpected_keys'])}")
#> dropped: ['lm_head.bias']
made = sorted({key.split(".")[-2] for key in keys["missing_keys"]})
print(f"made anew: the biases of {made}")
#> made anew: the biases of ['ln_1', 'ln_2', 'ln_f']
moved = (reloaded.eval()(tokens).logits - logits).abs().max()
print(f"reloaded as GPT-2: logits move by up to {moved:.4f}")
#> reloaded as GPT-2: logits move by up to 0.0527

# Kept instead: its state dict, loaded into a model converted the same way.
state = converted.state_dict()  # torch.save(state, path) to keep it on disk
restored = gpt2_to_rms_norm(new_gpt2(config))  # the structure; the values are replaced
restored.load_state_dict(state)  # strict: every key must match
same = torch.equal(restored(tokens).logits, converted(tokens).logits)
print(f"state dict into a converted GPT-2: the same logits: {same}")
#> state dict into a converted GPT-2: the same logits: True

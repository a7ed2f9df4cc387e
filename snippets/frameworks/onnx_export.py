import os
import re
import tempfile

import onnx
import onnxruntime as ort
import torch
from onnx import TensorProto, helper
from onnxruntime.capi import onnxruntime_pybind11_state as ort_errors
from transformers.models.llama.modeling_llama import LlamaRMSNorm

n = 512
generator = torch.Generator().manual_seed(0)
x = (3 * torch.randn(64, n, generator=generator)).to(torch.float16)
weight = (torch.rand(n, generator=generator) + 0.5).to(torch.float16)

def exported(module, opset, example=x):
    """The ONNX model PyTorch's exporter writes for module (torch.export, then ONNX)."""
    program = torch.onnx.export(
        module.eval(), (example,), dynamo=True, opset_version=opset, verbose=False
    )
    return program.model_proto

def run(model, *inputs, optimized=True, saved_as=None):
    """The model's output on ONNX Runtime's CPU provider, with or without its graph
    optimizations; saved_as, a file for the graph ONNX Runtime runs."""
    options = ort.SessionOptions()
    if not optimized:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    if saved_as:
        options.optimized_model_filepath = saved_as
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    names = [given.name for given in session.get_inputs()]
    feed = {name: tensor.numpy() for name, tensor in zip(names, inputs)}
    return torch.from_numpy(session.run(None, feed)[0])

modules = {
    "LlamaRMSNorm": LlamaRMSNorm(n, eps=1e-6),
    "torch.nn.RMSNorm": torch.nn.RMSNorm(n, eps=1e-6),
}
for module in modules.values():
    with torch.no_grad():
        module.weight.copy_(weight)
    module.to(torch.float16)
models = {
    (name, opset): exported(module, opset)
    for name, module in modules.items()
    for opset in (18, 23)
}

# Without an opset_version the exporter takes its default, which is below 23.
default = exported(modules["torch.nn.RMSNorm"], None)
print(f"the exporter's default opset: {default.opset_import[0].version}")
#> the exporter's default opset: 20

# What the exporter writes: each module's operations at opset 18, one node at opset 23.
for (name, opset), model in models.items():
    ops = " ".join(node.op_type for node in model.graph.node)
    print(f"{name:<16} opset {opset}: {ops}")
    #> LlamaRMSNorm     opset 18: Cast Pow ReduceMean Add Sqrt Reciprocal Mul Cast Mul
    #> LlamaRMSNorm     opset 23: RMSNormalization
    #> torch.nn.RMSNorm opset 18: Cast Pow ReduceMean Add Sqrt Reciprocal Mul Mul Cast
    #> torch.nn.RMSNorm opset 23: RMSNormalization
node = models["LlamaRMSNorm", 23].graph.node[0]
settings = {a.name: helper.get_attribute_value(a) for a in node.attribute}
eps, stash, axis = settings["epsilon"], settings["stash_type"], settings["axis"]
print(f"its node: epsilon {eps:.0e}, stash_type {stash} (float32), axis {axis}")
#> its node: epsilon 1e-06, stash_type 1 (float32), axis -1

# On ONNX Runtime, in float16: the share of each model's outputs equal to its module's,
# and to torch.nn.RMSNorm's (the exact value rounded once).
with torch.no_grad():
    rounded_once = modules["torch.nn.RMSNorm"](x)
for (name, opset), model in models.items():
    with torch.no_grad():
        expected = modules[name](x)
    y = run(model, x)
    same, once = [f"{(y == t).float().mean():.1%}" for t in (expected, rounded_once)]
    print(
        f"{name:<16} opset {opset}: {same} equal to its module's, {once} to nn.RMSNorm's"
    )
    #> LlamaRMSNorm     opset 18: 73.8% equal to its module's, 100.0% to nn.RMSNorm's
    #> LlamaRMSNorm     opset 23: 73.8% equal to its module's, 100.0% to nn.RMSNorm's
    #> torch.nn.RMSNorm opset 18: 100.0% equal to its module's, 100.0% to nn.RMSNorm's
    #> torch.nn.RMSNorm opset 23: 100.0% equal to its module's, 100.0% to nn.RMSNorm's

# The node as ONNX's specification defines it: x / RMS in float32, cast to the input's
# type, then times the scale.
x32 = x.float()
specified = (x32 / torch.sqrt(x32.pow(2).mean(-1, keepdim=True) + 1e-6)).half() * weight
same = (run(models["LlamaRMSNorm", 23], x) == specified).float().mean()
print(f"RMSNormalization as specified: {same:.1%} equal")
#> RMSNormalization as specified: 73.8% equal

# A cast to float16, then a float16 product, alone in a graph: the order LlamaRMSNorm's
# graph ends with (x̂ rounded, then times the weight).
graph = helper.make_graph(
    [
        helper.make_node("Cast", ["h"], ["h16"], to=TensorProto.FLOAT16),
        helper.make_node("Mul", ["h16", "w"], ["y"]),
    ],
    "cast_then_multiply",
    [
        helper.make_tensor_value_info("h", TensorProto.FLOAT, [64, n]),
        helper.make_tensor_value_info("w", TensorProto.FLOAT16, [n]),
    ],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [64, n])],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
h = torch.randn(64, n, generator=generator)
twice, once = weight * h.half(), (weight.float() * h).half()
for optimized in (True, False):
    y = run(model, h, weight, optimized=optimized)
    shares = f"{(y == twice).float().mean():.1%}, once {(y == once).float().mean():.1%}"
    print(
        f"graph optimizations {'on ' if optimized else 'off'}: rounded twice {shares}"
    )
    #> graph optimizations on : rounded twice 74.2%, once 100.0%
    #> graph optimizations off: rounded twice 74.2%, once 100.0%

# The graph ONNX Runtime runs (its optimizations off; saved in a temporary folder): it has
# no float16 product on this CPU, so it multiplies in float32 between casts of its own,
# and drops the model's cast.
as_run = os.path.join(tempfile.mkdtemp(), "as_run.onnx")
run(model, h, weight, optimized=False, saved_as=as_run)
nodes = onnx.load(as_run).graph.node
product = next(node for node in nodes if node.op_type == "Mul")
ops = " ".join(node.op_type for node in nodes)
print(f"runs as {ops}; the product reads h itself: {'h' in product.input}")
#> runs as Cast Mul Cast; the product reads h itself: True

# At opset 23 it runs the node itself, with a CPU kernel of its own that rounds once.
run(models["LlamaRMSNorm", 23], x, optimized=False, saved_as=as_run)
ops = " ".join(node.op_type for node in onnx.load(as_run).graph.node)
print(f"LlamaRMSNorm, opset 23, runs as {ops}")
#> LlamaRMSNorm, opset 23, runs as RMSNormalization

# In bfloat16 the CPU provider has no kernel for the product: LLaMA's norm does not load.
llama_bf16 = LlamaRMSNorm(n, eps=1e-6).to(torch.bfloat16)
for opset in (18, 23):
    model = exported(llama_bf16, opset, x.to(torch.bfloat16))
    nodes = len(model.graph.node)
    try:
        run(model, x.to(torch.bfloat16))
    except ort_errors.NotImplemented as error:
        missing = re.search(r"implementation for (\w+\(\d+\))", str(error))[1]
        reason = f"not loaded, no CPU kernel for {missing}"
        print(f"bfloat16, opset {opset}, nodes: {nodes}; {reason}")
        #> bfloat16, opset 18, nodes: 9; not loaded, no CPU kernel for Mul(14)
        #> bfloat16, opset 23, nodes: 1; not loaded, no CPU kernel for Mul(14)

"""The Benchmark page: `python -m snippets.benchmark.run` times the implementations, `fp8` the
FP8 page's kernel against the unfused ways, `model` a transformer layer with each norm in it,
`page` writes the benchmark pages' tables and plots (the CPU table of docs/en/benchmark.md and
docs/ko/benchmark.md, the per-GPU pages, Benchmark results and the FP8 page's summary), and
`tune` times the Triton kernels' launch settings on a GPU."""

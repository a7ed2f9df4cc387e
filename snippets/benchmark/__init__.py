"""The Benchmark page: `python -m snippets.benchmark.run` times the implementations, `fp8` the
FP8 page's kernel against the unfused ways, `model` a transformer layer with each norm in it,
`page` writes the benchmark pages' tables and plots (the per-GPU pages, Benchmark results,
the CPU table on the Benchmark page and the FP8 page's summary), and
`tune` times the Triton kernels' launch settings on a GPU."""

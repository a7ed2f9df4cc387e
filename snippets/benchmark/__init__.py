"""The Benchmark page: `python -m snippets.benchmark.run` times the implementations, `fp8` the
FP8 page's kernel against the unfused ways, `model` a transformer layer with each norm in it,
`page` writes the page's tables and plots (docs/en/benchmark.md, docs/ko/benchmark.md), and
`tune` times the Triton kernels' launch settings on a GPU."""

"""The Benchmark page: `python -m snippets.benchmark.run` times the implementations, `page` writes
the page's tables and plots (docs/en/benchmark.md, docs/ko/benchmark.md), and `tune` times the
Triton kernels' launch settings on a GPU."""

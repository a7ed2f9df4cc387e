"""Code blocks of the Kernel page (docs/en/kernel.md, docs/ko/kernel.md): the Triton kernels and
the bytes they move."""

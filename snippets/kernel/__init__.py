"""Code blocks of the Kernel page (docs/en/kernel.md, docs/ko/kernel.md): the Triton kernels and
the scripts that check them."""

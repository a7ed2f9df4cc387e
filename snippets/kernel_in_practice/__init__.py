"""Code blocks of the Kernel in practice page (docs/en/kernel_in_practice.md,
docs/ko/kernel_in_practice.md): the kernel checked without a GPU (and the bfloat16 roundings
other pages use too), in a transformers model, as PyTorch operators, and split across devices."""

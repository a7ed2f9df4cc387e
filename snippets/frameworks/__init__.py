"""Code blocks of the RMSNorm in other frameworks page (docs/en/frameworks.md,
docs/ko/frameworks.md): Flax's, MLX's, Keras's and Haiku's RMSNorm beside PyTorch's, and the
libraries' defaults."""

"""Code blocks of the RMSNorm in other frameworks page (docs/en/frameworks.md,
docs/ko/frameworks.md): Flax's, MLX's, Keras's and Haiku's RMSNorm beside PyTorch's, the
libraries' defaults, and a norm exported to ONNX."""

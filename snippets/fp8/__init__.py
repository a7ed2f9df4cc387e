"""Code blocks of the FP8 quantization page (docs/en/fp8.md, docs/ko/fp8.md)."""

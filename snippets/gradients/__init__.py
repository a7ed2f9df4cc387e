"""Code blocks of the Gradients page (docs/en/gradients.md, docs/ko/gradients.md)."""

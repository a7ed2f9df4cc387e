"""Code blocks of the Numerics page (docs/en/numerics.md, docs/ko/numerics.md)."""

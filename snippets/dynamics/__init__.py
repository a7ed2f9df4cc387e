"""Code blocks of the Training dynamics page (docs/en/dynamics.md, docs/ko/dynamics.md)."""

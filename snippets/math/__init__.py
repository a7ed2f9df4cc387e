"""Code blocks of the Math page (docs/en/math.md, docs/ko/math.md)."""

"""Code blocks of the Pitfalls page (docs/en/pitfalls.md, docs/ko/pitfalls.md)."""

"""Code blocks of the Home page (docs/en/index.md, docs/ko/index.md)."""

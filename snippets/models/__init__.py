"""Code blocks of the Models page (docs/en/models.md, docs/ko/models.md)."""

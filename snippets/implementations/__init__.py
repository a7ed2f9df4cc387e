"""Code blocks of the Implementations page (docs/en/implementations.md, docs/ko/implementations.md)."""

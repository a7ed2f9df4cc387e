"""Code blocks of the Beyond RMSNorm page (docs/en/beyond.md, docs/ko/beyond.md)."""

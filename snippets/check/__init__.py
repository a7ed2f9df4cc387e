"""The Check page (docs/en/check.md, docs/ko/check.md): `python -m snippets.check TARGET`
checks an RMSNorm implementation."""

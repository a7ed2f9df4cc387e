"""The Check page: `python -m snippets.check TARGET` checks an RMSNorm implementation."""

"""Code blocks of the Activations and attention page (docs/en/activations.md, docs/ko/activations.md)."""

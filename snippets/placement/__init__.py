"""Code blocks of the Placement page (docs/en/placement.md, docs/ko/placement.md)."""

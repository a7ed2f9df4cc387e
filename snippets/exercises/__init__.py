"""Code blocks of the Exercises page (docs/en/exercises.md, docs/ko/exercises.md)."""

"""Every piece of code the site shows: one subpackage per page, one script per code block.

Each script runs on its own (`python snippets/math/worked_example.py`) and carries its
printed output as `#>` comment lines, which the tests check (pytest-examples).
"""

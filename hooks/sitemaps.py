"""Put a copy of sitemap.xml in every page folder, so the language selector finds one.

Material's language selector fetches `sitemap.xml` relative to each `<link rel="alternate">`
of a page, and mkdocs-static-i18n points those links at the page's twin in each language
(`/math/`, `/ko/math/`). Without a copy there, every page logs two 404s in the browser console.
"""

import shutil
from pathlib import Path

from mkdocs.plugins import event_priority


@event_priority(-100)  # after mkdocs-static-i18n has built every language
def on_post_build(config, **kwargs):
    site = Path(config.site_dir)
    sitemap = site / "sitemap.xml"
    if not sitemap.is_file():  # a nested per-language build: the outer one copies
        return
    for page in site.rglob("index.html"):
        if page.parent != site:
            shutil.copyfile(sitemap, page.parent / "sitemap.xml")

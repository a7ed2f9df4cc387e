"""One "not found" page for the whole site, the default language's.

GitHub Pages answers every missing path with the site's root 404.html. mkdocs-static-i18n
builds the languages one after the other into the same folder, so each build writes that file
over the last one's and the Korean build's would win: Korean navigation and `lang="ko"` on an
English page (ultrabug/mkdocs-static-i18n#284). The other languages' builds leave it out; the
page itself (overrides/404.html) speaks to a Korean reader too.
"""

from mkdocs.plugins import event_priority


# After mkdocs-static-i18n (priority -100) has set the theme language of this language's build.
@event_priority(-110)
def on_config(config):
    if config.theme["language"] != config.plugins["i18n"].default_language:
        config.theme.static_templates.discard("404.html")
    return config

"""Render the pages in docs/<language>/notebooks/ as executed Jupyter notebooks.

Each such page is a notebook written in Markdown (see scripts/notebooks.py). After
mkdocs-static-i18n has chosen each language's files, `on_files` points every notebook page at its
executed .ipynb, so mkdocs-jupyter renders it and copies it beside the page for download. The page
stays a Markdown page to i18n, which keeps its language twin and sitemap entry. (Handing
mkdocs-jupyter .ipynb files directly does not survive i18n, which replaces mkdocs-jupyter's file
objects: the pages come out as raw JSON, ultrabug/mkdocs-static-i18n#198.)

`on_page_content` gives each such page the front matter of its Markdown (its description),
which the executed notebook lacks, then fits nbconvert's HTML into the site: no inline CSS or
JavaScript (MathJax from a CDN among it), code cells as Material code blocks with a copy
button, formulas handed to hooks/mathml.py, links to other pages resolved, and alt text on
each figure. `on_post_page` points the links of the copy offered for download at the
published site (a page's .md file means nothing to a notebook opened elsewhere) and gives it a
first cell with the page's address and the line under its link, the versions it runs with.
Set NOTEBOOKS_EXECUTE=0 to build without running the notebooks (pages without outputs).
"""

import os
import posixpath
import re
from pathlib import Path
from urllib.parse import urljoin

import nbformat
from bs4 import BeautifulSoup, Comment
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.utils.meta import get_data
from nbclient.exceptions import CellExecutionError

from scripts import notebooks, standalone

_DOWNLOAD = {
    "en": "Download this notebook (.ipynb)",
    "ko": "이 노트북 내려받기(.ipynb)",
}
_RUNS = {
    "en": "Runs on its own with: {needs} (the versions that computed the outputs below).",
    "ko": "{needs} 환경에서 단독으로 실행됩니다. 아래 출력도 이 버전들로 얻었습니다.",
}
# The downloaded copy's first cell: where it comes from, and the line under the page's link.
_FROM = {"en": "From [{url}]({url}). ", "ko": "출처: [{url}]({url}). "}
_DISPLAY_MATH = re.compile(r"^\$\$(.+?)\$\$$", re.DOTALL)
_INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\$)(.+?)(?<![\\$])\$")
_ANSI_COLOR = re.compile(r"\x1b\[[0-9;]*m")
_REMOTE = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//|#)", re.IGNORECASE)
# The front matter of each notebook page, by the executed notebook rendered in its place.
_FRONT_MATTER = {}
# Per notebook, each link to another page of the site and that page's published URL.
_PUBLISHED_LINKS = {}
# Per notebook, the first cell of its downloaded copy.
_PROVENANCE = {}


# After mkdocs-static-i18n (priority -100) has picked each language's files.
@event_priority(-110)
def on_files(files, config):
    base = Path(config.config_file_path).parent
    run = os.environ.get("NOTEBOOKS_EXECUTE", "1") != "0"
    for file in files.documentation_pages():
        if notebooks.is_notebook(file.src_uri):
            page = Path(file.abs_src_path)
            language = page.parent.parent.name
            out_dir = notebooks.cache_folder(base) / "pages" / language
            try:
                executed = notebooks.executed(page, out_dir, language, base, run=run)
            except CellExecutionError as error:
                message = _ANSI_COLOR.sub("", str(error))
                raise PluginError(f"{file.src_uri}: a cell raised\n{message}") from None
            file.abs_src_path = str(executed)
            _FRONT_MATTER[file.abs_src_path] = get_data(page.read_text("utf-8"))[1]
    return files


def on_page_content(html, page, config, files):
    if not notebooks.is_notebook(page.file.src_uri):
        return html
    page.meta.update(_FRONT_MATTER[page.file.abs_src_path])
    soup = BeautifulSoup(html, "html.parser")
    _strip(soup, config.mdx_configs["toc"]["permalink_title"])
    language = config.theme["language"]
    for highlighted in soup.select("div.highlight-ipynb"):
        # Material's structure, so its styles, and its copy button, apply.
        code = soup.new_tag("code")
        code.extend(list(highlighted.pre.contents))
        highlighted.pre.append(code)
        highlighted["class"] = ["language-python", "highlight"]
        highlighted["data-search-exclude"] = "code"  # as hooks/standalone.py does
        folded = standalone.fold(code.decode_contents(), language)
        if folded is not None:  # the site's helpers written out in the cell
            disclosure, inner = folded
            # Parsed inside <pre>, where BeautifulSoup keeps whitespace as it is.
            parsed = BeautifulSoup(f"<pre>{inner}</pre>", "html.parser").pre
            code.clear()
            code.extend(list(parsed.contents))
            highlighted.pre.insert_before(BeautifulSoup(disclosure, "html.parser"))
            highlighted["class"].append("folded")
    for output in soup.select(".jp-OutputArea"):
        output["data-search-exclude"] = "output"
    _set_heading_ids(soup, page)
    links = _PUBLISHED_LINKS[page.file.abs_src_path] = {}
    for markdown in soup.select(".jp-RenderedMarkdown"):
        _mark_math(markdown, soup)
        for link in markdown.select("a[href]"):
            resolved = _resolve(link["href"], page, files)
            if resolved != link["href"]:
                links[link["href"]] = urljoin(page.canonical_url, resolved)
            link["href"] = resolved
    notebook = Path(page.file.abs_src_path)
    images = soup.select(".jp-RenderedImage img")
    for image, alt in zip(images, _image_alts(notebook), strict=True):
        image["alt"] = alt
    download = soup.new_tag("a", href=notebook.name, download="")
    download.string = _DOWNLOAD[language]
    cells = nbformat.read(notebook, as_version=4).cells
    code = [cell.source for cell in cells if cell.cell_type == "code"]
    needs = standalone.runs_with("\n".join(code))
    paragraph = soup.new_tag("p", attrs={"class": "notebook-download"})
    paragraph.append(download)
    paragraph.append(soup.new_tag("br"))
    paragraph.append(_RUNS[language].format(needs=needs))
    _PROVENANCE[page.file.abs_src_path] = _FROM[language].format(
        url=page.canonical_url
    ) + _RUNS[language].format(needs=needs)
    title = soup.select_one("h1")
    box = title.find_next_sibling()
    # After the page's "In short" box, which comes first, as on every page.
    (
        box if box is not None and "admonition" in box.get("class", []) else title
    ).insert_after(paragraph)
    return str(soup)


# After mkdocs-jupyter's (plugins run before hooks), which copies the notebook beside the page.
def on_post_page(output, page, config):
    provenance = _PROVENANCE.get(page.file.abs_src_path)
    if provenance is None:
        return output
    name = Path(page.file.abs_src_path).name
    copy = Path(page.file.abs_dest_path).parent / name
    nb = nbformat.read(copy, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for href, url in _PUBLISHED_LINKS.get(page.file.abs_src_path, {}).items():
                cell.source = cell.source.replace(f"]({href})", f"]({url})")
    first = nbformat.v4.new_markdown_cell(f"*{provenance}*", id="cell-provenance")
    nb.cells.insert(0, first)
    nbformat.write(nb, copy)
    return output


def _strip(soup, permalink_title):
    """Drop what nbconvert adds for a page of its own: CSS, scripts (MathJax, a clipboard
    helper), comments; ids Material cannot use; focus stops on cells that do not scroll.
    The headings' permalinks take the other pages' style and title."""
    added = "style, script, .zeroclipboard-container, .clipboard-copy-txt"
    for tag in soup.select(added):
        tag.decompose()
    for comment in soup.find_all(string=lambda text: isinstance(text, Comment)):
        comment.extract()
    for cell in soup.select(".jp-Cell[id^='cell-id=']"):
        # Material turns this id into a CSS selector for the copy button: no "=" in it.
        cell["id"] = cell["id"].replace("cell-id=", "cell-")
    for wrapper in soup.select(".jp-Cell-inputWrapper[tabindex]"):
        del wrapper["tabindex"]
    for anchor in soup.select("a.anchor-link"):
        anchor["class"] = ["headerlink"]  # the permalink style of the other pages
        anchor["title"] = permalink_title


def _set_heading_ids(soup, page):
    """Korean headings take their English anchor; the table of contents follows the page."""
    headings = soup.select(".jp-RenderedMarkdown :is(h1, h2, h3, h4, h5, h6)")
    for heading in headings:
        if explicit := heading.select_one("a[id]"):
            heading["id"] = explicit.extract()["id"]
            heading.select_one("a.headerlink")["href"] = f"#{heading['id']}"
    for anchor, heading in zip(_anchors(page.toc), headings, strict=True):
        anchor.id = heading["id"]


def _anchors(items):
    for item in items:
        yield item
        yield from _anchors(item.children)


def _mark_math(markdown, soup):
    """Wrap $$...$$ and $...$ the way pymdownx.arithmatex does, for hooks/mathml.py."""
    for paragraph in markdown.find_all("p"):
        if display := _DISPLAY_MATH.match(paragraph.get_text().strip()):
            block = soup.new_tag("div", attrs={"class": "arithmatex"})
            block.string = f"\\[{display[1]}\\]"
            paragraph.replace_with(block)
    for text in markdown.find_all(string=_INLINE_MATH):
        if text.find_parent("code") is None:
            parts = BeautifulSoup(
                _INLINE_MATH.sub(
                    lambda m: f'<span class="arithmatex">\\({m[1]}\\)</span>',
                    str(text).replace("&", "&amp;").replace("<", "&lt;"),
                ),
                "html.parser",
            )
            text.replace_with(parts)


def _resolve(href, page, files):
    """A link to another page's .md file, as that page's URL relative to this page."""
    if _REMOTE.match(href):
        return href
    path, _, fragment = href.partition("#")
    target = files.get_file_from_path(
        posixpath.normpath(posixpath.join(posixpath.dirname(page.file.src_uri), path))
    )
    if target is None:
        return href  # left for the link checker to report
    url = target.url_relative_to(page.file)
    return f"{url}#{fragment}" if fragment else url


def _image_alts(notebook: Path) -> list[str]:
    """One alt text per image output, from the `alt` of the code fence that made it."""
    alts = []
    for cell in nbformat.read(notebook, as_version=4).cells:
        for output in cell.get("outputs", []):
            if "image/png" in output.get("data", {}):
                alts.append(cell.metadata.get("alt", ""))
    return alts

"""Code blocks as a reader copies them: standalone scripts, shown, linked and downloadable.

Before each build, `on_pre_build` writes the standalone version of every snippet file
(scripts/standalone.py: the site's helpers a script imports, written out above it) to
build/standalone/, which pymdownx.snippets searches first (mkdocs.yml), so every block shows
exactly what its copy button copies. `on_page_content` links each block's title to its file in
the repository and says under it what it runs with (the packages it imports, at the versions
that printed its output) with a link to download it; `on_post_build` puts those scripts in the
site, under downloads/ (the checker also as downloads/check_rmsnorm.py). The helpers written
out in a block are folded (scripts/standalone.py's `fold`), a folded block's path breaks only
after a slash or an underscore, and code is kept out of the search index.
"""

import posixpath
import re
import shutil
from html import escape, unescape
from pathlib import Path

from mkdocs.exceptions import PluginError

from scripts import standalone

DOWNLOADS = "downloads"
CHECKER = "check_rmsnorm.py"  # snippets/check/__main__.py, its helpers written out
WORDS = {
    "en": {
        "runs": "Runs on its own with: {needs} (the versions that printed its output). ",
        "triton": "Without an NVIDIA GPU, set TRITON_INTERPRET=1 (Triton's interpreter).",
        "download": "Download the script",
        "download_whole": "Download the whole file",
        "excerpt": "An excerpt: the whole file, linked in the title, runs as a module of "
        "the site's repository.",
        "excerpt_mark": "an excerpt",
    },
    "ko": {
        "runs": "{needs} 환경에서 단독으로 실행됩니다. 위 출력도 이 버전들로 얻었습니다. ",
        "triton": "NVIDIA GPU가 없으면 TRITON_INTERPRET=1을 설정해 Triton 인터프리터로 "
        "실행하십시오.",
        "download": "스크립트 내려받기",
        "download_whole": "파일 전체 내려받기",
        "excerpt": "파일의 일부입니다. 제목에 링크된 파일 전체는 이 사이트 저장소의 모듈로 "
        "실행됩니다.",
        "excerpt_mark": "일부",
    },
}
# A code block whose title names a snippet file, as pymdownx.highlight writes it.
_BLOCK = re.compile(
    r'(?P<head><div class="highlight"><span class="filename">)'
    r"(?P<path>snippets/[\w/]+\.py)"
    r"(?P<middle></span><pre>(?:<span></span>)?<code>)(?P<code>.*?)"
    r"(?P<tail></code></pre></div>)",
    re.DOTALL,
)
_TAG = re.compile(r"<[^>]*>")
_INCLUDE = re.compile(r'^\s*--8<--\s+"(?P<path>[^"]+)"\s*$')
_NO_SEARCH = 'data-search-exclude="code"'
# A folded block's title naming its file ("What it does: snippets/page/file.py"), as text
# or as code (the folded helpers').
_SUMMARY_PATH = re.compile(r"(<summary>[^<]*?(?:<code>)?)(snippets/[\w/]+\.py)")


def breakable(path: str) -> str:
    """A phone breaks a long path after a slash or an underscore, not inside a word."""
    return re.sub(r"([/_])", r"\1<wbr>", path)


def on_pre_build(config):
    standalone.write_all(Path(config.config_file_path).parent)


def on_page_markdown(markdown, page, config, files):
    """Stop at an include of a file that does not exist, naming the page and line (the
    snippets extension would name the file only)."""
    root = Path(config.config_file_path).parent
    for number, line in enumerate(markdown.splitlines(), start=1):
        if match := _INCLUDE.match(line):
            path = match["path"].split(":")[0]
            if not (root / path).is_file():
                raise PluginError(
                    f"docs/{page.file.src_uri}:{number}: includes {path}, which does not"
                    " exist (moved or renamed? the include must name its new path)"
                )
    return markdown


def on_page_content(html, page, config, files):
    words = WORDS[config.theme["language"]]
    base = Path(config.config_file_path).parent

    def block(match):
        path = match["path"]
        title = breakable(path)
        if config.repo_url:
            title = f'<a href="{escape(_source_url(config, path))}">{title}</a>'
        shown = unescape(_TAG.sub("", match["code"]))
        if shown.strip() != _whole(base, path).strip():
            # Said in the title too, above the copy button: the copy is not a script.
            title += f" ({escape(words['excerpt_mark'], quote=False)})"
            info = (
                escape(words["excerpt"], quote=False)
                + " "
                + _download(words["download_whole"], page, path)
            )
            code = (
                f"{match['head']}{title}{match['middle']}{match['code']}{match['tail']}"
            )
        else:
            info = _describe(words, shown, page, path)
            code = _fold(match, title, config.theme["language"])
        # Kept out of the search index (Material's search plugin skips such elements): a
        # result's preview shows prose, and the index stays small.
        code = code.replace(
            '<div class="highlight', f'<div {_NO_SEARCH} class="highlight', 1
        )
        return f'{code}<p class="block-info">{info}</p>'

    # String surgery, not an HTML parser: parsing every token of every page's code took
    # about half of each build.
    html = _BLOCK.sub(block, html)
    return _SUMMARY_PATH.sub(lambda m: m[1] + breakable(m[2]), html)


def on_post_build(config):
    """The standalone scripts, for the download links (the same files in every language),
    and the checker as the one file the Check page offers."""
    source = Path(config.config_file_path).parent / standalone.FOLDER / "snippets"
    target = Path(config.site_dir) / DOWNLOADS / "snippets"
    shutil.copytree(
        source,
        target,
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns("__init__.py"),
        copy_function=_copy_script,
    )
    shutil.copyfile(source / "check" / "__main__.py", target.parent / CHECKER)


def _copy_script(source, target):
    """A script as its block shows it whole: without pymdownx.snippets' section marks,
    which a file shown whole and in part keeps for the part."""
    lines = Path(source).read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if not standalone.SECTION_MARK.match(line)]
    Path(target).write_text("".join(kept), encoding="utf-8")


def _fold(match, title: str, language: str) -> str:
    """The block, its written-out helpers folded (scripts/standalone.py's `fold`)."""
    folded = standalone.fold(match["code"], language)
    if folded is None:
        return f"{match['head']}{title}{match['middle']}{match['code']}{match['tail']}"
    disclosure, code = folded
    return (
        f'<div class="highlight folded"><span class="filename">{title}</span>{disclosure}'
        f"{match['middle'].removeprefix('</span>')}{code}{match['tail']}"
    )


def _whole(base: Path, path: str) -> str:
    text = (base / standalone.FOLDER / path).read_text(encoding="utf-8")
    return standalone.section(text, None, path)


def _describe(words, shown, page, path) -> str:
    """What the block runs with, the interpreter note for Triton, the download link."""
    info = escape(words["runs"].format(needs=standalone.runs_with(shown)), quote=False)
    if "triton" in dict(standalone.requirements(shown)):
        info += escape(words["triton"] + " ", quote=False)
    return info + _download(words["download"], page, path)


def _download(text: str, page, path: str) -> str:
    """A link that downloads the standalone script of `path` (put in the site by
    on_post_build)."""
    script = posixpath.relpath(f"{DOWNLOADS}/{path}", page.url or ".")
    name = escape(Path(path).name)
    return (
        f'<a download="{name}" href="{escape(script)}">{escape(text, quote=False)}</a>'
    )


def _source_url(config, path: str) -> str:
    """The file's page in the repository, on the branch that edit_uri names."""
    branch = re.match(r"(?:edit|blob)/([^/]+)/", config.edit_uri or "")
    return (
        f"{config.repo_url.rstrip('/')}/blob/{branch[1] if branch else 'main'}/{path}"
    )

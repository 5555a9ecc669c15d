"""The site's front page and guides, from README.md and docs/guides/*.md as they are written.

The guides are plain Markdown files in docs/guides/, readable on their own in the
repository; the README is the front page. Their links are written for the repository
(a guide points at the README as ``../../README.md``, the README at ``docs/guides/x.md``), so
:func:`for_site` turns each into the site's page name, and a link to a file of the repository
(the site does not hold those) into its text with the path in code.

But: it writes no Markdown of its own beyond that (the benchmarks page's figures come from
``bench_page.py``), and it never edits the README or a guide.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
GUIDES_FOLDER = ROOT / "docs" / "guides"

# The guides in the order the site lists them: page name (the file docs/guides/<name>.md).
GUIDES = ("students", "instructors", "hub", "grading", "sandbox", "benchmarks", "architecture")

LINK = re.compile(r"(?<!!)\[([^\]]+)\]\(([^)\s]+)\)")
SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:")


def site_target(target: str, page: str) -> str | None:
    """Where a link of ``page`` (``index`` for the README) points on the site, or ``None``
    when it points at a file of the repository that the site does not hold.

    >>> site_target("docs/guides/hub.md#take-down", "index")
    'hub.md#take-down'
    >>> site_target("../../README.md#quickstart", "students")
    'index.md#quickstart'
    >>> site_target("grading.md", "hub"), site_target("#ties", "hub")
    ('grading.md', '#ties')
    >>> site_target("LICENSE", "index") is None
    True
    """
    if target.startswith("#") or SCHEME.match(target):
        return target
    path, _, anchor = target.partition("#")
    anchor = f"#{anchor}" if anchor else ""
    if page == "index" and path.startswith("docs/guides/"):
        path = path.removeprefix("docs/guides/")
    elif page != "index" and path == "../../README.md":
        path = "index.md"
    if path.removesuffix(".md") in {*GUIDES, "index"} or path.endswith(".svg"):
        return path + anchor
    return None


def for_site(text: str, page: str) -> str:
    """``text`` with every link pointed at the site's pages.

    >>> for_site("See [the hub](docs/guides/hub.md) and [the licence](LICENSE).", "index")
    'See [the hub](hub.md) and the licence (`LICENSE`).'
    """

    def fix(match: re.Match) -> str:
        text, target = match.group(1), match.group(2)
        moved = site_target(target, page)
        return f"[{text}]({moved})" if moved else f"{text} (`{target}`)"

    return LINK.sub(fix, text)


def guide(name: str, folder: Path = GUIDES_FOLDER) -> str:
    """One guide's Markdown as the site shows it."""
    return for_site((folder / f"{name}.md").read_text(), name)


def front_page(readme: Path = README) -> str:
    """The README as the site's front page."""
    return for_site(readme.read_text(), "index")


def unlisted(folder: Path = GUIDES_FOLDER) -> list[str]:
    """Guides in the folder that :data:`GUIDES` does not list (the site would leave them out)."""
    return sorted(p.stem for p in folder.glob("*.md") if p.stem not in GUIDES)

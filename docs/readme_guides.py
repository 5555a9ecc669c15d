"""The site's guides, cut out of README.md by its headings each time the site is built.

README.md stays the one place where the guides' text is written: this file reads its
headings (outside code blocks), gives each section to the guide that :data:`GUIDES` names for
it (a ``###`` section goes with its ``##`` unless named itself), shifts the headings so each
section starts at level 2 under the guide's title, and points the README's ``#anchor`` links
at the page that now holds that heading. A ``##`` section that no guide names lands on an
"Other notes" page, and :func:`unplaced` lists it, so a new README section is never lost.

But: it copies no text into docs/ and edits nothing in the README; links to the repository's
files become plain text (the site does not hold those files), and the page for the
benchmarks is built elsewhere (``bench_page.py``), from measured records, not from the
README's tables.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

# (page, title, the README headings it holds, in the order the README has them)
GUIDES: list[tuple[str, str, list[str]]] = [
    (
        "students",
        "Students: setting up and checking your work",
        ["Quickstart", "The lessons", "For students", "Watch it learn, and the overfitting curve"],
    ),
    (
        "instructors",
        "Instructors: the term, step by step",
        ["For instructors", "Editing the lessons"],
    ),
    ("hub", "A class on JupyterHub", ["A class on JupyterHub"]),
    ("grading", "Grading a class at scale", ["Grading a class at scale"]),
    ("sandbox", "The sandbox and the threat model", ["The sandbox and the threat model"]),
    ("architecture", "Architecture: what is where", ["What is where"]),
    ("about", "Licence, version, citing, contributing", ["Licence, version, citing, contributing"]),
]
# README sections the site builds from other sources, on purpose.
# Their blocks are left out; a README link to them goes to that page instead.
ELSEWHERE = {"Benchmarks": "benchmarks"}
OTHER = ("other", "Other notes from the README")

HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
LINK = re.compile(r"(?<!!)\[([^\]]+)\]\(([^)\s]+)\)")


@dataclass
class Block:
    """One heading of the README and the lines under it, up to the next heading."""

    level: int
    title: str
    lines: list[str] = field(default_factory=list)
    page: str = ""

    @property
    def slug(self) -> str:
        return slugify(self.title)


def slugify(title: str) -> str:
    """The anchor GitHub (and MyST's heading anchors) give a heading.

    >>> slugify("The sandbox and the threat model")
    'the-sandbox-and-the-threat-model'
    >>> slugify("Licence, version, citing, contributing")
    'licence-version-citing-contributing'
    """
    text = re.sub(r"<[^>]+>|`", "", title).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def split_blocks(text: str) -> list[Block]:
    """The README as blocks, one per heading; lines before the first heading form a block of
    level 0.

    >>> text = "intro\\n## A\\n```\\n# not a heading\\n```\\n### B\\n"
    >>> [(b.level, b.title) for b in split_blocks(text)]
    [(0, ''), (2, 'A'), (3, 'B')]
    """
    blocks = [Block(0, "")]
    fence = None
    for line in text.splitlines():
        opened = FENCE.match(line)
        if fence is None and (heading := HEADING.match(line)):
            blocks.append(Block(len(heading.group(1)), heading.group(2)))
            continue
        if opened and (fence is None or opened.group(1).startswith(fence)):
            fence = opened.group(1)[:3] if fence is None else None
        blocks[-1].lines.append(line)
    return blocks


def assign(blocks: list[Block]) -> None:
    """Sets each block's page: its own mapping, else its nearest enclosing heading's."""
    pages = {title: page for page, _, titles in GUIDES for title in titles}
    pages.update({title: "-" + page for title, page in ELSEWHERE.items()})
    enclosing: dict[int, str] = {}
    for block in blocks:
        if block.level <= 1:
            block.page = "index"
            enclosing = {1: "index"}
            continue
        if block.title in pages:
            page = pages[block.title]
        else:
            parents = [enclosing[level] for level in sorted(enclosing) if level < block.level]
            page = parents[-1] if parents and block.level > 2 else OTHER[0]
        block.page = page
        enclosing = {lvl: p for lvl, p in enclosing.items() if lvl < block.level}
        enclosing[block.level] = page


def unplaced(blocks: list[Block]) -> list[str]:
    """The ``##`` headings that no guide names (they go to the "other" page)."""
    return [b.title for b in blocks if b.page == OTHER[0] and b.level == 2]


def _rewrite_links(line: str, where: dict[str, str], page: str) -> str:
    def fix(match: re.Match) -> str:
        text, target = match.group(1), match.group(2)
        if target.startswith("#"):
            holder = where.get(target[1:])
            if holder is None:
                return text
            if holder.startswith("-"):  # a section the site builds from elsewhere
                return f"[{text}]({holder[1:]}.md)"
            return f"[{text}]({target})" if holder == page else f"[{text}]({holder}.md{target})"
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):
            return match.group(0)
        return f"{text} (`{target}`)"

    return LINK.sub(fix, line)


def render(blocks: list[Block], page: str, title: str) -> str:
    """The Markdown of one guide page."""
    mine = [b for b in blocks if b.page == page]
    if not mine:
        return ""
    where = {b.slug: b.page for b in blocks if b.level >= 2}
    shift = 2 - min(b.level for b in mine)
    out = [
        f"# {title}",
        "",
        "<!-- Generated from README.md by docs/readme_guides.py: edit the README. -->",
        "",
    ]
    for block in mine:
        out.append(f"{'#' * (block.level + shift)} {block.title}")
        out.extend(_rewrite_links(line, where, page) for line in block.lines)
    return "\n".join(out).rstrip() + "\n"


def intro(blocks: list[Block]) -> str:
    """The README's opening paragraphs (under its title), for the site's front page."""
    where = {b.slug: b.page for b in blocks if b.level >= 2}
    lines = [line for b in blocks if b.level <= 1 for line in b.lines]
    return "\n".join(_rewrite_links(line, where, "index") for line in lines).strip() + "\n"


def guide_pages(readme: Path = README) -> dict[str, str]:
    """Every page name (``index`` for the front page's opening) and its Markdown."""
    blocks = split_blocks(readme.read_text())
    assign(blocks)
    pages = {"index": intro(blocks)}
    for page, title, _ in [*GUIDES, (*OTHER, [])]:
        text = render(blocks, page, title)
        if text:
            pages[page] = text
    return pages


def assigned_blocks(readme: Path = README) -> list[Block]:
    """The README's blocks, each with its page set."""
    blocks = split_blocks(readme.read_text())
    assign(blocks)
    return blocks

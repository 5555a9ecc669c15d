"""The README's and the guides' text, read by the tests that run what they show as written.

A doc is named by its path in the course (``README.md``, ``docs/guides/hub.md``).
:func:`section` cuts the text under one heading or bold lead, :func:`commands` the lines of
the first code block after some text, :func:`command` the one line that begins a certain way;
each drops the comment a line ends with (two spaces, then ``#``); :func:`inline` a command in
backticks within the prose.

But: it runs nothing; the tests that use it do, exactly as the lines read.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def text(doc: str) -> str:
    """The whole of one doc."""
    return (REPO / doc).read_text()


def _uncommented(line: str) -> str:
    return line.split("  #")[0].strip()


def section(doc: str, title: str) -> str:
    """The doc's text from ``title`` to the next heading (## or ###)."""
    whole = text(doc)
    assert title in whole, f"{doc} no longer holds {title!r}"
    start = whole.index(title)
    found = re.compile(r"\n#{2,3} ").search(whole, start + len(title))
    return whole[start : found.start() if found else None]


def commands(doc: str, after: str) -> list[str]:
    """The lines of the doc's first code block after the text ``after``, comments dropped.

    >>> commands("docs/guides/grading.md", "**More than one machine.**")[0]
    'make scheduler'
    """
    block = re.search(re.escape(after) + r".*?```\n(.*?)```", text(doc), re.DOTALL)
    assert block, f"{doc} has no code block after {after!r}"
    return [_uncommented(line) for line in block.group(1).splitlines() if line.strip()]


def command(doc: str, start: str) -> str:
    """The doc's command line that begins with ``start``, its comment dropped."""
    for line in text(doc).splitlines():
        if line.strip().startswith(start):
            return _uncommented(line)
    raise AssertionError(f"{doc} shows no command starting {start!r}")


def inline(doc: str, start: str) -> str:
    """The doc's first command in backticks within its prose that begins with ``start``.

    >>> inline("docs/guides/hub.md", "make hub HUB_IP=")
    'make hub HUB_IP=0.0.0.0'
    """
    found = re.search("`(" + re.escape(start) + "[^`]*)`", text(doc))
    assert found, f"{doc} shows no `{start}…` in its text"
    return found.group(1)

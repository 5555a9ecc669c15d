"""Show tokens so that their boundaries and spaces can be seen.

A space at the start of a token is the most important character in GPT-style BPE and the
easiest to miss, so it is drawn as ␣. Nothing here changes a token; it only renders it.

>>> visible(" the cat")
'␣the␣cat'
>>> show_tokens([" storm", "i", "er"])
'␣storm|i|er'
"""

from __future__ import annotations

from collections.abc import Iterable

SPACE = "\u2423"  # ␣, OPEN BOX


def visible(text: str) -> str:
    """``text`` with each space drawn as ␣ and newlines and tabs as escapes."""
    return text.replace(" ", SPACE).replace("\n", "\\n").replace("\t", "\\t")


def show_tokens(tokens: Iterable[str], sep: str = "|") -> str:
    """Tokens joined by ``sep``, each drawn with :func:`visible`."""
    return sep.join(visible(token) for token in tokens)


def show_pair(pair: tuple[str, str]) -> str:
    """A merge as the lesson writes it: ``(e, a)`` becomes ``'e a'``."""
    return f"{visible(pair[0])} {visible(pair[1])}"

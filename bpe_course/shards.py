"""Stream a large text file, or many, as pieces that pre-tokenize exactly like the whole.

:func:`read_pieces` reads UTF-8 files block by block and hands out ``str`` pieces of about
``piece_bytes`` each. A piece ends only where a non-space character is followed by a
whitespace character: a GPT-2 chunk always ends there, and the pattern never looks back, so
pre-tokenizing the pieces one by one gives exactly the chunks of the whole text. A cut never
falls inside a word or inside a multi-byte character. Several files (or a folder's ``.txt``
files, sorted) are read as one text joined by newlines, as ``load_text`` joins them. Only one
piece and one block are held at a time, and a progress bar can count the bytes read.
:func:`plan_shards` cuts the same text into shards of many pieces, as byte ranges of the
files, so that workers elsewhere (``bpe_course.dask_counting``) read their own shard with
:func:`read_segments`; the shards in turn are the text again, cut where chunks end.
:func:`split_segments` cuts the text in two at a space, as byte ranges too, so that the
training part and the held-out part of the overfitting curve are counted the same way.

But: it neither pre-tokenizes nor counts (``bpe_course.parallel`` does), and a stretch of text
with no whitespace in it (one enormous word) stays whole, however long it is.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "a.txt").write_text("one two  three\\nfour", encoding="utf-8")
>>> list(read_pieces(folder / "a.txt", piece_bytes=5, progress=False))
['one', ' two', '  three', '\\nfour']
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from tqdm.auto import tqdm

from bpe_course.pretokenize import LAST_CUT, NEXT_CUT
from bpe_course.progress import progress_bar

PIECE_BYTES = 1 << 20  # about a megabyte per piece


def text_files(paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]]) -> list[Path]:
    """The files to read, in order: a file, a folder's ``.txt`` files sorted, or a list.

    Raises FileNotFoundError naming a path that does not exist or a folder with no ``.txt``.
    """
    given = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    files: list[Path] = []
    for entry in given:
        path = Path(entry).expanduser()
        if path.is_dir():
            found = sorted(p for p in path.rglob("*.txt") if not p.is_dir())
            if not found:
                raise FileNotFoundError(
                    f"{path} is a folder with no .txt files in it; give a .txt file, or a "
                    "folder holding some (other files are not read)"
                )
            files += found
        elif path.exists():
            files.append(path)
        else:
            raise FileNotFoundError(
                f"{path} does not exist; give the path of a text file or a folder"
            )
    if not files:
        raise FileNotFoundError("no file to read: give a text file, a folder or a list of files")
    return files


def total_bytes(files: Sequence[Path]) -> int:
    """The size of the text ``read_pieces`` yields: the files and one newline between each."""
    size = max(len(files) - 1, 0)
    for file in files:
        try:
            size += file.stat().st_size
        except OSError as error:
            raise OSError(f"cannot read {file}: {error.strerror or error}") from None
    return size


def _blocks(
    files: Sequence[Path], block_bytes: int, bar: tqdm, start: int = 0, end: int | None = None
) -> Iterator[str]:
    """The decoded text of ``files`` in blocks, a newline between files; errors name the file.
    ``start`` and ``end`` (bytes, at character boundaries) bound the reading of each file."""
    for number, file in enumerate(files):
        if number:
            bar.update(1)
            yield "\n"
        decoder = codecs.getincrementaldecoder("utf-8")()
        offset = start
        try:
            with open(file, "rb") as stream:
                stream.seek(start)
                while True:
                    wanted = block_bytes if end is None else min(block_bytes, end - offset)
                    block = stream.read(max(wanted, 0))
                    yield decoder.decode(block, final=not block)
                    bar.update(len(block))
                    if not block:
                        break
                    offset += len(block)
        except UnicodeDecodeError as error:
            at = max(offset + error.start - len(error.object) + len(block), 0)
            raise ValueError(
                f"{file} is not UTF-8 text (byte {at} cannot be decoded); "
                "save it as UTF-8 or leave it out"
            ) from None
        except OSError as error:
            raise OSError(f"cannot read {file}: {error.strerror or error}") from None


def read_pieces(
    paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    piece_bytes: int = PIECE_BYTES,
    progress: bool = True,
    block_bytes: int | None = None,
) -> Iterator[str]:
    """The text of ``paths`` as pieces of about ``piece_bytes``, each cut where a chunk ends.

    Joining the pieces gives the text back. ``block_bytes`` (default: ``piece_bytes``) is how
    much is read at a time; a multi-byte character split between two blocks is put back
    together before any cut is looked for. Raises ValueError naming a file that is not UTF-8
    and OSError naming one that cannot be read.
    """
    if piece_bytes < 1:
        raise ValueError(f"piece_bytes must be 1 or more, got {piece_bytes}")
    files = text_files(paths)
    with progress_bar(total_bytes(files), "reading", "B", enabled=progress, unit_scale=True) as bar:
        yield from cut_pieces(_blocks(files, block_bytes or piece_bytes, bar), piece_bytes)


def cut_pieces(blocks: Iterable[str], piece_bytes: int) -> Iterator[str]:
    """The text of ``blocks`` again, as pieces of at least ``piece_bytes`` characters (the
    last may be shorter), each ending where a chunk ends."""
    pending = ""
    for block in blocks:
        pending += block
        if len(pending) < piece_bytes:
            continue
        found = LAST_CUT.search(pending)
        if found is None:
            continue  # no place to cut yet: read on
        cut = found.start() + 1
        yield pending[:cut]
        pending = pending[cut:]
    if pending:
        yield pending


# A stretch of a file: its path, the first byte and the byte after the last.
Segment = tuple[str, int, int]


def plan_shards(files: Sequence[Path], shard_bytes: int) -> list[list[Segment]]:
    """The text of ``files`` cut into shards of about ``shard_bytes``, each cut where a chunk
    ends, as lists of segments; a shard's segments are read with a newline between them,
    so the shards in turn are exactly ``read_pieces``'s text. Reads a few bytes at each cut.
    """
    return plan_segment_shards(whole_files(files), shard_bytes)


def whole_files(files: Sequence[Path]) -> list[Segment]:
    """Each file as one segment, from its first byte to its end."""
    return [(str(file), 0, size) for file, size in zip(files, _sizes(files))]


def plan_segment_shards(segments: Sequence[Segment], shard_bytes: int) -> list[list[Segment]]:
    """``plan_shards`` for a text given as segments read with a newline between them (the
    training or held-out part of ``split_segments``, say)."""
    if shard_bytes < 1:
        raise ValueError(f"shard_bytes must be 1 or more, got {shard_bytes}")
    shards: list[list[Segment]] = []
    current: list[Segment] = []
    room = shard_bytes  # bytes the current shard may still take
    for name, start, end in segments:
        while end - start > room:
            cut = _chunk_end_after(Path(name), start + max(room, 0))
            if cut is None or cut >= end:
                break  # no cut before the end: the rest of the segment joins this shard
            current.append((name, start, cut))
            shards.append(current)
            current, room, start = [], shard_bytes, cut
        current.append((name, start, end))
        # and the newline before the next segment: a shard never ends at a segment's end,
        # where the newline may belong to a chunk with the whitespace before or after it
        room -= end - start + 1
    if current:
        shards.append(current)
    return shards


def segment_bytes(segments: Sequence[Segment]) -> int:
    """The size of the text of ``segments``: theirs and one newline between each."""
    return sum(end - start for _, start, end in segments) + max(len(segments) - 1, 0)


def split_segments(
    files: Sequence[Path], train_fraction: float
) -> tuple[list[Segment], list[Segment]]:
    """The text of ``files`` cut in two, as segments: up to the first space at or after
    ``train_fraction`` of its bytes, and from that space on (the held-out part starts with
    it, as ``split_train_heldout`` cuts a str). With no space that far on, all of the text
    is the first part and the second is empty. Reads only from the cut to that space.
    """
    whole = whole_files(files)
    target = int(segment_bytes(whole) * train_fraction)
    position = 0  # where the current file starts in the joined text
    for number, (name, _, size) in enumerate(whole):
        if target <= position + size:
            space = _space_at_or_after(Path(name), max(target - position, 0))
            if space is not None:
                training = whole[:number] + [(name, 0, space)]
                return training, [(name, space, size)] + whole[number + 1 :]
        position += size + 1  # the file and the newline after it
    return whole, []


def _space_at_or_after(file: Path, offset: int, window: int = 1 << 20) -> int | None:
    """The byte offset of the first space (byte 0x20, never part of another UTF-8
    character) at or after ``offset`` in ``file``, or None if there is none."""
    try:
        with open(file, "rb") as stream:
            stream.seek(offset)
            while block := stream.read(window):
                found = block.find(b" ")
                if found >= 0:
                    return offset + found
                offset += len(block)
    except OSError as error:
        raise OSError(f"cannot read {file}: {error.strerror or error}") from None
    return None


def _sizes(files: Sequence[Path]) -> list[int]:
    sizes = []
    for file in files:
        try:
            sizes.append(file.stat().st_size)
        except OSError as error:
            raise OSError(f"cannot read {file}: {error.strerror or error}") from None
    return sizes


def _chunk_end_after(file: Path, offset: int, window: int = 1 << 16) -> int | None:
    """The first byte offset at or after ``offset`` where a chunk ends (a non-space character
    followed by whitespace), or None if there is none before the end of the file."""
    with open(file, "rb") as stream:
        stream.seek(offset)
        data = b""
        while True:
            block = stream.read(window)
            data += block
            start = 0
            while start < min(len(data), 4) and 0x80 <= data[start] < 0xC0:
                start += 1  # inside a character: begin at the next one
            text = data[start:].decode("utf-8", "ignore")  # a cut-off last character is dropped
            found = NEXT_CUT.search(text)
            if found is not None:
                return offset + start + len(text[: found.start() + 1].encode("utf-8"))
            if not block:
                return None


def read_segments(
    segments: Sequence[Segment], piece_bytes: int = PIECE_BYTES, block_bytes: int = 1 << 20
) -> Iterator[str]:
    """The text of a shard (``plan_shards``) as pieces that each end where a chunk ends.

    Raises ValueError naming a file that is not UTF-8 and OSError naming one that cannot be
    read.
    """
    bar = tqdm(disable=True)  # _blocks counts bytes on a bar; no one watches this one
    return cut_pieces(_segment_blocks(segments, block_bytes, bar), piece_bytes)


def _segment_blocks(segments: Sequence[Segment], block_bytes: int, bar: tqdm) -> Iterator[str]:
    for number, (name, start, end) in enumerate(segments):
        if number:
            yield "\n"
        yield from _blocks([Path(name)], block_bytes, bar, start, end)

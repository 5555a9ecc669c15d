"""What a student's kernel put into a code cell, made well-formed under nbformat's own schema.

A cell can send iopub messages of its own with its own parent, and nbclient copies what they
hold into the notebook: an execution count that is a string, a MIME bundle that is a list, a
stream named ``<script>``, a traceback that is not a list, metadata nested a thousand deep,
text holding a lone surrogate that UTF-8 cannot write.
nbconvert or nbgrader would then refuse the whole notebook. ``well_formed_cell`` checks a
code cell against nbformat's schema (``nbformat.validator``) and, where it fails, rebuilds
each output from the fields the schema knows, dropping what cannot be repaired; it returns
what it changed, in words that never repeat the student's own text, and ``note_output`` is the
short note the cell then shows. ``well_formed_metadata`` bounds a notebook's metadata the same
way (a widget state is the kernel's too).

>>> from nbformat.v4 import new_code_cell
>>> cell = new_code_cell("forge()")
>>> cell.execution_count = "<b>x</b>"
>>> cell.outputs = [{"output_type": "stream", "name": "<script>", "text": "hi"}]
>>> well_formed_cell(cell)
['the cell: execution_count', 'stream: name']
>>> cell.execution_count, cell.outputs[0]["name"]
(None, 'stdout')

But: it judges nothing and keeps every well-formed output as it is (``PlainOutputs`` and
``MarkupAsText`` decide later what of it may be shown); a message nbclient could not read at
all is ``guarded_execute``'s to drop.
"""

from __future__ import annotations

import json
import re
from typing import Any

from nbformat.notebooknode import NotebookNode, from_dict
from nbformat.validator import isvalid

OUTPUT_TYPES = ("execute_result", "display_data", "stream", "error")
STREAM_NAMES = ("stdout", "stderr")
MAX_COUNT = 2**31 - 1  # beyond this a count is no prompt number anyone typed
MAX_DEPTH = 32  # nesting of metadata or JSON data; nbconvert copies it recursively
MAX_METADATA_BYTES = 100_000
JSON_MIME = re.compile(r"^application/(.*\+)?json$")  # the schema's: any JSON value
NOTE = "[grader] "  # starts the note a repaired cell shows


def _valid(node: Any, ref: str) -> bool:
    try:
        return isvalid(node, ref=ref, version=4, version_minor=5)
    except Exception:  # a value no JSON schema can read (a set, an object) is not valid
        return False


def _course_rules(output: Any) -> bool:
    """What the course asks beyond the schema: a stream is stdout or stderr (its name
    becomes a class name in HTML), a result's count is a plausible prompt number."""
    kind = output.get("output_type")
    if kind == "stream":
        return output.get("name") in STREAM_NAMES
    return kind != "execute_result" or not _count(output.get("execution_count"))[1]


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` nests dicts or lists more than ``limit`` deep, found without
    recursion (the value may be nested deeper than Python's recursion limit).

    >>> too_deep({"a": [1]}, 2), too_deep({"a": [[1]]}, 2)
    (False, True)
    """
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(item, dict):
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend((child, depth + 1) for child in item)
    return False


def _bounded(value: Any, limit: int = MAX_METADATA_BYTES) -> bool:
    """Whether ``value`` is plain JSON, shallow and small enough to keep."""
    if too_deep(value):
        return False
    try:
        return len(json.dumps(value)) <= limit
    except (TypeError, ValueError, RecursionError):
        return False


def _encodable(value: Any) -> bool:
    """Whether ``value`` can be written as UTF-8 JSON (a lone surrogate, which a kernel's
    JSON may carry as an escape, cannot: nbformat's writer then fails)."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except (TypeError, ValueError, RecursionError):
        return False
    return True


def _as_utf8(output: dict[str, Any]) -> dict[str, Any] | None:
    """``output`` with each character UTF-8 cannot hold replaced by "?"; None if it is not
    JSON at all."""
    try:
        text = json.dumps(output, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return None
    return dict(json.loads(text.encode("utf-8", "replace").decode("utf-8")))


def _count(value: Any) -> tuple[int | None, bool]:
    """An execution count as the schema wants it (a whole number from 0, or none), and
    whether it had to change."""
    if value is None or (type(value) is int and 0 <= value <= MAX_COUNT):
        return value, False
    return None, True


def _text(value: Any) -> tuple[str, bool]:
    """A multiline string as one string, and whether it had to change."""
    if isinstance(value, str):
        return value, False
    if isinstance(value, list) and all(isinstance(line, str) for line in value):
        return "".join(value), False
    return "", True


def _bundle(data: Any) -> tuple[dict[str, Any], list[str]]:
    """A MIME bundle with every value the schema refuses dropped, and what was dropped."""
    if not isinstance(data, dict):
        return {}, ["data"]
    kept: dict[str, Any] = {}
    for mime, value in data.items():
        if not isinstance(mime, str):
            continue
        if JSON_MIME.match(mime):
            if _bounded(value):
                kept[mime] = value
            continue
        if not _text(value)[1]:
            kept[mime] = value
    dropped = len(kept) < len(data)
    return kept, ["data"] if dropped else []


def _rebuilt(output: dict[str, Any]) -> tuple[dict[str, Any] | None, list[str]]:
    """``output`` rebuilt from the fields its type has, each made well-formed; None when its
    type is none of nbformat's."""
    kind = output.get("output_type")
    if kind not in OUTPUT_TYPES:
        return None, ["an output of no known type, dropped"]
    fixed: list[str] = []
    new: dict[str, Any] = {"output_type": kind}
    if kind in ("execute_result", "display_data"):
        new["data"], dropped = _bundle(output.get("data"))
        fixed += dropped
        metadata = output.get("metadata")
        new["metadata"] = metadata if isinstance(metadata, dict) and _bounded(metadata) else {}
        if new["metadata"] is not metadata:
            fixed.append("metadata")
    if kind == "execute_result":
        new["execution_count"], changed = _count(output.get("execution_count"))
        fixed += ["execution_count"] if changed else []
    if kind == "stream":
        name = output.get("name")
        new["name"] = name if name in STREAM_NAMES else "stdout"
        new["text"], changed = _text(output.get("text"))
        fixed += (["name"] if name not in STREAM_NAMES else []) + (["text"] if changed else [])
    if kind == "error":
        for field in ("ename", "evalue"):
            value = output.get(field)
            new[field] = value if isinstance(value, str) else ""
            fixed += [] if isinstance(value, str) else [field]
        lines = output.get("traceback")
        good = isinstance(lines, list) and all(isinstance(line, str) for line in lines)
        new["traceback"] = lines if good else []
        fixed += [] if good else ["traceback"]
    return new, [f"{kind}: {field}" for field in fixed] or [f"{kind}: an unknown field"]


def well_formed_output(output: Any) -> tuple[NotebookNode | None, list[str]]:
    """``output`` if nbformat's schema takes it as it is, else rebuilt well-formed, else
    None; with what changed, in words.

    >>> well_formed_output({"output_type": "display_data", "data": [1], "metadata": {}})
    ({'output_type': 'display_data', 'data': {}, 'metadata': {}}, ['display_data: data'])
    """
    if not isinstance(output, dict):
        return None, ["an output that is not an object, dropped"]
    if too_deep(output):
        new, changed = _rebuilt(output)
    elif not _encodable(output):
        new, changed = _as_utf8(output), [f"{output.get('output_type')}: text not UTF-8"[:60]]
        if new is not None and not (_valid(new, "output") and _course_rules(new)):
            new, more = _rebuilt(new)
            changed += more
    elif _valid(output, "output") and _course_rules(output):
        return (output if isinstance(output, NotebookNode) else from_dict(output)), []
    else:
        new, changed = _rebuilt(output)
    if new is None or not _valid(new, "output"):
        return None, changed
    return from_dict(new), changed


def well_formed_cell(cell: NotebookNode) -> list[str]:
    """Make the code cell ``cell`` well-formed in place; return what changed (empty when it
    already was), each as ``<where>: <field>``."""
    changed: list[str] = []
    count, bad = _count(cell.get("execution_count"))
    if bad:
        cell["execution_count"] = count
        changed.append("the cell: execution_count")
    outputs = cell.get("outputs")
    if not isinstance(outputs, list):
        outputs = []
        changed.append("the cell: outputs")
    fine = all(isinstance(o, dict) and _course_rules(o) for o in outputs)
    if fine and not too_deep(outputs) and _valid(cell, "code_cell") and _encodable(outputs):
        return changed
    kept = []
    for output in outputs:
        new, what = well_formed_output(output)
        changed += what
        if new is not None:
            kept.append(new)
    cell["outputs"] = kept
    if not _valid(cell, "code_cell"):  # what the kernel wrote into the cell's metadata
        timing = cell.get("metadata", {}).pop("execution", None)
        changed += ["the cell: metadata"] if timing is not None else []
    if not _valid(cell, "code_cell"):  # nothing else a kernel reaches: keep no output at all
        cell["outputs"] = []
        changed.append("the cell: every output, dropped")
    return changed


def well_formed_metadata(metadata: NotebookNode) -> list[str]:
    """Drop each top-level entry of a notebook's metadata that is nested too deep or too
    large to copy (a widget state a kernel sent); return what was dropped."""
    dropped = [key for key, value in metadata.items() if not _bounded(value, 10 * 2**20)]
    for key in dropped:
        del metadata[key]
    return [f"notebook metadata: {len(dropped)} entries"] if dropped else []


def note_output(changed: list[str]) -> NotebookNode:
    """The note a repaired cell shows: what the grader changed in its outputs, and that a
    person will look.

    >>> note = note_output(["stream: name"]).text
    >>> note.startswith(NOTE), "(stream: name)" in note
    (True, True)
    """
    what = "; ".join(dict.fromkeys(changed))
    text = (
        f"{NOTE}output this cell's kernel sent was not well-formed and was repaired or "
        f"dropped ({what[:300]}); a person will check this notebook.\n"
    )
    return from_dict({"output_type": "stream", "name": "stderr", "text": text})

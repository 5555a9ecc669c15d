"""The judge's reading of its child's result lines, which an answer that finds the pipe may
write too (``judge_answers._read_lines``): lines split across reads are read whole, and a
line with no end is never read.

But: how long reading takes is not timed here; no sandbox and no answer run here
(tests/test_sandbox_attacks.py forges lines from inside the sandbox).
"""

from __future__ import annotations

import subprocess
import sys
import time

from autograder.sandbox import judge_answers

# Result lines as a child writes them, or as an answer that found the pipe does: a long line
# in pieces, then a megabyte of junk on a line of its own, a line sent 20 bytes at a time, and
# in one write the end of a line begun 20 bytes at a time, a whole line and a last line with
# no end. The parent reads up to 64 KiB at a time.
LINES_IN_PIECES = r"""
import json, sys, time
out = sys.stdout.buffer
def line(index, outcome):
    return json.dumps({"name": "x", "group": "g", "index": index, "outcome": outcome}).encode()
def in_pieces(data, size):
    for at in range(0, len(data), size):
        out.write(data[at : at + size]); out.flush(); time.sleep(0.01)
in_pieces(line(0, "y" * 300_000) + b"\n" + b"z" * 2**20, 70_000)
in_pieces(b"\n" + line(1, "a") + b"\n" + line(2, "b")[:5], 20)
out.write(line(2, "b")[5:] + b"\n" + line(3, "c") + b"\n" + line(4, "never ended"))
"""


def test_lines_split_across_reads_are_read_whole_and_an_unended_one_not_at_all() -> None:
    with subprocess.Popen(
        [sys.executable, "-c", LINES_IN_PIECES], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    ) as child:
        try:
            lines, timed_out = judge_answers._read_lines(
                child, b"{}", [], 30, time.monotonic() + 30
            )
        finally:
            child.kill()
    assert not timed_out
    assert [(line["index"], line["outcome"][:3], len(line["outcome"])) for line in lines] == [
        (0, "yyy", 300_000),
        (1, "a", 1),
        (2, "b", 1),
        (3, "c", 1),
    ]

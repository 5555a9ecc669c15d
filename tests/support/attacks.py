"""Pieces of hostile answer code that several attack tests put into a submission.

``FORK_LOOP`` forks up to 400 children that sleep 2 s each and leaves in ``forked`` how many
it made (400 unless something stopped it). ``SEND_EVERYWHERE`` defines ``send(line)``, which
writes one JSON line to every file descriptor from 1 to 39, wherever the judge's results
channel is. ``FORGED_RESULT`` sends an iopub message of its own from the grading kernel, whose
execution count is a string.

But: they only run where a test puts them; nothing here starts them.
"""

FORK_LOOP = """
import os, time
forked = 0
try:
    while forked < 400:
        if os.fork() == 0:
            time.sleep(2)
            os._exit(0)
        forked += 1
except OSError:
    pass
"""

SEND_EVERYWHERE = """
import json, os
def send(line):
    data = (line if isinstance(line, bytes) else json.dumps(line).encode()) + b"\\n"
    for fd in range(1, 40):
        try:
            os.write(fd, data)
        except OSError:
            pass
"""

# Sends an execute_result of its own, with the running cell's parent and a count that is
# markup, not a number: nbclient copies the count into the cell.
FORGED_RESULT = """
_k = get_ipython().kernel
_k.session.send(
    _k.iopub_socket,
    "execute_result",
    {"data": {"text/plain": "1"}, "metadata": {}, "execution_count": "<b>x</b>"},
    parent=_k.get_parent(),
)
"""

"""Grading a class: one submission with nbgrader, the worker pool, the gradebook rows.

Every grading process (the command, each Dask worker) imports nbformat, and with it jsonschema,
whose checker of the "iri" format imports ``rfc3987_syntax``, which builds some 35 Earley
parsers as it loads: about a second a process (python-jsonschema/jsonschema#1428). No
notebook schema uses that format, so grading processes leave the module out; jsonschema skips
an uninstalled checker.

But: only processes that import this package; nbgrader's own commands (feedback, export) still
pay the second.
"""

import sys

sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]

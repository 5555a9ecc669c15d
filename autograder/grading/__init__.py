"""Grading a class: one submission with nbgrader, the worker pool, the gradebook rows.

A grading process leaves out ``rfc3987_syntax``: jsonschema's checker of the "iri" format,
which no notebook schema uses, imports it and it builds some 35 parsers as it loads, about a
second a process (python-jsonschema/jsonschema#1428); jsonschema skips a missing checker.

But: only in processes that import this package, not nbgrader's own commands.
"""

import sys

sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]

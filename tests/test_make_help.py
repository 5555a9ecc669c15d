"""``make help`` lists every documented target once, under the group of who uses it."""

from __future__ import annotations

import re
import subprocess

from tests.conftest import ROOT


def test_make_help_lists_every_target_once_in_a_named_group() -> None:
    makefile = (ROOT / "Makefile").read_text()
    documented = re.findall(r"^([a-zA-Z_-]+):.*?## ", makefile, re.MULTILINE)
    grouped = re.search(r"^HELP_GROUPS := (.*?)\n\n", makefile, re.MULTILINE | re.DOTALL)
    assert grouped, "the Makefile names make help's groups"
    in_groups = re.findall(r"[:,]([a-zA-Z_-]+)", grouped.group(1).replace("\\\n", " "))
    assert sorted(set(in_groups) - set(documented)) == [], "a group names no such target"
    shown = subprocess.run(
        ["make", "--no-print-directory", "help"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    listed = re.findall(r"^  make (\S+)", shown, re.MULTILINE)
    assert sorted(listed) == sorted(documented), "every target once"
    headings = re.findall(r"^(\w+):$", shown, re.MULTILINE)
    assert headings == ["Students", "Instructors", "Developers"], shown  # no "Other"

"""nbgrader's submit, whose entry in the exchange's inbound no other account can ever write.

nbgrader 0.9's submit leaves each entry mode 0777 ("so the instructor can delete later"): in an
inbound every student may write to, a classmate who learned the entry's name could remove,
rename or add files in it. Here nbgrader's own submit builds the entry in a folder of the
student's alone (mode 0700, made inside inbound, so on the same file system, and named with no
``+``, so collect never reads it as an entry); the entry is made 0755 there, its files 0644 as
nbgrader leaves them, and only then renamed into inbound. So no other account (the
instructor's, who only reads, included) can ever write to it, and with inbound's sticky bit
(``hub.layout``) no other account can rename or remove it either. Collect refuses an entry
that other accounts can write (``owned_collect``).

Used by every ``nbgrader submit`` of the course and the Assignment List's Submit button, from
``nbgrader_config.py`` and, on a hub, from every account's settings (``hub.layout`` copies
this file where the students' servers import it)::

    c.ExchangeFactory.submit = "autograder.plugins.private_submit.PrivateSubmit"

But: it imports nbgrader and the standard library only (the hub runs this file alone); the
student still owns the entry and may change it until it is collected, as with nbgrader's.
"""

from __future__ import annotations

import os
import shutil
import tempfile

from nbgrader.exchange.default.submit import ExchangeSubmit

ENTRY_MODE = 0o755  # the student writes; everyone reads (the instructor collects it)


class PrivateSubmit(ExchangeSubmit):
    """``nbgrader submit`` whose entry is never writable by another account."""

    def copy_files(self) -> None:
        inbound = self.inbound_path
        # mkdtemp: mode 0700, a name no one can take first; inbound is searchable, not listable.
        private = tempfile.mkdtemp(prefix=".submitting-", dir=inbound)
        try:
            self.inbound_path = private
            super().copy_files()
            entry = os.path.join(private, self.assignment_filename)
            os.chmod(entry, ENTRY_MODE)
            os.rename(entry, os.path.join(inbound, self.assignment_filename))
        finally:
            self.inbound_path = inbound
            shutil.rmtree(private, ignore_errors=True)

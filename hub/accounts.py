"""The class's Unix accounts: one instructor and N students, each with a home only they can read.

    python -m hub.accounts list --prefix bpe-
    python -m hub.accounts remove --prefix bpe-      # asks; --yes skips the question
    python -m hub.take_down                          # asks, exports the grades, removes the class

Every name is one prefix and a role (``bpe-instructor``, ``bpe-student1`` …, exactly), so a
class is easy to recognise and to remove whole, and a class ``bpe-b-`` is not part of ``bpe-``.
Passwords are random, made once and kept in a file only root can read; a second ``make hub``
keeps the accounts, their homes and their passwords.

>>> class_names("bpe-", 2)
('bpe-instructor', ['bpe-student1', 'bpe-student2'])
>>> default_full_name("bpe-", "bpe-student2"), split_name("Ada King Lovelace")
('Student 2', ('Ada King', 'Lovelace'))

But: it needs root and the shadow tools (useradd, chpasswd, userdel); it lays out no course
files (``hub.layout`` does) and starts nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pwd
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

INSTRUCTOR = "instructor"
STUDENT = "student"


def class_names(prefix: str, students: int) -> tuple[str, list[str]]:
    """The instructor's and the students' account names."""
    return f"{prefix}{INSTRUCTOR}", [f"{prefix}{STUDENT}{k}" for k in range(1, students + 1)]


def default_full_name(prefix: str, name: str) -> str:
    """The full name a new account gets (its GECOS field), until a roster gives a real one."""
    role = name.removeprefix(prefix)
    if role.startswith(STUDENT) and role[len(STUDENT) :].isdigit():
        return f"Student {role[len(STUDENT) :]}"
    return role.capitalize()


def full_name(name: str) -> str:
    """The account's full name (the GECOS field's first part), as printable text, or ''."""
    try:
        gecos = pwd.getpwnam(name).pw_gecos.split(",")[0]
    except KeyError:
        return ""
    return "".join(ch for ch in gecos if ch.isprintable()).strip()[:64]


def split_name(full: str) -> tuple[str, str]:
    """First and last name: the last word is the last name."""
    first, _, last = full.strip().rpartition(" ")
    return first, last


def exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


def ensure_account(name: str, homes: Path | None = None, full: str = "") -> Path:
    """Make the account (with its own group, a home only it can open and ``full`` as its
    full name) unless it exists; return its home. ``homes`` puts the home under that folder
    instead of /home."""
    if not exists(name):
        command = ["useradd", "--create-home", "--user-group", "--shell", "/bin/bash"]
        if full:
            command += ["--comment", full]
        if homes is not None:
            command += ["--home-dir", str(homes / name)]
        subprocess.run([*command, name], check=True)
    home = Path(pwd.getpwnam(name).pw_dir)
    home.chmod(0o700)  # whatever useradd's default: no one else reads a student's work
    return home


def ensure_passwords(names: list[str], record: Path) -> dict[str, str]:
    """Each account's password, made for the accounts that have none in ``record`` (a JSON
    file only root can read) and set with chpasswd."""
    known = json.loads(record.read_text()) if record.exists() else {}
    new = {name: secrets.token_urlsafe(9) for name in names if name not in known}
    if new:
        lines = "".join(f"{name}:{password}\n" for name, password in new.items())
        subprocess.run(["chpasswd"], input=lines, text=True, check=True)
        known.update(new)
        record.touch(mode=0o600)
        record.write_text(json.dumps(known, indent=1))
    return {name: known[name] for name in names}


def accounts_with_prefix(prefix: str) -> list[pwd.struct_passwd]:
    """Every account whose name starts with ``prefix``, a class's or not (``bpe-`` also
    matches ``bpe-b-student1`` of a class ``bpe-b-``): for tests' throwaway accounts."""
    return [entry for entry in pwd.getpwall() if entry.pw_name.startswith(prefix)]


def is_class_account(prefix: str, name: str) -> bool:
    """Whether ``name`` is one of the class ``prefix``'s: its instructor or a numbered student.

    >>> [is_class_account("bpe-", name) for name in ("bpe-student12", "bpe-b-student1")]
    [True, False]
    """
    role = name.removeprefix(prefix)
    if role == name or not prefix:
        return False
    number = role.removeprefix(STUDENT)
    return role == INSTRUCTOR or (number != role and number.isascii() and number.isdigit())


def class_accounts(prefix: str) -> list[pwd.struct_passwd]:
    """The class's accounts: exactly ``<prefix>instructor`` and ``<prefix>student<digits>``."""
    return [entry for entry in pwd.getpwall() if is_class_account(prefix, entry.pw_name)]


def processes_of(uids: set[int]) -> list[int]:
    """The ids of running processes whose real user is one of ``uids``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:  # it ended while we looked
            continue
        for line in status.splitlines():
            if line.startswith("Uid:") and int(line.split()[1]) in uids:
                found.append(int(entry.name))
    return found


def stop_processes(uids: set[int], grace: float = 5.0) -> list[int]:
    """End every process of these users, by id: SIGTERM, then SIGKILL after ``grace`` s.
    Returns the ids that were running."""
    running = processes_of(uids)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in processes_of(uids):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + grace
        while processes_of(uids) and time.monotonic() < deadline:
            time.sleep(0.1)
    return running


def remove_accounts(prefix: str) -> list[str]:
    """Stop every process of the accounts whose names start with ``prefix`` and delete them
    with their homes (tests' throwaway accounts; a class's are ``remove_class_accounts``)."""
    if not prefix:
        raise ValueError("an empty prefix would name every account on the machine")
    return remove_entries(accounts_with_prefix(prefix))


def remove_class_accounts(prefix: str) -> list[str]:
    """Stop every process of the class's accounts (``class_accounts``) and delete them with
    their homes; another class's, whose prefix merely starts the same, stay."""
    if not prefix:
        raise ValueError("an empty prefix would name every account on the machine")
    return remove_entries(class_accounts(prefix))


def remove_entries(entries: list[pwd.struct_passwd]) -> list[str]:
    """Stop every process of these accounts and delete them with their homes."""
    stop_processes({entry.pw_uid for entry in entries})
    for entry in entries:
        subprocess.run(["userdel", "--remove", entry.pw_name], check=False, capture_output=True)
    return [entry.pw_name for entry in entries]


def answered_yes() -> bool:
    try:
        return input("type 'delete the class' to go on: ").strip() == "delete the class"
    except EOFError:  # the input ended before an answer
        return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("action", choices=["list", "remove"])
    parser.add_argument("--prefix", default="bpe-", help="the class's account prefix")
    parser.add_argument("--yes", action="store_true", help="remove without asking")
    args = parser.parse_args(argv)
    names = [entry.pw_name for entry in class_accounts(args.prefix)]
    if args.action == "list" or not names:
        print("\n".join(names) if names else f"the class {args.prefix!r} has no account")
        return 0
    print("this deletes these accounts and everything in their homes (students' work):")
    print("".join(f"  {name}\n" for name in names), end="")
    if not args.yes and not sys.stdin.isatty():
        print("no terminal to ask: kept everything (add --yes to remove without asking)")
        return 1
    if not args.yes and not answered_yes():
        print("kept everything")
        return 1
    print("deleted:", " ".join(remove_class_accounts(args.prefix)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

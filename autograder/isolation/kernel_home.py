"""Give one student's grading kernels a home folder of their own, deleted afterwards.

``student_home`` makes a fresh folder with an IPython profile that keeps no history, and
gives the environment that points a kernel's ``HOME``, ``IPYTHONDIR``, the ``JUPYTER_*`` and
``XDG_*`` folders and ``MPLCONFIGDIR`` at it (``KernelHome.environment``, for the kernel's own
environment: this process's is left alone), so no startup file or history one student's code
leaves reaches the next.

The kernels' connection files and sockets go in a folder of their own (``KernelHome.sockets``),
in ``/var/tmp``, outside the home, under a name of its own. ``remove_orphaned_homes`` deletes
both folders of grading processes that are gone (a worker killed mid-student cannot clean
up): their names hold the process's id.

But: it does not start or confine kernels; without the sandbox a kernel can still write to
the instructor's home by its absolute path.

>>> with student_home("ada") as kernels:
...     kernels.environment()["HOME"] == str(kernels.home), (kernels.home / ".ipython").is_dir()
(True, True)
>>> kernels.home.exists()
False
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from autograder.isolation.bwrap import process_alive

_HOME_PREFIX = "grading-home-"  # then the student, the grading process's id, mkdtemp's letters
# Read by IPython when the kernel starts; a fresh profile keeps nobody's code on disk.
_NO_HISTORY = "c.HistoryManager.enabled = False\n"


def _folders(home: Path, sockets: Path) -> dict[str, Path]:
    return {
        "HOME": home,
        "IPYTHONDIR": home / ".ipython",
        "JUPYTER_CONFIG_DIR": home / ".jupyter",
        "JUPYTER_DATA_DIR": home / ".local" / "share" / "jupyter",
        "JUPYTER_RUNTIME_DIR": sockets,
        "XDG_CONFIG_HOME": home / ".config",
        "XDG_CACHE_HOME": home / ".cache",
        "XDG_DATA_HOME": home / ".local" / "share",
        "MPLCONFIGDIR": home / ".config" / "matplotlib",
    }


def folder_names() -> tuple[str, ...]:
    """The environment variables :func:`student_home` points at the home's folders."""
    return tuple(_folders(Path("/"), Path("/")))


@dataclass(frozen=True)
class KernelHome:
    """One student's kernels' fresh home, and the folder of their sockets."""

    home: Path
    sockets: Path

    def environment(self) -> dict[str, str]:
        """The variables that point a kernel at this home, for its own environment."""
        return {name: str(folder) for name, folder in _folders(self.home, self.sockets).items()}


def _sockets_root() -> Path:
    """``/var/tmp`` where there is one: in the sandbox the socket folder then lies outside
    every folder the kernel may write to (``/tmp`` among them), so Landlock can keep it to
    sockets. Short, so that socket paths stay under 108 bytes."""
    shared = Path("/var/tmp")
    return shared if os.access(shared, os.W_OK | os.X_OK) else Path(tempfile.gettempdir())


def _remove(folder: Path) -> None:
    """Remove a folder a kernel had, even one it made unreadable (Landlock leaves chmod)."""
    with contextlib.suppress(OSError):
        folder.chmod(0o700)
    shutil.rmtree(folder, ignore_errors=True)


def _matplotlib_cache() -> Path:
    if os.environ.get("MPLCONFIGDIR"):
        return Path(os.environ["MPLCONFIGDIR"])
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "matplotlib"


def _copy_font_cache(into: Path) -> None:
    """matplotlib rebuilds its font list in an empty folder (seconds); the list is plain
    JSON data, so the instructor's copy is safe to reuse."""
    for path in _matplotlib_cache().glob("fontlist-*.json"):
        shutil.copyfile(path, into / path.name)


@contextmanager
def student_home(student: str) -> Iterator[KernelHome]:
    """A fresh, empty home for one student's kernels, removed after the block; kernels get
    it through their environment (``KernelHome.environment``)."""
    # The grading process's id in the name: a worker killed mid-student leaves the folder
    # behind, and the next worker knows it for an orphan (remove_orphaned_homes).
    prefix = f"{_HOME_PREFIX}{student[:12]}-{os.getpid()}-"
    home = Path(tempfile.mkdtemp(prefix=prefix))
    # A name of its own, not the home's: on a hub anyone can list /tmp and make a folder first.
    sockets = Path(tempfile.mkdtemp(prefix=prefix, suffix=".sockets", dir=_sockets_root()))
    folders = _folders(home, sockets)
    try:
        for folder in folders.values():
            folder.mkdir(parents=True, exist_ok=True)
        profile = folders["IPYTHONDIR"] / "profile_default"
        profile.mkdir()
        for name in ("ipython_config.py", "ipython_kernel_config.py"):
            (profile / name).write_text(_NO_HISTORY)
        _copy_font_cache(folders["MPLCONFIGDIR"])
        yield KernelHome(home, sockets)
    finally:
        _remove(home)
        _remove(sockets)


def remove_orphaned_homes() -> list[Path]:
    """Remove the homes (and socket folders) whose grading process is gone; return them.
    Only folders of this account are touched (on a hub, students share ``/tmp``)."""
    orphans = []
    places = dict.fromkeys([Path(tempfile.gettempdir()), _sockets_root()])
    for home in (found for place in places for found in place.glob(f"{_HOME_PREFIX}*")):
        pid = home.name.rsplit("-", 2)[-2]
        try:
            info = home.lstat()
        except OSError:  # another worker, starting too, removed it first
            continue
        ours = stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()
        if ours and pid.isascii() and pid.isdigit() and not process_alive(int(pid)):
            _remove(home)
            orphans.append(home)
    return orphans

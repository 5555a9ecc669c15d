"""The students' install: how big, how many packages and how long ``make lab``'s venv takes.

In a temporary copy of the files the Makefile's students' target reads (the Makefile, both
requirements lists, pyproject.toml, the licences and ``bpe_course/``), the bench runs that
target, ``make .venv/.installed-student``, once, from nothing: a new venv, pip upgraded, the
students' pins, the plays and the editable ``bpe_course``, exactly as ``make lab`` does in a
fresh clone. It counts the distributions installed (``*.dist-info`` folders, pip included)
and the lines of the install's output that warn of something deprecated, and measures the
venv's size on disk (``du -sm``, in MB) right after the install and after a first use: the
self-check of lesson 1 (a kernel running the whole lesson) and an import of the Lab's server
and of every library the lessons use, which leaves their compiled bytecode in the venv, as a
student's first session does (the students' install compiles nothing ahead). Goals: at most
450 MB after the first use, and no deprecation warning.

But: the time depends on the network and pip's cache (it is recorded, not judged), and
packages come from wherever this machine's pip is told to look; nothing of the clone's own
``.venv`` is used or touched.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import record  # noqa: E402

ROOT = record.ROOT
LIMIT_MB = 450
COPIED = ("Makefile", "requirements.txt", "requirements-student.txt", "pyproject.toml")
COPIED += ("LICENSE", "LICENSE-lessons")
FIRST_IMPORTS = "import jupyterlab.labapp, ipywidgets, matplotlib.pyplot, numpy, regex, tqdm, "
FIRST_IMPORTS += "tokenizers, tiktoken, nbclient, ipykernel.kernelapp, bpe_course.widget"


def course_for_install(folder: Path) -> Path:
    """What the students' make target reads, copied into ``folder``."""
    for name in COPIED:
        shutil.copy(ROOT / name, folder / name)
    shutil.copytree(
        ROOT / "bpe_course", folder / "bpe_course", ignore=shutil.ignore_patterns("__pycache__")
    )
    (folder / "notebooks").mkdir()
    shutil.copy(ROOT / "notebooks" / "01_bpe_by_hand.ipynb", folder / "notebooks")
    return folder


def first_use(course: Path, env: dict[str, str]) -> None:
    """Lesson 1's self-check (its stubs fail: exit 1) and the lessons' imports, in the venv."""
    python = str(course / ".venv" / "bin" / "python")
    env = {**env, "JUPYTER_RUNTIME_DIR": str(course / "runtime")}
    env["MPLCONFIGDIR"] = str(course / "matplotlib")
    check = [python, "-m", "bpe_course.selfcheck", "notebooks/01_bpe_by_hand.ipynb"]
    done = subprocess.run(check, cwd=course, env=env, capture_output=True, text=True)
    if done.returncode not in (0, 1) or "visible test" not in done.stdout:
        sys.exit(f"bench_install: the self-check failed:\n{done.stdout[-2000:]}{done.stderr}")
    subprocess.run([python, "-c", FIRST_IMPORTS], cwd=course, env=env, check=True)


def megabytes(folder: Path) -> int:
    """``du -sm folder``: the space the folder takes on disk, in MB."""
    done = subprocess.run(["du", "-sm", str(folder)], capture_output=True, text=True, check=True)
    return int(done.stdout.split()[0])


def bytecode_megabytes(venv: Path) -> int:
    """The part of ``venv`` that pip's compiled bytecode (``__pycache__``) takes, in MB."""
    caches = [str(path) for path in venv.rglob("__pycache__") if path.is_dir()]
    done = subprocess.run(["du", "-smc", *caches], capture_output=True, text=True, check=True)
    return int(done.stdout.splitlines()[-1].split()[0])


def distributions(venv: Path) -> list[str]:
    """The names of the distributions installed in ``venv`` (its ``*.dist-info`` folders)."""
    found = venv.glob("lib/python*/site-packages/*.dist-info")
    return sorted(path.name.split("-")[0].lower() for path in found)


def deprecations(output: str) -> list[str]:
    """The lines of an install's output that warn of something deprecated.

    >>> deprecations("ok\\n!! SetuptoolsDeprecationWarning: x\\nDEPRECATION: pip y\\n")
    ['!! SetuptoolsDeprecationWarning: x', 'DEPRECATION: pip y']
    """
    return [line for line in output.splitlines() if "deprecat" in line.lower()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    run = record.Run("install", __file__)
    with tempfile.TemporaryDirectory(prefix="bpe-install-") as scratch:
        course = course_for_install(Path(scratch))
        command = ["make", "-s", ".venv/.installed-student", f"PYTHON={sys.executable}"]
        # As a student's shell runs it: not inside make bench's make, nor with the clone on
        # the path (where pip would find this clone's bpe_course installed already), and
        # with Python writing the bytecode it compiles, as it does by default.
        unset = ("MAKELEVEL", "MAKEFLAGS", "MFLAGS", "PYTHONPATH", "VIRTUAL_ENV")
        unset += ("PYTHONDONTWRITEBYTECODE",)
        env = {key: value for key, value in os.environ.items() if key not in unset}
        start = time.perf_counter()
        done = subprocess.run(command, cwd=course, env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        output = done.stdout + done.stderr
        if done.returncode != 0:
            sys.exit(f"bench_install: the students' install failed:\n{output[-3000:]}")
        installed = megabytes(course / ".venv")
        packages = distributions(course / ".venv")
        first_use(course, env)
        size = megabytes(course / ".venv")
        bytecode = bytecode_megabytes(course / ".venv")
    warned = deprecations(output)
    size_goal = run.target("students' venv on disk after a first use (MB)", size, LIMIT_MB)
    warning_goal = run.target("deprecation warnings printed by the install", len(warned), 0)
    print(f"bench_install: make lab's install (the students' set) from nothing: {seconds:.0f} s")
    print(f"  {len(packages)} distributions; venv {installed} MB after the install,", end=" ")
    print(f"{size} MB after a first use (target <= {LIMIT_MB} MB: {size_goal['verdict']}),")
    print(f"  {bytecode} MB of it compiled bytecode")
    print(f"  deprecation warnings: {len(warned)} ({warning_goal['verdict']})")
    for line in warned[:5]:
        print(f"    {line}")
    run.write(
        {
            "venv on disk after the install (MB)": installed,
            "venv on disk after a first use (MB)": size,
            "of which compiled bytecode, __pycache__ (MB)": bytecode,
            "distributions installed": len(packages),
            "install time, network and pip's cache as found (s)": round(seconds, 1),
            "lines of install output": len(output.splitlines()),
            "deprecation warnings": len(warned),
            "the heaviest not installed": [
                name
                for name in ("nbgrader", "jupyterhub", "dask", "playwright", "sphinx", "mypy")
                if name not in packages
            ],
        }
    )


if __name__ == "__main__":
    main()

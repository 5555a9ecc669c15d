"""Shared test setup: Jupyter and matplotlib state kept out of the user's home folder, and the
site built once for every module that reads it."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# Set before anything imports Jupyter or matplotlib, and inherited by every subprocess the
# tests start (nbgrader, kernels, JupyterLab, Voila).
_STATE = Path(tempfile.mkdtemp(prefix="bpe-course-tests-"))
# Removed when this process ends, so runs leave no folder behind (each run makes its own).
atexit.register(shutil.rmtree, _STATE, ignore_errors=True)
for _name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "MPLCONFIGDIR"):
    os.environ[_name] = str(_STATE / _name.lower())
    Path(os.environ[_name]).mkdir(parents=True, exist_ok=True)
os.environ["MPLBACKEND"] = "Agg"
os.environ["TOKENIZERS_PARALLELISM"] = "false"


@pytest.fixture(scope="session")
def site():
    """site/ as ``make docs`` builds it in a fresh copy of the course (tests/test_docs.py)."""
    from tests.test_docs import built_site

    yield from built_site()

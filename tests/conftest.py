"""Shared test setup: keep Jupyter and matplotlib state out of the user's home folder."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# Set before anything imports Jupyter or matplotlib, and inherited by every subprocess the
# tests start (nbgrader, kernels, JupyterLab, Voila).
_STATE = Path(tempfile.mkdtemp(prefix="bpe-course-tests-"))
for _name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "MPLCONFIGDIR"):
    os.environ[_name] = str(_STATE / _name.lower())
    Path(os.environ[_name]).mkdir(parents=True, exist_ok=True)
os.environ["MPLBACKEND"] = "Agg"
os.environ["TOKENIZERS_PARALLELISM"] = "false"

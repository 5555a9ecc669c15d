"""Shared test setup: Jupyter and matplotlib state kept out of the user's home folder, the site
built once for every module that reads it, and which tests ``make test``'s processes may run
side by side.

``make test`` runs the suite in three processes (pytest-xdist, ``suite_group``): each
module's tests run in one process, so a module's fixtures are made once; modules that hold the
same thing of the machine (Unix accounts and the hub's venv, a student's name, the built site) run
in one process, one after another (``SHARED``).
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
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


# Modules that must not run side by side, by what they share.
SHARED = {
    # Unix accounts, /opt's hub venv and its marks, runuser; and hub/node_modules, which
    # test_hub's make rebuilds while the other two walk hub/.
    "accounts": (
        *("test_hub", "test_collect_refusals", "test_exchange_collect", "test_take_down"),
        *("test_upstream_copies", "test_one_configuration"),
        # A second hub: both make hub runs would rebuild the shared venv and node_modules at
        # once when stale, and two hubs' gradings and servers overrun the two cores.
        "test_hub_rush",
    ),
    # A student named a-honest: the unconfined attack kills every kernel of that name.
    "a-honest": ("test_hostile_class", "test_refused_submission"),
    # The account 54321, which test_not_root asserts runs nothing once it is done.
    "uid 54321": ("test_not_root", "test_cluster_faults", "test_planted_modules"),
    # The graded_course fixture, the catalogue class through nbgrader, graded once for both.
    "pipeline class": ("test_nbgrader_pipeline", "test_dask_grading"),
    # The site fixture, built once in the process that runs these.
    "site": ("test_docs", "test_accessibility", "test_widget"),
}
_GROUP_OF = {module: group for group, modules in SHARED.items() for module in modules}


def suite_group(nodeid: str) -> str:
    """Which group of ``make test`` a test runs in: its module's path, or the group its
    module shares (``SHARED``).

    >>> suite_group("tests/test_hub.py::test_a_student_cannot[open the gradebook]")
    'accounts'
    >>> suite_group("tests/test_grade_class.py::test_x"), suite_group("bpe_course/engine.py::x")
    ('tests/test_grade_class.py', 'bpe_course/engine.py')
    """
    module = nodeid.split("::")[0]
    return _GROUP_OF.get(Path(module).stem, module)


@pytest.hookimpl(optionalhook=True)  # pytest -p no:xdist runs without it
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """pytest-xdist's scheduler by scope, each group (``suite_group``) one scope: a group's
    tests go to one process, in order. (Its ``loadgroup`` marks do not reach pytest 9.2's
    node ids, so the groups are given here.)"""
    from xdist.scheduler import LoadScopeScheduling

    class ByGroup(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return suite_group(nodeid)

    return ByGroup(config, log)  # type: ignore[arg-type]


@pytest.fixture(autouse=True, scope="module")
def _environment_of_the_session() -> Iterator[None]:
    """Each module starts with the environment the session started with. A Dask nanny run
    in this process (grading in-process) sets OMP_NUM_THREADS=1 and PYTHONHASHSEED in
    os.environ for good, and ``nproc``, so ``make worker``'s JOBS, follows OMP_NUM_THREADS:
    a later module in the same process would start one worker where it meant two."""
    saved = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(saved)


@pytest.fixture(scope="session")
def graded_course(tmp_path_factory: pytest.TempPathFactory):
    """The catalogue class through bare nbgrader (tests/support/pipeline_class.py)."""
    from tests.support.pipeline_class import grade_pipeline_class

    return grade_pipeline_class(tmp_path_factory)


@pytest.fixture(scope="session")
def site():
    """site/ as ``make docs`` builds it in a fresh copy of the course (tests/test_docs.py)."""
    from tests.test_docs import built_site

    yield from built_site()

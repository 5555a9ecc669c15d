"""The hub's grading service entry, as JupyterHub reads it from ``hub/jupyterhub_config.py``.

The config file is loaded as JupyterHub loads it (traitlets' loader, the settings file named by
``BPE_HUB_SETTINGS``), with the grading service on and off as ``make hub GRADING_SERVICE=``
sets it. On, ``c.JupyterHub.services`` holds one managed service: run as the instructor in
their course, with their server's environment, no ``url`` (so no port and no proxy route), and
only keys JupyterHub's ``Service`` takes as input; its command, run with ``--help`` in that
environment, is the course's ``serve``. Off, there is no service at all.

Given the hub's common settings, as that command gives them, the service's configuration says
every student has an account (``OwnedCollect.require_account``), the course's own values still
winning where both set one; a settings file that is not there is refused by name.

But: no hub is started (``tests/test_hub.py`` starts one with the service off;
``tests/test_hub_rush.py`` one with it on).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from jupyterhub.services.service import Service
from traitlets.config.loader import PyFileConfigLoader

from autograder.grading.service import service_config
from hub import grading_service, layout
from hub.roles import role_environment
from tests.conftest import ROOT

CONFIG = ROOT / "hub" / "jupyterhub_config.py"


def hub_settings(tmp_path: Path, switch: str) -> dict:
    """Settings as ``hub/run_hub.py`` writes them, with this checkout as the course and its
    environment as the hub's."""
    return {
        "bind_url": "http://127.0.0.1:8000",
        "hub_port": 8081,
        "proxy_api_port": 8001,
        "proxy": "/nonexistent/configurable-http-proxy",
        "proxy_pid_file": str(tmp_path / "state" / "jupyterhub-proxy.pid"),
        "venv": sys.prefix,
        "state": str(tmp_path / "state"),
        "exchange": str(tmp_path / "exchange"),
        "config_common": str(tmp_path / "config" / "common"),
        "config_student": str(tmp_path / "config" / "student"),
        "course_root": str(ROOT),
        "prefix": "bpe-",
        "instructor": "bpe-instructor",
        "students": ["bpe-student1"],
        "grading_service": switch == "on",
    }


def services_as_jupyterhub_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, switch: str
) -> tuple[dict, list[dict]]:
    settings = hub_settings(tmp_path, switch)
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(settings))
    monkeypatch.setenv("BPE_HUB_SETTINGS", str(path))
    config = PyFileConfigLoader(CONFIG.name, path=str(CONFIG.parent)).load_config()
    return settings, list(config.JupyterHub.services)


def test_on_the_service_runs_as_the_instructor_in_their_course_with_no_port(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings, services = services_as_jupyterhub_reads(tmp_path, monkeypatch, "on")
    assert len(services) == 1, services
    [entry] = services
    assert entry["name"] == grading_service.NAME
    assert entry["user"] == "bpe-instructor"  # never the hub's own account, root
    assert "url" not in entry  # no port; the proxy routes nothing to it
    assert entry["cwd"] == str(ROOT)
    assert entry["environment"] == role_environment(settings, "bpe-instructor")
    common = f"{settings['config_common']}/nbgrader_config.py"
    serve = [f"{sys.prefix}/bin/python", "-m", "autograder", "serve", "--lean"]
    assert entry["command"] == [*serve, "--config", common]
    inputs = set(Service.class_traits(input=True))
    assert set(entry) <= inputs, f"JupyterHub's Service takes no {set(entry) - inputs}"
    # The command, in the environment and folder JupyterHub gives it, is the course's serve.
    done = subprocess.run(
        [*serve, "--help"], cwd=entry["cwd"], env=entry["environment"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "--idle-exit" in done.stdout, done.stdout


def test_off_the_hub_has_no_service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, services = services_as_jupyterhub_reads(tmp_path, monkeypatch, "off")
    assert services == []


def test_on_the_service_reads_the_hubs_settings_under_the_courses(tmp_path: Path) -> None:
    """The hub's common settings (``hub.layout``) say every student has an account; the
    service, given them as the hub's entry gives them, refuses a name with no account, while
    the course's own settings (its root, its collect) still win where both speak."""
    folder = layout.HubFolder(tmp_path / "hub")
    layout.write_role_settings(folder, "bpe-from-scratch")
    common = folder.common / "nbgrader_config.py"
    alone = service_config(ROOT, [])
    on_hub = service_config(ROOT, [common])
    assert alone.OwnedCollect.get("require_account", False) is False
    assert on_hub.OwnedCollect.require_account is True
    assert on_hub.CourseDirectory.root == str(ROOT)
    assert on_hub.ExchangeFactory.collect == "autograder.plugins.owned_collect.OwnedCollect"
    assert on_hub.ExchangeFactory.submit == alone.ExchangeFactory.submit  # the course's wins
    refused = subprocess.run(
        [sys.executable, "-m", "autograder", "serve", "--config", str(tmp_path / "none.py")],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert refused.returncode == 2 and "no settings file" in refused.stderr, refused.stderr

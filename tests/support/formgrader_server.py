"""A Jupyter server with nbgrader's Formgrader on a course folder, for tests.

:func:`formgrader_server` starts ``jupyter_server`` on 127.0.0.1 and a free port with
nbgrader's formgrader, the course's escaping extension (``autograder.formgrader``) unless told
not to, and nothing else (no Lab, no Voila), its Jupyter folders under ``tmp``; it yields the
server's base URL once ``/api/status`` answers and stops the server by its process id. With
``lab_too=True`` it also loads what ``make lab``'s server loads from the course's venv (JupyterLab,
Notebook 7 and Voila's server extension), with no news and no update check.

But: it makes no course and grades nothing; the token is the caller's.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

from tests import test_browser as lab

REPO = Path(__file__).resolve().parents[2]


def formgrader_server(
    root: Path, tmp: Path, token: str, guarded: bool = True, lab_too: bool = False
) -> Iterator[str]:
    """Serve ``root``'s Formgrader; yields ``http://127.0.0.1:PORT/``."""
    port = lab.free_port()
    extensions = {
        "nbgrader.server_extensions.formgrader": True,
        "autograder.formgrader": guarded,
        "jupyterlab": lab_too,
        "voila.server_extension": lab_too,
        "jupyter_lsp": False,
        "notebook": lab_too,
        "notebook_shim": lab_too,
    }
    command = [
        *(sys.executable, "-m", "jupyter_server", "--no-browser", f"--port={port}"),
        *("--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}"),
        *(f"--ServerApp.root_dir={root}", "--allow-root"),
        *[f"--ServerApp.jpserver_extensions={name}={on}" for name, on in extensions.items()],
    ]
    if lab_too:
        command += ["--LabApp.news_url=None", "--LabApp.extension_manager=readonly"]
        command += ["--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
        command.append(f"--LabApp.workspaces_dir={tmp / 'jupyter' / 'workspaces'}")
    env = lab.jupyter_env(tmp / "jupyter")
    env["JUPYTER_DATA_DIR"] = str(tmp / "jupyter" / "data")
    env["PYTHONPATH"] = str(REPO)
    log = tmp / "server.log"
    process = lab.start(command, root, env, log)
    try:
        status = f"http://127.0.0.1:{port}/api/status?token={token}"
        lab.wait_until(lambda: lab.answers(status), process, log, "the Jupyter server")
        yield f"http://127.0.0.1:{port}/"
    finally:
        lab.stop(process)

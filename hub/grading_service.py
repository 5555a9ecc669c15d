"""The grading service (``python -m autograder serve``) as the hub's JupyterHub managed service.

JupyterHub starts each entry of ``c.JupyterHub.services`` that has a ``command`` with the hub,
restarts it when it exits and stops it (Ctrl-C first) when the hub stops. This one runs as the
instructor's account (``user``), in their course copy, with the environment their own server
gets (``hub.roles``: the course's grading code and the hub's exchange), so it grades exactly
as their ``make grading-service`` would, under the hub's common settings too
(``--config``: a name with no account of the machine is made up, as the collect that
their server runs knows); it writes to the hub's standard output, which
``hub/run_hub.py`` keeps in ``<hub root>/state/jupyterhub.log``.

>>> settings = {"venv": "/v", "instructor": "i", "course_root": "/h/i/course",
...             "config_common": "/c/common", "config_student": "/c/student",
...             "exchange": "/x", "grading_service": True}
>>> [entry["user"] for entry in services(settings)]
['i']
>>> services(dict(settings, grading_service=False))
[]

But: it opens no port (no ``url``: the proxy routes nothing to it) and asks nothing of the
hub's API; the hub's settings turn it off (``make hub GRADING_SERVICE=off``), and then the
instructor collects and grades by hand. It never runs as root.
"""

from __future__ import annotations

import os

from hub.roles import role_environment

NAME = "grading"


def services(settings: dict) -> list[dict]:
    """``c.JupyterHub.services`` for the hub's settings: the grading service, or none when the
    settings turn it off."""
    if not settings.get("grading_service", True):
        return []
    instructor = settings["instructor"]
    python = os.path.join(settings["venv"], "bin", "python")
    common = os.path.join(settings["config_common"], "nbgrader_config.py")
    return [
        {
            "name": NAME,
            # make grading-service's defaults: lean (no lesson demos), one worker a core.
            # --config: the hub's common settings (OwnedCollect.require_account: a name with no
            # account is made up), read under the course's as the instructor's server does.
            "command": [python, "-m", "autograder", "serve", "--lean", "--config", common],
            "user": instructor,  # without it JupyterHub would run it as the hub's root
            "cwd": settings["course_root"],
            "environment": role_environment(settings, instructor),
        }
    ]

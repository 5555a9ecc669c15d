"""What each role's server sees: the course's Python first on PATH and its role's Jupyter settings.

>>> settings = {"venv": "/v", "instructor": "i", "course_root": "/h/i/course",
...             "config_common": "/c/common", "config_student": "/c/student", "exchange": "/x"}
>>> role_environment(settings, "s1")["JUPYTER_CONFIG_PATH"]
'/c/student:/c/common'
>>> role_environment(settings, "i")["JUPYTER_CONFIG_PATH"]
'/h/i/course:/c/common'
>>> role_environment(settings, "i")["BPE_PATH_FIRST"]
'/h/i/course/.venv/bin:/v/bin'
>>> role_environment(settings, "s1")["PYTHONPATH"]
'/c/common/python'

The instructor's server reads the course's own ``nbgrader_config.py`` (the course folder is on
its config path), imports the grading code (PYTHONPATH) and uses the hub's exchange; a
student's reads the students' settings, where the instructor's tools are off. Lab's terminals
inherit all of it, so ``nbgrader`` and ``make`` there behave as the buttons do (every
account imports the course's submit from ``config/common/python``, ``hub.layout``); they start a
non-login shell whose rc file (``hub/layout.py``) puts ``BPE_PATH_FIRST`` back in front of
``PATH`` after the account's own ``~/.bashrc``, so no ``/etc/profile`` can take it away.

But: it only says what the environment is; ``hub/jupyterhub_config.py`` hands it to each
server, and the tests use it to act as an account from the command line.
"""

from __future__ import annotations

import os


def role_environment(settings: dict, user: str) -> dict[str, str]:
    first = [os.path.join(settings["venv"], "bin")]
    if user == settings["instructor"]:
        # The course's .venv (the hub's environment, linked) as the guides' commands name it.
        first.insert(0, os.path.join(settings["course_root"], ".venv", "bin"))
    env = {
        "PATH": os.pathsep.join([*first, "/usr/local/bin", "/usr/bin", "/bin"]),
        "BPE_PATH_FIRST": os.pathsep.join(first),
    }
    submit = os.path.join(settings["config_common"], "python")
    if user == settings["instructor"]:
        course = settings["course_root"]
        env["JUPYTER_CONFIG_PATH"] = os.pathsep.join([course, settings["config_common"]])
        env["PYTHONPATH"] = os.pathsep.join([course, submit])
        env["BPE_EXCHANGE"] = settings["exchange"]
    else:
        paths = [settings["config_student"], settings["config_common"]]
        env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(paths)
        env["PYTHONPATH"] = submit
    return env

"""JupyterHub's settings for the course's class: Unix accounts, one server process each.

JupyterHub reads this file (``jupyterhub -f hub/jupyterhub_config.py``); the values that
change from hub to hub (paths, ports, accounts) come from the JSON file that
``BPE_HUB_SETTINGS`` names, written by ``hub/run_hub.py``.

- Who: the class's accounts log in with their Unix passwords (PAM); no one else may.
- Where: each server runs as its account (LocalProcessSpawner) from the hub's environment,
  starts in the account's home, and opens Lab.
- What each role sees: ``hub/roles.py`` (the instructor's tools for the instructor only).
- The grading service: a managed service run as the instructor (``hub/grading_service.py``),
  unless the settings turn it off.

But: it opens no port beyond the one in the settings (127.0.0.1 unless told otherwise) and
stores nothing of the students; their work lives in their homes.
"""

import json
import os
import sys

c = get_config()  # noqa: F821 - provided by JupyterHub when it loads this file

# The hub runs from the accounts' environment, where this checkout is not installed.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from hub.grading_service import services  # noqa: E402
from hub.roles import role_environment  # noqa: E402

with open(os.environ["BPE_HUB_SETTINGS"]) as file:
    settings = json.load(file)
venv_bin = os.path.join(settings["venv"], "bin")

c.JupyterHub.bind_url = settings["bind_url"]
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = settings["hub_port"]
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{settings['proxy_api_port']}"
c.ConfigurableHTTPProxy.command = [settings["proxy"]]
c.ConfigurableHTTPProxy.pid_file = settings["proxy_pid_file"]
c.JupyterHub.db_url = "sqlite:///" + os.path.join(settings["state"], "jupyterhub.sqlite")
c.JupyterHub.cookie_secret_file = os.path.join(settings["state"], "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = os.path.join(settings["state"], "jupyterhub.pid")
# Stopping the hub stops every server and the proxy it started.
c.JupyterHub.cleanup_servers = True
c.JupyterHub.cleanup_proxy = True

c.JupyterHub.authenticator_class = "pam"
c.Authenticator.allowed_users = set([settings["instructor"], *settings["students"]])
c.PAMAuthenticator.open_sessions = False  # no login session (utmp, systemd) per server

c.JupyterHub.spawner_class = "localprocess"
c.Spawner.cmd = [os.path.join(venv_bin, "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
# Of the hub's own variables a server gets only these; hub/roles.py sets the rest.
c.Spawner.env_keep = ["LANG", "LC_ALL", "TZ"]
c.Spawner.http_timeout = 60
c.Spawner.start_timeout = 90


def spawner_environment(spawner) -> None:
    spawner.environment.update(role_environment(settings, spawner.user.name))


c.Spawner.pre_spawn_hook = spawner_environment

# The grading service, graded as the instructor; none when make hub was told GRADING_SERVICE=off.
c.JupyterHub.services = services(settings)

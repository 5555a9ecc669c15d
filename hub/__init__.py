"""A JupyterHub for a class on one machine: accounts, nbgrader's exchange, settings, the hub.

``make hub`` runs :mod:`hub.run_hub`, which makes the accounts (:mod:`hub.accounts`), lays
out the hub's folder (:mod:`hub.layout`) and starts JupyterHub with
``hub/jupyterhub_config.py``.

But: it is for one machine and one class; docs/guides/hub.md says how the same pieces map
onto The Littlest JupyterHub and Zero to JupyterHub on Kubernetes.
"""

"""nbgrader plug-ins and the notebook reading they need, one job each."""

"""nbgrader plug-ins: the classes nbgrader loads by name (nbgrader_config.py), nothing else."""

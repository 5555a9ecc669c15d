"""nbgrader plug-ins, one job each (what they share lives in autograder.shared)."""

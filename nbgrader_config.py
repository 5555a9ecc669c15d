"""nbgrader settings for the course. The repo root is the course directory."""

import os

c = get_config()  # noqa: F821 - provided by nbgrader when it loads this file

ROOT = os.path.dirname(os.path.abspath(__file__))

c.CourseDirectory.root = ROOT
c.CourseDirectory.course_id = "bpe-from-scratch"
c.CourseDirectory.db_url = "sqlite:///" + os.path.join(ROOT, "gradebook.db")
# Keep nbgrader's exchange inside the (ignored) course folder, not in /usr/local/share.
c.Exchange.root = os.path.join(ROOT, ".exchange")

# A cell that loops forever costs this many seconds, then grading moves on to the next cell.
c.Execute.timeout = 10
c.ExecutePreprocessor.timeout = 10

c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}

# Feedback keeps each failed check's message but not the hidden tests' source or the checker's
# traceback lines (autograder/nbgrader_steps/redact_feedback.py). Like autograde, it needs
# PYTHONPATH=<course root>, which `make feedback` sets.
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
    "autograder.nbgrader_steps.redact_feedback.RedactHiddenTests",
]

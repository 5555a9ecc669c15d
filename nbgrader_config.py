"""nbgrader settings for the course. The repo root is the course directory."""

import importlib.util
import os

c = get_config()  # noqa: F821 - provided by nbgrader when it loads this file

ROOT = os.path.dirname(os.path.abspath(__file__))

c.CourseDirectory.root = ROOT
c.CourseDirectory.course_id = "bpe-from-scratch"
c.CourseDirectory.db_url = "sqlite:///" + os.path.join(ROOT, "gradebook.db")
# Keep nbgrader's exchange inside the (ignored) course folder, not in /usr/local/share; on a
# hub (hub/) every account shares the one that BPE_EXCHANGE names.
c.Exchange.root = os.environ.get("BPE_EXCHANGE") or os.path.join(ROOT, ".exchange")
# Collect only entries their own student's account made, with no link or special file in them
# (inbound is writable by every student on a hub). nbgrader puts its working folder on the path,
# so this holds from the course root; a copy of this file away from the grading code keeps
# nbgrader's own collect rather than failing every nbgrader command.
if importlib.util.find_spec("autograder") is not None:
    c.ExchangeFactory.collect = "autograder.plugins.owned_collect.OwnedCollect"
    # A submitted entry no other account can write (nbgrader's own leaves it 0777).
    c.ExchangeFactory.submit = "autograder.plugins.private_submit.PrivateSubmit"
    # Release: nbgrader's own steps, then each lesson code cell marked with its id and source
    # hash, so that the student's self-check runs the lesson lean, as grading does.
    from nbgrader.converters import GenerateAssignment

    c.GenerateAssignment.preprocessors = [
        *GenerateAssignment.class_traits()["preprocessors"].default(),
        "autograder.plugins.lessons.MarkLessonCells",
    ]

# A cell that loops forever costs this many seconds, then grading moves on to the next cell;
# the judge holds each group of hidden cases to the same limit.
c.ExecutePreprocessor.timeout = 10

# Student code runs in the sandbox (autograder/sandbox/bwrap.py): one student's kernels
# together, and the judge running one notebook's answers, hold at most this much memory.
# The grading command's --memory-gb and --judge-memory-gb set them for one run. A bare
# `nbgrader autograde` refuses to run a student's kernel outside the sandbox unless given
# --GradingSandbox.unconfined=True.
c.GradingSandbox.kernel_memory_gb = 4.0
c.GradingSandbox.judge_memory_gb = 2.0
# Each grading process itself: a kernel flooding it with output stops there, not the machine.
c.GradingSandbox.grader_memory_gb = 4.0
c.GradingSandbox.unconfined = False

# The grading service (make grading-service), which grades each submission as it arrives.
# What students see of it: "when released" shows them nothing until you run `make feedback`
# and release it (or use the Formgrader); "at once" releases each graded submission's
# feedback through the exchange as soon as it is graded (docs/guides/sandbox.md says what a
# student can learn by submitting again and again).
c.GradingService.feedback = "when released"
# With "at once": gradings of one student that may start within an hour (0: no limit). A later
# submission waits until the hour allows it, and its student, fetching feedback, finds a page
# saying so and until when. With "when released" there is no limit: students see nothing of a
# grading before the release, so grading each submission teaches them nothing.
c.GradingService.gradings_per_hour = 4
# Seconds between two looks at inbound; seconds an entry's timestamp.txt must have been there;
# entries one account may file in one student's name before the rest are refused.
c.GradingService.poll_seconds = 0.25
c.GradingService.settle_seconds = 0.5
c.GradingService.max_entries_per_account = 30

c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}

# Autograde: nbgrader's own steps, with the hidden tests set aside before the student's kernel
# runs and judged outside it after (in the sandbox, by autograder/sandbox/judge_answers.py),
# an Execute that survives a lost kernel, a cap on output bytes, and a student's markup shown
# as text.
# `make autograde` runs this list with every kernel in the sandbox too; a bare
# `nbgrader autograde` runs the kernels unconfined.
c.Autograde.autograde_preprocessors = [
    "autograder.plugins.hidden_tests_outside.SetAsideHiddenTests",
    "autograder.plugins.guarded_execute.GuardedExecute",
    "autograder.plugins.hidden_tests_outside.JudgeHiddenTests",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "autograder.plugins.outputs.CapOutputBytes",
    "autograder.plugins.outputs.PlainOutputs",
    "autograder.plugins.outputs.MarkupAsText",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]
c.JudgeHiddenTests.course_root = ROOT
# A student's markdown and raw cells reach the Formgrader and feedback as text; the masters'
# own cells, found under ROOT, keep their HTML.
c.MarkupAsText.course_root = ROOT

# Feedback keeps each failed check's message but not the hidden tests' source or the checker's
# traceback lines (autograder/plugins/feedback.py). Like autograde, it needs
# PYTHONPATH=<course root>, which the make targets set.
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
    "autograder.plugins.feedback.RedactHiddenTests",
    "autograder.plugins.feedback.FeedbackPage",
]
# The page: nbgrader's feedback template with formulas as MathML (no script; offline),
# long lines wrapped, tables ruled and each test cell named by what it tests.
c.GenerateFeedback.exporter_class = "autograder.plugins.feedback.FeedbackExporter"

# nbgrader validate (and Lab's Validate button) cut every line of a message at this width;
# wide enough that no failure message of the visible tests is cut.
c.Validator.width = 1000

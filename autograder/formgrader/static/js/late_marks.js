// Says how late a submission is, in the Formgrader's two lists drawn in the browser: under
// the timestamp in an assignment's submissions, after the assignment in a student's list.
// nbgrader's own scripts draw the rows; this one, loaded after them, adds to each row the
// "late" words the course's API gives its record (autograder/formgrader/lateness.py), and its
// "not_graded" words when the newest grading stopped and the score shown is an earlier one.
// In words, not only in colour, and as text, never markup.
// upstream: none, the course's own
(function () {
    function markLate(View, element) {
        if (typeof View === "undefined") {
            return;
        }
        var render = View.prototype.render;
        View.prototype.render = function () {
            var drawn = render.apply(this, arguments);
            var late = this.model.get("late");
            if (late) {
                this[element].append(" ");
                this[element].append($("<strong/>").addClass("text-danger bpe-late").text(late));
            }
            // A grading that stopped for a reason not the student's: the score is older.
            var stale = this.model.get("not_graded");
            if (stale) {
                this[element].append(" ");
                this[element].append($("<strong/>").addClass("text-danger bpe-not-graded").text(stale));
            }
            return drawn;
        };
    }
    markLate(window.SubmissionUI, "$timestamp");
    markLate(window.StudentSubmissionUI, "$name");
})();

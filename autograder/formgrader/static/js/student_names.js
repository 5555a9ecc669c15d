// Shows each student's name as the roster writes it, first name then last ("Student 1",
// "Ada Lovelace"), in the Formgrader's three lists drawn in the browser: the students, an
// assignment's submissions and a notebook's submissions. nbgrader's scripts write
// "Last, First" and "None" for a missing part, which turns the hub's "Student 1" into
// "1, Student"; a student with no name at all is shown by id, so the link to their page keeps
// words a screen reader can read. A missing email is left blank rather than "None".
// Loaded after nbgrader's own scripts; each list still sorts by last name. Text, never markup.
// upstream: none, the course's own
(function () {
    function present(part) {
        return part !== null && part !== undefined && String(part).trim() !== "";
    }

    // The name as written, and the key the list sorts it by: last name first.
    function naming(model, id) {
        var first = model.get("first_name");
        var last = model.get("last_name");
        var shown = [first, last].filter(present).join(" ");
        var order = [last, first].filter(present).join(" ");
        return {shown: shown || id, order: order || id};
    }

    function rename(View, cellOf, idOf, linkOf) {
        if (typeof View === "undefined") {
            return;
        }
        var render = View.prototype.render;
        View.prototype.render = function () {
            var drawn = render.apply(this, arguments);
            var name = naming(this.model, idOf(this.model));
            var cell = cellOf(this);
            var link = cell.find(linkOf);
            if (linkOf === "a") {
                cell.attr("data-order", name.order);
            }
            if (link.length) {
                link.text(name.shown);
            } else {
                cell.text(name.shown);
            }
            if (this.$email) {
                var email = this.model.get("email");
                this.$email.attr("data-order", present(email) ? email : "");
                this.$email.text(present(email) ? email : "");
            }
            return drawn;
        };
    }

    function byId(model) {
        return model.get("id");
    }

    function byStudent(model) {
        return model.get("student");
    }

    rename(window.StudentUI, function (view) { return view.$name; }, byId, "a");
    rename(window.SubmissionUI, function (view) { return view.$student_name; }, byStudent, "a");
    // Its names are hidden until asked for; the list sorts by submission, not by name.
    rename(window.SubmittedNotebookUI, function (view) { return view.$name; }, byStudent, "a.name-shown");
})();

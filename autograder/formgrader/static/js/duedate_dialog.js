// The due-date dialog of Manage Assignments (the pencil beside an assignment), as the course
// serves it. nbgrader's script draws the dialog and posts the date, time and time zone; the
// course's server reads a zone name or a UTC offset (autograder/formgrader/lateness.py) and
// answers a date it cannot read with a 400 whose "error" says why. This script, loaded after
// nbgrader's, labels the fields for what they take, names the pencil for a screen reader, and
// shows that error in the dialog as an alert (role=alert, read out at once) with Save back to
// "Save", where nbgrader's dialog stayed on "Saving..." with no word.
// upstream: none, the course's own
(function () {
    if (typeof AssignmentUI === "undefined") {
        return;
    }
    var ZONE_LABEL = "Time zone: a name such as Europe/Paris, or a UTC offset such as +01:00 " +
        "(optional; empty is UTC)";
    var ui = AssignmentUI.prototype;

    var initialize = ui.initialize;
    ui.initialize = function () {
        initialize.apply(this, arguments);
        this.listenTo(this.model, "error", this.bpeNotSaved);
    };

    var render = ui.render;
    ui.render = function () {
        var drawn = render.apply(this, arguments);
        this.$edit.find("a").attr("aria-label", "Edit the due date of " + this.model.get("name"));
        return drawn;
    };

    var openModal = ui.openModal;
    ui.openModal = function () {
        openModal.apply(this, arguments);
        labelField(this.$modal_duedate, "bpe-duedate", null);
        labelField(this.$modal_timezone, "bpe-duedate-zone", ZONE_LABEL);
        this.$bpe_error = $("<p/>")
            .addClass("alert alert-danger bpe-duedate-error")
            .attr("role", "alert")
            .hide();
        this.$modal.find(".modal-body").prepend(this.$bpe_error);
        // Typing again clears the last message.
        var error = this.$bpe_error;
        this.$modal.find("input").on("input", function () { error.hide().text(""); });
    };

    // The field's row label as a <label> tied to it, with new words if given.
    function labelField($input, id, words) {
        var cell = $input.closest("tr").children("td").first();
        var label = $("<label/>").attr("for", id).text(words || cell.text());
        $input.attr("id", id);
        cell.empty().append(label);
    }

    ui.bpeNotSaved = function (model, response) {
        var said = response && response.responseJSON && response.responseJSON.error;
        var message = said || ("The due date was not saved: the server answered " +
            (response ? response.status : "nothing") + ". Try again, or set it in a terminal.");
        // The model back to what the server holds, not what was typed (silently: a fetch
        // would "sync", which closes the dialog).
        model.set(model.previousAttributes(), {silent: true});
        if (this.$modal && this.$bpe_error) {
            this.$modal_save.text("Save");
            this.$bpe_error.text(message).show();
        } else {  // the Add dialog closes at once: say it in a dialog of its own
            createModal("error-modal", "Error",
                $("<p/>").addClass("alert alert-danger").attr("role", "alert").text(message));
        }
    };
})();

// Draws the grading service's progress in the panel above an assignment's submissions, and
// reads it again every few seconds: how many entries stand in each state, the oldest wait,
// each failure with its reason (GradingProgressAPI in autograder/formgrader/__init__.py answers with them).
// Everything is written as text, never markup: entry names are chosen by students. The counts
// and failures sit in a polite live region, redrawn only when they change, so a screen reader
// hears a change once; the oldest wait, which changes every second, sits outside it. Nothing
// here takes focus, so a keyboard user's place on the page stays where it was.
// upstream: none, the course's own
(function () {
    var EVERY_MS = 5000;
    var drawn = null;

    function drawLive(data) {
        // The line ends with the oldest wait, which moves every second: it is drawn (and
        // compared) only when there are no counts to show instead.
        var line = data.counts.length ? "" : data.line;
        var key = JSON.stringify([line, data.counts, data.failures, data.more_failures]);
        if (key === drawn) {
            return;
        }
        drawn = key;
        var counts = $("#bpe-progress-counts").empty();
        var failures = $("#bpe-progress-failures").empty();
        if (!data.counts.length) {
            $("#bpe-progress-line").text(data.line);  // no queue yet, or it cannot be read
            return;
        }
        $("#bpe-progress-line").text("Entries of the grading service's queue, by state:");
        data.counts.forEach(function (pair) {
            counts.append($("<li/>").text(pair[1] + " " + pair[0]));
        });
        var total = data.failures.length + data.more_failures;
        if (!total) {
            failures.append($("<p/>").text("No entry was refused or needs a person."));
            return;
        }
        failures.append($("<h3/>").addClass("h4").text("Refused or needing a person (" + total + ")"));
        var list = $("<ul/>").attr("id", "bpe-progress-failure-list").appendTo(failures);
        data.failures.forEach(function (failure) {
            var item = $("<li/>").appendTo(list);
            item.append($("<strong/>").text(failure.state + ": "));
            item.append($("<code/>").text(failure.entry));
            item.append(document.createTextNode(": " + failure.reason));
        });
        if (data.more_failures) {
            failures.append($("<p/>").text(
                "and " + data.more_failures + " earlier ones: make grading-status lists them all"));
        }
    }

    function draw(data) {
        drawLive(data);
        var wait = data.wait ? data.wait.charAt(0).toUpperCase() + data.wait.slice(1) + "." : "";
        $("#bpe-progress-wait").text(wait);
    }

    function failed(xhr) {
        draw({
            line: "The grading service's progress could not be read (" + xhr.status + " " +
                (xhr.statusText || "no answer") + "); reload the page, or run make grading-status.",
            counts: [], wait: "", failures: [], more_failures: 0
        });
    }

    function poll() {
        $.ajax({
            url: base_url + "/formgrader/api/grading_progress",
            dataType: "json",
            cache: false
        }).done(draw).fail(failed).always(function () {
            window.setTimeout(poll, EVERY_MS);
        });
    }

    $(poll);
})();

"""How the service bench times and judges a hub's pages, without a hub: a local web server.

``bench/hub_pages.py``'s ``Pages`` loads a page that answers and one that does not (404) from
a small HTTP server in this process, at a fast pace: each load is counted in the window it was
sent in, the failures are counted and weigh ``TIMEOUT`` seconds each, and loads sent outside a
window are not in it. ``bench_service.py`` records a hub it could not start as "not measured
(why)" and misses the pages' goal; with figures, the goal is judged on the slowest page's p95
in the rush, and none of it names a folder of the machine.

But: no hub is started here (the bench itself does, under ``make bench``); the 1 s goal is
judged only there.
"""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Iterator

import pytest

from bench import bench_service

# The modules bench_service.py itself imports (as make bench runs it, beside each other).
hub_pages, record = bench_service.hub_pages, bench_service.record


class Answers(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
        found = self.path == "/hub/login"
        body = b"<html>login</html>" if found else b"missing"
        self.send_response(200 if found else 404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:  # quiet
        pass


@pytest.fixture
def server() -> Iterator[str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Answers)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def test_pages_are_loaded_at_a_steady_pace_and_failures_weigh_the_timeout(server: str) -> None:
    pages = [
        hub_pages.Page("login", "hub/login", None),
        hub_pages.Page("gone", "hub/gone", None),
    ]
    before = time.time()
    with hub_pages.Pages(server, pages, every=0.05):
        time.sleep(0.6)
        start = time.time()
        time.sleep(0.6)
        end = time.time()
        time.sleep(0.3)
    window = hub_pages.Pages(server, pages).during(start, end)
    login, gone = window["login"], window["gone"]
    # About 12 each. A busy machine oversleeps (a longer window holds more) and loads slowly
    # (fewer), but never more than the window's length at the pace allows: no catching up.
    most = int((end - start) / 0.05 + 0.1) + 1  # + 0.1: a wait may end a hair early
    assert 3 <= login["count"] <= most and 3 <= gone["count"] <= most, (window, end - start)
    assert login["failed"] == 0 and login["p95"] < 1.0, login
    assert gone["failed"] == gone["count"] and gone["p50"] == hub_pages.TIMEOUT, gone
    whole = hub_pages.Pages(server, pages).during(before, time.time())
    assert whole["login"]["count"] > login["count"] + 3, whole  # the loads outside the window


def test_no_hub_is_recorded_as_not_measured_and_misses_the_goal() -> None:
    figures = bench_service.page_figures(None, {}, "make hub needs root")
    assert figures == "not measured (make hub needs root)"
    judged = record.target("hub pages", bench_service.worst_p95(figures), 1.0)
    assert judged["verdict"] == "MISSED" and judged["measured"] is None, judged


def test_the_goal_is_the_slowest_pages_p95_in_the_rush(server: str) -> None:
    pages = hub_pages.Pages(server, [hub_pages.Page("login", "hub/login", None)])
    pages.pages[0].loads = [hub_pages.Load(10.0, 0.2, True), hub_pages.Load(20.0, 0.4, True)]
    windows = {"quiet": (0.0, 15.0), "rush": (15.0, 25.0), "burst": (30.0, 40.0)}
    figures = bench_service.page_figures(pages, windows, "")
    assert isinstance(figures, dict) and record.folders_named(figures) == []
    assert bench_service.worst_p95(figures) == 0.4
    assert figures[bench_service.WINDOWS["burst"]]["login"]["count"] == 0
    pages.pages[0].loads = pages.pages[0].loads[:1]  # no load in the rush: nothing shown met
    assert bench_service.worst_p95(bench_service.page_figures(pages, windows, "")) is None

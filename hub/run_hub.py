"""``make hub``: make the class's accounts and folders, start JupyterHub, stop it on Ctrl-C.

    python -m hub.run_hub --students 3 --port 8000 --venv /opt/bpe-course-hub/venv

JupyterHub also runs the grading service as the instructor (``hub.grading_service``;
``--grading-service off``: none), its output in the hub's log. It prints the address and each
account's name and password, then waits. Ctrl-C (or SIGTERM) stops the hub, which stops every
server and signals the proxy; the command waits for the proxy, ends by its id anything an
account still runs after that (a kernel someone detached), and checks that nothing of the hub
is left. Accounts, homes, the exchange and the course stay for the next start (``python -m
hub.take_down`` asks, exports the grades, then deletes all of it). It records the class in its
venv (``hub.classes``), so a venv two classes share outlives the first take-down.

But: one class a command (a second class is a second ``make hub`` with its own prefix, folder
and port), plain HTTP on 127.0.0.1 by default (``--ip 0.0.0.0`` serves a
room's network; put HTTPS in front for anything wider, as docs/guides/hub.md says).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import select
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from hub import accounts, classes, layout
from hub.preflight import why_not

REPO = Path(__file__).resolve().parent.parent
PROXY = REPO / "hub" / "node_modules" / ".bin" / "configurable-http-proxy"
CONFIG = REPO / "hub" / "jupyterhub_config.py"
PROXY_GRACE = 10.0  # seconds the proxy has to close its ports before it is killed


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def readable_by_others(repo: Path) -> list[str]:
    """The instructor-only folders of this checkout that other accounts can read."""
    found = []
    for name in ("solutions", "autograder", "source"):
        path, reachable = repo / name, True
        for part in [*reversed(path.parents), path]:
            if part.exists() and not part.stat().st_mode & 0o001:
                reachable = False
        if reachable and path.exists() and path.stat().st_mode & 0o004:
            found.append(str(path))
    return found


def other_class_here(args: argparse.Namespace) -> str | None:
    """Why ``--root`` cannot hold this class (another class's settings or marker), or None."""
    for named, source in classes.claims(args.venv, args.root):
        if named != args.prefix:
            return (
                f"{args.root} holds the class with accounts {named}… ({source}): give this "
                f"class a folder of its own (HUB_ROOT=dir, or HUB_PREFIX={named} for that class)"
            )
    return None


def prepare(args: argparse.Namespace) -> dict:
    """Accounts, folders and the settings JSON for hub/jupyterhub_config.py."""
    folder = layout.HubFolder(args.root)
    layout.make_state(folder)
    homes = args.root / "home" if args.homes_inside else None
    if homes is not None:
        homes.mkdir(exist_ok=True)
        homes.chmod(0o755)
    instructor, students = accounts.class_names(args.prefix, args.students)
    for name in [instructor, *students]:
        accounts.ensure_account(name, homes, accounts.default_full_name(args.prefix, name))
    passwords = accounts.ensure_passwords([instructor, *students], folder.passwords)
    entry = accounts.pwd.getpwnam(instructor)
    course_id, _ = layout.course_settings(REPO)
    layout.make_exchange(folder, course_id, entry.pw_uid, entry.pw_gid)
    layout.write_role_settings(folder, course_id)
    course = layout.copy_course(REPO, Path(entry.pw_dir), entry.pw_uid, entry.pw_gid, args.venv)
    names = {name: accounts.split_name(accounts.full_name(name)) for name in students}
    layout.write_roster(students, course, entry.pw_uid, entry.pw_gid, names)
    layout.enroll(students, course, instructor, args.venv)
    settings = {
        "bind_url": f"http://{args.ip}:{args.port}",
        "hub_port": args.hub_port or free_port(),
        "proxy_api_port": args.proxy_api_port or free_port(),
        "proxy": str(PROXY),
        "proxy_pid_file": str(folder.proxy_pid),
        "venv": str(args.venv),
        "state": str(folder.state),
        "exchange": str(folder.exchange),
        "config_common": str(folder.common),
        "config_student": str(folder.student),
        "course_root": str(course),
        "prefix": args.prefix,
        "instructor": instructor,
        "students": students,
        "grading_service": args.grading_service == "on",
    }
    layout.write_json(folder.settings, settings)
    classes.mark_class(args.venv, args.root, args.prefix)  # the take-down keeps a shared venv
    return {"settings": settings, "passwords": passwords, "folder": folder}


def hub_answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/hub/api", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def serves(pid: int, api_port: int) -> bool:
    """Whether ``pid`` runs this checkout's proxy with API port ``api_port`` (an ended process
    has no command line, even before it is reaped) as this command's user: an account can
    give a process of its own any command line, to make the stop wait on it."""
    try:
        mine = Path(f"/proc/{pid}").stat().st_uid == os.geteuid()
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    if not mine:
        return False
    return b"\0%s\0" % os.fsencode(PROXY) in command and b"\0--api-port\0%d\0" % api_port in command


def proxies_serving(api_port: int) -> list[int]:
    """The ids of the running proxies serving ``api_port``: the hub's own, or the one a hub
    that was killed outright left behind."""
    pids = (int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit())
    return [pid for pid in pids if serves(pid, api_port)]


def hold_proxies(api_port: int, held: dict[int, int]) -> None:
    """Add to ``held`` a pidfd on each proxy serving ``api_port`` that it lacks. A pidfd holds
    the process itself: no signal sent through it can reach a program the system later gives
    the same id, and it says when every thread of the process has exited."""
    for pid in proxies_serving(api_port):
        if pid in held:
            continue
        try:
            handle = os.pidfd_open(pid)
        except ProcessLookupError:
            continue
        if serves(pid, api_port):  # still the proxy now that the pidfd holds it
            held[pid] = handle
        else:
            os.close(handle)


def end_proxy(handle: int) -> None:
    """SIGTERM the proxy ``handle`` holds (again, if the hub did), give it ``PROXY_GRACE`` s
    to close its ports, then SIGKILL it."""
    ended = select.poll()
    ended.register(handle, select.POLLIN)  # readable once every thread has exited
    for sig, seconds in ((signal.SIGTERM, PROXY_GRACE), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError):  # it ended since: poll says so
            signal.pidfd_send_signal(handle, sig)
        if ended.poll(seconds * 1000):
            return


def stop(process: subprocess.Popen, uids: set[int], api_port: int) -> list[int]:
    """Stop the hub (it stops the servers and signals the proxy), end its proxy, then end, by
    id, whatever the class's accounts still run. Returns the ids found left over."""
    # JupyterHub starts the proxy in a session of its own and signals it without waiting (a
    # hub killed outright does not even signal it): hold it before the hub signals it, when
    # its command line is sure to be there, and again after, for a proxy started meanwhile.
    proxies: dict[int, int] = {}
    hold_proxies(api_port, proxies)
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    with contextlib.suppress(ProcessLookupError):  # anything else the hub left in its group
        os.killpg(process.pid, signal.SIGKILL)
    hold_proxies(api_port, proxies)
    try:
        for handle in proxies.values():
            end_proxy(handle)
    finally:
        for handle in proxies.values():
            os.close(handle)
    return accounts.stop_processes(uids)


def announce(settings: dict, passwords: dict[str, str], url: str) -> None:
    print(f"\nThe class's hub is up: {url}  (Ctrl-C stops it)\n")
    print(f"  {'account':<24} password")
    for name, password in passwords.items():
        role = "instructor" if name == settings["instructor"] else "student"
        print(f"  {name:<24} {password}   ({role})")
    print(f"\nThe instructor's course: {settings['course_root']}")
    print(f"nbgrader's exchange:     {settings['exchange']}")
    log = Path(settings["state"]) / "jupyterhub.log"
    if settings["grading_service"]:
        print(f"The grading service:     on, as the instructor; its log is {log}\n", flush=True)
    else:
        print("The grading service:     off (GRADING_SERVICE=off): collect by hand\n", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=3)
    parser.add_argument("--prefix", default="bpe-", help="every account's name starts with it")
    parser.add_argument("--root", type=Path, default=Path("/srv/bpe-course-hub"))
    parser.add_argument("--venv", type=Path, required=True, help="the accounts' environment")
    parser.add_argument("--ip", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--hub-port", type=int, default=0, help="default: a free port")
    parser.add_argument("--proxy-api-port", type=int, default=0, help="default: a free port")
    parser.add_argument("--homes-inside", action="store_true", help="homes in <root>/home")
    parser.add_argument(
        "--grading-service",
        choices=("on", "off"),
        default="on",
        help="the grading service as a JupyterHub managed service (off: collect by hand)",
    )
    args = parser.parse_args(argv)
    reason = why_not(os.uname().sysname, os.geteuid(), True)
    if reason:
        print(reason, file=sys.stderr)
        return 1
    taken = other_class_here(args)
    if taken:
        print(taken, file=sys.stderr)
        return 1
    if not PROXY.exists():
        print(f"no proxy at {PROXY}: run `cd hub && npm ci` (make hub does)", file=sys.stderr)
        return 1
    for path in readable_by_others(REPO):
        print(f"warning: every account can read {path}; run `chmod o-rwx {REPO}`", file=sys.stderr)
    made = prepare(args)
    settings, folder = made["settings"], made["folder"]
    # The hub's own environment, not ours: nothing of this checkout's Python reaches it.
    env = {name: os.environ[name] for name in ("LANG", "LC_ALL", "TZ") if name in os.environ}
    env["BPE_HUB_SETTINGS"] = str(folder.settings)
    env["PATH"] = os.pathsep.join([str(args.venv / "bin"), "/usr/local/bin", "/usr/bin", "/bin"])
    log = open(folder.state / "jupyterhub.log", "ab")  # noqa: SIM115 - open while the hub runs
    command = [str(args.venv / "bin" / "jupyterhub"), "-f", str(CONFIG)]
    process = subprocess.Popen(
        command, cwd=folder.state, env=env, stdout=log, stderr=subprocess.STDOUT,
        start_new_session=True,  # Ctrl-C reaches us alone; we stop the hub in order
    )  # fmt: skip
    uids = {accounts.pwd.getpwnam(name).pw_uid for name in made["passwords"]}
    url = f"http://{'127.0.0.1' if args.ip == '0.0.0.0' else args.ip}:{args.port}"
    stopping = False

    def request_stop(signum, frame) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    started = False
    try:
        deadline = time.monotonic() + 120
        while not (started := hub_answers(url)):
            if stopping or process.poll() is not None or time.monotonic() > deadline:
                tail = (folder.state / "jupyterhub.log").read_text()[-3000:]
                print(f"the hub did not start; the end of its log:\n{tail}", file=sys.stderr)
                break
            time.sleep(0.3)
        if started:
            announce(settings, made["passwords"], url)
        while started and not stopping and process.poll() is None:
            time.sleep(0.3)
    finally:
        stopped = shut_down(process, uids, folder, settings["proxy_api_port"])
        log.close()
    return 0 if started and stopped else 1


def shut_down(
    process: subprocess.Popen, uids: set[int], folder: layout.HubFolder, api_port: int
) -> bool:
    """Stop everything and say whether anything is left."""
    print("stopping the hub ...", flush=True)
    left = stop(process, uids, api_port)
    if left:
        print(f"ended {len(left)} process(es) the accounts still ran: {left}")
    still = {
        "the hub": [process.pid] if process.poll() is None else [],
        "the proxy": proxies_serving(api_port),
        "the accounts": accounts.processes_of(uids),
    }
    if not still["the proxy"]:
        # A hub killed outright leaves the pid file, and its next start would signal
        # whatever then holds that id.
        folder.proxy_pid.unlink(missing_ok=True)
    if any(still.values()):
        named = ", ".join(f"{what} {pids}" for what, pids in still.items() if pids)
        print(f"could not stop: {named}", flush=True)
        return False
    print("stopped: no server, kernel or proxy of the hub is running", flush=True)
    return True


if __name__ == "__main__":
    sys.exit(main())

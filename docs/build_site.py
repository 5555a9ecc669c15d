"""Build the course's website into site/ (``make docs``), offline.

It writes the pages' sources into a work folder (``.docs-build/src`` by default): the front
page from README.md and the guides from docs/guides/ (``guide_pages.py``), the four lessons run from
notebooks/ with their outputs (``lesson_pages.py``, whose runs are cached in
``.docs-build/runs``), the benchmarks page from artifacts/bench/ (``bench_page.py``), the
hand-written pieces of docs/pages/, and MathJax copied from the installed
``django-static-mathjax``. Then Sphinx renders them into the output folder. A file is
rewritten only when its text changed, so a second build rereads nothing that stayed.

But: it downloads nothing and needs no network; it never reads source/ or solutions/; it does
not run Sphinx from scratch each time (it rereads only the pages that changed; ``--clean``
starts over), and the output folder is replaced whole by each build.

Run: ``.venv/bin/python docs/build_site.py [--out site] [--work .docs-build] [--clean]``
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import sys
import time
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS))

import bench_page  # noqa: E402
import guide_pages  # noqa: E402
import lesson_pages  # noqa: E402
from lesson_pages import write_if_changed  # noqa: E402


def mathjax_file() -> Path:
    """MathJax 3's single-file build (TeX in, SVG out, assistive MathML on)."""
    spec = importlib.util.find_spec("mathjax")
    if spec is None or spec.origin is None:
        raise SystemExit("MathJax comes from the django-static-mathjax package: run `make venv`")
    return Path(spec.origin).parent / "static" / "mathjax" / "es5" / "tex-svg.js"


def write_sources(src: Path, static: Path, runs: Path) -> set[Path]:
    """Every page's source into ``src``; returns the files written (or kept)."""
    written: set[Path] = set()

    def put(name: str, text: str) -> None:
        write_if_changed(src / name, text)
        written.add(src / name)

    lessons = lesson_pages.build_lessons(src / "lessons", runs)
    written.update(src / "lessons" / f"{name}.ipynb" for name in lessons)
    for name in guide_pages.GUIDES:
        text = guide_pages.guide(name)
        if name == "benchmarks":
            text = text.rstrip() + "\n\n" + bench_page.render()
        put(f"{name}.md", text)
    index = (DOCS / "pages" / "index.md").read_text()
    index = index.replace("{{README}}", guide_pages.front_page().strip())
    index = index.replace("{{LESSONS}}", "\n".join(f"lessons/{n}" for n in lessons))
    index = index.replace("{{GUIDES}}", "\n".join(guide_pages.GUIDES))
    put("index.md", index)
    for picture in sorted((DOCS / "guides").glob("*.svg")):
        put(picture.name, picture.read_text())
    mathjax = static / "mathjax"
    mathjax.mkdir(parents=True, exist_ok=True)
    for name, source in (
        ("tex-svg.js", mathjax_file()),
        ("LICENSE", mathjax_file().parent.parent / "LICENSE"),
    ):
        if (
            not (mathjax / name).exists()
            or (mathjax / name).stat().st_size != source.stat().st_size
        ):
            shutil.copyfile(source, mathjax / name)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "site")
    parser.add_argument("--work", type=Path, default=ROOT / ".docs-build")
    parser.add_argument(
        "--clean", action="store_true", help="start from an empty work and output folder"
    )
    args = parser.parse_args(argv)
    out, work = args.out.resolve(), args.work.resolve()
    if args.clean:
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)
    start = time.perf_counter()
    src = work / "src"
    written = write_sources(src, work / "static", work / "runs")
    for stale in [p for p in src.rglob("*") if p.is_file() and p not in written]:
        stale.unlink()
    unlisted = guide_pages.unlisted()
    if unlisted:
        print(f"note: docs/guides/ holds guides guide_pages.GUIDES leaves out: {unlisted}")
    os.environ["BPE_DOCS_WORK"] = str(work)
    from sphinx.cmd.build import build_main

    # Sphinx renders inside the work folder (myst-nb keeps its own folder beside the output,
    # which would otherwise land in the course folder), then the result replaces the site.
    html = work / "html"
    command = [
        "-b",
        "html",
        "-q",
        "-c",
        str(DOCS),
        "-d",
        str(work / "doctrees"),
        str(src),
        str(html),
    ]
    code = build_main(command)
    if code != 0:
        print("sphinx failed: the site was left as it was")
        return code
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(html, out)
    shown = out.relative_to(ROOT) if out.is_relative_to(ROOT) else out
    print(f"site built into {shown}/ in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Sphinx's settings for the course's website, read by ``make docs`` (docs/build_site.py).

The pages themselves are generated into a work folder (``.docs-build/src``) before Sphinx
runs: the lessons from notebooks/, the front page from README.md, the guides from
docs/guides/, the benchmarks page from docs/guides/benchmarks.md and
artifacts/bench/. Sphinx renders them with myst-nb (which never runs a notebook here: the
runs are cached by ``lesson_pages.py``) and the pydata theme, whose styles, icons and scripts
ship in its wheel; MathJax comes from the site's own ``_static/mathjax/``.

But: nothing here fetches or links to a network resource; the theme's links to its own
project and to page sources are switched off.
"""

from __future__ import annotations

import os
from pathlib import Path

DOCS = Path(__file__).resolve().parent
WORK = Path(os.environ.get("BPE_DOCS_WORK", DOCS.parent / ".docs-build"))

project = "Byte pair encoding from scratch"
author = "The bpe-course maintainers"
copyright = "2026, The bpe-course maintainers; lessons CC BY 4.0, code MIT"
language = "en"

extensions = ["myst_nb"]
exclude_patterns = ["_build", "**.ipynb_checkpoints"]

# The notebooks arrive already run (lesson_pages.py caches the runs); myst-nb only renders.
nb_execution_mode = "off"
nb_merge_streams = True
# No widget manager from a CDN: the widget is drawn from its saved state as plain HTML.
nb_ipywidgets_js = {}
myst_enable_extensions = ["dollarmath"]
myst_heading_anchors = 3

html_theme = "pydata_sphinx_theme"
html_title = project
html_theme_options = {
    # Every page sits in the left column's table of contents; the header keeps the search.
    "navbar_center": [],
    "navbar_end": ["theme-switcher"],
    "footer_start": ["copyright"],
    "footer_center": [],
    "footer_end": [],
    "secondary_sidebar_items": ["page-toc"],
    "show_toc_level": 2,
    "navigation_with_keys": False,
}
templates_path = ["templates"]
html_sidebars = {"**": ["course-nav.html"]}
html_show_sourcelink = False
html_copy_source = False
html_show_sphinx = False
html_static_path = ["static", str(WORK / "static")]
html_css_files = ["course.css"]
# Relative to _static/: build_site.py copies MathJax 3's single-file build there.
mathjax_path = "mathjax/tex-svg.js"


def _figure_alt(app, doctree, docname) -> None:
    """Give each plot of a lesson the description its cell prints ("Figure: ...") as alt
    text; myst-nb would otherwise use the image's file name."""
    from docutils import nodes

    for image in doctree.findall(nodes.image):
        cell = image.parent
        while cell is not None and "cell" not in cell.get("classes", []):
            cell = cell.parent
        if cell is None:
            continue
        lines = cell.astext().splitlines()
        said = [
            line.removeprefix("Figure:").strip() for line in lines if line.startswith("Figure:")
        ]
        if said:
            image["alt"] = said[0]


def setup(app) -> None:
    app.connect("doctree-resolved", _figure_alt)

"""The overfitting curve and its plot, on the course text and on a learner's own file."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest

from bpe_course.compression import CompressionCurve, compression_curve
from bpe_course.engine import Encoder
from bpe_course.plots import overfitting_curve, plot_compression_curve, separation_point
from bpe_course.pretokenize import chunk_counts
from bpe_course.texts import COURSE_TEXT, split_train_heldout


@pytest.fixture(scope="module")
def course_curve() -> CompressionCurve:
    train, heldout = split_train_heldout(COURSE_TEXT)
    return compression_curve(train, heldout, progress=False)


def test_at_the_last_merge_every_training_chunk_is_one_token(course_curve):
    train, _ = split_train_heldout(COURSE_TEXT)
    encoder = Encoder(course_curve.merges)
    chunks = chunk_counts(train)
    assert all(len(encoder.encode_chunk(chunk)) == 1 for chunk in chunks)
    # ... and so training ρ is bytes per chunk, while one merge fewer leaves one chunk split.
    assert course_curve.train_rho[-1] == len(train.encode()) / sum(chunks.values())
    shorter = Encoder(course_curve.merges[:-1])
    assert any(len(shorter.encode_chunk(chunk)) > 1 for chunk in chunks)


def test_training_rho_ends_far_above_heldout_rho(course_curve):
    assert course_curve.train_rho[-1] > 1.5 * course_curve.heldout_rho[-1]


def test_both_rise_together_over_the_first_merges(course_curve):
    train, heldout = course_curve.train_rho[:21], course_curve.heldout_rho[:21]
    assert all(b > a for a, b in zip(train, train[1:]))
    assert all(b >= a for a, b in zip(heldout, heldout[1:]))
    assert heldout[20] > 1.3 * heldout[0]
    assert all(abs(t / h - 1) < 0.03 for t, h in zip(train, heldout))


def test_the_curves_part_after_the_first_merges(course_curve):
    split = separation_point(course_curve)
    assert 20 < split < course_curve.num_merges // 2
    ratio = [t / h for t, h in zip(course_curve.train_rho, course_curve.heldout_rho)]
    assert ratio[split] > 1.05 and ratio[split - 1] <= 1.05


def test_the_figure_draws_the_curve(course_curve):
    fig = plot_compression_curve(course_curve)
    try:
        (ax,) = fig.axes
        lines = {
            line.get_label(): line
            for line in ax.get_lines()
            if not line.get_label().startswith("_")
        }
        assert set(lines) == {"training text", "held-out text"}
        assert list(lines["training text"].get_ydata()) == course_curve.train_rho
        assert list(lines["held-out text"].get_ydata()) == course_curve.heldout_rho
        assert list(lines["training text"].get_xdata()) == list(range(course_curve.num_merges + 1))
        assert "merges" in ax.get_xlabel() and "bytes per token" in ax.get_ylabel()
        legend = [text.get_text() for text in ax.get_legend().get_texts()]
        assert legend == ["training text", "held-out text"]
    finally:
        plt.close(fig)


def test_plot_rejects_what_is_not_a_curve():
    with pytest.raises(ValueError, match="compression_curve"):
        plot_compression_curve([1.0, 2.0])


def test_overfitting_curve_reads_a_path_and_takes_a_str_as_text(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("bpe_course.progress.SHOW_AFTER_SECONDS", 0)  # show even a quick bar
    text = COURSE_TEXT[:1200]
    path = tmp_path / "mine.txt"
    path.write_text(text, encoding="utf-8")
    from_file = overfitting_curve(path, num_merges=40)
    assert "merges" in capsys.readouterr().err  # the tqdm bar
    from_keyword = overfitting_curve(path=str(path), num_merges=40, progress=False)
    from_text = overfitting_curve(text, num_merges=40, progress=False)
    expected = compression_curve(*split_train_heldout(text), num_merges=40, progress=False)
    assert from_file == from_keyword == from_text == expected


def test_a_str_is_text_even_when_it_names_an_existing_file(tmp_path, monkeypatch):
    (tmp_path / "my_notes").write_text(COURSE_TEXT[:1200], encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=r"too short.*Path\('my_notes'\)"):
        overfitting_curve("my_notes", progress=False)
    assert overfitting_curve(path="my_notes", num_merges=5, progress=False).num_merges == 5


def test_overfitting_curve_errors_name_the_problem(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing.txt"):
        overfitting_curve(tmp_path / "missing.txt")
    with pytest.raises(FileNotFoundError, match="notes.txt"):
        overfitting_curve(path="notes.txt")
    with pytest.raises(ValueError, match="not both"):
        overfitting_curve("some text", path=tmp_path / "mine.txt")
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n", encoding="utf-8")
    with pytest.raises(ValueError, match="needs some text.*empty.txt"):
        overfitting_curve(empty)
    with pytest.raises(ValueError, match="needs some text"):
        overfitting_curve("   ")
    with pytest.raises(ValueError, match="too short"):
        overfitting_curve("hello", progress=False)

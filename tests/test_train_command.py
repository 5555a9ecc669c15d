"""``make train`` / ``python -m bpe_course.train``: a learner's own text to merges, vocabulary
and compression curve, with the merges of ``learn_merges``, here or on a local Dask cluster,
and a message naming what is wrong for a missing file or one that is not UTF-8."""

from __future__ import annotations

import csv
import json
import subprocess
from pathlib import Path

import pytest

from bpe_course import COURSE_TEXT, chunk_counts, learn_merges
from bpe_course.train import main
from tests.conftest import ROOT


def _text(tmp_path: Path) -> Path:
    path = tmp_path / "mine.txt"
    path.write_text(COURSE_TEXT, encoding="utf-8")
    return path


def test_it_writes_the_merges_the_vocabulary_and_the_curve(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert main([str(_text(tmp_path)), "--merges", "40", "--out", str(out), "--quiet"]) == 0
    merges = [tuple(pair) for pair in json.loads((out / "merges.json").read_text())]
    assert merges == learn_merges(chunk_counts(COURSE_TEXT), 40)
    vocab = json.loads((out / "vocab.json").read_text(encoding="utf-8"))
    alphabet = sorted(set(COURSE_TEXT))
    assert list(vocab)[: len(alphabet)] == alphabet
    assert vocab["".join(merges[-1])] == len(vocab) - 1 and len(vocab) == len(alphabet) + 40
    rows = list(csv.reader((out / "curve.csv").open()))[1:]
    rho = [float(value) for _, value in rows]
    assert len(rho) == 41 and rho[0] == pytest.approx(
        len(COURSE_TEXT.encode("utf-8")) / len(COURSE_TEXT)
    )
    assert all(a < b for a, b in zip(rho, rho[1:]))  # every merge saves tokens
    assert (out / "curve.png").read_bytes()[:4] == b"\x89PNG"


def test_bad_input_is_named_with_what_to_do(tmp_path: Path, capsys) -> None:
    assert main([str(tmp_path / "gone.txt"), "--quiet", "--out", str(tmp_path)]) == 2
    assert "gone.txt does not exist; give the path of a text file" in capsys.readouterr().err
    (tmp_path / "latin.txt").write_bytes(b"caf\xe9 au lait")
    assert main([str(tmp_path / "latin.txt"), "--quiet", "--out", str(tmp_path)]) == 2
    assert "latin.txt is not UTF-8 text (byte 3" in capsys.readouterr().err
    (tmp_path / "empty.txt").write_text("", encoding="utf-8")
    assert main([str(tmp_path / "empty.txt"), "--quiet", "--out", str(tmp_path)]) == 2
    assert "the text is empty; give a file with some text" in capsys.readouterr().err
    assert not (tmp_path / "merges.json").exists()


@pytest.mark.slow  # make, and a Dask cluster of two worker processes
def test_make_train_counts_on_a_local_dask_cluster(tmp_path: Path) -> None:
    # As a learner types it; SCHEDULER=local starts two Dask workers and stops them after.
    text, out = _text(tmp_path), tmp_path / "out"
    command = ["make", "--no-print-directory", "train", f"TEXT={text}", "MERGES=30"]
    command += [f"OUT={out}", "SCHEDULER=local"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "learned 30 merges" in done.stdout
    merges = [tuple(pair) for pair in json.loads((out / "merges.json").read_text())]
    assert merges == learn_merges(chunk_counts(COURSE_TEXT), 30)
    missing = subprocess.run(
        ["make", "--no-print-directory", "train"], cwd=ROOT, capture_output=True, text=True
    )
    assert missing.returncode != 0 and "say which text: make train TEXT=" in missing.stdout

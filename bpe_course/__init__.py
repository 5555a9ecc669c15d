"""bpe_course: the public library the course notebooks import.

It holds what the lessons show but do not ask students to write: the GPT-2-style
pre-tokenizer, a demonstration BPE engine, compression measurements, the course texts,
vectorized pair counting, training on hundreds of megabytes from disk (counted in parallel),
the "Watch it learn" widget and the plots.

``__version__`` is the course's version, read from the installed package's metadata, whose
one source is ``pyproject.toml``; grades and the self-check name it.

But: the exercise answers are not here; students write those.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("bpe-course")
except PackageNotFoundError:  # the folder imported without `pip install -e .`
    __version__ = "unknown (not installed)"

from bpe_course.arrays import learn_merges_arrays
from bpe_course.compression import CompressionCurve, bytes_per_token, compression_curve
from bpe_course.counting import byte_pair_counts
from bpe_course.display import show_pair, show_tokens, visible
from bpe_course.engine import ChunkTable, Encoder, Merge, Trainer, learn_merges
from bpe_course.large import train_on_files
from bpe_course.parallel import count_chunks_parallel
from bpe_course.pretokenize import GPT2_PATTERN, chunk_counts, pretokenize
from bpe_course.texts import (
    COURSE_TEXT,
    load_text,
    shakespeare_text,
    split_train_heldout,
)

__all__ = [
    "__version__",
    "COURSE_TEXT",
    "GPT2_PATTERN",
    "ChunkTable",
    "CompressionCurve",
    "Encoder",
    "Merge",
    "Trainer",
    "byte_pair_counts",
    "bytes_per_token",
    "chunk_counts",
    "compression_curve",
    "count_chunks_parallel",
    "learn_merges",
    "learn_merges_arrays",
    "load_text",
    "pretokenize",
    "shakespeare_text",
    "show_pair",
    "show_tokens",
    "split_train_heldout",
    "train_on_files",
    "visible",
]

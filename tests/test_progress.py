"""A progress bar that stops short of its upper bound ends full, in Jupyter's widget too."""

from __future__ import annotations

from tqdm.notebook import tqdm

from bpe_course.progress import finish_at_count


def test_the_widget_bar_ends_full_at_the_count_reached() -> None:
    bar = tqdm(total=839)  # the loose bound lesson 3's curve starts from
    bar.update(440)
    finish_at_count(bar)
    widget = bar.container.children[1]
    assert (widget.max, widget.value, bar.n, bar.total) == (440, 440, 440, 440)
    bar.close()

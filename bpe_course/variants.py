"""Wrong answers of our own to the exercises, one mistake each, for recognising a student's.

Wrong merges (right to left, overlapping, only the first occurrence, dropping the last
symbol, string replacement, comparing joined text, checking one half), wrong pair counts,
a naive trainer with one part swapped or counting once, encoders with one part swapped (rank,
place, the table's ranks, every occurrence at once, one pass, longest match), and
merge_and_update with one part left out or done twice. Each is the reproduction that lets
``mistakes.diagnose`` name a student's mistake.

But: no right answer to an exercise is written here; the correct parts the wrong versions
are built around come from the demonstration engine (``bpe_course.engine``).

>>> merge_right_to_left(("a", "a", "a"), ("a", "a"))
('a', 'aa')
>>> merge_first_only(("a", "b", "a", "b"), ("a", "b"))
('ab', 'a', 'b')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bpe_course.engine import _join, index_pairs

Pair = tuple[str, str]


def merge_pair(symbols: Sequence[str], pair: Pair) -> tuple[str, ...]:
    """The engine's merge, as a tuple: the part a wrong trainer or updater keeps right."""
    left, right = pair
    return tuple(_join(list(symbols), (left, right)))


def pair_counts(words: dict) -> dict:
    """The engine's weighted pair counts: the part a wrong trainer keeps right."""
    return index_pairs([list(symbols) for symbols in words], list(words.values()))[0]


# ---- wrong ways to merge a pair (shared by merge_pair, train_bpe, encode_bpe) -------------


def merge_right_to_left(symbols: Sequence[str], pair: Pair) -> tuple[str, ...]:
    """Scans from the right end, so ``a a a`` becomes ``a aa``."""
    left, right = pair
    out: list[str] = []
    i = len(symbols) - 1
    while i >= 0:
        if i >= 1 and symbols[i - 1] == left and symbols[i] == right:
            out.append(left + right)
            i -= 2
        else:
            out.append(symbols[i])
            i -= 1
    return tuple(reversed(out))


def merge_overlapping(symbols: Sequence[str], pair: Pair) -> tuple[str, ...]:
    """Forgets to skip the right half after a merge, so it is used again."""
    left, right = pair
    out: list[str] = []
    for i, symbol in enumerate(symbols):
        if i + 1 < len(symbols) and symbol == left and symbols[i + 1] == right:
            out.append(left + right)
        else:
            out.append(symbol)
    return tuple(out)


def merge_by_string_split(symbols: Sequence[str], pair: Pair) -> tuple[str, ...]:
    """Replaces text in the space-joined word, which also matches across symbols."""
    text = " ".join(symbols).replace(" ".join(pair), "".join(pair))
    return tuple(text.split(" "))


def merge_by_string_words(symbols: Sequence[str], pair: Pair) -> tuple[str, ...]:
    """The same text replacement, split on any run of whitespace."""
    return tuple(" ".join(symbols).replace(" ".join(pair), "".join(pair)).split())


def merge_by_string_split_or_empty(symbols: Sequence[str], pair: Pair) -> tuple[str, ...]:
    """The same text replacement, with an empty word kept empty (not one empty symbol)."""
    text = " ".join(symbols).replace(" ".join(pair), "".join(pair))
    return tuple(text.split(" ")) if text else ()


STRING_MERGES = (merge_by_string_split, merge_by_string_words, merge_by_string_split_or_empty)


def merge_by_joined_text(symbols: Sequence[str], pair: Pair) -> tuple[str, ...]:
    """Compares two symbols' joined text with the pair's, so ab c is joined when asked for
    (a, bc): both read abc."""
    joined = "".join(pair)
    out: list[str] = []
    i = 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] + symbols[i + 1] == joined:
            out.append(joined)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


def merge_by_padded_replace(symbols: Sequence[str], pair: Pair) -> tuple[str, ...]:
    """Pads the space-joined word and replaces " a b " by " ab ": whole symbols only, but
    each replacement uses up the space the next occurrence starts with, so a b a b with
    (a, b) gives ab a b."""
    left, right = pair
    text = " " + " ".join(symbols) + " "
    return tuple(text.replace(f" {left} {right} ", f" {left}{right} ").split())


def merge_marking_overlaps(symbols: Sequence[str], pair: Pair) -> tuple[str, ...]:
    """Marks every place the pair starts, overlapping ones too, then joins at each mark, so
    a a a with (a, a) gives aa aa."""
    left, right = pair
    starts = {i for i in range(len(symbols) - 1) if (symbols[i], symbols[i + 1]) == (left, right)}
    out: list[str] = []
    for i, symbol in enumerate(symbols):
        if i in starts:
            out.append(left + right)
        elif i - 1 not in starts:
            out.append(symbol)
    return tuple(out)


def merge_left_half_twice(symbols: Sequence[str], pair: Pair) -> tuple[str, ...]:
    """Checks both symbols against the pair's left half, so with (a, b) it joins a a into ab
    and leaves a b alone."""
    left, right = pair
    out: list[str] = []
    i = 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == left and symbols[i + 1] == left:
            out.append(left + right)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


def merge_left_half_only(symbols: Sequence[str], pair: Pair) -> tuple[str, ...]:
    """Checks only the pair's left half and joins whatever follows it: with (a, b), a c
    becomes ac."""
    left, _ = pair
    out: list[str] = []
    i = 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == left:
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


def merge_either_order(symbols: Sequence[str], pair: Pair) -> tuple[str, ...]:
    """Compares the two neighbours with the pair as a set, so (b, a) is joined too, as ba."""
    wanted = set(pair)
    out: list[str] = []
    i = 0
    while i < len(symbols):
        if i + 1 < len(symbols) and {symbols[i], symbols[i + 1]} == wanted:
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


def merge_first_only(symbols: Sequence[str], pair: Pair) -> tuple[str, ...]:
    """Joins the first occurrence and returns, so a b a b gives ab a b."""
    left, right = pair
    for i in range(len(symbols) - 1):
        if symbols[i] == left and symbols[i + 1] == right:
            return (*symbols[:i], left + right, *symbols[i + 2 :])
    return tuple(symbols)


def merge_dropping_last(symbols: Sequence[str], pair: Pair) -> tuple[str, ...]:
    """Stops the scan one symbol early, so an unjoined last symbol is lost."""
    left, right = pair
    out: list[str] = []
    i = 0
    while i < len(symbols) - 1:
        if symbols[i] == left and symbols[i + 1] == right:
            out.append(left + right)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


# ---- wrong ways to count pairs ---------------------------------------------------------------


def counts_unweighted(words: dict) -> dict:
    counts: dict = {}
    for symbols in words:
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts.get(pair, 0) + 1
    return counts


def counts_once_per_word(words: dict) -> dict:
    counts: dict = {}
    for symbols, count in words.items():
        for pair in dict.fromkeys(zip(symbols, symbols[1:])):
            counts[pair] = counts.get(pair, 0) + count
    return counts


def counts_without_overlaps(words: dict) -> dict:
    counts: dict = {}
    for symbols, count in words.items():
        i = 0
        while i + 1 < len(symbols):
            pair = (symbols[i], symbols[i + 1])
            counts[pair] = counts.get(pair, 0) + count
            # skip the next position when it would reuse this pair's right half for the same pair
            nxt = (symbols[i + 1], symbols[i + 2]) if i + 2 < len(symbols) else None
            i += 2 if nxt == pair else 1
    return counts


def counts_of_characters(words: dict) -> dict:
    """Joins each word's symbols into one string and pairs its characters, which is right
    only while every symbol is one character."""
    counts: dict = {}
    for symbols, count in words.items():
        text = "".join(symbols)
        for pair in zip(text, text[1:]):
            counts[pair] = counts.get(pair, 0) + count
    return counts


def counts_without_last_pair(words: dict) -> dict:
    """Stops one position early, so the last pair of every word is left out."""
    counts: dict = {}
    for symbols, count in words.items():
        for i in range(len(symbols) - 2):
            pair = (symbols[i], symbols[i + 1])
            counts[pair] = counts.get(pair, 0) + count
    return counts


def counts_without_first_pair(words: dict) -> dict:
    """Starts at position 1, so the first pair of every word is left out."""
    counts: dict = {}
    for symbols, count in words.items():
        for i in range(1, len(symbols) - 1):
            pair = (symbols[i], symbols[i + 1])
            counts[pair] = counts.get(pair, 0) + count
    return counts


def counts_assigned(words: dict) -> dict:
    """Sets a pair's count to the word's count instead of adding it: the last word wins."""
    counts: dict = {}
    for symbols, count in words.items():
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = count
    return counts


def counts_wrapping_around(words: dict) -> dict:
    """Pairs each symbol with the next modulo the length: the last with the first too."""
    counts: dict = {}
    for symbols, count in words.items():
        for i in range(len(symbols)):
            pair = (symbols[i], symbols[(i + 1) % len(symbols)])
            counts[pair] = counts.get(pair, 0) + count
    return counts


def counts_every_other_pair(words: dict) -> dict:
    """Steps two symbols at a time, as if pairs could not overlap: a b c counts (a, b) only."""
    counts: dict = {}
    for symbols, count in words.items():
        for i in range(0, len(symbols) - 1, 2):
            pair = (symbols[i], symbols[i + 1])
            counts[pair] = counts.get(pair, 0) + count
    return counts


def counts_first_sighting_one(words: dict) -> dict:
    """Records 1 the first time a pair is met and adds the word's count only after that."""
    counts: dict = {}
    for symbols, count in words.items():
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts[pair] + count if pair in counts else 1
    return counts


def counts_with_end_marker(words: dict) -> dict:
    """Adds an end-of-word marker, ``</w>``, to every word before counting its pairs."""
    return pair_counts({(*symbols, "</w>"): count for symbols, count in words.items()})


def counts_across_words(words: dict) -> dict:
    """Lays every copy of every word end to end and counts the pairs of that one stream, so
    the last symbol of a word and the first of the next make a pair."""
    stream = [
        symbol for symbols, count in words.items() for _ in range(count) for symbol in symbols
    ]
    return pair_counts({tuple(stream): 1})


# ---- a trainer with one thing changed at a time --------------------------------------------


def lowest_pair(counts: dict) -> Pair:
    return min(counts, key=lambda pair: (-counts[pair], pair))


def largest_pair(counts: dict) -> Pair:
    return max(counts, key=lambda pair: (counts[pair], pair))


def smallest_concatenation(counts: dict) -> Pair:
    return min(counts, key=lambda pair: (-counts[pair], pair[0] + pair[1]))


def first_appearance(counts: dict) -> Pair:
    return max(counts, key=counts.__getitem__)


def rarest_pair(counts: dict) -> Pair:
    return min(counts, key=lambda pair: (counts[pair], pair))


def make_trainer(
    count: Callable = pair_counts,
    choose: Callable = lowest_pair,
    merge: Callable = merge_pair,
    stop_below: int = 1,
    fewer: int = 0,
) -> Callable:
    """A naive trainer with one part swapped for a wrong one."""

    def train(word_counts: dict, num_merges: int) -> list[Pair]:
        words = {tuple(word): n for word, n in word_counts.items()}
        merges: list[Pair] = []
        for _ in range(max(num_merges - fewer, 0)):
            counts = count(words)
            if not counts:
                break
            best = choose(counts)
            if counts[best] < stop_below:
                break
            merges.append(best)
            words = {merge(symbols, best): n for symbols, n in words.items()}
        return merges

    return train


def train_counting_once(word_counts: dict, num_merges: int) -> list[Pair]:
    """Counts the pairs once, before any merge, and returns the best ``num_merges`` of them:
    a merge's new pairs are never counted."""
    counts = pair_counts({tuple(word): n for word, n in word_counts.items()})
    return sorted(counts, key=lambda pair: (-counts[pair], pair))[:num_merges]


def train_forgetting_merges(word_counts: dict, num_merges: int) -> list[Pair]:
    """Starts every round from the words' characters with only the newest merge applied, so
    earlier merges are forgotten."""
    merges: list[Pair] = []
    for _ in range(num_merges):
        words = {tuple(word): n for word, n in word_counts.items()}
        if merges:
            words = {merge_pair(symbols, merges[-1]): n for symbols, n in words.items()}
        counts = pair_counts(words)
        if not counts:
            break
        merges.append(lowest_pair(counts))
    return merges


# ---- wrong encoders --------------------------------------------------------------------------


def encode_leftmost(word: str, merges: Sequence[Pair]) -> list[str]:
    """Merges the first pair (from the left) that is in the table, whatever its rank."""
    known = set(map(tuple, merges))
    symbols = list(word)
    merged = True
    while merged:
        merged = False
        for i in range(len(symbols) - 1):
            if (symbols[i], symbols[i + 1]) in known:
                symbols[i : i + 2] = [symbols[i] + symbols[i + 1]]
                merged = True
                break
    return symbols


def make_first_left_encoder(join_halves: bool) -> Callable:
    """Finds the lowest-ranked pair present, then joins it where ``symbols.index(left)``
    points: at the first copy of its left half, whether or not the right half follows it.
    ``join_halves``: the new symbol is left + right, else the two symbols found there."""

    def encode(word: str, merges: Sequence[Pair]) -> list[str]:
        ranks: dict = {}
        for rank, pair in enumerate(merges):
            ranks.setdefault(tuple(pair), rank)
        symbols = list(word)
        for _ in range(len(word)):  # every join shortens the list by one
            present = [p for p in zip(symbols, symbols[1:]) if p in ranks]
            if not present:
                break
            left, right = min(present, key=ranks.__getitem__)
            i = symbols.index(left)
            joined = left + right if join_halves else "".join(symbols[i : i + 2])
            symbols[i : i + 2] = [joined]
        return symbols

    return encode


FIRST_LEFT_ENCODERS = (make_first_left_encoder(True), make_first_left_encoder(False))


def make_replaying_encoder(merge: Callable) -> Callable:
    """Replays the table in order with a wrong ``merge``."""

    def encode(word: str, merges: Sequence[Pair]) -> list[str]:
        symbols = tuple(word)
        for pair in merges:
            symbols = merge(symbols, tuple(pair))
        return list(symbols)

    return encode


def make_rank_encoder(merge: Callable) -> Callable:
    """The lowest-rank loop with a wrong ``merge`` (stops if a merge changes nothing)."""

    def encode(word: str, merges: Sequence[Pair]) -> list[str]:
        ranks: dict = {}
        for rank, pair in enumerate(merges):
            ranks.setdefault(tuple(pair), rank)
        symbols = tuple(word)
        for _ in range(4 * len(word) + 4):  # a wrong merge may never shrink the word
            present = [p for p in zip(symbols, symbols[1:]) if p in ranks]
            if not present:
                break
            symbols = merge(symbols, min(present, key=ranks.__getitem__))
        return list(symbols)

    return encode


def first_ranks(merges: Sequence[Pair]) -> dict:
    ranks: dict = {}
    for rank, pair in enumerate(merges):
        ranks.setdefault(tuple(pair), rank)
    return ranks


def make_ranked_encoder(
    latest: bool = False, rightmost: bool = False, ranks_of: Callable = first_ranks, last: int = 1
) -> Callable:
    """The one-join-at-a-time loop with one part changed: ``latest`` takes the highest rank
    (the merge learned last), ``rightmost`` the rightmost place among equal ranks,
    ``ranks_of`` builds the table's ranks, and the last ``last - 1`` pairs are never looked
    at (``last=2``: the word's last pair is skipped)."""

    def encode(word: str, merges: Sequence[Pair]) -> list[str]:
        ranks = ranks_of(merges)
        symbols = list(word)
        while len(symbols) > 1:
            found = [
                (-ranks[p] if latest else ranks[p], -i if rightmost else i)
                for i, p in enumerate(zip(symbols, symbols[1 : len(symbols) - last + 1]))
                if p in ranks
            ]
            if not found:
                break
            i = abs(min(found)[1])
            symbols[i : i + 2] = [symbols[i] + symbols[i + 1]]
        return symbols

    return encode


def encode_known_characters_only(word: str, merges: Sequence[Pair]) -> list[str]:
    """Starts from the characters that appear in the table only: one it never saw vanishes."""
    seen = set("".join(left + right for left, right in merges))
    return make_ranked_encoder()("".join(c for c in word if c in seen), merges)


def make_initial_pairs_encoder(every: bool) -> Callable:
    """Joins the pairs present before any join, lowest rank first, at their first place
    (``every``: at every place, left to right): never a pair that a join creates."""

    def encode(word: str, merges: Sequence[Pair]) -> list[str]:
        ranks = first_ranks(merges)
        symbols = list(word)
        present = {p for p in zip(symbols, symbols[1:]) if p in ranks}
        for left, right in sorted(present, key=lambda p: ranks[p]):
            if every:
                symbols = list(merge_pair(symbols, (left, right)))
                continue
            for i in range(len(symbols) - 1):
                if (symbols[i], symbols[i + 1]) == (left, right):
                    symbols[i : i + 2] = [left + right]
                    break
        return symbols

    return encode


def encode_smallest_pair(word: str, merges: Sequence[Pair]) -> list[str]:
    """Joins the smallest known pair in tuple order (min of the pairs, not of their ranks)."""
    known = {tuple(pair) for pair in merges}
    symbols = list(word)
    while True:
        pairs = list(zip(symbols, symbols[1:]))
        present = [p for p in pairs if p in known]
        if not present:
            return symbols
        i = pairs.index(min(present))
        symbols[i : i + 2] = [symbols[i] + symbols[i + 1]]


def encode_one_pass(word: str, merges: Sequence[Pair]) -> list[str]:
    """One pass from the left, gluing each character onto the token before it when that
    pair is in the table: two longer tokens are never joined, and ranks play no part."""
    known = {tuple(pair) for pair in merges}
    tokens: list[str] = []
    for character in word:
        if tokens and (tokens[-1], character) in known:
            tokens[-1] += character
        else:
            tokens.append(character)
    return tokens


def last_ranks(merges: Sequence[Pair]) -> dict:
    """A merge listed twice keeps its later rank (a dict comprehension overwrites)."""
    return {tuple(pair): rank for rank, pair in enumerate(merges)}


def encode_by_spelling(word: str, merges: Sequence[Pair]) -> list[str]:
    """Looks merges up by the text they make, so (ab, c) counts as (a, bc)."""
    ranks: dict = {}
    for rank, (left, right) in enumerate(merges):
        ranks.setdefault(left + right, rank)
    symbols = list(word)
    while len(symbols) > 1:
        pairs = enumerate(zip(symbols, symbols[1:]))
        found = [(ranks[a + b], i) for i, (a, b) in pairs if a + b in ranks]
        if not found:
            break
        _, i = min(found)
        symbols[i : i + 2] = [symbols[i] + symbols[i + 1]]
    return symbols


def encode_longest_match(word: str, merges: Sequence[Pair]) -> list[str]:
    """Cuts the longest token of the vocabulary (characters and every merge's text) off the
    front of the word, again and again, whatever the merges' ranks."""
    vocabulary = {left + right for left, right in merges}
    tokens: list[str] = []
    start = 0
    while start < len(word):
        end = next(
            e for e in range(len(word), start, -1) if e - start == 1 or word[start:e] in vocabulary
        )
        tokens.append(word[start:end])
        start = end
    return tokens


# ---- wrong incremental updates ---------------------------------------------------------------


def make_updater(
    merge: Callable = merge_pair,
    keep_zeros: bool = False,
    update_where: bool = True,
    report_stale: bool = False,
    weighted: bool = True,
    in_order: bool = True,
    subtract_neighbours: bool = True,
    add_neighbours: bool = True,
    pair_once: bool = False,
    subtract_pair: bool = True,
    distinct: bool = False,
    overwrite_where: bool = False,
) -> Callable:
    """merge_and_update with one part left out or done wrong. A word's update is what its
    pairs lose and gain; the "neighbours" are the pairs other than ``pair`` itself that it
    loses (x a and b y at x a b y) and every pair it gains (x ab and ab y). ``pair_once``:
    ``pair`` itself loses the word's count once, however often the word held it;
    ``subtract_pair=False``: it loses nothing; ``distinct``: a word's pairs move as a set,
    once each however often it holds them; ``overwrite_where``: where[new pair] = {i}."""

    def update(
        words: list[list[str]],
        counts: list[int],
        stats: dict[Pair, int],
        where: dict[Pair, set[int]],
        pair: Pair,
    ) -> list[int]:
        changed = []
        listed = where.get(pair, ()) if not update_where else where.pop(pair, ())
        for i in sorted(listed) if in_order else list(listed):
            old = list(words[i])
            new = list(merge(old, pair))
            if new == old:
                if report_stale:
                    changed.append(i)
                continue
            weight = counts[i] if weighted else 1
            lost, gained = _pair_change(old, new, distinct)
            for gone, times in lost.items():
                if gone == tuple(pair) and pair_once:
                    times = 1
                if gone == tuple(pair) and not subtract_pair:
                    continue
                if subtract_neighbours or gone == tuple(pair):
                    stats[gone] = stats.get(gone, 0) - weight * times
            for born, times in gained.items():
                if add_neighbours:
                    stats[born] = stats.get(born, 0) + weight * times
                if update_where and overwrite_where:
                    where[born] = {i}
                elif update_where:
                    where.setdefault(born, set()).add(i)
            words[i] = new
            changed.append(i)
        if not keep_zeros:
            for p in [p for p, n in stats.items() if n == 0]:
                del stats[p]
        return changed

    return update


def make_neighbour_updater(
    left: bool = True,
    right: bool = True,
    old_right: bool = False,
    left_from: str = "old",
    new_left_from: str = "new",
) -> Callable:
    """merge_and_update that moves each join's neighbour pairs one join at a time: ``left``,
    x a becomes x ab; ``right``, b y becomes ab y (with ``old_right``, y is read from the old
    word, so in a b a b the pair between the joins moves twice: to (ab, a) and (ab, ab)).
    ``left_from`` and ``new_left_from`` say which word, ``"old"`` or ``"new"``, x is read from
    in the pair lost and in the pair made."""

    def update(
        words: list[list[str]],
        counts: list[int],
        stats: dict[Pair, int],
        where: dict[Pair, set[int]],
        pair: Pair,
    ) -> list[int]:
        first, second = pair
        merged = first + second
        delta: dict[Pair, int] = {}
        changed = []
        for i in sorted(where.pop(pair, ())):
            old = list(words[i])
            new = list(merge_pair(old, pair))
            if new == old:
                continue
            weight, j, k = counts[i], 0, 0  # j: place in old, k: the same symbol's place in new
            born: list[Pair] = []
            while j < len(old):
                if j + 1 < len(old) and old[j] == first and old[j + 1] == second:
                    delta[pair] = delta.get(pair, 0) - weight
                    if left and j > 0:
                        x = {"old": old[j - 1], "new": new[k - 1]}
                        gone = (x[left_from], first)
                        delta[gone] = delta.get(gone, 0) - weight
                        born.append((x[new_left_from], merged))
                    if right and j + 2 < len(old):
                        gone = (second, old[j + 2])
                        delta[gone] = delta.get(gone, 0) - weight
                        if old_right:
                            born.append((merged, old[j + 2]))
                        elif k + 1 < len(new):
                            born.append((merged, new[k + 1]))
                    j += 2
                else:
                    j += 1
                k += 1
            for new_pair in born:
                delta[new_pair] = delta.get(new_pair, 0) + weight
                where.setdefault(new_pair, set()).add(i)
            words[i] = new
            changed.append(i)
        for p, change in delta.items():
            stats[p] = stats.get(p, 0) + change
            if stats[p] == 0:
                del stats[p]
        return changed

    return update


def update_shared_neighbour_twice(
    words: list[list[str]],
    counts: list[int],
    stats: dict[Pair, int],
    where: dict[Pair, set[int]],
    pair: Pair,
) -> list[int]:
    """Updates the neighbours of each join on its own: two joins side by side (a b a b with
    (a, b)) share the pair between them, so (b, a) loses the word's count twice and
    (ab, ab) gains it twice."""
    left, right = pair
    merged = left + right
    delta: dict[Pair, int] = {}
    changed = []
    for i in sorted(where.pop(pair, ())):
        old = list(words[i])
        new = list(merge_pair(old, pair))
        if new == old:
            continue
        weight, j, k = counts[i], 0, 0  # j: place in old, k: the same symbol's place in new
        while j < len(old):
            if j + 1 < len(old) and old[j] == left and old[j + 1] == right:
                delta[pair] = delta.get(pair, 0) - weight
                if j > 0:
                    gone, born = (old[j - 1], left), (new[k - 1], merged)
                    delta[gone] = delta.get(gone, 0) - weight
                    delta[born] = delta.get(born, 0) + weight
                    where.setdefault(born, set()).add(i)
                if j + 2 < len(old):
                    gone, born = (right, old[j + 2]), (merged, new[k + 1])
                    delta[gone] = delta.get(gone, 0) - weight
                    delta[born] = delta.get(born, 0) + weight
                    where.setdefault(born, set()).add(i)
                j += 2
            else:
                j += 1
            k += 1
        words[i] = new
        changed.append(i)
    for p, change in delta.items():
        stats[p] = stats.get(p, 0) + change
        if stats[p] == 0:
            del stats[p]
    return changed


def _pair_change(old: list[str], new: list[str], distinct: bool = False) -> tuple[dict, dict]:
    """The pairs a word loses and gains, with how many times: old minus new, new minus old
    (``distinct``: each pair counted once however often the word holds it)."""
    before, after = _pair_tally(old), _pair_tally(new)
    if distinct:
        before, after = dict.fromkeys(before, 1), dict.fromkeys(after, 1)
    lost = {p: n - after.get(p, 0) for p, n in before.items() if n > after.get(p, 0)}
    gained = {p: n - before.get(p, 0) for p, n in after.items() if n > before.get(p, 0)}
    return lost, gained


def _pair_tally(symbols: list[str]) -> dict:
    tally: dict = {}
    for p in zip(symbols, symbols[1:]):
        tally[p] = tally.get(p, 0) + 1
    return tally

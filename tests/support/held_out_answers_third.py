"""A third held-out set of wrong student answers for the five graded BPE exercises.

``HELD_OUT[exercise][label]`` is ``(what the student got wrong, source of the answer)``. Each
source is a complete, self-contained definition of the exercise's function (helpers allowed,
standard library only), imagined as a different student after reading the lessons: some
verbose, some terse, some with two mistakes at once, some wrong only on edge cases (empty
input, a one-symbol word, a pair that occurs back to back). Each was checked to differ from
``solutions`` on small seeded random inputs. Use it to measure how often the failure
messages name a mistake they were never shown, and how often they name a wrong one.

But: it was written without reading the diagnosis, its catalogue or the two earlier held-out
sets, so it is no test of them by itself and holds no expected labels; it runs nothing on
import, and no answer here is meant to pass.
"""

from __future__ import annotations

PAIR_COUNTS: dict[str, tuple[str, str]] = {
    "off-by-one-and-unweighted": (
        "Two mistakes: the index loop stops one place early, so the last pair of every word "
        "is never counted, and each pair adds 1 instead of the word's count.",
        """
def pair_counts(words):
    result = {}
    for word in words:
        for i in range(1, len(word) - 1):
            pair = (word[i - 1], word[i])
            if pair in result:
                result[pair] += 1
            else:
                result[pair] = 1
    return result
""",
    ),
    "distinct-pairs-per-word": (
        "Turns each word's pairs into a set, so a pair that occurs twice in one word "
        "(overlapping or not) is counted once for that word.",
        """
from collections import Counter


def pair_counts(words):
    total = Counter()
    for symbols, count in words.items():
        for pair in set(zip(symbols, symbols[1:])):
            total[pair] += count
    return dict(total)
""",
    ),
    "string-count-no-overlap": (
        "Finds the pairs correctly but takes each pair's number of occurrences from "
        "str.count on the glued word, which skips overlaps (a a a holds a a once) and matches "
        "letters across symbol boundaries.",
        """
def pair_counts(words):
    out = {}
    for symbols, count in words.items():
        text = "".join(symbols)
        for left, right in set(zip(symbols, symbols[1:])):
            out[(left, right)] = out.get((left, right), 0) + text.count(left + right) * count
    return out
""",
    ),
    "assigns-instead-of-adds": (
        "Writes counts[pair] = count instead of adding to it, so a pair seen in several "
        "words, or twice in one word, keeps only the last count it met.",
        """
def pair_counts(words):
    counts = {}
    for word, count in words.items():
        for left, right in zip(word, word[1:]):
            counts[(left, right)] = count
    return counts
""",
    ),
    "end-of-word-marker": (
        "Adds the </w> end-of-word marker from the lesson's history aside to every word "
        "before counting, inventing a (last symbol, </w>) pair for each word, one-symbol "
        "words included.",
        """
def with_marker(symbols):
    return list(symbols) + ["</w>"]


def neighbours(symbols):
    return [(symbols[i], symbols[i + 1]) for i in range(len(symbols) - 1)]


def pair_counts(words):
    result = {}
    for symbols, count in words.items():
        for pair in neighbours(with_marker(symbols)):
            result[pair] = result.get(pair, 0) + count
    return result
""",
    ),
    "pairs-across-words": (
        "Lays every copy of every word end to end in one long list and counts its pairs, so "
        "the last symbol of one word and the first of the next form pairs that do not exist.",
        """
from collections import Counter
from itertools import pairwise


def pair_counts(words):
    stream = [s for word, n in words.items() for _ in range(n) for s in word]
    return dict(Counter(pairwise(stream)))
""",
    ),
    "drops-short-words-from-input": (
        "Deletes the one-symbol words from the argument before counting; the counts are "
        "right, but the caller's dictionary is changed.",
        """
def pair_counts(words):
    for w in [w for w in words if len(w) < 2]:
        del words[w]
    counts = {}
    for w, c in words.items():
        for p in zip(w, w[1:]):
            counts[p] = counts.get(p, 0) + c
    return counts
""",
    ),
    "wraps-around": (
        "Pairs each symbol with the next one modulo the word's length, so the last symbol is "
        "also paired with the first, and a one-symbol word pairs with itself.",
        """
def pair_counts(words):
    counts = {}
    for word, n in words.items():
        for i, symbol in enumerate(word):
            pair = (symbol, word[(i + 1) % len(word)])
            counts[pair] = counts.get(pair, 0) + n
    return counts
""",
    ),
}

MERGE_PAIR: dict[str, tuple[str, str]] = {
    "space-join-replace": (
        "Glues the symbols with spaces and uses str.replace on 'left right', which also "
        "matches a symbol that only ends with the left half (x a + b joins as xab).",
        """
def merge_pair(symbols, pair):
    text = " ".join(symbols)
    text = text.replace(pair[0] + " " + pair[1], pair[0] + pair[1])
    return tuple(text.split(" ")) if text else ()
""",
    ),
    "zip-loses-last-symbol": (
        "Walks zip(symbols, symbols[1:]) and appends the left symbol of each pair, so the "
        "last symbol is dropped whenever it was not part of a join (and a one-symbol input "
        "becomes empty).",
        """
def merge_pair(symbols, pair):
    out = []
    skip = False
    for x, y in zip(symbols, symbols[1:]):
        if skip:
            skip = False
            continue
        if (x, y) == pair:
            out.append(x + y)
            skip = True
        else:
            out.append(x)
    return tuple(out)
""",
    ),
    "scans-right-to-left": (
        "Scans from the end of the word towards the start, so a run like a a a joins its "
        "last two symbols (a aa) instead of its first two.",
        """
def merge_pair(symbols, pair):
    left, right = pair
    out = []
    i = len(symbols) - 1
    while i >= 0:
        if i >= 1 and symbols[i - 1] == left and symbols[i] == right:
            out.insert(0, left + right)
            i -= 2
        else:
            out.insert(0, symbols[i])
            i -= 1
    return tuple(out)
""",
    ),
    "matches-spelling": (
        "Compares the glued text of two neighbours with the glued pair, so any split of the "
        "same letters matches: ab c is joined for the pair (a, bc).",
        """
def merge_pair(symbols, pair):
    target = pair[0] + pair[1]
    result = []
    i = 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] + symbols[i + 1] == target:
            result.append(target)
            i += 2
        else:
            result.append(symbols[i])
            i += 1
    return tuple(result)
""",
    ),
    "first-occurrence-only": (
        "Returns as soon as the first occurrence is joined, so later occurrences of the pair "
        "stay apart.",
        """
def merge_pair(symbols, pair):
    for i in range(len(symbols) - 1):
        if (symbols[i], symbols[i + 1]) == pair:
            return symbols[:i] + (pair[0] + pair[1],) + symbols[i + 2 :]
    return tuple(symbols)
""",
    ),
    "either-order": (
        "Tests the two neighbours against the pair as a set, so the reversed pair (b, a) is "
        "joined too (as ba).",
        """
def merge_pair(symbols, pair):
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and {symbols[i], symbols[i + 1]} == set(pair):
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)
""",
    ),
    "overlapping-joins-as-list": (
        "Two mistakes: every position where the pair starts is joined, so a a a gives "
        "aa aa (overlaps reuse the middle symbol), and the result is a list, not a tuple.",
        """
def merge_pair(symbols, pair):
    merged = []
    for i in range(len(symbols)):
        starts = i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair
        ends = i > 0 and (symbols[i - 1], symbols[i]) == pair
        if starts:
            merged.append(pair[0] + pair[1])
        elif not ends:
            merged.append(symbols[i])
    return merged
""",
    ),
    "empty-input-crash": (
        "Folds the symbols onto the last output symbol, which is right except on the empty "
        "tuple, where symbols[0] raises IndexError.",
        """
def merge_pair(symbols, pair):
    out = [symbols[0]]
    fresh = True
    for s in symbols[1:]:
        if fresh and (out[-1], s) == pair:
            out[-1] = out[-1] + s
            fresh = False
        else:
            out.append(s)
            fresh = True
    return tuple(out)
""",
    ),
}

TRAIN_BPE: dict[str, tuple[str, str]] = {
    "max-prefers-largest-pair": (
        "Takes max over (count, pair), so among pairs with the top count the one that sorts "
        "LAST wins instead of the one that sorts first.",
        """
def train_bpe(word_counts, num_merges):
    words = {tuple(w): c for w, c in word_counts.items()}
    merges = []
    for _ in range(num_merges):
        stats = {}
        for symbols, c in words.items():
            for p in zip(symbols, symbols[1:]):
                stats[p] = stats.get(p, 0) + c
        if not stats:
            break
        best = max(stats, key=lambda p: (stats[p], p))
        merges.append(best)
        joined = {}
        for symbols, c in words.items():
            out, i = [], 0
            while i < len(symbols):
                if symbols[i : i + 2] == best:
                    out.append(best[0] + best[1])
                    i += 2
                else:
                    out.append(symbols[i])
                    i += 1
            joined[tuple(out)] = c
        words = joined
    return merges
""",
    ),
    "most-common-first-seen": (
        "Uses Counter.most_common(1), which breaks ties by the order pairs were first met in "
        "the words, not by tuple order.",
        """
from collections import Counter


def count_pairs(words):
    stats = Counter()
    for symbols, c in words.items():
        for i in range(len(symbols) - 1):
            stats[symbols[i], symbols[i + 1]] += c
    return stats


def join(symbols, pair):
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
            out.append(pair[0] + pair[1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


def train_bpe(word_counts, num_merges):
    words = {tuple(w): c for w, c in word_counts.items()}
    merges = []
    while len(merges) < num_merges:
        stats = count_pairs(words)
        if not stats:
            break
        (best, _), = stats.most_common(1)
        merges.append(best)
        words = {join(s, best): c for s, c in words.items()}
    return merges
""",
    ),
    "ties-by-glued-string": (
        "Breaks ties by the glued string left + right instead of the pair, so in lesson 1's "
        "round 5 (eat, s), glued 'eats', beats (e, t), glued 'et'; pairs that spell the "
        "same string stay in first-seen order.",
        """
def train_bpe(word_counts, num_merges):
    words = [(list(w), c) for w, c in word_counts.items()]
    merges = []
    for _ in range(num_merges):
        stats = {}
        for syms, c in words:
            for a, b in zip(syms, syms[1:]):
                stats[(a, b)] = stats.get((a, b), 0) + c
        if not stats:
            break
        best = min(stats, key=lambda p: (-stats[p], p[0] + p[1]))
        merges.append(best)
        for k, (syms, c) in enumerate(words):
            new, i = [], 0
            while i < len(syms):
                if i + 1 < len(syms) and (syms[i], syms[i + 1]) == best:
                    new.append(syms[i] + syms[i + 1])
                    i += 2
                else:
                    new.append(syms[i])
                    i += 1
            words[k] = (new, c)
    return merges
""",
    ),
    "one-round-too-many": (
        "Loops while len(merges) <= num_merges, so it learns one merge more than asked "
        "whenever a pair is left to merge.",
        """
def train_bpe(word_counts, num_merges):
    corpus = {tuple(word): n for word, n in word_counts.items()}
    merges = []
    while len(merges) <= num_merges:
        counts = {}
        for word, n in corpus.items():
            for pair in zip(word, word[1:]):
                counts[pair] = counts.get(pair, 0) + n
        if not counts:
            break
        top = max(counts.values())
        best = min(p for p in counts if counts[p] == top)
        merges.append(best)
        rewritten = {}
        for word, n in corpus.items():
            out, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == best:
                    out.append(word[i] + word[i + 1])
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            rewritten[tuple(out)] = n
        corpus = rewritten
    return merges
""",
    ),
    "no-early-stop": (
        "Never checks for an empty pair table, so once every word is a single symbol (or "
        "when every word starts as one) min() raises ValueError instead of stopping.",
        """
def train_bpe(word_counts, num_merges):
    words = {tuple(w): c for w, c in word_counts.items()}
    merges = []
    for _ in range(num_merges):
        counts = {}
        for w, c in words.items():
            for p in zip(w, w[1:]):
                counts[p] = counts.get(p, 0) + c
        best = min(counts, key=lambda p: (-counts[p], p))
        merges.append(best)
        new_words = {}
        for w, c in words.items():
            out, i = [], 0
            while i < len(w):
                if w[i : i + 2] == best:
                    out.append(w[i] + w[i + 1])
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            new_words[tuple(out)] = c
        words = new_words
    return merges
""",
    ),
    "counts-stale-words": (
        "Rewrites the words into a new variable but keeps counting pairs on the original "
        "words, so every round picks the same first pair again.",
        """
def train_bpe(word_counts, num_merges):
    words = {tuple(w): c for w, c in word_counts.items()}
    merges = []
    for _ in range(num_merges):
        stats = {}
        for symbols, c in words.items():
            for pair in zip(symbols, symbols[1:]):
                stats[pair] = stats.get(pair, 0) + c
        if not stats:
            break
        best = sorted(stats, key=lambda p: (-stats[p], p))[0]
        merges.append(best)
        merged_words = {}
        for symbols, c in words.items():
            out, i = [], 0
            while i < len(symbols):
                if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == best:
                    out.append(symbols[i] + symbols[i + 1])
                    i += 2
                else:
                    out.append(symbols[i])
                    i += 1
            merged_words[tuple(out)] = c
    return merges
""",
    ),
    "word-presence-counts": (
        "Two mistakes: scores each pair by the number of distinct words that hold it, so the "
        "word counts are ignored and a pair repeated inside one word counts once.",
        """
def train_bpe(word_counts, num_merges):
    words = [tuple(w) for w in word_counts]
    merges = []
    for _ in range(num_merges):
        seen_in = {}
        for w in words:
            for p in set(zip(w, w[1:])):
                seen_in[p] = seen_in.get(p, 0) + 1
        if not seen_in:
            break
        best = min(seen_in, key=lambda p: (-seen_in[p], p))
        merges.append(best)
        rebuilt = []
        for w in words:
            out, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and (w[i], w[i + 1]) == best:
                    out.append(w[i] + w[i + 1])
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            rebuilt.append(tuple(out))
        words = rebuilt
    return merges
""",
    ),
    "joins-right-to-left": (
        "Counts and chooses correctly but its recursive join works from the end of the word, "
        "so a run like a a a becomes a aa, and the next rounds see the wrong pairs.",
        """
def join_from_right(symbols, pair):
    if len(symbols) < 2:
        return symbols
    if symbols[-2:] == pair:
        return join_from_right(symbols[:-2], pair) + (pair[0] + pair[1],)
    return join_from_right(symbols[:-1], pair) + symbols[-1:]


def train_bpe(word_counts, num_merges):
    words = {tuple(w): c for w, c in word_counts.items()}
    merges = []
    for _ in range(num_merges):
        stats = {}
        for s, c in words.items():
            for p in zip(s, s[1:]):
                stats[p] = stats.get(p, 0) + c
        if not stats:
            break
        best = min(stats.items(), key=lambda kv: (-kv[1], kv[0]))[0]
        merges.append(best)
        words = {join_from_right(s, best): c for s, c in words.items()}
    return merges
""",
    ),
}

ENCODE_BPE: dict[str, tuple[str, str]] = {
    "leftmost-known-pair": (
        "Joins the first neighbouring pair the table knows, whatever its rank (the lesson's "
        "'steat' trap).",
        """
def encode_bpe(word, merges):
    known = set(merges)
    tokens = list(word)
    changed = True
    while changed:
        changed = False
        for i in range(len(tokens) - 1):
            if (tokens[i], tokens[i + 1]) in known:
                tokens[i : i + 2] = [tokens[i] + tokens[i + 1]]
                changed = True
                break
    return tokens
""",
    ),
    "greedy-longest-token": (
        "Ignores ranks: builds the vocabulary of merged strings and cuts the word greedily "
        "into the longest known token from the left.",
        """
def encode_bpe(word, merges):
    vocab = {a + b for a, b in merges}
    tokens = []
    i = 0
    while i < len(word):
        end = len(word)
        while end > i + 1 and word[i:end] not in vocab:
            end -= 1
        tokens.append(word[i:end])
        i = end
    return tokens
""",
    ),
    "all-occurrences-at-once": (
        "Finds the lowest-ranked pair present but joins every occurrence of it in one pass, "
        "which hand-made tables like [(ab, a), (a, b)] on 'abab' expose.",
        """
def encode_bpe(word, merges):
    rank = {}
    for r, p in enumerate(merges):
        rank.setdefault(p, r)
    parts = list(word)
    while True:
        present = [p for p in zip(parts, parts[1:]) if p in rank]
        if not present:
            return parts
        best = min(present, key=rank.__getitem__)
        out, i = [], 0
        while i < len(parts):
            if tuple(parts[i : i + 2]) == best:
                out.append(best[0] + best[1])
                i += 2
            else:
                out.append(parts[i])
                i += 1
        parts = out
""",
    ),
    "rightmost-of-equal-rank": (
        "Keeps a dict from rank to position, so when the best pair occurs twice the later "
        "position overwrites the earlier and the RIGHTMOST occurrence is joined.",
        """
def encode_bpe(word, merges):
    ranks = {}
    for r, p in enumerate(merges):
        if p not in ranks:
            ranks[p] = r
    syms = list(word)
    while len(syms) > 1:
        found = {ranks[p]: i for i, p in enumerate(zip(syms, syms[1:])) if p in ranks}
        if not found:
            break
        i = found[min(found)]
        syms[i : i + 2] = [syms[i] + syms[i + 1]]
    return syms
""",
    ),
    "repeated-merge-last-rank": (
        "Builds the rank table with a dict comprehension, so a pair listed twice keeps its "
        "LAST index as its rank instead of its first.",
        """
def encode_bpe(word, merges):
    rank = {pair: r for r, pair in enumerate(merges)}
    toks = list(word)
    while True:
        cands = [(rank[p], i) for i, p in enumerate(zip(toks, toks[1:])) if p in rank]
        if not cands:
            return toks
        _, i = min(cands)
        toks[i : i + 2] = [toks[i] + toks[i + 1]]
""",
    ),
    "empty-word-gives-empty-token": (
        "Returns [word] for words shorter than two characters, so the empty word gives [''] "
        "instead of [].",
        """
def encode_bpe(word, merges):
    if len(word) < 2:
        return [word]
    ranks = {}
    for r, pair in enumerate(merges):
        ranks.setdefault(pair, r)
    symbols = list(word)
    while True:
        best = None
        for i in range(len(symbols) - 1):
            r = ranks.get((symbols[i], symbols[i + 1]))
            if r is not None and (best is None or r < best[0]):
                best = (r, i)
        if best is None:
            return symbols
        i = best[1]
        symbols[i : i + 2] = [symbols[i] + symbols[i + 1]]
""",
    ),
    "replace-all-on-spaced-string": (
        "Two mistakes: keeps the tokens as a space-separated string and joins the best pair "
        "with str.replace, which joins every occurrence at once and also matches a token that "
        "merely ends with the left half.",
        """
def encode_bpe(word, merges):
    rank = {}
    for r, (a, b) in enumerate(merges):
        rank.setdefault((a, b), r)
    text = " ".join(word)
    while True:
        toks = text.split(" ") if text else []
        present = [p for p in zip(toks, toks[1:]) if p in rank]
        if not present:
            return toks
        a, b = min(present, key=lambda p: rank[p])
        text = text.replace(a + " " + b, a + b)
""",
    ),
    "drops-unknown-characters": (
        "Keeps only the characters that appear in the merge table, so a character training "
        "never saw disappears instead of staying a single symbol.",
        """
def encode_bpe(word, merges):
    alphabet = set("".join(a + b for a, b in merges))
    tokens = [ch for ch in word if ch in alphabet]
    rank = {}
    for i, m in enumerate(merges):
        rank.setdefault(m, i)
    while len(tokens) > 1:
        options = [(rank[p], i) for i, p in enumerate(zip(tokens, tokens[1:])) if p in rank]
        if not options:
            break
        _, i = min(options)
        tokens[i : i + 2] = [tokens[i] + tokens[i + 1]]
    return tokens
""",
    ),
}

MERGE_AND_UPDATE: dict[str, tuple[str, str]] = {
    "left-neighbour-only": (
        "Moves the count of the pair on the LEFT of each join to the new symbol but never "
        "touches the right neighbour, so (b, y) keeps its count and (ab, y) is never added.",
        """
def merge_and_update(words, counts, stats, where, pair):
    a, b = pair
    ab = a + b
    changed = []
    for i in sorted(where.pop(pair, set())):
        old = words[i]
        new, j = [], 0
        while j < len(old):
            if j + 1 < len(old) and old[j] == a and old[j + 1] == b:
                if new:
                    gone, born = (new[-1], a), (new[-1], ab)
                    stats[gone] = stats.get(gone, 0) - counts[i]
                    if stats[gone] == 0:
                        del stats[gone]
                    stats[born] = stats.get(born, 0) + counts[i]
                    where.setdefault(born, set()).add(i)
                stats[pair] -= counts[i]
                if stats[pair] == 0:
                    del stats[pair]
                new.append(ab)
                j += 2
            else:
                new.append(old[j])
                j += 1
        if new != old:
            words[i] = new
            changed.append(i)
    return changed
""",
    ),
    "rebinds-stats": (
        "Recounts the pairs of the visited words into a brand-new dict and assigns it to the "
        "local name stats, so the caller's stats never changes.",
        """
def merge_and_update(words, counts, stats, where, pair):
    def join(symbols):
        out, k = [], 0
        while k < len(symbols):
            if k + 1 < len(symbols) and (symbols[k], symbols[k + 1]) == pair:
                out.append(symbols[k] + symbols[k + 1])
                k += 2
            else:
                out.append(symbols[k])
                k += 1
        return out

    new_stats = dict(stats)
    changed = []
    for i in sorted(where.get(pair, ())):
        before = words[i]
        after = join(before)
        if after == before:
            continue
        for p in zip(before, before[1:]):
            new_stats[p] -= counts[i]
        for p in zip(after, after[1:]):
            new_stats[p] = new_stats.get(p, 0) + counts[i]
            where.setdefault(p, set()).add(i)
        words[i] = after
        changed.append(i)
    stats = {p: n for p, n in new_stats.items() if n}
    return changed
""",
    ),
    "reports-stale-words": (
        "Never checks whether a listed word still holds the pair, so stale indices from where "
        "are returned as changed although their words stay the same.",
        """
def merge_and_update(words, counts, stats, where, pair):
    changed = []
    delta = {}
    for i in sorted(where.pop(pair, ())):
        old = words[i]
        new, j = [], 0
        while j < len(old):
            if old[j : j + 2] == list(pair):
                new.append(pair[0] + pair[1])
                j += 2
            else:
                new.append(old[j])
                j += 1
        for p in zip(old, old[1:]):
            delta[p] = delta.get(p, 0) - counts[i]
        for p in zip(new, new[1:]):
            delta[p] = delta.get(p, 0) + counts[i]
            where.setdefault(p, set()).add(i)
        words[i] = new
        changed.append(i)
    for p, d in delta.items():
        total = stats.get(p, 0) + d
        if total:
            stats[p] = total
        else:
            stats.pop(p, None)
    return changed
""",
    ),
    "visits-every-word": (
        "Loops over range(len(words)) and tests each word for the pair instead of visiting "
        "only the words where lists, throwing away the speed-up the exercise is about.",
        """
def merge_and_update(words, counts, stats, where, pair):
    changed = []
    delta = {}
    for i in range(len(words)):
        old = words[i]
        if not any(p == pair for p in zip(old, old[1:])):
            continue
        new, j = [], 0
        while j < len(old):
            if j + 1 < len(old) and (old[j], old[j + 1]) == pair:
                new.append(old[j] + old[j + 1])
                j += 2
            else:
                new.append(old[j])
                j += 1
        for p in zip(old, old[1:]):
            delta[p] = delta.get(p, 0) - counts[i]
        for p in zip(new, new[1:]):
            delta[p] = delta.get(p, 0) + counts[i]
            where.setdefault(p, set()).add(i)
        words[i] = new
        changed.append(i)
    for p, d in delta.items():
        if stats.get(p, 0) + d:
            stats[p] = stats.get(p, 0) + d
        else:
            stats.pop(p, None)
    where.pop(pair, None)
    return changed
""",
    ),
    "unweighted-and-keeps-zeros": (
        "Two mistakes: moves 1 per pair instead of the word's count, and leaves pairs whose "
        "count reaches zero in stats.",
        """
from collections import Counter


def merge_and_update(words, counts, stats, where, pair):
    changed = []
    for i in sorted(where.get(pair, set())):
        old = words[i]
        new, j = [], 0
        while j < len(old):
            if j + 1 < len(old) and old[j] == pair[0] and old[j + 1] == pair[1]:
                new.append(pair[0] + pair[1])
                j += 2
            else:
                new.append(old[j])
                j += 1
        if new == old:
            continue
        diff = Counter(zip(new, new[1:]))
        diff.subtract(Counter(zip(old, old[1:])))
        for p, d in diff.items():
            stats[p] = stats.get(p, 0) + d
            if d > 0:
                where.setdefault(p, set()).add(i)
        words[i] = new
        changed.append(i)
    return changed
""",
    ),
    "merged-pair-keeps-count": (
        "Updates the neighbours of each join correctly but never takes the joined pair's own "
        "count out of stats, so the merged pair stays in stats with its old count.",
        """
def merge_and_update(words, counts, stats, where, pair):
    left, right = pair
    merged = left + right
    changed = []
    delta = {}

    def bump(p, n):
        delta[p] = delta.get(p, 0) + n

    for i in sorted(where.pop(pair, ())):
        old, n = words[i], counts[i]
        new, j = [], 0
        while j < len(old):
            if j + 1 < len(old) and old[j] == left and old[j + 1] == right:
                new.append(merged)
                j += 2
            else:
                new.append(old[j])
                j += 1
        if new == old:
            continue
        for p in zip(old, old[1:]):
            if p != pair:
                bump(p, -n)
        for p in zip(new, new[1:]):
            bump(p, n)
            where.setdefault(p, set()).add(i)
        words[i] = new
        changed.append(i)
    for p, d in delta.items():
        total = stats.get(p, 0) + d
        if total:
            stats[p] = total
        else:
            stats.pop(p, None)
    return changed
""",
    ),
    "back-to-back-double-count": (
        "Updates both neighbours at each join from the OLD word, so when two joins sit side "
        "by side (a b a b) the pair between them is taken away twice and (ab, a) and (b, ab) "
        "are added where (ab, ab) should be.",
        """
def merge_and_update(words, counts, stats, where, pair):
    a, b = pair
    out = []
    for i in sorted(where.pop(pair, ())):
        old, w = words[i], counts[i]
        sites = []
        j = 0
        while j < len(old) - 1:
            if old[j] == a and old[j + 1] == b:
                sites.append(j)
                j += 2
            else:
                j += 1
        if not sites:
            continue
        for j in sites:
            stats[pair] = stats.get(pair, 0) - w
            if j > 0:
                x = old[j - 1]
                stats[(x, a)] = stats.get((x, a), 0) - w
                stats[(x, a + b)] = stats.get((x, a + b), 0) + w
                where.setdefault((x, a + b), set()).add(i)
            if j + 2 < len(old):
                y = old[j + 2]
                stats[(b, y)] = stats.get((b, y), 0) - w
                stats[(a + b, y)] = stats.get((a + b, y), 0) + w
                where.setdefault((a + b, y), set()).add(i)
        new, j = [], 0
        while j < len(old):
            if j in sites:
                new.append(a + b)
                j += 2
            else:
                new.append(old[j])
                j += 1
        words[i] = new
        out.append(i)
    for p in [p for p, n in stats.items() if n == 0]:
        del stats[p]
    return out
""",
    ),
    "first-site-per-word": (
        "Finds the first place in each word where the pair starts and joins only there, so "
        "a word holding the pair twice keeps its second copy unjoined.",
        """
def merge_and_update(words, counts, stats, where, pair):
    done = []
    for i in sorted(where.pop(pair, set())):
        syms = words[i]
        k = next((k for k in range(len(syms) - 1) if (syms[k], syms[k + 1]) == pair), None)
        if k is None:
            continue
        new = syms[:k] + [syms[k] + syms[k + 1]] + syms[k + 2 :]
        for p in zip(syms, syms[1:]):
            stats[p] -= counts[i]
        for p in zip(new, new[1:]):
            stats[p] = stats.get(p, 0) + counts[i]
            where.setdefault(p, set()).add(i)
        for p in [p for p in stats if stats[p] == 0]:
            del stats[p]
        words[i] = new
        done.append(i)
    return done
""",
    ),
}

HELD_OUT: dict[str, dict[str, tuple[str, str]]] = {
    "pair_counts": PAIR_COUNTS,
    "merge_pair": MERGE_PAIR,
    "train_bpe": TRAIN_BPE,
    "encode_bpe": ENCODE_BPE,
    "merge_and_update": MERGE_AND_UPDATE,
}

"""The project's catalogue of student answers: known-wrong ones, each making one named mistake,
and correct ones written in different styles.

Every entry is source code, exactly what a student would type into an answer cell, so the
same text can be run in-process by the unit tests and pasted into a notebook for the real
nbgrader pipeline. ``WRONG[name]`` maps each mistake name (as ``bpe_course.mistakes`` names it)
to an answer making that mistake; ``CORRECT[name]`` maps a label to a correct answer;
``DELEGATING[name]`` holds answers that call the course's demonstration engine instead of
doing the work (right values in the student's kernel, 0 in the verified grade).

This file holds no expected scores: the tests derive them from the notebooks' points.
"""

from __future__ import annotations

from textwrap import dedent


def _src(text: str) -> str:
    return dedent(text).strip() + "\n"


# A plain correct answer of each exercise, used to fill the other exercises of a student
# whose one answer under test is wrong.
_MERGE = """
def _join(symbols, pair):
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == pair[0] and symbols[i + 1] == pair[1]:
            out.append(pair[0] + pair[1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)
"""

CORRECT: dict[str, dict[str, str]] = {
    "pair_counts": {
        # The standard dict types count as dicts: returned as they are, they earn full marks.
        "Counter": _src("""
            from collections import Counter

            def pair_counts(words):
                counts = Counter()
                for symbols, count in words.items():
                    for pair in zip(symbols, symbols[1:]):
                        counts[pair] += count
                return counts
            """),
        "defaultdict": _src("""
            from collections import defaultdict

            def pair_counts(words):
                counts = defaultdict(int)
                for symbols, count in words.items():
                    for i in range(len(symbols) - 1):
                        counts[symbols[i], symbols[i + 1]] += count
                return counts
            """),
        "comprehension": _src("""
            def pair_counts(words):
                pairs = [(p, n) for w, n in words.items() for p in zip(w, w[1:])]
                out = {}
                for p, n in pairs:
                    out[p] = out.get(p, 0) + n
                return out
            """),
    },
    "merge_pair": {
        "recursion": _src("""
            def merge_pair(symbols, pair):
                if len(symbols) < 2:
                    return tuple(symbols)
                if (symbols[0], symbols[1]) == tuple(pair):
                    return (symbols[0] + symbols[1],) + merge_pair(symbols[2:], pair)
                return (symbols[0],) + merge_pair(symbols[1:], pair)
            """),
        "skip flag": _src("""
            def merge_pair(symbols, pair):
                out = []
                skip = False
                for i, s in enumerate(symbols):
                    if skip:
                        skip = False
                        continue
                    if i + 1 < len(symbols) and (s, symbols[i + 1]) == pair:
                        out.append(s + symbols[i + 1])
                        skip = True
                    else:
                        out.append(s)
                return tuple(out)
            """),
        "while loop": _src(
            _MERGE + "\n\ndef merge_pair(symbols, pair):\n    return _join(symbols, pair)\n"
        ),
    },
    "train_bpe": {
        "naive loop": _src(
            _MERGE
            + """

def train_bpe(word_counts, num_merges):
    words = {tuple(w): n for w, n in word_counts.items()}
    merges = []
    for _ in range(num_merges):
        counts = {}
        for symbols, n in words.items():
            for p in zip(symbols, symbols[1:]):
                counts[p] = counts.get(p, 0) + n
        if not counts:
            break
        best = min(counts, key=lambda p: (-counts[p], p))
        merges.append(best)
        words = {_join(s, best): n for s, n in words.items()}
    return merges
"""
        ),
        "sorted candidates": _src(
            _MERGE
            + """

def train_bpe(word_counts, num_merges):
    words = [(list(w), n) for w, n in word_counts.items()]
    merges = []
    while len(merges) < num_merges:
        counts = {}
        for symbols, n in words:
            for p in zip(symbols, symbols[1:]):
                counts[p] = counts.get(p, 0) + n
        if not counts:
            break
        ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        best = ranked[0][0]
        merges.append(best)
        words = [(list(_join(s, best)), n) for s, n in words]
    return merges
"""
        ),
        "heap trainer": _src("""
            import heapq

            def train_bpe(word_counts, num_merges):
                words = [list(w) for w in word_counts]
                counts = list(word_counts.values())
                stats, where = {}, {}
                for i, w in enumerate(words):
                    for p in zip(w, w[1:]):
                        stats[p] = stats.get(p, 0) + counts[i]
                        where.setdefault(p, set()).add(i)
                heap = [(-n, p) for p, n in stats.items()]
                heapq.heapify(heap)
                merges = []
                while heap and len(merges) < num_merges:
                    neg, best = heapq.heappop(heap)
                    if stats.get(best) != -neg:
                        continue
                    merges.append(best)
                    touched = set()
                    for i in sorted(where.pop(best, ())):
                        old = words[i]
                        new, j = [], 0
                        while j < len(old):
                            if j + 1 < len(old) and (old[j], old[j + 1]) == best:
                                new.append(old[j] + old[j + 1])
                                j += 2
                            else:
                                new.append(old[j])
                                j += 1
                        if len(new) == len(old):
                            continue
                        for p in zip(old, old[1:]):
                            stats[p] -= counts[i]
                            touched.add(p)
                        for p in zip(new, new[1:]):
                            stats[p] = stats.get(p, 0) + counts[i]
                            where.setdefault(p, set()).add(i)
                            touched.add(p)
                        words[i] = new
                    for p in touched:
                        if stats.get(p) == 0:
                            del stats[p]
                        elif p in stats:
                            heapq.heappush(heap, (-stats[p], p))
                return merges
            """),
    },
    "encode_bpe": {
        "min over pairs by rank": _src("""
            def encode_bpe(word, merges):
                ranks = {}
                for r, p in enumerate(merges):
                    ranks.setdefault(tuple(p), r)
                symbols = list(word)
                while len(symbols) > 1:
                    pairs = list(zip(symbols, symbols[1:]))
                    best = min(pairs, key=lambda p: ranks.get(p, float("inf")))
                    if best not in ranks:
                        break
                    i = pairs.index(best)
                    symbols[i : i + 2] = [best[0] + best[1]]
                return symbols
            """),
        "lowest rank loop": _src("""
            def encode_bpe(word, merges):
                rank = {}
                for r, p in enumerate(merges):
                    rank.setdefault(tuple(p), r)
                symbols = list(word)
                while True:
                    best = None
                    for i in range(len(symbols) - 1):
                        r = rank.get((symbols[i], symbols[i + 1]))
                        if r is not None and (best is None or r < best[0]):
                            best = (r, i)
                    if best is None:
                        return symbols
                    i = best[1]
                    symbols[i : i + 2] = [symbols[i] + symbols[i + 1]]
            """),
        "recursion": _src("""
            def encode_bpe(word, merges):
                rank = {tuple(p): r for r, p in reversed(list(enumerate(merges)))}

                def go(symbols):
                    pairs = list(zip(symbols, symbols[1:]))
                    found = [(rank[p], i) for i, p in enumerate(pairs) if p in rank]
                    if not found:
                        return symbols
                    _, i = min(found)
                    return go(symbols[:i] + [symbols[i] + symbols[i + 1]] + symbols[i + 2 :])

                return go(list(word))
            """),
    },
    "merge_and_update": {
        "batched deltas": _src("""
            def merge_and_update(words, counts, stats, where, pair):
                delta, changed = {}, []
                for i in sorted(where.pop(pair, set())):
                    old = words[i]
                    new, j = [], 0
                    while j < len(old):
                        if j + 1 < len(old) and old[j] == pair[0] and old[j + 1] == pair[1]:
                            new.append(pair[0] + pair[1])
                            j += 2
                        else:
                            new.append(old[j])
                            j += 1
                    if len(new) == len(old):
                        continue
                    for p in zip(old, old[1:]):
                        delta[p] = delta.get(p, 0) - counts[i]
                    for p in zip(new, new[1:]):
                        delta[p] = delta.get(p, 0) + counts[i]
                        where.setdefault(p, set()).add(i)
                    words[i] = new
                    changed.append(i)
                for p, d in delta.items():
                    stats[p] = stats.get(p, 0) + d
                    if stats[p] == 0:
                        del stats[p]
                return changed
            """),
        "one occurrence at a time": _src("""
            def merge_and_update(words, counts, stats, where, pair):
                changed = []
                for i in sorted(where.get(pair, ())):
                    w = list(words[i])
                    j, hit = 0, False
                    while j < len(w) - 1:
                        if (w[j], w[j + 1]) == pair:
                            hit = True
                            for p in zip(w, w[1:]):
                                stats[p] -= counts[i]
                                if stats[p] == 0:
                                    del stats[p]
                            w[j : j + 2] = [w[j] + w[j + 1]]
                            for p in zip(w, w[1:]):
                                stats[p] = stats.get(p, 0) + counts[i]
                                where.setdefault(p, set()).add(i)
                        j += 1
                    if hit:
                        words[i] = w
                        changed.append(i)
                return changed
            """),
    },
}


WRONG: dict[str, dict[str, str]] = {
    "pair_counts": {
        "unweighted counts": _src("""
            def pair_counts(words):
                counts = {}
                for symbols in words:
                    for pair in zip(symbols, symbols[1:]):
                        counts[pair] = counts.get(pair, 0) + 1
                return counts
            """),
        "a pair counted once per word": _src("""
            def pair_counts(words):
                counts = {}
                for symbols, n in words.items():
                    for pair in set(zip(symbols, symbols[1:])):
                        counts[pair] = counts.get(pair, 0) + n
                return counts
            """),
        "wrong return types": _src("""
            def pair_counts(words):
                counts = {}
                for symbols, n in words.items():
                    for pair in zip(symbols, symbols[1:]):
                        counts[pair] = counts.get(pair, 0.0) + n
                return counts
            """),
        "changing the caller's input": _src("""
            def pair_counts(words):
                counts = {}
                while words:
                    symbols, n = words.popitem()
                    for pair in zip(symbols, symbols[1:]):
                        counts[pair] = counts.get(pair, 0) + n
                return counts
            """),
    },
    "merge_pair": {
        "right-to-left merges": _src("""
            def merge_pair(symbols, pair):
                out, i = [], len(symbols) - 1
                while i >= 0:
                    if i > 0 and (symbols[i - 1], symbols[i]) == pair:
                        out.insert(0, symbols[i - 1] + symbols[i])
                        i -= 2
                    else:
                        out.insert(0, symbols[i])
                        i -= 1
                return tuple(out)
            """),
        "overlapping merges": _src("""
            def merge_pair(symbols, pair):
                out = []
                for i in range(len(symbols)):
                    if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
                        out.append(symbols[i] + symbols[i + 1])
                    else:
                        out.append(symbols[i])
                return tuple(out)
            """),
        "string replacement across symbol boundaries": _src("""
            def merge_pair(symbols, pair):
                text = " ".join(symbols).replace(pair[0] + " " + pair[1], pair[0] + pair[1])
                return tuple(text.split())
            """),
        # Found by a student: padding keeps whole symbols, and the visible tests used to pass.
        "string replacement missing back-to-back pairs": _src("""
            def merge_pair(symbols, pair):
                text = " " + " ".join(symbols) + " "
                text = text.replace(" " + pair[0] + " " + pair[1] + " ", " " + "".join(pair) + " ")
                return tuple(text.split())
            """),
        "wrong return types": _src("""
            def merge_pair(symbols, pair):
                out, i = [], 0
                while i < len(symbols):
                    if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
                        out.append(symbols[i] + symbols[i + 1])
                        i += 2
                    else:
                        out.append(symbols[i])
                        i += 1
                return out
            """),
        # Measured in a class of 16: the per-student cases caught it for some students only.
        "symbols compared by their joined text": _src("""
            def merge_pair(symbols, pair):
                out, i = [], 0
                while i < len(symbols):
                    here = symbols[i]
                    nxt = symbols[i + 1] if i + 1 < len(symbols) else None
                    if nxt is not None and here + nxt == "".join(pair):
                        out.append(here + nxt)
                        i += 2
                    else:
                        out.append(here)
                        i += 1
                return tuple(out)
            """),
    },
    "train_bpe": {},
    "encode_bpe": {},
    "merge_and_update": {},
}


def _trainer(choose: str = "min(counts, key=lambda p: (-counts[p], p))", **change: str) -> str:
    """A naive trainer with one line swapped, as a student might have written it."""
    count = change.get("count", "counts[p] = counts.get(p, 0) + n")
    pairs = change.get("pairs", "zip(s, s[1:])")
    loop = change.get("loop", "range(num_merges)")
    stop = change.get("stop", "")
    merge = change.get("merge", _MERGE)
    result = change.get("result", "merges.append(best)")
    prelude = change.get("prelude", "")
    return _src(
        merge
        + f"""

def train_bpe(word_counts, num_merges):
    {prelude}words = {{tuple(w): n for w, n in word_counts.items()}}
    merges = []
    for _ in {loop}:
        counts = {{}}
        for s, n in words.items():
            for p in {pairs}:
                {count}
        if not counts:
            break
        best = {choose}
        {stop}{result}
        words = {{_join(s, tuple(best)): n for s, n in words.items()}}
    return merges
"""
    )


_RIGHT_TO_LEFT = """
def _join(symbols, pair):
    out, i = [], len(symbols) - 1
    while i >= 0:
        if i > 0 and (symbols[i - 1], symbols[i]) == pair:
            out.insert(0, symbols[i - 1] + symbols[i])
            i -= 2
        else:
            out.insert(0, symbols[i])
            i -= 1
    return tuple(out)
"""
_OVERLAPPING = """
def _join(symbols, pair):
    return tuple(
        symbols[i] + symbols[i + 1]
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair
        else symbols[i]
        for i in range(len(symbols))
    )
"""
_STRING = """
def _join(symbols, pair):
    return tuple(" ".join(symbols).replace(" ".join(pair), "".join(pair)).split(" "))
"""

WRONG["train_bpe"] = {
    "ties broken by the largest pair": _trainer("max(counts, key=lambda p: (counts[p], p))"),
    "ties broken by the concatenated string": _trainer(
        "min(counts, key=lambda p: (-counts[p], p[0] + p[1]))"
    ),
    "ties broken by first appearance": _trainer("max(counts, key=counts.get)"),
    "unweighted counts": _trainer(count="counts[p] = counts.get(p, 0) + 1"),
    "a pair counted once per word": _trainer(pairs="set(zip(s, s[1:]))"),
    "stopping when counts fall to 1": _trainer(
        stop="if counts[best] == 1:\n            break\n        "
    ),
    "one merge too few": _trainer(loop="range(num_merges - 1)"),
    "wrong return types": _trainer(result="merges.append(list(best))"),
    "changing the caller's input": _trainer(
        prelude="for w in list(word_counts):\n"
        "        word_counts[tuple(w)] = word_counts.pop(w)\n    "
    ),
    "right-to-left merges": _trainer(merge=_RIGHT_TO_LEFT),
    "overlapping merges": _trainer(merge=_OVERLAPPING),
    "string replacement across symbol boundaries": _trainer(merge=_STRING),
}


def _replayer(merge: str, result: str = "list(symbols)") -> str:
    return _src(
        merge
        + f"""

def encode_bpe(word, merges):
    symbols = tuple(word)
    for pair in merges:
        symbols = _join(symbols, tuple(pair))
    return {result}
"""
    )


WRONG["encode_bpe"] = {
    "leftmost pair instead of lowest rank": _src("""
        def encode_bpe(word, merges):
            known = set(merges)
            symbols = list(word)
            i = 0
            while i < len(symbols) - 1:
                if (symbols[i], symbols[i + 1]) in known:
                    symbols[i : i + 2] = [symbols[i] + symbols[i + 1]]
                    i = 0
                else:
                    i += 1
            return symbols
        """),
    # Found by a student: the visible tests used to pass it.
    "joining at the first copy of the left symbol": _src("""
        def encode_bpe(word, merges):
            ranks = {}
            for r, p in enumerate(merges):
                ranks.setdefault(tuple(p), r)
            tokens = list(word)
            while True:
                present = [p for p in zip(tokens, tokens[1:]) if p in ranks]
                if not present:
                    return tokens
                left, right = min(present, key=ranks.get)
                i = tokens.index(left)
                tokens[i : i + 2] = [left + right]
        """),
    "right-to-left merges": _replayer(_RIGHT_TO_LEFT),
    "overlapping merges": _replayer(_OVERLAPPING),
    "string replacement across symbol boundaries": _replayer(_STRING),
    "wrong return types": _replayer(_MERGE, result="symbols"),
    "changing the caller's input": _src(
        _MERGE
        + """

def encode_bpe(word, merges):
    symbols = tuple(word)
    while merges:
        symbols = _join(symbols, tuple(merges.pop(0)))
    return list(symbols)
"""
    ),
}


def _updater(**change: str) -> str:
    """The reference-style update with one step changed."""
    candidates = change.get("candidates", "sorted(where.pop(pair, set()))")
    stale = change.get("stale", "continue")
    weight = change.get("weight", "counts[i]")
    index = change.get("index", "where.setdefault(p, set()).add(i)")
    lose_if = change.get("lose_if", "True")
    gain_if = change.get("gain_if", "True")
    clean = change.get("clean", "if stats[p] == 0:\n            del stats[p]")
    store = change.get("store", "new")
    return _src(f"""
def merge_and_update(words, counts, stats, where, pair):
    delta, changed = {{}}, []
    for i in {candidates}:
        old = words[i]
        new, j = [], 0
        while j < len(old):
            if j + 1 < len(old) and old[j] == pair[0] and old[j + 1] == pair[1]:
                new.append(pair[0] + pair[1])
                j += 2
            else:
                new.append(old[j])
                j += 1
        if len(new) == len(old):
            changed.append(i) if {stale!r} == "report" else None
            continue
        for p in zip(old, old[1:]):
            if {lose_if}:
                delta[p] = delta.get(p, 0) - {weight}
        for p in zip(new, new[1:]):
            if {gain_if}:
                delta[p] = delta.get(p, 0) + {weight}
            {index}
        words[i] = {store}
        changed.append(i)
    for p, d in delta.items():
        stats[p] = stats.get(p, 0) + d
        {clean}
    return changed
""")


WRONG["merge_and_update"] = {
    "iterating over all words": _updater(
        candidates="[k for k, w in enumerate(words) if tuple(pair) in zip(w, w[1:])]"
    ),
    "zero entries left in stats": _updater(clean="pass"),
    "where not updated": _updater(index="pass"),
    "stale indices reported as changed": _updater(stale="report"),
    "unweighted counts": _updater(weight="1"),
    "wrong return types": _updater(store="tuple(new)"),
    # Found by a student: the visible tests used to pass it (a set of indices such as {10, 3}
    # iterates as [10, 3]).
    "indices not in increasing order": _updater(candidates="where.pop(pair, set())"),
    # Only the merged pair loses counts; the pairs around the new symbol gain them.
    "old neighbour pairs not subtracted": _updater(
        lose_if="p == tuple(pair)", gain_if="pair[0] + pair[1] in p"
    ),
    # Every old pair of the word loses its count; only the pairs far from the join come back.
    "new neighbour pairs not added": _updater(gain_if="pair[0] + pair[1] not in p"),
    # Measured in a class of 16: the per-student cases caught it for some students only.
    "a pair between two joins updated twice": _src("""
        def merge_and_update(words, counts, stats, where, pair):
            a, b = pair
            changed = []
            for i in sorted(where.pop(pair, set())):
                old, n = words[i], counts[i]
                new, j = [], 0
                while j < len(old):
                    if j + 1 < len(old) and old[j] == a and old[j + 1] == b:
                        new.append(a + b)
                        j += 2
                    else:
                        new.append(old[j])
                        j += 1
                if len(new) == len(old):
                    continue
                delta, j, k = {pair: 0}, 0, 0
                while j < len(old):
                    if j + 1 < len(old) and old[j] == a and old[j + 1] == b:
                        delta[pair] -= n
                        if j > 0:  # (x, a) becomes (x, ab)
                            gone, born = (old[j - 1], a), (new[k - 1], a + b)
                            delta[gone] = delta.get(gone, 0) - n
                            delta[born] = delta.get(born, 0) + n
                            where.setdefault(born, set()).add(i)
                        if j + 2 < len(old):  # (b, y) becomes (ab, y)
                            gone, born = (b, old[j + 2]), (a + b, new[k + 1])
                            delta[gone] = delta.get(gone, 0) - n
                            delta[born] = delta.get(born, 0) + n
                            where.setdefault(born, set()).add(i)
                        j += 2
                    else:
                        j += 1
                    k += 1
                for p, d in delta.items():
                    stats[p] = stats.get(p, 0) + d
                    if stats[p] == 0:
                        del stats[p]
                words[i] = new
                changed.append(i)
            return changed
        """),
}


# Wrong answers of another kind: they hand the work to the course's demonstration engine
# (bpe_course.engine). Inside the student's kernel the engine works, so nbgrader's hidden
# tests pass them; outside it (the verify sandbox, whose score is the grade) the engine
# refuses, so each must score 0 in the verified grade.
DELEGATING: dict[str, dict[str, str]] = {
    "train_bpe": {
        "learn_merges": _src("""
            from bpe_course import learn_merges

            def train_bpe(wc, n):
                return learn_merges(wc, n)
            """),
    },
    "encode_bpe": {
        "Encoder": _src("""
            from bpe_course import Encoder

            def encode_bpe(w, m):
                return Encoder(m).encode_chunk(w)
            """),
    },
    "merge_pair": {
        "engine._join": _src("""
            import bpe_course.engine

            def merge_pair(s, p):
                return tuple(bpe_course.engine._join(list(s), p))
            """),
    },
}


# More wrong answers: another way of making a known mistake (label -> (mistake, source)), or
# a mistake no variant of ours reproduces, or two at once (mistake None): those must lose
# points and be named as nothing, since any name would send the student the wrong way.
MORE_WRONG: dict[str, dict[str, tuple[str | None, str]]] = {
    "pair_counts": {
        "pairs the letters of the joined word": (
            "pairs of characters instead of symbols",
            _src("""
                def pair_counts(words):
                    counts = {}
                    for symbols, n in words.items():
                        text = "".join(symbols)
                        for i in range(len(text) - 1):
                            pair = (text[i], text[i + 1])
                            counts[pair] = counts.get(pair, 0) + n
                    return counts
                """),
        ),
        "range stops one early": (
            "the last pair of each word not counted",
            _src("""
                def pair_counts(words):
                    counts = {}
                    for symbols, n in words.items():
                        for i in range(len(symbols) - 2):
                            pair = (symbols[i], symbols[i + 1])
                            counts[pair] = counts.get(pair, 0) + n
                    return counts
                """),
        ),
        "assigns the count instead of adding it": (
            "a count set instead of added",
            _src("""
                def pair_counts(words):
                    counts = {}
                    for symbols, n in words.items():
                        for pair in zip(symbols, symbols[1:]):
                            counts[pair] = n
                    return counts
                """),
        ),
        "unweighted and once per word": (
            None,
            _src("""
                def pair_counts(words):
                    counts = {}
                    for symbols in words:
                        for pair in set(zip(symbols, symbols[1:])):
                            counts[pair] = counts.get(pair, 0) + 1
                    return counts
                """),
        ),
    },
    "merge_pair": {
        "joins the first occurrence and stops": (
            "only the first occurrence joined",
            _src("""
                def merge_pair(symbols, pair):
                    symbols = list(symbols)
                    for i in range(len(symbols) - 1):
                        if (symbols[i], symbols[i + 1]) == tuple(pair):
                            symbols[i : i + 2] = [symbols[i] + symbols[i + 1]]
                            break
                    return tuple(symbols)
                """),
        ),
        "moves on by one after a join": (
            "overlapping merges",
            _src("""
                def merge_pair(symbols, pair):
                    out, i = [], 0
                    while i < len(symbols):
                        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
                            out.append(symbols[i] + symbols[i + 1])
                        else:
                            out.append(symbols[i])
                        i += 1
                    return tuple(out)
                """),
        ),
        "scans one symbol short": (
            "the last symbol dropped",
            _src("""
                def merge_pair(symbols, pair):
                    out, i = [], 0
                    while i < len(symbols) - 1:
                        if (symbols[i], symbols[i + 1]) == pair:
                            out.append(symbols[i] + symbols[i + 1])
                            i += 2
                        else:
                            out.append(symbols[i])
                            i += 1
                    return tuple(out)
                """),
        ),
        "checks only the left half": (
            "the pair's second symbol never checked",
            _src("""
                def merge_pair(symbols, pair):
                    out, i = [], 0
                    while i < len(symbols):
                        if i + 1 < len(symbols) and symbols[i] == pair[0]:
                            out.append(symbols[i] + symbols[i + 1])
                            i += 2
                        else:
                            out.append(symbols[i])
                            i += 1
                    return tuple(out)
                """),
        ),
    },
    "train_bpe": {
        "merges the first occurrence only": (
            "only the first occurrence joined",
            _trainer(
                merge="""
def _join(symbols, pair):
    symbols = list(symbols)
    for i in range(len(symbols) - 1):
        if (symbols[i], symbols[i + 1]) == pair:
            return tuple(symbols[:i] + [symbols[i] + symbols[i + 1]] + symbols[i + 2 :])
    return tuple(symbols)
"""
            ),
        ),
        "counts the letters of the joined word": (
            "pairs counted on the words before the merges",
            _trainer(pairs='zip("".join(s), "".join(s)[1:])'),
        ),
        "changes its argument as it goes": (
            "changing the caller's input",
            _trainer(
                prelude="for w in list(word_counts):\n"
                "        word_counts[w] = word_counts[w] + 0 * len(w)\n"
                "    word_counts.clear() if num_merges > 3 else None\n"
                "    word_counts.update({'x': 1}) if num_merges > 3 else None\n    "
            ),
        ),
        "ties go to the last pair counted": (
            "ties not broken by the smallest pair",
            _trainer("sorted(counts, key=counts.get)[-1]"),
        ),
    },
    "encode_bpe": {
        "the fewest tokens the table allows": (
            "the shortest segmentation instead of merge order",
            _src("""
                def encode_bpe(word, merges):
                    vocab = set(word) | {a + b for a, b in merges}
                    best = {0: []}
                    for end in range(1, len(word) + 1):
                        options = [
                            best[s] + [word[s:end]]
                            for s in range(end)
                            if s in best and word[s:end] in vocab
                        ]
                        best[end] = min(options, key=len)
                    return best[len(word)]
                """),
        ),
        "a token for the empty word": (
            "a token for the empty word",
            _src("""
                def encode_bpe(word, merges):
                    ranks = {}
                    for r, p in enumerate(merges):
                        ranks.setdefault(tuple(p), r)
                    symbols = list(word) or [""]
                    while True:
                        found = [
                            (ranks[p], i)
                            for i, p in enumerate(zip(symbols, symbols[1:]))
                            if p in ranks
                        ]
                        if not found:
                            return symbols
                        _, i = min(found)
                        symbols[i : i + 2] = [symbols[i] + symbols[i + 1]]
                """),
        ),
        "replays the table with a first-only join": (
            "only the first occurrence joined",
            _src("""
                def encode_bpe(word, merges):
                    symbols = list(word)
                    for left, right in merges:
                        for i in range(len(symbols) - 1):
                            if symbols[i] == left and symbols[i + 1] == right:
                                symbols[i : i + 2] = [left + right]
                                break
                    return symbols
                """),
        ),
        "replays the table once, in order": (
            "the table replayed once, in order",
            _replayer(_MERGE),
        ),
    },
    "merge_and_update": {
        "joins the first occurrence only": (
            "only the first occurrence joined",
            _updater(
                store="new",
                candidates="sorted(where.pop(pair, set()))",
            ).replace(
                "                new.append(pair[0] + pair[1])\n                j += 2\n",
                "                new.append(pair[0] + pair[1])\n"
                "                new.extend(old[j + 2 :])\n                break\n",
            ),
        ),
        "unweighted, and where not updated": (None, _updater(weight="1", index="pass")),
    },
}

MORE_WRONG["pair_counts"]["a Counter of every pair, once each"] = (
    "unweighted counts",
    _src("""
        from collections import Counter

        def pair_counts(words):
            return Counter(p for symbols in words for p in zip(symbols, symbols[1:]))
        """),
)
MORE_WRONG["merge_pair"]["joins in place from the right end"] = (
    "right-to-left merges",
    _src("""
        def merge_pair(symbols, pair):
            s = list(symbols)
            i = len(s) - 2
            while i >= 0:
                if (s[i], s[i + 1]) == tuple(pair):
                    s[i : i + 2] = [s[i] + s[i + 1]]
                    i -= 2
                else:
                    i -= 1
            return tuple(s)
        """),
)
MORE_WRONG["train_bpe"]["the best of counts.items()"] = (
    "ties broken by first appearance",
    _trainer("max(counts.items(), key=lambda item: item[1])[0]"),
)
MORE_WRONG["train_bpe"]["a while loop that stops one early"] = (
    "one merge too few",
    _trainer(loop="range(1, num_merges)"),
)
MORE_WRONG["encode_bpe"]["the first known pair, scanning again"] = (
    "leftmost pair instead of lowest rank",
    _src("""
        def encode_bpe(word, merges):
            symbols = list(word)
            changed = True
            while changed:
                changed = False
                for i in range(len(symbols) - 1):
                    if (symbols[i], symbols[i + 1]) in merges:
                        symbols[i : i + 2] = [symbols[i] + symbols[i + 1]]
                        changed = True
                        break
            return symbols
        """),
)
MORE_WRONG["merge_and_update"]["visits where[pair] as the set gives it"] = (
    "indices not in increasing order",
    _updater(candidates="list(where.pop(pair, set()))"),
)

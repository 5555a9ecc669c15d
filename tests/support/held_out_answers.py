"""Wrong answers the diagnosis has never seen, written apart from its catalogue of mistakes.

``HELD_OUT[exercise][label]`` is ``(what the student did wrong, the answer's source)`` for the
five exercises ``pair_counts``, ``merge_pair``, ``train_bpe``, ``encode_bpe`` and
``merge_and_update``, nine answers each. Each source is a complete answer cell: it defines the
exercise's function with the notebook's signature, plus any helpers it needs, using only the
standard library. They were written from the notebooks' exercise text and the reference
solutions alone, as different students might write them, to measure how often the course
names a mistake it was not built from. Every answer differs from ``solutions`` on some small
input (checked on seeded random inputs when the set was written).

But: this is data, not a test. It does not say which mistake the diagnosis should name, it
holds no right answers, and importing it runs none of the sources: they are text, to be
run only where the course runs students' code.
"""

from __future__ import annotations

from textwrap import dedent


def _answer(what: str, source: str) -> tuple[str, str]:
    """A (description, source) pair with the source's common indent removed."""
    return what, dedent(source).lstrip("\n")


HELD_OUT: dict[str, dict[str, tuple[str, str]]] = {
    "pair_counts": {
        "adds-one-per-pair": _answer(
            "adds 1 for each pair instead of the word's count",
            """
            def pair_counts(words):
                counts = {}
                for word in words:
                    for i in range(len(word) - 1):
                        pair = (word[i], word[i + 1])
                        counts[pair] = counts.get(pair, 0) + 1
                return counts
            """,
        ),
        "stops-one-pair-early": _answer(
            "index loop ends one place too soon, so each word's last pair is never counted",
            """
            def pair_counts(words):
                counts = {}
                for word, n in words.items():
                    for i in range(len(word) - 2):
                        pair = (word[i], word[i + 1])
                        counts[pair] = counts.get(pair, 0) + n
                return counts
            """,
        ),
        "starts-one-pair-late": _answer(
            "index loop starts at 1, so each word's first pair is never counted",
            """
            def pair_counts(words):
                result = {}
                for symbols, freq in words.items():
                    i = 1
                    while i < len(symbols) - 1:
                        key = (symbols[i], symbols[i + 1])
                        if key in result:
                            result[key] += freq
                        else:
                            result[key] = freq
                        i += 1
                return result
            """,
        ),
        "distinct-pairs-per-word": _answer(
            "counts each distinct pair once per word, so repeats inside a word are lost",
            """
            from collections import defaultdict


            def pair_counts(words):
                counts = defaultdict(int)
                for word, n in words.items():
                    for pair in set(zip(word, word[1:])):
                        counts[pair] += n
                return dict(counts)
            """,
        ),
        "string-count": _answer(
            "glues the word into a string and uses str.count, which skips overlaps and "
            "matches across symbol boundaries",
            """
            def pair_counts(words):
                counts = {}
                for word, n in words.items():
                    text = "".join(word)
                    for left, right in set(zip(word, word[1:])):
                        found = text.count(left + right)
                        counts[(left, right)] = counts.get((left, right), 0) + found * n
                return counts
            """,
        ),
        "overwrites-total": _answer(
            "assigns the word's count instead of adding to the running total",
            """
            def pair_counts(words):
                counts = {}
                for word, n in words.items():
                    for pair in zip(word, word[1:]):
                        counts[pair] = n
                return counts
            """,
        ),
        "wraps-around": _answer(
            "uses a modulo index, so the last symbol is paired with the first",
            """
            def pair_counts(words):
                counts = {}
                for word, n in words.items():
                    size = len(word)
                    for i in range(size):
                        pair = (word[i], word[(i + 1) % size])
                        counts[pair] = counts.get(pair, 0) + n
                return counts
            """,
        ),
        "empties-argument": _answer(
            "consumes the argument with popitem, leaving the caller's dict empty",
            """
            from collections import Counter


            def pair_counts(words):
                counts = Counter()
                while words:
                    word, n = words.popitem()
                    for pair in zip(word, word[1:]):
                        counts[pair] += n
                return counts
            """,
        ),
        "returns-ranked-list": _answer(
            "returns Counter.most_common(), a list of (pair, count), instead of a dict",
            """
            from collections import Counter


            def pair_counts(words):
                tally = Counter()
                for word, n in words.items():
                    for pair in zip(word, word[1:]):
                        tally[pair] += n
                return tally.most_common()
            """,
        ),
    },
    "merge_pair": {
        "steps-one-after-join": _answer(
            "moves on by one symbol after a join, so the right half is kept as well",
            """
            def merge_pair(symbols, pair):
                out = []
                i = 0
                while i < len(symbols):
                    if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
                        out.append(pair[0] + pair[1])
                    else:
                        out.append(symbols[i])
                    i += 1
                return tuple(out)
            """,
        ),
        "space-join-replace": _answer(
            "joins the symbols with spaces and uses str.replace, which matches inside "
            "longer symbols",
            """
            def merge_pair(symbols, pair):
                text = " ".join(symbols)
                text = text.replace(pair[0] + " " + pair[1], pair[0] + pair[1])
                return tuple(text.split(" ")) if text else ()
            """,
        ),
        "loses-last-symbol": _answer(
            "loops over positions 0..n-2 and forgets the last symbol when it is not joined",
            """
            def merge_pair(symbols, pair):
                new = []
                skip = False
                for i in range(len(symbols) - 1):
                    if skip:
                        skip = False
                        continue
                    if symbols[i] == pair[0] and symbols[i + 1] == pair[1]:
                        new.append(symbols[i] + symbols[i + 1])
                        skip = True
                    else:
                        new.append(symbols[i])
                return tuple(new)
            """,
        ),
        "scans-right-to-left": _answer(
            "scans from the right end, so overlapping occurrences join the wrong way",
            """
            def merge_pair(symbols, pair):
                out = []
                i = len(symbols) - 1
                while i >= 0:
                    if i > 0 and symbols[i - 1] == pair[0] and symbols[i] == pair[1]:
                        out.append(pair[0] + pair[1])
                        i -= 2
                    else:
                        out.append(symbols[i])
                        i -= 1
                return tuple(reversed(out))
            """,
        ),
        "compares-spelling": _answer(
            "compares the two symbols' concatenation with the pair's, so (ab, c) matches (a, bc)",
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
        "returns-list": _answer(
            "returns a list, not the fresh tuple the exercise asks for",
            """
            def merge_pair(symbols, pair):
                merged = []
                i = 0
                while i < len(symbols):
                    if symbols[i : i + 2] == tuple(pair):
                        merged.append("".join(pair))
                        i += 2
                    else:
                        merged.append(symbols[i])
                        i += 1
                return merged
            """,
        ),
        "first-occurrence-only": _answer(
            "joins only the first occurrence and returns",
            """
            def merge_pair(symbols, pair):
                for i, (a, b) in enumerate(zip(symbols, symbols[1:])):
                    if (a, b) == pair:
                        return symbols[:i] + (a + b,) + symbols[i + 2 :]
                return tuple(symbols)
            """,
        ),
        "marks-overlapping-hits": _answer(
            "marks every position where the pair starts, overlaps included, then joins "
            "at each mark",
            """
            def merge_pair(symbols, pair):
                hits = {i for i, p in enumerate(zip(symbols, symbols[1:])) if p == pair}
                out = []
                for i, s in enumerate(symbols):
                    if i in hits:
                        out.append(pair[0] + pair[1])
                    elif i - 1 in hits:
                        continue
                    else:
                        out.append(s)
                return tuple(out)
            """,
        ),
        "checks-left-twice": _answer(
            "tests the right symbol against pair[0] (a copy-paste slip), so only the left "
            "half is really checked",
            """
            def merge_pair(symbols, pair):
                a, b = pair
                out = []
                i = 0
                while i < len(symbols):
                    if i < len(symbols) - 1 and symbols[i] == a and symbols[i + 1] == a:
                        out.append(a + b)
                        i += 2
                    else:
                        out.append(symbols[i])
                        i += 1
                return tuple(out)
            """,
        ),
    },
    "train_bpe": {
        "one-merge-short": _answer(
            "runs range(1, num_merges), learning one merge fewer than asked",
            """
            def train_bpe(word_counts, num_merges):
                words = {tuple(w): c for w, c in word_counts.items()}
                merges = []
                for _ in range(1, num_merges):
                    counts = {}
                    for word, c in words.items():
                        for p in zip(word, word[1:]):
                            counts[p] = counts.get(p, 0) + c
                    if not counts:
                        break
                    best = min(counts, key=lambda p: (-counts[p], p))
                    merges.append(best)
                    new = {}
                    for word, c in words.items():
                        out, i = [], 0
                        while i < len(word):
                            if word[i : i + 2] == best:
                                out.append(best[0] + best[1])
                                i += 2
                            else:
                                out.append(word[i])
                                i += 1
                        new[tuple(out)] = c
                    words = new
                return merges
            """,
        ),
        "max-over-set": _answer(
            "takes max(set(counts), key=counts.get), so ties go to whatever the set yields first "
            "(which inputs go wrong depends on PYTHONHASHSEED)",
            """
            def merge_word(word, pair):
                out, i = [], 0
                while i < len(word):
                    if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
                        out.append(word[i] + word[i + 1])
                        i += 2
                    else:
                        out.append(word[i])
                        i += 1
                return tuple(out)


            def train_bpe(word_counts, num_merges):
                words = {tuple(w): n for w, n in word_counts.items()}
                merges = []
                while len(merges) < num_merges:
                    counts = {}
                    for word, n in words.items():
                        for p in zip(word, word[1:]):
                            counts[p] = counts.get(p, 0) + n
                    if not counts:
                        break
                    best = max(set(counts), key=counts.get)
                    merges.append(best)
                    words = {merge_word(w, best): n for w, n in words.items()}
                return merges
            """,
        ),
        "sorted-last": _answer(
            "sorts by (count, pair) and takes the last, so a tie goes to the largest pair",
            """
            def train_bpe(word_counts, num_merges):
                corpus = [(list(w), n) for w, n in word_counts.items()]
                merges = []
                for _ in range(num_merges):
                    stats = {}
                    for syms, n in corpus:
                        for i in range(len(syms) - 1):
                            key = (syms[i], syms[i + 1])
                            stats[key] = stats.get(key, 0) + n
                    if not stats:
                        break
                    best = sorted(stats, key=lambda p: (stats[p], p))[-1]
                    merges.append(best)
                    for syms, _n in corpus:
                        i = 0
                        while i < len(syms) - 1:
                            if (syms[i], syms[i + 1]) == best:
                                syms[i : i + 2] = [syms[i] + syms[i + 1]]
                            i += 1
                return merges
            """,
        ),
        "most-common-first": _answer(
            "takes Counter.most_common(1), so a tie goes to the pair counted first",
            """
            from collections import Counter


            def train_bpe(word_counts, num_merges):
                words = [(tuple(w), n) for w, n in word_counts.items()]
                merges = []
                for _ in range(num_merges):
                    stats = Counter()
                    for word, n in words:
                        for pair in zip(word, word[1:]):
                            stats[pair] += n
                    if not stats:
                        break
                    best = stats.most_common(1)[0][0]
                    merges.append(best)
                    updated = []
                    for word, n in words:
                        out, i = [], 0
                        while i < len(word):
                            if word[i : i + 2] == best:
                                out.append(best[0] + best[1])
                                i += 2
                            else:
                                out.append(word[i])
                                i += 1
                        updated.append((tuple(out), n))
                    words = updated
                return merges
            """,
        ),
        "ignores-word-counts": _answer(
            "counts each pair once per distinct word, ignoring how often the word occurs",
            """
            def train_bpe(word_counts, num_merges):
                words = [list(w) for w in word_counts]
                merges = []
                for _ in range(num_merges):
                    counts = {}
                    for w in words:
                        for a, b in zip(w, w[1:]):
                            counts[(a, b)] = counts.get((a, b), 0) + 1
                    if not counts:
                        break
                    top = max(counts.values())
                    best = min(p for p in counts if counts[p] == top)
                    merges.append(best)
                    for k, w in enumerate(words):
                        out, i = [], 0
                        while i < len(w):
                            if i + 1 < len(w) and w[i] == best[0] and w[i + 1] == best[1]:
                                out.append(w[i] + w[i + 1])
                                i += 2
                            else:
                                out.append(w[i])
                                i += 1
                        words[k] = out
                return merges
            """,
        ),
        "counts-once": _answer(
            "counts the pairs once before the loop and takes the top num_merges pairs, "
            "never recounting after a merge",
            """
            def train_bpe(word_counts, num_merges):
                counts = {}
                for word, n in word_counts.items():
                    for pair in zip(word, word[1:]):
                        counts[pair] = counts.get(pair, 0) + n
                ranked = sorted(counts, key=lambda p: (-counts[p], p))
                return ranked[:num_merges]
            """,
        ),
        "ties-by-spelling": _answer(
            "breaks ties by the joined string a + b instead of the pair as a tuple",
            """
            def _merge(word, a, b):
                out, i = [], 0
                while i < len(word):
                    if i + 1 < len(word) and word[i] == a and word[i + 1] == b:
                        out.append(a + b)
                        i += 2
                    else:
                        out.append(word[i])
                        i += 1
                return tuple(out)


            def train_bpe(word_counts, num_merges):
                words = {tuple(w): n for w, n in word_counts.items()}
                merges = []
                for _ in range(num_merges):
                    counts = {}
                    for word, n in words.items():
                        for p in zip(word, word[1:]):
                            counts[p] = counts.get(p, 0) + n
                    if not counts:
                        break
                    a, b = min(counts, key=lambda p: (-counts[p], p[0] + p[1]))
                    merges.append((a, b))
                    words = {_merge(w, a, b): n for w, n in words.items()}
                return merges
            """,
        ),
        "replace-in-strings": _answer(
            "keeps words as space-separated strings and merges with str.replace, which "
            "reaches inside longer symbols",
            """
            def train_bpe(word_counts, num_merges):
                texts = {" ".join(w): n for w, n in word_counts.items()}
                merges = []
                for _ in range(num_merges):
                    counts = {}
                    for text, n in texts.items():
                        syms = text.split(" ")
                        for p in zip(syms, syms[1:]):
                            counts[p] = counts.get(p, 0) + n
                    if not counts:
                        break
                    best = min(counts, key=lambda p: (-counts[p], p))
                    merges.append(best)
                    old, new = best[0] + " " + best[1], best[0] + best[1]
                    merged = {}
                    for text, n in texts.items():
                        key = text.replace(old, new)
                        merged[key] = merged.get(key, 0) + n
                    texts = merged
                return merges
            """,
        ),
        "rewrites-argument": _answer(
            "replaces the caller's string keys with symbol tuples in place",
            """
            def train_bpe(word_counts, num_merges):
                for word in list(word_counts):
                    word_counts[tuple(word)] = word_counts.pop(word)
                merges = []
                for _ in range(num_merges):
                    counts = {}
                    for word, n in word_counts.items():
                        for p in zip(word, word[1:]):
                            counts[p] = counts.get(p, 0) + n
                    if not counts:
                        break
                    best = min(counts, key=lambda p: (-counts[p], p))
                    merges.append(best)
                    for word in list(word_counts):
                        out, i = [], 0
                        while i < len(word):
                            if word[i : i + 2] == best:
                                out.append(best[0] + best[1])
                                i += 2
                            else:
                                out.append(word[i])
                                i += 1
                        n = word_counts.pop(word)
                        word_counts[tuple(out)] = word_counts.get(tuple(out), 0) + n
                return merges
            """,
        ),
    },
    "encode_bpe": {
        "greedy-longest-match": _answer(
            "splits the word greedily into the longest tokens of the vocabulary, ignoring rank",
            """
            def encode_bpe(word, merges):
                vocab = {a + b for a, b in merges}
                tokens = []
                i = 0
                while i < len(word):
                    for j in range(len(word), i, -1):
                        if j - i == 1 or word[i:j] in vocab:
                            tokens.append(word[i:j])
                            i = j
                            break
                return tokens
            """,
        ),
        "joins-all-occurrences": _answer(
            "joins every occurrence of the best pair in one step instead of the leftmost one",
            """
            def encode_bpe(word, merges):
                rank = {}
                for r, pair in enumerate(merges):
                    rank.setdefault(tuple(pair), r)
                symbols = list(word)
                while True:
                    present = [p for p in zip(symbols, symbols[1:]) if p in rank]
                    if not present:
                        return symbols
                    best = min(present, key=rank.get)
                    out, i = [], 0
                    while i < len(symbols):
                        if tuple(symbols[i : i + 2]) == best:
                            out.append(best[0] + best[1])
                            i += 2
                        else:
                            out.append(symbols[i])
                            i += 1
                    symbols = out
            """,
        ),
        "leftmost-known-pair": _answer(
            "joins the leftmost pair found in the table, whatever its rank",
            """
            def encode_bpe(word, merges):
                known = set(map(tuple, merges))
                symbols = list(word)
                changed = True
                while changed:
                    changed = False
                    for i in range(len(symbols) - 1):
                        if (symbols[i], symbols[i + 1]) in known:
                            symbols[i : i + 2] = [symbols[i] + symbols[i + 1]]
                            changed = True
                            break
                return symbols
            """,
        ),
        "one-pass-over-table": _answer(
            "walks the table once in order, joining each merge everywhere, and never "
            "goes back to an earlier merge",
            """
            def apply(symbols, pair):
                out, i = [], 0
                while i < len(symbols):
                    if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == tuple(pair):
                        out.append(symbols[i] + symbols[i + 1])
                        i += 2
                    else:
                        out.append(symbols[i])
                        i += 1
                return out


            def encode_bpe(word, merges):
                symbols = list(word)
                for pair in merges:
                    symbols = apply(symbols, pair)
                return symbols
            """,
        ),
        "highest-rank-first": _answer(
            "picks the pair with the largest index, the merge learned last",
            """
            def encode_bpe(word, merges):
                ranks = {}
                for r, p in enumerate(merges):
                    ranks.setdefault(tuple(p), r)
                tokens = list(word)
                while len(tokens) > 1:
                    found = [
                        (ranks[(a, b)], i)
                        for i, (a, b) in enumerate(zip(tokens, tokens[1:]))
                        if (a, b) in ranks
                    ]
                    if not found:
                        break
                    _, i = max(found, key=lambda f: (f[0], -f[1]))
                    tokens[i : i + 2] = [tokens[i] + tokens[i + 1]]
                return tokens
            """,
        ),
        "rightmost-occurrence": _answer(
            "joins the rightmost occurrence of the best pair, not the leftmost",
            """
            def encode_bpe(word, merges):
                ranks = {}
                for r, p in enumerate(merges):
                    if tuple(p) not in ranks:
                        ranks[tuple(p)] = r
                parts = list(word)
                while True:
                    best = None
                    for i in range(len(parts) - 1):
                        r = ranks.get((parts[i], parts[i + 1]))
                        if r is not None and (best is None or r <= best[0]):
                            best = (r, i)
                    if best is None:
                        return parts
                    i = best[1]
                    parts[i : i + 2] = [parts[i] + parts[i + 1]]
            """,
        ),
        "repeat-keeps-last-rank": _answer(
            "builds the rank dict with a comprehension, so a merge listed twice gets its "
            "later rank",
            """
            def encode_bpe(word, merges):
                rank = {tuple(p): r for r, p in enumerate(merges)}
                symbols = list(word)
                while len(symbols) > 1:
                    scored = [
                        (rank[p], i) for i, p in enumerate(zip(symbols, symbols[1:])) if p in rank
                    ]
                    if not scored:
                        break
                    _, i = min(scored)
                    symbols[i : i + 2] = [symbols[i] + symbols[i + 1]]
                return symbols
            """,
        ),
        "ranks-by-spelling": _answer(
            "looks merges up by the joined string a + b, so (ab, c) counts as (a, bc)",
            """
            def encode_bpe(word, merges):
                rank = {}
                for r, (a, b) in enumerate(merges):
                    rank.setdefault(a + b, r)
                symbols = list(word)
                while True:
                    options = [
                        (rank[x + y], i)
                        for i, (x, y) in enumerate(zip(symbols, symbols[1:]))
                        if x + y in rank
                    ]
                    if not options:
                        return symbols
                    _, i = min(options)
                    symbols[i : i + 2] = [symbols[i] + symbols[i + 1]]
            """,
        ),
        "skips-last-pair": _answer(
            "looks at positions up to len - 2 only, so the last pair is never joined",
            """
            def encode_bpe(word, merges):
                order = {}
                for r, p in enumerate(merges):
                    order.setdefault(tuple(p), r)
                syms = list(word)
                while True:
                    best_rank, best_i = None, None
                    for i in range(len(syms) - 2):
                        r = order.get((syms[i], syms[i + 1]))
                        if r is not None and (best_rank is None or r < best_rank):
                            best_rank, best_i = r, i
                    if best_i is None:
                        return syms
                    syms[best_i : best_i + 2] = [syms[best_i] + syms[best_i + 1]]
            """,
        ),
    },
    "merge_and_update": {
        "left-neighbour-only": _answer(
            "moves the pair on the joined symbol's left to the new symbol but leaves the "
            "right-hand pair alone",
            """
            def merge_and_update(words, counts, stats, where, pair):
                a, b = pair
                ab = a + b
                changed = []
                for i in sorted(where.pop(pair, set())):
                    w = words[i]
                    n = counts[i]
                    new, j, hit = [], 0, False
                    while j < len(w):
                        if j + 1 < len(w) and w[j] == a and w[j + 1] == b:
                            hit = True
                            stats[pair] -= n
                            if j > 0:
                                prev = (w[j - 1], a)
                                stats[prev] -= n
                                if stats[prev] == 0:
                                    del stats[prev]
                                born = (new[-1], ab)
                                stats[born] = stats.get(born, 0) + n
                                where.setdefault(born, set()).add(i)
                            new.append(ab)
                            j += 2
                        else:
                            new.append(w[j])
                            j += 1
                    if hit:
                        if stats.get(pair) == 0:
                            del stats[pair]
                        words[i] = new
                        changed.append(i)
                return changed
            """,
        ),
        "right-neighbour-only": _answer(
            "moves the pair on the joined symbol's right to the new symbol but leaves the "
            "left-hand pair alone",
            """
            def merge_and_update(words, counts, stats, where, pair):
                first, second = pair
                joined = first + second
                done = []
                if pair not in where:
                    return done

                def bump(p, by):
                    stats[p] = stats.get(p, 0) + by
                    if stats[p] == 0:
                        del stats[p]

                for idx in sorted(where[pair]):
                    old = words[idx]
                    n = counts[idx]
                    out = []
                    k = 0
                    while k < len(old):
                        if k + 1 < len(old) and old[k] == first and old[k + 1] == second:
                            bump(pair, -n)
                            if k + 2 < len(old):
                                bump((second, old[k + 2]), -n)
                            out.append(joined)
                            k += 2
                        else:
                            out.append(old[k])
                            k += 1
                    if out != old:
                        for x, y in zip(out, out[1:]):
                            if x == joined:
                                bump((x, y), counts[idx])
                                where.setdefault((x, y), set()).add(idx)
                        words[idx] = out
                        done.append(idx)
                del where[pair]
                return done
            """,
        ),
        "rebinds-stats": _answer(
            "builds the new counts in a fresh dict and assigns it to the local name stats, "
            "so the caller's stats never changes",
            """
            def merge_and_update(words, counts, stats, where, pair):
                touched = sorted(where.get(pair, ()))
                new_stats = dict(stats)
                changed = []
                for i in touched:
                    old = words[i]
                    if pair not in zip(old, old[1:]):
                        continue
                    new, j = [], 0
                    while j < len(old):
                        if tuple(old[j : j + 2]) == pair:
                            new.append(pair[0] + pair[1])
                            j += 2
                        else:
                            new.append(old[j])
                            j += 1
                    for p in zip(old, old[1:]):
                        new_stats[p] -= counts[i]
                    for p in zip(new, new[1:]):
                        new_stats[p] = new_stats.get(p, 0) + counts[i]
                        where.setdefault(p, set()).add(i)
                    words[i] = new
                    changed.append(i)
                stats = {p: c for p, c in new_stats.items() if c}
                return changed
            """,
        ),
        "keeps-zero-counts": _answer(
            "subtracts and adds counts correctly but leaves pairs whose count fell to 0 in stats",
            """
            from collections import Counter


            def merge_and_update(words, counts, stats, where, pair):
                changed = []
                for i in sorted(where.pop(pair, set())):
                    old = words[i]
                    new = []
                    j = 0
                    while j < len(old):
                        if j + 1 < len(old) and (old[j], old[j + 1]) == pair:
                            new.append(old[j] + old[j + 1])
                            j += 2
                        else:
                            new.append(old[j])
                            j += 1
                    if len(new) == len(old):
                        continue
                    diff = Counter(zip(new, new[1:]))
                    diff.subtract(Counter(zip(old, old[1:])))
                    for p, d in diff.items():
                        if d:
                            stats[p] = stats.get(p, 0) + d * counts[i]
                    for p in zip(new, new[1:]):
                        where.setdefault(p, set()).add(i)
                    words[i] = new
                    changed.append(i)
                return changed
            """,
        ),
        "back-to-back-twice": _answer(
            "updates each join's neighbours from the old word, so two joins side by side "
            "take the pair between them away twice and add the new one twice",
            """
            def merge_and_update(words, counts, stats, where, pair):
                a, b = pair
                changed = []

                def add(p, n, i):
                    stats[p] = stats.get(p, 0) + n
                    if stats[p] == 0:
                        del stats[p]
                    elif n > 0:
                        where.setdefault(p, set()).add(i)

                for i in sorted(where.pop(pair, ())):
                    old = words[i]
                    n = counts[i]
                    sites, j = [], 0
                    while j < len(old) - 1:
                        if old[j] == a and old[j + 1] == b:
                            sites.append(j)
                            j += 2
                        else:
                            j += 1
                    if not sites:
                        continue
                    new, j = [], 0
                    while j < len(old):
                        if j in sites:
                            new.append(a + b)
                            j += 2
                        else:
                            new.append(old[j])
                            j += 1
                    for k, j in enumerate(sites):
                        at = j - k
                        add(pair, -n, i)
                        if j > 0:
                            add((old[j - 1], a), -n, i)
                            add((new[at - 1], a + b), n, i)
                        if j + 2 < len(old):
                            add((b, old[j + 2]), -n, i)
                            add((a + b, new[at + 1]), n, i)
                    words[i] = new
                    changed.append(i)
                return changed
            """,
        ),
        "where-left-alone": _answer(
            "keeps stats right but leaves the new pairs' words out of the where index",
            """
            def merge_and_update(words, counts, stats, where, pair):
                changed = []
                for i in sorted(where.get(pair, [])):
                    old = words[i]
                    new = []
                    j = 0
                    while j < len(old):
                        if old[j : j + 2] == [pair[0], pair[1]]:
                            new.append(pair[0] + pair[1])
                            j += 2
                        else:
                            new.append(old[j])
                            j += 1
                    if new == old:
                        continue
                    for p in zip(old, old[1:]):
                        stats[p] -= counts[i]
                        if stats[p] == 0:
                            del stats[p]
                    for p in zip(new, new[1:]):
                        stats[p] = stats.get(p, 0) + counts[i]
                    words[i] = new
                    changed.append(i)
                return changed
            """,
        ),
        "reverse-order-return": _answer(
            "pops indices off the end of a sorted list, so the changed words come back "
            "in decreasing order",
            """
            def merge_and_update(words, counts, stats, where, pair):
                todo = sorted(where.pop(pair, ()))
                changed = []
                while todo:
                    i = todo.pop()
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
                    for p in zip(old, old[1:]):
                        stats[p] -= counts[i]
                        if not stats[p]:
                            del stats[p]
                    for p in zip(new, new[1:]):
                        stats[p] = stats.get(p, 0) + counts[i]
                        where.setdefault(p, set()).add(i)
                    words[i] = new
                    changed.append(i)
                return changed
            """,
        ),
        "trusts-stale-index": _answer(
            "believes every index in where[pair], so a stale word loses the pair's count "
            "again and is reported as changed",
            """
            def merge_and_update(words, counts, stats, where, pair):
                if pair not in where:
                    return []
                indices = sorted(where.pop(pair))
                for i in indices:
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
                        stats[p] -= counts[i]
                    for p in zip(new, new[1:]):
                        stats[p] = stats.get(p, 0) + counts[i]
                        where.setdefault(p, set()).add(i)
                    words[i] = new
                for p in [p for p, c in stats.items() if c == 0]:
                    del stats[p]
                return indices
            """,
        ),
        "pair-once-per-word": _answer(
            "takes the merged pair's count down once per word, even when the word held it twice",
            """
            def merge_and_update(words, counts, stats, where, pair):
                a, b = pair
                result = []
                for i in sorted(where.pop(pair, ())):
                    old = words[i]
                    if (a, b) not in set(zip(old, old[1:])):
                        continue
                    n = counts[i]
                    new, j = [], 0
                    while j < len(old):
                        if j + 1 < len(old) and old[j] == a and old[j + 1] == b:
                            new.append(a + b)
                            j += 2
                        else:
                            new.append(old[j])
                            j += 1
                    stats[pair] -= n
                    for p in zip(old, old[1:]):
                        if p != pair:
                            stats[p] -= n
                    for p in zip(new, new[1:]):
                        stats[p] = stats.get(p, 0) + n
                        where.setdefault(p, set()).add(i)
                    for p in set(zip(old, old[1:])) | {pair}:
                        if stats.get(p) == 0:
                            del stats[p]
                    words[i] = new
                    result.append(i)
                return result
            """,
        ),
    },
}

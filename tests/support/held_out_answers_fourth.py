"""A fourth held-out set of wrong student answers, for measuring how well the course names a
mistake it has never seen (issue 43).

``HELD_OUT[exercise][label]`` is ``(what the student got wrong, the answer's source)`` for the
five graded exercises. Each source is a whole answer cell: it defines the exercise's function
with the notebook's signature, and sometimes helpers, using only the standard library. Every
answer differs from ``solutions`` on some small input (its result, its argument afterwards,
or an exception); some hold two mistakes at once and some go wrong only on an edge case.
They were written from the notebooks' exercise text and the reference solutions alone.

But: this is data, not a test. It was written without reading the diagnosis or the catalogue
it was built from, and it says nothing about which message each answer should get.
"""

from textwrap import dedent

HELD_OUT: dict[str, dict[str, tuple[str, str]]] = {
    "pair_counts": {
        "set-of-pairs-per-word": (
            "collects each word's pairs in a set, so a pair a word holds twice counts once",
            dedent("""\
                def pair_counts(words):
                    totals = {}
                    for word, n in words.items():
                        for pair in set(zip(word, word[1:])):
                            totals[pair] = totals.get(pair, 0) + n
                    return totals
            """),
        ),
        "range-stops-one-early": (
            "loops over range(len(word) - 2), so the last pair of every word is never counted",
            dedent("""\
                def pair_counts(words):
                    result = {}
                    for word in words:
                        for i in range(len(word) - 2):
                            pair = (word[i], word[i + 1])
                            if pair in result:
                                result[pair] += words[word]
                            else:
                                result[pair] = words[word]
                    return result
            """),
        ),
        "step-of-two": (
            "steps through each word two symbols at a time, as if pairs could not overlap",
            dedent("""\
                def pair_counts(words):
                    out = {}
                    for symbols, count in words.items():
                        for i in range(0, len(symbols) - 1, 2):
                            key = (symbols[i], symbols[i + 1])
                            out[key] = out.get(key, 0) + count
                    return out
            """),
        ),
        "assigns-instead-of-adds": (
            "writes counts[pair] = count, so a later occurrence overwrites the total so far",
            dedent("""\
                def pair_counts(words):
                    counts = {}
                    for word, count in words.items():
                        for left, right in zip(word, word[1:]):
                            counts[(left, right)] = count
                    return counts
            """),
        ),
        "counter-update-unweighted": (
            "feeds each word's pairs to Counter.update, which adds 1 per pair, not the word count",
            dedent("""\
                from collections import Counter


                def pair_counts(words):
                    c = Counter()
                    for w in words:
                        c.update(zip(w, w[1:]))
                    return c
            """),
        ),
        "empties-the-argument": (
            "takes words apart with popitem() to loop over them, leaving the caller's dict empty",
            dedent("""\
                def pair_counts(words):
                    counts = {}
                    while words:
                        word, times = words.popitem()
                        for pair in zip(word, word[1:]):
                            counts[pair] = counts.get(pair, 0) + times
                    return counts
            """),
        ),
        "letters-not-symbols": (
            "joins each word into one string and pairs its letters, splitting merged symbols",
            dedent("""\
                def pair_counts(words):
                    counts = {}
                    for word, times in words.items():
                        text = "".join(word)
                        for pair in zip(text, text[1:]):
                            counts[pair] = counts.get(pair, 0) + times
                    return counts
            """),
        ),
        "words-holding-pair": (
            "two mistakes: counts the words that hold a pair, once each and without the weights",
            dedent("""\
                def pair_counts(words):
                    def pairs_of(w):
                        return set(zip(w, w[1:]))

                    every = set().union(*(pairs_of(w) for w in words))
                    return {p: sum(1 for w in words if p in pairs_of(w)) for p in every}
            """),
        ),
    },
    "merge_pair": {
        "space-join-replace": (
            "joins the symbols with spaces and calls str.replace, so a match can start or end "
            "inside a symbol, and a space symbol breaks the split",
            dedent("""\
                def merge_pair(symbols, pair):
                    text = " ".join(symbols)
                    text = text.replace(pair[0] + " " + pair[1], pair[0] + pair[1])
                    return tuple(text.split(" ")) if text else ()
            """),
        ),
        "steps-one-after-join": (
            "after a join moves on by one symbol instead of two, so the right half is kept too",
            dedent("""\
                def merge_pair(symbols, pair):
                    out = []
                    i = 0
                    while i < len(symbols):
                        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
                            out.append(symbols[i] + symbols[i + 1])
                        else:
                            out.append(symbols[i])
                        i += 1
                    return tuple(out)
            """),
        ),
        "returns-a-list": (
            "builds the right symbols but returns the list, not a tuple",
            dedent("""\
                def merge_pair(symbols, pair):
                    merged = []
                    skip = False
                    for i, s in enumerate(symbols):
                        if skip:
                            skip = False
                            continue
                        if i + 1 < len(symbols) and s == pair[0] and symbols[i + 1] == pair[1]:
                            merged.append(s + symbols[i + 1])
                            skip = True
                        else:
                            merged.append(s)
                    return merged
            """),
        ),
        "recursion-drops-last": (
            "recurses on the rest of the word, but its base case returns () for fewer than two "
            "symbols, so an unjoined last symbol is lost",
            dedent("""\
                def merge_pair(symbols, pair):
                    if len(symbols) < 2:
                        return ()
                    if (symbols[0], symbols[1]) == pair:
                        return (symbols[0] + symbols[1],) + merge_pair(symbols[2:], pair)
                    return (symbols[0],) + merge_pair(symbols[1:], pair)
            """),
        ),
        "scans-right-to-left": (
            "scans from the end of the word, so overlapping occurrences join on the right",
            dedent("""\
                def merge_pair(symbols, pair):
                    out = []
                    i = len(symbols) - 1
                    while i >= 0:
                        if i > 0 and symbols[i - 1] == pair[0] and symbols[i] == pair[1]:
                            out.insert(0, pair[0] + pair[1])
                            i -= 2
                        else:
                            out.insert(0, symbols[i])
                            i -= 1
                    return tuple(out)
            """),
        ),
        "first-occurrence-only": (
            "finds the pair with index() and joins only its first occurrence",
            dedent("""\
                def merge_pair(symbols, pair):
                    pairs = list(zip(symbols, symbols[1:]))
                    if pair not in pairs:
                        return tuple(symbols)
                    i = pairs.index(pair)
                    return tuple(symbols[:i]) + (pair[0] + pair[1],) + tuple(symbols[i + 2 :])
            """),
        ),
        "compares-spelled-pair": (
            "tests symbols[i] + symbols[i + 1] == a + b, so ('ab', 'c') matches the pair "
            "('a', 'bc')",
            dedent("""\
                def merge_pair(symbols, pair):
                    target = pair[0] + pair[1]
                    new = []
                    i = 0
                    while i < len(symbols):
                        if i + 1 < len(symbols) and symbols[i] + symbols[i + 1] == target:
                            new.append(target)
                            i += 2
                        else:
                            new.append(symbols[i])
                            i += 1
                    return tuple(new)
            """),
        ),
        "seeds-with-first-symbol": (
            "starts the result with symbols[0], which raises IndexError on the empty tuple",
            dedent("""\
                def merge_pair(symbols, pair):
                    out = [symbols[0]]
                    for s in symbols[1:]:
                        if out[-1] == pair[0] and s == pair[1]:
                            out[-1] = pair[0] + pair[1]
                        else:
                            out.append(s)
                    return tuple(out)
            """),
        ),
    },
    "train_bpe": {
        "most-common-tie": (
            "takes Counter.most_common(1), so a tie goes to the pair counted first, not the "
            "smallest",
            dedent("""\
                from collections import Counter


                def train_bpe(word_counts, num_merges):
                    words = {tuple(w): c for w, c in word_counts.items()}
                    merges = []
                    for _ in range(num_merges):
                        stats = Counter()
                        for w, c in words.items():
                            for p in zip(w, w[1:]):
                                stats[p] += c
                        if not stats:
                            break
                        best = stats.most_common(1)[0][0]
                        merges.append(best)
                        new_words = {}
                        for w, c in words.items():
                            out, i = [], 0
                            while i < len(w):
                                if w[i : i + 2] == best:
                                    out.append(best[0] + best[1])
                                    i += 2
                                else:
                                    out.append(w[i])
                                    i += 1
                            new_words[tuple(out)] = c
                        words = new_words
                    return merges
            """),
        ),
        "max-count-then-pair": (
            "uses max with key (count, pair), so a tie goes to the largest pair instead",
            dedent("""\
                def merge(word, pair):
                    out, i = [], 0
                    while i < len(word):
                        if tuple(word[i : i + 2]) == pair:
                            out.append(pair[0] + pair[1])
                            i += 2
                        else:
                            out.append(word[i])
                            i += 1
                    return out


                def train_bpe(word_counts, num_merges):
                    words = [(list(w), c) for w, c in word_counts.items()]
                    merges = []
                    for _ in range(num_merges):
                        counts = {}
                        for symbols, c in words:
                            for p in zip(symbols, symbols[1:]):
                                counts[p] = counts.get(p, 0) + c
                        if not counts:
                            break
                        best = max(counts, key=lambda p: (counts[p], p))
                        merges.append(best)
                        words = [(merge(s, best), c) for s, c in words]
                    return merges
            """),
        ),
        "never-stops-early": (
            "has no check for running out of pairs, so min() of an empty dict raises ValueError",
            dedent("""\
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
                        joined = {}
                        for w, c in words.items():
                            out, i = [], 0
                            while i < len(w):
                                if i + 1 < len(w) and (w[i], w[i + 1]) == best:
                                    out.append(w[i] + w[i + 1])
                                    i += 2
                                else:
                                    out.append(w[i])
                                    i += 1
                            joined[tuple(out)] = c
                        words = joined
                    return merges
            """),
        ),
        "one-round-short": (
            "loops over range(1, num_merges), learning one merge fewer than asked",
            dedent("""\
                def count_pairs(words):
                    counts = {}
                    for w, c in words.items():
                        for p in zip(w, w[1:]):
                            counts[p] = counts.get(p, 0) + c
                    return counts


                def join(w, pair):
                    out, i = [], 0
                    while i < len(w):
                        if i + 1 < len(w) and (w[i], w[i + 1]) == pair:
                            out.append(w[i] + w[i + 1])
                            i += 2
                        else:
                            out.append(w[i])
                            i += 1
                    return tuple(out)


                def train_bpe(word_counts, num_merges):
                    words = {tuple(w): c for w, c in word_counts.items()}
                    merges = []
                    for _ in range(1, num_merges):
                        counts = count_pairs(words)
                        if not counts:
                            break
                        top = max(counts.values())
                        best = min(p for p in counts if counts[p] == top)
                        merges.append(best)
                        words = {join(w, best): c for w, c in words.items()}
                    return merges
            """),
        ),
        "spaced-keys-in-place": (
            "two mistakes: rewrites word_counts in place, and keeps each word as a space-separated "
            "string, so a word holding a space splits into the wrong symbols",
            dedent("""\
                def train_bpe(word_counts, num_merges):
                    for w in list(word_counts):
                        word_counts[" ".join(w)] = word_counts.pop(w)
                    merges = []
                    for _ in range(num_merges):
                        counts = {}
                        for w, c in word_counts.items():
                            s = w.split(" ")
                            for p in zip(s, s[1:]):
                                counts[p] = counts.get(p, 0) + c
                        if not counts:
                            break
                        best = sorted(counts, key=lambda p: (-counts[p], p))[0]
                        merges.append(best)
                        for w in list(word_counts):
                            s, out, i = w.split(" "), [], 0
                            while i < len(s):
                                if s[i : i + 2] == list(best):
                                    out.append(best[0] + best[1])
                                    i += 2
                                else:
                                    out.append(s[i])
                                    i += 1
                            word_counts[" ".join(out)] = word_counts.pop(w)
                    return merges
            """),
        ),
        "latest-merge-only": (
            "splits every word back into characters each round and applies only the newest merge, "
            "so earlier merges are forgotten",
            dedent("""\
                def apply(word, pair):
                    out = []
                    for ch in word:
                        if out and (out[-1], ch) == pair:
                            out[-1] = out[-1] + ch
                        else:
                            out.append(ch)
                    return out


                def train_bpe(word_counts, num_merges):
                    merges = []
                    for _ in range(num_merges):
                        last = merges[-1] if merges else None
                        counts = {}
                        for word, c in word_counts.items():
                            symbols = apply(word, last) if last else list(word)
                            for p in zip(symbols, symbols[1:]):
                                counts[p] = counts.get(p, 0) + c
                        if not counts:
                            break
                        merges.append(min(counts, key=lambda p: (-counts[p], p)))
                    return merges
            """),
        ),
        "sorted-by-count-last": (
            "sorts the pairs by count alone and takes [-1], so a tie goes to whichever came last",
            dedent("""\
                def train_bpe(word_counts, num_merges):
                    vocab = {tuple(w): n for w, n in word_counts.items()}
                    learned = []
                    while len(learned) < num_merges:
                        stats = {}
                        for sym, n in vocab.items():
                            for i in range(len(sym) - 1):
                                stats[sym[i], sym[i + 1]] = stats.get((sym[i], sym[i + 1]), 0) + n
                        if not stats:
                            break
                        best = sorted(stats.items(), key=lambda kv: kv[1])[-1][0]
                        learned.append(best)
                        merged = {}
                        for sym, n in vocab.items():
                            out, i = [], 0
                            while i < len(sym):
                                if sym[i : i + 2] == best:
                                    out.append("".join(best))
                                    i += 2
                                else:
                                    out.append(sym[i])
                                    i += 1
                            merged[tuple(out)] = n
                        vocab = merged
                    return learned
            """),
        ),
        "ties-by-spelling": (
            "breaks ties by the joined string left + right instead of the pair as a tuple",
            dedent("""\
                import itertools


                def train_bpe(word_counts, num_merges):
                    words = [[list(w), c] for w, c in word_counts.items()]
                    merges = []
                    for _ in range(num_merges):
                        counts = {}
                        for symbols, c in words:
                            for a, b in itertools.pairwise(symbols):
                                counts[a, b] = counts.get((a, b), 0) + c
                        if not counts:
                            break
                        best = min(counts, key=lambda p: (-counts[p], p[0] + p[1]))
                        merges.append(best)
                        for entry in words:
                            s, out, i = entry[0], [], 0
                            while i < len(s):
                                if i + 1 < len(s) and (s[i], s[i + 1]) == best:
                                    out.append(s[i] + s[i + 1])
                                    i += 2
                                else:
                                    out.append(s[i])
                                    i += 1
                            entry[0] = out
                    return merges
            """),
        ),
    },
    "encode_bpe": {
        "replays-table-in-order": (
            "walks the table once from first merge to last, joining every occurrence of each",
            dedent("""\
                def encode_bpe(word, merges):
                    tokens = list(word)
                    for a, b in merges:
                        out, i = [], 0
                        while i < len(tokens):
                            if i + 1 < len(tokens) and tokens[i] == a and tokens[i + 1] == b:
                                out.append(a + b)
                                i += 2
                            else:
                                out.append(tokens[i])
                                i += 1
                        tokens = out
                    return tokens
            """),
        ),
        "leftmost-known-pair": (
            "joins the leftmost pair that is in the table, whatever its rank",
            dedent("""\
                def encode_bpe(word, merges):
                    table = set(merges)
                    tokens = list(word)
                    joined = True
                    while joined:
                        joined = False
                        for i in range(len(tokens) - 1):
                            if (tokens[i], tokens[i + 1]) in table:
                                tokens[i : i + 2] = [tokens[i] + tokens[i + 1]]
                                joined = True
                                break
                    return tokens
            """),
        ),
        "longest-vocab-match": (
            "cuts the word greedily into the longest vocabulary entry from the left",
            dedent("""\
                def encode_bpe(word, merges):
                    vocab = set(word) | {a + b for a, b in merges}
                    tokens, start = [], 0
                    while start < len(word):
                        end = len(word)
                        while end > start + 1 and word[start:end] not in vocab:
                            end -= 1
                        tokens.append(word[start:end])
                        start = end
                    return tokens
            """),
        ),
        "repeat-keeps-last-rank": (
            "builds the rank table with a dict comprehension, so a merge listed twice gets its "
            "later rank",
            dedent("""\
                def encode_bpe(word, merges):
                    rank = {pair: r for r, pair in enumerate(merges)}
                    tokens = list(word)
                    while True:
                        found = [
                            (rank[p], i) for i, p in enumerate(zip(tokens, tokens[1:])) if p in rank
                        ]
                        if not found:
                            return tokens
                        _, i = min(found)
                        tokens[i : i + 2] = [tokens[i] + tokens[i + 1]]
            """),
        ),
        "short-word-as-is": (
            "returns [word] for any word shorter than two characters, so '' gives ['']",
            dedent("""\
                def encode_bpe(word, merges):
                    if len(word) < 2:
                        return [word]
                    ranks = {}
                    for r, p in enumerate(merges):
                        ranks.setdefault(p, r)
                    parts = list(word)
                    while len(parts) > 1:
                        options = [
                            (ranks[(x, y)], k)
                            for k, (x, y) in enumerate(zip(parts, parts[1:]))
                            if (x, y) in ranks
                        ]
                        if not options:
                            break
                        _, k = min(options)
                        parts[k : k + 2] = [parts[k] + parts[k + 1]]
                    return parts
            """),
        ),
        "rightmost-of-equal-rank": (
            "keeps the best pair with <=, so of two occurrences of the winning pair it joins the "
            "rightmost",
            dedent("""\
                def encode_bpe(word, merges):
                    rank = {}
                    for r, p in enumerate(merges):
                        if p not in rank:
                            rank[p] = r
                    pieces = list(word)
                    while True:
                        best_i, best_r = None, None
                        for i in range(len(pieces) - 1):
                            r = rank.get((pieces[i], pieces[i + 1]))
                            if r is not None and (best_r is None or r <= best_r):
                                best_i, best_r = i, r
                        if best_i is None:
                            return pieces
                        pieces[best_i : best_i + 2] = [pieces[best_i] + pieces[best_i + 1]]
            """),
        ),
        "spaced-string-replace": (
            "two mistakes: keeps the tokens as one space-separated string and calls "
            "str.replace(..., 1), so a match can reach inside a token, and a space in the word "
            "breaks the split",
            dedent("""\
                import re


                def encode_bpe(word, merges):
                    if not word:
                        return []
                    text = " ".join(word)
                    rank = {}
                    for r, p in enumerate(merges):
                        rank.setdefault(p, r)
                    while True:
                        toks = re.split(" ", text)
                        present = [rank[p] for p in zip(toks, toks[1:]) if p in rank]
                        if not present:
                            return toks
                        a, b = merges[min(present)]
                        text = text.replace(a + " " + b, a + b, 1)
            """),
        ),
        "ranks-sorted-once": (
            "sorts the pairs present at the start by rank and joins them in that order, never "
            "looking at pairs a join creates",
            dedent("""\
                def encode_bpe(word, merges):
                    rank = {}
                    for r, p in enumerate(merges):
                        rank.setdefault(p, r)
                    symbols = list(word)
                    present = {p for p in zip(symbols, symbols[1:]) if p in rank}
                    start = sorted(present, key=rank.get)
                    for a, b in start:
                        for i in range(len(symbols) - 1):
                            if symbols[i] == a and symbols[i + 1] == b:
                                symbols[i : i + 2] = [a + b]
                                break
                    return symbols
            """),
        ),
    },
    "merge_and_update": {
        "zero-counts-kept": (
            "subtracts the old pairs and adds the new ones but never deletes a pair whose count "
            "reached 0",
            dedent("""\
                def merge_and_update(words, counts, stats, where, pair):
                    if pair not in where:
                        return []
                    a, b = pair
                    changed = []
                    for i in sorted(where[pair]):
                        old = words[i]
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
                        for p in zip(old, old[1:]):
                            stats[p] -= counts[i]
                        for p in zip(new, new[1:]):
                            stats[p] = stats.get(p, 0) + counts[i]
                            where.setdefault(p, set()).add(i)
                        words[i] = new
                        changed.append(i)
                    return changed
            """),
        ),
        "newest-first": (
            "puts each changed index at the front of the result, so it comes back in decreasing "
            "order",
            dedent("""\
                def merge_and_update(words, counts, stats, where, pair):
                    changed = []
                    for i in sorted(where.get(pair, ())):
                        old = words[i]
                        new, j = [], 0
                        while j < len(old):
                            if old[j : j + 2] == list(pair):
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
                            where.setdefault(p, set()).add(i)
                        words[i] = new
                        changed.insert(0, i)
                    return changed
            """),
        ),
        "moves-by-one": (
            "changes stats by 1 per pair instead of by the word's count",
            dedent("""\
                from collections import Counter


                def merge_and_update(words, counts, stats, where, pair):
                    done = []
                    for i in sorted(where.get(pair, set())):
                        old = words[i]
                        new, j = [], 0
                        while j < len(old):
                            if j + 1 < len(old) and (old[j], old[j + 1]) == pair:
                                new.append(old[j] + old[j + 1])
                                j += 2
                            else:
                                new.append(old[j])
                                j += 1
                        if len(new) == len(old):
                            continue
                        delta = Counter(zip(new, new[1:]))
                        delta.subtract(Counter(zip(old, old[1:])))
                        for p, d in delta.items():
                            if d:
                                stats[p] = stats.get(p, 0) + d
                                if stats[p] == 0:
                                    del stats[p]
                        for p in zip(new, new[1:]):
                            where.setdefault(p, set()).add(i)
                        words[i] = new
                        done.append(i)
                    return done
            """),
        ),
        "stale-counts-as-changed": (
            "adds every index of where[pair] to the result, stale ones included",
            dedent("""\
                def merge_and_update(words, counts, stats, where, pair):
                    indices = sorted(where.pop(pair, set()))
                    for i in indices:
                        old = words[i]
                        new, j = [], 0
                        while j < len(old):
                            if j + 1 < len(old) and old[j] == pair[0] and old[j + 1] == pair[1]:
                                new.append(pair[0] + pair[1])
                                j += 2
                            else:
                                new.append(old[j])
                                j += 1
                        for p in zip(old, old[1:]):
                            stats[p] -= counts[i]
                            if not stats[p]:
                                del stats[p]
                        for p in zip(new, new[1:]):
                            stats[p] = stats.get(p, 0) + counts[i]
                            where.setdefault(p, set()).add(i)
                        words[i] = new
                    return indices
            """),
        ),
        "left-side-only": (
            "at each join trades the left neighbour's pair but leaves the right neighbour's alone",
            dedent("""\
                def bump(stats, p, by):
                    stats[p] = stats.get(p, 0) + by
                    if stats[p] == 0:
                        del stats[p]


                def merge_and_update(words, counts, stats, where, pair):
                    a, b = pair
                    ab = a + b
                    changed = []
                    for i in sorted(where.get(pair, ())):
                        old, c = words[i], counts[i]
                        new, j = [], 0
                        while j < len(old):
                            if j + 1 < len(old) and old[j] == a and old[j + 1] == b:
                                bump(stats, pair, -c)
                                if new:
                                    bump(stats, (old[j - 1], a), -c)
                                    bump(stats, (new[-1], ab), c)
                                    where.setdefault((new[-1], ab), set()).add(i)
                                new.append(ab)
                                j += 2
                            else:
                                new.append(old[j])
                                j += 1
                        if len(new) < len(old):
                            words[i] = new
                            changed.append(i)
                    return changed
            """),
        ),
        "rebinds-stats": (
            "builds the updated counts in a new dict and assigns it to the name stats, so the "
            "caller's stats never changes",
            dedent("""\
                def merge_and_update(words, counts, stats, where, pair):
                    new_stats = dict(stats)
                    changed = []
                    for i in sorted(where.get(pair, ())):
                        old = words[i]
                        merged, k = [], 0
                        while k < len(old):
                            if k + 1 < len(old) and (old[k], old[k + 1]) == pair:
                                merged.append(old[k] + old[k + 1])
                                k += 2
                            else:
                                merged.append(old[k])
                                k += 1
                        if len(merged) == len(old):
                            continue
                        for p in zip(old, old[1:]):
                            new_stats[p] -= counts[i]
                        for p in zip(merged, merged[1:]):
                            new_stats[p] = new_stats.get(p, 0) + counts[i]
                            where.setdefault(p, set()).add(i)
                        words[i] = merged
                        changed.append(i)
                    stats = {p: n for p, n in new_stats.items() if n}
                    return changed
            """),
        ),
        "pair-sets-per-word": (
            "subtracts and adds each word's set of pairs, so a pair a word holds twice moves once",
            dedent("""\
                def merge_and_update(words, counts, stats, where, pair):
                    changed = []
                    for i in sorted(where.get(pair, set())):
                        before = words[i]
                        after, j = [], 0
                        while j < len(before):
                            if before[j : j + 2] == [pair[0], pair[1]]:
                                after.append(pair[0] + pair[1])
                                j += 2
                            else:
                                after.append(before[j])
                                j += 1
                        if after == before:
                            continue
                        for p in set(zip(before, before[1:])):
                            stats[p] -= counts[i]
                            if stats[p] == 0:
                                del stats[p]
                        for p in set(zip(after, after[1:])):
                            stats[p] = stats.get(p, 0) + counts[i]
                            where.setdefault(p, set()).add(i)
                        words[i] = after
                        changed.append(i)
                    return changed
            """),
        ),
        "where-overwritten": (
            "sets where[p] = {i} for each new pair, dropping the other words already listed there",
            dedent("""\
                def merge_and_update(words, counts, stats, where, pair):
                    changed = []
                    for i in sorted(where.get(pair, [])):
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
                            stats[p] -= counts[i]
                            if stats[p] == 0:
                                del stats[p]
                        for p in zip(new, new[1:]):
                            stats[p] = stats.get(p, 0) + counts[i]
                            where[p] = {i}
                        words[i] = new
                        changed.append(i)
                    return changed
            """),
        ),
    },
}

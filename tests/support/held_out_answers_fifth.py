"""A fifth held-out set of wrong student answers to the five BPE exercises, for measuring how
often the failure messages name a mistake they were never shown.

``HELD_OUT`` maps each exercise to about eight answers, each a short label, a plain account of
what the imagined student got wrong, and the complete source of their answer cell (standard
library only, helpers included). Every answer was checked against ``solutions/`` on seeded
random small inputs and differs from the reference somewhere; some differ only on edge cases
(an empty word, a one-symbol word, a pair that occurs back to back), and a few carry two
mistakes at once, which their account says.

But: it was written without reading the diagnosis, its catalogue of mistakes or the other
held-out sets, so it says nothing about which mistake the diagnosis should report; it is data
for a measurement, not a test by itself, and its answers are not meant to be run outside a
sandbox that treats them as student code.
"""

from textwrap import dedent

HELD_OUT: dict[str, dict[str, tuple[str, str]]] = {
    "pair_counts": {
        "distinct-pairs-per-word": (
            "Collects each word's pairs into a set first, so a pair that occurs twice in one "
            "word (overlapping or not) adds the word's count only once.",
            dedent("""\
                def pair_counts(words):
                    totals = {}
                    for word, count in words.items():
                        seen = set()
                        for i in range(len(word) - 1):
                            seen.add((word[i], word[i + 1]))
                        for pair in seen:
                            totals[pair] = totals.get(pair, 0) + count
                    return totals
            """),
        ),
        "stops-one-short": (
            "Loops over range(len(word) - 2), so the last pair of every word is never counted.",
            dedent("""\
                def pair_counts(words):
                    result = dict()
                    for symbols in words:
                        n = words[symbols]
                        for i in range(len(symbols) - 2):
                            key = (symbols[i], symbols[i + 1])
                            if key in result:
                                result[key] += n
                            else:
                                result[key] = n
                    return result
            """),
        ),
        "wraps-around": (
            "Takes the neighbour with a modulo index, so the last symbol is paired with the "
            "first one as if the word were a ring; a one-symbol word pairs with itself.",
            dedent("""\
                def pair_counts(words):
                    out = {}
                    for word, weight in words.items():
                        n = len(word)
                        for i in range(n):
                            pair = (word[i], word[(i + 1) % n])
                            out[pair] = out.get(pair, 0) + weight
                    return out
            """),
        ),
        "string-keys": (
            "Uses the glued string left + right as the key instead of the tuple (left, right).",
            dedent("""\
                from collections import defaultdict


                def pair_counts(words):
                    counts = defaultdict(int)
                    for word, c in words.items():
                        for a, b in zip(word, word[1:]):
                            counts[a + b] += c
                    return dict(counts)
            """),
        ),
        "counter-update-unweighted": (
            "Feeds the pairs to Counter.update, which adds 1 per pair: the word counts are "
            "never used.",
            dedent("""\
                from collections import Counter


                def pair_counts(words):
                    c = Counter()
                    for w in words:
                        c.update(zip(w, w[1:]))
                    return c
            """),
        ),
        "assigns-instead-of-adding": (
            "Writes totals[pair] = count rather than adding to it, so a pair seen in several "
            "places keeps only the count of the last place it was seen.",
            dedent("""\
                def pair_counts(words):
                    totals = {}
                    for word, count in words.items():
                        for position in range(1, len(word)):
                            totals[(word[position - 1], word[position])] = count
                    return totals
            """),
        ),
        "empties-the-argument": (
            "Consumes the argument with popitem() to walk it, so the caller's dictionary is "
            "left empty (the counts it returns are right).",
            dedent("""\
                def pair_counts(words):
                    counts = {}
                    while words:
                        word, n = words.popitem()
                        for pair in zip(word[:-1], word[1:]):
                            counts[pair] = counts.get(pair, 0) + n
                    return counts
            """),
        ),
        "regex-on-glued-characters": (
            "Glues each word into one string and finds overlapping pairs of characters with a "
            "regular expression, so symbols longer than one character are cut apart.",
            dedent("""\
                import re


                def pair_counts(words):
                    counts = {}
                    for word, count in words.items():
                        text = "".join(word)
                        for m in re.finditer(r"(?=(.)(.))", text):
                            pair = (m.group(1), m.group(2))
                            counts[pair] = counts.get(pair, 0) + count
                    return counts
            """),
        ),
    },
    "merge_pair": {
        "steps-one-after-join": (
            "After a join it moves on by one place instead of two, so the right half of the "
            "pair is seen again: it is copied after the joined symbol or joined a second time.",
            dedent("""\
                def merge_pair(symbols, pair):
                    out = []
                    i = 0
                    while i < len(symbols):
                        if i < len(symbols) - 1 and (symbols[i], symbols[i + 1]) == pair:
                            out.append(symbols[i] + symbols[i + 1])
                        else:
                            out.append(symbols[i])
                        i += 1
                    return tuple(out)
            """),
        ),
        "space-joined-replace": (
            "Joins the symbols with spaces and calls str.replace on 'left right', which also "
            "matches across symbol boundaries (the tail of one symbol and the head of the "
            "next).",
            dedent("""\
                def merge_pair(symbols, pair):
                    text = " ".join(symbols)
                    text = text.replace(pair[0] + " " + pair[1], pair[0] + pair[1])
                    return tuple(text.split(" ")) if text else ()
            """),
        ),
        "scans-right-to-left": (
            "Walks the symbols from the end towards the start, so in a run like a a a the "
            "join lands on the last two symbols instead of the first two.",
            dedent("""\
                def merge_pair(symbols, pair):
                    result = []
                    i = len(symbols) - 1
                    while i >= 0:
                        if i > 0 and symbols[i - 1] == pair[0] and symbols[i] == pair[1]:
                            result.insert(0, pair[0] + pair[1])
                            i -= 2
                        else:
                            result.insert(0, symbols[i])
                            i -= 1
                    return tuple(result)
            """),
        ),
        "returns-a-list": (
            "Builds the joined symbols correctly but returns the list itself, not a tuple.",
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
        "drops-unmatched-last-symbol": (
            "Loops while i < len - 1 so it can always look at the next symbol, and forgets "
            "to copy the last symbol when it is not part of a join.",
            dedent("""\
                def merge_pair(symbols, pair):
                    new = []
                    i = 0
                    while i < len(symbols) - 1:
                        if symbols[i] == pair[0] and symbols[i + 1] == pair[1]:
                            new.append(pair[0] + pair[1])
                            i += 2
                        else:
                            new.append(symbols[i])
                            i += 1
                    return tuple(new)
            """),
        ),
        "recursive-compares-glued": (
            "A recursive answer that tests symbols[0] + symbols[1] == left + right, so two "
            "symbols that spell the same letters as the pair are joined although they are "
            "other symbols.",
            dedent("""\
                def merge_pair(symbols, pair):
                    symbols = tuple(symbols)
                    if len(symbols) < 2:
                        return symbols
                    if symbols[0] + symbols[1] == pair[0] + pair[1]:
                        return (symbols[0] + symbols[1],) + merge_pair(symbols[2:], pair)
                    return (symbols[0],) + merge_pair(symbols[1:], pair)
            """),
        ),
        "first-occurrence-only": (
            "Finds the pair once with index() and joins that occurrence only; later "
            "occurrences are left apart.",
            dedent("""\
                def merge_pair(symbols, pair):
                    symbols = list(symbols)
                    left, right = pair
                    start = 0
                    while left in symbols[start:]:
                        i = symbols.index(left, start)
                        if i + 1 < len(symbols) and symbols[i + 1] == right:
                            symbols[i : i + 2] = [left + right]
                            break
                        start = i + 1
                    return tuple(symbols)
            """),
        ),
        "zip-then-always-add-last": (
            "Walks zip(symbols, symbols[1:]) with a skip flag and then always appends the last "
            "symbol, which duplicates it when the last pair was joined; an empty tuple raises "
            "IndexError.",
            dedent("""\
                def merge_pair(symbols, pair):
                    out = []
                    skip = False
                    for a, b in zip(symbols, symbols[1:]):
                        if skip:
                            skip = False
                            continue
                        if (a, b) == tuple(pair):
                            out.append(a + b)
                            skip = True
                        else:
                            out.append(a)
                    out.append(symbols[-1])
                    return tuple(out)
            """),
        ),
    },
    "train_bpe": {
        "max-keeps-first-seen": (
            "Picks max(counts, key=counts.get), so a tie goes to the pair counted first in "
            "the corpus, not to the smallest pair.",
            dedent("""\
                def train_bpe(word_counts, num_merges):
                    words = {tuple(w): c for w, c in word_counts.items()}
                    merges = []
                    for _ in range(num_merges):
                        counts = {}
                        for w, c in words.items():
                            for p in zip(w, w[1:]):
                                counts[p] = counts.get(p, 0) + c
                        if not counts:
                            break
                        best = max(counts, key=counts.get)
                        merges.append(best)
                        new_words = {}
                        for w, c in words.items():
                            out, i = [], 0
                            while i < len(w):
                                if i + 1 < len(w) and (w[i], w[i + 1]) == best:
                                    out.append(w[i] + w[i + 1])
                                    i += 2
                                else:
                                    out.append(w[i])
                                    i += 1
                            new_words[tuple(out)] = c
                        words = new_words
                    return merges
            """),
        ),
        "sorted-takes-last": (
            "Sorts the pairs by (count, pair) and takes the last one: the highest count, but "
            "on a tie the largest pair rather than the smallest.",
            dedent("""\
                def count_pairs(words):
                    counts = {}
                    for word, n in words.items():
                        for i in range(len(word) - 1):
                            pair = (word[i], word[i + 1])
                            counts[pair] = counts.get(pair, 0) + n
                    return counts


                def join(word, pair):
                    out = []
                    i = 0
                    while i < len(word):
                        if word[i : i + 2] == pair:
                            out.append(pair[0] + pair[1])
                            i += 2
                        else:
                            out.append(word[i])
                            i += 1
                    return tuple(out)


                def train_bpe(word_counts, num_merges):
                    words = {tuple(w): n for w, n in word_counts.items()}
                    merges = []
                    for _ in range(num_merges):
                        counts = count_pairs(words)
                        if not counts:
                            break
                        best = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]))[-1][0]
                        merges.append(best)
                        words = {join(w, best): n for w, n in words.items()}
                    return merges
            """),
        ),
        "most-common-one": (
            "Asks Counter.most_common(1) for the winner, which settles a tie by the order "
            "the pairs were first counted.",
            dedent("""\
                from collections import Counter


                def train_bpe(word_counts, num_merges):
                    corpus = [(list(w), c) for w, c in word_counts.items()]
                    merges = []
                    while len(merges) < num_merges:
                        stats = Counter()
                        for symbols, c in corpus:
                            for pair in zip(symbols, symbols[1:]):
                                stats[pair] += c
                        if not stats:
                            break
                        (best, _), = stats.most_common(1)
                        merges.append(best)
                        for symbols, _ in corpus:
                            i = 0
                            while i < len(symbols) - 1:
                                if (symbols[i], symbols[i + 1]) == best:
                                    symbols[i : i + 2] = [best[0] + best[1]]
                                i += 1
                    return merges
            """),
        ),
        "stops-when-best-is-one": (
            "Stops as soon as the best pair occurs only once, as a compressor would, though "
            "the exercise says a pair that occurs once still wins its round.",
            dedent("""\
                def train_bpe(word_counts, num_merges):
                    words = [(tuple(w), c) for w, c in word_counts.items()]
                    merges = []
                    for _ in range(num_merges):
                        counts = {}
                        for w, c in words:
                            for pair in zip(w, w[1:]):
                                counts[pair] = counts.get(pair, 0) + c
                        if not counts:
                            break
                        best = min(counts, key=lambda p: (-counts[p], p))
                        if counts[best] < 2:
                            break
                        merges.append(best)
                        merged = []
                        for w, c in words:
                            new, i = [], 0
                            while i < len(w):
                                if i + 1 < len(w) and w[i] == best[0] and w[i + 1] == best[1]:
                                    new.append(w[i] + w[i + 1])
                                    i += 2
                                else:
                                    new.append(w[i])
                                    i += 1
                            merged.append((tuple(new), c))
                        words = merged
                    return merges
            """),
        ),
        "word-presence-and-max": (
            "Two mistakes: it counts in how many distinct words a pair appears (ignoring the "
            "word counts and repeats inside a word), and it breaks ties with max(), which "
            "keeps the first pair met.",
            dedent("""\
                def train_bpe(word_counts, num_merges):
                    vocab = [list(word) for word in word_counts]
                    merges = []
                    for _ in range(num_merges):
                        seen_in = {}
                        for symbols in vocab:
                            for pair in set(zip(symbols, symbols[1:])):
                                seen_in[pair] = seen_in.get(pair, 0) + 1
                        if not seen_in:
                            break
                        best = max(seen_in, key=lambda p: seen_in[p])
                        merges.append(best)
                        for k, symbols in enumerate(vocab):
                            out, i = [], 0
                            while i < len(symbols):
                                if symbols[i : i + 2] == list(best):
                                    out.append("".join(best))
                                    i += 2
                                else:
                                    out.append(symbols[i])
                                    i += 1
                            vocab[k] = out
                    return merges
            """),
        ),
        "counts-only-once": (
            "Counts the pairs once before the loop and after each merge only deletes the "
            "winner, so later rounds choose from stale counts and never see the new pairs.",
            dedent("""\
                def train_bpe(word_counts, num_merges):
                    counts = {}
                    for word, n in word_counts.items():
                        for a, b in zip(word, word[1:]):
                            counts[(a, b)] = counts.get((a, b), 0) + n
                    merges = []
                    for _ in range(num_merges):
                        if not counts:
                            break
                        best = min(counts, key=lambda p: (-counts[p], p))
                        merges.append(best)
                        del counts[best]
                    return merges
            """),
        ),
        "one-round-short": (
            "Loops for step in range(1, num_merges), so it learns one merge fewer than asked.",
            dedent("""\
                def train_bpe(word_counts, num_merges):
                    words = {tuple(w): c for w, c in word_counts.items()}
                    merges = []
                    for step in range(1, num_merges):
                        counts = {}
                        for w, c in words.items():
                            for pair in zip(w, w[1:]):
                                counts[pair] = counts.get(pair, 0) + c
                        if len(counts) == 0:
                            break
                        top = max(counts.values())
                        best = min(p for p in counts if counts[p] == top)
                        merges.append(best)
                        updated = {}
                        for w, c in words.items():
                            out, i = [], 0
                            while i < len(w):
                                if i + 1 < len(w) and (w[i], w[i + 1]) == best:
                                    out.append(best[0] + best[1])
                                    i += 2
                                else:
                                    out.append(w[i])
                                    i += 1
                            updated[tuple(out)] = c
                        words = updated
                    return merges
            """),
        ),
        "ties-by-glued-string": (
            "Breaks ties by the glued string left + right instead of the tuple, so "
            "(a, bc) and (ab, c) compare equal and a pair like (ab, c) can beat (a, bd).",
            dedent("""\
                def train_bpe(word_counts, num_merges):
                    words = {tuple(w): c for w, c in word_counts.items()}
                    merges = []
                    for _ in range(num_merges):
                        counts = {}
                        for w, c in words.items():
                            for i in range(len(w) - 1):
                                counts[w[i], w[i + 1]] = counts.get((w[i], w[i + 1]), 0) + c
                        if not counts:
                            break
                        best = min(counts, key=lambda p: (-counts[p], p[0] + p[1]))
                        merges.append(best)
                        nxt = {}
                        for w, c in words.items():
                            out, i = [], 0
                            while i < len(w):
                                if i + 1 < len(w) and (w[i], w[i + 1]) == best:
                                    out.append(w[i] + w[i + 1])
                                    i += 2
                                else:
                                    out.append(w[i])
                                    i += 1
                            nxt[tuple(out)] = c
                        words = nxt
                    return merges
            """),
        ),
    },
    "encode_bpe": {
        "longest-known-prefix": (
            "Cuts the word greedily into the longest piece that is a token of the table "
            "(a merged string or a single character), left to right, instead of replaying the "
            "merges by rank.",
            dedent("""\
                def encode_bpe(word, merges):
                    vocab = {a + b for a, b in merges}
                    tokens = []
                    i = 0
                    while i < len(word):
                        for j in range(len(word), i, -1):
                            if word[i:j] in vocab or j == i + 1:
                                tokens.append(word[i:j])
                                i = j
                                break
                    return tokens
            """),
        ),
        "joins-every-occurrence": (
            "Finds the lowest-ranked pair present and joins all of its occurrences in one "
            "step, not just the leftmost, before looking again.",
            dedent("""\
                def encode_bpe(word, merges):
                    rank = {}
                    for r, p in enumerate(merges):
                        rank.setdefault(tuple(p), r)
                    tokens = list(word)
                    while True:
                        present = [p for p in zip(tokens, tokens[1:]) if p in rank]
                        if not present:
                            return tokens
                        best = min(present, key=rank.__getitem__)
                        out, i = [], 0
                        while i < len(tokens):
                            if i + 1 < len(tokens) and (tokens[i], tokens[i + 1]) == best:
                                out.append(tokens[i] + tokens[i + 1])
                                i += 2
                            else:
                                out.append(tokens[i])
                                i += 1
                        tokens = out
            """),
        ),
        "leftmost-known-pair": (
            "Joins the leftmost adjacent pair that appears anywhere in the table, ignoring "
            "which merge was learned first.",
            dedent("""\
                def encode_bpe(word, merges):
                    known = set(map(tuple, merges))
                    parts = list(word)
                    changed = True
                    while changed:
                        changed = False
                        for i in range(len(parts) - 1):
                            if (parts[i], parts[i + 1]) in known:
                                parts[i : i + 2] = [parts[i] + parts[i + 1]]
                                changed = True
                                break
                    return parts
            """),
        ),
        "latest-merge-first": (
            "Thinks later merges are better (they make longer tokens), so it joins the "
            "present pair with the highest rank first.",
            dedent("""\
                def encode_bpe(word, merges):
                    symbols = list(word)
                    while len(symbols) > 1:
                        best_rank, best_i = -1, None
                        for i in range(len(symbols) - 1):
                            pair = (symbols[i], symbols[i + 1])
                            if pair in merges:
                                r = merges.index(pair)
                                if r > best_rank:
                                    best_rank, best_i = r, i
                        if best_i is None:
                            break
                        symbols[best_i : best_i + 2] = [symbols[best_i] + symbols[best_i + 1]]
                    return symbols
            """),
        ),
        "rightmost-occurrence": (
            "Records each pair's position in a dict built left to right, so a pair that "
            "occurs twice keeps its last position and the rightmost copy is joined first.",
            dedent("""\
                def encode_bpe(word, merges):
                    ranks = {}
                    for i, m in enumerate(merges):
                        if tuple(m) not in ranks:
                            ranks[tuple(m)] = i
                    toks = list(word)
                    while True:
                        position = {p: i for i, p in enumerate(zip(toks, toks[1:])) if p in ranks}
                        if not position:
                            break
                        best = min(position, key=lambda p: ranks[p])
                        i = position[best]
                        toks[i : i + 2] = ["".join(best)]
                    return toks
            """),
        ),
        "repeated-merge-last-rank": (
            "Builds the rank table with a dict comprehension, so a pair listed twice in the "
            "table gets its later index as rank instead of its first; only tables with a "
            "repeated merge show it.",
            dedent("""\
                def encode_bpe(word, merges):
                    rank = {tuple(pair): r for r, pair in enumerate(merges)}
                    pieces = list(word)
                    while True:
                        options = [
                            (rank[(a, b)], i)
                            for i, (a, b) in enumerate(zip(pieces, pieces[1:]))
                            if (a, b) in rank
                        ]
                        if not options:
                            return pieces
                        _, i = min(options)
                        pieces[i : i + 2] = [pieces[i] + pieces[i + 1]]
            """),
        ),
        "empty-word-gives-empty-token": (
            "Treats words of length 0 or 1 as already finished and returns [word], so the "
            "empty word gives [''] instead of []; longer words are right.",
            dedent("""\
                def encode_bpe(word, merges):
                    if len(word) <= 1:
                        return [word]
                    ranks = {}
                    for r, (a, b) in enumerate(merges):
                        if (a, b) not in ranks:
                            ranks[(a, b)] = r
                    sym = list(word)
                    while True:
                        cands = [
                            (ranks[(sym[i], sym[i + 1])], i)
                            for i in range(len(sym) - 1)
                            if (sym[i], sym[i + 1]) in ranks
                        ]
                        if not cands:
                            return sym
                        r, i = min(cands)
                        sym = sym[:i] + [sym[i] + sym[i + 1]] + sym[i + 2 :]
            """),
        ),
        "never-looks-again": (
            "Ranks the pairs of the word's first split once and joins every occurrence of "
            "each in that order, skipping any that no longer stand side by side; pairs that "
            "the joins create are never considered.",
            dedent("""\
                def encode_bpe(word, merges):
                    ranks = {}
                    for r, p in enumerate(merges):
                        ranks.setdefault(tuple(p), r)
                    parts = list(word)
                    initial = sorted(
                        {p for p in zip(parts, parts[1:]) if p in ranks}, key=ranks.get
                    )
                    for left, right in initial:
                        i = 0
                        while i < len(parts) - 1:
                            if parts[i] == left and parts[i + 1] == right:
                                parts[i : i + 2] = [left + right]
                            i += 1
                    return parts
            """),
        ),
    },
    "merge_and_update": {
        "left-side-only": (
            "Two mistakes: at each join it moves the count of the left neighbour's pair to the "
            "new symbol but forgets the right neighbour, so (b, y) keeps its count and (ab, y) "
            "never appears; and on back-to-back joins (a b a b) it looks up the pair (ab, a), "
            "which stats never held, and raises KeyError.",
            dedent("""\
                def merge_and_update(words, counts, stats, where, pair):
                    a, b = pair
                    changed = []
                    for i in sorted(where.get(pair, set())):
                        w = words[i]
                        new, j, did = [], 0, False
                        while j < len(w):
                            if j + 1 < len(w) and w[j] == a and w[j + 1] == b:
                                c = counts[i]
                                stats[pair] -= c
                                if new:
                                    x = new[-1]
                                    stats[(x, a)] -= c
                                    stats[(x, a + b)] = stats.get((x, a + b), 0) + c
                                    where.setdefault((x, a + b), set()).add(i)
                                new.append(a + b)
                                j += 2
                                did = True
                            else:
                                new.append(w[j])
                                j += 1
                        if did:
                            words[i] = new
                            changed.append(i)
                    for p in [p for p, v in stats.items() if v == 0]:
                        del stats[p]
                    return changed
            """),
        ),
        "filters-zeros-into-new-dict": (
            "Updates stats in place, then drops the zero counts with "
            "stats = {p: c for ... if c}, which rebinds the local name: the caller's stats "
            "keeps its zero entries.",
            dedent("""\
                def merge_and_update(words, counts, stats, where, pair):
                    def join(symbols):
                        out, i = [], 0
                        while i < len(symbols):
                            if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
                                out.append(symbols[i] + symbols[i + 1])
                                i += 2
                            else:
                                out.append(symbols[i])
                                i += 1
                        return out

                    done = []
                    for i in sorted(where.get(pair, ())):
                        old = words[i]
                        new = join(old)
                        if new == old:
                            continue
                        for p in zip(old, old[1:]):
                            stats[p] = stats.get(p, 0) - counts[i]
                        for p in zip(new, new[1:]):
                            stats[p] = stats.get(p, 0) + counts[i]
                            where.setdefault(p, set()).add(i)
                        words[i] = new
                        done.append(i)
                    stats = {p: c for p, c in stats.items() if c != 0}
                    return done
            """),
        ),
        "subtracts-distinct-pairs": (
            "Takes the difference between the word's pairs before and after the join, but "
            "through sets, so a pair that occurs twice in a word is added or removed only "
            "once.",
            dedent("""\
                def merge_and_update(words, counts, stats, where, pair):
                    changed = []
                    for idx in sorted(where.get(pair, [])):
                        before = words[idx]
                        after, k = [], 0
                        while k < len(before):
                            if before[k : k + 2] == list(pair):
                                after.append(pair[0] + pair[1])
                                k += 2
                            else:
                                after.append(before[k])
                                k += 1
                        if after == before:
                            continue
                        for p in set(zip(before, before[1:])):
                            stats[p] -= counts[idx]
                        for p in set(zip(after, after[1:])):
                            stats[p] = stats.get(p, 0) + counts[idx]
                            where.setdefault(p, set()).add(idx)
                        for p in set(zip(before, before[1:])):
                            if stats.get(p) == 0:
                                del stats[p]
                        words[idx] = after
                        changed.append(idx)
                    return changed
            """),
        ),
        "where-never-grows": (
            "Keeps words and stats right but never records the new pairs in where, so the "
            "index cannot find the words that hold the freshly made pairs.",
            dedent("""\
                from collections import Counter


                def merge_and_update(words, counts, stats, where, pair):
                    touched = []
                    for i in sorted(where.get(pair, ())):
                        w = words[i]
                        new, j = [], 0
                        while j < len(w):
                            if j < len(w) - 1 and w[j] == pair[0] and w[j + 1] == pair[1]:
                                new.append(pair[0] + pair[1])
                                j += 2
                            else:
                                new.append(w[j])
                                j += 1
                        if len(new) == len(w):
                            continue
                        delta = Counter(zip(new, new[1:]))
                        delta.subtract(Counter(zip(w, w[1:])))
                        for p, d in delta.items():
                            if d:
                                stats[p] = stats.get(p, 0) + d * counts[i]
                                if stats[p] == 0:
                                    del stats[p]
                        words[i] = new
                        touched.append(i)
                    return touched
            """),
        ),
        "set-order-return": (
            "Walks where[pair] in the set's own order and returns the indices in that order, "
            "which is not increasing once indices collide in the set's table.",
            dedent("""\
                def merge_and_update(words, counts, stats, where, pair):
                    first, second = pair
                    result = []
                    for i in list(where.get(pair, ())):
                        old = words[i]
                        new, j = [], 0
                        while j < len(old):
                            if j + 1 < len(old) and old[j] == first and old[j + 1] == second:
                                new.append(first + second)
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
                        for p in zip(old, old[1:]):
                            if stats.get(p) == 0:
                                stats.pop(p)
                        words[i] = new
                        result.append(i)
                    return result
            """),
        ),
        "stale-indices-reported": (
            "Rewrites every word listed in where[pair] and reports each of them as changed, "
            "even a stale index whose word no longer holds the pair.",
            dedent("""\
                def merge_and_update(words, counts, stats, where, pair):
                    def pairs(seq):
                        return list(zip(seq, seq[1:]))

                    def merge(seq):
                        res, i = [], 0
                        while i < len(seq):
                            if tuple(seq[i : i + 2]) == tuple(pair):
                                res.append(seq[i] + seq[i + 1])
                                i += 2
                            else:
                                res.append(seq[i])
                                i += 1
                        return res

                    ids = sorted(where.get(pair, set()))
                    for i in ids:
                        old, new = words[i], merge(words[i])
                        for p in pairs(old):
                            stats[p] -= counts[i]
                        for p in pairs(new):
                            stats[p] = stats.get(p, 0) + counts[i]
                            where.setdefault(p, set()).add(i)
                        words[i] = new
                    for p in [p for p in stats if stats[p] == 0]:
                        del stats[p]
                    return ids
            """),
        ),
        "unweighted-changes": (
            "Moves each pair's count by 1 per occurrence instead of by the word's count counts[i].",
            dedent("""\
                def merge_and_update(words, counts, stats, where, pair):
                    hit = []
                    for n in sorted(where.get(pair, ())):
                        w = words[n]
                        out, k = [], 0
                        while k < len(w):
                            if k + 1 < len(w) and (w[k], w[k + 1]) == pair:
                                out.append(w[k] + w[k + 1])
                                k += 2
                            else:
                                out.append(w[k])
                                k += 1
                        if out == w:
                            continue
                        for p in zip(w, w[1:]):
                            stats[p] -= 1
                        for p in zip(out, out[1:]):
                            stats[p] = stats.get(p, 0) + 1
                            where.setdefault(p, set()).add(n)
                        for p in list(stats):
                            if stats[p] == 0:
                                del stats[p]
                        words[n] = out
                        hit.append(n)
                    return hit
            """),
        ),
        "recounts-from-every-word": (
            "Joins the pair in the listed words correctly, then rebuilds stats and where by "
            "walking every word with enumerate(words), which the exercise forbids.",
            dedent("""\
                def merge_and_update(words, counts, stats, where, pair):
                    changed = []
                    for i in sorted(where.get(pair, ())):
                        w, out, j = words[i], [], 0
                        while j < len(w):
                            if j + 1 < len(w) and w[j] == pair[0] and w[j + 1] == pair[1]:
                                out.append(pair[0] + pair[1])
                                j += 2
                            else:
                                out.append(w[j])
                                j += 1
                        if out != w:
                            words[i] = out
                            changed.append(i)
                    stats.clear()
                    for i, w in enumerate(words):
                        for p in zip(w, w[1:]):
                            stats[p] = stats.get(p, 0) + counts[i]
                            where.setdefault(p, set()).add(i)
                    return changed
            """),
        ),
    },
}

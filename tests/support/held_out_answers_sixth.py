"""Wrong answers to the five exercises, written apart from the diagnosis and its catalogue.

``HELD_OUT`` maps each exercise to answers a student could hand in after reading the
lessons: a short label, what the student got wrong in plain words, and the source of the
answer cell. Each defines the function with the notebook's signature, uses only the standard
library, and differs from ``solutions`` on some small input. They serve to measure how often
the failure messages name a mistake they were never shown, and name it rightly.

But: these are not tests by themselves and not a catalogue the diagnosis may learn from; they
were written without reading ``bpe_course.mistakes``, its variants or the other held-out sets.
"""

from textwrap import dedent

PAIR_COUNTS: dict[str, tuple[str, str]] = {
    "counter-of-positions": (
        "counts each position once with a Counter, ignoring how often the word occurs",
        dedent("""\
            from collections import Counter


            def pair_counts(words):
                return Counter(pair for word in words for pair in zip(word, word[1:]))
            """),
    ),
    "set-per-word": (
        "puts each word's pairs in a set first, so a pair that occurs twice in one word "
        "counts once",
        dedent("""\
            def pair_counts(words):
                counts = {}
                for word, n in words.items():
                    for pair in set(zip(word, word[1:])):
                        counts[pair] = counts.get(pair, 0) + n
                return counts
            """),
    ),
    "wraps-around": (
        "pairs each symbol with the one before it from index 0, so symbols[-1] pairs the last "
        "symbol with the first (and a one-symbol word with itself)",
        dedent("""\
            def pair_counts(words):
                result = {}
                for symbols in words:
                    weight = words[symbols]
                    for i in range(len(symbols)):
                        pair = (symbols[i - 1], symbols[i])
                        if pair in result:
                            result[pair] += weight
                        else:
                            result[pair] = weight
                return result
            """),
    ),
    "first-sighting-counts-one": (
        "records 1 the first time a pair is met and adds the word's count only afterwards",
        dedent("""\
            def pair_counts(words):
                totals = {}
                for word, count in words.items():
                    for left, right in zip(word, word[1:]):
                        if (left, right) not in totals:
                            totals[(left, right)] = 1
                        else:
                            totals[(left, right)] += count
                return totals
            """),
    ),
    "steps-by-two": (
        "moves two places after each pair, so only pairs starting at even positions count",
        dedent("""\
            def pair_counts(words):
                counts = {}
                for word, weight in words.items():
                    i = 0
                    while i + 1 < len(word):
                        pair = (word[i], word[i + 1])
                        counts[pair] = counts.get(pair, 0) + weight
                        i += 2
                return counts
            """),
    ),
    "comprehension-overwrites": (
        "a dict comprehension: each later sighting of a pair replaces its total with one "
        "word's count instead of adding to it",
        dedent("""\
            def pair_counts(words):
                return {pair: n for word, n in words.items() for pair in zip(word, word[1:])}
            """),
    ),
    "popitem-empties-argument": (
        "counts correctly but takes the words out with popitem, leaving the caller's dict empty",
        dedent("""\
            def pair_counts(words):
                counts = {}
                while words:
                    word, count = words.popitem()
                    for i in range(len(word) - 1):
                        key = (word[i], word[i + 1])
                        counts[key] = counts.get(key, 0) + count
                return counts
            """),
    ),
    "regex-over-letters": (
        "joins each word into a string and pairs its letters with a regex, so symbols longer "
        "than one letter are split apart",
        dedent("""\
            import re


            def pair_counts(words):
                counts = {}
                for word, count in words.items():
                    text = "".join(word)
                    for a, b in re.findall(r"(?=(.)(.))", text):
                        counts[(a, b)] = counts.get((a, b), 0) + count
                return counts
            """),
    ),
}

MERGE_PAIR: dict[str, tuple[str, str]] = {
    "space-join-replace": (
        "joins the symbols with spaces and uses str.replace, so letters inside longer symbols "
        "match too",
        dedent("""\
            def merge_pair(symbols, pair):
                text = " ".join(symbols)
                text = text.replace(pair[0] + " " + pair[1], pair[0] + pair[1])
                return tuple(text.split(" ")) if text else ()
            """),
    ),
    "drops-tail-returns-list": (
        "two mistakes: the loop stops one short, so an unjoined last symbol is lost, and it "
        "returns a list instead of a tuple",
        dedent("""\
            def merge_pair(symbols, pair):
                out = []
                skip = False
                for i in range(len(symbols) - 1):
                    if skip:
                        skip = False
                        continue
                    if (symbols[i], symbols[i + 1]) == pair:
                        out.append(symbols[i] + symbols[i + 1])
                        skip = True
                    else:
                        out.append(symbols[i])
                return out
            """),
    ),
    "scans-right-to-left": (
        "scans from the end, so in a run like a a a the last two are joined",
        dedent("""\
            def merge_pair(symbols, pair):
                left, right = pair
                result = []
                i = len(symbols) - 1
                while i >= 0:
                    if i > 0 and symbols[i - 1] == left and symbols[i] == right:
                        result.insert(0, left + right)
                        i -= 2
                    else:
                        result.insert(0, symbols[i])
                        i -= 1
                return tuple(result)
            """),
    ),
    "returns-at-first-match": (
        "joins only the first occurrence and returns straight away",
        dedent("""\
            def merge_pair(symbols, pair):
                for i in range(len(symbols) - 1):
                    if symbols[i] == pair[0] and symbols[i + 1] == pair[1]:
                        return tuple(symbols[:i]) + (pair[0] + pair[1],) + tuple(symbols[i + 2 :])
                return tuple(symbols)
            """),
    ),
    "recursion-base-case-one": (
        "recursive, but the base case is a single symbol, so the empty tuple (or a pair at "
        "the very end) runs off the end with an IndexError",
        dedent("""\
            def merge_pair(symbols, pair):
                if len(symbols) == 1:
                    return tuple(symbols)
                if (symbols[0], symbols[1]) == tuple(pair):
                    return (symbols[0] + symbols[1],) + merge_pair(symbols[2:], pair)
                return (symbols[0],) + merge_pair(symbols[1:], pair)
            """),
    ),
    "joins-overlaps": (
        "drops a symbol only when it ended a match, so a symbol that both ends one match "
        "and starts another is joined twice",
        dedent("""\
            def merge_pair(symbols, pair):
                left, right = pair
                new = []
                for i, sym in enumerate(symbols):
                    starts = i + 1 < len(symbols) and sym == left and symbols[i + 1] == right
                    ends = i > 0 and symbols[i - 1] == left and sym == right
                    if starts:
                        new.append(left + right)
                    elif not ends:
                        new.append(sym)
                return tuple(new)
            """),
    ),
    "order-blind-set-compare": (
        "compares the two neighbours with the pair as sets, so the reversed pair is joined too",
        dedent("""\
            def merge_pair(symbols, pair):
                merged = []
                i = 0
                while i < len(symbols):
                    if i + 1 < len(symbols) and {symbols[i], symbols[i + 1]} == set(pair):
                        merged.append(symbols[i] + symbols[i + 1])
                        i += 2
                    else:
                        merged.append(symbols[i])
                        i += 1
                return tuple(merged)
            """),
    ),
    "no-next-symbol-check": (
        "reads symbols[i + 1] without checking it exists: IndexError when the last symbol "
        "equals the pair's left half",
        dedent("""\
            def merge_pair(symbols, pair):
                out = []
                i = 0
                while i < len(symbols):
                    if symbols[i] == pair[0] and symbols[i + 1] == pair[1]:
                        out.append(pair[0] + pair[1])
                        i += 2
                    else:
                        out.append(symbols[i])
                        i += 1
                return tuple(out)
            """),
    ),
}

_JOIN = """\


def join(symbols, pair):
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)
"""

_COUNT = """\


def count_pairs(words):
    counts = {}
    for symbols, n in words.items():
        for p in zip(symbols, symbols[1:]):
            counts[p] = counts.get(p, 0) + n
    return counts
"""

TRAIN_BPE: dict[str, tuple[str, str]] = {
    "max-first-seen": (
        "max(counts, key=counts.get): a tie goes to the pair counted first, not the smallest",
        dedent("""\
            def train_bpe(word_counts, num_merges):
                words = {tuple(w): c for w, c in word_counts.items()}
                merges = []
                for _ in range(num_merges):
                    counts = count_pairs(words)
                    if not counts:
                        break
                    best = max(counts, key=counts.get)
                    merges.append(best)
                    words = {join(s, best): c for s, c in words.items()}
                return merges
            """)
        + _COUNT
        + _JOIN,
    ),
    "sorted-last-largest-tie": (
        "sorts (pair, count) items by count then pair and takes the last, so a tie goes to "
        "the largest pair",
        dedent("""\
            def train_bpe(word_counts, num_merges):
                words = {tuple(w): c for w, c in word_counts.items()}
                merges = []
                for _ in range(num_merges):
                    counts = count_pairs(words)
                    if not counts:
                        break
                    ranked = sorted(counts.items(), key=lambda item: (item[1], item[0]))
                    best = ranked[-1][0]
                    merges.append(best)
                    words = {join(s, best): c for s, c in words.items()}
                return merges
            """)
        + _COUNT
        + _JOIN,
    ),
    "min-without-minus": (
        "copies the min over (count, pair) rule but leaves out the minus sign, so it picks "
        "the rarest pair",
        dedent("""\
            def train_bpe(word_counts, num_merges):
                corpus = [(list(word), n) for word, n in word_counts.items()]
                learned = []
                while len(learned) < num_merges:
                    stats = {}
                    for symbols, n in corpus:
                        for i in range(len(symbols) - 1):
                            key = (symbols[i], symbols[i + 1])
                            stats[key] = stats.get(key, 0) + n
                    if not stats:
                        break
                    best = min(stats, key=lambda p: (stats[p], p))
                    learned.append(best)
                    corpus = [(list(join(symbols, best)), n) for symbols, n in corpus]
                return learned
            """)
        + _JOIN,
    ),
    "one-round-short": (
        "loops over range(1, num_merges), so it learns one merge fewer than asked",
        dedent("""\
            def train_bpe(word_counts, num_merges):
                words = {tuple(w): c for w, c in word_counts.items()}
                merges = []
                for step in range(1, num_merges):
                    counts = count_pairs(words)
                    if not counts:
                        break
                    best = min(counts, key=lambda p: (-counts[p], p))
                    merges.append(best)
                    words = {join(s, best): c for s, c in words.items()}
                return merges
            """)
        + _COUNT
        + _JOIN,
    ),
    "no-stop-when-nothing-left": (
        "never checks for an empty count, so once every word is one symbol max() raises "
        "ValueError instead of stopping",
        dedent("""\
            def train_bpe(word_counts, num_merges):
                words = {tuple(w): c for w, c in word_counts.items()}
                merges = []
                for _ in range(num_merges):
                    counts = count_pairs(words)
                    best = max(sorted(counts), key=lambda p: counts[p])
                    merges.append(best)
                    words = {join(s, best): c for s, c in words.items()}
                return merges
            """)
        + _COUNT
        + _JOIN,
    ),
    "counts-once-up-front": (
        "counts the pairs once and returns the top num_merges of that first count, never "
        "merging or counting again",
        dedent("""\
            def train_bpe(word_counts, num_merges):
                counts = {}
                for word, n in word_counts.items():
                    for pair in zip(word, word[1:]):
                        counts[pair] = counts.get(pair, 0) + n
                ranking = sorted(counts, key=lambda pair: (-counts[pair], pair))
                return ranking[:num_merges]
            """),
    ),
    "stops-at-count-one": (
        "stops when the best pair occurs only once, though such a pair still wins a round",
        dedent("""\
            def train_bpe(word_counts, num_merges):
                words = {tuple(w): c for w, c in word_counts.items()}
                merges = []
                for _ in range(num_merges):
                    counts = count_pairs(words)
                    if not counts:
                        break
                    best = min(counts, key=lambda p: (-counts[p], p))
                    if counts[best] < 2:
                        break
                    merges.append(best)
                    words = {join(s, best): c for s, c in words.items()}
                return merges
            """)
        + _COUNT
        + _JOIN,
    ),
    "unweighted-most-common": (
        "two mistakes: counts pairs without the word counts, and breaks ties with "
        "Counter.most_common, which prefers the pair counted first",
        dedent("""\
            from collections import Counter


            def train_bpe(word_counts, num_merges):
                vocab = [tuple(w) for w in word_counts]
                merges = []
                for _ in range(num_merges):
                    pairs = Counter()
                    for symbols in vocab:
                        pairs.update(zip(symbols, symbols[1:]))
                    if not pairs:
                        break
                    ((best, _),) = pairs.most_common(1)
                    merges.append(best)
                    vocab = [join(symbols, best) for symbols in vocab]
                return merges
            """)
        + _JOIN,
    ),
}

ENCODE_BPE: dict[str, tuple[str, str]] = {
    "leftmost-known-pair": (
        "joins the leftmost pair the table knows, whatever its rank",
        dedent("""\
            def encode_bpe(word, merges):
                table = set(map(tuple, merges))
                tokens = list(word)
                changed = True
                while changed:
                    changed = False
                    for i in range(len(tokens) - 1):
                        if (tokens[i], tokens[i + 1]) in table:
                            tokens[i : i + 2] = [tokens[i] + tokens[i + 1]]
                            changed = True
                            break
                return tokens
            """),
    ),
    "replay-merges-in-order": (
        "replays the table in order, joining every occurrence of each merge in one pass, so "
        "an earlier merge made possible by a later one is never used",
        dedent("""\
            def encode_bpe(word, merges):
                symbols = list(word)
                for left, right in merges:
                    out, i = [], 0
                    while i < len(symbols):
                        if i + 1 < len(symbols) and symbols[i] == left and symbols[i + 1] == right:
                            out.append(left + right)
                            i += 2
                        else:
                            out.append(symbols[i])
                            i += 1
                    symbols = out
                return symbols
            """),
    ),
    "longest-prefix-in-vocab": (
        "greedy: takes the longest piece from the left that is a merged token",
        dedent("""\
            def encode_bpe(word, merges):
                vocab = {a + b for a, b in merges}
                tokens = []
                i = 0
                while i < len(word):
                    j = len(word)
                    while j > i + 1 and word[i:j] not in vocab:
                        j -= 1
                    tokens.append(word[i:j])
                    i = j
                return tokens
            """),
    ),
    "repeated-merge-last-rank": (
        "builds ranks with a dict comprehension, so a pair listed twice keeps its last rank",
        dedent("""\
            def encode_bpe(word, merges):
                rank = {tuple(m): r for r, m in enumerate(merges)}
                parts = list(word)
                while True:
                    found = [(rank[p], i) for i, p in enumerate(zip(parts, parts[1:])) if p in rank]
                    if not found:
                        return parts
                    _, i = min(found)
                    parts[i : i + 2] = ["".join(parts[i : i + 2])]
            """),
    ),
    "ties-to-rightmost": (
        "keeps the best pair with <= while scanning, so of two equal ranks the rightmost wins",
        dedent("""\
            def encode_bpe(word, merges):
                ranks = {}
                for r, pair in enumerate(merges):
                    if tuple(pair) not in ranks:
                        ranks[tuple(pair)] = r
                symbols = list(word)
                while True:
                    best_rank, best_at = None, None
                    for i in range(len(symbols) - 1):
                        r = ranks.get((symbols[i], symbols[i + 1]))
                        if r is not None and (best_rank is None or r <= best_rank):
                            best_rank, best_at = r, i
                    if best_at is None:
                        break
                    symbols[best_at : best_at + 2] = [symbols[best_at] + symbols[best_at + 1]]
                return symbols
            """),
    ),
    "short-word-returned-whole": (
        "returns [word] for any word shorter than two letters, so the empty word gives [''] "
        "instead of []",
        dedent("""\
            def encode_bpe(word, merges):
                if len(word) < 2:
                    return [word]
                ranks = {}
                for r, p in enumerate(merges):
                    ranks.setdefault(tuple(p), r)
                tokens = list(word)
                while len(tokens) > 1:
                    options = [
                        (ranks[(a, b)], i)
                        for i, (a, b) in enumerate(zip(tokens, tokens[1:]))
                        if (a, b) in ranks
                    ]
                    if not options:
                        break
                    _, i = min(options)
                    tokens = tokens[:i] + [tokens[i] + tokens[i + 1]] + tokens[i + 2 :]
                return tokens
            """),
    ),
    "min-pair-not-rank": (
        "takes min() of the known pairs themselves, forgetting the rank key, so the "
        "alphabetically smallest pair is joined",
        dedent("""\
            def encode_bpe(word, merges):
                ranks = {tuple(p): r for r, p in reversed(list(enumerate(merges)))}
                tokens = list(word)
                while True:
                    pairs = list(zip(tokens, tokens[1:]))
                    known = [p for p in pairs if p in ranks]
                    if not known:
                        return tokens
                    best = min(known)
                    i = pairs.index(best)
                    tokens[i : i + 2] = [best[0] + best[1]]
            """),
    ),
    "each-merge-once": (
        "walks the table once and joins at most one occurrence of each merge",
        dedent("""\
            def encode_bpe(word, merges):
                pieces = list(word)
                for left, right in merges:
                    for i in range(len(pieces) - 1):
                        if pieces[i] == left and pieces[i + 1] == right:
                            pieces[i : i + 2] = [left + right]
                            break
                return pieces
            """),
    ),
}

_MERGE_WORD = """\


def merge_word(old, left, right):
    new, i = [], 0
    while i < len(old):
        if i + 1 < len(old) and old[i] == left and old[i + 1] == right:
            new.append(left + right)
            i += 2
        else:
            new.append(old[i])
            i += 1
    return new
"""

MERGE_AND_UPDATE: dict[str, tuple[str, str]] = {
    "zero-counts-kept": (
        "takes away every old pair and adds every new one, but never deletes a pair whose "
        "count falls to zero",
        dedent("""\
            def merge_and_update(words, counts, stats, where, pair):
                if pair not in where:
                    return []
                changed = []
                for i in sorted(where.pop(pair)):
                    old = words[i]
                    new = merge_word(old, *pair)
                    if new == old:
                        continue
                    for p in zip(old, old[1:]):
                        stats[p] -= counts[i]
                    for p in zip(new, new[1:]):
                        stats[p] = stats.get(p, 0) + counts[i]
                        where.setdefault(p, set()).add(i)
                    words[i] = new
                    changed.append(i)
                return changed
            """)
        + _MERGE_WORD,
    ),
    "stale-index-reported": (
        "never checks whether a listed word still holds the pair, so stale indices are "
        "returned as changed",
        dedent("""\
            def merge_and_update(words, counts, stats, where, pair):
                todo = sorted(where.pop(pair, ()))
                delta = {}
                for i in todo:
                    old = words[i]
                    new = merge_word(old, *pair)
                    for p in zip(old, old[1:]):
                        delta[p] = delta.get(p, 0) - counts[i]
                    for p in zip(new, new[1:]):
                        delta[p] = delta.get(p, 0) + counts[i]
                        where.setdefault(p, set()).add(i)
                    words[i] = new
                for p, d in delta.items():
                    total = stats.get(p, 0) + d
                    if total:
                        stats[p] = total
                    else:
                        stats.pop(p, None)
                return todo
            """)
        + _MERGE_WORD,
    ),
    "where-never-grows": (
        "updates words and stats exactly but never records the new pairs' words in where",
        dedent("""\
            from collections import Counter


            def merge_and_update(words, counts, stats, where, pair):
                if pair not in where:
                    return []
                delta = Counter()
                changed = []
                for i in sorted(where.pop(pair)):
                    old = words[i]
                    new = merge_word(old, *pair)
                    if len(new) == len(old):
                        continue
                    for p in zip(old, old[1:]):
                        delta[p] -= counts[i]
                    for p in zip(new, new[1:]):
                        delta[p] += counts[i]
                    words[i] = new
                    changed.append(i)
                for p, d in delta.items():
                    if d:
                        stats[p] = stats.get(p, 0) + d
                        if stats[p] == 0:
                            del stats[p]
                return changed
            """)
        + _MERGE_WORD,
    ),
    "only-the-pair-itself": (
        "removes the merged pair's count but leaves its neighbours' pairs alone and adds no "
        "new pairs",
        dedent("""\
            def merge_and_update(words, counts, stats, where, pair):
                changed = []
                for i in sorted(where.pop(pair, set())):
                    new = merge_word(words[i], *pair)
                    if len(new) < len(words[i]):
                        words[i] = new
                        changed.append(i)
                stats.pop(pair, None)
                return changed
            """)
        + _MERGE_WORD,
    ),
    "unweighted-and-zeros-kept": (
        "two mistakes: every change is 1 rather than the word's count, and pairs whose "
        "count reaches zero stay in stats",
        dedent("""\
            def merge_and_update(words, counts, stats, where, pair):
                indices = where.get(pair)
                if not indices:
                    return []
                del where[pair]
                result = []
                for i in sorted(indices):
                    before = words[i]
                    after = merge_word(before, pair[0], pair[1])
                    if after == before:
                        continue
                    for j in range(len(before) - 1):
                        stats[(before[j], before[j + 1])] -= 1
                    for j in range(len(after) - 1):
                        p = (after[j], after[j + 1])
                        stats[p] = stats.get(p, 0) + 1
                        where.setdefault(p, set()).add(i)
                    words[i] = after
                    result.append(i)
                return result
            """)
        + _MERGE_WORD,
    ),
    "first-occurrence-per-word": (
        "joins only the first occurrence of the pair in each word, found with list.index",
        dedent("""\
            def merge_and_update(words, counts, stats, where, pair):
                left, right = pair
                out = []
                change = {}
                for i in sorted(where.pop(pair, ())):
                    old = words[i]
                    at = None
                    for k in range(len(old) - 1):
                        if old[k] == left and old[k + 1] == right:
                            at = k
                            break
                    if at is None:
                        continue
                    new = old[:at] + [left + right] + old[at + 2 :]
                    for p in zip(old, old[1:]):
                        change[p] = change.get(p, 0) - counts[i]
                    for p in zip(new, new[1:]):
                        change[p] = change.get(p, 0) + counts[i]
                        where.setdefault(p, set()).add(i)
                    words[i] = new
                    out.append(i)
                for p, n in change.items():
                    stats[p] = stats.get(p, 0) + n
                    if stats[p] == 0:
                        del stats[p]
                return out
            """),
    ),
    "word-stored-as-tuple": (
        "reuses a tuple-returning merge_pair from lesson 1 and stores each changed word as a "
        "tuple, not a list",
        dedent("""\
            def merge_pair(symbols, pair):
                out, i = [], 0
                while i < len(symbols):
                    if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
                        out.append(symbols[i] + symbols[i + 1])
                        i += 2
                    else:
                        out.append(symbols[i])
                        i += 1
                return tuple(out)


            def merge_and_update(words, counts, stats, where, pair):
                delta = {}
                done = []
                for i in sorted(where.pop(pair, ())):
                    old = tuple(words[i])
                    new = merge_pair(old, pair)
                    if new == old:
                        continue
                    for p in zip(old, old[1:]):
                        delta[p] = delta.get(p, 0) - counts[i]
                    for p in zip(new, new[1:]):
                        delta[p] = delta.get(p, 0) + counts[i]
                        where.setdefault(p, set()).add(i)
                    words[i] = new
                    done.append(i)
                for p, d in delta.items():
                    if stats.get(p, 0) + d == 0:
                        stats.pop(p, None)
                    elif d:
                        stats[p] = stats.get(p, 0) + d
                return done
            """),
    ),
    "neighbours-per-site": (
        "updates the neighbours at each join as it goes; with two joins back to back the "
        "pair between them is taken away twice and a pair with the old right half is added",
        dedent("""\
            def merge_and_update(words, counts, stats, where, pair):
                a, b = pair
                ab = a + b
                done = []

                def bump(p, n, i=None):
                    stats[p] = stats.get(p, 0) + n
                    if stats[p] == 0:
                        del stats[p]
                    if i is not None and n > 0:
                        where.setdefault(p, set()).add(i)

                for i in sorted(where.pop(pair, set())):
                    old = words[i]
                    w = counts[i]
                    new = []
                    j = 0
                    while j < len(old):
                        if j + 1 < len(old) and old[j] == a and old[j + 1] == b:
                            bump(pair, -w)
                            if j > 0:
                                bump((old[j - 1], a), -w)
                                bump((new[-1], ab), w, i)
                            if j + 2 < len(old):
                                bump((b, old[j + 2]), -w)
                                bump((ab, old[j + 2]), w, i)
                            new.append(ab)
                            j += 2
                        else:
                            new.append(old[j])
                            j += 1
                    if len(new) < len(old):
                        words[i] = new
                        done.append(i)
                return done
            """),
    ),
}

HELD_OUT: dict[str, dict[str, tuple[str, str]]] = {
    "pair_counts": PAIR_COUNTS,
    "merge_pair": MERGE_PAIR,
    "train_bpe": TRAIN_BPE,
    "encode_bpe": ENCODE_BPE,
    "merge_and_update": MERGE_AND_UPDATE,
}

"""A second held-out set of wrong student answers to the five graded exercises.

``HELD_OUT[exercise][label]`` is ``(description, source)``: the description says in plain words
what the imagined student got wrong (two mistakes at once are said so), and the source is a
complete, self-contained answer cell that defines the exercise's function with the standard
library only. Each answer was checked to differ from ``solutions/`` on small seeded random
inputs. The set was written from the notebooks' exercise text and the reference solutions
alone, to measure how well the failure messages name mistakes they were not built from.

But: it is not a catalogue the diagnosis may learn from, nor a list of every mistake; nothing
here runs an answer or says which message each one should get.
"""

from textwrap import dedent

HELD_OUT: dict[str, dict[str, tuple[str, str]]] = {
    "pair_counts": {
        "plus-one-per-occurrence": (
            "adds 1 for each place a pair occurs instead of the word's count",
            dedent("""\
                def pair_counts(words):
                    counts = {}
                    for word in words:
                        for i in range(len(word) - 1):
                            pair = (word[i], word[i + 1])
                            counts[pair] = counts.get(pair, 0) + 1
                    return counts
                """),
        ),
        "assigns-instead-of-adding": (
            "stores the word's count for a pair instead of adding to it, so the last "
            "occurrence seen overwrites every earlier one",
            dedent("""\
                def adjacent_pairs(symbols):
                    result = []
                    for i in range(len(symbols) - 1):
                        result.append((symbols[i], symbols[i + 1]))
                    return result


                def pair_counts(words):
                    totals = {}
                    for symbols, count in words.items():
                        for pair in adjacent_pairs(symbols):
                            totals[pair] = count
                    return totals
                """),
        ),
        "set-of-pairs-per-word": (
            "counts each distinct pair once per word (weighted), so a pair repeated inside a "
            "word, overlapping or not, is counted only once",
            dedent("""\
                from collections import Counter


                def pair_counts(words):
                    totals = Counter()
                    for word, n in words.items():
                        for pair in set(zip(word, word[1:])):
                            totals[pair] += n
                    return totals
                """),
        ),
        "words-containing-pair": (
            "two mistakes: counts how many distinct words contain the pair, ignoring both the "
            "word counts and repeats inside a word",
            dedent("""\
                def pair_counts(words):
                    return {
                        pair: sum(pair in set(zip(w, w[1:])) for w in words)
                        for word in words
                        for pair in zip(word, word[1:])
                    }
                """),
        ),
        "stops-one-pair-early": (
            "its while loop stops at len(word) - 2, so the last pair of every word is never "
            "counted and two-symbol words add nothing",
            dedent("""\
                def pair_counts(words):
                    counts = {}
                    for word, count in words.items():
                        i = 0
                        while i < len(word) - 2:
                            pair = (word[i], word[i + 1])
                            if pair in counts:
                                counts[pair] += count
                            else:
                                counts[pair] = count
                            i += 1
                    return counts
                """),
        ),
        "wraps-around-the-word": (
            "pairs word[i - 1] with word[i] from i = 0, so it also counts the pair (last "
            "symbol, first symbol), and a one-symbol word pairs with itself",
            dedent("""\
                def pair_counts(words):
                    counts = {}
                    for word, count in words.items():
                        for i in range(len(word)):
                            pair = (word[i - 1], word[i])
                            counts[pair] = counts.get(pair, 0) + count
                    return counts
                """),
        ),
        "pairs-of-letters-not-symbols": (
            "joins each word into a string and counts pairs of characters with a regex, so "
            "symbols longer than one letter are split apart",
            dedent("""\
                import re


                def pair_counts(words):
                    counts = {}
                    for word, count in words.items():
                        text = "".join(word)
                        for pair in re.findall(r"(?=(.)(.))", text):
                            counts[pair] = counts.get(pair, 0) + count
                    return counts
                """),
        ),
        "empties-the-argument": (
            "takes the words out of the argument with popitem, so the counts are right but "
            "the caller's dictionary is left empty",
            dedent("""\
                def pair_counts(words):
                    counts = {}
                    while words:
                        word, count = words.popitem()
                        for left, right in zip(word, word[1:]):
                            counts[left, right] = counts.get((left, right), 0) + count
                    return counts
                """),
        ),
    },
    "merge_pair": {
        "space-joined-replace": (
            "joins the symbols with spaces and calls str.replace, which also matches the "
            "end or start of a longer symbol",
            dedent("""\
                def merge_pair(symbols, pair):
                    text = " ".join(symbols)
                    text = text.replace(pair[0] + " " + pair[1], pair[0] + pair[1])
                    return tuple(text.split(" ")) if text else ()
                """),
        ),
        "steps-one-after-a-join": (
            "after a join moves on by one position instead of two, so the right half of "
            "every joined pair is kept as well",
            dedent("""\
                def merge_pair(symbols, pair):
                    out = []
                    i = 0
                    while i < len(symbols):
                        if tuple(symbols[i : i + 2]) == tuple(pair):
                            out.append(pair[0] + pair[1])
                        else:
                            out.append(symbols[i])
                        i += 1
                    return tuple(out)
                """),
        ),
        "loses-the-last-symbol": (
            "loops i over range(len(symbols) - 1) with a skip flag and never appends the "
            "last symbol when it was not part of a join",
            dedent("""\
                def merge_pair(symbols, pair):
                    merged = []
                    skip = False
                    for i in range(len(symbols) - 1):
                        if skip:
                            skip = False
                            continue
                        if (symbols[i], symbols[i + 1]) == tuple(pair):
                            merged.append(symbols[i] + symbols[i + 1])
                            skip = True
                        else:
                            merged.append(symbols[i])
                    return tuple(merged)
                """),
        ),
        "first-occurrence-only": (
            "returns as soon as it has joined the first occurrence, leaving later ones apart",
            dedent("""\
                def merge_pair(symbols, pair):
                    symbols = tuple(symbols)
                    for i in range(len(symbols) - 1):
                        if symbols[i] == pair[0] and symbols[i + 1] == pair[1]:
                            return symbols[:i] + (pair[0] + pair[1],) + symbols[i + 2 :]
                    return symbols
                """),
        ),
        "scans-right-to-left": (
            "scans from the end of the word, so in a run like a a a the join lands on the "
            "last two symbols instead of the first two",
            dedent("""\
                def merge_pair(symbols, pair):
                    left, right = pair
                    out = []
                    i = len(symbols) - 1
                    while i >= 0:
                        if i > 0 and symbols[i - 1] == left and symbols[i] == right:
                            out.insert(0, left + right)
                            i -= 2
                        else:
                            out.insert(0, symbols[i])
                            i -= 1
                    return tuple(out)
                """),
        ),
        "returns-a-list": (
            "joins correctly but returns the list it built instead of a tuple",
            dedent("""\
                def merge_pair(symbols, pair):
                    result = []
                    i, n = 0, len(symbols)
                    while i < n:
                        if i < n - 1 and (symbols[i], symbols[i + 1]) == tuple(pair):
                            result.append("".join(pair))
                            i += 2
                        else:
                            result.append(symbols[i])
                            i += 1
                    return result
                """),
        ),
        "recursion-drops-a-lone-symbol": (
            "recursive answer whose base case returns () for fewer than two symbols, so a "
            "single symbol left at the end (or a one-symbol word) is lost",
            dedent("""\
                def merge_pair(symbols, pair):
                    if len(symbols) < 2:
                        return ()
                    if (symbols[0], symbols[1]) == tuple(pair):
                        return (symbols[0] + symbols[1],) + merge_pair(symbols[2:], pair)
                    return (symbols[0],) + merge_pair(symbols[1:], pair)
                """),
        ),
        "compares-joined-strings": (
            "tests symbols[i] + symbols[i + 1] == pair[0] + pair[1], so any two symbols "
            "that spell the same letters are joined, not only the pair itself",
            dedent("""\
                def merge_pair(symbols, pair):
                    target = pair[0] + pair[1]
                    out = []
                    i = 0
                    while i < len(symbols):
                        if i + 1 < len(symbols) and symbols[i] + symbols[i + 1] == target:
                            out.append(target)
                            i += 2
                        else:
                            out.append(symbols[i])
                            i += 1
                    return tuple(out)
                """),
        ),
    },
    "train_bpe": {
        "ties-to-largest-pair": (
            "picks max over (count, pair), so among tied pairs the one that sorts LAST wins",
            dedent("""\
                def merge(symbols, pair):
                    out, i = [], 0
                    while i < len(symbols):
                        if symbols[i : i + 2] == pair:
                            out.append(pair[0] + pair[1])
                            i += 2
                        else:
                            out.append(symbols[i])
                            i += 1
                    return tuple(out)


                def train_bpe(word_counts, num_merges):
                    corpus = {tuple(w): c for w, c in word_counts.items()}
                    merges = []
                    for _ in range(num_merges):
                        stats = {}
                        for symbols, c in corpus.items():
                            for p in zip(symbols, symbols[1:]):
                                stats[p] = stats.get(p, 0) + c
                        if not stats:
                            break
                        best = max(stats, key=lambda p: (stats[p], p))
                        merges.append(best)
                        corpus = {merge(s, best): c for s, c in corpus.items()}
                    return merges
                """),
        ),
        "stable-sort-takes-last-seen": (
            "sorts the pairs by count alone and takes the last, so among tied pairs the one "
            "met last in the words wins",
            dedent("""\
                def count_pairs(corpus):
                    stats = {}
                    for symbols, c in corpus.items():
                        for i in range(len(symbols) - 1):
                            p = (symbols[i], symbols[i + 1])
                            stats[p] = stats.get(p, 0) + c
                    return stats


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


                def train_bpe(word_counts, num_merges):
                    corpus = {tuple(word): n for word, n in word_counts.items()}
                    merges = []
                    while len(merges) < num_merges:
                        stats = count_pairs(corpus)
                        if not stats:
                            break
                        best = sorted(stats.items(), key=lambda item: item[1])[-1][0]
                        merges.append(best)
                        corpus = {join(s, best): n for s, n in corpus.items()}
                    return merges
                """),
        ),
        "most-common-unweighted": (
            "two mistakes: counts each occurrence as 1 instead of the word's count, and breaks "
            "ties by Counter.most_common, which keeps the order pairs were first met",
            dedent("""\
                from collections import Counter


                def train_bpe(word_counts, num_merges):
                    words = [tuple(w) for w in word_counts]
                    merges = []
                    for _ in range(num_merges):
                        stats = Counter(p for w in words for p in zip(w, w[1:]))
                        if not stats:
                            break
                        (a, b), _count = stats.most_common(1)[0]
                        merges.append((a, b))
                        new_words = []
                        for w in words:
                            out, i = [], 0
                            while i < len(w):
                                if i + 1 < len(w) and w[i] == a and w[i + 1] == b:
                                    out.append(a + b)
                                    i += 2
                                else:
                                    out.append(w[i])
                                    i += 1
                            new_words.append(tuple(out))
                        words = new_words
                    return merges
                """),
        ),
        "counts-once-never-recounts": (
            "counts the pairs of the raw characters once and returns the top num_merges of "
            "that ranking, never joining anything or counting again",
            dedent("""\
                from collections import Counter


                def train_bpe(word_counts, num_merges):
                    stats = Counter()
                    for word, count in word_counts.items():
                        for pair in zip(word, word[1:]):
                            stats[pair] += count
                    ranked = sorted(stats, key=lambda p: (-stats[p], p))
                    return ranked[:num_merges]
                """),
        ),
        "joins-first-occurrence-per-word": (
            "its join helper uses list.index and joins only the first occurrence of the pair "
            "in each word",
            dedent("""\
                def join_first(symbols, pair):
                    symbols = list(symbols)
                    for i in range(len(symbols) - 1):
                        if symbols[i] == pair[0] and symbols[i + 1] == pair[1]:
                            symbols[i : i + 2] = [pair[0] + pair[1]]
                            break
                    return tuple(symbols)


                def train_bpe(word_counts, num_merges):
                    corpus = {tuple(w): c for w, c in word_counts.items()}
                    merges = []
                    for _ in range(num_merges):
                        stats = {}
                        for symbols, c in corpus.items():
                            for p in zip(symbols, symbols[1:]):
                                stats[p] = stats.get(p, 0) + c
                        if not stats:
                            break
                        best = min(stats, key=lambda p: (-stats[p], p))
                        merges.append(best)
                        corpus = {join_first(s, best): c for s, c in corpus.items()}
                    return merges
                """),
        ),
        "reuses-the-argument-as-corpus": (
            "turns the caller's dictionary into the working corpus, replacing its string keys "
            "with tuples of symbols; the merges are right but word_counts is changed",
            dedent("""\
                def train_bpe(word_counts, num_merges):
                    for word in list(word_counts):
                        word_counts[tuple(word)] = word_counts.pop(word)
                    merges = []
                    for _ in range(num_merges):
                        stats = {}
                        for symbols, c in word_counts.items():
                            for p in zip(symbols, symbols[1:]):
                                stats[p] = stats.get(p, 0) + c
                        if not stats:
                            break
                        best = min(stats, key=lambda p: (-stats[p], p))
                        merges.append(best)
                        for symbols in list(word_counts):
                            out, i = [], 0
                            while i < len(symbols):
                                if symbols[i : i + 2] == best:
                                    out.append(best[0] + best[1])
                                    i += 2
                                else:
                                    out.append(symbols[i])
                                    i += 1
                            word_counts[tuple(out)] = word_counts.pop(symbols)
                    return merges
                """),
        ),
        "space-separated-replace": (
            "keeps each word as a space-separated string and joins with str.replace, which "
            "also matches inside longer symbols and breaks on words holding a space",
            dedent("""\
                def train_bpe(word_counts, num_merges):
                    corpus = {" ".join(word): count for word, count in word_counts.items()}
                    merges = []
                    for _ in range(num_merges):
                        stats = {}
                        for text, count in corpus.items():
                            parts = text.split()
                            for pair in zip(parts, parts[1:]):
                                stats[pair] = stats.get(pair, 0) + count
                        if not stats:
                            break
                        a, b = min(stats, key=lambda p: (-stats[p], p))
                        merges.append((a, b))
                        corpus = {t.replace(f"{a} {b}", a + b): c for t, c in corpus.items()}
                    return merges
                """),
        ),
        "stops-when-best-count-is-one": (
            "stops training as soon as the best pair occurs only once, though such a pair "
            "should still be merged",
            dedent("""\
                from collections import defaultdict


                def train_bpe(word_counts, num_merges):
                    vocab = {tuple(word): freq for word, freq in word_counts.items()}
                    merges = []
                    for _ in range(num_merges):
                        pairs = defaultdict(int)
                        for symbols, freq in vocab.items():
                            for pair in zip(symbols, symbols[1:]):
                                pairs[pair] += freq
                        if not pairs:
                            break
                        best = min(pairs, key=lambda p: (-pairs[p], p))
                        if pairs[best] < 2:
                            break
                        merges.append(best)
                        new_vocab = {}
                        for symbols, freq in vocab.items():
                            out, i = [], 0
                            while i < len(symbols):
                                if symbols[i : i + 2] == best:
                                    out.append("".join(best))
                                    i += 2
                                else:
                                    out.append(symbols[i])
                                    i += 1
                            new_vocab[tuple(out)] = freq
                        vocab = new_vocab
                    return merges
                """),
        ),
    },
    "encode_bpe": {
        "longest-vocabulary-match": (
            "ignores ranks and cuts the word greedily into the longest tokens the table "
            "can spell, left to right",
            dedent("""\
                def encode_bpe(word, merges):
                    vocab = set(word) | {a + b for a, b in merges}
                    tokens = []
                    i = 0
                    while i < len(word):
                        for j in range(len(word), i, -1):
                            if word[i:j] in vocab:
                                tokens.append(word[i:j])
                                i = j
                                break
                    return tokens
                """),
        ),
        "replays-table-joining-all": (
            "replays the table in order, joining every occurrence of each merge at once, "
            "which differs from one join per step on hand-made tables",
            dedent("""\
                def encode_bpe(word, merges):
                    symbols = list(word)
                    for left, right in merges:
                        out, i = [], 0
                        while i < len(symbols):
                            if symbols[i : i + 2] == [left, right]:
                                out.append(left + right)
                                i += 2
                            else:
                                out.append(symbols[i])
                                i += 1
                        symbols = out
                    return symbols
                """),
        ),
        "leftmost-known-pair": (
            "joins the leftmost adjacent pair that is in the table, whatever its rank",
            dedent("""\
                def encode_bpe(word, merges):
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
                """),
        ),
        "highest-rank-first": (
            "takes max instead of min over (rank, position), so the latest merge in the "
            "table (and its rightmost occurrence) is applied first",
            dedent("""\
                def encode_bpe(word, merges):
                    rank = {}
                    for r, pair in enumerate(merges):
                        rank.setdefault(tuple(pair), r)
                    symbols = list(word)
                    while True:
                        found = [
                            (rank[p], i)
                            for i, p in enumerate(zip(symbols, symbols[1:]))
                            if p in rank
                        ]
                        if not found:
                            return symbols
                        _, i = max(found)
                        symbols[i : i + 2] = [symbols[i] + symbols[i + 1]]
                """),
        ),
        "one-pass-accumulate": (
            "makes a single left-to-right pass, gluing each character onto the previous "
            "token whenever that pair is in the table, and never looks again",
            dedent("""\
                def encode_bpe(word, merges):
                    table = set(map(tuple, merges))
                    tokens = []
                    for ch in word:
                        if tokens and (tokens[-1], ch) in table:
                            tokens[-1] += ch
                        else:
                            tokens.append(ch)
                    return tokens
                """),
        ),
        "empty-word-gives-empty-token": (
            "returns [word] for words shorter than two characters, so the empty word gives "
            "[''] instead of []",
            dedent("""\
                def encode_bpe(word, merges):
                    if len(word) < 2:
                        return [word]
                    ranks = {}
                    for r, pair in enumerate(merges):
                        if tuple(pair) not in ranks:
                            ranks[tuple(pair)] = r
                    tokens = list(word)
                    while len(tokens) > 1:
                        best = None
                        for i in range(len(tokens) - 1):
                            r = ranks.get((tokens[i], tokens[i + 1]))
                            if r is not None and (best is None or r < best[0]):
                                best = (r, i)
                        if best is None:
                            break
                        i = best[1]
                        tokens[i : i + 2] = [tokens[i] + tokens[i + 1]]
                    return tokens
                """),
        ),
        "repeated-merge-keeps-last-rank": (
            "builds the rank dictionary with a comprehension, so a pair listed twice gets "
            "its LAST index as rank instead of its first",
            dedent("""\
                def encode_bpe(word, merges):
                    ranks = {tuple(pair): r for r, pair in enumerate(merges)}
                    symbols = list(word)
                    while len(symbols) > 1:
                        ranked = [
                            (ranks[p], i)
                            for i, p in enumerate(zip(symbols, symbols[1:]))
                            if p in ranks
                        ]
                        if not ranked:
                            break
                        _, i = min(ranked)
                        symbols[i : i + 2] = [symbols[i] + symbols[i + 1]]
                    return symbols
                """),
        ),
        "rightmost-among-equal-ranks": (
            "keeps the best rank with <=, so when the best pair occurs more than once its "
            "rightmost occurrence is joined instead of its leftmost",
            dedent("""\
                def rank_table(merges):
                    table = {}
                    for r, pair in enumerate(merges):
                        table.setdefault(tuple(pair), r)
                    return table


                def best_position(symbols, table):
                    best_rank, best_i = None, None
                    for i in range(len(symbols) - 1):
                        r = table.get((symbols[i], symbols[i + 1]))
                        if r is not None and (best_rank is None or r <= best_rank):
                            best_rank, best_i = r, i
                    return best_i


                def encode_bpe(word, merges):
                    table = rank_table(merges)
                    symbols = list(word)
                    i = best_position(symbols, table)
                    while i is not None:
                        symbols[i : i + 2] = [symbols[i] + symbols[i + 1]]
                        i = best_position(symbols, table)
                    return symbols
                """),
        ),
        "most-frequent-pair-in-word": (
            "two mistakes: chooses, as in training, the known pair that occurs most often in "
            "the word rather than the lowest rank, and joins all its occurrences at once",
            dedent("""\
                from collections import Counter


                def encode_bpe(word, merges):
                    table = set(map(tuple, merges))
                    symbols = list(word)
                    while True:
                        seen = Counter(p for p in zip(symbols, symbols[1:]) if p in table)
                        if not seen:
                            return symbols
                        (a, b), _ = seen.most_common(1)[0]
                        out, i = [], 0
                        while i < len(symbols):
                            if symbols[i : i + 2] == [a, b]:
                                out.append(a + b)
                                i += 2
                            else:
                                out.append(symbols[i])
                                i += 1
                        symbols = out
                """),
        ),
    },
    "merge_and_update": {
        "left-neighbour-only": (
            "at each join moves the count of the left neighbour pair to the new symbol but "
            "never touches the pair on the right, (b, y) becoming (ab, y)",
            dedent("""\
                def bump(stats, p, n):
                    stats[p] = stats.get(p, 0) + n
                    if stats[p] == 0:
                        del stats[p]


                def merge_and_update(words, counts, stats, where, pair):
                    a, b = pair
                    changed = []
                    for i in sorted(where.pop(pair, ())):
                        old, n = words[i], counts[i]
                        new, j = [], 0
                        while j < len(old):
                            if j + 1 < len(old) and old[j] == a and old[j + 1] == b:
                                bump(stats, pair, -n)
                                if new:
                                    bump(stats, (old[j - 1], a), -n)
                                    bump(stats, (new[-1], a + b), n)
                                    where.setdefault((new[-1], a + b), set()).add(i)
                                new.append(a + b)
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
        "counter-rebinds-stats": (
            "sums the changes into collections.Counter(stats) and drops zeros with +stats, "
            "both of which make a new object, so the caller's stats never changes",
            dedent("""\
                from collections import Counter


                def merge_and_update(words, counts, stats, where, pair):
                    if pair not in where:
                        return []
                    a, b = pair
                    delta = Counter()
                    changed = []
                    for i in sorted(where.pop(pair)):
                        old = words[i]
                        new, j = [], 0
                        while j < len(old):
                            if old[j : j + 2] == [a, b]:
                                new.append(a + b)
                                j += 2
                            else:
                                new.append(old[j])
                                j += 1
                        if new == old:
                            continue
                        for p in zip(old, old[1:]):
                            delta[p] -= counts[i]
                        for p in zip(new, new[1:]):
                            delta[p] += counts[i]
                            where.setdefault(p, set()).add(i)
                        words[i] = new
                        changed.append(i)
                    stats = Counter(stats)
                    stats.update(delta)
                    stats = +stats
                    return changed
                """),
        ),
        "zero-counts-left-behind": (
            "applies the net changes but never deletes a pair whose count reaches zero",
            dedent("""\
                def merge_and_update(words, counts, stats, where, pair):
                    if pair not in where:
                        return []
                    left, right = pair
                    delta = {}
                    changed = []
                    for i in sorted(where.pop(pair)):
                        old = words[i]
                        new, j = [], 0
                        while j < len(old):
                            if j + 1 < len(old) and old[j] == left and old[j + 1] == right:
                                new.append(left + right)
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
                    return changed
                """),
        ),
        "set-order-return": (
            "visits where[pair] in the set's own order, so the indices come back unsorted "
            "once they reach 8 or more",
            dedent("""\
                def merge_and_update(words, counts, stats, where, pair):
                    a, b = pair
                    changed = []
                    delta = {}
                    for i in where.pop(pair, set()):
                        old = words[i]
                        new, j = [], 0
                        while j < len(old):
                            if j + 1 < len(old) and (old[j], old[j + 1]) == (a, b):
                                new.append(a + b)
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
                        total = stats.get(p, 0) + d
                        if total:
                            stats[p] = total
                        else:
                            stats.pop(p, None)
                    return changed
                """),
        ),
        "reports-stale-indices": (
            "adds every index of where[pair] to the result, including stale ones whose word "
            "no longer holds the pair",
            dedent("""\
                def merge_and_update(words, counts, stats, where, pair):
                    a, b = pair
                    changed = []
                    delta = {}
                    for i in sorted(where.pop(pair, ())):
                        changed.append(i)
                        old = words[i]
                        new, j = [], 0
                        while j < len(old):
                            if j + 1 < len(old) and old[j] == a and old[j + 1] == b:
                                new.append(a + b)
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
                    for p, d in delta.items():
                        total = stats.get(p, 0) + d
                        if total:
                            stats[p] = total
                        else:
                            stats.pop(p, None)
                    return changed
                """),
        ),
        "word-never-stored": (
            "builds each merged word and updates stats and where, but rebinds a local name "
            "instead of writing words[i], so words keeps the old symbols",
            dedent("""\
                def merged_word(symbols, pair):
                    out, j = [], 0
                    while j < len(symbols):
                        if j + 1 < len(symbols) and (symbols[j], symbols[j + 1]) == pair:
                            out.append(pair[0] + pair[1])
                            j += 2
                        else:
                            out.append(symbols[j])
                            j += 1
                    return out


                def merge_and_update(words, counts, stats, where, pair):
                    changed = []
                    for i in sorted(where.pop(pair, ())):
                        word = words[i]
                        new = merged_word(word, tuple(pair))
                        if new == word:
                            continue
                        for p in zip(word, word[1:]):
                            stats[p] -= counts[i]
                            if stats[p] == 0:
                                del stats[p]
                        for p in zip(new, new[1:]):
                            stats[p] = stats.get(p, 0) + counts[i]
                            where.setdefault(p, set()).add(i)
                        word = new
                        changed.append(i)
                    return changed
                """),
        ),
        "missing-pair-raises": (
            "reads where[pair] without checking, so a pair no word holds raises KeyError "
            "instead of returning []",
            dedent("""\
                def merge_and_update(words, counts, stats, where, pair):
                    todo = sorted(where[pair])
                    del where[pair]
                    left, right = pair
                    delta = {}
                    changed = []
                    for i in todo:
                        old = words[i]
                        new, j = [], 0
                        while j < len(old):
                            if j + 1 < len(old) and old[j] == left and old[j + 1] == right:
                                new.append(left + right)
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
                        total = stats.get(p, 0) + d
                        if total:
                            stats[p] = total
                        else:
                            stats.pop(p, None)
                    return changed
                """),
        ),
        "unweighted-and-where-untouched": (
            "two mistakes: changes each pair's count by 1 instead of the word's count, and "
            "never records the new pairs' words in where",
            dedent("""\
                def merge_and_update(words, counts, stats, where, pair):
                    if pair not in where:
                        return []
                    changed = []
                    for i in sorted(where.pop(pair)):
                        old = words[i]
                        new = []
                        for s in old:
                            if new and (new[-1], s) == tuple(pair) and len(new[-1]) == len(pair[0]):
                                new[-1] = new[-1] + s
                            else:
                                new.append(s)
                        if new == old:
                            continue
                        for p in zip(old, old[1:]):
                            stats[p] = stats.get(p, 0) - 1
                        for p in zip(new, new[1:]):
                            stats[p] = stats.get(p, 0) + 1
                        for p in [p for p, n in stats.items() if n == 0]:
                            del stats[p]
                        words[i] = new
                        changed.append(i)
                    return changed
                """),
        ),
        "back-to-back-neighbours-twice": (
            "updates both neighbours of every join from the old word, so in a b a b the pair "
            "(b, a) between two joins is taken away twice and a bogus (ab, a) is added",
            dedent("""\
                def merge_and_update(words, counts, stats, where, pair):
                    a, b = pair
                    ab = a + b
                    changed = []

                    def move(old_pair, new_pair, n, i):
                        stats[old_pair] = stats.get(old_pair, 0) - n
                        stats[new_pair] = stats.get(new_pair, 0) + n
                        where.setdefault(new_pair, set()).add(i)

                    for i in sorted(where.pop(pair, ())):
                        old, n = words[i], counts[i]
                        new, j = [], 0
                        while j < len(old):
                            if j + 1 < len(old) and old[j] == a and old[j + 1] == b:
                                stats[pair] = stats.get(pair, 0) - n
                                if j > 0:
                                    move((old[j - 1], a), (new[-1], ab), n, i)
                                if j + 2 < len(old):
                                    move((b, old[j + 2]), (ab, old[j + 2]), n, i)
                                new.append(ab)
                                j += 2
                            else:
                                new.append(old[j])
                                j += 1
                        if len(new) < len(old):
                            words[i] = new
                            changed.append(i)
                    for p in [p for p, c in stats.items() if c == 0]:
                        del stats[p]
                    return changed
                """),
        ),
    },
}

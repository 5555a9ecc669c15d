"""A made-up class for the similarity report: sixteen honest answers to each exercise, each
written on its own in a style of its own, two students who copied a classmate and one who
pasted a public-style answer.

``HONEST[exercise]`` lists the honest answers (each is right: the test checks it against the
reference on the hidden cases). ``COPIES`` says who copied whom and how: variables renamed,
comments changed, independent lines reordered. ``PUBLIC_STYLE`` is an answer written here in
the manner of the well-known public BPE tutorials (one ``get_stats`` and one ``merge`` helper,
an ``idx`` counter): the test puts it in ``similarity-references/`` and a student pastes it.

But: no line here comes from outside code; the answers are ours, written for this test.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path
from textwrap import dedent

import nbformat

from course_fixtures.synthetic import answer_cells, write_submission


def _src(text: str) -> str:
    return dedent(text).strip() + "\n"


PAIR_COUNTS = [
    _src("""
        from collections import Counter

        def pair_counts(words):
            tally = Counter()
            for symbols, weight in words.items():
                for left, right in zip(symbols, symbols[1:]):
                    tally[left, right] += weight
            return tally
        """),
    _src("""
        from collections import defaultdict

        def pair_counts(words):
            result = defaultdict(int)
            for word in words:
                n = words[word]
                for i in range(len(word) - 1):
                    result[(word[i], word[i + 1])] += n
            return dict(result)
        """),
    _src("""
        def pair_counts(words):
            found = [(p, c) for w, c in words.items() for p in zip(w, w[1:])]
            totals = {}
            for p, c in found:
                totals[p] = totals.get(p, 0) + c
            return totals
        """),
    _src("""
        def pair_counts(words):
            stats = {}
            for word, freq in words.items():
                k = 0
                while k + 1 < len(word):
                    key = (word[k], word[k + 1])
                    stats.setdefault(key, 0)
                    stats[key] = stats[key] + freq
                    k += 1
            return stats
        """),
    _src("""
        import itertools
        from collections import Counter

        def pair_counts(words):
            c = Counter()
            for syms, f in words.items():
                c.update({bigram: 0 for bigram in itertools.pairwise(syms)})
                for bigram in itertools.pairwise(syms):
                    c[bigram] += f
            return c
        """),
    _src("""
        def _add_pairs(symbols, weight, into):
            if len(symbols) < 2:
                return into
            head = (symbols[0], symbols[1])
            into[head] = into.get(head, 0) + weight
            return _add_pairs(symbols[1:], weight, into)


        def pair_counts(words):
            acc = {}
            for symbols in words:
                _add_pairs(symbols, words[symbols], acc)
            return acc
        """),
    _src("""
        from functools import reduce

        def pair_counts(words):
            def step(table, item):
                (a, b), times = item
                table[(a, b)] = table.get((a, b), 0) + times
                return table

            items = ((pair, n) for word, n in words.items() for pair in zip(word, word[1:]))
            return reduce(step, items, {})
        """),
    _src("""
        def pair_counts(words):
            counts = {}
            for tokens, how_many in words.items():
                for position in range(1, len(tokens)):
                    bigram = tokens[position - 1], tokens[position]
                    try:
                        counts[bigram] += how_many
                    except KeyError:
                        counts[bigram] = how_many
            return counts
        """),
    _src("""
        from collections import Counter

        def pair_counts(words):
            total = Counter()
            for w, count in words.items():
                local = Counter(zip(w[:-1], w[1:]))
                for pair, seen in local.items():
                    total[pair] += seen * count
            # words with a single symbol bring no pair
            return total
        """),
    _src("""
        def pair_counts(words):
            out = {}
            for sequence, mult in words.items():
                for index, current in enumerate(sequence[:-1]):
                    following = sequence[index + 1]
                    if (current, following) in out:
                        out[(current, following)] += mult
                    else:
                        out[(current, following)] = mult
            return out
        """),
    _src("""
        from itertools import groupby

        def pair_counts(words):
            listed = sorted(
                (pair, n) for word, n in words.items() for pair in zip(word, word[1:])
            )
            return {
                pair: sum(n for _, n in group)
                for pair, group in groupby(listed, key=lambda entry: entry[0])
            }
        """),
    _src("""
        import operator

        def pair_counts(words):
            table = {}
            for chars, freq in words.items():
                lefts = list(chars)
                rights = lefts[1:]
                for pair in map(lambda a, b: (a, b), lefts, rights):
                    table[pair] = operator.add(table.get(pair, 0), freq)
            return table
        """),
    _src("""
        def pair_counts(words):
            def pairs_of(word):
                return [tuple(word[j:j + 2]) for j in range(len(word) - 1)]

            answer = {}
            for word, times in words.items():
                for p in pairs_of(word):
                    answer[p] = answer.get(p, 0) + times
            return answer
        """),
    _src("""
        def pair_counts(words):
            bag = dict()
            for word, cnt in words.items():
                prev = None
                for sym in word:
                    if prev is not None:
                        bag[prev, sym] = bag.get((prev, sym), 0) + cnt
                    prev = sym
            return bag
        """),
    _src("""
        from itertools import chain, repeat

        def pair_counts(words):
            stream = chain.from_iterable(
                repeat(pair, n) for w, n in words.items() for pair in zip(w, w[1:])
            )
            tally = {pair: 0 for w in words for pair in zip(w, w[1:])}
            for pair in stream:
                tally[pair] += 1
            return tally
        """),
    _src("""
        def pair_counts(words):
            n_pairs = {}
            keys = list(words)
            for w_idx in range(len(keys)):
                seq = keys[w_idx]
                last = len(seq) - 1
                for s in range(last):
                    pr = (seq[s], seq[s + 1])
                    n_pairs[pr] = n_pairs.get(pr, 0) + words[seq]
            return n_pairs
        """),
]

MERGE_PAIR = [
    _src("""
        def merge_pair(symbols, pair):
            if len(symbols) < 2:
                return tuple(symbols)
            if (symbols[0], symbols[1]) == tuple(pair):
                return (symbols[0] + symbols[1],) + merge_pair(symbols[2:], pair)
            return (symbols[0],) + merge_pair(symbols[1:], pair)
        """),
    _src("""
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
    _src("""
        def merge_pair(symbols, pair):
            a, b = pair
            merged = []
            pos = 0
            while pos < len(symbols):
                if symbols[pos] == a and pos + 1 < len(symbols) and symbols[pos + 1] == b:
                    merged.append(a + b)
                    pos += 2
                else:
                    merged.append(symbols[pos])
                    pos += 1
            return tuple(merged)
        """),
    _src("""
        def merge_pair(symbols, pair):
            result = list(symbols)
            k = 0
            while k < len(result) - 1:
                if (result[k], result[k + 1]) == pair:
                    result[k:k + 2] = [result[k] + result[k + 1]]
                k += 1
            return tuple(result)
        """),
    _src("""
        def merge_pair(symbols, pair):
            stack = []
            just_joined = False
            for sym in symbols:
                if stack and not just_joined and (stack[-1], sym) == pair:
                    stack[-1] = stack[-1] + sym
                    just_joined = True
                else:
                    stack.append(sym)
                    just_joined = False
            return tuple(stack)
        """),
    _src("""
        def merge_pair(symbols, pair):
            left, right = pair
            it = iter(symbols)
            new = []
            for x in it:
                if x == left:
                    nxt = next(it, None)
                    if nxt is None:
                        new.append(x)
                    elif nxt == right:
                        new.append(x + nxt)
                    else:
                        new.append(x)
                        # the next one may itself start a pair
                        while nxt == left:
                            nxt2 = next(it, None)
                            if nxt2 is None:
                                new.append(nxt)
                                nxt = None
                            elif nxt2 == right:
                                new.append(nxt + nxt2)
                                nxt = None
                            else:
                                new.append(nxt)
                                nxt = nxt2
                        if nxt is not None:
                            new.append(nxt)
                else:
                    new.append(x)
            return tuple(new)
        """),
    _src("""
        def merge_pair(symbols, pair):
            def go(i):
                if i >= len(symbols):
                    return []
                if i + 1 < len(symbols) and symbols[i] == pair[0] and symbols[i + 1] == pair[1]:
                    return [pair[0] + pair[1]] + go(i + 2)
                return [symbols[i]] + go(i + 1)

            return tuple(go(0))
        """),
    _src("""
        def merge_pair(symbols, pair):
            pieces = []
            index = 0
            n = len(symbols)
            while index < n:
                window = tuple(symbols[index:index + 2])
                if window == tuple(pair):
                    pieces.append("".join(window))
                    index = index + 2
                    continue
                pieces.append(symbols[index])
                index = index + 1
            return tuple(pieces)
        """),
    _src("""
        def merge_pair(symbols, pair):
            joined = pair[0] + pair[1]
            output = ()
            i = 0
            while i < len(symbols):
                two = symbols[i:i + 2]
                if len(two) == 2 and two[0] == pair[0] and two[1] == pair[1]:
                    output += (joined,)
                    i += 2
                else:
                    output += (symbols[i],)
                    i += 1
            return output
        """),
    _src("""
        def merge_pair(symbols, pair):
            starts = []
            j = 0
            while j < len(symbols) - 1:
                if symbols[j] == pair[0] and symbols[j + 1] == pair[1]:
                    starts.append(j)
                    j += 2
                else:
                    j += 1
            res = list(symbols)
            for at in reversed(starts):
                res[at:at + 2] = [res[at] + res[at + 1]]
            return tuple(res)
        """),
    _src("""
        from itertools import zip_longest

        def merge_pair(symbols, pair):
            acc = []
            consumed = False
            for cur, nxt in zip_longest(symbols, symbols[1:]):
                if consumed:
                    consumed = False
                elif nxt is not None and (cur, nxt) == tuple(pair):
                    acc.append(cur + nxt)
                    consumed = True
                else:
                    acc.append(cur)
            return tuple(acc)
        """),
    _src("""
        def merge_pair(symbols, pair):
            marks = [False] * len(symbols)
            p = 0
            while p + 1 < len(symbols):
                if (symbols[p], symbols[p + 1]) == pair:
                    marks[p] = True
                    p += 2
                else:
                    p += 1
            built = []
            q = 0
            while q < len(symbols):
                if marks[q]:
                    built.append(symbols[q] + symbols[q + 1])
                    q += 2
                else:
                    built.append(symbols[q])
                    q += 1
            return tuple(built)
        """),
    _src("""
        def merge_pair(symbols, pair):
            remaining = list(symbols)
            done = []
            while remaining:
                first = remaining.pop(0)
                if remaining and first == pair[0] and remaining[0] == pair[1]:
                    done.append(first + remaining.pop(0))
                else:
                    done.append(first)
            return tuple(done)
        """),
    _src("""
        def merge_pair(symbols, pair):
            x, y = pair
            if not symbols:
                return ()
            head, rest = symbols[0], symbols[1:]
            if head == x and rest and rest[0] == y:
                return (x + y,) + merge_pair(rest[1:], pair)
            return (head,) + merge_pair(rest, pair)
        """),
    _src("""
        def merge_pair(symbols, pair):
            tokens = []
            i = len(symbols)
            cursor = 0
            for _ in range(i):
                if cursor >= i:
                    break
                glued = "\\0".join(symbols[cursor:cursor + 2])
                if cursor < i - 1 and glued == "\\0".join(pair):
                    tokens.append(symbols[cursor] + symbols[cursor + 1])
                    cursor += 2
                else:
                    tokens.append(symbols[cursor])
                    cursor += 1
            return tuple(tokens)
        """),
    _src("""
        def merge_pair(symbols, pair):
            groups = []
            for s in symbols:
                if groups and len(groups[-1]) == 1 and (groups[-1][0], s) == pair:
                    groups[-1].append(s)
                else:
                    groups.append([s])
            return tuple("".join(g) for g in groups)
        """),
]

TRAIN_BPE = [
    _src("""
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
                new_words = {}
                for symbols, n in words.items():
                    out, i = [], 0
                    while i < len(symbols):
                        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == best:
                            out.append(symbols[i] + symbols[i + 1])
                            i += 2
                        else:
                            out.append(symbols[i])
                            i += 1
                    new_words[tuple(out)] = new_words.get(tuple(out), 0) + n
                words = new_words
            return merges
        """),
    _src("""
        from collections import Counter

        def train_bpe(word_counts, num_merges):
            corpus = [(list(word), freq) for word, freq in word_counts.items()]
            learned = []
            while len(learned) < num_merges:
                stats = Counter()
                for syms, freq in corpus:
                    for a, b in zip(syms, syms[1:]):
                        stats[a, b] += freq
                if not stats:
                    break
                top = max(stats.values())
                winner = sorted(p for p, c in stats.items() if c == top)[0]
                learned.append(winner)
                for syms, _ in corpus:
                    k = 0
                    while k < len(syms) - 1:
                        if syms[k] == winner[0] and syms[k + 1] == winner[1]:
                            syms[k:k + 2] = [winner[0] + winner[1]]
                        k += 1
            return learned
        """),
    _src("""
        def _count(vocab):
            table = {}
            for seq, weight in vocab:
                for pos in range(len(seq) - 1):
                    key = seq[pos], seq[pos + 1]
                    table[key] = table.get(key, 0) + weight
            return table


        def _apply(seq, pair):
            if len(seq) < 2:
                return seq
            if (seq[0], seq[1]) == pair:
                return (seq[0] + seq[1],) + _apply(seq[2:], pair)
            return (seq[0],) + _apply(seq[1:], pair)


        def train_bpe(word_counts, num_merges):
            vocab = [(tuple(w), c) for w, c in word_counts.items()]
            result = []
            for step in range(num_merges):
                table = _count(vocab)
                if len(table) == 0:
                    break
                ranked = sorted(table.items(), key=lambda kv: (-kv[1], kv[0]))
                chosen = ranked[0][0]
                result.append(chosen)
                vocab = [(_apply(seq, chosen), c) for seq, c in vocab]
            return result
        """),
    _src("""
        import heapq

        def train_bpe(word_counts, num_merges):
            state = {tuple(w): n for w, n in word_counts.items()}
            order = []
            while num_merges > 0:
                num_merges -= 1
                freq = {}
                for s, n in state.items():
                    for pr in zip(s, s[1:]):
                        freq[pr] = freq.get(pr, 0) + n
                if not freq:
                    break
                heap = [(-v, k) for k, v in freq.items()]
                heapq.heapify(heap)
                _, best = heapq.heappop(heap)
                order.append(best)
                joined = best[0] + best[1]
                updated = {}
                for s, n in state.items():
                    parts, j = [], 0
                    while j < len(s):
                        if s[j:j + 2] == best:
                            parts.append(joined)
                            j += 2
                        else:
                            parts.append(s[j])
                            j += 1
                    updated[tuple(parts)] = updated.get(tuple(parts), 0) + n
                state = updated
            return order
        """),
    _src("""
        from collections import defaultdict

        def train_bpe(word_counts, num_merges):
            tokens = {word: list(word) for word in word_counts}
            history = []
            for round_ in range(num_merges):
                pairs = defaultdict(int)
                for word, pieces in tokens.items():
                    for i in range(1, len(pieces)):
                        pairs[(pieces[i - 1], pieces[i])] += word_counts[word]
                if len(pairs) == 0:
                    break
                best_count = -1
                best_pair = None
                for pair in sorted(pairs):
                    if pairs[pair] > best_count:
                        best_count, best_pair = pairs[pair], pair
                history.append(best_pair)
                for word in tokens:
                    pieces, fresh = tokens[word], []
                    skip = False
                    for i, piece in enumerate(pieces):
                        if skip:
                            skip = False
                        elif i + 1 < len(pieces) and (piece, pieces[i + 1]) == best_pair:
                            fresh.append(piece + pieces[i + 1])
                            skip = True
                        else:
                            fresh.append(piece)
                    tokens[word] = fresh
            return history
        """),
    _src("""
        import itertools

        def train_bpe(word_counts, num_merges):
            segs = [[list(w), c] for w, c in word_counts.items()]
            merges = []
            for _ in itertools.repeat(None, num_merges):
                tally = {}
                for seg, c in segs:
                    for pr in itertools.pairwise(seg):
                        tally[pr] = tally.get(pr, 0) + c
                if not tally:
                    break
                top = max(tally.values())
                best = min(p for p in tally if tally[p] == top)
                merges.append(best)
                for entry in segs:
                    seg, out = entry[0], []
                    while seg:
                        if len(seg) > 1 and (seg[0], seg[1]) == best:
                            out.append(seg[0] + seg[1])
                            seg = seg[2:]
                        else:
                            out.append(seg[0])
                            seg = seg[1:]
                    entry[0] = out
            return merges
        """),
    _src("""
        def train_bpe(word_counts, num_merges):
            def merge_all(sym, a, b):
                res = []
                i = 0
                while i < len(sym):
                    if i < len(sym) - 1 and sym[i] == a and sym[i + 1] == b:
                        res.append(a + b)
                        i += 2
                        continue
                    res.append(sym[i])
                    i += 1
                return res

            words = [list(w) for w in word_counts]
            freqs = list(word_counts.values())
            out = []
            while len(out) < num_merges:
                counts = {}
                for idx, sym in enumerate(words):
                    for j in range(len(sym) - 1):
                        pair = (sym[j], sym[j + 1])
                        counts[pair] = counts.get(pair, 0) + freqs[idx]
                if not counts:
                    return out
                best = sorted(counts, key=lambda q: (-counts[q], q))[0]
                out.append(best)
                words = [merge_all(sym, *best) for sym in words]
            return out
        """),
    _src("""
        from collections import Counter

        def train_bpe(word_counts, num_merges):
            bag = Counter({tuple(w): c for w, c in word_counts.items()})
            rules = []
            for _ in range(num_merges):
                pc = Counter()
                for sy, c in bag.items():
                    pc.update({pq: 0 for pq in zip(sy, sy[1:])})
                    for pq in zip(sy, sy[1:]):
                        pc[pq] += c
                if not pc:
                    break
                ordered = sorted(pc.items(), key=lambda e: e[0])
                rule = max(ordered, key=lambda e: e[1])[0]
                rules.append(rule)
                nxt = Counter()
                for sy, c in bag.items():
                    acc, t = [], 0
                    while t < len(sy):
                        if tuple(sy[t:t + 2]) == rule:
                            acc.append(rule[0] + rule[1])
                            t += 2
                        else:
                            acc.append(sy[t])
                            t += 1
                    nxt[tuple(acc)] += c
                bag = nxt
            return rules
        """),
    _src("""
        def train_bpe(word_counts, num_merges):
            SEP = "\\x00"
            vocab = {SEP.join(w): n for w, n in word_counts.items()}
            merges = []
            for _ in range(num_merges):
                stats = {}
                for joined, n in vocab.items():
                    parts = joined.split(SEP)
                    for x, y in zip(parts, parts[1:]):
                        stats[x, y] = stats.get((x, y), 0) + n
                if not stats:
                    break
                most = max(stats.values())
                pick = min(k for k, v in stats.items() if v == most)
                merges.append(pick)
                new_vocab = {}
                for joined, n in vocab.items():
                    parts, kept, i = joined.split(SEP), [], 0
                    while i < len(parts):
                        if i + 1 < len(parts) and parts[i] == pick[0] and parts[i + 1] == pick[1]:
                            kept.append(parts[i] + parts[i + 1])
                            i += 2
                        else:
                            kept.append(parts[i])
                            i += 1
                    key = SEP.join(kept)
                    new_vocab[key] = new_vocab.get(key, 0) + n
                vocab = new_vocab
            return merges
        """),
    _src("""
        def train_bpe(word_counts, num_merges):
            seqs = []
            weights = []
            for w in sorted(word_counts):
                seqs.append(tuple(w))
                weights.append(word_counts[w])

            def best_pair():
                c = {}
                for s, wt in zip(seqs, weights):
                    for i in range(len(s) - 1):
                        c[s[i:i + 2]] = c.get(s[i:i + 2], 0) + wt
                if not c:
                    return None
                return min(c.items(), key=lambda kv: (-kv[1], kv[0]))[0]

            def replaced(s, p):
                if len(s) < 2:
                    return s
                if s[:2] == p:
                    return (p[0] + p[1],) + replaced(s[2:], p)
                return s[:1] + replaced(s[1:], p)

            merges = []
            while len(merges) < num_merges:
                p = best_pair()
                if p is None:
                    break
                merges.append(p)
                seqs = [replaced(s, p) for s in seqs]
            return merges
        """),
    _src("""
        def train_bpe(word_counts, num_merges):
            table = [[ch for ch in word] for word in word_counts]
            mult = [word_counts[word] for word in word_counts]
            picked = []
            for step in range(num_merges):
                seen = {}
                row = 0
                while row < len(table):
                    line = table[row]
                    col = 0
                    while col < len(line) - 1:
                        key = (line[col], line[col + 1])
                        seen[key] = seen.get(key, 0) + mult[row]
                        col += 1
                    row += 1
                if seen == {}:
                    break
                highest = None
                for key in seen:
                    if highest is None or seen[key] > seen[highest] or (
                        seen[key] == seen[highest] and key < highest
                    ):
                        highest = key
                picked.append(highest)
                for line in table:
                    col = 0
                    while col < len(line) - 1:
                        if line[col] == highest[0] and line[col + 1] == highest[1]:
                            line[col] = highest[0] + highest[1]
                            del line[col + 1]
                        col += 1
            return picked
        """),
    _src("""
        import functools

        def train_bpe(word_counts, num_merges):
            words = {tuple(w): c for w, c in word_counts.items()}

            def cmp(a, b):
                if a[1] != b[1]:
                    return b[1] - a[1]
                return -1 if a[0] < b[0] else (1 if a[0] > b[0] else 0)

            learned = []
            for _ in range(num_merges):
                counter = {}
                for wd, c in words.items():
                    for pr in zip(wd, wd[1:]):
                        counter[pr] = counter.get(pr, 0) + c
                if not counter:
                    break
                chosen = sorted(counter.items(), key=functools.cmp_to_key(cmp))[0][0]
                learned.append(chosen)
                rebuilt = {}
                for wd, c in words.items():
                    merged = []
                    for sym in wd:
                        # a joined symbol is never chosen[0] again: no overlap
                        if merged and merged[-1] == chosen[0] and sym == chosen[1]:
                            merged[-1] = chosen[0] + sym
                        else:
                            merged.append(sym)
                    rebuilt[tuple(merged)] = rebuilt.get(tuple(merged), 0) + c
                words = rebuilt
            return learned
        """),
    _src("""
        def train_bpe(word_counts, num_merges):
            data = {tuple(w): n for w, n in word_counts.items()}
            rounds = []
            count = 0
            while count < num_merges:
                pairs = {}
                for word in data:
                    n = data[word]
                    for left, right in zip(word[:-1], word[1:]):
                        pairs[(left, right)] = pairs.get((left, right), 0) + n
                if not pairs:
                    break
                ranking = [(-v, k) for k, v in pairs.items()]
                ranking.sort()
                merge = ranking[0][1]
                rounds.append(merge)
                count += 1
                after = {}
                for word, n in data.items():
                    glued = list(word)
                    spot = 0
                    while spot + 1 < len(glued):
                        if glued[spot] == merge[0] and glued[spot + 1] == merge[1]:
                            glued[spot] += glued.pop(spot + 1)
                        spot += 1
                    after[tuple(glued)] = after.get(tuple(glued), 0) + n
                data = after
            return rounds
        """),
    _src("""
        from collections import Counter
        from itertools import pairwise

        def train_bpe(word_counts, num_merges):
            pieces = Counter()
            for w, n in word_counts.items():
                pieces[tuple(w)] += n
            merges = []
            for _ in range(num_merges):
                counts = Counter()
                for p, n in pieces.items():
                    for bg in pairwise(p):
                        counts[bg] += n
                if len(counts) == 0:
                    break
                peak = max(counts.values())
                m = min(bg for bg in counts if counts[bg] == peak)
                merges.append(m)
                nxt = Counter()
                for p, n in pieces.items():
                    res = []
                    it = iter(range(len(p)))
                    for k in it:
                        if k + 1 < len(p) and (p[k], p[k + 1]) == m:
                            res.append(p[k] + p[k + 1])
                            next(it)
                        else:
                            res.append(p[k])
                    nxt[tuple(res)] += n
                pieces = nxt
            return merges
        """),
    _src("""
        def train_bpe(word_counts, num_merges):
            import collections

            state = [(list(w), f) for w, f in word_counts.items()]
            steps = []
            for _ in range(num_merges):
                freq = collections.defaultdict(int)
                for chars, f in state:
                    for z in range(len(chars) - 1):
                        freq[chars[z], chars[z + 1]] += f
                if not freq:
                    break
                candidates = list(freq.items())
                candidates.sort(key=lambda c: c[0])
                candidates.sort(key=lambda c: c[1], reverse=True)
                target = candidates[0][0]
                steps.append(target)
                new_state = []
                for chars, f in state:
                    merged = []
                    holding = False
                    for z, ch in enumerate(chars):
                        if holding:
                            holding = False
                            continue
                        if z < len(chars) - 1 and ch == target[0] and chars[z + 1] == target[1]:
                            merged.append(ch + chars[z + 1])
                            holding = True
                        else:
                            merged.append(ch)
                    new_state.append((merged, f))
                state = new_state
            return steps
        """),
    _src("""
        def train_bpe(word_counts, num_merges):
            words = list(word_counts.items())
            split = {w: tuple(w) for w, _ in words}
            merges = []
            while len(merges) != num_merges:
                count_of = {}
                for w, n in words:
                    s = split[w]
                    for a in range(len(s) - 1):
                        count_of[s[a], s[a + 1]] = count_of.get((s[a], s[a + 1]), 0) + n
                if not count_of:
                    break
                best = None
                for pair, value in count_of.items():
                    key = (-value, pair)
                    if best is None or key < best:
                        best = key
                pick = best[1]
                merges.append(pick)
                for w, _ in words:
                    s = split[w]
                    r = ()
                    a = 0
                    while a < len(s):
                        if s[a:a + 2] == pick:
                            r = r + (s[a] + s[a + 1],)
                            a += 2
                        else:
                            r = r + (s[a],)
                            a += 1
                    split[w] = r
            return merges
        """),
]

ENCODE_BPE = [
    _src("""
        def encode_bpe(word, merges):
            # keep the earliest rank of a merge listed twice
            where_in_table = {}
            for m in reversed(range(len(merges))):
                where_in_table[merges[m][0], merges[m][1]] = m
            out = list(word)
            while True:
                present = {}
                for spot in range(len(out) - 1):
                    key = (out[spot], out[spot + 1])
                    if key in where_in_table and key not in present:
                        present[key] = spot
                if not present:
                    break
                first = min(present, key=where_in_table.__getitem__)
                spot = present[first]
                out[spot:spot + 2] = [first[0] + first[1]]
            return out
        """),
    _src("""
        def encode_bpe(word, merges):
            tokens = [c for c in word]
            while True:
                best_rank = None
                best_at = None
                for at in range(len(tokens) - 1):
                    pair = (tokens[at], tokens[at + 1])
                    if pair in merges:
                        r = merges.index(pair)
                        if best_rank is None or r < best_rank:
                            best_rank, best_at = r, at
                if best_at is None:
                    return tokens
                tokens[best_at] = tokens[best_at] + tokens.pop(best_at + 1)
        """),
    _src("""
        def encode_bpe(word, merges):
            order = {}
            for n, m in enumerate(merges):
                key = (m[0], m[1])
                if key not in order:
                    order[key] = n
            parts = list(word)

            def lowest():
                found = None
                for k in range(len(parts) - 1):
                    r = order.get((parts[k], parts[k + 1]))
                    if r is not None and (found is None or r < found[0]):
                        found = (r, k)
                return found

            hit = lowest()
            while hit is not None:
                k = hit[1]
                parts = parts[:k] + [parts[k] + parts[k + 1]] + parts[k + 2:]
                hit = lowest()
            return parts
        """),
    _src("""
        import math

        def encode_bpe(word, merges):
            rank_of = {}
            for i in range(len(merges) - 1, -1, -1):
                rank_of[tuple(merges[i])] = i
            syms = list(word)
            while len(syms) >= 2:
                scores = [
                    rank_of.get((syms[j], syms[j + 1]), math.inf) for j in range(len(syms) - 1)
                ]
                low = min(scores)
                if low == math.inf:
                    break
                j = scores.index(low)
                syms[j:j + 2] = ["".join(syms[j:j + 2])]
            return syms
        """),
    _src("""
        def encode_bpe(word, merges):
            if word == "":
                return []
            pieces = list(word)
            for _ in range(len(word)):
                candidates = []
                for idx, (a, b) in enumerate(zip(pieces[:-1], pieces[1:])):
                    for r, m in enumerate(merges):
                        if m[0] == a and m[1] == b:
                            candidates.append((r, idx))
                            break
                if len(candidates) == 0:
                    break
                candidates.sort()
                r, idx = candidates[0]
                pieces = pieces[:idx] + [pieces[idx] + pieces[idx + 1]] + pieces[idx + 2:]
            return pieces
        """),
    _src("""
        import heapq

        def encode_bpe(word, merges):
            prio = {}
            for r, (l, rgt) in enumerate(merges):
                prio.setdefault((l, rgt), r)
            out = list(word)
            while True:
                heap = []
                for i in range(len(out) - 1):
                    if (out[i], out[i + 1]) in prio:
                        heapq.heappush(heap, (prio[out[i], out[i + 1]], i))
                if not heap:
                    return out
                _, i = heapq.heappop(heap)
                out[i] += out[i + 1]
                del out[i + 1]
        """),
    _src("""
        def encode_bpe(word, merges):
            def step(symbols):
                best = None
                for position, pair in enumerate(zip(symbols, symbols[1:])):
                    if pair in lookup and (best is None or lookup[pair] < lookup[best[1]]):
                        best = (position, pair)
                return best

            lookup = {}
            for position, pair in enumerate(merges):
                lookup.setdefault(tuple(pair), position)

            def run(symbols):
                found = step(symbols)
                if found is None:
                    return symbols
                p = found[0]
                return run(symbols[:p] + [symbols[p] + symbols[p + 1]] + symbols[p + 2:])

            return run(list(word))
        """),
    _src("""
        def encode_bpe(word, merges):
            firsts = {}
            k = 0
            for m in merges:
                t = tuple(m)
                if t not in firsts:
                    firsts[t] = k
                k += 1
            seq = list(word)
            changed = True
            while changed:
                changed = False
                where, rank = -1, len(merges)
                for i in range(len(seq) - 1):
                    r = firsts.get((seq[i], seq[i + 1]), len(merges))
                    if r < rank:
                        where, rank = i, r
                if where >= 0:
                    seq[where] = seq[where] + seq[where + 1]
                    seq.pop(where + 1)
                    changed = True
            return seq
        """),
    _src("""
        from itertools import pairwise

        def encode_bpe(word, merges):
            table = {}
            for idx, m in reversed(list(enumerate(merges))):
                table[tuple(m)] = idx
            toks = list(word)
            while len(toks) > 1:
                options = sorted(
                    (table[pr], pos) for pos, pr in enumerate(pairwise(toks)) if pr in table
                )
                if not options:
                    break
                pos = options[0][1]
                toks = toks[:pos] + [toks[pos] + toks[pos + 1]] + toks[pos + 2:]
            return toks
        """),
    _src("""
        def encode_bpe(word, merges):
            rank = {}
            for i, m in enumerate(merges):
                if tuple(m) not in rank:
                    rank[tuple(m)] = i
            state = tuple(word)
            while True:
                pairs = [state[i:i + 2] for i in range(len(state) - 1)]
                known = [p for p in pairs if p in rank]
                if not known:
                    break
                top = min(known, key=lambda p: rank[p])
                at = pairs.index(top)
                state = state[:at] + (top[0] + top[1],) + state[at + 2:]
            return list(state)
        """),
    _src("""
        def encode_bpe(word, merges):
            res = list(word)
            INF = float("inf")
            ranks = dict()
            for number, (first, second) in enumerate(merges):
                if (first, second) not in ranks:
                    ranks[(first, second)] = number
            while len(res) > 1:
                lo, lo_at = INF, None
                i = 0
                while i < len(res) - 1:
                    v = ranks.get((res[i], res[i + 1]), INF)
                    if v < lo:
                        lo, lo_at = v, i
                    i += 1
                if lo_at is None:
                    break
                res[lo_at:lo_at + 2] = [res[lo_at] + res[lo_at + 1]]
            return res
        """),
    _src("""
        def encode_bpe(word, merges):
            units = list(word)
            seen = set()
            ordered = []
            for merge in merges:
                merge = tuple(merge)
                if merge not in seen:
                    seen.add(merge)
                    ordered.append(merge)
            for _ in range(max(len(units) - 1, 0)):
                for merge in ordered:
                    hit = next(
                        (i for i in range(len(units) - 1) if (units[i], units[i + 1]) == merge),
                        None,
                    )
                    if hit is not None:
                        units[hit:hit + 2] = [merge[0] + merge[1]]
                        break
                else:
                    break
            return units
        """),
    _src("""
        def encode_bpe(word, merges):
            lookup = {}
            for r in range(len(merges)):
                lookup.setdefault((merges[r][0], merges[r][1]), r)
            chars = list(word)
            while True:
                ranked = sorted(
                    range(len(chars) - 1),
                    key=lambda i: (lookup.get((chars[i], chars[i + 1]), len(merges)), i),
                )
                if not ranked or (chars[ranked[0]], chars[ranked[0] + 1]) not in lookup:
                    return chars
                i = ranked[0]
                chars[i] = chars[i] + chars[i + 1]
                del chars[i + 1]
        """),
    _src("""
        def _leftmost_best(tokens, ranks):
            best = None
            for i, pair in enumerate(zip(tokens, tokens[1:])):
                r = ranks.get(pair)
                if r is None:
                    continue
                if best is None or r < best[0]:
                    best = (r, i)
            return best


        def encode_bpe(word, merges):
            ranks = {}
            for r, m in enumerate(merges):
                ranks.setdefault(tuple(m), r)
            tokens = list(word)
            best = _leftmost_best(tokens, ranks)
            while best:
                i = best[1]
                tokens = [*tokens[:i], tokens[i] + tokens[i + 1], *tokens[i + 2:]]
                best = _leftmost_best(tokens, ranks)
            return tokens
        """),
    _src("""
        def encode_bpe(word, merges):
            pieces = list(word)
            positions = {}
            for i in reversed(range(len(merges))):
                positions[tuple(merges[i])] = i
            def glue_once(ps):
                cand = [(positions[(ps[j], ps[j + 1])], j) for j in range(len(ps) - 1)
                        if (ps[j], ps[j + 1]) in positions]
                if not cand:
                    return None
                _, j = min(cand)
                return ps[:j] + [ps[j] + ps[j + 1]] + ps[j + 2:]
            nxt = glue_once(pieces)
            while nxt is not None:
                pieces = nxt
                nxt = glue_once(pieces)
            return pieces
        """),
    _src("""
        import itertools

        def encode_bpe(word, merges):
            index = {}
            for counter, m in zip(itertools.count(), merges):
                index.setdefault(tuple(m), counter)
            current = list(word)
            while len(current) > 1:
                pairs = list(zip(current, itertools.islice(current, 1, None)))
                known = [(index[p], n) for n, p in enumerate(pairs) if p in index]
                if not known:
                    break
                rank, n = min(known)
                current[n] = pairs[n][0] + pairs[n][1]
                current.pop(n + 1)
            return current
        """),
]

MERGE_AND_UPDATE = [
    _src("""
        def merge_and_update(words, counts, stats, where, pair):
            a, b = pair
            changed = []
            for i in sorted(where.get(pair, set())):
                old = words[i]
                if not any(old[j] == a and old[j + 1] == b for j in range(len(old) - 1)):
                    continue
                new, j = [], 0
                while j < len(old):
                    if j + 1 < len(old) and old[j] == a and old[j + 1] == b:
                        new.append(a + b)
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
                changed.append(i)
            for p in [p for p, c in stats.items() if c == 0]:
                del stats[p]
            return changed
        """),
    _src("""
        from collections import Counter

        def merge_and_update(words, counts, stats, where, pair):
            touched = []
            delta = Counter()
            for idx in sorted(where[pair]) if pair in where else []:
                symbols = words[idx]
                pairs_before = list(zip(symbols, symbols[1:]))
                if pair not in pairs_before:
                    continue
                out = []
                skip = False
                for k, s in enumerate(symbols):
                    if skip:
                        skip = False
                    elif k + 1 < len(symbols) and (s, symbols[k + 1]) == pair:
                        out.append(s + symbols[k + 1])
                        skip = True
                    else:
                        out.append(s)
                for p in pairs_before:
                    delta[p] -= counts[idx]
                for p in zip(out, out[1:]):
                    delta[p] += counts[idx]
                    where.setdefault(p, set()).add(idx)
                words[idx] = out
                touched.append(idx)
            for p, d in delta.items():
                value = stats.get(p, 0) + d
                if value:
                    stats[p] = value
                else:
                    stats.pop(p, None)
            return touched
        """),
    _src("""
        def merge_and_update(words, counts, stats, where, pair):
            def join(seq):
                if len(seq) < 2:
                    return list(seq)
                if (seq[0], seq[1]) == pair:
                    return [seq[0] + seq[1]] + join(seq[2:])
                return [seq[0]] + join(seq[1:])

            def bump(p, amount):
                stats[p] = stats.get(p, 0) + amount
                if stats[p] == 0:
                    del stats[p]

            result = []
            for w in sorted(where.get(pair, ())):
                before = words[w]
                after = join(before)
                if after == before:
                    continue
                for p in zip(before, before[1:]):
                    bump(p, -counts[w])
                for p in zip(after, after[1:]):
                    bump(p, counts[w])
                    if p not in where:
                        where[p] = set()
                    where[p].add(w)
                words[w] = after
                result.append(w)
            return result
        """),
    _src("""
        from collections import defaultdict

        def merge_and_update(words, counts, stats, where, pair):
            diff = defaultdict(int)
            done = []
            candidates = list(where.get(pair, []))
            candidates.sort()
            for n in candidates:
                cur = words[n]
                hits = [k for k in range(len(cur) - 1) if (cur[k], cur[k + 1]) == tuple(pair)]
                if not hits:
                    continue
                nxt = list(cur)
                k = 0
                while k < len(nxt) - 1:
                    if nxt[k] == pair[0] and nxt[k + 1] == pair[1]:
                        nxt[k:k + 2] = [pair[0] + pair[1]]
                    k += 1
                for k in range(len(cur) - 1):
                    diff[cur[k], cur[k + 1]] -= counts[n]
                for k in range(len(nxt) - 1):
                    diff[nxt[k], nxt[k + 1]] += counts[n]
                    where.setdefault((nxt[k], nxt[k + 1]), set()).add(n)
                words[n] = nxt
                done.append(n)
            for key in sorted(diff):
                total = stats.get(key, 0) + diff[key]
                if total == 0:
                    stats.pop(key, None)
                else:
                    stats[key] = total
            return done
        """),
    _src("""
        def merge_and_update(words, counts, stats, where, pair):
            left, right = pair
            fused = left + right
            moved = set()
            for wi in list(where.get(pair, set())):
                syms = words[wi]
                fresh = []
                i = 0
                hit = False
                while i < len(syms):
                    if syms[i] == left and i + 1 < len(syms) and syms[i + 1] == right:
                        fresh.append(fused)
                        i += 2
                        hit = True
                    else:
                        fresh.append(syms[i])
                        i += 1
                if not hit:
                    continue
                weight = counts[wi]
                for x, y in zip(syms, syms[1:]):
                    stats[(x, y)] = stats[(x, y)] - weight
                for x, y in zip(fresh, fresh[1:]):
                    stats[(x, y)] = stats.get((x, y), 0) + weight
                    holders = where.get((x, y))
                    if holders is None:
                        where[(x, y)] = {wi}
                    else:
                        holders.add(wi)
                words[wi] = fresh
                moved.add(wi)
            zero = [k for k in stats if stats[k] == 0]
            for k in zero:
                stats.pop(k)
            return sorted(moved)
        """),
    _src("""
        from collections import Counter

        def merge_and_update(words, counts, stats, where, pair):
            merged_ids = []
            for idx in sorted(where.get(pair, ())):
                w = words[idx]
                if pair not in set(zip(w, w[1:])):
                    continue
                groups = []
                for s in w:
                    if groups and len(groups[-1]) == 1 and (groups[-1][0], s) == pair:
                        groups[-1].append(s)
                    else:
                        groups.append([s])
                new_w = ["".join(g) for g in groups]
                change = Counter(zip(new_w, new_w[1:]))
                change.subtract(Counter(zip(w, w[1:])))
                for p, c in change.items():
                    if c == 0:
                        continue
                    stats[p] = stats.get(p, 0) + c * counts[idx]
                    if stats[p] == 0:
                        del stats[p]
                for p in zip(new_w, new_w[1:]):
                    where.setdefault(p, set()).add(idx)
                words[idx] = new_w
                merged_ids.append(idx)
            return merged_ids
        """),
    _src("""
        def merge_and_update(words, counts, stats, where, pair):
            first, second = pair
            out = []
            ids = sorted(where.get(pair, set()))
            for i in ids:
                word = words[i]
                n = len(word)
                marks = []
                j = 0
                while j < n - 1:
                    if word[j] == first and word[j + 1] == second:
                        marks.append(j)
                        j += 2
                    else:
                        j += 1
                if len(marks) == 0:
                    continue
                new_word = list(word)
                for m in reversed(marks):
                    new_word[m:m + 2] = [first + second]
                c = counts[i]
                for j in range(n - 1):
                    key = (word[j], word[j + 1])
                    stats[key] -= c
                    if stats[key] == 0:
                        del stats[key]
                for j in range(len(new_word) - 1):
                    key = (new_word[j], new_word[j + 1])
                    if key in stats:
                        stats[key] += c
                    else:
                        stats[key] = c
                    if stats[key] == 0:
                        del stats[key]
                    where.setdefault(key, set()).add(i)
                words[i] = new_word
                out.append(i)
            return out
        """),
    _src("""
        import itertools

        def merge_and_update(words, counts, stats, where, pair):
            updates = {}

            def add(p, v):
                updates[p] = updates.get(p, 0) + v

            changed = []
            for index in sorted(where.get(pair, [])):
                tokens = words[index]
                if pair not in itertools.pairwise(tokens):
                    continue
                result = []
                it = iter(range(len(tokens)))
                for t in it:
                    if t + 1 < len(tokens) and (tokens[t], tokens[t + 1]) == pair:
                        result.append(tokens[t] + tokens[t + 1])
                        next(it)
                    else:
                        result.append(tokens[t])
                for p in itertools.pairwise(tokens):
                    add(p, -counts[index])
                for p in itertools.pairwise(result):
                    add(p, counts[index])
                    where.setdefault(p, set()).add(index)
                words[index] = result
                changed.append(index)
            for p, v in updates.items():
                stats[p] = stats.get(p, 0) + v
                if not stats[p]:
                    del stats[p]
            return changed
        """),
    _src("""
        def merge_and_update(words, counts, stats, where, pair):
            def pairs(seq):
                return [(seq[k], seq[k + 1]) for k in range(len(seq) - 1)]

            def merged(seq):
                res = []
                pos = 0
                while pos < len(seq):
                    if tuple(seq[pos:pos + 2]) == tuple(pair):
                        res.append(seq[pos] + seq[pos + 1])
                        pos += 2
                    else:
                        res.append(seq[pos])
                        pos += 1
                return res

            visited = []
            net = {}
            for wid in sorted(where.pop(pair, set())):
                prev = words[wid]
                nxt = merged(prev)
                if len(nxt) == len(prev):
                    continue
                for p in pairs(prev):
                    net[p] = net.get(p, 0) - counts[wid]
                for p in pairs(nxt):
                    net[p] = net.get(p, 0) + counts[wid]
                    where.setdefault(p, set()).add(wid)
                words[wid] = nxt
                visited.append(wid)
            for p in net:
                v = stats.get(p, 0) + net[p]
                if v == 0:
                    stats.pop(p, None)
                else:
                    stats[p] = v
            return visited
        """),
    _src("""
        def merge_and_update(words, counts, stats, where, pair):
            lhs, rhs = pair
            indices = where.get(pair)
            if not indices:
                return []
            updated = []
            for word_no in sorted(indices):
                symbols = words[word_no]
                out = []
                used = False
                k = 0
                while k < len(symbols):
                    if k < len(symbols) - 1 and symbols[k] == lhs and symbols[k + 1] == rhs:
                        out.append(lhs + rhs)
                        k += 2
                        used = True
                        continue
                    out.append(symbols[k])
                    k += 1
                if not used:
                    continue
                w = counts[word_no]
                for k in range(1, len(symbols)):
                    q = (symbols[k - 1], symbols[k])
                    left_over = stats.get(q, 0) - w
                    if left_over:
                        stats[q] = left_over
                    else:
                        stats.pop(q, None)
                for k in range(1, len(out)):
                    q = (out[k - 1], out[k])
                    stats[q] = stats.get(q, 0) + w
                    if stats[q] == 0:
                        del stats[q]
                    where.setdefault(q, set()).add(word_no)
                words[word_no] = out
                updated.append(word_no)
            return updated
        """),
    _src("""
        from collections import Counter

        def merge_and_update(words, counts, stats, where, pair):
            joined = "".join(pair)
            ledger = Counter()
            hit_words = []
            for i in sorted(where.get(pair, set())):
                word = words[i]
                stack = []
                fresh_join = False
                for sym in word:
                    if stack and not fresh_join and stack[-1] == pair[0] and sym == pair[1]:
                        stack[-1] = joined
                        fresh_join = True
                    else:
                        stack.append(sym)
                        fresh_join = False
                if len(stack) == len(word):
                    continue
                ledger.subtract({p: n * counts[i] for p, n in Counter(zip(word, word[1:])).items()})
                ledger.update({p: n * counts[i] for p, n in Counter(zip(stack, stack[1:])).items()})
                for p in set(zip(stack, stack[1:])):
                    where.setdefault(p, set()).add(i)
                words[i] = stack
                hit_words.append(i)
            for p, d in ledger.items():
                if d:
                    stats[p] = stats.get(p, 0) + d
                    if stats[p] == 0:
                        del stats[p]
            return hit_words
        """),
    _src("""
        def merge_and_update(words, counts, stats, where, pair):
            result = []
            for position in sorted(where.get(pair, ())):
                syms = words[position]

                def rebuild(rest):
                    if not rest:
                        return []
                    if len(rest) > 1 and rest[0] == pair[0] and rest[1] == pair[1]:
                        return [rest[0] + rest[1]] + rebuild(rest[2:])
                    return [rest[0]] + rebuild(rest[1:])

                new_syms = rebuild(list(syms))
                if len(new_syms) == len(syms):
                    continue
                old_pairs = {}
                for p in zip(syms, syms[1:]):
                    old_pairs[p] = old_pairs.get(p, 0) + 1
                new_pairs = {}
                for p in zip(new_syms, new_syms[1:]):
                    new_pairs[p] = new_pairs.get(p, 0) + 1
                    where.setdefault(p, set()).add(position)
                for p in set(old_pairs) | set(new_pairs):
                    move = (new_pairs.get(p, 0) - old_pairs.get(p, 0)) * counts[position]
                    if move:
                        stats[p] = stats.get(p, 0) + move
                        if stats[p] == 0:
                            del stats[p]
                words[position] = new_syms
                result.append(position)
            return result
        """),
    _src("""
        def merge_and_update(words, counts, stats, where, pair):
            a, b = pair
            todo = sorted(where.get(pair, ()))
            done = []
            while todo:
                i = todo.pop(0)
                w = words[i]
                starts = [s for s in range(len(w) - 1) if w[s] == a and w[s + 1] == b]
                # overlapping hits (a a a with pair a a) keep only the leftmost of each run
                keep = []
                for s in starts:
                    if not keep or s > keep[-1] + 1:
                        keep.append(s)
                if not keep:
                    continue
                nw = []
                s = 0
                while s < len(w):
                    if keep and s == keep[0]:
                        nw.append(a + b)
                        keep.pop(0)
                        s += 2
                    else:
                        nw.append(w[s])
                        s += 1
                for x in range(len(w) - 1):
                    stats[w[x], w[x + 1]] -= counts[i]
                for x in range(len(nw) - 1):
                    stats[nw[x], nw[x + 1]] = stats.get((nw[x], nw[x + 1]), 0) + counts[i]
                    where.setdefault((nw[x], nw[x + 1]), set()).add(i)
                words[i] = nw
                done.append(i)
            for key in [key for key in stats if stats[key] == 0]:
                del stats[key]
            return done
        """),
    _src("""
        import operator
        from functools import reduce

        def merge_and_update(words, counts, stats, where, pair):
            def fold(acc, sym):
                out, just = acc
                if out and not just and (out[-1], sym) == pair:
                    return out[:-1] + [out[-1] + sym], True
                return out + [sym], False

            moves = {}
            who = []
            for k in sorted(where.get(pair, set())):
                before = words[k]
                after, _ = reduce(fold, before, ([], False))
                if len(after) == len(before):
                    continue
                for p in map(tuple, zip(before, before[1:])):
                    moves[p] = operator.sub(moves.get(p, 0), counts[k])
                for p in map(tuple, zip(after, after[1:])):
                    moves[p] = operator.add(moves.get(p, 0), counts[k])
                    where.setdefault(p, set()).add(k)
                words[k] = after
                who.append(k)
            for p, m in moves.items():
                now = stats.get(p, 0) + m
                if now == 0:
                    stats.pop(p, None)
                else:
                    stats[p] = now
            return who
        """),
    _src("""
        def merge_and_update(words, counts, stats, where, pair):
            listed = where.get(pair, set())
            changed_words = []
            for i in sorted(listed):
                old_word = words[i]
                flags = [False] * len(old_word)
                j = 0
                while j + 1 < len(old_word):
                    if (old_word[j], old_word[j + 1]) == pair:
                        flags[j] = True
                        j += 2
                    else:
                        j += 1
                if True not in flags:
                    continue
                new_word = []
                j = 0
                while j < len(old_word):
                    if flags[j]:
                        new_word.append(old_word[j] + old_word[j + 1])
                        j += 2
                    else:
                        new_word.append(old_word[j])
                        j += 1
                weight = counts[i]
                gone = list(zip(old_word[:-1], old_word[1:]))
                born = list(zip(new_word[:-1], new_word[1:]))
                for g in gone:
                    stats[g] = stats.get(g, 0) - weight
                for g in born:
                    stats[g] = stats.get(g, 0) + weight
                    where.setdefault(g, set()).add(i)
                for g in set(gone) | set(born):
                    if stats.get(g) == 0:
                        del stats[g]
                words[i] = new_word
                changed_words.append(i)
            return changed_words
        """),
    _src("""
        from collections import defaultdict

        def merge_and_update(words, counts, stats, where, pair):
            joined_symbol = pair[0] + pair[1]
            bookkeeping = defaultdict(int)
            hits = []
            for n in sorted(where.get(pair, set())):
                w = list(words[n])
                t = 0
                found = False
                while t < len(w) - 1:
                    if w[t] == pair[0] and w[t + 1] == pair[1]:
                        if t > 0:
                            bookkeeping[(w[t - 1], w[t])] -= counts[n]
                            bookkeeping[(w[t - 1], joined_symbol)] += counts[n]
                            where.setdefault((w[t - 1], joined_symbol), set()).add(n)
                        if t + 2 < len(w):
                            bookkeeping[(w[t + 1], w[t + 2])] -= counts[n]
                            bookkeeping[(joined_symbol, w[t + 2])] += counts[n]
                            where.setdefault((joined_symbol, w[t + 2]), set()).add(n)
                        bookkeeping[pair] -= counts[n]
                        w[t:t + 2] = [joined_symbol]
                        found = True
                    t += 1
                if found:
                    words[n] = w
                    hits.append(n)
            for p, d in bookkeeping.items():
                v = stats.get(p, 0) + d
                if v:
                    stats[p] = v
                else:
                    stats.pop(p, None)
            return hits
        """),
]

HONEST: dict[str, list[str]] = {
    "pair_counts": PAIR_COUNTS,
    "merge_pair": MERGE_PAIR,
    "train_bpe": TRAIN_BPE,
    "encode_bpe": ENCODE_BPE,
    "merge_and_update": MERGE_AND_UPDATE,
}


# Copier one takes honest answer 10 of train_bpe (index arithmetic over a list of lists):
# every name changed, a comment added, the two list set-ups swapped.
COPY_TRAIN = _src("""
    def train_bpe(word_counts, num_merges):
        # multiplicity of every word, then the word split into characters
        weight_of = [word_counts[entry] for entry in word_counts]
        grid = [[letter for letter in entry] for entry in word_counts]
        chosen = []
        for it in range(num_merges):
            tally = {}
            r = 0
            while r < len(grid):
                cur = grid[r]
                c = 0
                while c < len(cur) - 1:
                    bigram = (cur[c], cur[c + 1])
                    tally[bigram] = tally.get(bigram, 0) + weight_of[r]
                    c += 1
                r += 1
            if tally == {}:
                break  # nothing left to merge
            top = None
            for bigram in tally:
                if top is None or tally[bigram] > tally[top] or (
                    tally[bigram] == tally[top] and bigram < top
                ):
                    top = bigram
            chosen.append(top)
            for cur in grid:
                c = 0
                while c < len(cur) - 1:
                    if cur[c] == top[0] and cur[c + 1] == top[1]:
                        cur[c] = top[0] + top[1]
                        del cur[c + 1]
                    c += 1
        return chosen
    """)

# Copier two takes honest answer 11 of merge_and_update (the recursive rebuild): names
# changed, comments added, the two pair tallies built in the other order.
COPY_UPDATE = _src("""
    def merge_and_update(words, counts, stats, where, pair):
        out = []
        for wi in sorted(where.get(pair, ())):
            toks = words[wi]

            def glue(tail):
                # join the pair wherever it starts, scanning left to right
                if not tail:
                    return []
                if len(tail) > 1 and tail[0] == pair[0] and tail[1] == pair[1]:
                    return [tail[0] + tail[1]] + glue(tail[2:])
                return [tail[0]] + glue(tail[1:])

            merged_toks = glue(list(toks))
            if len(merged_toks) == len(toks):
                continue  # stale entry
            after = {}
            for q in zip(merged_toks, merged_toks[1:]):
                after[q] = after.get(q, 0) + 1
                where.setdefault(q, set()).add(wi)
            before = {}
            for q in zip(toks, toks[1:]):
                before[q] = before.get(q, 0) + 1
            for q in set(before) | set(after):
                step = (after.get(q, 0) - before.get(q, 0)) * counts[wi]
                if step:
                    stats[q] = stats.get(q, 0) + step
                    if stats[q] == 0:
                        del stats[q]
            words[wi] = merged_toks
            out.append(wi)
        return out
    """)

# The public-style answer: merges learned with `get_stats` and `merge` helpers and a running
# `idx`, as the widely read tutorials write them. Its encode_bpe is what the paster submits.
PUBLIC_STYLE = _src('''
    """A tiny byte-pair-encoding tokenizer, tutorial style."""


    def get_stats(ids, counts=None):
        counts = {} if counts is None else counts
        for pair in zip(ids, ids[1:]):
            counts[pair] = counts.get(pair, 0) + 1
        return counts


    def merge(ids, pair, idx):
        newids = []
        i = 0
        while i < len(ids):
            if ids[i] == pair[0] and i < len(ids) - 1 and ids[i + 1] == pair[1]:
                newids.append(idx)
                i += 2
            else:
                newids.append(ids[i])
                i += 1
        return newids


    def encode_bpe(word, merges):
        merge_rank = {}
        for idx, pair in enumerate(merges):
            if tuple(pair) not in merge_rank:
                merge_rank[tuple(pair)] = idx
        ids = list(word)
        while len(ids) >= 2:
            stats = get_stats(ids)
            pair = min(stats, key=lambda p: (merge_rank.get(p, float("inf")), ids_index(ids, p)))
            if pair not in merge_rank:
                break
            ids = merge_first(ids, pair)
        return ids


    def ids_index(ids, pair):
        for i in range(len(ids) - 1):
            if (ids[i], ids[i + 1]) == pair:
                return i
        return len(ids)


    def merge_first(ids, pair):
        i = ids_index(ids, pair)
        return ids[:i] + [ids[i] + ids[i + 1]] + ids[i + 2:]
    ''')

PASTED_ENCODE = _src("""
    def get_stats(ids, counts=None):
        counts = {} if counts is None else counts
        for pair in zip(ids, ids[1:]):
            counts[pair] = counts.get(pair, 0) + 1
        return counts


    def encode_bpe(word, merges):
        merge_rank = {}
        for idx, pair in enumerate(merges):
            if tuple(pair) not in merge_rank:
                merge_rank[tuple(pair)] = idx
        ids = list(word)
        while len(ids) >= 2:
            stats = get_stats(ids)
            pair = min(stats, key=lambda p: (merge_rank.get(p, float("inf")), ids_index(ids, p)))
            if pair not in merge_rank:
                break
            ids = merge_first(ids, pair)
        return ids


    def ids_index(ids, pair):
        for i in range(len(ids) - 1):
            if (ids[i], ids[i + 1]) == pair:
                return i
        return len(ids)


    def merge_first(ids, pair):
        i = ids_index(ids, pair)
        return ids[:i] + [ids[i] + ids[i + 1]] + ids[i + 2:]
    """)

# (exercise, the honest answer copied, the copy), and the answer pasted from the reference.
COPIES = [("train_bpe", 10, COPY_TRAIN), ("merge_and_update", 11, COPY_UPDATE)]
PASTED = ("encode_bpe", PASTED_ENCODE)

REPO = Path(__file__).resolve().parents[1]
STUDENTS = 16
# A different odd step per exercise, so a student's styles do not line up across exercises.
_STEP = {"pair_counts": 1, "merge_pair": 3, "train_bpe": 5, "encode_bpe": 7, "merge_and_update": 9}
REFERENCE_FILE = "public_bpe.py"


def style_of(student: int, exercise: str) -> int:
    """Which honest answer of ``exercise`` the honest student number ``student`` wrote."""
    return (student * _STEP[exercise] + 2) % STUDENTS


def with_stub_header(stub: str, answer: str, name: str) -> str:
    """``answer`` with its ``def`` line replaced by the stub's signature and docstring, as a
    student who wrote below the given docstring would hand it in."""
    tree = ast.parse(answer)
    node = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)
    lines = answer.splitlines()
    header = stub.split("    # YOUR CODE HERE")[0].rstrip("\n").splitlines()
    start, body = node.lineno - 1, node.body[0].lineno - 1
    return "\n".join(lines[:start] + header + lines[body:]) + "\n"


def honest_student(number: int) -> str:
    return f"honest-{number:02d}"


def build_class(root: Path, release: Path) -> dict[str, set[str]]:
    """Sixteen honest students, two copiers and a paster in ``root/submitted/``, the
    released notebooks of ``release`` in ``root/release/bpe/`` and the public-style answer
    in ``root/similarity-references/``; returns each exercise's expected top pair."""
    released = root / "release" / "bpe"
    released.mkdir(parents=True, exist_ok=True)
    for notebook in sorted(release.glob("*.ipynb")):
        shutil.copy(notebook, released / notebook.name)
    stubs = {
        name: cell.source
        for path in sorted(released.glob("*.ipynb"))
        for name, cell in answer_cells(nbformat.read(path, as_version=4)).items()
    }
    for number in range(STUDENTS):
        answers = {}
        for exercise, styles in HONEST.items():
            answer = styles[style_of(number, exercise)]
            # Half the class writes below the stub's docstring, half replaces the cell.
            answers[exercise] = (
                with_stub_header(stubs[exercise], answer, exercise) if number % 2 else answer
            )
        write_submission(root, honest_student(number), answers)
    expected = {}
    for copier, (exercise, style, copy) in enumerate(COPIES, start=1):
        holder = next(n for n in range(STUDENTS) if style_of(n, exercise) == style)
        write_submission(root, f"copier-{copier}", {exercise: copy})
        expected[exercise] = {f"copier-{copier}", honest_student(holder)}
    exercise, pasted = PASTED
    write_submission(root, "paster", {exercise: pasted})
    expected[exercise] = {"paster", f"reference {REFERENCE_FILE}"}
    references = root / "similarity-references"
    references.mkdir(exist_ok=True)
    (references / REFERENCE_FILE).write_text(PUBLIC_STYLE)
    return expected

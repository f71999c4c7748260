#!/usr/bin/env python3
"""How much of the store is written twice, once per engine.

Reads the Swift files of Sources/IMStore, sets aside comments, blank lines, string
literals (their text becomes "") and statement placeholders ($1, ?1, ?), `try`, `Self.`
and lines of brackets alone, and collapses whitespace. The SQLite engine's files are those under SQLite/ or named SQLite*.swift, the
PostgreSQL engine's those under Postgres/ or named Postgres*.swift; everything else is
the shared body. For each SQLite file it finds the PostgreSQL file with the longest
common subsequence of code lines (lines that reappear in the same order) and counts
those lines as repeated. It prints, per pair with any repetition, the repeated lines,
then the totals: repeated lines as a share of the SQLite engine's code lines, of the
shared body's, and of the whole store's (docs/architecture.md, "One store body, two
engines").

  Scripts/store-repetition.py [--root Sources/IMStore] [--quiet]
"""
import argparse
import os
import re
import sys

STRING = re.compile(r'"(?:\\.|[^"\\])*"')
PLACEHOLDER = re.compile(r'\$\d+|\?\d*')


def code_lines(text):
    """The file's code lines, normalised: comments, literals, placeholders and spacing aside."""
    lines = []
    in_block_string = False
    in_block_comment = False
    for raw in text.splitlines():
        line = raw.strip()
        if in_block_string:
            if '"""' in line:
                in_block_string = False
                line = '""' + line.split('"""', 1)[1]
            else:
                continue
        if in_block_comment:
            if '*/' in line:
                in_block_comment = False
                line = line.split('*/', 1)[1]
            else:
                continue
        if line.count('"""') == 1:
            in_block_string = True
            line = line.split('"""', 1)[0] + '""'
        line = line.replace('"""', '"')
        line = STRING.sub('""', line)
        if '/*' in line and '*/' not in line:
            in_block_comment = True
            line = line.split('/*', 1)[0]
        line = re.sub(r'//.*$', '', line)
        line = PLACEHOLDER.sub('?', line)
        # What differs only because one engine's calls throw, or are static.
        line = re.sub(r'\btry[?!]? ', '', line).replace('Self.', '').replace('self.', '')
        line = re.sub(r'\s+', ' ', line).strip()
        # Lines of brackets and commas alone say nothing about what the code does.
        if re.search(r'[A-Za-z0-9_]', line):
            lines.append(line)
    return lines


def lcs(a, b):
    """Length of the longest common subsequence of two line lists."""
    if not a or not b:
        return 0
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0] * (len(b) + 1)
        for j, y in enumerate(b, 1):
            current[j] = previous[j - 1] + 1 if x == y else max(previous[j], current[j - 1])
        previous = current
    return previous[-1]


def engine(path):
    parts = path.split(os.sep)
    name = parts[-1]
    if 'SQLite' in parts[:-1] or name.startswith('SQLite'):
        return 'sqlite'
    if 'Postgres' in parts[:-1] or name.startswith('Postgres'):
        return 'postgres'
    return 'shared'


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--root', default='Sources/IMStore')
    parser.add_argument('--quiet', action='store_true', help='print the totals only')
    args = parser.parse_args()
    files = {'sqlite': {}, 'postgres': {}, 'shared': {}}
    for folder, _, names in os.walk(args.root):
        for name in sorted(names):
            if name.endswith('.swift'):
                path = os.path.join(folder, name)
                with open(path, encoding='utf-8') as handle:
                    files[engine(os.path.relpath(path, args.root))][path] = code_lines(handle.read())
    total = {kind: sum(len(lines) for lines in group.values()) for kind, group in files.items()}
    repeated = 0
    for path, lines in sorted(files['sqlite'].items()):
        best, twin = 0, None
        for other, other_lines in files['postgres'].items():
            # A common subsequence is at most the shorter file; skip pairs that cannot win.
            if min(len(lines), len(other_lines)) <= best:
                continue
            common = lcs(lines, other_lines)
            if common > best:
                best, twin = common, other
        repeated += best
        if best and not args.quiet:
            print(f'{best:5d} of {len(lines):5d} ({100 * best / len(lines):3.0f}%)  '
                  f'{os.path.relpath(path, args.root)} ~ {os.path.relpath(twin, args.root)}')
    store = sum(total.values())
    print(f'code lines: sqlite {total["sqlite"]}, postgres {total["postgres"]}, shared {total["shared"]}, '
          f'store {store}')
    print(f'repeated between the engines: {repeated} lines, '
          f'{100 * repeated / max(1, total["sqlite"]):.1f}% of the SQLite engine\'s code lines, '
          f'{100 * repeated / max(1, total["shared"]):.1f}% of the shared body\'s, '
          f'{100 * repeated / max(1, store):.1f}% of the store\'s')
    return 0


if __name__ == '__main__':
    sys.exit(main())

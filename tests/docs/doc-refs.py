#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Every citation of a document's section in the tree resolves: the code, units, scripts, tests, man
pages, help texts and the documents themselves cite sections as FILE.md "Heading" (also
`FILE.md, "Heading"`, `(FILE.md "Heading")`, `README "Heading"`, escaped as \\"Heading\\" inside C
strings and JSON, and wrapped over comment lines), and the Markdown documents link to each other
as [text](FILE.md#anchor). This checks, in every file git tracks (or every file of the tree when
it is not a git checkout):

- a cited FILE exists, relative to the citing file's directory or to the top of the tree (a bare
  README or DESIGN means README.md or DESIGN.md found so);
- the cited Heading is a heading of that file (# to ######, outside code blocks; compared without
  backticks, case and spacing);
- a Markdown link's target exists, and its #anchor is one of the target's headings as GitHub
  makes anchors of them;
- a file that is not Markdown sends its reader to DESIGN.md only with a heading ("(DESIGN.md)" or
  "see DESIGN.md." alone fails): the design document is long, and a reader sent to it whole does
  not find what was meant.

It fails naming each citation that does not resolve, with its place, and the headings nearest to the
one cited. Before the tree, it checks itself on a small tree of known good and bad citations, so a
change that stopped it finding anything fails too.

usage: doc-refs.py SOURCE_ROOT
"""
import difflib
import os
import re
import subprocess
import sys
import tempfile

# A comment's or a string's leader at the start of a line, removed before citations are looked
# for, so that a heading wrapped onto the next comment line is read whole.
LEADER = re.compile(r'^\s*(?:(?:/\*+|\*+/?|//+|#+|--|;+|<!--|\.\\"|\\")\s?)?')
FILE = r'(?<![\w/.-])(?P<file>(?:[\w.-]+/)*(?:[\w.-]+\.md|README|DESIGN))'
CITATION = re.compile(FILE + r'[`)\]]*,?\s+\(?\\?"(?P<head>[^"\\]{1,200}?)\\?"')
# The design document sent to whole, "(DESIGN.md)" or "see docs/DESIGN.md.", not named as a path.
DESIGN_MENTION = re.compile(r'(?:\(|\bsee\s+)(?P<path>(?:[\w.-]+/)*DESIGN\.md)(?=\s*[),.;]|\s*$)')
LINK = re.compile(r'\[[^\]\n]*\]\((?P<target>[^)\s]+)\)')
HEADING = re.compile(r'^(#{1,6})\s+(.*?)\s*#*\s*$')
FENCE = re.compile(r'^\s*(```|~~~)')
SKIP_DIRS = {'.git', 'build', 'node_modules'}


def norm(heading):
    return ' '.join(heading.replace('`', '').replace('*', '').split()).casefold()


def slug(heading):
    """The anchor GitHub gives a heading: lower case, punctuation but - and _ dropped, spaces to -."""
    text = heading.strip().lower().replace('`', '')
    text = ''.join(c for c in text if c.isalnum() or c in ' -_')
    return text.replace(' ', '-')


class Doc:
    def __init__(self, path):
        self.headings, self.anchors = [], set()
        seen = {}
        fenced = False
        with open(path, encoding='utf-8', errors='replace') as f:
            for line in f:
                if FENCE.match(line):
                    fenced = not fenced
                    continue
                m = None if fenced else HEADING.match(line)
                if m:
                    self.headings.append(m.group(2))
                    s = slug(m.group(2))
                    n = seen.get(s, 0)
                    seen[s] = n + 1
                    self.anchors.add(s if n == 0 else f'{s}-{n}')
        self.normed = {norm(h) for h in self.headings}


def tree_files(root):
    try:
        out = subprocess.run(['git', '-C', root, 'ls-files', '-z', '-co', '--exclude-standard'],
                             capture_output=True, check=True).stdout
        if out:
            return sorted(p for p in out.decode().split('\0') if p and os.path.isfile(os.path.join(root, p)))
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for d, dirs, names in os.walk(root):
        dirs[:] = [x for x in dirs if x not in SKIP_DIRS and not x.startswith(('build', 'obj-'))]
        files += [os.path.relpath(os.path.join(d, n), root) for n in names]
    return sorted(files)


def read_text(path):
    try:
        with open(path, 'rb') as f:
            data = f.read(2 << 20)
        if b'\0' in data:
            return None
        return data.decode('utf-8')
    except (OSError, UnicodeDecodeError):
        return None


def joined(text):
    """The text with comment leaders removed and lines joined by one space, and for each offset of
    it the line it came from."""
    parts, starts = [], []
    pos = 0
    for line in text.split('\n'):
        stripped = LEADER.sub('', line, count=1)
        starts.append(pos)
        parts.append(stripped)
        pos += len(stripped) + 1
    return ' '.join(parts), starts


def line_of(starts, offset):
    lo, hi = 0, len(starts) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if starts[mid] <= offset:
            lo = mid
        else:
            hi = mid - 1
    return lo + 1


def check(root, skip=()):
    root = os.path.abspath(root)
    docs = {}
    errors = []
    n_cites = n_links = 0

    def doc(path):
        if path not in docs:
            docs[path] = Doc(os.path.join(root, path))
        return docs[path]

    def resolve(citing, name):
        if not name.endswith('.md'):
            name += '.md'
        for base in (os.path.dirname(citing), ''):
            p = os.path.normpath(os.path.join(base, name))
            if not p.startswith('..') and os.path.isfile(os.path.join(root, p)):
                return p
        return None

    def nearest(d, head):
        close = difflib.get_close_matches(head, d.headings, n=3, cutoff=0.4)
        return f' (nearest: {"; ".join(repr(c) for c in close)})' if close else ''

    for rel in tree_files(root):
        if rel in skip:
            continue
        text = read_text(os.path.join(root, rel))
        if text is None:
            continue
        flat, starts = joined(text)
        cited = []
        for m in CITATION.finditer(flat):
            n_cites += 1
            cited.append(m.span('file'))
            where = f'{rel}:{line_of(starts, m.start())}'
            name, head = m.group('file'), ' '.join(m.group('head').split())
            target = resolve(rel, name)
            if target is None:
                errors.append(f'{where}: {name} "{head}": no such file, from {os.path.dirname(rel) or "."} '
                              'or the top of the tree')
                continue
            d = doc(target)
            if norm(head) not in d.normed:
                errors.append(f'{where}: {name} "{head}": {target} has no such heading{nearest(d, head)}')
        if not rel.endswith('.md'):
            for m in DESIGN_MENTION.finditer(flat):
                if not any(a <= m.start('path') < b for a, b in cited):
                    errors.append(f'{rel}:{line_of(starts, m.start())}: {m.group("path")} without a section: cite it as '
                                  f'docs/DESIGN.md "Heading"')
            continue
        fenced = False
        for i, line in enumerate(text.split('\n'), 1):
            if FENCE.match(line):
                fenced = not fenced
            if fenced:
                continue
            for m in LINK.finditer(line):
                t = m.group('target')
                if re.match(r'^[a-z][a-z0-9+.-]*:', t):
                    continue
                n_links += 1
                path, _, anchor = t.partition('#')
                target = os.path.normpath(os.path.join(os.path.dirname(rel), path)) if path else rel
                if target.startswith('..') or not os.path.exists(os.path.join(root, target)):
                    errors.append(f'{rel}:{i}: link ({t}): no such file {target}')
                    continue
                if anchor and target.endswith('.md'):
                    d = doc(target)
                    if anchor not in d.anchors:
                        close = difflib.get_close_matches(anchor, sorted(d.anchors), n=3, cutoff=0.4)
                        errors.append(f'{rel}:{i}: link ({t}): {target} has no heading with anchor #{anchor}'
                                      + (f' (nearest: {", ".join("#" + c for c in close)})' if close else ''))
    return errors, n_cites, n_links


def self_test():
    """The checker on a tree of known citations: what must pass passes, what must fail fails."""
    files = {
        'README.md': '# Top\n\n## Two commands\n\n```\n## Not a heading\n```\n',
        'docs/DESIGN.md': '# Design\n\n## Job spec\n\n### The `database`\n\nSee [top](../README.md#two-commands).\n'
                          'Bad: [x](../README.md#not-a-heading) [y](nothing.md).\n',
        'docs/guide.md': 'Good: DESIGN.md "Job spec", README.md, "two  Commands".\n'
                         'Bad: DESIGN.md "Jobs spec".\n',
        'src/a.c': '/* The spec (docs/DESIGN.md "Job\n * spec"), the database (docs/DESIGN.md, "The database").\n'
                   ' * A missing one (docs/DESIGN.md "Safety rules"), a file that is not there (docs/NOPE.md "X"),\n'
                   ' * and the design without a section (docs/DESIGN.md). */\n'
                   'puts("see README \\"Two commands\\"");\n',
        'src/b.sql': '-- Not a heading of the README (README.md "Not a\n-- heading").\n',
    }
    with tempfile.TemporaryDirectory() as tmp:
        for p, t in files.items():
            os.makedirs(os.path.dirname(os.path.join(tmp, p)), exist_ok=True)
            with open(os.path.join(tmp, p), 'w', encoding='utf-8') as f:
                f.write(t)
        errors, n_cites, n_links = check(tmp)
    expected = [
        ('docs/DESIGN.md:8:', '#not-a-heading'),
        ('docs/DESIGN.md:8:', 'no such file docs/nothing.md'),
        ('docs/guide.md:2:', '"Jobs spec": docs/DESIGN.md has no such heading'),
        ('src/a.c:3:', '"Safety rules": docs/DESIGN.md has no such heading'),
        ('src/a.c:3:', 'docs/NOPE.md "X": no such file'),
        ('src/a.c:4:', 'docs/DESIGN.md without a section'),
        ('src/b.sql:1:', '"Not a heading": README.md has no such heading'),
    ]
    missing = [e for e in expected if not any(x.startswith(e[0]) and e[1] in x for x in errors)]
    extra = [x for x in errors if not any(x.startswith(e[0]) and e[1] in x for e in expected)]
    if missing or extra or n_cites != 9 or n_links != 3:
        sys.exit('doc-refs.py checks itself and is wrong:\n'
                 + ''.join(f'  not found: {e[0]} ...{e[1]}...\n' for e in missing)
                 + ''.join(f'  reported wrongly: {x}\n' for x in extra)
                 + f'  citations {n_cites} (expected 9), links {n_links} (expected 3)\n')


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: doc-refs.py SOURCE_ROOT')
    self_test()
    root = sys.argv[1]
    errors, n_cites, n_links = check(root, skip={'tests/docs/doc-refs.py'})
    if errors:
        sys.exit(f'{len(errors)} of the tree\'s citations of documents do not resolve (a section moved or was '
                 'renamed: cite the heading that has the text now):\n' + '\n'.join(errors))
    if n_cites < 20:
        sys.exit(f'only {n_cites} citations found in {root}: is it the source tree?')
    print(f'{n_cites} citations of a section and {n_links} Markdown links, all resolve')


main()

# SPDX-License-Identifier: LGPL-2.1-or-later
"""Plain text into man(7) roff, for the man pages generated from benchd's own tables (the spec
registry, the interface XML): escapes, `code` in bold, option dashes as minus signs, any other
non-ASCII character as a named glyph, and the .TH line every page shares."""
import re
import textwrap


def text(s):
    """One paragraph of prose, as roff text lines: each sentence on a new line, as man(7) wants,
    and no line longer than 80 bytes (mandoc -T lint)."""
    s = " ".join(s.split())
    s = s.replace("\\", "\\e")
    # `code`, and the dashes of options and negative numbers, are minus signs; a hyphen inside a
    # word stays a hyphen.
    s = re.sub(r"`([^`]*)`", lambda m: "\\fB" + m.group(1) + "\\fR", s)
    s = re.sub(r"(?:(?<=^)|(?<=[\s(\[\"'=,/]))(-+)(?=[\w.])", lambda m: "\\-" * len(m.group(1)), s)
    s = "".join(c if ord(c) < 128 else "\\[u%04X]" % ord(c) for c in s)
    # One sentence a line: a line break after ". " when a capital letter or digit follows.
    lines = re.split(r"(?<=[.;:?!]) (?=[A-Z0-9`\\])", s)
    out = []
    for sentence in lines:
        for line in textwrap.wrap(sentence, 80, break_on_hyphens=False, break_long_words=False):
            if line.startswith((".", "'")):
                line = "\\&" + line
            out.append(line)
    return "\n".join(out)


def word(s):
    """A word in a macro argument or a .TP head: escaped, no line breaks."""
    s = s.replace("\\", "\\e").replace("-", "\\-")
    return "".join(c if ord(c) < 128 else "\\[u%04X]" % ord(c) for c in s)


def th(title, section, date, version):
    return f'.TH {word(title.upper())} {section} {date} "benchd {version}" "benchd"'

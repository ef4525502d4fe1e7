#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The built man pages are clean for mandoc -T lint (every message, style included, is a failure),
# and each one's NAME section is what mandb indexes for `man -k benchd`: lexgrog, man-db's own
# parser of it, reads the page's name and a description, and one of the two says benchd, so
# apropos lists the page after installation.
#
# Usage: man-lint.sh PAGE...
set -eu -o pipefail

command -v mandoc >/dev/null || { echo "SKIP: mandoc is not installed (apt-get install mandoc)"; exit 77; }
command -v lexgrog >/dev/null || { echo "SKIP: lexgrog (man-db) is not installed"; exit 77; }

rc=0
for page; do
        if ! out=$(mandoc -T lint "$page" 2>&1) || [ -n "$out" ]; then
                printf '%s\n' "$out"
                echo "FAIL: mandoc -T lint complains about $page"
                rc=1
        fi
        name=$(basename "$page")
        name=${name%.*}
        names=$(lexgrog "$page" 2>&1) || true
        # lexgrog prints: PAGE: "NAME - DESCRIPTION", one line per name.
        if ! grep "^$page: \"$name - ..*\"$" <<<"$names" | grep -q benchd; then
                echo "FAIL: the NAME section of $page does not give '$name - DESCRIPTION' with benchd in either to mandb:"
                printf '%s\n' "$names"
                rc=1
        fi
done
[ "$rc" = 0 ] && echo "$# man pages: lint clean, NAME sections indexed"
exit "$rc"

# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
#
# The Debian package of the source tree, for the tests that install or check it (test-package,
# test-systemd). Sourced after lib.sh.
#
#   deb_build   builds benchd_*.deb with `dpkg-buildpackage -us -uc -b` in a copy of the source
#               tree as it is now (uncommitted changes included; build directories and tests/ left
#               out),
#               once per state of its files: the result is kept in $BUILD_ROOT/deb/HASH/ and the
#               next test that asks for the same files reuses it (a lock makes a second caller
#               wait for the first). The build runs with nocheck: the unit suite runs on its own.
#               Sets DEB_DIR (the .deb, .changes and build.log) and DEB_FILE (benchd_*.deb).
#               Skips (77) without dpkg-buildpackage or with build dependencies missing (named).

# _deb_source_files: the files of the source tree that make the package, NUL-separated, relative to
# it: what git tracks or would track (not ignored), else everything but build trees and .git; not
# tests/, which a nocheck build never reads (-Dtests=false), so editing a test does not rebuild it.
_deb_source_files() {
        local f
        if git -C "$SOURCE_ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
                git -C "$SOURCE_ROOT" ls-files -z -co --exclude-standard | while IFS= read -r -d '' f; do
                        case $f in tests/*) continue ;; esac
                        [ -f "$SOURCE_ROOT/$f" ] && printf '%s\0' "$f"
                done
        else
                (cd "$SOURCE_ROOT" && find . -path ./.git -prune -o -path './build*' -prune -o -path './obj-*' -prune \
                        -o -path ./tests -prune -o -type f -printf '%P\0')
        fi
}

deb_build() {
        local base="$BUILD_ROOT/deb" key version dir fd src
        require_cmd dpkg-buildpackage dpkg-checkbuilddeps dpkg-parsechangelog tar sha256sum flock
        mkdir -p "$base"
        exec {fd}>"$base/.lock"
        flock "$fd"
        key=$(cd "$SOURCE_ROOT" && _deb_source_files | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
        version=$(dpkg-parsechangelog -l "$SOURCE_ROOT/debian/changelog" -S Version)
        dir="$base/$key"
        if [ ! -f "$dir/done" ]; then
                # One build kept: older ones go.
                find "$base" -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} +
                src="$dir/src/benchd-$version"
                mkdir -p "$src"
                (cd "$SOURCE_ROOT" && _deb_source_files | tar --null -T - -cf -) | tar -x -C "$src"
                if ! (cd "$src" && dpkg-checkbuilddeps -Pnocheck) >"$dir/builddeps.log" 2>&1; then
                        exec {fd}>&-
                        skip "the build dependencies of debian/control are not installed (scripts/deps.sh lists" \
                                "them): $(tr '\n' ' ' <"$dir/builddeps.log")"
                fi
                log "dpkg-buildpackage -us -uc -b of $version in $src (files $key)"
                local t0=$SECONDS
                if ! (cd "$src" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" DEB_BUILD_PROFILES=nocheck \
                                dpkg-buildpackage -us -uc -b) >"$dir/build.log" 2>&1 </dev/null; then
                        tail -n 30 "$dir/build.log" >&2
                        exec {fd}>&-
                        fail "dpkg-buildpackage failed (above; the whole log: $dir/build.log)"
                fi
                log "the package took $((SECONDS - t0)) s to build"
                mv "$dir"/src/*.deb "$dir"/src/*.changes "$dir"/src/*.buildinfo "$dir/"
                rm -rf "$dir/src"
                touch "$dir/done"
        else
                log "the package of these files was built already: $dir"
        fi
        exec {fd}>&-
        DEB_DIR=$dir
        DEB_FILE=$(ls "$dir"/benchd_"$version"_*.deb)
        [ -f "$DEB_FILE" ] || fail "no benchd_${version}_*.deb in $dir"
}

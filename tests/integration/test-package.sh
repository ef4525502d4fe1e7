#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The Debian package as an administrator gets it: `dpkg-buildpackage -us -uc -b` builds
# benchd_*.deb from the source tree (deb.sh), lintian finds no error and no warning in it nor in
# the source package (its overrides in debian/ say why each is deliberate; the summary is printed), and the package holds
# what the service needs, where Debian's tools look for it: the programs, the units where
# dh_installsystemd finds them, the bus policy, activation file and interface XML, the polkit
# actions, the tmpfiles.d entry of /var/lib/benchd, the profiles, the six man pages, the bash
# completion, the example udev rule and the Grafana dashboard; and its maintainer scripts reload
# systemd, create the state directory, never enable or start benchd at installation (D-Bus
# activation does), stop it at removal, and on purge keep the database. test-systemd.sh installs
# this package in a booted container and checks what those scripts do.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/deb.sh"

require_root
require_cmd dpkg-deb lintian

deb_build
log "package: $DEB_FILE"

# --- lintian ---------------------------------------------------------------------------------------
# The .changes: the binary packages and the .buildinfo. Tags at every level are shown; errors and
# warnings fail.
lintian --display-info --pedantic --display-experimental "$DEB_DIR"/*.changes >"$TEST_DIR/lintian.txt" 2>&1 ||
        true
grep -v '^running with root privileges' "$TEST_DIR/lintian.txt" >&2 || true
n_e=$(grep -c '^E: ' "$TEST_DIR/lintian.txt" || true)
n_w=$(grep -c '^W: ' "$TEST_DIR/lintian.txt" || true)
n_i=$(grep -c '^I: ' "$TEST_DIR/lintian.txt" || true)
n_p=$(grep -c '^P: ' "$TEST_DIR/lintian.txt" || true)
n_x=$(grep -c '^X: ' "$TEST_DIR/lintian.txt" || true)
log "lintian $(dpkg-query -W -f='${Version}' lintian): $n_e errors, $n_w warnings, $n_i info, $n_p pedantic," \
        "$n_x experimental (overridden tags not counted)"
assert_eq 0 "$n_e" "lintian errors"
assert_eq 0 "$n_w" "lintian warnings"

# The source package too (debian/rules, control, copyright): dpkg-source -b of the files the binary
# package was built from, which a native package's source is.
mkdir -p "$TEST_DIR/source/benchd-$(dpkg-deb -f "$DEB_FILE" Version)"
(cd "$SOURCE_ROOT" && _deb_source_files | tar --null -T - -cf -) | tar -x -C "$TEST_DIR"/source/benchd-*
(cd "$TEST_DIR/source" && dpkg-source -b benchd-*/) >"$TEST_DIR/dpkg-source.log" 2>&1 ||
        { cat "$TEST_DIR/dpkg-source.log" >&2; fail "dpkg-source -b failed"; }
lintian --display-info --pedantic "$TEST_DIR"/source/*.dsc >"$TEST_DIR/lintian-source.txt" 2>&1 || true
grep -v '^running with root privileges' "$TEST_DIR/lintian-source.txt" >&2 || true
log "lintian of the source: $(grep -c '^E: ' "$TEST_DIR/lintian-source.txt" || true) errors," \
        "$(grep -c '^W: ' "$TEST_DIR/lintian-source.txt" || true) warnings"
assert_eq 0 "$(grep -c '^[EW]: ' "$TEST_DIR/lintian-source.txt" || true)" "lintian errors and warnings of the source"

# --- contents --------------------------------------------------------------------------------------
dpkg-deb -c "$DEB_FILE" | awk '{print $6}' | sed 's|^\./|/|' >"$TEST_DIR/contents.txt"
missing=()
for f in /usr/sbin/benchd /usr/bin/benchctl /usr/libexec/benchd-worker \
                /lib/systemd/system/benchd.service /lib/systemd/system/benchd-run@.service \
                /lib/systemd/system/benchd-run@.timer \
                /usr/share/dbus-1/system.d/org.benchd.Benchd1.conf \
                /usr/share/dbus-1/system-services/org.benchd.Benchd1.service \
                /usr/share/dbus-1/interfaces/org.benchd.Benchd1.Manager.xml \
                /usr/share/polkit-1/actions/org.benchd.benchd1.policy \
                /usr/lib/tmpfiles.d/benchd.conf \
                /usr/share/benchd/profiles/dd.ini /usr/share/benchd/profiles/quick.ini \
                /usr/share/man/man1/benchctl.1.gz /usr/share/man/man8/benchd.8.gz \
                /usr/share/man/man8/benchd-worker.8.gz /usr/share/man/man5/benchd.conf.5.gz \
                /usr/share/man/man7/benchd-spec.7.gz /usr/share/man/man5/org.benchd.Benchd1.5.gz \
                /usr/share/bash-completion/completions/benchctl \
                /usr/share/benchd/udev/70-benchd-autorun.rules.example \
                /usr/share/benchd/grafana/benchd.json \
                /usr/share/doc/benchd/README.Debian /usr/share/doc/benchd/copyright; do
        grep -qxF "$f" "$TEST_DIR/contents.txt" || missing+=("$f")
done
[ "${#missing[@]}" -eq 0 ] || fail "the package lacks: ${missing[*]}"
# Nothing under /etc: benchd.conf is the administrator's (every key has a default), and nothing under
# /var: the state directory comes from tmpfiles.d and StateDirectory=.
assert_eq "" "$(grep -E '^/(etc|var)/.' "$TEST_DIR/contents.txt" || true)" "files under /etc or /var in the package"
# The worker path benchd was built with is the one the package installs it to.
dpkg-deb -x "$DEB_FILE" "$TEST_DIR/x"
assert_contains "$(strings "$TEST_DIR/x/usr/sbin/benchd" | grep benchd-worker)" /usr/libexec/benchd-worker \
        "benchd's compiled-in worker path"
assert_eq "d /var/lib/benchd 0755 root root -" "$(grep -v '^#' "$TEST_DIR/x/usr/lib/tmpfiles.d/benchd.conf")" \
        "the tmpfiles.d entry"
version=$(dpkg-deb -f "$DEB_FILE" Version)
for b in usr/sbin/benchd usr/bin/benchctl usr/libexec/benchd-worker; do
        assert_eq "${b##*/} $version" "$("$TEST_DIR/x/$b" --version)" "$b --version against the package version"
done

# --- maintainer scripts ----------------------------------------------------------------------------
dpkg-deb -e "$DEB_FILE" "$TEST_DIR/control"
postinst=$(cat "$TEST_DIR/control/postinst")
assert_contains "$postinst" "systemd-tmpfiles" "postinst (the state directory)"
assert_contains "$postinst" "daemon-reload" "postinst (systemd reads the new units)"
assert_contains "$postinst" "deb-systemd-helper update-state 'benchd.service'" "postinst"
# Not enabled: dh_installsystemd's snippet for --no-enable (re-enable only what was enabled), not
# the one that enables a unit on its first installation.
assert_contains "$postinst" "deb-systemd-helper debian-installed 'benchd.service'" "postinst"
assert_not_contains "$postinst" "Enables the unit on first installation" "postinst"
assert_contains "$(cat "$TEST_DIR/control/prerm")" "deb-systemd-invoke stop 'benchd.service'" "prerm (stopped at removal)"
postrm=$(cat "$TEST_DIR/control/postrm")
assert_contains "$postrm" "deb-systemd-helper purge 'benchd.service'" "postrm"
assert_contains "$postrm" "! -name benchd.db ! -name benchd.db-wal ! -name benchd.db-shm" "postrm (the database kept)"
sh -n "$TEST_DIR/control/postrm" || fail "postrm is not valid sh"

# The purge, run against a scratch state directory: the database and its WAL stay, the rest goes.
st="$TEST_DIR/purge/var/lib/benchd"
mkdir -p "$st/leftover-dir" "$TEST_DIR/purge/etc/benchd"
touch "$st/benchd.db" "$st/benchd.db-wal" "$st/benchd.db-shm" "$st/benchd.db.tmp" "$st/leftover-dir/f"
sed -e "s|^state=/var/lib/benchd|state=$st|" -e "s|/etc/benchd|$TEST_DIR/purge/etc/benchd|g" \
        -e "s|^prom=.*|prom=$TEST_DIR/purge/prom|" -e "s|/etc/systemd/system/|$TEST_DIR/purge/wants/|" \
        -e '/^# Automatically added by dh_installsystemd/,/^# End automatically added section/d' \
        "$TEST_DIR/control/postrm" >"$TEST_DIR/postrm-test"
sh "$TEST_DIR/postrm-test" purge || fail "postrm purge failed on the scratch directory"
assert_eq "benchd.db benchd.db-shm benchd.db-wal" "$(cd "$st" && echo *)" "what purge leaves in the state directory"
[ ! -e "$TEST_DIR/purge/etc/benchd" ] || fail "purge left an empty /etc/benchd"

log "all checks passed"

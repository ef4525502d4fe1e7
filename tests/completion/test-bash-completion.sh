#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# benchctl's bash completion, driven as readline drives it (driver.sh) for a table of partial
# command lines, with bash-completion's own helpers loaded and the built benchctl answering
# `--complete=...`, on a machine where no benchd answers (the bus address points nowhere): the
# commands and options (every one of benchctl's option table and verb table, nothing else), the
# values of options (every value offered is one benchctl's parser accepts), --set's keys and values
# from the spec registry, the words bash splits at = and :, profiles from the profile files,
# devices from sysfs, and silence for job and run ids. tests/integration/test-completion.sh covers
# the ids and names that come from a running benchd.
#
# Usage: test-bash-completion.sh BENCHCTL COMPLETION-FILE SOURCE-ROOT
# Not -e or -u: completion functions, bash-completion's too, are written for an interactive shell.
set -o pipefail
# Byte order, as the driver sorts.
export LC_ALL=C

BENCHCTL=$1
COMPLETION=$2
SOURCE_ROOT=$3
BASH_COMPLETION=${BASH_COMPLETION:-/usr/share/bash-completion/bash_completion}

[ -r "$BASH_COMPLETION" ] || { echo "SKIP: no $BASH_COMPLETION (install bash-completion)"; exit 77; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# No benchd to answer, whatever runs on this machine's system bus.
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$TMP/no-bus"

# shellcheck disable=SC1090
. "$BASH_COMPLETION"
# shellcheck disable=SC1090
. "$COMPLETION"
# shellcheck disable=SC1091
. "$(dirname "$0")/driver.sh"
# The profiles of the source tree stand for the installed ones.
_benchctl_profile_dirs=("$SOURCE_ROOT/daemon/profiles")

failures=0
fail() {
        printf 'FAIL: %s\n' "$*" >&2
        failures=$((failures + 1))
}

# expect LINE WANT: the candidates for LINE are exactly WANT (sorted, blank-separated).
expect() {
        complete_line "$BENCHCTL $1"
        [ "$CANDIDATES" = "$2" ] || fail "'benchctl $1': offered '$CANDIDATES', expected '$2'"
}

# expect_has LINE WORD...: the candidates for LINE include every WORD.
expect_has() {
        local line=$1 w
        shift
        complete_line "$BENCHCTL $line"
        for w; do
                [[ " $CANDIDATES " == *" $w "* ]] || fail "'benchctl $line': offered '$CANDIDATES', expected it to include '$w'"
        done
}

# expect_opts LINE OPTS: the compopt options set for LINE (" nospace", ...).
expect_opts() {
        complete_line "$BENCHCTL $1"
        [ "$COMPOPTS" = "$2" ] || fail "'benchctl $1': compopt '$COMPOPTS', expected '$2'"
}

sorted() {
        _driver_sort "$@"
        printf '%s' "$CANDIDATES"
}

# --- the verbs and options are benchctl's own tables --------------------------------------------
src="$SOURCE_ROOT/client/benchctl.c"
mapfile -t verbs < <(sed -n 's/^ *{ "\([a-z-]*\)", *-\?[0-9]*, *-\?[0-9]*, *verb_[a-z_]* },$/\1/p' "$src")
[ "${#verbs[@]}" -ge 15 ] || fail "found only ${#verbs[@]} verbs in $src's verb table: ${verbs[*]}"
expect "" "$(sorted "${verbs[@]}")"
# Long options: "--name" without an argument, "--name=" with one (optional for --json, which is
# offered both ways); --complete is for the completion itself and not offered.
want=()
while read -r name arg; do
        case $arg in
        no) want+=("--$name") ;;
        required) want+=("--$name=") ;;
        optional) want+=("--$name" "--$name=") ;;
        esac
done < <(sed -n 's/^ *{ "\([a-z-]*\)", *\(no\|required\|optional\)_argument,.*/\1 \2/p' "$src" | grep -v '^complete ')
[ "${#want[@]}" -ge 25 ] || fail "found only ${#want[@]} options in $src's option table"
expect "--" "$(sorted "${want[@]}")"
# The options that take a value, long and short (getopt's string), are those whose next word the
# completion reads as their value and not as the command.
with_value=" ${_benchctl_options_with_value//$'\n'/ } "
with_value=${with_value//$'\t'/ }
while read -r name; do
        [[ $with_value == *" --$name "* ]] || fail "--$name takes a value, but _benchctl_options_with_value lacks it"
done < <(sed -n 's/^ *{ "\([a-z-]*\)", *required_argument,.*/\1/p' "$src" | grep -v '^complete$')
optstring=$(sed -n 's/.*getopt_long(argc, argv, "\([^"]*\)".*/\1/p' "$src")
[ -n "$optstring" ] || fail "no getopt_long option string in $src"
for ((i = 0; i < ${#optstring}; i++)); do
        c=${optstring:i:1}
        [ "$c" != : ] && [ "${optstring:i+1:1}" = : ] || continue
        [[ $with_value == *" -$c "* ]] || fail "-$c takes a value, but _benchctl_options_with_value lacks it"
done
expect "run -w write --label x sta" ""
expect "--label x sta" "status"
expect "sh" "show"
expect "re" "regressions report results"
expect "--wo" "--workload="
expect_opts "--wo" " nospace"
expect "--no-l" "--no-legend"
expect_opts "--no-l" ""

# --- option values ---------------------------------------------------------------------------------
# The registry as `help spec --json=short` prints it, read without python (whose start-up may be
# slow): {"key":"NAME","type":"TYPE",...,"values":[...]} per key.
spec=$("$BENCHCTL" help spec --json=short)
workloads=$(grep -o '"key":"workload"[^}]*' <<<"$spec" | grep -o '"values":\[[^]]*\]' | grep -o '"[a-z-]*"' |
            grep -v values | tr -d '"' | sort | tr '\n' ' ' | sed 's/ $//')
[ -n "$workloads" ] || fail "no workload values in benchctl help spec --json"
expect "run --workload " "$workloads"
expect "run --workload ra" "randread randrw randwrite"
expect "run -w rand" "randread randrw randwrite"
# "--workload=ra": bash's word starts after the '=', so the candidates do too.
expect "run --workload=ra" "randread randrw randwrite"
expect "run --workload=backward" "backward-read"
expect "results --format " "benchd bonnie-csv csv iozone json"
expect "export --format=bo" "bonnie-csv"
expect "--json=" "pretty short"
expect "results --status s" "succeeded"
# --by: the keys benchctl --help lists for compare --by.
by=$("$BENCHCTL" --help | tr -s ' \n' '  ' | sed -n 's/.*(--by \([^)]*\)).*/\1/p' | tr -d ',')
[ -n "$by" ] || fail "benchctl --help names no keys for --by"
# shellcheck disable=SC2086
expect "compare --by " "$(sorted $by)"
expect "compare --by device_" "device_model device_name"
expect "help " "spec"
expect_has "-H local" localhost
# Every value offered for an option is one benchctl's parser takes (a wrong one exits 2).
for opt in --format --json --confidence --since --until --older-than; do
        complete_line "$BENCHCTL $opt="
        [ -n "$CANDIDATES" ] || fail "nothing offered for $opt="
        for v in $CANDIDATES; do
                "$BENCHCTL" "$opt=$v" --version >/dev/null 2>"$TMP/err" ||
                        fail "benchctl refuses $opt=$v, which the completion offers: $(cat "$TMP/err")"
        done
done

# --- --set: the spec registry ------------------------------------------------------------------
keys=$(grep -o '"key":"[a-z_]*","type":"[a-z]*"' <<<"$spec" | grep -v '"type":"map"' |
       sed 's/"key":"\([a-z_]*\)".*/\1=/')
[ "$(wc -w <<<"$keys")" -ge 20 ] || fail "found only $(wc -w <<<"$keys") keys in benchctl help spec --json"
complete_line "$BENCHCTL run --set "
for k in $keys; do
        [[ " $CANDIDATES " == *" $k "* ]] || fail "'--set ' does not offer $k (registry key)"
done
expect "run --set sy" "sync="
expect_opts "run --set sy" " nospace"
expect "run -s block" "block_size="
expect "run --set=dest" "destructive="
expect "run --set layout=" "lvm md-raid0 md-raid1 md-raid1+lvm md-raid10 md-raid5 raid0 raid1 raid10 single"
expect "run --set layout=r" "raid0 raid1 raid10"
expect "run --set=layout=md" "md-raid0 md-raid1 md-raid1+lvm md-raid10 md-raid5"
expect "run --set destructive=" "false true"
expect "run --set direct=t" "true"
expect "run --set pattern=" "random zero"
# "sync=end:f": bash splits at the colon too.
expect "run --set sync=end:f" "fdatasync fsync"
expect "run --set=sync=each:fd" "fdatasync"
expect "run --set sync=e" "each each:fdatasync each:fsync end end:fdatasync end:fsync"
# Open values (sizes) offer nothing.
expect "run --set block_size=" ""
for key in workload layout sync pattern direct destructive; do
        complete_line "$BENCHCTL run --set $key="
        [ -n "$CANDIDATES" ] || fail "nothing offered for --set $key="
done
# Maps: KEY.FS= for each filesystem this machine can make.
mkfs=$(compgen -c mkfs. | sort -u | sed 's/^mkfs\.//')
[ -n "$mkfs" ] || fail "no mkfs.* on PATH: cannot check the filesystems offered"
fs1=$(head -n 1 <<<"$mkfs")
expect_has "run --set mkfs_options." "mkfs_options.$fs1="
expect_has "run --set mount_" "mount_options.$fs1="
# shellcheck disable=SC2086
expect "run --fs-type " "$(sorted $mkfs)"
# Lists: the last item after the comma.
if grep -qx btrfs <<<"$mkfs"; then
        expect "run --set filesystems=ext4,bt" "ext4,btrfs"
fi
expect "run --set profile=cr" "crystal"

# --- profiles, files, devices ------------------------------------------------------------------------
profiles=$(cd "$SOURCE_ROOT/daemon/profiles" && ls ./*.ini | sed 's|^\./||; s/\.ini$//' | sort | tr '\n' ' ' | sed 's/ $//')
expect "run --profile " "$profiles"
expect "run -p d" "dd"
expect "profiles " "$profiles"
mkdir -p "$TMP/dir/sub"
touch "$TMP/dir/runs.json"
expect "import $TMP/dir/r" "$TMP/dir/runs.json"
expect "run --target $TMP/dir/s" "$TMP/dir/sub"
expect "run --target=$TMP/dir/s" "$TMP/dir/sub"
expect "run --set target=$TMP/dir/s" "$TMP/dir/sub"
expect_opts "run --target $TMP/dir/s" " filenames"
# Devices: without benchd, the kernel's block devices.
mapfile -t blocks < <(ls /sys/class/block)
if [ "${#blocks[@]}" -gt 0 ]; then
        expect "device " "$(sorted "${blocks[@]}")"
        expect_has "results --device=" "${blocks[0]}"
fi

# --- ids: nothing without benchd, at once and without a word on stderr ------------------------------
for line in "status " "watch " "cancel " "show " "samples " "export " "compare 1 " "report " "--job " \
                "--bus-address=unix:path=$TMP/nowhere status " "-H root@host status "; do
        complete_line "$BENCHCTL $line" 2>"$TMP/err"
        [ -z "$CANDIDATES" ] || fail "'benchctl $line' offered '$CANDIDATES' with no benchd to ask"
        [ ! -s "$TMP/err" ] || fail "'benchctl $line' wrote to stderr: $(cat "$TMP/err")"
done
expect "status 12 " ""

if [ "$failures" -gt 0 ]; then
        echo "$failures completion case(s) failed"
        exit 1
fi
echo "bash completion: all cases passed"

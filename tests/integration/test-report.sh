#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# benchctl report (issue 15): self-contained HTML reports, through the real daemon on loop devices,
# for a single run, an iozone job (a profile of 32 short steps in place of the shipped 104), a
# bonnie job (shortened as test-views does), a filesystem matrix (ext4 and btrfs on a scratch loop
# device, in two rounds for error bars: each entry's view, then the entries compared), a compare
# --by selection, a history selection, a history with a flagged regression (20 seeded runs 20
# times as fast before a real one: its red triangle must be drawn on its point, at its time and
# MiB/s) and an iozone profile (16 steps) as an ext4/btrfs matrix (each entry's iozone charts, a
# heat map of the % differences, and a chart per iozone test with a line per filesystem). Each
# page must embed exactly what the --json verb prints for the same selection, and, loaded in
# headless Chromium (one browser for all pages, browser.py), draw the charts its data calls for
# without a console error, in a screenshot that is not blank. Also: the default file names, escaping of data that looks like HTML, the
# missing chart library named by its package, --open without a display. Without chromium the
# browser part is skipped with a message.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3 losetup mkfs.ext4 mkfs.btrfs wipefs
require_loop
require_fs ext4 btrfs
require_binaries "$BENCHCTL_BIN"
CHART_JS=/usr/share/javascript/chart.js/chart.min.js
[ -f "$CHART_JS" ] || skip "needs Debian's libjs-chart.js ($CHART_JS)"
CHECK="$SOURCE_ROOT/tests/integration/report_check.py"
CHROMIUM=
for c in chromium chromium-browser; do
        command -v "$c" >/dev/null 2>&1 && CHROMIUM=$c && break
done
[ -n "$CHROMIUM" ] || log "no chromium: the pages are checked without a browser (apt-get install chromium)"

# A shorter iozone: its 8 tests at 2 record sizes on 2 file sizes; the other profiles as shipped.
# The matrix of section 6c runs one on 1 file size (PROFILES_SMALL): 2 × 16 steps, not 2 × 32.
# iozone_profile DIR SIZE...: writes DIR/iozone.ini and the shipped others.
iozone_profile() {
        local dir=$1 size rec t
        shift
        mkdir -p "$dir"
        cp "$PROFILES_DIR"/*.ini "$dir/"
        {
                printf '[profile]\ndescription=iozone, shortened for test-report\n'
                for size in "$@"; do
                        for rec in 16K 1M; do
                                for t in write rewrite read reread randread randwrite backward-read stride-read; do
                                        printf '\n[step %s-%s-%s]\nworkload=%s\nblock_size=%s\nsize=%s\n' "$t" "$rec" "$size" "$t" \
                                                "$rec" "$size"
                                done
                        done
                done
        } >"$dir/iozone.ini"
}
PROFILES="$TEST_DIR/profiles"
PROFILES_SMALL="$TEST_DIR/profiles-small"
iozone_profile "$PROFILES" 2M 4M
iozone_profile "$PROFILES_SMALL" 2M

start_bus
start_udevd
scratch_fs 256M ext4
make_loop 320M; L1=$LOOP_DEV
wipefs -a -q "$L1"
CONF="$TEST_DIR/benchd.conf"
printf 'ScratchDevices=%s\n' "$L1" >"$CONF"
start_benchd --config="$CONF" --profiles-dir="$PROFILES"
OUTDIR="$TEST_DIR/out"
mkdir -p "$OUTDIR"

# run_job ARGS...: benchctl run to the end; sets $job.
run_job() {
        run benchctl run "$@"
        [ "$RC" = 0 ] || fail "benchctl run $* exited $RC: $OUT"
        job=$(sql "select max(id) from jobs")
        assert_eq succeeded "$(job_state "$job")" "state of job $job"
}

# same_as_verb PAGE KEY WHAT BENCHCTL_ARGS...: the page's data at KEY (dotted: runs.0) is what
# the verb prints.
same_as_verb() {
        local page=$1 key=$2 what=$3
        shift 3
        python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    d = d[int(k)] if k.isdigit() else d[k]
print(json.dumps(d))' "$page.json" "$key" >"$page.$key.json" || fail "$what: the page has no data at $key"
        benchctl "$@" >"$page.verb.json" || fail "$what: benchctl $* failed"
        python3 "$CHECK" same "$page.$key.json" "$page.verb.json" "$what (benchctl $*)" || exit 1
}

BROWSER_CHECKED=0
BROWSER_PAGES=()
BROWSER_WHAT=()
BROWSER_THEN=()
# in_browser PAGE WHAT [THEN]: the page is to be loaded in headless Chromium (browser_checks, at the
# end: one browser for every page, as starting one is most of a page's time): its state says done,
# no errors and the charts its data calls for; a screenshot (desktop and narrow) has more than blank
# in it; then the function THEN, if given, checks more of PAGE.dom.
in_browser() {
        python3 "$CHECK" charts "$1" >"$1.want" || fail "$2: cannot count the charts its data calls for"
        [ -n "$CHROMIUM" ] || return 0
        BROWSER_PAGES+=("$1")
        BROWSER_WHAT+=("$2")
        BROWSER_THEN+=("${3:-}")
}

browser_checks() {
        local i page what want state png stats colours nonwhite size
        [ "${#BROWSER_PAGES[@]}" -gt 0 ] || return 0
        log "loading ${#BROWSER_PAGES[@]} pages in one headless $CHROMIUM"
        python3 "$SOURCE_ROOT/tests/integration/browser.py" "$CHROMIUM" "$TEST_DIR/chromium" "${BROWSER_PAGES[@]}" \
                >"$TEST_DIR/browser.log" 2>&1 ||
                fail "chromium: $(tail -n 5 "$TEST_DIR/browser.log"); its log: $(tail -n 5 "$TEST_DIR/chromium.log")"
        for ((i = 0; i < ${#BROWSER_PAGES[@]}; i++)); do
                page=${BROWSER_PAGES[$i]}
                what=${BROWSER_WHAT[$i]}
                want=$(cat "$page.want")
                state=$(python3 "$CHECK" state "$page.dom") || fail "$what: $state"
                log "$what: page state $state (want $want charts)"
                assert_eq true "$(json_get 'str(d["done"]).lower()' <<<"$state")" "$what: the page script finished"
                assert_eq "[]" "$(json_get 'json.dumps(d["errors"])' <<<"$state")" "$what: errors the page caught"
                assert_eq "$want" "$(json_get 'd["charts"]' <<<"$state")" "$what: charts drawn"
                # Console messages and uncaught exceptions of the page, at either size.
                if grep -E 'CONSOLE|Uncaught' "$page.console" | grep -q .; then
                        fail "$what: console messages: $(grep -E 'CONSOLE|Uncaught' "$page.console" | head -5)"
                fi
                for size in 1100 420; do
                        png="$page.$size.png"
                        stats=$(python3 "$CHECK" png "$png") || fail "$what: $stats"
                        read -r _ colours nonwhite <<<"$stats"
                        log "$what: screenshot $png: $stats (size, colours, % not white)"
                        assert_le 16 "$colours" "$what: colours in the ${size}px screenshot"
                        python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > 2 else 1)" "$nonwhite" ||
                                fail "$what: the ${size}px screenshot is almost blank ($nonwhite% not white)"
                done
                [ -n "${BENCHD_REPORT_SHOTS:-}" ] && mkdir -p "$BENCHD_REPORT_SHOTS" && cp "$page".*.png "$BENCHD_REPORT_SHOTS/"
                [ -z "${BROWSER_THEN[$i]}" ] || "${BROWSER_THEN[$i]}" "$page"
                BROWSER_CHECKED=$((BROWSER_CHECKED + 1))
        done
}

# page_data PAGE: extracts the embedded data to PAGE.json (checking it escapes "</").
page_data() {
        python3 "$CHECK" data "$1" >"$1.json" || fail "cannot read the data of $1"
}

# ---- 1. one run: samples, histogram, provenance; a label that looks like HTML ----
log "1. a single run"
LABEL='</script><!-- <b>x</b> '\''q'\'''
run_job --workload write --target "$SCRATCH_DIR" --set size=64M --set block_size=64K --set runtime_ms=1500 \
        --set sample_ms=250 --label "$LABEL"
RUN=$(sql "select id from runs where job_id = $job")
(cd "$OUTDIR" && benchctl report "$RUN") >"$TEST_DIR/out.txt" || fail "report $RUN failed"
assert_eq "benchd-run-$RUN.html" "$(cat "$TEST_DIR/out.txt")" "what report prints: the file it wrote"
P="$OUTDIR/benchd-run-$RUN.html"
[ -s "$P" ] || fail "no $P"
page_data "$P"
same_as_verb "$P" runs.0 "run report" show "$RUN" --json
assert_eq "[\"benchctl show $RUN --json\"]" "$(json_get 'json.dumps(d["sources"]["runs"])' <"$P.json")" "the run report's sources"
assert_eq "$LABEL" "$(json_get 'd["runs"][0]["label"]' <"$P.json")" "the label through the page's data"
assert_le 3 "$(json_get 'len(d["runs"][0]["samples"])' <"$P.json")" "samples in the run report"
# Only the page's own scripts close: the label's "</script>" is escaped.
assert_eq 4 "$(grep -o '</script>' "$P" | wc -l)" "</script> in the page"
grep -q '<!DOCTYPE html>' "$P" || fail "not an HTML5 page"
grep -q 'Chart.js v3' "$P" || fail "Chart.js is not inlined"
grep -qE '<(script|link)[^>]+(src|href)=' "$P" && fail "the page loads something from outside"
# label_as_text PAGE: the label that looks like HTML is in the DOM as text.
label_as_text() {
        grep -q -- "$(printf '%s' "$LABEL" | sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g')" "$1.dom" ||
                fail "the label is not shown as text in the page"
}
in_browser "$P" "run report" label_as_text

# ---- 2. iozone: one chart per test on log scales, the matrix ----
log "2. an iozone job (32 steps)"
run_job --profile iozone --target "$SCRATCH_DIR"
IOZONE_JOB=$job
run benchctl report --job "$job" -o "$OUTDIR/iozone.html"
[ "$RC" = 0 ] || fail "report --job $job (iozone) exited $RC: $OUT"
P="$OUTDIR/iozone.html"
page_data "$P"
same_as_verb "$P" view "iozone report" show --job "$job" --json
assert_eq "iozone|2|32" "$(json_get '"%s|%d|%d" % (d["view"]["view"], len(d["view"]["file_sizes"]), d["runs_left_out"])' <"$P.json")" \
        "iozone report: view, file sizes, runs without a section of their own"
assert_eq 8 "$(python3 "$CHECK" charts "$P")" "charts an iozone job calls for"
in_browser "$P" "iozone report"

# ---- 3. bonnie: bon_csv2html's table ----
log "3. a bonnie job"
run_job --profile bonnie --target "$SCRATCH_DIR" --set size=1M --set runtime_ms=0 --set file_count=1024
BONNIE_JOB=$job
(cd "$OUTDIR" && benchctl report --job "$job" >/dev/null) || fail "report --job $job (bonnie) failed"
P="$OUTDIR/benchd-job-$job.html"
page_data "$P"
same_as_verb "$P" view "bonnie report" show --job "$job" --json
assert_eq 7 "$(json_get 'len(d["runs"])' <"$P.json")" "bonnie report: a section per step"
for i in 0 1 2 3 4 5 6; do
        same_as_verb "$P" "runs.$i" "bonnie report, step $((i + 1))" show "$(json_get "d['runs'][$i]['id']" <"$P.json")" --json
done
# bonnie_table_as_bon_csv2html PAGE: the figures in bon_csv2html's cells of the same job's CSV
# (PAGE.bon.html), in the same order (Per Chr aside: bon_csv2html prints those unconverted).
bonnie_table_as_bon_csv2html() {
        python3 - "$1.dom" "$1.bon.html" <<'PY' || fail "the bonnie table differs from bon_csv2html's"
import html, re, sys
def cells(text, start):
    t = text[text.index(start):]
    t = t[:t.index("</table>")]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", t, re.S)
    return [[html.unescape(re.sub("<[^>]+>", "", c)).strip() for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", r, re.S)]
            for r in rows]
mine = cells(open(sys.argv[1]).read(), '<table class="bonnie">')
theirs = cells(open(sys.argv[2]).read(), "<table")
# The data row: name, size, then 12 I/O cells (Per Chr at 2, 3, 8, 9), 4 sizes, 12 metadata cells.
m, t = mine[3], theirs[3]
skip = {2, 3, 8, 9}
# +++++ (a cache served the test) is +++++ on the page; bon_csv2html divides it to 0.
got = [c for i, c in enumerate(m) if i not in skip]
want = [c for i, c in enumerate(t) if i not in skip]
got = ["0" if g == "+++++" and w == "0" else g for g, w in zip(got, want)]
assert got == want, "data row: %r vs bon_csv2html %r" % (got, want)
assert [c for c in mine[4] if c] == [c for c in theirs[4] if c], "latency row: %r vs %r" % (mine[4], theirs[4])
PY
}
if command -v bon_csv2html >/dev/null; then
        benchctl export --format bonnie-csv --job "$job" | bon_csv2html >"$P.bon.html"
        in_browser "$P" "bonnie report" bonnie_table_as_bon_csv2html
else
        in_browser "$P" "bonnie report"
fi

# ---- 4. a filesystem matrix: ext4 and btrfs, two rounds ----
log "4. a filesystem matrix (ext4, btrfs on $L1, repeat=2)"
run_job --workload write --set filesystems=ext4,btrfs --set devices="$L1" --set destructive=true \
        --set size=8M --set block_size=64K --set repeat=2
MATRIX_JOB=$job
assert_eq 4 "$(sql "select count(*) from runs where job_id = $job and status = 'succeeded'")" "matrix runs"
(cd "$OUTDIR" && benchctl report --job "$job" >/dev/null) || fail "report --job $job (matrix) failed"
P="$OUTDIR/benchd-job-$job.html"
page_data "$P"
same_as_verb "$P" view "matrix report" show --job "$job" --json
assert_eq "[\"benchctl show --job $job --json\"]" "$(json_get 'json.dumps([d["sources"]["view"]])' <"$P.json")" \
        "the matrix report's source"
# Each entry's own view (the per-step table of its runs), titled by where it ran.
L1N=$(basename "$L1")
assert_eq "ext4 on $L1N:steps:2|btrfs on $L1N:steps:2" \
        "$(json_get '"|".join("%s:%s:%d" % (e["place"], e["view"]["view"], e["view"]["steps"][0]["n"]) for e in d["view"]["entries"])' <"$P.json")" \
        "matrix report: each entry's view"
# Error bars: the stddev of each entry's two runs, as the database has them.
want=$(sql "select fs_type, (bytes_written * 1000000.0 / duration_usec) / 1048576.0 from runs where job_id = $job
        order by matrix_entry, id" | python3 -c '
import statistics, sys
v = {}
for line in sys.stdin:
    fs, x = line.strip().split("|")
    v.setdefault(fs, []).append(float(x))
print(" ".join("%s=%.6f" % (fs, statistics.stdev(xs)) for fs, xs in v.items()))')
got=$(json_get '" ".join("%s=%.6f" % (e, [c for c in d["view"]["compare"]["cells"] if c["group"] == e][0]["mib_per_s"]["stddev"]) for e in ("ext4", "btrfs"))' <"$P.json")
assert_eq "$want" "$got" "matrix report: stddev of the rounds"
assert_eq "paired" "$(json_get '[c for c in d["view"]["compare"]["cells"] if c["group"] == "btrfs"][0]["mib_per_s"]["test"]' <"$P.json")" \
        "matrix report: the rounds' paired test"
assert_eq 4 "$(json_get 'len(d["runs"])' <"$P.json")" "matrix report: a section per run"
grep -q "<title>Job $job (filesystem matrix): ext4 on $L1N, btrfs on $L1N</title>" "$P" ||
        fail "the matrix report's title does not name both entries: $(grep -o '<title>[^<]*' "$P")"
in_browser "$P" "matrix report"

# ---- 5. compare --by fs_type over the matrix job ----
log "5. compare --by fs_type"
run benchctl report --by fs_type --job "$MATRIX_JOB" -o "$OUTDIR/compare.html"
[ "$RC" = 0 ] || fail "report --by fs_type exited $RC: $OUT"
P="$OUTDIR/compare.html"
page_data "$P"
same_as_verb "$P" compare "compare report" compare --by fs_type --job "$MATRIX_JOB" --json
assert_eq "benchctl compare --by fs_type --job $MATRIX_JOB --json" "$(json_get 'd["sources"]["compare"]' <"$P.json")" \
        "compare report: its source"
assert_eq float "$(json_get 'type([c for c in d["compare"]["cells"] if c["group"] == "btrfs"][0]["mib_per_s"]["stddev"]).__name__' <"$P.json")" \
        "compare --json: the stddev of btrfs's two runs"
in_browser "$P" "compare report"
# Another confidence level: the page's source names it, and that command gives the page's data.
run benchctl report --by fs_type --confidence 99 --job "$MATRIX_JOB" -o "$OUTDIR/compare99.html"
[ "$RC" = 0 ] || fail "report --by fs_type --confidence 99 exited $RC: $OUT"
page_data "$OUTDIR/compare99.html"
assert_eq "benchctl compare --by fs_type --confidence 0.99 --job $MATRIX_JOB --json" \
        "$(json_get 'd["sources"]["compare"]' <"$OUTDIR/compare99.html.json")" "compare report at 99%: its source"
same_as_verb "$OUTDIR/compare99.html" compare "compare report at 99%" \
        compare --by fs_type --confidence 0.99 --job "$MATRIX_JOB" --json

# ---- 6. history: the write runs of the last hour, per device ----
log "6. a history selection"
(cd "$OUTDIR" && benchctl report --workload write --since 1h >/dev/null) || fail "report --workload write --since 1h failed"
P="$OUTDIR/benchd-history-write.html"
[ -s "$P" ] || fail "no $P: $(ls "$OUTDIR")"
page_data "$P"
since=$(json_get 'd["sources"]["results"].split("--since @")[1].split()[0]' <"$P.json")
same_as_verb "$P" results "history report" results --workload write --since "@$since" --json
assert_le 2 "$(json_get 'len({r["device_name"] for r in d["results"]})' <"$P.json")" "devices in the history"
same_as_verb "$P" regressions "history report's regressions" regressions --workload write --since "@$since" --json
in_browser "$P" "history report"

# ---- 6b. history with a regression: its red triangle on the flagged run ----
log "6b. a history selection with a flagged run"
run_job --workload write --target "$SCRATCH_DIR" --set size=16M --set block_size=32K
REG1=$(sql "select id from runs where job_id = $job")
REG_DEV=$(sql "select device_name from runs where id = $REG1")
[ -n "$REG_DEV" ] || fail "run $REG1 has no device_name: the history selection needs the loop device"
stop_benchd
seed_history "$REG1" 20 20
start_benchd --config="$CONF" --profiles-dir="$PROFILES"
run_job --workload write --target "$SCRATCH_DIR" --set size=16M --set block_size=32K
REG2=$(sql "select id from runs where job_id = $job")
assert_eq 1 "$(sql "select count(*) from regressions where run_id = $REG2 and metric = 'mb_per_s'")" \
        "run $REG2 flagged against 20 seeded runs 20 times as fast; regressions: $(sql "select run_id, metric from regressions")"
run benchctl report --device "$REG_DEV" --workload write --since 1h -o "$OUTDIR/regressions.html"
[ "$RC" = 0 ] || fail "report --device $REG_DEV --workload write --since 1h exited $RC: $OUT"
P="$OUTDIR/regressions.html"
page_data "$P"
since=$(json_get 'd["sources"]["results"].split("--since @")[1].split()[0]' <"$P.json")
same_as_verb "$P" results "regression history" results --device "$REG_DEV" --workload write --since "@$since" --json
same_as_verb "$P" regressions "regression history's regressions" regressions --device "$REG_DEV" --workload write \
        --since "@$since" --json
assert_eq True "$(json_get "any(g['run_id'] == $REG2 for g in d['regressions'])" <"$P.json")" \
        "run $REG2 among the page's regressions"
MARKS=$(python3 "$CHECK" marks "$P")
assert_le 1 "$MARKS" "flagged runs in the selection"
# regression_marks_drawn PAGE: the marks the chart drew are the flagged runs, and that of run REG2
# sits at its start time and its MiB/s (read back from the chart's scales).
regression_marks_drawn() {
        local state want
        state=$(python3 "$CHECK" state "$1.dom")
        assert_eq "$MARKS" "$(json_get 'd["regression_marks"]' <<<"$state")" "regression marks drawn"
        want=$(sql "select started_usec / 1000.0, (bytes_written * 1000000.0 / duration_usec) / 1048576.0 from runs where id = $REG2")
        python3 - "$state" "$REG2" "$want" <<'PY' || fail "the regression mark of run $REG2 is not on its point"
import json, sys
state, run, (x, y) = json.loads(sys.argv[1]), int(sys.argv[2]), map(float, sys.argv[3].split("|"))
pts = [p for p in state["regression_points"] if p["run"] == run]
assert len(pts) == 1, "marks of run %d: %r" % (run, state["regression_points"])
p = pts[0]
# A pixel is a few seconds on a 20-minute axis, a fraction of a MiB/s on the y axis.
assert abs(p["x"] - x) < 30e3, "mark at x=%f, the run started at %f" % (p["x"], x)
assert abs(p["y"] - y) < max(0.02 * y, 0.5), "mark at y=%f, the run's MiB/s is %f" % (p["y"], y)
print("mark of run %d at (%.0f, %.2f): the run's (%.0f, %.2f)" % (run, p["x"], p["y"], x, y))
PY
}
in_browser "$P" "regression history" regression_marks_drawn

# ---- 6c. an iozone job as a filesystem matrix: each entry's iozone, a heat map, a line per entry ----
log "6c. an iozone filesystem matrix (ext4, btrfs on $L1), 16 steps each"
stop_benchd
start_benchd --config="$CONF" --profiles-dir="$PROFILES_SMALL"
run_job --profile iozone --set filesystems=ext4,btrfs --set devices="$L1" --set destructive=true
IOZONE_MATRIX_JOB=$job
assert_eq 32 "$(sql "select count(*) from runs where job_id = $job and status = 'succeeded'")" "iozone matrix runs"
run benchctl report --job "$job" -o "$OUTDIR/iozone-matrix.html"
[ "$RC" = 0 ] || fail "report --job $job (iozone matrix) exited $RC: $OUT"
P="$OUTDIR/iozone-matrix.html"
page_data "$P"
same_as_verb "$P" view "iozone matrix report" show --job "$job" --json
assert_eq "iozone|ext4,btrfs|iozone,iozone" \
        "$(json_get '"%s|%s|%s" % (d["profile"], ",".join(e["name"] for e in d["view"]["entries"]), ",".join(e["view"]["view"] for e in d["view"]["entries"]))' <"$P.json")" \
        "iozone matrix report: profile, entries, each entry's iozone view"
# Each entry's 8 iozone charts, and a chart per iozone test with a line per entry; the % differences
# are a heat map (a table), not 32 groups of bars.
assert_eq 24 "$(python3 "$CHECK" charts "$P")" "charts an iozone matrix job calls for"
# heat_map_is_compare PAGE: one heat map, whose cells are compare --job's differences.
heat_map_is_compare() {
        local want got
        assert_eq 1 "$(grep -o '<table class="heat">' "$1.dom" | wc -l)" "heat maps of the % differences (one entry against ext4)"
        # Its cells: the 16 differences of btrfs against ext4 (8 tests × 2 record sizes), as compare --job has them.
        want=$(json_get '" ".join(sorted("%+.1f%%" % c["mib_per_s"]["diff_pct"] for c in d["view"]["compare"]["cells"] if c["group"] == "btrfs"))' <"$1.json")
        got=$(python3 - "$1.dom" <<'PY'
import html, re, sys
t = open(sys.argv[1]).read()
t = t[t.index('<table class="heat">'):]
t = t[:t.index("</table>")]
cells = [html.unescape(re.sub("<[^>]+>", "", c)).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", t, re.S)]
print(" ".join(sorted(c.replace(" ~", "") for c in cells if c)))
PY
)
        assert_eq "$want" "$got" "the heat map's cells are compare --job's differences"
}
in_browser "$P" "iozone matrix report" heat_map_is_compare

# ---- 7. what is refused ----
log "7. errors"
run env BENCHCTL_CHART_JS="$TEST_DIR/no-chart.js" "$BENCHCTL_BIN" --bus-address="$BUS_ADDRESS" report "$RUN" -o "$OUTDIR/x.html"
assert_eq 1 "$RC" "exit code without the chart library"
assert_contains "$OUT" "libjs-chart.js" "the error names the package"
[ -e "$OUTDIR/x.html" ] && fail "a report was written without the chart library"
run env -u DISPLAY -u WAYLAND_DISPLAY "$BENCHCTL_BIN" --bus-address="$BUS_ADDRESS" report "$RUN" -o "$OUTDIR/y.html" --open
assert_eq 1 "$RC" "exit code of --open without a display"
assert_contains "$OUT" "DISPLAY" "--open without a display says so"
[ -s "$OUTDIR/y.html" ] || fail "--open without a display did not write the report first"
run benchctl report 999999 -o "$OUTDIR/z.html"
assert_eq 4 "$RC" "exit code of a report of a run that does not exist"
run benchctl report "$RUN" --job "$MATRIX_JOB"
assert_eq 2 "$RC" "exit code of RUN ids with --job"
run benchctl report --job "$MATRIX_JOB" -o /nonexistent-dir/r.html
assert_eq 1 "$RC" "exit code of an unwritable -o"
assert_contains "$OUT" "/nonexistent-dir/r.html" "the error names the file"

# ---- 8. every page in the browser ----
browser_checks

# The pages' scripts (charts, marks, the narrow layout) are what this test is for: without a
# browser to run them it has not passed, it was skipped.
[ "$BROWSER_CHECKED" -gt 0 ] || skip "the pages were not loaded in a browser: install chromium (scripts/deps.sh)"
log "report passed (run $RUN, jobs iozone $IOZONE_JOB, bonnie $BONNIE_JOB, matrix $MATRIX_JOB, iozone matrix $IOZONE_MATRIX_JOB; regression run $REG2; $BROWSER_CHECKED pages in chromium)"

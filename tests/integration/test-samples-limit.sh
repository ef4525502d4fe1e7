#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A run can hold more samples than one D-Bus message may carry (a week at sample_ms=100 is six
# million). GetSamples answers runs of up to 10000 samples as before and refuses longer ones with
# LimitsExceeded, naming the limit and the ways to get the rest; GetSamplesPage reads any run in
# pages of at most 10000 that chain by next_ms, each a range search on the samples' primary key.
# The runs are written straight into benchd's database with sqlite3, so the test needs no disk
# time: 10000 (the limit), 10001 (one past it) and 25000 samples, every column non-NULL so each
# sample is as large as it gets on the bus.
#
# The other replies that grow with the history, QueryRuns and ListJobs with all=true, are bounded
# in bytes (16 MiB): 10000 runs or jobs with 4000-byte targets would be 40 MB, past the 32 MiB that
# dbus-daemon allows, which used to get benchd disconnected from the bus. They fail with
# LimitsExceeded instead, and smaller requests still work.

. "$(dirname "$0")/lib.sh"

require_root
require_cmd dbus-daemon busctl python3 sqlite3
require_binaries

LIMIT=10000

start_bus
start_monitor
start_benchd

# add_run N: a finished run with N samples at t_ms = 100, 200, ..., 100*N; prints its id.
add_run() {
        sql "INSERT INTO runs (workload, block_size, size, runtime_ms, ramp_ms, queue_depth, jobs, direct,
                               target, started_usec, status)
             VALUES ('write', 4096, 1048576, 0, 0, 1, 1, 1, '/srv/bench', 1700000000000000, 'succeeded');
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $1)
             INSERT INTO sample_data (run_id, t_ms, interval_us, bytes_read, bytes_written, ios_read,
                                      ios_written, ops, lat_mean_ns, lat_p50_ns, lat_p99_ns, lat_max_ns,
                                      iowait_bp, cpu_user_bp, cpu_sys_bp, dev_util_bp, dev_queue_milli)
             SELECT (SELECT max(id) FROM runs), 100 * i, 100000, 0, 409600000 + i, 0, 100000 + i, 0,
                    1234567, 1200000, 9000000, 123456789, 1250, 325, 775, 9950, 31500
             FROM n;
             SELECT max(run_id) FROM sample_data;"
}

at_limit=$(add_run $LIMIT)
past_limit=$(add_run $((LIMIT + 1)))
long=$(add_run 25000)
log "runs $at_limit ($LIMIT samples), $past_limit ($((LIMIT + 1))), $long (25000)"
assert_eq 25000 "$(sql "SELECT count(*) FROM samples WHERE run_id = $long")" "samples written for run $long"

# call_json METHOD SIGNATURE ARGS...: benchd's reply as busctl's JSON.
call_json() {
        bus --json=short call -- "$BUS_NAME" "$MANAGER_PATH" "$MANAGER_IFACE" "$@"
}

# ---- 1. GetSamples: up to the limit as before ----
out=$(call_json GetSamples t "$at_limit") || fail "GetSamples of a run of $LIMIT samples failed: $out"
# first t_ms, last t_ms, samples, keys of the first sample
summary=$(json_get '(d["data"][0][0]["t_ms"]["data"], d["data"][0][-1]["t_ms"]["data"],
                     len(d["data"][0]), len(d["data"][0][0]))' <<<"$out")
assert_eq "(100, $((100 * LIMIT)), $LIMIT, 16)" "$summary" "GetSamples at the limit"
log "a reply of $LIMIT samples: $(printf '%s' "$out" | wc -c) bytes of busctl JSON"

# ---- 2. GetSamples: one past the limit, and far past it, is refused with a way out ----
for id in "$past_limit" "$long"; do
        call_error GetSamples t "$id"
        assert_contains "$ERR" "org.freedesktop.DBus.Error.LimitsExceeded" "GetSamples($id) error"
        assert_contains "$ERR" "run $id has more than $LIMIT samples" "GetSamples($id) error"
        assert_contains "$ERR" "GetSamplesPage($id, from_ms, limit)" "GetSamples($id) error"
        assert_contains "$ERR" "$DB" "GetSamples($id) error names the database"
done
benchd_alive || fail "benchd died on a GetSamples over the limit"

# ---- 3. GetSamplesPage: the whole long run in pages that chain by next_ms ----
# page RUN FROM LIMIT: prints "count first_t last_t next_ms" of the page.
page() {
        local out
        out=$(call_json GetSamplesPage ttu "$1" "$2" "$3") || fail "GetSamplesPage $*: $out"
        json_get '" ".join(str(x) for x in (len(d["data"][0]),
                                            d["data"][0][0]["t_ms"]["data"] if d["data"][0] else "-",
                                            d["data"][0][-1]["t_ms"]["data"] if d["data"][0] else "-",
                                            d["data"][1]))' <<<"$out"
}

from=0 pages=() total=0
while :; do
        p=$(page "$long" "$from" 0)
        pages+=("$p")
        read -r n first last next <<<"$p"
        [ "$n" -le $LIMIT ] || fail "a page of $n samples, more than $LIMIT"
        [ "$first" = - ] || [ "$first" -ge "$from" ] || fail "page from $from starts at $first"
        total=$((total + n))
        [ "$next" = 0 ] && break
        [ "$next" -gt "$last" ] || fail "next_ms $next is not after the page's last sample $last"
        from=$next
        [ ${#pages[@]} -le 10 ] || fail "more pages than 25000 samples need: ${pages[*]}"
done
assert_eq 3 "${#pages[@]}" "pages of the 25000-sample run (${pages[*]})"
assert_eq "10000 100 1000000 1000100" "${pages[0]}" "first page"
assert_eq "10000 1000100 2000000 2000100" "${pages[1]}" "second page"
assert_eq "5000 2000100 2500000 0" "${pages[2]}" "last page"
assert_eq 25000 "$total" "samples over all pages"
# benchctl follows the pages: every sample of the long run, in order, none twice.
out=$(benchctl samples "$long" --json) || fail "benchctl samples $long: $out"
assert_eq "25000 100 2500000 25000" \
        "$(json_get 'len(d), d[0]["t_ms"], d[-1]["t_ms"], len(set(s["t_ms"] for s in d))' <<<"$out" | tr -d '(),')" \
        "benchctl samples of the 25000-sample run"

# ---- 4. GetSamplesPage: limits, an arbitrary start, the end, the boundary ----
assert_eq "7 200 800 900" "$(page "$long" 150 7)" "7 samples from t_ms 150"
assert_eq "10000 100 1000000 1000100" "$(page "$long" 0 4000000000)" "a limit above $LIMIT is $LIMIT"
assert_eq "1 2500000 2500000 0" "$(page "$long" 2500000 1)" "the last sample alone"
assert_eq "0 - - 0" "$(page "$long" 2500001 5)" "a page past the end"
assert_eq "$LIMIT 100 $((100 * LIMIT)) 0" "$(page "$at_limit" 0 0)" "a run of exactly $LIMIT samples is one page"
assert_eq "$LIMIT 100 $((100 * LIMIT)) $((100 * LIMIT + 100))" "$(page "$past_limit" 0 0)" "one past the limit"
assert_eq "1 $((100 * LIMIT + 100)) $((100 * LIMIT + 100)) 0" "$(page "$past_limit" $((100 * LIMIT + 100)) 0)" \
        "the sample past the limit"

# ---- 5. Unknown runs ----
call_error GetSamplesPage ttu 999999 0 0
assert_contains "$ERR" "org.benchd.Benchd1.Error.NotFound" "GetSamplesPage of an unknown run"
assert_contains "$ERR" "there is no run 999999" "GetSamplesPage of an unknown run"
call_error GetSamples t 999999
assert_contains "$ERR" "org.benchd.Benchd1.Error.NotFound" "GetSamples of an unknown run"

# ---- 6. QueryRuns and ListJobs(all): bounded in bytes, not only in rows ----
long_target="/srv/$(printf 'x%.0s' {1..4000})"
sql "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
     INSERT INTO jobs (state, workload, spec, target, submitted_by, submitted_usec, finished_usec)
     SELECT 'succeeded', 'write', json_object('target', '$long_target', 'workload', 'write'),
            '$long_target', 0, 1700000000000000 + i, 1700000000000001 + i FROM n;
     WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
     INSERT INTO runs (workload, block_size, size, runtime_ms, ramp_ms, queue_depth, jobs, direct,
                       target, started_usec, status)
     SELECT 'write', 4096, 1048576, 0, 0, 1, 1, 1, '$long_target', 1600000000000000 + i, 'succeeded' FROM n;"

call_error QueryRuns 'a{sv}' 1 limit t 10000
assert_contains "$ERR" "org.freedesktop.DBus.Error.LimitsExceeded" "QueryRuns of 10000 long runs"
assert_contains "$ERR" "do not fit in one reply (16 MiB" "QueryRuns of 10000 long runs"
fitted=$(sed -n 's/.*MiB; \([0-9]*\) did.*/\1/p' <<<"$ERR")
[ -n "$fitted" ] && [ "$fitted" -gt 1000 ] && [ "$fitted" -lt 10000 ] || fail "runs that fitted: '$fitted' ($ERR)"
benchd_alive || fail "benchd died on a QueryRuns too large for one reply"
assert_contains "$ERR" "e.g. limit=$fitted, and go on with offset" "QueryRuns of 10000 long runs"
# What the message promises: that many fit, and the next page goes on from there.
out=$(call_json QueryRuns 'a{sv}' 1 limit t "$fitted") || fail "QueryRuns limit=$fitted"
assert_eq "$fitted" "$(json_get 'len(d["data"][0])' <<<"$out")" "runs of QueryRuns limit=$fitted"
out=$(call_json QueryRuns 'a{sv}' 2 limit t 1000 offset t "$fitted") || fail "QueryRuns offset=$fitted"
assert_eq 1000 "$(json_get 'len(d["data"][0])' <<<"$out")" "runs of QueryRuns limit=1000 offset=$fitted"
out=$(call_json QueryRuns 'a{sv}' 0) || fail "QueryRuns with no filter: $out"
assert_eq 100 "$(json_get 'len(d["data"][0])' <<<"$out")" "runs of QueryRuns with the default limit"

call_error ListJobs 'a{sv}' 1 all b true
assert_contains "$ERR" "org.freedesktop.DBus.Error.LimitsExceeded" "ListJobs(all) of 10000 long jobs"
assert_contains "$ERR" "give a limit (the newest that many)" "ListJobs(all) of 10000 long jobs"
benchd_alive || fail "benchd died on a ListJobs too large for one reply"
out=$(call_json ListJobs 'a{sv}' 2 all b true limit t 500) || fail "ListJobs all, limit 500: $out"
assert_eq 500 "$(json_get 'len(d["data"][0])' <<<"$out")" "jobs of ListJobs all with limit 500"

benchd_alive || fail "benchd died"
log "ok"

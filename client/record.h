/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading benchd's records (a{sv} converted to json-c by bus.c): typed field access, and the
 * metrics every verb shows for a run or a sample (throughput, IOPS, latency). The column names of
 * the run_summary view and the samples table are looked up here and only here.
 */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

/* NULL when missing, null, or not a string. */
const char *rec_str(json_object *o, const char *key);
/* False when missing or not a number (numeric strings are accepted). */
bool rec_u64(json_object *o, const char *key, uint64_t *ret);
bool rec_double(json_object *o, const char *key, double *ret);
bool rec_bool(json_object *o, const char *key, bool *ret);
uint64_t rec_u64_or(json_object *o, const char *key, uint64_t fallback);
double rec_double_or(json_object *o, const char *key, double fallback);

/* A value as display text ("" for null/missing): strings as they are, arrays joined with ", ",
 * numbers and booleans as JSON writes them. Malloc'd. */
char *rec_to_text(json_object *o, const char *key);

/* Metrics of a run (QueryRuns/GetRun entry), NAN when unknown. */
double run_bytes_per_sec(json_object *run);
double run_iops(json_object *run);
/* Latency percentile from the run's lat_<name>_ns (name: min, mean, stddev, p50, p90, p95, p99,
 * p999, p9999, max). */
double run_latency_ns(json_object *run, const char *name);
uint64_t run_id(json_object *run);
uint64_t run_started_usec(json_object *run);
const char *run_device(json_object *run);
/* Whether a cache served the run, not its device: served_from is "page-cache" or "backing-file"
 * (schema/README.md). */
bool run_cache_served(json_object *run);

/* Metrics of one sample; prev_t_ms is the previous sample's t_ms (0 for the first). */
double sample_bytes_per_sec(json_object *sample, uint64_t prev_t_ms);
double sample_iops(json_object *sample, uint64_t prev_t_ms);
double sample_latency_ns(json_object *sample, const char *name);

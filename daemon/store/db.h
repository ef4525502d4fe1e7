/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The SQLite store (schema/ and docs/DESIGN.md "SQLite"). benchd is its only writer. Opening applies
 * the forward-only migrations by PRAGMA user_version; every statement is prepared with bound
 * parameters; SQLite result codes become negative errnos here and nowhere else. No D-Bus, no
 * event loop: unit-tested directly on a temporary file.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shared/proto.h"
#include "shared/regress.h"
#include "shared/spec.h"
#include "shared/util.h"

typedef struct Db Db;

/* Creates the file (and WAL) if missing, migrates to the newest schema. -errno on failure, with
 * a message logged once by the caller. */
int db_open(const char *path, Db **ret);
/* The same; on failure *ret_error (if non-NULL) is a malloc'd message for the log, e.g. "database
 * schema version 3 is newer than this benchd knows (1)" for -EPROTONOSUPPORT. */
int db_open_full(const char *path, Db **ret, char **ret_error);
Db *db_close(Db *db);
DEFINE_TRIVIAL_CLEANUP_FUNC(Db *, db_close);

int db_schema_version(Db *db);        /* PRAGMA user_version */
int db_schema_latest(void);           /* the version db_open() migrates to */
const char *db_last_error(Db *db);    /* sqlite3_errmsg() of the last failure, for logs */
/* Whether a write that failed with r may work when tried again later: the filesystem was full
 * (-ENOSPC), the file locked by another process (-EBUSY), read-only (-EROFS), not accessible
 * (-EACCES), an I/O error (-EIO), no memory (-ENOMEM). The others (-ENOENT, -EEXIST, -EINVAL,
 * -ERANGE: a missing row, a duplicate, a value the schema refuses) fail the same way every time. */
bool db_error_is_transient(int r);

/* ---- jobs ---- */
typedef struct DbJob {
        uint64_t id;
        const char *state;      /* queued|running|succeeded|failed|cancelled|interrupted */
        const char *profile;    /* may be NULL */
        const char *workload;   /* may be NULL */
        const char *spec_json;
        const char *target;
        const char *label;      /* may be NULL */
        uint32_t submitted_by;
        uint64_t submitted_usec;
        uint64_t started_usec;  /* 0: not yet */
        uint64_t finished_usec; /* 0: not yet */
        const char *error;      /* may be NULL */
        const char *steps_json; /* the expanded steps and their target identities; may be NULL */
        const char *triggered_by; /* "bus" or "udev" (schema version 11); NULL: "bus" */
} DbJob;

/* Inserts with state "queued"; the id comes from SQLite (never reused: AUTOINCREMENT). */
int db_job_insert(Db *db, const DbJob *job, uint64_t *ret_id);
int db_job_set_state(Db *db, uint64_t id, const char *state, uint64_t started_usec,
                     uint64_t finished_usec, const char *error);
/* Calls cb for every job in state (NULL: all), oldest first. Strings valid during the call. A
 * negative return from cb stops the walk and is returned. */
int db_job_foreach(Db *db, const char *state, int (*cb)(const DbJob *job, void *userdata),
                   void *userdata);
/* The same for the newest limit of them (0: all), still oldest first: read through the primary
 * key, not the whole table. */
int db_job_foreach_newest(Db *db, const char *state, uint64_t limit, int (*cb)(const DbJob *job, void *userdata),
                          void *userdata);

/* ---- runs (one per job step) ---- */
typedef struct DbRun {
        uint64_t job_id;
        uint32_t step;
        /* The step, finalized, with a workload and a target: every key whose registry row names a
         * runs column (SpecKeyInfo.runs_column: workload, block_size, ..., label, tags, fleet_uuid,
         * fleet_host) is stored there as the spec's text form writes it (numbers as integers,
         * booleans as 0 and 1, string lists as a JSON array, NULL when it has no value). */
        const JobSpec *spec;
        int64_t device_id;       /* devices.id, or -1 */
        const char *device_name; /* kernel name backing the target, may be NULL */
        const char *fs_type;     /* may be NULL */
        const char *mount_options;
        const char *environment; /* JSON */
        uint64_t started_usec;
        /* Filesystem matrices (schema version 4); NULL/-1 for other runs. */
        const char *layout;
        const char *members_json; /* JSON array of device paths */
        bool in_matrix;           /* false: matrix_entry is stored as NULL */
        uint32_t matrix_entry;
        const char *mkfs_options;
        /* Repeats and steady state (schema version 6). */
        uint32_t repeat;          /* the run's place among the runs of its step, from 0 */
        bool steady_state_asked;  /* the step has steady_state=: steady_state starts at 0, else NULL */
        /* Matrices in rounds (schema version 18). */
        bool in_round;            /* false: round is stored as NULL */
        uint32_t round;           /* the round of the matrix job the run belongs to, from 0 */
        /* Partitions (schema version 20): the job's partitions= and the run's partition of each
         * device; both NULL when partitions is 0. */
        uint32_t partitions, partition;
        /* The md layouts (schema version 21): the array's name, "benchd-JOB-ENTRY", and its resync
         * mode ("wait", "assume-clean"), recorded with the run and so before its worker creates the
         * array (md-leftovers.h finds what a killed worker left by them); NULL for other runs. */
        const char *md_array, *md_resync;
        /* The LVM layouts (schema version 23): the volume group's name, "benchd-JOB-ENTRY", recorded
         * with the run and so before its worker creates or activates it (lvm-leftovers.h); NULL for
         * other runs. */
        const char *lvm_vg;
} DbRun;

/* How a matrix run's filesystem was made and what it held right after mkfs (schema version 4). */
typedef struct DbRunFs {
        const char *mkfs_command;
        const char *mkfs_output;
        const char *fs_uuid;
        uint64_t mkfs_usec;
        uint64_t size_bytes, used_bytes, avail_bytes, inodes, inodes_free;
        const char *fs_commands_json;   /* schema version 20: every command run to make it, a JSON array;
                                         * NULL stored as NULL */
        /* The layout under the filesystem (schema version 21): NULL or "" when none. */
        const char *layout_commands;
        uint64_t md_chunk_bytes, md_resync_usec;
        /* The logical volume of an LVM layout (schema version 23): 0 when none. */
        uint64_t lv_extents, lv_bytes;
} DbRunFs;

int db_run_set_fs(Db *db, uint64_t run_id, const DbRunFs *fs);

/* The md arrays' names this host's runs recorded (db-md.c; never an imported run's), newest first, at most 1024, an empty list when
 * none; with idle, not those of a run still running (whose worker may have its array assembled),
 * but own_run's (after its step: 0 when none is). */
int db_md_arrays_recorded(Db *db, bool idle, uint64_t own_run, char ***ret);
/* Appends the JSON array commands (what released an md array's members at the end of the entry's
 * last step: mdadm --zero-superblock) to the run's layout_commands. -ENOENT: no such run, or
 * commands is not a JSON array. */
int db_run_add_layout_commands(Db *db, uint64_t run_id, const char *commands);

/* The LVM layouts (schema version 23, db-lvm.c; the group's name is DbRun's lvm_vg): the logical
 * volume's extents and bytes, which db_run_set_fs() stores when given (0: nothing stored); the
 * groups' names this host's runs recorded (never an imported run's), newest first (at most 1024, an empty list when none). */
int db_run_set_lv(Db *db, uint64_t run_id, const DbRunFs *fs);
/* With idle, not the groups of runs still running, whose workers may have them active (another
 * job's, on other devices), but own_run's (after its step: 0 when none is). */
int db_lvm_vgs_recorded(Db *db, bool idle, uint64_t own_run, char ***ret);

/* A run of partitions= (schema version 20) still running: its worker, or one killed, may have its
 * partitions in the kernel (db-partitions.c). members_json: the identities the job recorded for the
 * step's members at SubmitJob ([{"kind", "dev_major", "dev_minor", "ino", "diskseq"}, ...], the
 * step's "members" of jobs.steps), NULL when it has none. Valid during the callback only. */
typedef struct DbPartitionRun {
        uint64_t run_id;
        uint64_t job_id;
        uint32_t partitions;
        const char *members_json;
} DbPartitionRun;

/* Calls cb for each run of partitions= whose status is still 'running' (own_run 0: all of them, at
 * start-up before they are marked interrupted; else only own_run, after its step). 0, or the
 * first negative of cb or the store. */
int db_partition_runs_foreach(Db *db, uint64_t own_run, int (*cb)(const DbPartitionRun *r, void *userdata),
                              void *userdata);

/* A run's part in a fleet run (schema version 19, db-fleet.c): uuid and host from the step's spec;
 * started once Job.Start gave the step its start time, with the clock offset benchctl measured. */
typedef struct DbRunFleet {
        const char *uuid;
        const char *host;
        bool started;             /* false: the four columns below are stored as NULL */
        int64_t clock_offset_us;
        uint64_t rtt_us;
        uint64_t start_usec;
        bool corrected;
} DbRunFleet;

int db_run_set_fleet(Db *db, uint64_t run_id, const DbRunFleet *f);

/* The run reached its steady state usec (whole ms, as STEADY_STATE says it) into its measured
 * phase (steady_state = 1). -ENOENT for an
 * unknown run, or one that did not ask for a steady state. */
int db_run_set_steady_state(Db *db, uint64_t run_id, uint64_t usec);

/* Inserts with status "running". */
int db_run_begin(Db *db, const DbRun *run, uint64_t *ret_id);

/* Runs' uuids (schema/0010-run-uuids.sql): a new random one, and whether s is one in the canonical
 * lower-case form. */
#define DB_UUID_STRING_MAX 37
int db_uuid_new(char ret[static DB_UUID_STRING_MAX]);
bool db_uuid_valid(const char *s);

/* ImportRuns (db-import.c): the runs of a "benchd-export" document (docs/fleet.md "Many machines"),
 * runs being its "runs" array, each run's object as benchctl export --format=benchd writes it: the
 * run's columns, its "samples", "histogram", "phases" and "positions". Untrusted, and judged whole
 * before anything is written: every column and field for its JSON type, range (integers 0 to
 * INT64_MAX, finite numbers) and size; the spec the row records (workload, block_size, size, ...)
 * by the spec registry's rules; its figures by the rules its worker's frames were held to
 * (proto_run_plausible(), with now_usec as now). Runs still running are refused. All of the
 * document or none of it, in one transaction: -EINVAL (or -E2BIG for too many samples) with
 * db_last_error() naming the run (its place and uuid), the column and what it should be, or
 * another -errno from the database; nothing is written then. A run whose uuid is stored already
 * (or came earlier in the document) is skipped. An imported run gets job_id NULL, the device of
 * the same identity if this host knows one (device_id NULL and device_name kept otherwise), and
 * origin_host. Returns 0 with how many runs were imported and skipped. */
#define DB_IMPORT_TEXT_MAX (64u * 1024u)       /* a text column; environment, tags and members: 1 MiB */
#define DB_IMPORT_SAMPLES_MAX (4u * 1024u * 1024u)
struct json_object;
int db_runs_import(Db *db, struct json_object *runs, const char *origin_host, uint64_t now_usec,
                   uint64_t *ret_imported, uint64_t *ret_skipped);
/* The document around the runs (db-import.c): {"format": "benchd-export", "version": 1, "host": ...,
 * "runs": [...]}, at most DB_IMPORT_DOCUMENT_MAX bytes and DB_IMPORT_RUNS_MAX runs. Parses text and
 * checks that outer layer (each run is db_runs_import()'s to check); *ret_doc owns the parse,
 * *ret_host and *ret_runs (a JSON array) point into it. -EINVAL with *reterr saying what is wrong and
 * what to give instead; -ENOMEM. */
#define DB_IMPORT_DOCUMENT_MAX (64u * 1024u * 1024u)
#define DB_IMPORT_RUNS_MAX 100000u
int db_import_document_parse(const char *text, struct json_object **ret_doc, const char **ret_host,
                             struct json_object **ret_runs, char **reterr);
/* status: succeeded|failed|cancelled|interrupted; result may be NULL (no summary). */
int db_run_finish(Db *db, uint64_t run_id, const char *status, const char *error,
                  const ProtoResult *result);
/* Runs still "running" (after a crash) become "interrupted". Returns how many. */
int db_run_interrupt_stale(Db *db);

/* The newest run of a job (the last one begun: runs are begun one at a time, in the order the job
 * runs them, which in rounds is not step order), as start-up reads it to settle a job that was
 * left "running". Strings valid during the call. */
typedef struct DbRunEnd {
        uint64_t id;
        uint32_t step;
        uint32_t repeat;         /* its place among the runs of its step */
        const char *status;      /* running|succeeded|failed|cancelled|interrupted */
        const char *error;       /* may be NULL */
        uint64_t ended_usec;     /* started_usec + duration_usec when the run has a summary, else 0 */
} DbRunEnd;
/* 1 after calling cb with the job's newest run, 0 when the job has no run, or -errno (or cb's
 * negative return). */
int db_job_last_run(Db *db, uint64_t job_id, int (*cb)(const DbRunEnd *run, void *userdata),
                    void *userdata);

/* n records of the description d (shared/proto-record.h; records: n structs of d->size bytes) of
 * the run, stored as the description says (db-record.c), in one transaction (the caller's, when
 * one is open): all or nothing. -ENOENT for an unknown run (or, for a description that updates
 * the run's row, a run that does not take it), -EEXIST for a row the run has, -ERANGE for a number
 * SQLite cannot hold, -EINVAL for a name the description refuses. */
int db_records_insert(Db *db, uint64_t run_id, const ProtoRecordDesc *d, const void *records, size_t n);
/* The implied-interval rule of stored samples (db-record.c): whether interval_us is what
 * 1000 × (t_ms − prev_ms) says, to within 1 ms and 1 %, so that the row stores NULL. */
bool db_interval_implied(uint64_t interval_us, uint64_t t_ms, uint64_t prev_ms);

/* One transaction for the batch. Stored compactly in sample_data (schema/README.md): read back
 * (db_get_samples(), the samples view) percentages to 0.01, the queue to 0.001, interval_us to
 * within 1 ms and 1 %, everything else exactly. */
int db_samples_insert(Db *db, uint64_t run_id, const ProtoSample *samples, size_t n);
/* Replaces the run's histogram (bucket upper bound ns, count). */
int db_histogram_insert(Db *db, uint64_t run_id, const ProtoHistogramEntry *entries, size_t n);

/* One of a workload's own phases (metadata: create-seq, ...), as the worker sent it. Its seq is
 * the number of phases the run already has. -ENOENT for an unknown run, -EEXIST for a phase the
 * run already has, -EINVAL for a name or figures PHASE_RESULT's rules refuse. */
int db_run_phase_insert(Db *db, uint64_t run_id, const ProtoPhaseResult *phase);
/* One of the position workload's offsets, as the worker sent it; its seq is its index. -ENOENT for
 * an unknown run, -EEXIST for an index the run already has, -EINVAL for figures POSITION_RESULT's
 * rules refuse. */
int db_run_position_insert(Db *db, uint64_t run_id, const ProtoPositionResult *position);

/* ---- devices (one row per physical identity) ---- */
typedef struct DbDevice {
        const char *identity;    /* "wwn:...", "serial:..." or "model:<model>:<size>:<name>" */
        const char *model, *vendor, *serial, *wwn, *firmware; /* may be NULL: keep what is known */
        const char *name;        /* current kernel name, e.g. "sdb" */
        uint64_t size;           /* bytes */
        int rotational;          /* 0, 1, or -1 unknown */
        uint32_t logical_block_size, physical_block_size; /* 0: unknown */
        uint64_t seen_usec;      /* CLOCK_REALTIME; 0: now */
} DbDevice;

/* Inserts a new identity (first_seen = last_seen = seen_usec), or updates a known one: last_seen,
 * last_name and the descriptive fields given (non-NULL). *ret_id is devices.id, for DbRun. */
int db_device_upsert(Db *db, const DbDevice *d, int64_t *ret_id);
/* How many runs refer to the device; -ENOENT for an unknown id. */
int db_device_count_runs(Db *db, int64_t device_id, uint64_t *ret);
/* Whether the devices table has identity: 1 with its firmware as recorded (*ret_firmware NULL
 * when none was ever reported; may be NULL), 0 when it has not (*ret_firmware untouched). */
int db_device_find(Db *db, const char *identity, char **ret_firmware);
/* The same for a device without WWN or serial, by its model (NULL: none) and kernel name, whatever
 * its size: 1 with the firmware of the newest such row, 0 when there is none. */
int db_device_find_model(Db *db, const char *model, const char *name, char **ret_firmware);

/* ---- autoruns (schema/0011-autoruns.sql; store/db-autorun.c) ----
 * A disk that appeared with a new identity or firmware and BENCHD_AUTORUN set: at most one job per
 * (identity, firmware), ever. firmware NULL is stored as "" (none reported). */
typedef enum DbAutorunState {
        DB_AUTORUN_NONE,        /* no row */
        DB_AUTORUN_WAITING,     /* recorded, no job yet */
        DB_AUTORUN_QUEUED,      /* its job was queued: never again */
} DbAutorunState;

/* The row of (identity, firmware): its state, and (may be NULL) its id and job (0: none). */
int db_autorun_get(Db *db, const char *identity, const char *firmware, DbAutorunState *ret_state,
                   int64_t *ret_id, uint64_t *ret_job);
/* Records (identity, firmware) as waiting if it has no row yet (an existing row is kept as it
 * is, its profile and device name updated while it waits). *ret_id is the row's id. */
int db_autorun_add(Db *db, const char *identity, const char *firmware, const char *profile,
                   const char *device_name, uint64_t now_usec, int64_t *ret_id);
/* Why a waiting row has no job (NULL clears it): 1 when that is not what it said already, 0 when
 * it is (so a caller can say a reason once, not at every change event); -ENOENT for an unknown
 * id. */
int db_autorun_set_reason(Db *db, int64_t id, const char *reason);
/* In one transaction: inserts the job (as db_job_insert()) and marks the waiting row autorun_id
 * queued with it. -EALREADY (nothing inserted) when the row is not waiting: another job was
 * queued for it already. */
int db_job_insert_autorun(Db *db, const DbJob *job, int64_t autorun_id, uint64_t *ret_id);

/* ---- removals of job files under way (schema/0012-pending-removals.sql, 0016; store/db-removals.c)
 * Written before a removal of .benchd-<job>-* starts and deleted once it has finished, so that a
 * benchd that dies meanwhile removes them at its next start. step -1: all the job's steps. uid: the
 * user the removal runs as, whose files it takes (the one the job's steps ran as). */
typedef struct DbRemoval {
        uint64_t job_id;
        int step;
        const char *target;
        uint32_t uid;
} DbRemoval;

/* Records the removal (again: its since_usec and uid are kept). */
int db_removal_begin(Db *db, const DbRemoval *r, uint64_t now_usec);
/* The removal has finished: its row goes, and with step -1 every row of the job in target. */
int db_removal_end(Db *db, const DbRemoval *r);
/* Every row, oldest first; cb's negative return stops and is returned. */
int db_removal_foreach(Db *db, int (*cb)(const DbRemoval *r, void *userdata), void *userdata);

/* ---- ScratchDevices= bindings (schema/0014-scratch-bindings.sql; store/db-scratch.c) ----
 * A path in ScratchDevices= (spelling: /dev/sdb, /dev/disk/by-id/...) is bound to the identity of
 * the device it named when benchd first saw it, for as long as benchd.conf keeps the modification
 * time it had then (conf_mtime_nsec). */

/* 1 with the identity spelling was bound to while benchd.conf had conf_mtime_nsec, 0 when it was
 * not (never, or under another modification time). */
int db_scratch_binding_get(Db *db, const char *spelling, int64_t conf_mtime_nsec, char **ret_identity);
/* Records (or replaces) the binding. */
int db_scratch_binding_set(Db *db, const char *spelling, const char *identity, int64_t conf_mtime_nsec,
                           uint64_t now_usec);

/* ---- pruning: samples of old runs go, everything else stays (db-prune.c) ----
 * In bounded steps, so the daemon's event loop stays responsive: each step is one transaction. */
typedef struct DbPrune {
        uint64_t before_usec;   /* the samples of runs that started before this (and are not running) */
        /* Progress, zero at first: where the next step looks, and what went so far. */
        uint64_t from_usec;
        uint64_t last_run;
        uint64_t runs;          /* runs that had samples and lost them */
        uint64_t samples;       /* samples removed */
} DbPrune;

/* Removes at most max_samples (> 0) samples. 1 when there may be more to remove, 0 when the prune
 * is done, or -errno (nothing of the step removed). Never touches runs, histograms, phases,
 * positions or anything else. */
int db_prune_step(Db *db, DbPrune *p, uint64_t max_samples);
/* Gives at most max_pages free pages back to the filesystem (PRAGMA incremental_vacuum), and when
 * none are left lets a checkpoint shrink the file. 1 when free pages remain, 0 when none do (or the
 * file has no incremental auto-vacuum), or -errno. */
int db_vacuum_step(Db *db, uint64_t max_pages);

typedef struct DbFileStats {
        uint64_t page_size;
        uint64_t pages;         /* PRAGMA page_count */
        uint64_t free_pages;    /* PRAGMA freelist_count */
        int auto_vacuum;        /* 0 none, 1 full, 2 incremental */
} DbFileStats;
int db_file_stats(Db *db, DbFileStats *ret);

/* For tests and diagnostics: each statement the store prepares for one call (every query of
 * db-query.c, as it is built for the filter given) is first explained, and each row of its
 * EXPLAIN QUERY PLAN handed to hook with the statement's SQL. A negative return of hook fails
 * the call. NULL turns it off. */
typedef int (*DbExplainHook)(const char *sql, const char *detail, void *userdata);
void db_set_explain_hook(Db *db, DbExplainHook hook, void *userdata);

/* ---- queries, for the bus layer ----
 * Rows are handed out as generic named fields, so the bus layer can marshal a{sv} without knowing
 * SQLite. Column names are those of the schema (run_summary view for runs). */
typedef enum DbFieldType {
        DB_FIELD_NULL,
        DB_FIELD_INTEGER,
        DB_FIELD_REAL,
        DB_FIELD_TEXT,
} DbFieldType;

typedef struct DbField {
        const char *name;
        DbFieldType type;
        int64_t i;
        double d;
        const char *s;
} DbField;

typedef int (*DbRowCallback)(const DbField *fields, size_t n_fields, void *userdata);

typedef struct DbRunFilter {
        const char *device;      /* kernel name or device identity, NULL: any */
        const char *workload;
        const char *profile;
        const char *fs_type;
        const char *label;
        const char *tag;
        uint64_t job;            /* 0: any */
        uint64_t since_usec;     /* 0: any */
        uint64_t until_usec;     /* 0: any */
        const char *status;
        const char *fleet_uuid;  /* the runs of one fleet run (schema version 19), NULL: any */
        uint64_t limit;          /* 0: default 100; capped at 10000 */
        uint64_t offset;
} DbRunFilter;

/* Newest first. */
int db_query_runs(Db *db, const DbRunFilter *f, DbRowCallback cb, void *userdata);
/* -ENOENT when there is no such run. */
int db_get_run(Db *db, uint64_t run_id, DbRowCallback cb, void *userdata);
/* In t_ms order. -ENOENT when there is no such run. */
int db_get_samples(Db *db, uint64_t run_id, DbRowCallback cb, void *userdata);
/* The same for one page: the samples with t_ms >= from_ms, at most limit of them (0: none), in
 * t_ms order, so that a long run can be read in bounded pieces (from_ms of the next page: the
 * t_ms after the last one seen). Returns how many were handed to cb. */
int db_get_samples_page(Db *db, uint64_t run_id, uint64_t from_ms, uint64_t limit, DbRowCallback cb,
                        void *userdata);
/* The run's phases (run_phase_summary's columns) in seq order; none for most workloads. Returns
 * how many were handed to cb; -ENOENT when there is no such run. */
int db_get_run_phases(Db *db, uint64_t run_id, DbRowCallback cb, void *userdata);
/* The run's positions (run_position_summary's columns) in seq order; none but for the position
 * workload. Returns how many were handed to cb; -ENOENT when there is no such run. */
int db_get_run_positions(Db *db, uint64_t run_id, DbRowCallback cb, void *userdata);
/* (upper bound ns, count) in bucket order. -ENOENT when there is no such run. */
int db_get_histogram(Db *db, uint64_t run_id,
                     int (*cb)(uint64_t upper_ns, uint64_t count, void *userdata), void *userdata);

/* ---- compare (CompareRuns): groups of runs aggregated in SQL ----
 * Succeeded runs that match a filter, grouped by row (workload, block_size, queue_depth, jobs: what
 * must be equal for two runs to be comparable) and by a group key (by, one of DB_COMPARE_KEYS), one
 * cell per row and group. Each run is one observation of each figure it has. */
typedef enum DbFigure {
        DB_FIGURE_MIB_PER_S,    /* run_summary.mib_per_s */
        DB_FIGURE_IOPS,         /* iops */
        DB_FIGURE_OPS_PER_S,    /* ops_per_s (metadata) */
        DB_FIGURE_LAT_P50_NS,   /* lat_p50_ns */
        DB_FIGURE_LAT_P99_NS,   /* lat_p99_ns */
        _DB_FIGURE_MAX,
} DbFigure;

/* The run_summary column of a figure, which is also its name in CompareRuns' reply. */
const char *db_figure_to_string(DbFigure f);

/* What the runs of a cell say about one figure: how many had it, their mean, and m2, the sum of
 * squared deviations from that mean (computed in a second pass over the runs, not from a sum of
 * squares, so a small spread far from 0 survives). mean is NAN when n is 0. */
typedef struct DbFigureAggregate {
        uint64_t n;
        double mean;
        double m2;
} DbFigureAggregate;

typedef struct DbCompareCell {
        const char *workload;
        uint64_t block_size;
        uint64_t queue_depth;
        uint64_t jobs;
        const char *group;      /* the group key's value as text, "-" for runs without one */
        int64_t group_order;    /* by "matrix": matrix_entry, by "job": the job id; else -1 */
        uint64_t runs;
        uint64_t first_run;     /* the smallest run id: the order the groups were first run in */
        uint64_t round_runs;    /* how many of runs were made in rounds (runs.round not NULL) */
        DbFigureAggregate figures[_DB_FIGURE_MAX];
} DbCompareCell;

/* The runs of a cell made in one round of one job (a matrix in rounds), their figures averaged:
 * one member of a pair. */
typedef struct DbCompareRound {
        const char *workload;
        uint64_t block_size;
        uint64_t queue_depth;
        uint64_t jobs;
        const char *group;
        int64_t group_order;
        uint64_t job_id;
        uint64_t round;
        uint64_t runs;
        double figures[_DB_FIGURE_MAX];         /* NAN where no run has the figure */
} DbCompareRound;

/* The group keys, for messages and docs. */
#define DB_COMPARE_KEYS "fs_type, label, device, device_name, device_model, kernel, host, layout, " \
                        "matrix, profile, tags, job, mount_options, target"
bool db_compare_key_known(const char *by);

/* Calls cb once per cell, ordered by row and then group (group_order, then group). f's status must
 * be NULL or "succeeded" (only succeeded runs are compared) and its limit and offset are not used:
 * every matching run counts. -EINVAL for an unknown key or another status, with a message. Returns
 * the number of cells. */
int db_compare_runs(Db *db, const char *by, const DbRunFilter *f,
                    int (*cb)(const DbCompareCell *cell, void *userdata), void *userdata);
/* The same selection's runs made in rounds, once per cell, job and round, ordered by row, group,
 * job and round (the cells' order, then the pairs'). Returns how many. */
int db_compare_rounds(Db *db, const char *by, const DbRunFilter *f,
                      int (*cb)(const DbCompareRound *round, void *userdata), void *userdata);

/* ---- regressions (schema/0007-regressions.sql; store/db-regress.c) ---- */

/* One flag as stored, with the run's device and workload for messages. Strings valid during the
 * callback. */
typedef struct DbRegression {
        uint64_t id;
        uint64_t run_id;
        const char *metric;             /* mb_per_s, iops, ops_per_s, lat_p99_ns */
        double value;
        double baseline_median;
        double baseline_mad;            /* 1.4826 × MAD, floored */
        uint64_t baseline_n;
        double change_pct;
        uint64_t segment_started_usec;
        uint64_t detected_usec;
        const char *method;
        const char *workload;
        const char *device_identity;
        const char *device_name;        /* may be NULL */
} DbRegression;

/* At most this many comparable runs are walked back to find where a flagged run's baseline segment
 * started (only when something is flagged); beyond, the oldest walked is reported. */
#define DB_REGRESS_SEGMENT_SCAN_MAX 10000u

/* Checks the run's figures (its throughput, regress_main_metric(), and its p99 latency) against
 * its comparable history: succeeded runs before it with the same device identity, workload,
 * block_size, size, queue_depth, jobs, direct, sync, pattern, rwmix_read, fs_type and layout (NULL
 * matching NULL), the newest c->window + 1 of them, an index search on runs_series. The segment
 * key is the kernel and firmware of runs.environment. Stores the run's baseline_segment and the
 * flags in one transaction, then calls cb (may be NULL) for each flag stored. *ret_segment (may be
 * NULL) is the baseline_segment stored, NULL when the run is not checked: it did not succeed, has
 * no device identity or no duration. Returns the number of flags, -ENOENT for an unknown run,
 * -EINVAL for an invalid c. */
int db_regress_check(Db *db, uint64_t run_id, const RegressConfig *c, uint64_t now_usec,
                     int (*cb)(const DbRegression *g, void *userdata), void *userdata, const char **ret_segment);

typedef struct DbRegressionFilter {
        const char *device;      /* kernel name or device identity, NULL: any */
        const char *workload;
        const char *metric;
        uint64_t run;            /* 0: any */
        uint64_t since_usec;     /* of the run's start; 0: any */
        uint64_t until_usec;
        uint64_t limit;          /* 0: default 100; capped at 10000 */
        uint64_t offset;
} DbRegressionFilter;

/* Flags with their run, newest run first: the regressions columns and started_usec, job_id,
 * workload, block_size, queue_depth, jobs, fs_type, layout, target, label, device_id, device_name,
 * device_identity, device_model of the run. f may be NULL. Returns how many were handed to cb. */
int db_query_regressions(Db *db, const DbRegressionFilter *f, DbRowCallback cb, void *userdata);

/* ---- the latest figures for Prometheus (store/db-metrics.c) ---- */

/* A series is what benchd exports to Prometheus as one label set: the succeeded runs measured on
 * this host (imported ones, with an origin_host, are their host's to export) of one device (devices.id; runs without one form one series per remaining key), workload, block_size,
 * queue_depth, jobs, fs_type and layout (NULL the same as ""). Its figures are those of its newest
 * run. Strings valid during the callback, never NULL (an unknown one is ""); a figure the run does
 * not have is NAN. */
typedef struct DbMetricSeries {
        uint64_t run_id;
        const char *device_identity;    /* devices.identity, "" without one */
        const char *device_name;        /* devices.last_name, else the run's device_name, else "" */
        const char *workload;
        uint64_t block_size;
        uint64_t queue_depth;
        uint64_t jobs;
        const char *fs_type;
        const char *layout;
        const char *profile;            /* the job's profile, "" for a workload job */
        uint64_t step;
        uint64_t started_usec;
        double bytes_per_second;        /* read + written */
        double iops;
        double lat_p50_seconds, lat_p99_seconds, lat_p999_seconds;
        double lat_count;               /* the I/Os the latencies are of (reads and writes) */
        double lat_sum_seconds;         /* their latencies added up: mean × count */
        double iowait_ratio;            /* 0..1 */
        double device_util_ratio;       /* 0..1 */
        bool regressed[_REGRESS_METRIC_MAX]; /* by RegressMetric: the run has that flag */
} DbMetricSeries;

/* At most this many series are exported, the newest ones (by their newest run's start). */
#define DB_METRICS_SERIES_MAX 1000u

/* Calls cb for the newest run of each series, newest first, at most limit (≤
 * DB_METRICS_SERIES_MAX) series: one grouped scan of the runs_series index. Returns how many. */
int db_metrics_latest(Db *db, unsigned limit, int (*cb)(const DbMetricSeries *s, void *userdata),
                      void *userdata);
/* A fleet run's all-hosts figures for Prometheus: the newest fleet step of each (workload,
 * block_size, queue_depth, jobs, fs_type) whose succeeded runs of at least two hosts are in this
 * history (gathered into it: benchctl gather or run -H ... --collect), summed over the interval
 * when every host was measuring (shared/fleet-interval.h), as benchctl show --fleet sums it. */
typedef struct DbFleetSeries {
        const char *fleet_uuid;
        uint64_t step;
        const char *workload;
        uint64_t block_size;
        uint64_t queue_depth;
        uint64_t jobs;
        const char *fs_type;            /* "" without one */
        uint64_t started_usec;          /* the newest of its runs' starts */
        uint64_t hosts;                 /* hosts in the sum (0: no common interval; no figures) */
        double bytes_per_second;        /* read + written, summed over the hosts */
        double iops;
} DbFleetSeries;

/* At most this many fleet series are exported, the newest. */
#define DB_METRICS_FLEET_SERIES_MAX 100u

/* Calls cb for each, newest first. Returns how many. */
int db_metrics_fleet(Db *db, int (*cb)(const DbFleetSeries *s, void *userdata), void *userdata);
/* The number of this host's runs (not imported) of each final status (succeeded, failed,
 * cancelled, interrupted), in that order, 0 for a status without runs. */
int db_metrics_run_counts(Db *db, uint64_t ret_counts[static 4]);

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The job spec (docs/DESIGN.md "Job spec"): one parsed, validated struct used by benchd (from the a{sv}
 * of SubmitJob and from the jobs table), by benchd-worker (from the daemon's text over the
 * socketpair, or its own command line) and by benchctl (--set key=value). Pure logic: no D-Bus,
 * no event loop, no filesystem access (target checks live in spec-check.h).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum Workload {
        WORKLOAD_READ,
        WORKLOAD_WRITE,
        WORKLOAD_RANDREAD,
        WORKLOAD_RANDWRITE,
        WORKLOAD_RANDRW,
        WORKLOAD_REWRITE,
        WORKLOAD_REREAD,
        WORKLOAD_BACKWARD_READ,
        WORKLOAD_STRIDE_READ,
        WORKLOAD_SEEKS,
        WORKLOAD_METADATA,
        WORKLOAD_PING,
        WORKLOAD_POSITION,      /* sequential reads at evenly spread offsets of a block device */
        WORKLOAD_PUTC,          /* bonnie++'s per-character write: one write(2) a character */
        WORKLOAD_GETC,          /* bonnie++'s per-character read: one read(2) a character */
        WORKLOAD_READ_MODIFY_WRITE, /* bonnie++'s Rewrite: each block read, changed and written back */
        _WORKLOAD_MAX,
        _WORKLOAD_INVALID = -22, /* -EINVAL */
} Workload;

const char *workload_to_string(Workload w);
Workload workload_from_string(const char *s);
/* True when the workload writes to its target (and so needs destructive=true on a device). */
bool workload_writes(Workload w);
/* True for the block workloads, which keep queue_depth I/Os in flight through an I/O engine (the
 * others make one system call after another: seeks, ping, metadata, the per-character tests,
 * read-modify-write). */
bool workload_queues_io(Workload w);
/* True when the workload reads data that must be laid out first. */
bool workload_reads(Workload w);
/* True when the workload needs its file laid out before the measured phase: the readers, and
 * rewrite (which writes over an existing file). */
bool workload_needs_layout(Workload w);
/* True when the workload can run on a directory (every workload that works on files): what each
 * filesystem of a matrix offers it. A workload of raw block devices only answers false. */
bool workload_on_directory(Workload w);
/* True for bonnie++'s per-character tests (putc, getc): one character per stdio call, buffered
 * through a FILE *, in a file of their own in a directory; block_size is 1 and every character
 * is an I/O. */
bool workload_per_char(Workload w);

/* How a filesystem matrix arranges its devices (docs/DESIGN.md "Job spec"): one filesystem on one
 * device, btrfs's own RAID profiles over all of them, md RAID or LVM under the filesystem. */
typedef enum Layout {
        LAYOUT_SINGLE,
        LAYOUT_RAID0,           /* btrfs -d raid0 -m raid0 */
        LAYOUT_RAID1,           /* btrfs -d raid1 -m raid1 */
        LAYOUT_RAID10,          /* btrfs -d raid10 -m raid10 */
        LAYOUT_MD_RAID0,        /* mdadm --level=0 under any filesystem */
        LAYOUT_MD_RAID1,
        LAYOUT_LVM,             /* one volume group over the devices, a linear logical volume per entry */
        LAYOUT_MD_RAID5,        /* mdadm --level=5 */
        LAYOUT_MD_RAID10,       /* mdadm --level=10 */
        LAYOUT_MD_RAID1_LVM,    /* md RAID1 over the devices, LVM on the array */
        _LAYOUT_MAX,
        _LAYOUT_INVALID = -22,
} Layout;

const char *layout_to_string(Layout l);
Layout layout_from_string(const char *s);
/* The fewest devices a layout can be made of. */
unsigned layout_devices_min(Layout l);
/* Whether the layout builds an md array (md-raid*, md-raid1+lvm), an LVM volume group (lvm,
 * md-raid1+lvm); the md level of an md layout (0, 1, 5, 10; -1 for others). */
bool layout_is_md(Layout l);
bool layout_is_lvm(Layout l);
int layout_md_level(Layout l);

/* How a new md array's members are brought in step (md_resync=): mdadm's initial resync, waited
 * for before the filesystem is made; or --assume-clean, none (RAID0 has none either way). */
typedef enum MdResync {
        MD_RESYNC_WAIT,
        MD_RESYNC_ASSUME_CLEAN,
        _MD_RESYNC_MAX,
        _MD_RESYNC_INVALID = -22,
} MdResync;

const char *md_resync_to_string(MdResync m);
MdResync md_resync_from_string(const char *s);

typedef enum SyncMode {
        SYNC_NONE,
        SYNC_END,  /* one fsync/fdatasync after the last write, inside the timed region (dd conv=fsync) */
        SYNC_EACH, /* after every write (dd oflag=dsync-like) */
        _SYNC_MODE_MAX,
} SyncMode;

/* How a file the worker creates gets its blocks (fio's fallocate=): all at once before the run,
 * or as the writes reach them, as dd, bonnie++ and iozone allocate theirs. */
typedef enum FallocateMode {
        FALLOCATE_NATIVE,  /* fallocate(2) the whole file first */
        FALLOCATE_NONE,    /* no preallocation: the writes allocate */
        _FALLOCATE_MODE_MAX,
} FallocateMode;

/* The I/O engine of the data workloads' loop (fio's ioengine=). auto is benchd's own choice. */
typedef enum IoEngineKind {
        IOENGINE_AUTO,          /* pread/pwrite at queue_depth 1, io_uring above */
        IOENGINE_SYNC,          /* pread/pwrite (fio's psync): depth 1 only */
        IOENGINE_IO_URING,
        IOENGINE_LIBAIO,        /* Linux AIO, io_submit/io_getevents (fio's libaio) */
        _IOENGINE_KIND_MAX,
} IoEngineKind;

const char *ioengine_kind_to_string(IoEngineKind k);

typedef enum SyncCall {
        SYNC_CALL_FSYNC,
        SYNC_CALL_FDATASYNC,
        _SYNC_CALL_MAX,
} SyncCall;

typedef enum PatternKind {
        PATTERN_RANDOM,       /* incompressible, refilled so dedupe cannot flatter */
        PATTERN_ZERO,
        PATTERN_COMPRESSIBLE, /* compress_pct percent of each block is zeros */
        PATTERN_DEV_ZERO,     /* zeros read(2) from /dev/zero before each write, as dd if=/dev/zero */
        _PATTERN_MAX,
} PatternKind;

/* What steady_state= watches (fio's ss=): the max deviation of IOPS or bandwidth from its mean over
 * the window, or the slope of its least-squares line. */
typedef enum SteadyStateKind {
        STEADY_STATE_NONE,
        STEADY_STATE_IOPS,              /* iops:PCT */
        STEADY_STATE_BW,                /* bw:PCT */
        STEADY_STATE_IOPS_SLOPE,        /* iops_slope:PCT */
        STEADY_STATE_BW_SLOPE,          /* bw_slope:PCT */
        _STEADY_STATE_KIND_MAX,
} SteadyStateKind;

/* Bounds: every resource a caller can make us hold is bounded. */
#define SPEC_BLOCK_SIZE_MIN     UINT64_C(512)
#define SPEC_BLOCK_SIZE_MAX     (UINT64_C(64) << 20)         /* 64 MiB */
#define SPEC_SIZE_MAX           (UINT64_C(16) << 40)         /* 16 TiB */
#define SPEC_RUNTIME_MS_MAX     (UINT64_C(7) * 24 * 3600 * 1000)
#define SPEC_QUEUE_DEPTH_MAX    1024u
#define SPEC_JOBS_MAX           64u
#define SPEC_SAMPLE_MS_MIN      100u
#define SPEC_SAMPLE_MS_MAX      60000u
#define SPEC_LABEL_MAX          256u
#define SPEC_FLEET_HOST_MAX     255u
#define SPEC_FLEET_TOLERANCE_MS_DEFAULT 50u
#define SPEC_FLEET_TOLERANCE_MS_MAX     60000u
#define SPEC_TAGS_MAX           32u
#define SPEC_TAG_LEN_MAX        64u
#define SPEC_PATH_MAX           4096u
#define SPEC_FILE_COUNT_MAX     (1u << 24)
#define SPEC_DIRS_MAX           65536u
#define SPEC_FILESYSTEMS_MAX    8u
#define SPEC_FS_NAME_MAX        16u
#define SPEC_DEVICES_MAX        16u
/* All device paths together: the spec's text must fit in one worker protocol frame. */
#define SPEC_DEVICES_BYTES_MAX  16384u
#define SPEC_MAP_ENTRIES_MAX    8u
#define SPEC_MAP_VALUE_MAX      1024u
#define SPEC_POSITIONS_MIN      2u
#define SPEC_POSITIONS_MAX      1000u
#define SPEC_PARTITIONS_MAX     16u
/* The smallest partition partitions= makes (each device's usable space / partitions). */
#define SPEC_PARTITION_SIZE_MIN (UINT64_C(16) << 20)
/* partitions=N on a device of size bytes with logical sectors of sector bytes: partition k (from 0)
 * starts at *ret_start + k × *ret_each and is *ret_each long, a whole number of MiB, the first at
 * 1 MiB, together as much as GPT's backup table at the end leaves. -ENOSPC when each would be
 * smaller than SPEC_PARTITION_SIZE_MIN, -EINVAL for n or sector out of range. */
int spec_partition_layout(uint64_t size, uint32_t sector, uint32_t n, uint64_t *ret_start, uint64_t *ret_each);
/* Repeats (stability): runs of one step, and percentages kept in thousandths ("2.5" is 2500). */
#define SPEC_REPEAT_MAX         100u
#define SPEC_STABLE_RUNS_MIN    3u                           /* until_stddev: at least this many runs */
#define SPEC_MILLI_PCT_MAX      100000u                      /* 100% */
#define SPEC_STEADY_WINDOW_MS_MIN 200u                       /* two samples at the shortest sample_ms */
#define SPEC_STEADY_WINDOW_MS_MAX (3600u * 1000u)            /* an hour */
/* queue_depth × block_size × jobs: the I/O buffers a step holds. Each bound alone is sane, their
 * product need not be; spec_finalize() refuses more, and the worker checks it again. */
#define SPEC_BUFFER_BYTES_MAX   (UINT64_C(2) << 30)          /* 2 GiB */

/* A string-to-string map (mkfs_options, mount_options: by filesystem name), sorted by key, each
 * key once. keys and values are n long (not NULL-terminated); all NULL when empty. */
typedef struct SpecMap {
        char **keys;
        char **values;
        size_t n;
} SpecMap;

/* The value of key in m, or NULL when m has no such entry. */
const char *spec_map_get(const SpecMap *m, const char *key);

typedef struct JobSpec {
        char *target;           /* absolute path: directory, regular file or block device node */
        char *profile;          /* NULL unless a profile was asked for */
        Workload workload;      /* _WORKLOAD_INVALID when a profile is used */
        uint64_t block_size;    /* bytes */
        uint64_t size;          /* bytes of the file or region per stream */
        uint64_t runtime_ms;    /* 0: size-bounded */
        uint64_t ramp_ms;       /* excluded from results */
        uint32_t queue_depth;
        uint32_t jobs;          /* parallel streams */
        bool direct;
        SyncMode sync;
        SyncCall sync_call;
        uint32_t rwmix_read;    /* percent of reads for randrw */
        PatternKind pattern;
        uint32_t compress_pct;  /* with PATTERN_COMPRESSIBLE */
        uint64_t stride;        /* bytes, for stride-read */
        uint32_t file_count;    /* metadata */
        uint64_t file_size_min;
        uint64_t file_size_max;
        uint32_t dirs;
        uint32_t sample_ms;
        char *label;
        char **tags;            /* NULL-terminated, may be NULL */
        bool destructive;
        /* A filesystem matrix: each filesystem is made on devices (in layout) and the workload or
         * profile runs on a directory of it. All NULL/empty for a plain job. After spec_finalize()
         * target is one of devices (the first unless given) and layout is set; _LAYOUT_INVALID
         * without filesystems. */
        char **filesystems;     /* NULL-terminated, may be NULL */
        SpecMap mkfs_options;   /* by filesystem: extra mkfs.<fs> arguments */
        SpecMap mount_options;  /* by filesystem: mount -o options */
        char **devices;         /* NULL-terminated, may be NULL */
        Layout layout;
        uint32_t positions;     /* position: offsets read, from the device's start to its end */
        /* Stability (docs/workloads.md "Repeats and steady state"). A step runs repeat times; with
         * until_stddev it runs again until the relative standard deviation of its main figure
         * (stability.h) over its runs is below until_stddev_milli / 1000 percent, at least
         * MAX(repeat, SPEC_STABLE_RUNS_MIN) and at most max_repeats times. */
        uint32_t repeat;
        uint32_t until_stddev_milli;    /* thousandths of a percent; 0: off */
        uint32_t max_repeats;
        /* A time-based step ends once its figure is steady over the last steady_state_window_ms of
         * samples: within steady_state_milli / 1000 percent of the window's mean (or its slope). */
        SteadyStateKind steady_state;   /* STEADY_STATE_NONE: off */
        uint32_t steady_state_milli;
        uint32_t steady_state_window_ms;
        FallocateMode fallocate;        /* files the worker creates */
        bool invalidate;                /* drop the file's pages before the measured phase */
        IoEngineKind ioengine;          /* the data loop's engine */
        bool refill_buffers;            /* every write's buffer regenerated whole (fio's refill_buffers) */
        /* A fleet run (docs/fleet.md): one uuid over every host's job, this host's name in it, and
         * how far this host's clock may be from benchctl's before the start is refused (0: unset,
         * SPEC_FLEET_TOLERANCE_MS_DEFAULT). A step of a job with fleet_uuid reports PHASE ready and
         * begins its measured phase only at the time Job.Start gives. */
        char *fleet_uuid;
        char *fleet_host;
        uint32_t fleet_clock_tolerance_ms;
        /* md and LVM layouts (docs/matrices.md "md RAID and LVM"): the words benchd passes to mdadm
         * --create and to pvcreate/vgcreate, the logical volume's size (0: the whole group), and
         * how the array's initial resync is handled. NULL/0 when not given. */
        char *md_options;
        char *lvm_options;
        uint64_t lv_size;
        MdResync md_resync;
        /* Partitions as a matrix dimension (docs/matrices.md "Partitions"): each device split into
         * partitions equal GPT partitions, every entry run on partition 1, ..., partitions in turn
         * (partition: the step's, set by the expansion; given with partitions, only that one). 0:
         * none. */
        uint32_t partitions;
        uint32_t partition;
        /* With a profile: only its steps whose block_size is one of these sizes (iozone -a's -y/-q,
         * or -r), as text ("4K", "64K"); the daemon narrows the profile's steps before a worker sees
         * them (profile_expand()). NULL: every step. */
        char **record_sizes;

        uint64_t set_mask;      /* bit (1 << SpecKey) for every key given explicitly */
        bool finalized;         /* spec_finalize() succeeded (and, with a workload, filled defaults);
                                 * cleared again by any spec_set*() */
} JobSpec;

/* The keys, in the order spec_to_text() writes them. */
typedef enum SpecKey {
        SPEC_KEY_TARGET,
        SPEC_KEY_PROFILE,
        SPEC_KEY_WORKLOAD,
        SPEC_KEY_BLOCK_SIZE,
        SPEC_KEY_SIZE,
        SPEC_KEY_RUNTIME_MS,
        SPEC_KEY_RAMP_MS,
        SPEC_KEY_QUEUE_DEPTH,
        SPEC_KEY_JOBS,
        SPEC_KEY_DIRECT,
        SPEC_KEY_SYNC,
        SPEC_KEY_RWMIX_READ,
        SPEC_KEY_PATTERN,
        SPEC_KEY_STRIDE,
        SPEC_KEY_FILE_COUNT,
        SPEC_KEY_FILE_SIZE_MIN,
        SPEC_KEY_FILE_SIZE_MAX,
        SPEC_KEY_DIRS,
        SPEC_KEY_SAMPLE_MS,
        SPEC_KEY_LABEL,
        SPEC_KEY_TAGS,
        SPEC_KEY_DESTRUCTIVE,
        SPEC_KEY_FILESYSTEMS,
        SPEC_KEY_MKFS_OPTIONS,
        SPEC_KEY_MOUNT_OPTIONS,
        SPEC_KEY_DEVICES,
        SPEC_KEY_LAYOUT,
        SPEC_KEY_POSITIONS,
        SPEC_KEY_REPEAT,
        SPEC_KEY_UNTIL_STDDEV,
        SPEC_KEY_MAX_REPEATS,
        SPEC_KEY_STEADY_STATE,
        SPEC_KEY_STEADY_STATE_WINDOW_MS,
        SPEC_KEY_FALLOCATE,
        SPEC_KEY_INVALIDATE,
        SPEC_KEY_IOENGINE,
        SPEC_KEY_REFILL_BUFFERS,
        SPEC_KEY_FLEET_UUID,
        SPEC_KEY_FLEET_HOST,
        SPEC_KEY_FLEET_CLOCK_TOLERANCE_MS,
        SPEC_KEY_MD_OPTIONS,
        SPEC_KEY_LVM_OPTIONS,
        SPEC_KEY_LV_SIZE,
        SPEC_KEY_MD_RESYNC,
        SPEC_KEY_PARTITIONS,
        SPEC_KEY_PARTITION,
        SPEC_KEY_RECORD_SIZES,
        _SPEC_KEY_MAX,
        _SPEC_KEY_INVALID = -22,
} SpecKey;

const char *spec_key_to_string(SpecKey k);
SpecKey spec_key_from_string(const char *s);

/* ---- the spec registry (spec-keys.c): every key declared once ---- */

typedef enum SpecKind {
        SPEC_KIND_STRING,       /* D-Bus s */
        SPEC_KIND_SIZE,         /* bytes: D-Bus t, or s with K/M/G/T ("32K") */
        SPEC_KIND_NUMBER,       /* D-Bus u/t, or s of decimal digits */
        SPEC_KIND_BOOL,         /* D-Bus b */
        SPEC_KIND_STRV,         /* D-Bus as; comma-separated in text; a char ** at offset */
        SPEC_KIND_MAP,          /* D-Bus a{ss}; a JSON object of strings; one "key.SUB=value" line per
                                 * entry in text; a SpecMap at offset */
        _SPEC_KIND_MAX,
} SpecKind;

/* Room for the text of a sync, pattern or workload value. */
#define SPEC_TEXT_MAX 32

/* One value of a key whose values are a fixed set (workload, layout, fallocate, ioengine,
 * md_resync): its name, the enum value the JobSpec field holds, and a few words on it for messages
 * and docs (NULL when the name says it). A key's list is the one place its values are written:
 * parsing, the text and JSON forms, the error text ("use one of ..."), benchctl's help and
 * completion and the generated docs all read it. Ends with a NULL name. */
typedef struct SpecChoice {
        const char *name;
        int value;
        const char *doc;
} SpecChoice;

typedef struct SpecKeyInfo {
        const char *name;
        SpecKind kind;
        bool optional;                  /* written only when it has a value (target, label, ...) */
        /* The daemon resolves the key before a worker runs the step: a matrix's filesystems,
         * devices, layout and their options (FS_SETUP carries what the worker needs of them), the
         * repeats of a step, a fleet's clock tolerance. spec_to_worker_text() leaves it out, and a
         * worker refuses a SPEC that carries it. */
        bool daemon_resolved;
        uint64_t min, max;              /* sizes and numbers, inclusive; strv and map keys: max items */
        size_t offset;                  /* of the value in JobSpec: numbers, booleans, plain strings,
                                         * string lists (char **), maps (SpecMap) */
        unsigned width;                 /* sizeof the field: 8 or 4 (numbers), 1 (booleans) */
        bool has_default;
        uint64_t default_value;         /* numbers and booleans, when has_default */
        void (*fill_default)(JobSpec *s); /* a default computed from other keys (the workload) */
        /* Strings with rules of their own: parse the text into s; write it back (NULL: the char *
         * at offset). */
        int (*parse)(JobSpec *s, const char *value, char **reterr);
        const char *(*text)(const JobSpec *s, char buf[static SPEC_TEXT_MAX]);
        /* String lists: one item (maps: one key), -EINVAL with a message naming the key; what an
         * item is called in messages ("tag": "'a' is given twice; give each tag once"). */
        int (*check_item)(const char *key, const char *item, char **reterr);
        /* Maps: the value of one entry, after the generic checks (one printable line, bounded). */
        int (*check_value)(const char *key, const char *sub, const char *value, char **reterr);
        /* Keys whose values are a fixed set: the set; the field at offset is an enum (an int). Parsed
         * and written from the list unless parse or text say otherwise. item names a value in
         * messages ("'x' is not a workload"). */
        const SpecChoice *choices;
        const char *item;
        const char *unit;               /* "bytes", "ms", "%", or NULL */
        const char *default_text;       /* the default as `benchctl help spec` shows it, or NULL */
        const char *runs_column;        /* the runs column that records the value, or NULL */
        const char *doc;                /* one line; a key with choices: without them (spec_key_doc()) */
} SpecKeyInfo;

extern const SpecKeyInfo spec_key_table[_SPEC_KEY_MAX];
const SpecKeyInfo *spec_key_info(SpecKey k);
/* "string", "size", "number", "boolean", "strings", "map". */
const char *spec_kind_to_string(SpecKind kind);
/* What D-Bus types a key of this kind accepts, for messages: "'b' (boolean)". */
const char *spec_kind_bus_types(SpecKind kind);
/* "32K" when exact, else plain bytes; always readable back by parse_size(). */
const char *spec_size_text(uint64_t v, char buf[static 32]);
/* The value of a size, number or boolean key of s (0 for other keys). */
uint64_t spec_number_of(const JobSpec *s, SpecKey k);
/* fleet_clock_tolerance_ms, or its default when unset. */
static inline uint32_t spec_fleet_tolerance_ms(const JobSpec *s) {
        return s->fleet_clock_tolerance_ms > 0 ? s->fleet_clock_tolerance_ms : SPEC_FLEET_TOLERANCE_MS_DEFAULT;
}
/* The text of a string key's value as the text form writes it ("end:fsync", "randread"), or NULL
 * when it has none (and for keys of other kinds). */
const char *spec_string_of(const JobSpec *s, SpecKey k, char buf[static SPEC_TEXT_MAX]);
/* The list of a strv key (NULL for other keys, or none), the map of a map key (NULL for others). */
char **spec_strv_of(const JobSpec *s, SpecKey k);
const SpecMap *spec_map_of(const JobSpec *s, SpecKey k);
/* The choice of key k named name, or NULL (also for keys without choices). */
const SpecChoice *spec_choice_by_name(SpecKey k, const char *name);
/* The name of value in the choices of key k, or NULL. */
const char *spec_choice_name(SpecKey k, int value);
/* The choices of key k as messages and docs list them: "auto (pread/pwrite at queue_depth 1,
 * io_uring above), sync, io_uring or libaio"; NULL without choices or memory. Free it. */
char *spec_choices_text(SpecKey k);
/* The key's documentation with its choices: "doc: CHOICES" (the doc alone without choices). NULL
 * without memory. Free it. */
char *spec_key_doc(SpecKey k);
/* The "unknown key" message, with a did-you-mean and the known keys, into *reterr; -EINVAL. */
int spec_fail_unknown_key(const char *key, char **reterr);

/* A typed value as it arrives from D-Bus (or JSON). Strings are always accepted for numbers and
 * sizes ("32K"); integers of any D-Bus width arrive as SPEC_VALUE_INT or SPEC_VALUE_UINT. */
typedef enum SpecValueType {
        SPEC_VALUE_STRING,
        SPEC_VALUE_INT,
        SPEC_VALUE_UINT,
        SPEC_VALUE_BOOL,
        SPEC_VALUE_STRV,
        SPEC_VALUE_MAP,
} SpecValueType;

typedef struct SpecValue {
        SpecValueType type;
        union {
                const char *s;
                int64_t i;
                uint64_t u;
                bool b;
                char *const *strv; /* NULL-terminated */
                struct {
                        char *const *keys;
                        char *const *values;
                        size_t n;
                } map;
        };
} SpecValue;

void spec_init(JobSpec *s);   /* all unset, workload invalid */
void spec_clear(JobSpec *s);  /* frees owned strings, leaves an initialised spec */
/* Clears and frees an array of n specs (a job's steps); NULL is fine. */
void spec_array_free(JobSpec *steps, size_t n);
/* Deep copy into an uninitialised *ret. */
int spec_copy(const JobSpec *s, JobSpec *ret);
/* Sets on dst every key given explicitly in src (profile step expansion: step keys, then the
 * caller's --set keys on top). */
int spec_apply(JobSpec *dst, const JobSpec *src);
/* Same values for every key (set_mask and finalized are not compared). */
bool spec_equal(const JobSpec *a, const JobSpec *b);

/* Set one key. On failure returns -EINVAL and, if reterr, a malloc'd message naming the key, what
 * was wrong and what would be right ("block_size: 'abc' is not a size; use bytes or a number with
 * K, M, G or T, e.g. 32K"). Unknown keys fail the same way, listing nothing sensitive. */
int spec_set(JobSpec *s, const char *key, const SpecValue *v, char **reterr);
/* The same for "key" and a textual value (benchctl --set, the worker protocol, profile files). */
int spec_set_from_string(JobSpec *s, const char *key, const char *value, char **reterr);
/* Parses "key=value" (one assignment). A map key takes one entry: "mkfs_options.ext4=-E ...", which
 * adds it or replaces the value of that sub-key; spec_set_from_string() takes "mkfs_options.ext4"
 * as its key the same way. */
int spec_set_assignment(JobSpec *s, const char *assignment, char **reterr);

/* Fill defaults for unset keys and check cross-field rules (target given and absolute, workload
 * xor profile, size >= block_size, alignment of sizes to 512 for direct I/O, ramp < runtime, ...).
 * For a filesystem matrix also: devices from target or target from devices, destructive=true, a
 * layout the filesystems and the number of devices allow, map entries only for filesystems given.
 * Pure: no filesystem access (spec_check_matrix() looks at the system). -EINVAL with a message on
 * failure. */
int spec_finalize(JobSpec *s, char **reterr);

/* "key=value\n" for every key (after finalize); spec_set_assignment() reads it back exactly.
 * Keys without a value are left out: profile/label/tags/matrix keys when unset, and, for a profile spec or a
 * spec not yet finalized, every key not given explicitly. The same rule holds for spec_to_json(). */
int spec_to_text(const JobSpec *s, char **ret);
/* The text of one step as a worker runs it (the worker protocol's SPEC): spec_to_text() without the
 * keys the daemon resolves (SpecKeyInfo.daemon_resolved); for a step of a filesystem matrix also
 * without target and destructive, as the worker runs it on a directory of the filesystem FS_SETUP
 * describes. A SPEC without target is a filesystem step's (daemon/shared/proto.h). */
int spec_to_worker_text(const JobSpec *s, char **ret);
/* The key the daemon resolves that s has a value of, or _SPEC_KEY_INVALID: what a worker refuses. */
SpecKey spec_daemon_key(const JobSpec *s);
/* A JSON object of every key (sizes as integers, string lists as arrays, maps as objects), for the
 * jobs table and --json. */
int spec_to_json(const JobSpec *s, char **ret);
/* Reads spec_to_json() output back (restart of queued jobs). -EINVAL with message on failure. */
int spec_from_json(JobSpec *s, const char *json, char **reterr);
/* The text form of sync ("none", "end:fsync", ...) and pattern ("random", "compressible:50", ...), as
 * spec_to_text() writes them (spec-format.c). */
void spec_sync_text(const JobSpec *s, char buf[static 32]);
void spec_pattern_text(const JobSpec *s, char buf[static 32]);
/* "5", "2.5", "0.001": thousandths of a percent as until_stddev and steady_state write them. */
void spec_milli_text(uint32_t milli, char buf[static 32]);
/* "iops", "bw", "iops_slope", "bw_slope"; NULL for none. */
const char *steady_state_kind_to_string(SteadyStateKind k);

/* The mkfs options of filesystem fs as mkfs.<fs> would read them (spec-mkfs.c): 0, or -EINVAL with
 * a message "mkfs_options.<fs>: <the option as written> <why>; <what would be right>" for an option
 * that reads or writes a path of the host (a directory copied in, a bad-block list, an undo file, a
 * protofile, a configuration file), puts part of the filesystem on another device (an external
 * journal, log, realtime or data device), runs another program, or forces mkfs; for a word that
 * is not an option (mkfs would take it for a device); for an option whose value is missing; and
 * for any options of a filesystem whose mkfs benchd has no list for (only ext2, ext3, ext4, btrfs
 * and xfs have one). -ENOMEM. */
int spec_mkfs_options_check(const char *fs, const char *options, char **reterr);
/* md_options and lvm_options (spec-matrix.c): only the words benchd passes on, each checked; -EINVAL
 * with a message naming the word and what would do. lvm_options also gives the extent size
 * (--physicalextentsize, else LVM's 4 MiB), when ret_extent is not NULL. */
int spec_md_options_check(const char *value, char **reterr);
int spec_lvm_options_check(const char *value, uint64_t *ret_extent, char **reterr);

/* The sizes of record_sizes (parse_size() of each item), in the order given; *ret_n 0 and *ret NULL
 * without the key. -ENOMEM; -EINVAL for an item that is not a size (spec_set() refuses those). */
int spec_record_sizes(const JobSpec *s, uint64_t **ret, size_t *ret_n);

/* Parse "4096", "32K", "1M", "2G", "1T" (powers of two; an optional "iB" or "B" suffix; case
 * insensitive). -EINVAL for garbage or negative numbers, -ERANGE for overflow. */
int parse_size(const char *s, uint64_t *ret);

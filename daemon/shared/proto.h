/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The benchd <-> benchd-worker protocol on a SOCK_STREAM socketpair; frames are delimited by us.
 * Versioned and framed; the daemon treats every frame as untrusted: bounded sizes, exact payload
 * lengths, validated fields. What a decoded frame says must then also be plausible for the step
 * (proto-plausible.h: against the spec, the clock and the frames before it).
 *
 * The worker's records (SAMPLE, PHASE_RESULT, POSITION_RESULT, STEADY_STATE) are each described
 * once, field by field, in proto-record.c (proto-record.h); their encoders and decoders below
 * follow that description.
 *
 * Frame: 16-byte header, all integers little-endian:
 *   u32 magic "BNCH" (0x48434e42), u16 version, u16 type, u32 payload length, u32 reserved (0)
 * followed by the payload. Payloads are fixed sequences of little-endian fields (doubles as IEEE
 * 754 bit patterns), strings as u32 length + bytes (no NUL), so no struct layout crosses the wire.
 *
 * Conversation:
 *   worker -> HELLO(version, pid)
 *   daemon -> SPEC(job id, step, spec text as written by spec_to_worker_text(), target guard): the
 *             step narrowed, without the keys benchd resolves (the spec registry's daemon_resolved:
 *             a matrix's filesystems, devices, layout and options, the repeats), which the worker
 *             refuses
 *   daemon -> FS_SETUP (only for a step of a filesystem matrix, whose spec text has no target: the
 *             step runs on a directory of the filesystem FS_SETUP describes; right after the SPEC)
 *   worker -> FS_INFO (exactly once when FS_SETUP came, after the filesystem is mounted and before
 *             the first PHASE; not at all when preparing it failed: then ERROR)
 *   worker -> PHASE("layout"|"ramp"|"measure"|"cleanup")*, SAMPLE*, LOG*, PHASE_RESULT* (each of
 *             the metadata workload's create-seq, stat-seq, ... as it ends), POSITION_RESULT*
 *             (each of the position workload's offsets, in order, as it ends), STEADY_STATE (at most
 *             once, only when the spec asked for steady_state: the step is steady and ends now), then
 *             HISTOGRAM (zero or more, sparse buckets) and RESULT, or ERROR; then exits.
 *   worker -> FS_RELEASED (at most once, only when FS_SETUP asked for md_release or an LVM layout,
 *             after FS_INFO, once the filesystem is unmounted, the volume group deactivated (and
 *             removed) and the md array stopped, before HISTOGRAM and RESULT or ERROR: what
 *             deactivated and removed the group, then what cleared the members' md superblocks)
 *   A fleet step (its spec text has a "fleet_uuid=" line) prepares, sends PHASE("ready") after
 *   layout and ramp (its streams still running when it had a ramp), and waits:
 *   daemon -> START(start_usec), sent when the CLOCK_REALTIME timer Job.Start armed fires; the
 *             worker begins its measured phase (PHASE("measure")) when it reads it.
 *
 * PHASE_RESULT (type 9), FS_SETUP (10), FS_INFO (11), POSITION_RESULT (12), STEADY_STATE (13), START (14),
 * FS_RELEASED (15) and FS_SETUP's md_release,
 * PHASE ready, SPEC's trailing guard and
 * RESULT's fields after device (CPU time, device counters, served) were added without
 * a version bump: the daemon treats an unknown frame type as a violation and the worker a SPEC of
 * the wrong length, so benchd and benchd-worker ship (and are installed) together.
 *
 * A filesystem step (FS_SETUP): in a private mount namespace of its own the worker claims every
 * member (O_EXCL), checks it is the device benchd checked (dev_t, diskseq), and at stage MAKE wipes
 * it (refused unless it is blank, scratch, or carries exactly the filesystem of an earlier entry of
 * the job that expect_uuid names) and runs mkfs in a sandbox; at stage MOUNT it checks
 * the members carry the filesystem an earlier step of the job made (its type and UUID). It mounts
 * the filesystem there, reports FS_INFO, runs the SPEC's workload on a directory of it and
 * unmounts. With partitions (version 2) the members are whole devices: at MAKE the worker writes a
 * GPT of that many equal partitions on each (sfdisk), at MOUNT it finds that table; either way it
 * adds the partitions to the kernel, makes or mounts the filesystem on partition `partition` of
 * each member, and deletes them from the kernel at the end. FS_INFO lists every command it ran
 * (version 2). The SPEC's own target and guard do not apply: the SPEC carries guard kind
 * PROTO_GUARD_NONE (anything else is refused with EINVAL), each member its own dev_t and diskseq.
 *
 * A worker that refuses to touch its target on safety grounds (the guard does not match, the
 * device is in use or carries a signature) sends ERROR with error = EPERM (PROTO_ERROR_UNSAFE); the
 * daemon reports it as org.benchd.Benchd1.Error.Unsafe.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "histogram.h"

#define PROTO_MAGIC UINT32_C(0x48434e42)
#define PROTO_VERSION 2         /* 2: FS_SETUP's partitions, md array and volume group, FS_INFO's commands
                                 * and layout */
#define PROTO_HEADER_SIZE 16
#define PROTO_MAX_PAYLOAD (256u * 1024u)
#define PROTO_STRING_MAX 4096u
#define PROTO_SPEC_MAX (64u * 1024u)
#define PROTO_HISTOGRAM_MAX_ENTRIES ((PROTO_MAX_PAYLOAD - 4u) / 12u)

typedef enum ProtoType {
        PROTO_HELLO = 1,
        PROTO_SPEC = 2,
        PROTO_PHASE = 3,
        PROTO_SAMPLE = 4,
        PROTO_HISTOGRAM = 5,
        PROTO_RESULT = 6,
        PROTO_ERROR = 7,
        PROTO_LOG = 8,
        PROTO_PHASE_RESULT = 9,
        PROTO_FS_SETUP = 10,
        PROTO_FS_INFO = 11,
        PROTO_POSITION_RESULT = 12,
        PROTO_STEADY_STATE = 13,
        PROTO_START = 14,
        PROTO_FS_RELEASED = 15,
        _PROTO_TYPE_MAX,
} ProtoType;

typedef struct ProtoHello {
        uint32_t version;
        uint32_t pid;
} ProtoHello;

#define PROTO_ERROR_UNSAFE EPERM

/* What the daemon verified about the target at step start, for the worker to verify again on what
 * it opens: the same object (kind, dev+inode or dev_t+diskseq), and for a block device whether it
 * is marked scratch (signatures may then be overwritten). kind 0: no guard (standalone runs). */
typedef enum ProtoGuardKind {
        PROTO_GUARD_NONE = 0,
        PROTO_GUARD_DIRECTORY = 1,
        PROTO_GUARD_FILE = 2,
        PROTO_GUARD_BLOCK = 3,
        _PROTO_GUARD_KIND_MAX,
} ProtoGuardKind;

#define PROTO_GUARD_SCRATCH UINT32_C(1)

typedef struct ProtoGuard {
        uint32_t kind;          /* ProtoGuardKind */
        uint32_t flags;         /* PROTO_GUARD_SCRATCH */
        uint64_t dev;           /* st_dev (directory, file) or st_rdev (block), as from makedev() */
        uint64_t ino;           /* directory, file */
        uint64_t diskseq;       /* block; 0: unknown */
} ProtoGuard;

typedef struct ProtoSpec {
        uint64_t job_id;
        uint32_t step;
        char *text; /* owned after decode */
        ProtoGuard guard;
} ProtoSpec;

/* One measurement interval. t_ms is the end of the interval, in ms since the measured phase
 * began (ramp excluded); percentages are 0..100 and finite. */
typedef struct ProtoSample {
        uint64_t t_ms;
        uint64_t interval_us;
        uint64_t bytes_read;
        uint64_t bytes_written;
        uint64_t ios_read;
        uint64_t ios_written;
        uint64_t ops;            /* metadata operations */
        uint64_t lat_mean_ns;
        uint64_t lat_p50_ns;
        uint64_t lat_p99_ns;
        uint64_t lat_max_ns;
        double iowait_pct;
        double cpu_user_pct;
        double cpu_sys_pct;
        double dev_util_pct;     /* -1 when no backing device was found */
        double dev_queue;        /* average queue size, -1 when unknown */
        double progress;         /* 0..1 of this step */
} ProtoSample;

typedef struct ProtoHistogramEntry {
        uint32_t index; /* < HISTOGRAM_BUCKETS */
        uint64_t count;
} ProtoHistogramEntry;

typedef struct ProtoHistogram {
        uint32_t n_entries;
        ProtoHistogramEntry *entries; /* owned after decode */
} ProtoHistogram;

typedef struct ProtoResult {
        uint64_t started_usec;   /* CLOCK_REALTIME at the start of the measured phase */
        uint64_t duration_usec;  /* of the measured phase */
        uint64_t bytes_read;
        uint64_t bytes_written;
        uint64_t ios_read;
        uint64_t ios_written;
        uint64_t ops;
        uint64_t lat_min_ns;
        uint64_t lat_mean_ns;
        uint64_t lat_stddev_ns;
        uint64_t lat_p50_ns;
        uint64_t lat_p90_ns;
        uint64_t lat_p95_ns;
        uint64_t lat_p99_ns;
        uint64_t lat_p999_ns;
        uint64_t lat_p9999_ns;
        uint64_t lat_max_ns;
        double iowait_pct;
        double cpu_user_pct;
        double cpu_sys_pct;
        double dev_util_pct;     /* -1 when unknown */
        char *device;            /* kernel name of the device sampled for util, "" if none; owned */
        /* After device on the wire (added without a version bump, as the frame types below). */
        uint64_t process_user_usec;     /* CPU time of the worker and its stream processes in the */
        uint64_t process_sys_usec;      /* measured phase (getrusage): bonnie++'s %CP */
        uint64_t device_bytes_read;     /* what the target's devices' own counters saw in the */
        uint64_t device_bytes_written;  /* measured phase, summed over them */
        uint64_t backing_bytes_read;    /* the same for the disks under the backing files of the */
        uint64_t backing_bytes_written; /* loop devices among them */
        uint32_t counters;              /* PROTO_COUNTERS_*: which of those counts are known (the
                                         * wire has it before them) */
        uint32_t served;                /* ServedFrom (served.h) of the above */
} ProtoResult;

#define PROTO_COUNTERS_DEVICE   UINT32_C(1)
#define PROTO_COUNTERS_BACKING  UINT32_C(2)

typedef struct ProtoError {
        int32_t error;           /* positive errno */
        char *message;           /* owned */
} ProtoError;

typedef struct ProtoText {       /* PHASE and LOG */
        uint32_t level;          /* LOG: syslog priority; PHASE: 0 */
        char *text;              /* owned */
} ProtoText;

/* The figures of one of a workload's own phases (metadata: create-seq, stat-seq, delete-seq,
 * create-rand, stat-rand, delete-rand). The name is 1..PROTO_PHASE_NAME_MAX of [a-z-]; every
 * number is at most INT64_MAX (it is stored in SQLite); with ops > 0 the latencies are ordered
 * min <= p50 <= p99 <= max and min <= mean <= max, with ops == 0 they are all 0. */
#define PROTO_PHASE_NAME_MAX 31u

typedef struct ProtoPhaseResult {
        char name[PROTO_PHASE_NAME_MAX + 1];
        uint64_t ops;
        uint64_t duration_usec;
        uint64_t lat_min_ns;
        uint64_t lat_mean_ns;
        uint64_t lat_p50_ns;
        uint64_t lat_p99_ns;
        uint64_t lat_max_ns;
} ProtoPhaseResult;

/* The figures of one offset of the position workload: size bytes (or fewer, when the device is
 * short of positions × size) read sequentially from offset_bytes. Every number is at most INT64_MAX
 * (it is stored in SQLite); with bytes > 0, lat_mean_ns <= lat_max_ns; with bytes == 0 both are 0. */
typedef struct ProtoPositionResult {
        uint32_t index;          /* 0 .. positions - 1 */
        uint64_t offset_bytes;
        uint64_t bytes;
        uint64_t duration_usec;  /* from the first read queued to the last completed */
        uint64_t lat_mean_ns;
        uint64_t lat_max_ns;
} ProtoPositionResult;

/* The step's figure met its steady_state criterion over the window that the SAMPLE ending at t_ms
 * completed (t_ms is that sample's, ms since the measured phase began); the worker ends the
 * measured phase there. t_ms is at most INT64_MAX / 1000 (it is stored in usec). */
typedef struct ProtoSteadyState {
        uint64_t t_ms;
} ProtoSteadyState;

/* A fleet step's start (daemon -> worker): the wall-clock time (CLOCK_REALTIME, usec) its measured
 * phase was to begin at, on this host's clock; the daemon sends it when that time has come. */
typedef struct ProtoStart {
        uint64_t start_usec;
} ProtoStart;

/* One of the worker's records (SAMPLE, PHASE_RESULT, POSITION_RESULT, STEADY_STATE), tagged by its
 * description (proto-record.h), which says which member is set. Nothing in it is owned. */
typedef struct ProtoRecordDesc ProtoRecordDesc;

typedef struct ProtoRecord {
        const ProtoRecordDesc *desc;
        union {
                ProtoSample sample;
                ProtoPhaseResult phase_result;
                ProtoPositionResult position_result;
                ProtoSteadyState steady_state;
        };
} ProtoRecord;

/* ---- filesystem matrix steps ---- */

#define PROTO_FS_TYPE_MAX 16u           /* fs_type: 1..16 of [a-z0-9] ("ext4", "xfs", "btrfs") */
#define PROTO_FS_OPTIONS_MAX 1024u      /* mkfs_options, mount_options: no control characters */
#define PROTO_FS_UUID_MAX 64u           /* of [0-9A-Za-z-] */
#define PROTO_FS_PATH_MAX 1024u         /* a member's path: absolute, no control characters */
#define PROTO_FS_MEMBERS_MAX 16u
#define PROTO_FS_OUTPUT_MAX 4096u       /* FS_INFO's mkfs_output, and each command's output */
#define PROTO_FS_COMMANDS_MAX 8u        /* FS_INFO's commands */
#define PROTO_FS_PARTITIONS_MAX 16u     /* FS_SETUP's partitions */
#define PROTO_FS_MD_NAME_MAX 32u        /* md_name: "benchd-JOB-ENTRY" */
#define PROTO_FS_LAYOUT_COMMANDS_MAX 16384u /* FS_INFO's layout_commands (a JSON array) */

/* How the worker brings a new md array's members in step (md_resync=, spec.h's MdResync). */
typedef enum ProtoMdResync {
        PROTO_MD_RESYNC_WAIT = 0,       /* mdadm's initial resync, waited for before mkfs */
        PROTO_MD_RESYNC_ASSUME_CLEAN = 1, /* mdadm --assume-clean: none */
} ProtoMdResync;

typedef enum ProtoFsStage {
        PROTO_FS_STAGE_MAKE = 1,        /* wipe, mkfs, mount */
        PROTO_FS_STAGE_MOUNT = 2,       /* mount what an earlier step of the job made */
} ProtoFsStage;

/* A device the filesystem is made on, as benchd checked it at step start. */
typedef struct ProtoFsMember {
        char *path;             /* the node benchd resolved, e.g. /dev/loop3 */
        uint64_t dev;           /* st_rdev, as from makedev(); not 0, each member another */
        uint64_t diskseq;       /* 0: unknown */
        uint32_t flags;         /* PROTO_GUARD_SCRATCH: its signatures may be wiped */
} ProtoFsMember;

/* Layouts: "single"; for btrfs also "raid0", "raid1", "raid10" (data and metadata). Any other
 * filesystem takes exactly one member, or, over an md array the worker builds from them, the md
 * layouts "md-raid0", "md-raid1", "md-raid5", "md-raid10" two or more (any filesystem). */
typedef struct ProtoFsSetup {
        uint32_t stage;         /* ProtoFsStage */
        char *fs_type;
        char *layout;
        char *mkfs_options;     /* raw text, split on blanks (no quoting); may be "" */
        char *mount_options;    /* mount(2) data; may be "" */
        char *expect_uuid;      /* MOUNT: the UUID FS_INFO reported at MAKE, not ""; MAKE: "", or the
                                 * filesystem an earlier entry of the job made on the members, which
                                 * they may carry (and which is wiped) although not scratch */
        uint32_t n_members;     /* 1..PROTO_FS_MEMBERS_MAX */
        ProtoFsMember *members;
        uint32_t partitions;    /* 0: the members themselves; 1..PROTO_FS_PARTITIONS_MAX: at MAKE each
                                 * member gets a GPT of that many equal partitions (sfdisk), and the
                                 * filesystem is made on partition `partition` of each */
        uint32_t partition;     /* 0 when partitions is 0, else 1..partitions */
        /* The md layouts (layout "md-raid0", "md-raid1", "md-raid5", "md-raid10"): the array's name,
         * "benchd-JOB-ENTRY" (its homehost is "benchd"); NULL or "" for the other layouts. */
        char *md_name;
        char *md_options;       /* the job's md_options (spec-matrix.c checked them); NULL or "" */
        uint32_t md_resync;     /* ProtoMdResync */
        /* 1: the entry's last step (md layouts and md-raid1+lvm, there with layout_flags
         * PROTO_FS_LAYOUT_REMOVE, after the group's removal): once the array is stopped at the end, the
         * worker clears the members' md superblocks (mdadm --zero-superblock, in its sandbox) and
         * reports it in FS_RELEASED, so that nothing on the host assembles the array again. 0: the
         * entry's later steps assemble it from them. */
        uint32_t md_release;
        /* The LVM layouts ("lvm", "md-raid1+lvm"; layout-lvm.h): md_name is the volume group's name
         * too, "benchd-JOB-ENTRY" (its one logical volume is "lv"); over md-raid1+lvm also the
         * array's, whose md_options and md_resync apply. */
        char *lvm_options;      /* the job's lvm_options (spec-matrix.c checked them); NULL or "" */
        uint64_t lv_size;       /* the logical volume's size in bytes; 0: the whole group */
        uint32_t layout_flags;  /* PROTO_FS_LAYOUT_REMOVE */
} ProtoFsSetup;

/* FS_SETUP's layout_flags. REMOVE: the entry's last step (the next makes its filesystem afresh, or
 * there is none): after it the volume group is removed and the physical volume labels wiped, not
 * only deactivated. Only with an LVM layout. */
#define PROTO_FS_LAYOUT_REMOVE 1u

/* A command the worker ran to make the filesystem (FS_INFO's commands, in the order run). */
typedef struct ProtoFsCommand {
        char *command;          /* argv joined by spaces, at most PROTO_STRING_MAX */
        uint64_t usec;          /* CLOCK_MONOTONIC around it */
        int32_t status;         /* its exit status (e2fsck's 1, "errors corrected", is accepted) */
        char *output;           /* as mkfs_output, at most PROTO_FS_OUTPUT_MAX */
} ProtoFsCommand;

/* The filesystem as mounted. Sizes are statvfs() right after the mount: size = f_blocks ×
 * f_frsize, used = (f_blocks − f_bfree) × f_frsize, avail = f_bavail × f_frsize, inodes = f_files,
 * inodes_free = f_ffree. */
typedef struct ProtoFsInfo {
        char *fs_type;
        char *uuid;             /* as libblkid reads it from member 0 */
        char *mkfs_command;     /* argv as run, joined by spaces; "" at MOUNT */
        uint64_t mkfs_usec;     /* CLOCK_MONOTONIC around mkfs; 0 at MOUNT */
        char *mkfs_output;      /* its stdout and stderr, at most PROTO_FS_OUTPUT_MAX bytes of valid
                                 * UTF-8 with no control characters but \n and \t; "" at MOUNT */
        char *mount_options;    /* the options in effect (mountinfo: per-mount, then the
                                 * filesystem's), at most PROTO_FS_OPTIONS_MAX */
        uint64_t size_bytes;
        uint64_t used_bytes;
        uint64_t avail_bytes;
        uint64_t inodes;
        uint64_t inodes_free;
        uint32_t n_commands;    /* at MAKE every command run on the members, mkfs among them (sfdisk
                                 * first for partitions, tune2fs and e2fsck after it for a conversion),
                                 * at most PROTO_FS_COMMANDS_MAX; 0 at MOUNT */
        ProtoFsCommand *commands;
        /* The commands that built the layout under the filesystem (mdadm --create or --assemble),
         * as a JSON array of {"command","usec","exit","output"}; NULL or "" for none. */
        char *layout_commands;
        uint64_t md_chunk_bytes;        /* the md array's chunk size (sysfs md/chunk_size); 0: none */
        uint64_t md_resync_usec;        /* how long the initial resync was waited for; 0: none */
        uint64_t lv_extents;            /* the logical volume's extents (LVM layouts); 0: none */
        uint64_t lv_bytes;              /* its size in bytes; 0: none */
} ProtoFsInfo;

/* A decoded frame: header fields plus a pointer into the reader's buffer, valid until the next
 * proto_reader_* call. */
typedef struct ProtoFrame {
        uint16_t type;
        uint32_t length;
        const uint8_t *payload;
} ProtoFrame;

/* Accumulates bytes from a non-blocking fd and cuts frames. Bounded: at most one header and
 * PROTO_MAX_PAYLOAD bytes are ever held. */
typedef struct ProtoReader {
        uint8_t *buf;
        size_t size;     /* allocated */
        size_t len;      /* filled */
        size_t consumed; /* bytes of the last frame handed out, dropped on the next call */
} ProtoReader;

void proto_reader_init(ProtoReader *r);
void proto_reader_clear(ProtoReader *r);
/* Reads what is available. Returns bytes read (>0), 0 on EOF, -EAGAIN when nothing was there. */
int proto_reader_fill(ProtoReader *r, int fd);
/* Appends bytes directly (tests). -ENOBUFS when more than one frame's worth would be buffered. */
int proto_reader_push(ProtoReader *r, const void *data, size_t len);
/* 1 and *ret filled when a whole frame is available, 0 when more bytes are needed, -EBADMSG for
 * a bad magic or non-zero reserved field, -EPROTONOSUPPORT for another version, -EMSGSIZE for an
 * oversized length. Errors are final: the peer is to be dropped. */
int proto_reader_next(ProtoReader *r, ProtoFrame *ret);

/* Encoders produce a whole frame (header + payload) in a malloc'd buffer. */
int proto_encode_hello(const ProtoHello *m, uint8_t **ret, size_t *ret_len);
int proto_encode_spec(const ProtoSpec *m, uint8_t **ret, size_t *ret_len);
int proto_encode_text(ProtoType type, const ProtoText *m, uint8_t **ret, size_t *ret_len);
int proto_encode_sample(const ProtoSample *m, uint8_t **ret, size_t *ret_len);
int proto_encode_histogram(const ProtoHistogram *m, uint8_t **ret, size_t *ret_len);
int proto_encode_result(const ProtoResult *m, uint8_t **ret, size_t *ret_len);
int proto_encode_error(const ProtoError *m, uint8_t **ret, size_t *ret_len);
/* -EINVAL for a PhaseResult that its decoder would refuse. */
int proto_encode_phase_result(const ProtoPhaseResult *m, uint8_t **ret, size_t *ret_len);
/* -EINVAL for a setup or info its decoder would refuse (proto_fs_setup_valid(), _info_valid()). */
int proto_encode_fs_setup(const ProtoFsSetup *m, uint8_t **ret, size_t *ret_len);
int proto_encode_fs_info(const ProtoFsInfo *m, uint8_t **ret, size_t *ret_len);
/* FS_RELEASED: what the worker ran on the layout at the end of the step: an LVM layout's `lvm vgchange
 * --activate n` (and at the entry's last step `lvm vgremove`, `lvm pvremove`), then, at the end of
 * an md entry's last step (FS_SETUP md_release), what released the array's members; a JSON array of
 * {"command", "usec", "exit", "output"} as FS_INFO's layout_commands; sent after the filesystem is
 * unmounted and the array stopped, before HISTOGRAM and RESULT (or ERROR), at most once. */
int proto_encode_fs_released(const char *commands, uint8_t **ret, size_t *ret_len);

/* -EINVAL for a PositionResult that its decoder would refuse. */
int proto_encode_position_result(const ProtoPositionResult *m, uint8_t **ret, size_t *ret_len);
/* -EINVAL for a t_ms above INT64_MAX / 1000. */
int proto_encode_steady_state(const ProtoSteadyState *m, uint8_t **ret, size_t *ret_len);
/* -EINVAL for a start_usec above INT64_MAX. */
int proto_encode_start(const ProtoStart *m, uint8_t **ret, size_t *ret_len);

/* Decoders check the frame type, the exact payload length and every field's range; -EBADMSG on
 * any violation. Owned members are malloc'd; free with the matching *_clear(). */
int proto_decode_hello(const ProtoFrame *f, ProtoHello *ret);
int proto_decode_spec(const ProtoFrame *f, ProtoSpec *ret);
int proto_decode_text(const ProtoFrame *f, ProtoText *ret);
int proto_decode_sample(const ProtoFrame *f, ProtoSample *ret);
int proto_decode_histogram(const ProtoFrame *f, ProtoHistogram *ret);
int proto_decode_result(const ProtoFrame *f, ProtoResult *ret);
int proto_decode_error(const ProtoFrame *f, ProtoError *ret);
/* Nothing owned: no clear function. */
int proto_decode_phase_result(const ProtoFrame *f, ProtoPhaseResult *ret);
/* Nothing owned: no clear function. */
int proto_decode_position_result(const ProtoFrame *f, ProtoPositionResult *ret);
/* Nothing owned: no clear function. */
int proto_decode_steady_state(const ProtoFrame *f, ProtoSteadyState *ret);
/* Nothing owned: no clear function. */
int proto_decode_start(const ProtoFrame *f, ProtoStart *ret);
int proto_decode_fs_setup(const ProtoFrame *f, ProtoFsSetup *ret);
int proto_decode_fs_info(const ProtoFrame *f, ProtoFsInfo *ret);
/* *ret owned: a valid JSON array of at most PROTO_FS_LAYOUT_COMMANDS_MAX bytes. */
int proto_decode_fs_released(const ProtoFrame *f, char **ret);
/* True for a name PHASE_RESULT may carry. */
bool proto_phase_name_valid(const char *name);
/* Worker text goes into D-Bus strings (UTF-8 only) and logs: keeps valid UTF-8, replaces each
 * invalid byte and each control character (C0, DEL, C1) with '?' (a LOG's or ERROR's text before
 * it is shown). In place; never longer. */
void proto_text_sanitize(char *s);

/* Where `benchd-worker --try-mkfs` keeps its image files, as the tool sees them: the one absolute
 * path a trial's message may name (benchd replaces every other; daemon/jobs/mkfs-trial.h). */
#define PROTO_TRY_MKFS_IMAGE_DIR "/tmp/images"

/* The field rules of the filesystem frames, shared by encoders, decoders, benchd (before it sends
 * a setup) and benchd-worker's --try-mkfs: fs_type 1..PROTO_FS_TYPE_MAX of [a-z0-9]; a known
 * layout that the filesystem has (raid* only for btrfs, one member for the others); options
 * bounded, valid UTF-8 and without control characters; a UUID of [0-9A-Za-z-] (not empty at
 * MOUNT); members absolute paths, dev_t not 0 and distinct, flags known. */
bool proto_fs_type_valid(const char *s);
bool proto_fs_layout_valid(const char *fs_type, const char *layout, uint32_t n_members);
bool proto_fs_options_valid(const char *s);
/* The md layouts of FS_SETUP, and an md array's name "benchd-JOB-ENTRY" (decimal numbers). */
bool proto_fs_layout_is_md(const char *layout);
bool proto_fs_md_name_valid(const char *s);
/* The LVM layouts of FS_SETUP ("lvm", "md-raid1+lvm"); whether the layout names an md array or a
 * volume group in md_name (md or LVM); whether it builds an md array (md, md-raid1+lvm). */
bool proto_fs_layout_is_lvm(const char *layout);
bool proto_fs_layout_has_name(const char *layout);
bool proto_fs_layout_builds_md(const char *layout);
/* The device-mapper name of group vg's one logical volume "lv": the group's dashes doubled, then
 * "-lv" ("benchd-4-1" -> "benchd--4--1-lv"). 0, or -ENAMETOOLONG. */
int proto_fs_lvm_dm_name(const char *vg, char *ret, size_t size);
bool proto_fs_setup_valid(const ProtoFsSetup *m);
/* FS_INFO alone (the relations between its numbers, and with the setup, are proto-plausible.h's). */
bool proto_fs_info_valid(const ProtoFsInfo *m);
/* A deep copy. -ENOMEM, or -EINVAL for a setup that is not valid. */
int proto_fs_setup_copy(const ProtoFsSetup *m, ProtoFsSetup *ret);

void proto_spec_clear(ProtoSpec *m);
void proto_text_clear(ProtoText *m);
void proto_histogram_clear(ProtoHistogram *m);
void proto_result_clear(ProtoResult *m);
void proto_error_clear(ProtoError *m);
void proto_fs_setup_clear(ProtoFsSetup *m);
void proto_fs_info_clear(ProtoFsInfo *m);

/* Blocking write of a whole buffer (EINTR-safe). For the worker and for the daemon's one SPEC. */
int proto_write_all(int fd, const void *buf, size_t len);

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The devices a filesystem step makes its filesystem on, as fsprep.c needs them: each claimed with
 * O_EXCL (EBUSY: mounted, swap, held by md/dm/LVM), checked to be the device benchd checked (the
 * same dev_t, the same disk sequence number when benchd sent one), its signatures probed by
 * libblkid on the descriptor held, and wiped. Every refusal on safety grounds is -EPERM
 * (PROTO_ERROR_UNSAFE) with a message naming the device and what would be right.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "shared/proto.h"

typedef struct FsMember {
        const ProtoFsMember *m;
        char *name;             /* kernel name, "loop3" (with partitions: of the partition, "loop3p2") */
        char *node;             /* /dev/<name> */
        dev_t dev;              /* what the filesystem is on: the member, or its partition */
        int fd;                 /* the claim, or -EBADF */
} FsMember;

/* What libblkid finds on a device. */
typedef struct FsSignature {
        char type[64];          /* TYPE, or PTTYPE for a partition table; "" when blank */
        char uuid[PROTO_FS_UUID_MAX + 1];
        char label[128];        /* LABEL; for an md member the array's "homehost:name" */
        bool table;
} FsSignature;

/* Claims every member of setup into b[0..n_members) (at MAKE O_RDWR, at MOUNT O_RDONLY), finds its
 * kernel name and checks what it carries: at MAKE blank or scratch (or, for an md layout, a member
 * of an array of the same job: "benchd:benchd-JOB-*"), at MOUNT exactly the fs_type and
 * expect_uuid of setup (an md layout: a member of the array md_name, whose filesystem is checked
 * on the array). On failure the members claimed so far stay in b for fsmember_free(). */
int fsmember_claim_all(const ProtoFsSetup *setup, FsMember *b, char **reterr);
/* Stage MOUNT: b (claimed) carries exactly the filesystem setup names (its type and expect_uuid). */
int fsmember_check_mount(const FsMember *b, const ProtoFsSetup *setup, char **reterr);
/* Opens path (O_EXCL added) into b->fd and checks it is b->dev (b->m's dev when 0). */
int fsmember_open(FsMember *b, const char *path, int flags, char **reterr);
/* 0 and *ret (blank: type ""), -EUCLEAN for conflicting signatures, other negative errors. */
int fsmember_probe(int fd, FsSignature *ret);
/* Whether label (an md member's "homehost:name") names an array of the job of md_name
 * ("benchd-JOB-ENTRY"): "benchd:benchd-JOB-<any entry>"; with same_entry, exactly md_name's. */
bool fsmember_md_label_ours(const char *label, const char *md_name, bool same_entry);
/* Every signature libblkid knows, as wipefs -a removes them: probe, wipe what was found, again;
 * then fsync. On the claim b->fd, which must be writable. */
int fsmember_wipe(const FsMember *b, char **reterr);
/* Releases the claims of b[0..n). */
void fsmember_close(FsMember *b, size_t n);
/* And frees the names. */
void fsmember_free(FsMember *b, size_t n);

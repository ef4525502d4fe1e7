/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The write-safety verdict (see verdict.h). Rules in order of how much data is at stake, the first
 * that applies decides: mounted, swap, held by dm/md/LVM, read-only, signature. Only the signature
 * rule yields to scratch: marking a device scratch says "its content is expendable", not "it is
 * not in use". Each reason names the device, what was found, and what would make it allowed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices/verdict.h"
#include "shared/strv.h"
#include "shared/util.h"

static bool startswith(const char *s, const char *prefix) {
        return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int reason_mounted(const VerdictFacts *f, char **ret) {
        const VerdictMount *mt = &f->mounts[0];
        const char *what = mt->device ?: f->name;
        _cleanup_free_ char *prefix = NULL, *more = NULL;
        char *s = NULL;

        if (!streq(what, f->name) && asprintf(&prefix, "%s is in use: ", f->name) < 0)
                return -ENOMEM;
        if (f->n_mounts > 1 && asprintf(&more, " and %zu more mount(s)", f->n_mounts - 1) < 0)
                return -ENOMEM;
        if (asprintf(&s, "%s%s is mounted on %s (%s)%s; unmount %s first",
                     prefix ?: "", what, mt->path, strna(mt->fs_type), more ?: "",
                     f->n_mounts > 1 ? "them" : "it") < 0)
                return -ENOMEM;
        *ret = s;
        return 0;
}

static int reason_swap(const VerdictFacts *f, char **ret) {
        const char *what = f->swaps[0];
        char *s = NULL;
        int r;

        if (streq(what, f->name))
                r = asprintf(&s, "%s is in use as swap; swapoff /dev/%s first", f->name, f->name);
        else
                r = asprintf(&s, "%s is in use: %s is in use as swap; swapoff /dev/%s first",
                             f->name, what, what);
        if (r < 0)
                return -ENOMEM;
        *ret = s;
        return 0;
}

static int reason_held(const VerdictFacts *f, char **ret) {
        const char *h = f->holders[0];
        const char *how;
        char *s = NULL;

        if (startswith(h, "md"))
                how = "stop the RAID array first (mdadm --stop)";
        else if (startswith(h, "dm-"))
                how = "remove the mapping first (vgchange -an for LVM, cryptsetup close, dmsetup remove)";
        else
                how = "release it first";
        if (asprintf(&s, "%s is held by %s%s; %s", f->name, h,
                     strv_length((char *const *) f->holders) > 1 ? " and others" : "", how) < 0)
                return -ENOMEM;
        *ret = s;
        return 0;
}

/* "an ext4", "an xfs", "a btrfs", "a gpt": by how the name is spoken. */
static const char *article(const char *word) {
        return strchr("aeiouxfAEIOUXF", word[0]) && word[0] ? "an" : "a";
}

static const char *signature_kind(const VerdictFacts *f) {
        if (streq_ptr(f->sig_type, "ambivalent"))
                return "several conflicting signatures";
        if (streq_ptr(f->sig_type, "LVM2_member"))
                return "an LVM physical volume signature";
        if (streq_ptr(f->sig_usage, "raid"))
                return "a RAID member signature";
        if (streq_ptr(f->sig_usage, "crypto"))
                return "an encrypted volume signature";
        if (streq_ptr(f->sig_type, "swap"))
                return "a swap signature";
        return NULL;
}

static int reason_signature(const VerdictFacts *f, char **ret) {
        const char *conf = f->conf_path ?: "/etc/benchd/benchd.conf";
        _cleanup_free_ char *what = NULL;
        char *s = NULL;
        int r;

        if (f->sig_type) {
                const char *kind = signature_kind(f);
                if (kind)
                        r = asprintf(&what, "%s (%s%s%s)", kind, f->sig_type,
                                     f->sig_uuid ? ", UUID " : "", f->sig_uuid ?: "");
                else
                        r = asprintf(&what, "%s %s signature%s%s%s", article(f->sig_type), f->sig_type,
                                     f->sig_uuid ? " (UUID " : "", f->sig_uuid ?: "",
                                     f->sig_uuid ? ")" : "");
        } else
                r = asprintf(&what, "%s %s partition table", article(f->pt_type), f->pt_type);
        if (r < 0)
                return -ENOMEM;

        if (asprintf(&s, "%s carries %s; %s%swipe it with wipefs -a /dev/%s or mark it scratch with "
                     "BENCHD_SCRATCH=1 (udev) or ScratchDevices= in %s",
                     f->name, what, f->scratch_note ?: "", f->scratch_note ? "; " : "", f->name, conf) < 0)
                return -ENOMEM;
        *ret = s;
        return 0;
}

int verdict_compute(const VerdictFacts *f, char **ret_reason) {
        char *reason = NULL;
        int r;

        if (f->n_mounts > 0)
                r = reason_mounted(f, &reason);
        else if (strv_length((char *const *) f->swaps) > 0)
                r = reason_swap(f, &reason);
        else if (strv_length((char *const *) f->holders) > 0)
                r = reason_held(f, &reason);
        else if (f->read_only)
                r = asprintf(&reason, "%s is read-only; make it writable first (blockdev --setrw /dev/%s)",
                             f->name, f->name) < 0 ? -ENOMEM : 0;
        else if (!f->scratch && (f->sig_type || f->pt_type))
                r = reason_signature(f, &reason);
        else {
                *ret_reason = NULL;
                return 0;
        }
        if (r < 0)
                return r;
        *ret_reason = reason;
        return 1;
}

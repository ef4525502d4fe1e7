/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What mkfs_options may say (spec_mkfs_options_check() in spec.h). The worker gives mkfs.<fs> the
 * option words as they are (split on blanks, fsprep_mkfs_argv()), so they are read here the way
 * the tool's own getopt(3) or getopt_long(3) reads them: clusters (-Fq), attached arguments
 * (-d/etc, -Jdevice=/dev/x), an argument in the next word, long options with =value or the next
 * word and abbreviated to any unique prefix (--root for --rootdir), words that are no option
 * anywhere (GNU getopt permutes, so "-q x -F" still parses -F), and "--". Each option found is
 * looked up in its tool's list of refusals: the option itself, or one sub-option of its
 * comma-separated argument (-J device=, -l logdev=), matched by exact name as mke2fs's and
 * getsubopt(3)'s parsers match them.
 *
 * Refused: what makes mkfs read or write a path of the host (a directory copied onto the device, a
 * bad-block list, an undo file, a protofile, a configuration file), put part of the filesystem on
 * a device the job did not check (an external journal, log or realtime device, a data file),
 * start another program, or force it past its own checks; words that are not options (mkfs would
 * take them for devices); an option whose argument is missing (mkfs would take the first device
 * for it). Each message names the option as written, why, and what would be right. Filesystems
 * without a table here take no mkfs_options at all: what their tool's options do is not known.
 *
 * The lists follow mke2fs(8) of e2fsprogs 1.47, mkfs.btrfs(8) of btrfs-progs 6.2 and mkfs.xfs(8)
 * of xfsprogs 6.1 (the getopt strings are those in the binaries). An option they miss, or one a
 * later version adds, still finds nothing of the host to read: mkfs runs in a root of its own
 * (daemon/worker/toolroot.h).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs-entry.h"
#include "spec-internal.h"
#include "spec.h"
#include "util.h"

/* getopt_long(3)'s val of a long option without a short one. */
enum {
        LONG_CSUM = 256,
        LONG_SHRINK,
        LONG_HELP,
        LONG_INODE_FLAGS,
};

typedef struct MkfsLongOption {
        const char *name;
        bool has_arg;
        int val;                /* its short option's letter, or LONG_* */
} MkfsLongOption;

typedef struct MkfsRefusal {
        int val;                /* the short option's letter, or LONG_* */
        const char *sub;        /* NULL: the option itself; else only this sub-option of its argument */
        const char *why;        /* "copies a directory of the host onto the new filesystem" */
        const char *instead;    /* "leave -d out: benchd makes empty filesystems to benchmark" */
} MkfsRefusal;

typedef struct MkfsTool {
        const char *const *filesystems;
        const char *program;            /* as its manual page is named */
        const char *short_options;      /* getopt(3)'s optstring */
        const MkfsLongOption *long_options;     /* NULL: plain getopt(3), no long options */
        const MkfsRefusal *refusals;    /* ends with a row without why */
} MkfsTool;

#define FORCE_INSTEAD "benchd wipes the devices itself before mkfs, so no force flag is needed"

/* mke2fs(8): misc/mke2fs.c's optstring. */
static const MkfsRefusal mke2fs_refusals[] = {
        { 'd', NULL, "copies a directory of the host onto the new filesystem",
          "leave -d out: benchd makes empty filesystems to benchmark" },
        { 'l', NULL, "reads a bad-block list from a file of the host", "leave -l out" },
        { 'c', NULL, "runs badblocks(8), a program mkfs may not start here",
          "check the device with badblocks before the job, or leave -c out" },
        { 'z', NULL, "writes an undo file on the host",
          "leave -z out: the devices are scratch, there is nothing to undo" },
        { 'J', "device", "puts the journal on another device, which the job neither checked nor holds",
          "use an internal journal (-J size=MiB) or none (-O ^has_journal)" },
        { 'F', NULL, "forces mke2fs past its own safety checks", FORCE_INSTEAD ": leave -F out" },
        {}
};

static const MkfsTool mke2fs_tool = {
        .filesystems = (const char *const[]) { "ext2", "ext3", "ext4", NULL },
        .program = "mke2fs",
        .short_options = "b:cd:e:g:i:jl:m:no:qr:s:t:vC:DE:FG:I:J:KL:M:N:O:R:ST:U:Vz:",
        .refusals = mke2fs_refusals,
};

/* mkfs.btrfs(8): mkfs/main.c's getopt_long() table. */
static const MkfsLongOption btrfs_long_options[] = {
        { "alloc-start", true, 'A' },
        { "byte-count", true, 'b' },
        { "csum", true, LONG_CSUM },
        { "checksum", true, LONG_CSUM },
        { "force", false, 'f' },
        { "leafsize", true, 'l' },
        { "label", true, 'L' },
        { "metadata", true, 'm' },
        { "mixed", false, 'M' },
        { "nodesize", true, 'n' },
        { "sectorsize", true, 's' },
        { "data", true, 'd' },
        { "version", false, 'V' },
        { "verbose", false, 'v' },
        { "rootdir", true, 'r' },
        { "nodiscard", false, 'K' },
        { "features", true, 'O' },
        { "runtime-features", true, 'R' },
        { "uuid", true, 'U' },
        { "quiet", false, 'q' },
        { "shrink", false, LONG_SHRINK },
        { "help", false, LONG_HELP },
        /* Later versions: each only with --rootdir, refused below all the same. */
        { "subvol", true, 'u' },
        { "inode-flags", true, LONG_INODE_FLAGS },
        {}
};

static const MkfsRefusal btrfs_refusals[] = {
        { 'r', NULL, "copies a directory of the host onto the new filesystem",
          "leave -r/--rootdir out: benchd makes empty filesystems to benchmark" },
        { 'u', NULL, "makes subvolumes of a host directory copied with --rootdir",
          "leave -u/--subvol out: benchd makes empty filesystems to benchmark" },
        { LONG_INODE_FLAGS, NULL, "sets flags on files copied from a host directory with --rootdir",
          "leave --inode-flags out: benchd makes empty filesystems to benchmark" },
        { 'f', NULL, "forces mkfs.btrfs past its check for an existing filesystem",
          FORCE_INSTEAD ": leave -f out" },
        {}
};

static const MkfsTool btrfs_tool = {
        .filesystems = (const char *const[]) { "btrfs", NULL },
        .program = "mkfs.btrfs",
        .short_options = "A:b:fl:n:s:m:d:L:R:O:r:U:VvMKqu:",
        .long_options = btrfs_long_options,
        .refusals = btrfs_refusals,
};

/* mkfs.xfs(8): mkfs/xfs_mkfs.c's optstring; the sub-options are getsubopt(3)'s. */
static const MkfsLongOption xfs_long_options[] = {
        { "help", false, LONG_HELP },
        {}
};

static const MkfsRefusal xfs_refusals[] = {
        { 'p', NULL, "reads a prototype file of the host and copies the files it names",
          "leave -p out: benchd makes empty filesystems to benchmark" },
        { 'c', NULL, "reads a configuration file of the host",
          "give the options themselves instead (e.g. -m reflink=1 -i size=512)" },
        { 'd', "name", "puts the data section on a file or device the job did not check",
          "leave name= out: benchd gives mkfs.xfs the job's devices" },
        { 'l', "logdev", "puts the log on another device, which the job neither checked nor holds",
          "use an internal log (-l size=N)" },
        { 'l', "name", "puts the log on another file or device, which the job neither checked nor holds",
          "use an internal log (-l size=N)" },
        { 'r', "rtdev", "puts a realtime section on another device, which the job neither checked nor holds",
          "leave the realtime section out" },
        { 'r', "name", "puts a realtime section on another file or device, which the job neither checked "
          "nor holds", "leave the realtime section out" },
        { 'f', NULL, "forces mkfs.xfs past its check for an existing filesystem", FORCE_INSTEAD ": leave -f out" },
        {}
};

static const MkfsTool xfs_tool = {
        .filesystems = (const char *const[]) { "xfs", NULL },
        .program = "mkfs.xfs",
        .short_options = "b:c:d:i:l:L:m:n:KNp:qr:s:CfV",
        .long_options = xfs_long_options,
        .refusals = xfs_refusals,
};

static const MkfsTool *const mkfs_tools[] = { &mke2fs_tool, &btrfs_tool, &xfs_tool };

static const MkfsTool *tool_of(const char *fs) {
        fs = fs_entry_mkfs_type(fs);    /* ext4-from-ext3: mkfs.ext3's options */
        for (size_t i = 0; i < ELEMENTSOF(mkfs_tools); i++)
                for (const char *const *f = mkfs_tools[i]->filesystems; *f; f++)
                        if (streq(*f, fs))
                                return mkfs_tools[i];
        return NULL;
}

/* Is there a refusal for this option (its getopt value), with this argument (NULL: none)? A
 * refusal of a sub-option matches name or name=value among the argument's comma-separated parts,
 * exactly; *ret_sub is then that part. */
static const MkfsRefusal *refusal_for(const MkfsTool *t, int val, const char *arg, char *ret_sub,
                                      size_t sub_size) {
        for (const MkfsRefusal *f = t->refusals; f->why; f++) {
                if (f->val != val)
                        continue;
                if (!f->sub)
                        return f;
                for (const char *p = arg; p && *p;) {
                        size_t k = strcspn(p, ","), eq = strcspn(p, ",=");

                        if (eq == strlen(f->sub) && strncmp(p, f->sub, eq) == 0) {
                                snprintf(ret_sub, sub_size, "%.*s", (int) k, p);
                                return f;
                        }
                        p += k;
                        p += *p == ',';
                }
        }
        return NULL;
}

/* "-F", or "-F (in -Fq)" when the word says more than the option. */
static const char *spelled_in(const char *option, const char *word, char buf[static 160]) {
        if (streq(option, word))
                return option;
        snprintf(buf, 160, "%s (in %s)", option, CALLER_TEXT(word));
        return buf;
}

static int refuse(const char *fs, const char *option, const char *word, const char *sub, const MkfsRefusal *f,
                  char **reterr) {
        char buf[160];

        if (sub)
                return spec_fail(reterr, "mkfs_options.%s: %s with %s %s; %s", fs, spelled_in(option, word, buf),
                                 CALLER_TEXT(sub), f->why, f->instead);
        return spec_fail(reterr, "mkfs_options.%s: %s %s; %s", fs, spelled_in(option, word, buf), f->why,
                         f->instead);
}

static int missing_value(const char *fs, const MkfsTool *t, const char *option, const char *give, char **reterr) {
        return spec_fail(reterr, "mkfs_options.%s: %s takes a value and none follows it (%s would take the first "
                         "device for it); give %s", fs, option, t->program, give);
}

/* A short option letter in optstring: 0 unknown, 1 without argument, 2 with one, 3 optional ("::"). */
static int short_kind(const char *optstring, char c) {
        const char *p;

        if (c == ':' || c == '-' || !(p = strchr(optstring, c)))
                return 0;
        if (p[1] != ':')
                return 1;
        return p[2] == ':' ? 3 : 2;
}

/* --name, --name=value or --name value (words[*i + 1], *i then advanced); any unique prefix of a
 * name, as getopt_long(3) takes it (a prefix of several names that are the same option too). */
static int check_long(const char *fs, const MkfsTool *t, char **words, size_t n, size_t *i, char **reterr) {
        const char *word = words[*i], *name = word + 2, *eq = strchr(name, '='), *arg = eq ? eq + 1 : NULL;
        size_t len = eq ? (size_t) (eq - name) : strlen(name);
        const MkfsLongOption *match = NULL;
        char option[128], sub[128] = "", give[160];
        const MkfsRefusal *f;
        bool ambiguous = false;

        for (const MkfsLongOption *o = t->long_options; o->name; o++)
                if (strlen(o->name) == len && strncmp(o->name, name, len) == 0)
                        match = o;
        for (const MkfsLongOption *o = t->long_options; !match && o->name; o++) {
                if (strncmp(o->name, name, len) != 0)
                        continue;
                /* getopt_long fails on an ambiguous prefix; refuse whatever it could have meant. */
                f = refusal_for(t, o->val, NULL, sub, sizeof(sub));
                if (f && !f->sub) {
                        snprintf(option, sizeof(option), "--%s", o->name);
                        return refuse(fs, option, word, NULL, f, reterr);
                }
        }
        for (const MkfsLongOption *o = t->long_options; !match && o->name; o++) {
                if (strncmp(o->name, name, len) != 0)
                        continue;
                if (match && (match->val != o->val || match->has_arg != o->has_arg))
                        ambiguous = true;
                match = match ?: o;
        }
        if (!match || ambiguous)
                return 0;       /* mkfs says what is wrong, and the trial quotes it */
        snprintf(option, sizeof(option), "--%s", match->name);
        if (match->has_arg && !arg) {
                snprintf(give, sizeof(give), "--%s=VALUE", match->name);
                if (*i + 1 >= n)
                        return missing_value(fs, t, option, give, reterr);
                arg = words[++*i];
        }
        f = refusal_for(t, match->val, arg, sub, sizeof(sub));
        if (f)
                return refuse(fs, option, word, f->sub ? sub : NULL, f, reterr);
        return 0;
}

/* A cluster of short options: -F, -Fq, -d/etc, -qd/etc, -qd /etc (words[*i + 1], *i then
 * advanced). An unknown letter is getopt's "invalid option", on which mkfs stops; the letters
 * after it are checked all the same. */
static int check_short(const char *fs, const MkfsTool *t, char **words, size_t n, size_t *i, char **reterr) {
        const char *word = words[*i];

        for (const char *c = word + 1; *c; c++) {
                int kind = short_kind(t->short_options, *c);
                char option[3] = { '-', *c, 0 }, sub[128] = "", give[16];
                const char *arg = NULL;
                const MkfsRefusal *f;

                if (kind == 0)
                        continue;
                if (kind >= 2 && c[1])
                        arg = c + 1;
                else if (kind == 2) {
                        snprintf(give, sizeof(give), "%s VALUE", option);
                        if (*i + 1 >= n)
                                return missing_value(fs, t, option, give, reterr);
                        arg = words[++*i];
                }
                f = refusal_for(t, *c, arg, sub, sizeof(sub));
                if (f)
                        return refuse(fs, option, word, f->sub ? sub : NULL, f, reterr);
                if (kind >= 2)
                        break;  /* the rest of the word was the argument */
        }
        return 0;
}

int spec_mkfs_options_check(const char *fs, const char *options, char **reterr) {
        _cleanup_free_ char *copy = NULL;
        _cleanup_free_ char **words = NULL;
        const MkfsTool *t = fs ? tool_of(fs) : NULL;
        bool only_arguments = false;
        size_t n = 0;
        char *save = NULL;
        int r;

        if (!t)
                return spec_fail(reterr, "mkfs_options.%s: benchd knows which options of mkfs.ext2, ext3, ext4, "
                                 "btrfs and xfs read files of the host or force mkfs, but not those of mkfs.%s; "
                                 "leave mkfs_options.%s out (mkfs.%s then runs with its defaults)", strna(fs),
                                 strna(fs), strna(fs), strna(fs));
        /* Split as fsprep_mkfs_argv() splits them for the worker: on blanks, no quoting. */
        copy = strdup(options ?: "");
        if (!copy)
                return -ENOMEM;
        words = calloc(strlen(copy) / 2 + 2, sizeof(char *));
        if (!words)
                return -ENOMEM;
        for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
                words[n++] = w;

        for (size_t i = 0; i < n; i++) {
                const char *w = words[i];

                if (only_arguments || w[0] != '-' || w[1] == 0)
                        return spec_fail(reterr, "mkfs_options.%s: '%s' is not an option, and %s would take it for "
                                         "a device%s; benchd gives mkfs the job's devices itself: leave it out", fs,
                                         CALLER_TEXT(w), t->program, t == &mke2fs_tool ? " or a size" : "");
                if (streq(w, "--")) {
                        only_arguments = true;  /* getopt's end of options */
                        continue;
                }
                if (w[1] == '-' && t->long_options)
                        r = check_long(fs, t, words, n, &i, reterr);
                else
                        r = check_short(fs, t, words, n, &i, reterr);
                if (r < 0)
                        return r;
        }
        return 0;
}

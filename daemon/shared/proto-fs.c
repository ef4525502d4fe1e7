/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The filesystem frames of the worker protocol (proto.h, "filesystem matrix steps"): FS_SETUP and
 * FS_INFO, their field rules (shared by the encoders, the decoders, benchd before it sends a setup
 * and benchd-worker's --try-mkfs), copies and clears.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fs-entry.h"
#include "json-util.h"
#include "proto-internal.h"
#include "util.h"

/* ---- filesystem frames: the field rules ---- */

/* At most max bytes of valid UTF-8 without control characters (but \n and \t when text). */
static bool fs_string_ok(const char *s, size_t max, bool text) {
        size_t n;

        if (!s)
                return false;
        n = strnlen(s, max + 1);
        if (n > max)
                return false;
        for (const char *p = s; *p;) {
                size_t k = utf8_char_len(p);

                if (k == 0)
                        return false;
                if (utf8_is_control(p, k) && !(text && (*p == '\n' || *p == '\t')))
                        return false;
                p += k;
        }
        return true;
}

bool proto_fs_type_valid(const char *s) {
        size_t n;

        if (!s)
                return false;
        n = strnlen(s, PROTO_FS_TYPE_MAX + 1);
        if (n == 0 || n > PROTO_FS_TYPE_MAX)
                return false;
        if (fs_entry_find(s))
                return true;
        for (size_t i = 0; i < n; i++)
                if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9')))
                        return false;
        return true;
}

bool proto_fs_layout_valid(const char *fs_type, const char *layout, uint32_t n_members) {
        bool btrfs;

        if (!proto_fs_type_valid(fs_type) || !layout || n_members == 0 || n_members > PROTO_FS_MEMBERS_MAX)
                return false;
        if (proto_fs_layout_builds_md(layout))
                return n_members >= 2;
        if (proto_fs_layout_is_lvm(layout))
                return true;
        btrfs = streq(fs_type, "btrfs");
        if (!btrfs)
                return streq(layout, "single") && n_members == 1;
        return streq(layout, "single") || streq(layout, "raid0") || streq(layout, "raid1") ||
               streq(layout, "raid10");
}

bool proto_fs_layout_is_md(const char *layout) {
        return layout && (streq(layout, "md-raid0") || streq(layout, "md-raid1") || streq(layout, "md-raid5") ||
                          streq(layout, "md-raid10"));
}

bool proto_fs_layout_is_lvm(const char *layout) {
        return layout && (streq(layout, "lvm") || streq(layout, "md-raid1+lvm"));
}

bool proto_fs_layout_builds_md(const char *layout) {
        return proto_fs_layout_is_md(layout) || streq_ptr(layout, "md-raid1+lvm");
}

bool proto_fs_layout_has_name(const char *layout) {
        return proto_fs_layout_is_md(layout) || proto_fs_layout_is_lvm(layout);
}

int proto_fs_lvm_dm_name(const char *vg, char *ret, size_t size) {
        size_t n = 0;

        for (const char *p = vg ?: ""; *p; p++) {
                if (n + 2 >= size)
                        return -ENAMETOOLONG;
                if (*p == '-')
                        ret[n++] = '-';
                ret[n++] = *p;
        }
        if (n + 4 > size)
                return -ENAMETOOLONG;
        memcpy(ret + n, "-lv", 4);
        return 0;
}

/* "benchd-JOB-ENTRY": decimal numbers, bounded. */
bool proto_fs_md_name_valid(const char *s) {
        const char *p;
        size_t n;

        if (!s || strncmp(s, "benchd-", 7) != 0 || strnlen(s, PROTO_FS_MD_NAME_MAX + 1) > PROTO_FS_MD_NAME_MAX)
                return false;
        p = s + 7;
        n = strspn(p, "0123456789");
        if (n == 0 || p[n] != '-')
                return false;
        p += n + 1;
        n = strspn(p, "0123456789");
        return n > 0 && p[n] == 0;
}

bool proto_fs_options_valid(const char *s) {
        return fs_string_ok(s, PROTO_FS_OPTIONS_MAX, false);
}

static bool fs_uuid_ok(const char *s) {
        size_t n;

        if (!s)
                return false;
        n = strnlen(s, PROTO_FS_UUID_MAX + 1);
        if (n > PROTO_FS_UUID_MAX)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
                      s[i] == '-'))
                        return false;
        return true;
}

bool proto_fs_setup_valid(const ProtoFsSetup *m) {
        if (!m || (m->stage != PROTO_FS_STAGE_MAKE && m->stage != PROTO_FS_STAGE_MOUNT))
                return false;
        if (!proto_fs_layout_valid(m->fs_type, m->layout, m->n_members) || !m->members)
                return false;
        if (!proto_fs_options_valid(m->mkfs_options) || !proto_fs_options_valid(m->mount_options))
                return false;
        /* MOUNT names the filesystem to mount; MAKE may name the one an earlier entry of the job made. */
        if (!fs_uuid_ok(m->expect_uuid) || (m->stage == PROTO_FS_STAGE_MOUNT && m->expect_uuid[0] == 0))
                return false;
        if (m->partitions > PROTO_FS_PARTITIONS_MAX || (m->partitions == 0) != (m->partition == 0) ||
            m->partition > m->partitions)
                return false;
        /* An md or LVM layout names its array or volume group; no other layout has one. */
        if (proto_fs_layout_has_name(m->layout) ? !proto_fs_md_name_valid(m->md_name) :
                                                  (m->md_name && m->md_name[0]))
                return false;
        if ((!proto_fs_layout_builds_md(m->layout) && (m->md_options && m->md_options[0])) ||
            !proto_fs_options_valid(m->md_options ?: "") || m->md_resync > PROTO_MD_RESYNC_ASSUME_CLEAN)
                return false;
        /* md-raid1+lvm's members are released only after its group is removed. */
        if (m->md_release > 1 || (m->md_release && !proto_fs_layout_builds_md(m->layout)) ||
            (m->md_release && proto_fs_layout_is_lvm(m->layout) && !(m->layout_flags & PROTO_FS_LAYOUT_REMOVE)))
                return false;
        if (!proto_fs_layout_is_lvm(m->layout) &&
            ((m->lvm_options && m->lvm_options[0]) || m->lv_size || m->layout_flags))
                return false;
        if (!proto_fs_options_valid(m->lvm_options ?: "") || (m->layout_flags & ~PROTO_FS_LAYOUT_REMOVE))
                return false;
        for (uint32_t i = 0; i < m->n_members; i++) {
                const ProtoFsMember *b = &m->members[i];

                if (!fs_string_ok(b->path, PROTO_FS_PATH_MAX, false) || b->path[0] != '/')
                        return false;
                if (b->dev == 0 || (b->flags & ~PROTO_GUARD_SCRATCH))
                        return false;
                for (uint32_t j = 0; j < i; j++)
                        if (m->members[j].dev == b->dev)
                                return false;
        }
        return true;
}

bool proto_fs_info_valid(const ProtoFsInfo *m) {
        if (!m || !proto_fs_type_valid(m->fs_type) || !fs_uuid_ok(m->uuid) ||
            !fs_string_ok(m->mkfs_command, PROTO_STRING_MAX, false) ||
            !fs_string_ok(m->mkfs_output, PROTO_FS_OUTPUT_MAX, true) ||
            !fs_string_ok(m->mount_options, PROTO_FS_OPTIONS_MAX, false))
                return false;
        if (m->n_commands > PROTO_FS_COMMANDS_MAX || (m->n_commands > 0 && !m->commands))
                return false;
        for (uint32_t i = 0; i < m->n_commands; i++)
                if (!fs_string_ok(m->commands[i].command, PROTO_STRING_MAX, false) || !m->commands[i].command[0] ||
                    !fs_string_ok(m->commands[i].output, PROTO_FS_OUTPUT_MAX, true))
                        return false;
        return fs_string_ok(m->layout_commands ?: "", PROTO_FS_LAYOUT_COMMANDS_MAX, true);
}

int proto_encode_fs_setup(const ProtoFsSetup *m, uint8_t **ret, size_t *ret_len) {
        size_t len;
        Packer k;
        int r;

        if (!proto_fs_setup_valid(m))
                return -EINVAL;
        /* Valid strings are bounded far below PROTO_MAX_PAYLOAD all together. */
        len = 4 + 5 * 4 + strlen(m->fs_type) + strlen(m->layout) + strlen(m->mkfs_options) +
              strlen(m->mount_options) + strlen(m->expect_uuid) + 4 + 2 * 4;
        for (uint32_t i = 0; i < m->n_members; i++)
                len += 4 + strlen(m->members[i].path) + 8 + 8 + 4;
        len += 4 + strlen(m->md_name ?: "") + 4 + strlen(m->md_options ?: "") + 4 + 4;
        len += 4 + strlen(m->lvm_options ?: "") + 8 + 4;
        r = packer_begin(&k, PROTO_FS_SETUP, len);
        if (r < 0)
                return r;
        pack_u32(&k, m->stage);
        pack_string(&k, m->fs_type, strlen(m->fs_type));
        pack_string(&k, m->layout, strlen(m->layout));
        pack_string(&k, m->mkfs_options, strlen(m->mkfs_options));
        pack_string(&k, m->mount_options, strlen(m->mount_options));
        pack_string(&k, m->expect_uuid, strlen(m->expect_uuid));
        pack_u32(&k, m->n_members);
        for (uint32_t i = 0; i < m->n_members; i++) {
                const ProtoFsMember *b = &m->members[i];

                pack_string(&k, b->path, strlen(b->path));
                pack_u64(&k, b->dev);
                pack_u64(&k, b->diskseq);
                pack_u32(&k, b->flags);
        }
        pack_u32(&k, m->partitions);
        pack_u32(&k, m->partition);
        pack_string(&k, m->md_name ?: "", strlen(m->md_name ?: ""));
        pack_string(&k, m->md_options ?: "", strlen(m->md_options ?: ""));
        pack_u32(&k, m->md_resync);
        pack_u32(&k, m->md_release);
        pack_string(&k, m->lvm_options ?: "", strlen(m->lvm_options ?: ""));
        pack_u64(&k, m->lv_size);
        pack_u32(&k, m->layout_flags);
        return packer_finish(&k, ret, ret_len);
}

int proto_encode_fs_info(const ProtoFsInfo *m, uint8_t **ret, size_t *ret_len) {
        size_t len;
        Packer k;
        int r;

        if (!proto_fs_info_valid(m))
                return -EINVAL;
        /* Valid strings are bounded below PROTO_MAX_PAYLOAD all together: (1 + 8) × (4096 + 4096) + 16384. */
        len = 5 * 4 + strlen(m->fs_type) + strlen(m->uuid) + strlen(m->mkfs_command) + strlen(m->mkfs_output) +
              strlen(m->mount_options) + 6 * 8 + 4 + 4 + strlen(m->layout_commands ?: "") + 4 * 8;
        for (uint32_t i = 0; i < m->n_commands; i++)
                len += 4 + strlen(m->commands[i].command) + 8 + 4 + 4 + strlen(m->commands[i].output);
        r = packer_begin(&k, PROTO_FS_INFO, len);
        if (r < 0)
                return r;
        pack_string(&k, m->fs_type, strlen(m->fs_type));
        pack_string(&k, m->uuid, strlen(m->uuid));
        pack_string(&k, m->mkfs_command, strlen(m->mkfs_command));
        pack_u64(&k, m->mkfs_usec);
        pack_string(&k, m->mkfs_output, strlen(m->mkfs_output));
        pack_string(&k, m->mount_options, strlen(m->mount_options));
        pack_u64(&k, m->size_bytes);
        pack_u64(&k, m->used_bytes);
        pack_u64(&k, m->avail_bytes);
        pack_u64(&k, m->inodes);
        pack_u64(&k, m->inodes_free);
        pack_u32(&k, m->n_commands);
        for (uint32_t i = 0; i < m->n_commands; i++) {
                const ProtoFsCommand *c = &m->commands[i];

                pack_string(&k, c->command, strlen(c->command));
                pack_u64(&k, c->usec);
                pack_u32(&k, (uint32_t) c->status);
                pack_string(&k, c->output, strlen(c->output));
        }
        pack_string(&k, m->layout_commands ?: "", strlen(m->layout_commands ?: ""));
        pack_u64(&k, m->md_chunk_bytes);
        pack_u64(&k, m->md_resync_usec);
        pack_u64(&k, m->lv_extents);
        pack_u64(&k, m->lv_bytes);
        return packer_finish(&k, ret, ret_len);
}

int proto_decode_fs_setup(const ProtoFrame *f, ProtoFsSetup *ret) {
        ProtoFsSetup m = {};
        Cursor c;

        if (cursor_begin(&c, f, PROTO_FS_SETUP) < 0)
                return -EBADMSG;
        m.stage = take_u32(&c);
        m.fs_type = take_string(&c, PROTO_FS_TYPE_MAX);
        m.layout = take_string(&c, PROTO_FS_TYPE_MAX);
        m.mkfs_options = take_string(&c, PROTO_FS_OPTIONS_MAX);
        m.mount_options = take_string(&c, PROTO_FS_OPTIONS_MAX);
        m.expect_uuid = take_string(&c, PROTO_FS_UUID_MAX);
        m.n_members = take_u32(&c);
        if (c.bad || m.n_members == 0 || m.n_members > PROTO_FS_MEMBERS_MAX)
                goto bad;
        m.members = calloc(m.n_members, sizeof(ProtoFsMember));
        if (!m.members) {
                proto_fs_setup_clear(&m);
                return -ENOMEM;
        }
        for (uint32_t i = 0; i < m.n_members; i++) {
                m.members[i].path = take_string(&c, PROTO_FS_PATH_MAX);
                m.members[i].dev = take_u64(&c);
                m.members[i].diskseq = take_u64(&c);
                m.members[i].flags = take_u32(&c);
        }
        m.partitions = take_u32(&c);
        m.partition = take_u32(&c);
        m.md_name = take_string(&c, PROTO_FS_MD_NAME_MAX);
        m.md_options = take_string(&c, PROTO_FS_OPTIONS_MAX);
        m.md_resync = take_u32(&c);
        m.md_release = take_u32(&c);
        m.lvm_options = take_string(&c, PROTO_FS_OPTIONS_MAX);
        m.lv_size = take_u64(&c);
        m.layout_flags = take_u32(&c);
        if (!cursor_done(&c) || !proto_fs_setup_valid(&m))
                goto bad;
        *ret = m;
        return 0;

bad:
        proto_fs_setup_clear(&m);
        return -EBADMSG;
}

int proto_decode_fs_info(const ProtoFrame *f, ProtoFsInfo *ret) {
        ProtoFsInfo m = {};
        Cursor c;

        if (cursor_begin(&c, f, PROTO_FS_INFO) < 0)
                return -EBADMSG;
        m.fs_type = take_string(&c, PROTO_FS_TYPE_MAX);
        m.uuid = take_string(&c, PROTO_FS_UUID_MAX);
        m.mkfs_command = take_string(&c, PROTO_STRING_MAX);
        m.mkfs_usec = take_u64(&c);
        m.mkfs_output = take_string(&c, PROTO_FS_OUTPUT_MAX);
        m.mount_options = take_string(&c, PROTO_FS_OPTIONS_MAX);
        m.size_bytes = take_u64(&c);
        m.used_bytes = take_u64(&c);
        m.avail_bytes = take_u64(&c);
        m.inodes = take_u64(&c);
        m.inodes_free = take_u64(&c);
        m.n_commands = take_u32(&c);
        if (c.bad || m.n_commands > PROTO_FS_COMMANDS_MAX) {
                proto_fs_info_clear(&m);
                return -EBADMSG;
        }
        if (m.n_commands > 0) {
                m.commands = calloc(m.n_commands, sizeof(ProtoFsCommand));
                if (!m.commands) {
                        proto_fs_info_clear(&m);
                        return -ENOMEM;
                }
        }
        for (uint32_t i = 0; i < m.n_commands; i++) {
                m.commands[i].command = take_string(&c, PROTO_STRING_MAX);
                m.commands[i].usec = take_u64(&c);
                m.commands[i].status = (int32_t) take_u32(&c);
                m.commands[i].output = take_string(&c, PROTO_FS_OUTPUT_MAX);
        }
        m.layout_commands = take_string(&c, PROTO_FS_LAYOUT_COMMANDS_MAX);
        m.md_chunk_bytes = take_u64(&c);
        m.md_resync_usec = take_u64(&c);
        m.lv_extents = take_u64(&c);
        m.lv_bytes = take_u64(&c);
        if (!cursor_done(&c) || !proto_fs_info_valid(&m)) {
                proto_fs_info_clear(&m);
                return -EBADMSG;
        }
        *ret = m;
        return 0;
}

void proto_fs_setup_clear(ProtoFsSetup *m) {
        free(m->fs_type);
        free(m->layout);
        free(m->mkfs_options);
        free(m->mount_options);
        free(m->expect_uuid);
        free(m->md_name);
        free(m->md_options);
        free(m->lvm_options);
        for (uint32_t i = 0; m->members && i < m->n_members; i++)
                free(m->members[i].path);
        free(m->members);
        *m = (ProtoFsSetup) {};
}

void proto_fs_info_clear(ProtoFsInfo *m) {
        free(m->fs_type);
        free(m->uuid);
        free(m->mkfs_command);
        free(m->mkfs_output);
        free(m->mount_options);
        for (uint32_t i = 0; m->commands && i < m->n_commands; i++) {
                free(m->commands[i].command);
                free(m->commands[i].output);
        }
        free(m->commands);
        free(m->layout_commands);
        *m = (ProtoFsInfo) {};
}

int proto_fs_setup_copy(const ProtoFsSetup *m, ProtoFsSetup *ret) {
        ProtoFsSetup c = { .stage = m->stage, .n_members = m->n_members, .partitions = m->partitions,
                           .partition = m->partition, .md_resync = m->md_resync,
                           .md_release = m->md_release, .lv_size = m->lv_size, .layout_flags = m->layout_flags };

        if (!proto_fs_setup_valid(m))
                return -EINVAL;
        c.fs_type = strdup(m->fs_type);
        c.layout = strdup(m->layout);
        c.mkfs_options = strdup(m->mkfs_options);
        c.mount_options = strdup(m->mount_options);
        c.expect_uuid = strdup(m->expect_uuid);
        c.md_name = strdup(m->md_name ?: "");
        c.md_options = strdup(m->md_options ?: "");
        c.lvm_options = strdup(m->lvm_options ?: "");
        c.members = calloc(m->n_members, sizeof(ProtoFsMember));
        if (!c.fs_type || !c.layout || !c.mkfs_options || !c.mount_options || !c.expect_uuid || !c.members ||
            !c.md_name || !c.md_options || !c.lvm_options)
                goto oom;
        for (uint32_t i = 0; i < m->n_members; i++) {
                c.members[i] = m->members[i];
                c.members[i].path = strdup(m->members[i].path);
                if (!c.members[i].path)
                        goto oom;
        }
        *ret = c;
        return 0;

oom:
        proto_fs_setup_clear(&c);
        return -ENOMEM;
}

/* ---- FS_RELEASED ---- */

static bool fs_released_valid(const char *commands) {
        _cleanup_json_ json_object *o = NULL;

        if (!commands || !fs_string_ok(commands, PROTO_FS_LAYOUT_COMMANDS_MAX, true))
                return false;
        o = json_tokener_parse(commands);
        return o && json_object_is_type(o, json_type_array) && json_object_array_length(o) > 0;
}

int proto_encode_fs_released(const char *commands, uint8_t **ret, size_t *ret_len) {
        Packer k;
        int r;

        if (!fs_released_valid(commands))
                return -EINVAL;
        r = packer_begin(&k, PROTO_FS_RELEASED, 4 + strlen(commands));
        if (r < 0)
                return r;
        pack_string(&k, commands, strlen(commands));
        return packer_finish(&k, ret, ret_len);
}

int proto_decode_fs_released(const ProtoFrame *f, char **ret) {
        _cleanup_free_ char *s = NULL;
        Cursor c;

        if (cursor_begin(&c, f, PROTO_FS_RELEASED) < 0)
                return -EBADMSG;
        s = take_string(&c, PROTO_FS_LAYOUT_COMMANDS_MAX);
        if (!cursor_done(&c) || !fs_released_valid(s))
                return -EBADMSG;
        *ret = TAKE_PTR(s);
        return 0;
}

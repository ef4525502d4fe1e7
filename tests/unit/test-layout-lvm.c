/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pure parts of an LVM step (daemon/worker/layout-lvm.h): lvm's command lines, lvm_options each
 * going to the command that takes it, and the lvm.conf that accepts exactly the physical volumes
 * and gives the group benchd's system ID. lvm itself runs in tests/vm/guest-lvm.sh.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check-util.h"
#include "layout-lvm.h"
#include "shared/proto.h"
#include "shared/strv.h"
#include "shared/util.h"

static char *joined(char **argv) {
        static char buf[1024];

        buf[0] = 0;
        for (char **a = argv; a && *a; a++) {
                if (a != argv)
                        strcat(buf, " ");
                strcat(buf, *a);
        }
        return buf;
}

START_TEST(test_argv) {
        ProtoFsMember members[2] = { { .path = (char *) "/dev/loop3", .dev = 0x703 },
                                     { .path = (char *) "/dev/loop4", .dev = 0x704 } };
        ProtoFsSetup s = { .stage = PROTO_FS_STAGE_MAKE, .fs_type = (char *) "ext4", .layout = (char *) "lvm",
                           .mkfs_options = (char *) "", .mount_options = (char *) "", .expect_uuid = (char *) "",
                           .n_members = 2, .members = members, .md_name = (char *) "benchd-7-1",
                           .lvm_options = (char *) "--metadatasize=2M --physicalextentsize=1M  --dataalignment=1M",
                           .lv_size = UINT64_C(96) << 20 };
        char *nodes[] = { (char *) "/dev/loop3", (char *) "/dev/loop4", NULL };
        static const char *const want[] = {
                "lvm pvcreate --yes --metadatasize=2M --dataalignment=1M /dev/loop3 /dev/loop4",
                "lvm vgcreate --yes --setautoactivation n --physicalextentsize=1M benchd-7-1 /dev/loop3 /dev/loop4",
                "lvm lvcreate --yes --wipesignatures y --name lv --size 100663296b benchd-7-1",
                "lvm vgchange --activate y benchd-7-1",
        };

        ck_assert(proto_fs_setup_valid(&s));
        for (unsigned i = 0; i < ELEMENTSOF(want); i++) {
                _cleanup_strv_free_ char **argv = NULL;

                ck_assert_int_eq(layout_lvm_argv(&s, i, nodes, 2, &argv), 0);
                ck_assert_str_eq(joined(argv), want[i]);
        }
        /* The whole group. */
        {
                _cleanup_strv_free_ char **argv = NULL;

                s.lv_size = 0;
                ck_assert_int_eq(layout_lvm_argv(&s, 2, nodes, 2, &argv), 0);
                ck_assert_str_eq(joined(argv), "lvm lvcreate --yes --wipesignatures y --name lv --extents 100%FREE "
                                               "benchd-7-1");
        }
        /* Not an LVM layout, or no group of benchd's form. */
        {
                _cleanup_strv_free_ char **argv = NULL;

                s.layout = (char *) "md-raid1";
                ck_assert_int_eq(layout_lvm_argv(&s, 0, nodes, 2, &argv), -EINVAL);
                s.layout = (char *) "lvm";
                s.md_name = (char *) "vg0";
                ck_assert_int_eq(layout_lvm_argv(&s, 0, nodes, 2, &argv), -EINVAL);
                s.md_name = (char *) "benchd-7-1";
                ck_assert_int_eq(layout_lvm_argv(&s, 4, nodes, 2, &argv), -EINVAL);
        }
}
END_TEST

START_TEST(test_config) {
        char *pvs[] = { (char *) "vdc", (char *) "md127", NULL };
        _cleanup_free_ char *c = layout_lvm_config(pvs, 2);

        ck_assert_ptr_nonnull(c);
        ck_assert_ptr_nonnull(strstr(c, "global_filter = [ \"a|^/dev/vdc$|\", \"a|^/dev/md127$|\", \"r|.*|\" ]"));
        ck_assert_ptr_nonnull(strstr(c, "system_id = \"benchd\""));
        ck_assert_ptr_nonnull(strstr(c, "system_id_source = \"lvmlocal\""));
        ck_assert_ptr_nonnull(strstr(c, "udev_sync = 0"));
        ck_assert_ptr_nonnull(strstr(c, "udev_rules = 0"));
        ck_assert_ptr_nonnull(strstr(c, "obtain_device_list_from_udev = 0"));
        ck_assert_ptr_nonnull(strstr(c, "backup = 0"));
        ck_assert_ptr_nonnull(strstr(c, "archive = 0"));
        ck_assert_ptr_nonnull(strstr(c, "use_devicesfile = 0"));
        /* Nothing of the host's paths but /dev. */
        ck_assert_ptr_null(strstr(c, "/etc"));
        ck_assert_ptr_null(strstr(c, "/run"));
}
END_TEST

int main(void) {
        Suite *s = suite_create("layout-lvm");
        TCase *tc = tcase_create("core");

        tcase_add_test(tc, test_argv);
        tcase_add_test(tc, test_config);
        suite_add_tcase(s, tc);
        return check_run(s);
}

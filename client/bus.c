/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * benchctl's D-Bus helpers (bus.h). Replies are converted to json-c once, generically, so that the
 * verbs do not each walk a{sv} by hand and so --json prints exactly what benchd sent; the daemon
 * may add keys without the client changing.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "benchctl.h"
#include "bus.h"
#include "text.h"

int bus_open(const BenchctlOptions *opts, sd_bus **ret, const char **ret_where) {
        sd_bus *bus = NULL;
        const char *where;
        int r;

        switch (opts->transport) {
        case BUS_TRANSPORT_ADDRESS:
                where = opts->address;
                r = sd_bus_new(&bus);
                if (r < 0)
                        break;
                r = sd_bus_set_address(bus, opts->address);
                if (r >= 0)
                        r = sd_bus_set_bus_client(bus, 1);
                if (r >= 0)
                        r = sd_bus_start(bus);
                break;
        case BUS_TRANSPORT_REMOTE:
                where = opts->address;
                r = sd_bus_open_system_remote(&bus, opts->address);
                break;
        case BUS_TRANSPORT_SYSTEM:
        default:
                where = "the system bus";
                r = sd_bus_open_system(&bus);
                break;
        }
        if (ret_where)
                *ret_where = where;
        if (r < 0) {
                sd_bus_unref(bus);
                return r;
        }
        *ret = bus;
        return 0;
}

int bus_connect(const BenchctlOptions *opts, sd_bus **ret) {
        const char *where = NULL;
        int r;

        r = bus_open(opts, ret, &where);
        if (r < 0) {
                text_fprintf_errno(stderr, r, "benchctl: cannot connect to %s: %m\n", where);
                return BENCHCTL_EXIT_UNREACHABLE;
        }
        return 0;
}

int bus_error_is_unreachable(const sd_bus_error *error) {
        return sd_bus_error_has_names(error,
                                      SD_BUS_ERROR_SERVICE_UNKNOWN,
                                      SD_BUS_ERROR_NAME_HAS_NO_OWNER,
                                      SD_BUS_ERROR_NO_REPLY,
                                      SD_BUS_ERROR_DISCONNECTED,
                                      SD_BUS_ERROR_NO_SERVER,
                                      "org.freedesktop.DBus.Error.Spawn.ServiceNotFound");
}

const char *bus_error_message(const sd_bus_error *error, int r) {
        return error && error->message ? error->message : strerror(r < 0 ? -r : EIO);
}

int bus_error_exit(const char *what, const sd_bus_error *error, int r) {
        const char *msg = bus_error_message(error, r);

        if (error && bus_error_is_unreachable(error)) {
                text_fprintf(stderr, "benchctl: %s: benchd is not running on this bus (%s)\n", what, msg);
                return BENCHCTL_EXIT_UNREACHABLE;
        }
        /* Errors of the connection itself come as errnos (sd-bus names them System.Error.*). */
        if (!error || !sd_bus_error_is_set(error) || strncmp(error->name, "System.Error.", 13) == 0) {
                if (r == -ECONNRESET || r == -ENOTCONN || r == -ECONNREFUSED || r == -EPIPE || r == -ESHUTDOWN) {
                        text_fprintf(stderr, "benchctl: %s: lost the bus connection, cannot reach benchd (%s)\n", what,
                                     msg);
                        return BENCHCTL_EXIT_UNREACHABLE;
                }
        }
        /* The daemon's message, escaped: it may quote another host's text (ImportRuns). */
        text_fprintf(stderr, "benchctl: %s: %s\n", what, msg);
        if (error && sd_bus_error_has_names(error,
                                            BENCHD_ERROR_PREFIX "NotFound",
                                            SD_BUS_ERROR_UNKNOWN_OBJECT))
                return BENCHCTL_EXIT_NOT_FOUND;
        if (error && sd_bus_error_has_name(error, BENCHD_ERROR_PREFIX "InvalidSpec"))
                return BENCHCTL_EXIT_USAGE;
        return BENCHCTL_EXIT_FAILURE;
}

static int read_basic_json(sd_bus_message *m, char type, json_object **ret) {
        union {
                uint8_t y;
                int16_t n;
                uint16_t q;
                int32_t i;
                uint32_t u;
                int64_t x;
                uint64_t t;
                double d;
                int b;
                const char *s;
        } v;
        json_object *o;
        int r;

        r = sd_bus_message_read_basic(m, type, &v);
        if (r < 0)
                return r;
        if (r == 0)
                return -EBADMSG;

        switch (type) {
        case SD_BUS_TYPE_BYTE:
                o = json_object_new_int64(v.y);
                break;
        case SD_BUS_TYPE_INT16:
                o = json_object_new_int64(v.n);
                break;
        case SD_BUS_TYPE_UINT16:
                o = json_object_new_int64(v.q);
                break;
        case SD_BUS_TYPE_INT32:
        case SD_BUS_TYPE_UNIX_FD:
                o = json_object_new_int64(v.i);
                break;
        case SD_BUS_TYPE_UINT32:
                o = json_object_new_int64(v.u);
                break;
        case SD_BUS_TYPE_INT64:
                o = json_object_new_int64(v.x);
                break;
        case SD_BUS_TYPE_UINT64:
                o = json_object_new_uint64(v.t);
                break;
        case SD_BUS_TYPE_DOUBLE:
                o = json_object_new_double(v.d);
                break;
        case SD_BUS_TYPE_BOOLEAN:
                o = json_object_new_boolean(v.b);
                break;
        case SD_BUS_TYPE_STRING:
        case SD_BUS_TYPE_OBJECT_PATH:
        case SD_BUS_TYPE_SIGNATURE:
                o = json_object_new_string(v.s);
                break;
        default:
                return -EBADMSG;
        }
        if (!o)
                return -ENOMEM;
        *ret = o;
        return 0;
}

/* Dictionary keys are basic types; JSON wants strings. */
static int read_key_string(sd_bus_message *m, char type, char **ret) {
        _cleanup_json_ json_object *k = NULL;
        const char *s;
        int r;

        r = read_basic_json(m, type, &k);
        if (r < 0)
                return r;
        s = json_object_get_type(k) == json_type_string ? json_object_get_string(k)
                                                         : json_object_to_json_string(k);
        *ret = strdup(s);
        return *ret ? 0 : -ENOMEM;
}

static int read_container_json(sd_bus_message *m, char type, const char *contents, json_object **ret);

int bus_message_read_json(sd_bus_message *m, json_object **ret) {
        const char *contents;
        char type;
        int r;

        r = sd_bus_message_peek_type(m, &type, &contents);
        if (r < 0)
                return r;
        if (r == 0)
                return -EBADMSG;
        if (contents)
                return read_container_json(m, type, contents, ret);
        return read_basic_json(m, type, ret);
}

static int read_container_json(sd_bus_message *m, char type, const char *contents, json_object **ret) {
        _cleanup_json_ json_object *o = NULL;
        int r;

        r = sd_bus_message_enter_container(m, type, contents);
        if (r < 0)
                return r;

        if (type == SD_BUS_TYPE_VARIANT) {
                r = bus_message_read_json(m, &o);
                if (r < 0)
                        return r;
        } else if (type == SD_BUS_TYPE_ARRAY && contents[0] == SD_BUS_TYPE_DICT_ENTRY_BEGIN) {
                _cleanup_free_ char *entry = strndup(contents + 1, strlen(contents) - 2);
                if (!entry)
                        return -ENOMEM;
                o = json_object_new_object();
                if (!o)
                        return -ENOMEM;
                for (;;) {
                        _cleanup_free_ char *key = NULL;
                        json_object *value = NULL;

                        r = sd_bus_message_enter_container(m, SD_BUS_TYPE_DICT_ENTRY, entry);
                        if (r < 0)
                                return r;
                        if (r == 0)
                                break;
                        r = read_key_string(m, entry[0], &key);
                        if (r < 0)
                                return r;
                        r = bus_message_read_json(m, &value);
                        if (r < 0)
                                return r;
                        json_object_object_add(o, key, value);
                        r = sd_bus_message_exit_container(m);
                        if (r < 0)
                                return r;
                }
        } else {
                /* Arrays and structs both become JSON arrays. */
                o = json_object_new_array();
                if (!o)
                        return -ENOMEM;
                for (;;) {
                        json_object *item = NULL;
                        char t;
                        const char *c;

                        r = sd_bus_message_peek_type(m, &t, &c);
                        if (r < 0)
                                return r;
                        if (r == 0)
                                break;
                        r = bus_message_read_json(m, &item);
                        if (r < 0)
                                return r;
                        json_object_array_add(o, item);
                }
        }

        r = sd_bus_message_exit_container(m);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

int bus_new_manager_call(sd_bus *bus, const char *method, sd_bus_message **ret) {
        return sd_bus_message_new_method_call(bus, ret, BENCHD_BUS_NAME, BENCHD_MANAGER_PATH,
                                              BENCHD_MANAGER_IFACE, method);
}

int bus_call_json(sd_bus *bus, const char *what, sd_bus_message *m, json_object **ret) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        json_object *o = NULL;
        int r;

        r = sd_bus_call(bus, m, 0, &error, &reply);
        if (r < 0)
                return bus_error_exit(what, &error, r);
        r = bus_message_read_json(reply, &o);
        if (r < 0) {
                text_fprintf_errno(stderr, r, "benchctl: %s: cannot parse the reply: %m\n", what);
                return BENCHCTL_EXIT_FAILURE;
        }
        *ret = o;
        return 0;
}

int bus_call_manager_json(sd_bus *bus, const char *what, const char *method, json_object **ret,
                          const char *types, ...) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        va_list ap;
        int r;

        r = bus_new_manager_call(bus, method, &m);
        if (r >= 0 && types) {
                va_start(ap, types);
                r = sd_bus_message_appendv(m, types, ap);
                va_end(ap);
        }
        if (r < 0) {
                text_fprintf_errno(stderr, r, "benchctl: %s: cannot build the call: %m\n", what);
                return BENCHCTL_EXIT_FAILURE;
        }
        return bus_call_json(bus, what, m, ret);
}

int bus_call_manager_filter_json(sd_bus *bus, const char *what, const char *method, json_object *filter,
                                 json_object **ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        r = bus_new_manager_call(bus, method, &m);
        if (r >= 0)
                r = bus_append_filter(m, filter);
        if (r < 0) {
                text_fprintf_errno(stderr, r, "benchctl: %s: cannot build the call: %m\n", what);
                return BENCHCTL_EXIT_FAILURE;
        }
        return bus_call_json(bus, what, m, ret);
}

int bus_get_all_json(sd_bus *bus, const char *path, const char *interface, sd_bus_error *error,
                     json_object **ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_call_method(bus, BENCHD_BUS_NAME, path, "org.freedesktop.DBus.Properties", "GetAll",
                               error, &reply, "s", interface);
        if (r < 0)
                return r;
        return bus_message_read_json(reply, ret);
}

static int append_strv_entry(sd_bus_message *m, const char *key, json_object *array) {
        int r;

        r = sd_bus_message_open_container(m, SD_BUS_TYPE_DICT_ENTRY, "sv");
        if (r >= 0)
                r = sd_bus_message_append(m, "s", key);
        if (r >= 0)
                r = sd_bus_message_open_container(m, SD_BUS_TYPE_VARIANT, "as");
        if (r >= 0)
                r = sd_bus_message_open_container(m, SD_BUS_TYPE_ARRAY, "s");
        for (size_t i = 0; r >= 0 && i < json_object_array_length(array); i++) {
                json_object *item = json_object_array_get_idx(array, i);
                if (!json_object_is_type(item, json_type_string))
                        return -EINVAL;
                r = sd_bus_message_append(m, "s", json_object_get_string(item));
        }
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        return r;
}

/* A JSON object of strings as an a{ss} entry: the spec's maps (mkfs_options, mount_options). */
static int append_map_entry(sd_bus_message *m, const char *key, json_object *object) {
        int r;

        r = sd_bus_message_open_container(m, SD_BUS_TYPE_DICT_ENTRY, "sv");
        if (r >= 0)
                r = sd_bus_message_append(m, "s", key);
        if (r >= 0)
                r = sd_bus_message_open_container(m, SD_BUS_TYPE_VARIANT, "a{ss}");
        if (r >= 0)
                r = sd_bus_message_open_container(m, SD_BUS_TYPE_ARRAY, "{ss}");
        if (r >= 0) {
                json_object_object_foreach(object, k, v) {
                        if (!json_object_is_type(v, json_type_string))
                                return -EINVAL;
                        r = sd_bus_message_append(m, "{ss}", k, json_object_get_string(v));
                        if (r < 0)
                                break;
                }
        }
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        return r;
}

int bus_append_filter(sd_bus_message *m, json_object *filter) {
        int r;

        r = sd_bus_message_open_container(m, SD_BUS_TYPE_ARRAY, "{sv}");
        if (r < 0)
                return r;
        if (filter) {
                json_object_object_foreach(filter, key, value) {
                        switch (json_object_get_type(value)) {
                        case json_type_string:
                                r = sd_bus_message_append(m, "{sv}", key, "s", json_object_get_string(value));
                                break;
                        case json_type_boolean:
                                r = sd_bus_message_append(m, "{sv}", key, "b",
                                                          (int) json_object_get_boolean(value));
                                break;
                        case json_type_int:
                                r = sd_bus_message_append(m, "{sv}", key, "t",
                                                          (uint64_t) json_object_get_uint64(value));
                                break;
                        case json_type_array:
                                r = append_strv_entry(m, key, value);
                                break;
                        case json_type_object:
                                r = append_map_entry(m, key, value);
                                break;
                        default:
                                r = -EINVAL;
                        }
                        if (r < 0)
                                return r;
                }
        }
        return sd_bus_message_close_container(m);
}

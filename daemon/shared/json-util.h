/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The json-c cleanup every program uses: _cleanup_json_ on an owned json_object *.
 */
#pragma once

#include <json-c/json.h>

#include "util.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(json_object *, json_object_put);
#define _cleanup_json_ _cleanup_(json_object_putp)

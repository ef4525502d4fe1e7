/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "benchctl.h"
int verb_devices(int argc, char **argv) { return 1; }
int verb_device(int argc, char **argv) { return 1; }

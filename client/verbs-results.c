/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "benchctl.h"
int verb_results(int argc, char **argv) { return 1; }
int verb_show(int argc, char **argv) { return 1; }
int verb_samples(int argc, char **argv) { return 1; }
int verb_export(int argc, char **argv) { return 1; }
int verb_compare(int argc, char **argv) { return 1; }

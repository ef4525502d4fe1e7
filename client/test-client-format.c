/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <check.h>
int main(void) { return 0; }

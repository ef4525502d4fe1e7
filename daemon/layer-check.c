/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The program of daemon/meson.build's layer checks: it calls nothing; the library linked whole
 * beside it must find every symbol it uses in the floors below it. */
int main(void) {
        return 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The order of a filesystem matrix's runs when it runs more than once (repeat=, until_stddev=): in
 * rounds. Each round visits every entry once, running all of the entry's steps on a filesystem
 * made afresh for the visit (so a device two entries share is made again each time, and every
 * round measures the same thing: a new filesystem); the next round visits them again, the order
 * of the entries alternating: A B C, C B A, A B C, ... Run entry by entry, a slow drift of the
 * machine (it warms up, a neighbour's load comes or goes) lands on one entry's runs and looks like
 * a difference between filesystems; in rounds, the entries' runs of one round are minutes apart,
 * and a comparison that pairs them by round (compare.h) sees the drift cancel. Alternating rather
 * than a random order: a linear drift then cancels exactly over every two rounds, in the means
 * and in the pairs (A first, then B first), and the order is known from the round number alone.
 *
 * Every step runs in every round; the job runs as many rounds as its most demanding step asks:
 * at least the largest repeat (with until_stddev, at least 3), and with until_stddev another round
 * while any step's main figure over its runs so far is not yet stable, at most the largest
 * max_repeats. So every entry has the same number of runs of every step, and every round is a
 * complete set of pairs.
 *
 * Pure: the steps as matrix_expand() made them (each entry's steps together, entries in order).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shared/spec.h"

/* Whether the job's steps run in rounds: a matrix whose steps plan more than one run. */
bool rounds_apply(const JobSpec *steps, size_t n);

/* The rounds a job in rounds makes at least, and at most (stability.h over its steps: the most
 * any step makes at least, and plans at most). Both ≥ 1. */
uint32_t rounds_min(const JobSpec *steps, size_t n);
uint32_t rounds_max(const JobSpec *steps, size_t n);

/* The step run at position visit (0 ≤ visit < n) of round: entries in order in even rounds,
 * backwards in odd ones, each entry's steps in their order. */
uint32_t rounds_step(const JobSpec *steps, size_t n, uint32_t round, uint32_t visit);
/* The position of step in round: the inverse of rounds_step(). */
uint32_t rounds_visit(const JobSpec *steps, size_t n, uint32_t round, uint32_t step);

/* Where a matrix step runs, for progress lines and logs: "ext4 on loop0", "btrfs raid1 on
 * loop1+loop2" (the members' last path components). NULL on allocation failure. */
char *rounds_entry_place(const JobSpec *step);

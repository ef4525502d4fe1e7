/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private to the Manager's files (manager*.c): benchd's figures for Prometheus, written as
 * MetricsTextfileDir=/benchd.prom for node_exporter's textfile collector (docs/fleet.md "Many
 * machines" lists the metrics and their labels).
 */
#pragma once

#include <systemd/sd-event.h>

typedef struct Manager Manager;

/* What manager-metrics.c keeps in the Manager (manager_metrics_state()): the deferred rewrite. */
typedef struct MetricsState {
        sd_event_source *metrics_source;
} MetricsState;

/* The file node_exporter reads, in MetricsTextfileDir=. */
#define MANAGER_METRICS_FILE "benchd.prom"

/* Writes the file anew from the database (the newest run of each series, the runs by status) when
 * m->metrics_dir is set, on the next iteration of the event loop, so that the ends of a run and
 * of its job, or a burst of jobs that fail at once, rewrite it once; does nothing otherwise. A
 * failure is logged, never fatal. */
void manager_write_metrics(Manager *m);
/* A rewrite still pending is done now (at shutdown), and the deferred source freed. */
void manager_metrics_flush(Manager *m);

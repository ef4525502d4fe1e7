/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The I/O loops of stream.c, one per kind of workload; engine.c picks one for each stream. Each
 * returns the stream's error (0, or what stream_fail() recorded).
 */
#pragma once

#include "engine-core.h"

/* Seeks and ping are bounded by operations rather than bytes when not time-based (stream.c
 * asserts that benchd counts the same). */
#define SEEKS_PER_STREAM 8000u
#define PING_COUNT 10u

/* read, write, rewrite, reread, randread, randwrite, randrw: queue_depth requests in flight. */
int stream_data(Stream *s);
/* bonnie++'s seeks: random block reads, one in ten written back. */
int stream_seeks(Stream *s);
/* ioping: one block read at a random offset per interval. */
int stream_ping(Stream *s);
/* position: the engine's position plan, offset after offset, each read sequentially at
 * queue_depth and reported through engine_position_result() as it ends. */
int stream_position(Stream *s);
/* bonnie++'s per-character tests: size characters (per pass) through a stdio FILE * on the
 * stream's file, one putc() or getc() call each, timed in batches of PROTO_CHAR_BATCH characters
 * (each batch one latency; every character one I/O of one byte). putc ends with fflush(), and
 * fsync()/fdatasync() with sync=end, inside the measured time but in no batch. */
int stream_putc(Stream *s);
int stream_getc(Stream *s);

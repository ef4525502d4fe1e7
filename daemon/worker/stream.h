/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The I/O loops of stream.c, one per kind of workload; engine.c picks one for each stream. Each
 * returns the stream's error (0, or what stream_fail() recorded).
 */
#pragma once

#include "engine-core.h"

/* Seeks and ping are bounded by operations rather than bytes when not time-based (stream.c
 * asserts that benchd counts the same): bonnie++'s 8192 seeks, shared by the streams as its
 * seeker processes share them, and ioping's 10 requests. */
#define SEEKS_TOTAL 8192u
#define PING_COUNT 10u

/* read, write, rewrite, reread, randread, randwrite, randrw: queue_depth requests in flight. */
int stream_data(Stream *s);
/* bonnie++'s seeks: random block reads, one in ten written back. */
int stream_seeks(Stream *s);
/* bonnie++'s Rewrite: each block in turn read, one byte of it changed, written back in place;
 * one operation per block, timed over both. */
int stream_read_modify_write(Stream *s);
/* ioping: one block read at a random offset per interval. */
int stream_ping(Stream *s);
/* position: the engine's position plan, offset after offset, each read sequentially at
 * queue_depth and reported through engine_position_result() as it ends. */
int stream_position(Stream *s);
/* bonnie++ 2.00's per-character tests: size characters (per pass) through the stream's
 * descriptor, one write(2) or read(2) system call each, timed in batches of PROTO_CHAR_BATCH
 * characters (each batch one latency; every character one I/O of one byte). putc ends with
 * fsync()/fdatasync() with sync=end, inside the measured time but in no batch. */
int stream_putc(Stream *s);
int stream_getc(Stream *s);

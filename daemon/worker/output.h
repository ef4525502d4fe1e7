/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Standalone mode's printing: a human summary or a JSON document of a run. Only formatting lives
 * here; every number comes from the engine's EngineResult and ProtoSample records.
 */
#pragma once

#include <stddef.h>
#include <stdio.h>

#include "engine.h"

int output_human(FILE *f, const JobSpec *spec, const EngineResult *r);
/* One line per sample for a live view (stderr in standalone mode). */
void output_sample_line(FILE *f, const ProtoSample *s);
int output_json(FILE *f, const JobSpec *spec, const EngineResult *r, const ProtoSample *samples, size_t n_samples);

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * benchctl report's page script: reads the data benchctl embedded (script#benchd-data, what the
 * --json verbs print, see client/verbs-report.c) and builds the sections with Chart.js (3.x, inlined
 * before this script). It computes nothing the verbs do not show: rates from counters and durations
 * the way benchctl's record.c does, means and differences only as the data carries them. Text from
 * the data goes in with textContent, never as HTML. When done it writes window.benchdReport (charts
 * drawn, errors caught, the regression marks on history charts with the x and y each sits at) into
 * pre#benchd-report-state, for tests that read the DOM.
 */
(function () {
        "use strict";

        var R = window.benchdReport;
        var D = JSON.parse(document.getElementById("benchd-data").textContent);
        var main = document.getElementById("report");
        var charts = [];
        var PALETTE = ["#1f6feb", "#d1242f", "#1a7f37", "#bf8700", "#8250df", "#0a7ea4", "#cf222e", "#57606a",
                       "#e16f24", "#116329"];
        var IOZONE_TESTS = ["write", "rewrite", "read", "reread", "randread", "randwrite", "backward-read",
                            "stride-read"];
        var IOZONE_TITLES = ["Writer", "Re-writer", "Reader", "Re-Reader", "Random read", "Random write",
                             "Backward read", "Stride read"];

        Chart.defaults.animation = false;
        Chart.defaults.responsive = true;
        Chart.defaults.maintainAspectRatio = false;
        Chart.defaults.font.size = 11;
        Chart.defaults.plugins.legend.labels.boxWidth = 12;

        /* ---- DOM ---- */

        function h(tag, props) {
                var e = document.createElement(tag);
                var k, i, c;
                for (k in props || {})
                        if (k === "text")
                                e.textContent = props[k];
                        else if (k === "cls")
                                e.className = props[k];
                        else
                                e.setAttribute(k, props[k]);
                for (i = 2; i < arguments.length; i++) {
                        c = arguments[i];
                        if (c === null || c === undefined)
                                continue;
                        e.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
                }
                return e;
        }

        /* While a matrix entry's view is built: its place ("ext4 on loop0"), which titles its sections. */
        var entryPrefix = "";

        function section(parent, title, cls) {
                var s = h("section", { cls: "block " + (cls || "") });
                s.appendChild(h("h2", { text: entryPrefix ? entryPrefix + ": " + title : title }));
                parent.appendChild(s);
                return s;
        }

        function note(parent, text) {
                parent.appendChild(h("p", { cls: "note", text: text }));
        }

        /* rows: arrays of cells; a cell is a string, a number (right-aligned) or {text, cls, colspan}. */
        function table(parent, headers, rows, cls) {
                var t = h("table", { cls: cls || "" }), tr;
                if (headers) {
                        tr = h("tr");
                        headers.forEach(function (x) { tr.appendChild(h("th", { text: x })); });
                        t.appendChild(h("thead", null, tr));
                }
                var body = h("tbody");
                rows.forEach(function (row) {
                        var r = h("tr", row.cls ? { cls: row.cls } : null);
                        (row.cells || row).forEach(function (c) {
                                var td;
                                if (c !== null && typeof c === "object") {
                                        td = h(c.th ? "th" : "td", { text: c.text === undefined ? "" : String(c.text) });
                                        if (c.cls) td.className = c.cls;
                                        if (c.colspan) td.setAttribute("colspan", c.colspan);
                                        if (c.rowspan) td.setAttribute("rowspan", c.rowspan);
                                } else
                                        td = h("td", { text: c === null || c === undefined ? "" : String(c),
                                                       cls: typeof c === "number" ? "num" : "" });
                                r.appendChild(td);
                        });
                        body.appendChild(r);
                });
                t.appendChild(body);
                parent.appendChild(h("div", { cls: "table-wrap" }, t));
                return t;
        }

        function grid(parent) {
                var g = h("div", { cls: "charts" });
                parent.appendChild(g);
                return g;
        }

        function chart(parent, title, config, wide) {
                var canvas = h("canvas", { role: "img", "aria-label": title });
                var box = h("div", { cls: "chart" + (wide ? " wide" : "") }, h("h3", { text: title }),
                            h("div", { cls: "canvas-box" }, canvas));
                parent.appendChild(box);
                charts.push(new Chart(canvas.getContext("2d"), config));
        }

        /* ---- numbers, as benchctl prints them ---- */

        function finite(v) {
                return typeof v === "number" && isFinite(v);
        }

        function num(v, digits) {
                return finite(v) ? v.toFixed(digits === undefined ? 1 : digits) : "n/a";
        }

        function fmtNs(ns) {
                if (!finite(ns)) return "n/a";
                if (ns < 1e3) return ns.toFixed(0) + " ns";
                if (ns < 1e6) return (ns / 1e3).toFixed(ns < 1e4 ? 2 : 1) + " µs";
                if (ns < 1e9) return (ns / 1e6).toFixed(ns < 1e7 ? 2 : 1) + " ms";
                return (ns / 1e9).toFixed(2) + " s";
        }

        function fmtBytes(b) {
                var u = ["B", "KiB", "MiB", "GiB", "TiB"], e = 0;
                if (!finite(b)) return "n/a";
                while (b >= 1024 && e < u.length - 1 && b % 1024 === 0) { b /= 1024; e++; }
                if (b >= 1024 && e < u.length - 1) {
                        while (b >= 1024 && e < u.length - 1) { b /= 1024; e++; }
                        return b.toFixed(1) + " " + u[e];
                }
                return b + " " + u[e];
        }

        function fmtMiB(bps) {
                return finite(bps) ? (bps / 1048576).toFixed(1) + " MiB/s" : "n/a";
        }

        function fmtPct(v) {
                return finite(v) ? v.toFixed(1) + "%" : "n/a";
        }

        function fmtDiff(v) {
                if (!finite(v)) return "";
                return (v > 0 ? "+" : v < 0 ? "" : "±") + v.toFixed(1) + "%";
        }

        function pad(n) {
                return (n < 10 ? "0" : "") + n;
        }

        function fmtTime(ms) {
                var d = new Date(ms);
                if (!finite(ms) || ms <= 0) return "n/a";
                return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " +
                       pad(d.getHours()) + ":" + pad(d.getMinutes());
        }

        /* A time axis's tick: seconds within two hours, minutes within two days, else days. */
        function fmtTick(ms, spanMs) {
                var d = new Date(ms);
                if (spanMs < 2 * 3600e3) return pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds());
                if (spanMs < 2 * 86400e3) return pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " + pad(d.getHours()) +
                                                 ":" + pad(d.getMinutes());
                return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate());
        }

        function fmtTimeFull(usec) {
                var d = new Date(usec / 1000);
                if (!finite(usec) || usec <= 0) return "n/a";
                return fmtTime(usec / 1000) + ":" + pad(d.getSeconds());
        }

        function jsonColumn(o, key) {
                var s = o ? o[key] : null;
                if (typeof s !== "string") return s && typeof s === "object" ? s : null;
                try { return JSON.parse(s); } catch (e) { return null; }
        }

        /* record.c's run_bytes_per_sec, run_iops, sample_bytes_per_sec, sample_iops. */
        function secs(usec) {
                return finite(usec) && usec > 0 ? usec / 1e6 : NaN;
        }

        function rate(rec, s) {
                var has = finite(rec.bytes_read) || finite(rec.bytes_written);
                if (has && finite(s)) return ((rec.bytes_read || 0) + (rec.bytes_written || 0)) / s;
                if (finite(rec.mib_per_s)) return rec.mib_per_s * 1048576;
                if (finite(rec.mb_per_s)) return rec.mb_per_s * 1e6;
                return NaN;
        }

        function iops(rec, s) {
                var has = finite(rec.ios_read) || finite(rec.ios_written);
                var n = (rec.ios_read || 0) + (rec.ios_written || 0);
                if (has && finite(s)) {
                        if (n === 0 && finite(rec.ops) && rec.ops > 0) return rec.ops / s;
                        return n / s;
                }
                return finite(rec.iops) ? rec.iops : NaN;
        }

        function runRate(run) { return rate(run, secs(run.duration_usec)); }
        function runIops(run) { return iops(run, secs(run.duration_usec)); }

        function sampleSecs(smp, prevMs) {
                if (finite(smp.interval_us) && smp.interval_us > 0) return smp.interval_us / 1e6;
                if (finite(smp.t_ms) && smp.t_ms > prevMs) return (smp.t_ms - prevMs) / 1e3;
                return NaN;
        }

        function orNull(v) {
                return finite(v) ? v : null;
        }

        /* ---- plugins of our own ---- */

        /* Error bars: a dataset's "errors" (one ± value per bar, null for none), drawn over its bars. */
        var errorBars = {
                id: "benchdErrorBars",
                afterDatasetsDraw: function (c) {
                        var ctx = c.ctx;
                        c.data.datasets.forEach(function (ds, i) {
                                var meta = c.getDatasetMeta(i), scale = meta.vScale;
                                if (!ds.errors || meta.hidden || !scale) return;
                                meta.data.forEach(function (bar, k) {
                                        var e = ds.errors[k], v = ds.data[k], top, bot, w;
                                        if (!finite(e) || !finite(v) || e <= 0) return;
                                        top = scale.getPixelForValue(v + e);
                                        bot = scale.getPixelForValue(Math.max(v - e, scale.min));
                                        w = Math.max(2, Math.min(bar.width / 4, 6));
                                        ctx.save();
                                        ctx.strokeStyle = "#24292f";
                                        ctx.lineWidth = 1.2;
                                        ctx.beginPath();
                                        ctx.moveTo(bar.x, top); ctx.lineTo(bar.x, bot);
                                        ctx.moveTo(bar.x - w, top); ctx.lineTo(bar.x + w, top);
                                        ctx.moveTo(bar.x - w, bot); ctx.lineTo(bar.x + w, bot);
                                        ctx.stroke();
                                        ctx.restore();
                                });
                        });
                }
        };

        /* Text over bars: a dataset's "notes" (the % against the baseline), above the error bar. */
        var barNotes = {
                id: "benchdBarNotes",
                afterDatasetsDraw: function (c) {
                        var ctx = c.ctx;
                        c.data.datasets.forEach(function (ds, i) {
                                var meta = c.getDatasetMeta(i), scale = meta.vScale;
                                if (!ds.notes || meta.hidden || !scale) return;
                                meta.data.forEach(function (bar, k) {
                                        var t = ds.notes[k], v = ds.data[k], e = ds.errors ? ds.errors[k] : 0;
                                        if (!t || !finite(v)) return;
                                        ctx.save();
                                        ctx.fillStyle = "#24292f";
                                        ctx.font = "10px sans-serif";
                                        ctx.textAlign = "center";
                                        ctx.fillText(t, bar.x, scale.getPixelForValue(v + (finite(e) ? e : 0)) - 4);
                                        ctx.restore();
                                });
                        });
                }
        };

        /* Vertical lines at x values: options.plugins.benchdMarkers.lines = [{x, label, color}]. */
        var markers = {
                id: "benchdMarkers",
                afterDatasetsDraw: function (c, args, opts) {
                        var ctx = c.ctx, xs = c.scales.x, area = c.chartArea;
                        ((opts && opts.lines) || []).forEach(function (m, i) {
                                var x;
                                if (!finite(m.x) || m.x <= 0) return;
                                x = xs.getPixelForValue(m.x);
                                if (x < area.left || x > area.right) return;
                                ctx.save();
                                ctx.strokeStyle = m.color;
                                ctx.fillStyle = m.color;
                                ctx.setLineDash([4, 3]);
                                ctx.lineWidth = 1.5;
                                ctx.beginPath();
                                ctx.moveTo(x, area.top);
                                ctx.lineTo(x, area.bottom);
                                ctx.stroke();
                                ctx.setLineDash([]);
                                ctx.font = "10px sans-serif";
                                ctx.textAlign = x > area.right - 60 ? "right" : "left";
                                ctx.fillText(m.label, x + (ctx.textAlign === "left" ? 3 : -3), area.top + 10 + 11 * i);
                                ctx.restore();
                        });
                }
        };

        /* The regression marks a history chart drew: for each point of a flagged run inside the chart
         * area, the run and the point's x and y read back from the scales (so a test can tell the mark
         * sits on the run's time and figure). Kept per chart, counted into the page's state. */
        var regressionMarks = {
                id: "benchdRegressionMarks",
                afterDatasetsDraw: function (c) {
                        var area = c.chartArea, xs = c.scales.x, ys = c.scales.y, drawn = [];
                        c.data.datasets.forEach(function (ds, i) {
                                var meta = c.getDatasetMeta(i);
                                if (meta.hidden) return;
                                meta.data.forEach(function (pt, k) {
                                        var raw = ds.data[k];
                                        if (!raw || !ds.marked || !ds.marked[k]) return;
                                        if (pt.x < area.left - 1 || pt.x > area.right + 1 || pt.y < area.top - 1 ||
                                            pt.y > area.bottom + 1)
                                                return;
                                        drawn.push({ run: raw.run, x: xs.getValueForPixel(pt.x), y: ys.getValueForPixel(pt.y) });
                                });
                        });
                        c.$benchdMarks = drawn;
                }
        };

        /* A grouped bar chart: labels × series, each series {name, values, errors, notes}. */
        function barChart(parent, title, labels, series, yTitle, wide) {
                chart(parent, title, {
                        type: "bar",
                        data: {
                                labels: labels,
                                datasets: series.map(function (s, i) {
                                        return { label: s.name, data: s.values, errors: s.errors, notes: s.notes,
                                                 backgroundColor: PALETTE[i % PALETTE.length] + "cc",
                                                 borderColor: PALETTE[i % PALETTE.length], borderWidth: 1 };
                                })
                        },
                        options: {
                                layout: { padding: { top: 14 } },
                                scales: {
                                        y: { beginAtZero: true, grace: "8%", title: { display: true, text: yTitle } }
                                },
                                plugins: {
                                        tooltip: {
                                                callbacks: {
                                                        afterLabel: function (it) {
                                                                var ds = it.dataset, k = it.dataIndex, out = [];
                                                                if (ds.errors && finite(ds.errors[k]))
                                                                        out.push("± " + ds.errors[k].toFixed(2) + " (stddev)");
                                                                if (ds.notes && ds.notes[k]) out.push(ds.notes[k] + " vs baseline");
                                                                return out.join("\n");
                                                        }
                                                }
                                        }
                                }
                        },
                        plugins: [errorBars, barNotes]
                }, wide);
        }

        function lineOptions(xTitle, yTitle, extra) {
                var o = {
                        parsing: false,
                        normalized: true,
                        interaction: { mode: "nearest", intersect: false },
                        elements: { point: { radius: 0 }, line: { borderWidth: 1.5 } },
                        scales: {
                                x: { type: "linear", title: { display: true, text: xTitle } },
                                y: { beginAtZero: true, title: { display: true, text: yTitle } }
                        }
                };
                Object.keys(extra || {}).forEach(function (k) { o[k] = extra[k]; });
                return o;
        }

        function series(label, points, i, more) {
                var ds = { label: label, data: points, borderColor: PALETTE[i % PALETTE.length],
                           backgroundColor: PALETTE[i % PALETTE.length] + "33" };
                if (points.pointRadius !== undefined) ds.pointRadius = points.pointRadius;
                Object.keys(more || {}).forEach(function (k) { ds[k] = more[k]; });
                return ds;
        }

        /* ---- one run: summary, provenance, samples over time, the latency histogram ---- */

        function runSummary(parent, run) {
                var rows = [
                        ["Throughput", fmtMiB(runRate(run)) + " (read " + fmtBytes(run.bytes_read || 0) + ", written " +
                         fmtBytes(run.bytes_written || 0) + ")"],
                        ["IOPS", num(runIops(run), 0) + " (read " + (run.ios_read || 0) + ", written " +
                         (run.ios_written || 0) + " I/Os)"],
                        ["Latency", "min " + fmtNs(run.lat_min_ns) + ", mean " + fmtNs(run.lat_mean_ns) + ", stddev " +
                         fmtNs(run.lat_stddev_ns) + ", max " + fmtNs(run.lat_max_ns)],
                        ["Percentiles", "p50 " + fmtNs(run.lat_p50_ns) + ", p90 " + fmtNs(run.lat_p90_ns) + ", p95 " +
                         fmtNs(run.lat_p95_ns) + ", p99 " + fmtNs(run.lat_p99_ns) + ", p99.9 " + fmtNs(run.lat_p999_ns)],
                        ["CPU", "user " + fmtPct(run.cpu_user_pct) + ", system " + fmtPct(run.cpu_sys_pct) + ", iowait " +
                         fmtPct(run.iowait_pct)],
                        ["Device use", fmtPct(run.dev_util_pct)],
                        ["Spec", "block size " + fmtBytes(run.block_size) + ", size " + fmtBytes(run.size) + ", qd " +
                         (run.queue_depth || 1) + " × " + (run.jobs || 1) + " jobs" + (run.direct ? ", direct" : "") +
                         ", sync " + (run.sync || "none")],
                        ["Started", fmtTimeFull(run.started_usec) + ", measured " + num(secs(run.duration_usec), 2) + " s"],
                        ["Status", (run.status || "?") + (run.error ? ": " + run.error : "")]
                ];
                if (finite(run.ops) && run.ops > 0)
                        rows.splice(2, 0, ["Operations", run.ops + " (" + num(run.ops_per_s, 1) + "/s)"]);
                if (finite(run.process_cpu_pct))
                        rows.push(["Worker CPU", fmtPct(run.process_cpu_pct) + " of one CPU (bonnie++'s %CP)"]);
                if (finite(run.device_bytes_read))
                        rows.push(["Device saw", fmtBytes(run.device_bytes_read) + " read, " +
                                   fmtBytes(run.device_bytes_written) + " written" +
                                   (finite(run.backing_bytes_read) ? "; the disk under its image " +
                                    fmtBytes(run.backing_bytes_read) + " read, " + fmtBytes(run.backing_bytes_written) +
                                    " written" : "")]);
                if (run.served_from)
                        rows.push(["Served", run.served_from === "device" ? "by the device" :
                                   run.served_from === "page-cache" ?
                                   "+++++ by the page cache, not the device: the figures are the cache's" :
                                   "+++++ by the loop device's backing file (the host's cache, or a sparse image's " +
                                   "holes), not a disk: the figures are the cache's"]);
                table(parent, null, rows.map(function (r) { return [{ th: true, text: r[0] }, r[1]]; }), "kv");
        }

        function provenance(parent, run) {
                var env = jsonColumn(run, "environment") || {};
                var members = jsonColumn(run, "members");
                var rows = [
                        ["Target", run.target],
                        ["Device", [run.device_name, run.device_model, run.device_serial].filter(Boolean).join(", ")],
                        ["Filesystem", run.fs_type],
                        ["mkfs", run.mkfs_command || run.mkfs_options],
                        ["Mount options", run.mount_options],
                        ["Layout", run.layout ? run.layout + (members ? " of " + members.join(", ") : "") : null],
                        ["Kernel", env.kernel ? env.kernel + (env.machine ? " (" + env.machine + ")" : "") : null],
                        ["Scheduler", env.scheduler],
                        ["Stack", Array.isArray(env.stack) && env.stack.length ?
                                  env.stack.map(function (x) {
                                          return typeof x === "string" ? x : (x.name || "?") + (x.type ? " (" + x.type + ")" : "");
                                  }).join(" → ")
                                  : null],
                        ["Host", env.host ? env.host + (env.cpus ? ", " + env.cpus + " CPUs" : "") +
                                 (env.cpu ? " (" + env.cpu + ")" : "") : null],
                        ["Loop device", Array.isArray(env.loop) && env.loop.length ?
                                        env.loop.map(function (l) {
                                                return (l.name || "?") + " over " + (l.backing_file || "?") +
                                                       (l.backing_fs ? " on " + l.backing_fs : "") +
                                                       (l.backing_sparse ? ", sparse" : "") +
                                                       (l.direct_io === false ? ", buffered by the host's page cache" :
                                                        l.direct_io ? ", direct I/O" : "");
                                        }).join("; ")
                                        : null],
                        ["benchd", env.benchd_version],
                        ["Label", run.label],
                        ["Tags", (jsonColumn(run, "tags") || []).join(", ")]
                ].filter(function (r) { return r[1] !== null && r[1] !== undefined && r[1] !== ""; });
                parent.appendChild(h("h3", { text: "Provenance" }));
                table(parent, null, rows.map(function (r) { return [{ th: true, text: r[0] }, String(r[1])]; }), "kv");
        }

        function runSamples(parent, run) {
                var smp = Array.isArray(run.samples) ? run.samples : [];
                var prev = 0, mib = [], io = [], p50 = [], p99 = [], iow = [], util = [];
                var g;
                if (smp.length === 0) {
                        note(parent, "No samples: the run was shorter than one sample interval.");
                        return;
                }
                smp.forEach(function (s) {
                        var t = (s.t_ms || 0) / 1e3, sec = sampleSecs(s, prev);
                        mib.push({ x: t, y: orNull(rate(s, sec) / 1048576) });
                        io.push({ x: t, y: orNull(iops(s, sec)) });
                        p50.push({ x: t, y: orNull(s.lat_p50_ns / 1e3) });
                        p99.push({ x: t, y: orNull(s.lat_p99_ns / 1e3) });
                        iow.push({ x: t, y: orNull(s.iowait_pct) });
                        util.push({ x: t, y: orNull(s.dev_util_pct) });
                        prev = s.t_ms || 0;
                });
                g = grid(parent);
                /* Few samples: show them as points, a line alone would not show one. */
                var pr = smp.length <= 60 ? 2.5 : 0;
                [mib, io, p50, p99, iow, util].forEach(function (a) { a.pointRadius = pr; });
                chart(g, "Throughput and IOPS over time", {
                        type: "line",
                        data: { datasets: [series("MiB/s", mib, 0, { yAxisID: "y" }),
                                           series("IOPS", io, 1, { yAxisID: "y2" })] },
                        options: lineOptions("seconds", "MiB/s", {
                                scales: {
                                        x: { type: "linear", title: { display: true, text: "seconds" } },
                                        y: { beginAtZero: true, position: "left", title: { display: true, text: "MiB/s" } },
                                        y2: { beginAtZero: true, position: "right", grid: { drawOnChartArea: false },
                                              title: { display: true, text: "IOPS" } }
                                }
                        })
                });
                chart(g, "Latency over time (per sample)", {
                        type: "line",
                        data: { datasets: [series("p50", p50, 2), series("p99", p99, 1)] },
                        options: lineOptions("seconds", "µs")
                });
                chart(g, "iowait and device utilisation", {
                        type: "line",
                        data: { datasets: [series("iowait %", iow, 3), series("device util %", util, 4)] },
                        options: lineOptions("seconds", "%", {
                                scales: {
                                        x: { type: "linear", title: { display: true, text: "seconds" } },
                                        y: { min: 0, suggestedMax: 100, title: { display: true, text: "%" } }
                                }
                        })
                });
        }

        function histogramTotal(run) {
                var n = 0;
                (Array.isArray(run.histogram) ? run.histogram : []).forEach(function (b) { n += b[1]; });
                return n;
        }

        /* The smallest value of the daemon's log-linear bucket whose largest is upper (histogram.h:
         * exact below 128 ns, above that 128 buckets per power of two). */
        function bucketLower(upper) {
                if (upper < 128) return upper;
                return upper - Math.pow(2, Math.floor(Math.log2(upper)) - 7) + 1;
        }

        function runHistogram(parent, run) {
                var total = histogramTotal(run), pts = [], prev = null;
                if (total === 0) {
                        note(parent, "No latency histogram for this run.");
                        return;
                }
                /* Each bucket as a flat top from its lower to its upper bound; down to zero across
                 * the empty buckets the daemon leaves out. */
                run.histogram.forEach(function (b) {
                        var lo = Math.max(bucketLower(b[0]), 1) / 1e3, up = b[0] / 1e3;
                        if (b[0] <= 0 || b[1] <= 0) return;
                        if (prev === null || bucketLower(b[0]) > prev + 1) {
                                if (prev !== null) pts.push({ x: prev / 1e3, y: 0 });
                                pts.push({ x: lo, y: 0 });
                        }
                        pts.push({ x: lo, y: b[1] }, { x: up, y: b[1] });
                        prev = b[0];
                });
                pts.push({ x: prev / 1e3, y: 0 });
                chart(grid(parent), "Latency distribution (" + total + " I/Os; bucket upper bounds)", {
                        type: "line",
                        data: { datasets: [series("I/Os", pts, 0, { fill: "origin", pointRadius: 0, borderWidth: 1 })] },
                        options: lineOptions("latency, µs (log)", "I/Os", {
                                scales: {
                                        x: { type: "logarithmic", title: { display: true, text: "latency, µs (log scale)" },
                                             ticks: { callback: function (v) {
                                                     var l = Math.log10(v);
                                                     return Math.abs(l - Math.round(l)) < 1e-9 ? fmtNs(v * 1e3) : "";
                                             } } },
                                        y: { beginAtZero: true, title: { display: true, text: "I/Os" } }
                                },
                                plugins: {
                                        legend: { display: false },
                                        benchdMarkers: { lines: [
                                                { x: run.lat_p50_ns / 1e3, label: "p50 " + fmtNs(run.lat_p50_ns), color: "#1a7f37" },
                                                { x: run.lat_p99_ns / 1e3, label: "p99 " + fmtNs(run.lat_p99_ns), color: "#bf8700" },
                                                { x: run.lat_p999_ns / 1e3, label: "p99.9 " + fmtNs(run.lat_p999_ns), color: "#d1242f" }
                                        ] }
                                }
                        }),
                        plugins: [markers]
                }, true);
        }

        function runSection(run) {
                var s = section(main, "Run " + run.id + ": " + (run.workload || "?") + " " + fmtBytes(run.block_size) +
                                (run.fs_type ? " on " + run.fs_type : "") +
                                (run.device_name ? " (" + run.device_name + ")" : ""), "run");
                runSummary(s, run);
                runSamples(s, run);
                runHistogram(s, run);
                provenance(s, run);
        }

        /* ---- job views ---- */

        function iozoneView(v) {
                var s = section(main, "iozone: " + (v.unit || "KB/s") + " by record size");
                var sizes = v.file_sizes || [], g = grid(s), recs = {};
                sizes.forEach(function (fs) { (fs.records || []).forEach(function (r) { recs[r.block_size / 1024] = 1; }); });
                var ticks = Object.keys(recs).map(Number).sort(function (a, b) { return a - b; });
                IOZONE_TESTS.forEach(function (t, ti) {
                        var ds = [];
                        sizes.forEach(function (fs, i) {
                                var pts = (fs.records || []).filter(function (r) { return finite(r[t]) && r[t] > 0; })
                                        .map(function (r) { return { x: r.block_size / 1024, y: r[t] }; })
                                        .sort(function (a, b) { return a.x - b.x; });
                                if (pts.length)
                                        ds.push(series("file " + fmtBytes(fs.size), pts, i, { pointRadius: 3 }));
                        });
                        if (!ds.length) return;
                        chart(g, IOZONE_TITLES[ti] + " report", {
                                type: "line",
                                data: { datasets: ds },
                                options: lineOptions("record size, kB (log)", "KB/s (log)", {
                                        scales: {
                                                x: { type: "logarithmic", title: { display: true, text: "record size, kB (log)" },
                                                     afterBuildTicks: function (ax) {
                                                             ax.ticks = ticks.map(function (x) { return { value: x }; });
                                                     },
                                                     ticks: { callback: function (x) { return String(x); } } },
                                                y: { type: "logarithmic", title: { display: true, text: "KB/s (log)" } }
                                        }
                                })
                        });
                });
                sizes.forEach(function (fs) {
                        s.appendChild(h("h3", { text: "File size " + fmtBytes(fs.size) + " (" + fs.size / 1024 + " kB), KB/s" }));
                        var rows = (fs.records || []).slice().sort(function (a, b) { return a.block_size - b.block_size; })
                                .map(function (r) {
                                        return [fs.size / 1024, r.block_size / 1024].concat(IOZONE_TESTS.map(function (t) {
                                                return finite(r[t]) ? r[t] : "-";
                                        }));
                                });
                        table(s, ["kB", "reclen"].concat(IOZONE_TITLES), rows);
                });
        }

        /* bonnie++'s table in bon_csv2html's layout (M/sec = K/sec ÷ 1024, rounded). */
        function bonnieView(v) {
                var f = v.fields || {}, s = section(main, "bonnie++");
                var files = f.num_files !== "" && f.num_files !== undefined;
                function m(k) {
                        var x = parseFloat(f[k]);
                        /* +++++: a cache served the test (bon_csv2html divides it to 0). */
                        if (typeof f[k] === "string" && f[k].charAt(0) === "+")
                                return f[k];
                        return f[k] === "" || f[k] === undefined || !isFinite(x) ? "" : String(Math.round(x / 1024));
                }
                function c(text, colspan, cls, rowspan) {
                        return { text: text, colspan: colspan, cls: cls, rowspan: rowspan };
                }
                function hc(text, colspan, rowspan) {
                        return { th: true, text: text, colspan: colspan, rowspan: rowspan };
                }
                var ks = [];
                for (var i = 0; i < 6; i++) ks.push(hc("M/sec"), hc("% CPU"));
                ks[10] = hc("/sec");
                var fk = [];
                for (i = 0; i < 6; i++) fk.push(hc("/sec"), hc("% CPU"));
                var rows = [
                        [hc("Version " + (f.bonnie_version || ""), 2), hc("Sequential Output", 6), hc("Sequential Input", 4),
                         hc("Random Seeks", 2, 2), hc("", 4), hc("Sequential Create", 6), hc("Random Create", 6)],
                        [hc(""), hc("Size"), hc("Per Char", 2), hc("Block", 2), hc("Rewrite", 2), hc("Per Char", 2),
                         hc("Block", 2), hc("Num Files"), hc("Max Size"), hc("Min Size"), hc("Num Dirs"),
                         hc("Create", 2), hc("Read", 2), hc("Delete", 2), hc("Create", 2), hc("Read", 2), hc("Delete", 2)],
                        [hc("", 2)].concat(ks, [hc("", 4)], fk),
                        [c(f.name, 1, "", 2), c(f.file_size), c(m("putc")), c(f.putc_cpu), c(m("put_block")),
                         c(f.put_block_cpu), c(m("rewrite")), c(f.rewrite_cpu), c(m("getc")), c(f.getc_cpu),
                         c(m("get_block")), c(f.get_block_cpu), c(f.seeks), c(f.seeks_cpu), c(f.num_files),
                         c(f.max_size), c(f.min_size), c(f.num_dirs), c(f.seq_create), c(f.seq_create_cpu), c(f.seq_stat),
                         c(f.seq_stat_cpu), c(f.seq_del), c(f.seq_del_cpu), c(f.ran_create), c(f.ran_create_cpu),
                         c(f.ran_stat), c(f.ran_stat_cpu), c(f.ran_del), c(f.ran_del_cpu)],
                        [hc("Latency"), c(f.putc_latency, 2), c(f.put_block_latency, 2), c(f.rewrite_latency, 2),
                         c(f.getc_latency, 2), c(f.get_block_latency, 2), c(f.seeks_latency, 2), c("", 2),
                         hc("Latency", 2), c(f.seq_create_latency, 2), c(f.seq_stat_latency, 2), c(f.seq_del_latency, 2),
                         c(f.ran_create_latency, 2), c(f.ran_stat_latency, 2), c(f.ran_del_latency, 2)]
                ];
                rows[2].forEach(function (x) { x.cls = "ksec"; });
                table(s, null, rows, "bonnie");
                note(s, "The table bon_csv2html draws from `benchctl export --format bonnie-csv --job " + v.job +
                     "`: M/sec is K/sec ÷ 1024 rounded (for Per Char too, which bon_csv2html prints unconverted); " +
                     "%CP is percent of " + (v.cpu_pct_of || "one CPU") + (files ? "" : "; no metadata tests") +
                     "; +++++ marks a test a cache served rather than the device (bon_csv2html shows it as 0).");
                s.appendChild(h("pre", { cls: "tool", text: v.csv || "" }));
        }

        function crystalView(v) {
                var s = section(main, "CrystalDiskMark's grid");
                var tests = v.tests || [];
                barChart(grid(s), "MB/s (10^6 bytes/s)", tests.map(function (t) { return t.test; }), [
                        { name: "read", values: tests.map(function (t) { return t.read ? orNull(t.read.mb_per_s) : null; }) },
                        { name: "write", values: tests.map(function (t) { return t.write ? orNull(t.write.mb_per_s) : null; }) }
                ], "MB/s", true);
                table(s, ["TEST", "READ MB/s", "READ IOPS", "READ µs", "WRITE MB/s", "WRITE IOPS", "WRITE µs"],
                      tests.map(function (t) {
                              var r = t.read || {}, w = t.write || {};
                              return [t.test, orNull(r.mb_per_s) === null ? "-" : +r.mb_per_s.toFixed(2),
                                      finite(r.iops) ? +r.iops.toFixed(2) : "-", finite(r.lat_mean_us) ? +r.lat_mean_us.toFixed(2) : "-",
                                      finite(w.mb_per_s) ? +w.mb_per_s.toFixed(2) : "-", finite(w.iops) ? +w.iops.toFixed(2) : "-",
                                      finite(w.lat_mean_us) ? +w.lat_mean_us.toFixed(2) : "-"];
                      }));
        }

        function ddView(v) {
                var s = section(main, "dd's closing lines");
                (v.directions || []).forEach(function (d) {
                        s.appendChild(h("h3", { text: d.workload + ", as " + d.command }));
                        s.appendChild(h("pre", { cls: "tool", text: (d.lines || []).join("\n") }));
                        note(s, "latency p50 " + fmtNs(d.lat_p50_ns) + ", p99 " + fmtNs(d.lat_p99_ns) + "; iowait " +
                             fmtPct(d.iowait_pct) + ", CPU user " + fmtPct(d.cpu_user_pct) + " sys " + fmtPct(d.cpu_sys_pct));
                });
        }

        function pingView(v) {
                var s = section(main, "ioping's summary");
                s.appendChild(h("pre", { cls: "tool", text: v.text || "" }));
        }

        function stepsView(v) {
                var s = section(main, "Steps");
                var steps = v.steps || [];
                barChart(grid(s), "MB/s per step (mean ± stddev of its runs)", steps.map(function (x) {
                        return (x.step + 1) + " " + x.workload + " " + fmtBytes(x.block_size);
                }), [{
                        name: "MB/s",
                        values: steps.map(function (x) { return orNull(x.mb_per_s.mean); }),
                        errors: steps.map(function (x) { return x.n > 1 ? orNull(x.mb_per_s.stddev) : null; })
                }], "MB/s", true);
                table(s, ["STEP", "WORKLOAD", "BS", "N", "MB/s", "±", "IOPS", "P99"], steps.map(function (x) {
                        return [x.step + 1, x.workload, fmtBytes(x.block_size), x.n, num(x.mb_per_s.mean),
                                x.n > 1 ? num(x.mb_per_s.stddev) : "", num(x.iops.mean, 0), fmtNs(x.lat_p99_ns.mean)];
                }));
        }

        /* ---- filesystem matrix and compare --by: grouped bars against a baseline ---- */

        /* A matrix job (show --job --json of one): each entry's own view, titled by where it ran, then
         * the entries compared (compare --job's cells) and how each filesystem was made. */
        function matrixView(v) {
                (v.entries || []).forEach(function (e) {
                        entryPrefix = e.place || e.name;
                        if (e.view) viewSection(e.view);
                        else note(section(main, "no run succeeded"), "The entry has no succeeded run to show.");
                        entryPrefix = "";
                });
                if (v.compare) matrixSection(v.compare, v.entries || [], v.profile);
        }

        /* The rows of compare cells: workload shape → {row, workload, block_size, groups: {name: cell}}. */
        function compareRows(C) {
                var rows = [], byRow = {};
                (C.cells || []).forEach(function (c) {
                        var label = (c.workload || "?") + " " + fmtBytes(c.block_size) + " Q" + (c.queue_depth || 1) +
                                    "×" + (c.jobs || 1);
                        if (!byRow[label]) {
                                byRow[label] = { row: label, workload: c.workload, block_size: c.block_size,
                                                 shape: "Q" + (c.queue_depth || 1) + "×" + (c.jobs || 1), groups: {} };
                                rows.push(byRow[label]);
                        }
                        byRow[label].groups[c.group] = c;
                });
                return rows;
        }

        function testName(C) {
                var paired = false, welch = false;
                (C.cells || []).forEach(function (c) {
                        COMPARE_METRICS.forEach(function (cm) {
                                var t = (c[cm.key] || {}).test;
                                if (t === "paired") paired = true;
                                if (t === "welch") welch = true;
                        });
                });
                return paired && welch ? "paired t-test over the rounds, elsewhere Welch's" :
                       paired ? "paired t-test over the rounds" : "Welch's t-test";
        }

        /* % differences against the baseline as a heat map, one per other entry: a row per workload (and
         * queue shape), a column per block size; green faster, red slower, pale where not significant. */
        function heatMap(parent, C, rows) {
                var base = C.baseline, sizes = [], lines = [];
                rows.forEach(function (r) {
                        if (sizes.indexOf(r.block_size) < 0) sizes.push(r.block_size);
                        var line = r.workload + (r.shape === "Q1×1" ? "" : " " + r.shape);
                        if (lines.indexOf(line) < 0) lines.push(line);
                });
                sizes.sort(function (a, b) { return a - b; });
                lines.sort(function (a, b) {
                        var x = IOZONE_TESTS.indexOf(a.split(" ")[0]), y = IOZONE_TESTS.indexOf(b.split(" ")[0]);
                        if (x !== y) return (x < 0 ? 99 : x) - (y < 0 ? 99 : y);
                        return a < b ? -1 : a > b ? 1 : 0;
                });
                (C.groups || []).forEach(function (g) {
                        if (g === base) return;
                        parent.appendChild(h("h3", { text: "MiB/s of " + g + " against " + base + ", % (~: not significant)" }));
                        var t = h("table", { cls: "heat" }), tr = h("tr");
                        tr.appendChild(h("th", { text: "" }));
                        sizes.forEach(function (bs) { tr.appendChild(h("th", { text: fmtBytes(bs) })); });
                        t.appendChild(h("thead", null, tr));
                        var body = h("tbody");
                        lines.forEach(function (line) {
                                var row = h("tr");
                                row.appendChild(h("th", { text: line }));
                                sizes.forEach(function (bs) {
                                        var r = rows.filter(function (x) {
                                                return x.block_size === bs && x.workload + (x.shape === "Q1×1" ? "" : " " + x.shape) === line;
                                        })[0];
                                        var f = r && r.groups[g] ? r.groups[g].mib_per_s || {} : {};
                                        var td = h("td", { cls: "num" });
                                        if (finite(f.diff_pct)) {
                                                var a = Math.min(Math.abs(f.diff_pct) / 30, 1) * (f.significant ? 0.75 : 0.25);
                                                td.textContent = fmtDiff(f.diff_pct) + (f.significant ? "" : " ~");
                                                td.style.backgroundColor = (f.diff_pct >= 0 ? "rgba(26,127,55," : "rgba(209,36,47,") +
                                                                           a.toFixed(3) + ")";
                                        } else
                                                td.textContent = "";
                                        row.appendChild(td);
                                });
                                body.appendChild(row);
                        });
                        t.appendChild(body);
                        parent.appendChild(h("div", { cls: "table-wrap" }, t));
                });
        }

        /* compare --job's cells: bar charts per figure for a few rows; for many (iozone's tests × record
         * sizes) a heat map of the % differences, and per iozone test KB/s against record size, a line
         * per entry. Then the table of every figure and how each filesystem was made. */
        function matrixSection(C, entries, profile) {
                var base = C.baseline, groups = C.groups || [], rows = compareRows(C);
                var level = Math.round((C.level || 0.95) * 100);
                var s = section(main, "Filesystem matrix: " + groups.join(", ") + "; % against " + base +
                                " (~: not significant at " + level + "%, " + testName(C) + ")");
                var iozone = profile === "iozone";
                if (!iozone && rows.length <= 16)
                        compareCharts(grid(s), C, rows);
                else {
                        heatMap(s, C, rows);
                        if (iozone)
                                matrixIozone(s, C, rows);
                }
                compareTable(s, C, rows);
                s.appendChild(h("h3", { text: "How each filesystem was made" }));
                table(s, ["ENTRY", "MEMBERS", "MKFS", "MKFS TIME", "MADE", "SIZE", "USED", "AVAIL", "MOUNT OPTIONS"],
                      entries.map(function (e) {
                              return [e.name, (e.members || []).join(", "), e.mkfs_command || "", finite(e.mkfs_usec) ?
                                      (e.mkfs_usec / 1e3).toFixed(0) + " ms" : "-",
                                      finite(e.filesystems_made) ? e.filesystems_made + "×" : "-", fmtBytes(e.fs_size_bytes),
                                      fmtBytes(e.fs_used_bytes), fmtBytes(e.fs_avail_bytes), e.mount_options || ""];
                      }));
        }

        /* An iozone job run as a filesystem matrix: per iozone test, KB/s against record size on log
         * scales with a line per entry, from the cells (workload, block_size) and each entry's mean
         * (over the file sizes of the profile and the rounds). */
        function matrixIozone(parent, C, rows) {
                var g = grid(parent), recs = {};
                rows.forEach(function (r) {
                        if (IOZONE_TESTS.indexOf(r.workload) >= 0 && r.block_size > 0) recs[r.block_size / 1024] = 1;
                });
                var ticks = Object.keys(recs).map(Number).sort(function (a, b) { return a - b; });
                IOZONE_TESTS.forEach(function (t, ti) {
                        var mine = rows.filter(function (r) { return r.workload === t && r.block_size > 0; });
                        var ds = [];
                        (C.groups || []).forEach(function (e, i) {
                                var pts = mine.filter(function (r) {
                                        var v = ((r.groups[e] || {}).mib_per_s || {}).mean;
                                        return finite(v) && v > 0;
                                }).map(function (r) { return { x: r.block_size / 1024, y: r.groups[e].mib_per_s.mean * 1024 }; })
                                        .sort(function (a, b) { return a.x - b.x; });
                                if (pts.length)
                                        ds.push(series(e, pts, i, { pointRadius: 3 }));
                        });
                        if (!ds.length) return;
                        chart(g, IOZONE_TITLES[ti] + " report, per entry (KB/s, mean over file sizes and rounds)", {
                                type: "line",
                                data: { datasets: ds },
                                options: lineOptions("record size, kB (log)", "KB/s (log)", {
                                        scales: {
                                                x: { type: "logarithmic", title: { display: true, text: "record size, kB (log)" },
                                                     afterBuildTicks: function (ax) {
                                                             ax.ticks = ticks.map(function (x) { return { value: x }; });
                                                     },
                                                     ticks: { callback: function (x) { return String(x); } } },
                                                y: { type: "logarithmic", title: { display: true, text: "KB/s (log)" } }
                                        }
                                })
                        });
                });
        }

        var COMPARE_METRICS = [
                { key: "mib_per_s", title: "MiB/s", scale: 1 },
                { key: "iops", title: "IOPS", scale: 1 },
                { key: "lat_p50_ns", title: "p50 latency, µs", scale: 1e-3 },
                { key: "lat_p99_ns", title: "p99 latency, µs", scale: 1e-3 }
        ];

        function fig(c, key) { return (c && c[key]) || {}; }

        function diffText(c, key) {
                var f = fig(c, key);
                if (!finite(f.diff_pct)) return "";
                return fmtDiff(f.diff_pct) + (f.significant ? "" : " ~");
        }

        /* A bar chart per figure some cell has: rows as groups of bars, a bar per group. */
        function compareCharts(g, C, rows) {
                var groups = C.groups || [], base = C.baseline;
                COMPARE_METRICS.forEach(function (cm) {
                        var any = rows.some(function (r) {
                                return groups.some(function (k) { return finite(fig(r.groups[k], cm.key).mean); });
                        });
                        if (!any) return;
                        barChart(g, cm.title + " (mean ± stddev of the runs)", rows.map(function (r) { return r.row; }),
                                 groups.map(function (k) {
                                         return {
                                                 name: k,
                                                 values: rows.map(function (r) { return orNull(fig(r.groups[k], cm.key).mean * cm.scale); }),
                                                 errors: rows.map(function (r) { return orNull(fig(r.groups[k], cm.key).stddev * cm.scale); }),
                                                 notes: rows.map(function (r) { return k === base ? "" : diffText(r.groups[k], cm.key); })
                                         };
                                 }), cm.title);
                });
        }

        function compareTable(s, C, rows) {
                var groups = C.groups || [], base = C.baseline, trs = [];
                rows.forEach(function (r) {
                        trs.push([r.row, "runs"].concat(groups.map(function (k) { return (r.groups[k] || {}).runs || 0; })));
                        COMPARE_METRICS.forEach(function (cm) {
                                trs.push({ cls: cm.key === "mib_per_s" ? "" : "pct", cells: ["", cm.title].concat(groups.map(function (k) {
                                        var v = fig(r.groups[k], cm.key).mean;
                                        if (!finite(v)) return "-";
                                        return num(v * cm.scale, cm.key === "iops" ? 0 : 1) +
                                               (k === base ? "" : " (" + diffText(r.groups[k], cm.key) + ")");
                                })) });
                        });
                });
                table(s, ["WORKLOAD", ""].concat(groups), trs);
        }

        /* compare --by's JSON (Manager.CompareRuns): cells of a row (workload shape) and a group, each
         * figure with n, mean, stddev, ci_low/ci_high and, against the baseline, diff_pct and
         * significant (Welch's t-test, or the paired one over a matrix's rounds). */
        function compareSection(C, by) {
                var rows = compareRows(C);
                var level = Math.round((C.level || 0.95) * 100);
                var s = section(main, "Compared by " + by + ": % against " + C.baseline +
                                " (~: not significant at " + level + "%, " + testName(C) + ")");
                compareCharts(grid(s), C, rows);
                compareTable(s, C, rows);
        }

        /* ---- history: a figure over time per device, one chart per workload shape ---- */

        function shapeOf(run) {
                return (run.workload || "?") + " " + fmtBytes(run.block_size) + " Q" + (run.queue_depth || 1) + "×" +
                       (run.jobs || 1);
        }

        function historySection(runs, regs) {
                var s = section(main, "History: MiB/s over time, per device");
                var marked = {};
                (Array.isArray(regs) ? regs : []).forEach(function (x) {
                        var id = x.run_id !== undefined ? x.run_id : x.run !== undefined ? x.run : x.id;
                        if (id !== undefined) marked[id] = x;
                });
                var ok = runs.filter(function (r) { return r.status === "succeeded" && finite(runRate(r)); });
                var shapes = [];
                ok.forEach(function (r) { if (shapes.indexOf(shapeOf(r)) < 0) shapes.push(shapeOf(r)); });
                var g = grid(s);
                shapes.forEach(function (shape) {
                        var mine = ok.filter(function (r) { return shapeOf(r) === shape; });
                        var devs = [], t0 = Infinity, t1 = -Infinity;
                        mine.forEach(function (r) {
                                t0 = Math.min(t0, r.started_usec / 1e3);
                                t1 = Math.max(t1, r.started_usec / 1e3);
                                var d = r.device_name || r.target || "?";
                                if (devs.indexOf(d) < 0) devs.push(d);
                        });
                        chart(g, shape, {
                                type: "line",
                                data: { datasets: devs.map(function (d, i) {
                                        var pts = mine.filter(function (r) { return (r.device_name || r.target || "?") === d; })
                                                .map(function (r) { return { x: r.started_usec / 1e3, y: runRate(r) / 1048576, run: r.id }; })
                                                .sort(function (a, b) { return a.x - b.x; });
                                        return series(d, pts, i, {
                                                marked: pts.map(function (p) { return !!marked[p.run]; }),
                                                pointRadius: pts.map(function (p) { return marked[p.run] ? 7 : 3; }),
                                                pointStyle: pts.map(function (p) { return marked[p.run] ? "triangle" : "circle"; }),
                                                pointBackgroundColor: pts.map(function (p) {
                                                        return marked[p.run] ? "#d1242f" : PALETTE[i % PALETTE.length];
                                                })
                                        });
                                }) },
                                options: lineOptions("started", "MiB/s", {
                                        elements: { line: { borderWidth: 1.5 } },
                                        scales: {
                                                x: { type: "linear", title: { display: true, text: "started" },
                                                     ticks: { maxTicksLimit: 5, maxRotation: 0,
                                                              callback: function (v) { return fmtTick(v, t1 - t0); } } },
                                                y: { beginAtZero: true, title: { display: true, text: "MiB/s" } }
                                        },
                                        plugins: { tooltip: { callbacks: {
                                                title: function (it) { return it.length ? "run " + it[0].raw.run + ", " + fmtTime(it[0].raw.x) : ""; }
                                        } } }
                                }),
                                plugins: [regressionMarks]
                        });
                });
                if (!shapes.length)
                        note(s, "No succeeded run with a throughput among the " + runs.length + " selected.");
                if (regs === null || regs === undefined)
                        note(s, "Regressions are not marked: this benchd has no ListRegressions yet.");
                else
                        note(s, Object.keys(marked).length + " run(s) marked as regressions (red triangles).");
                table(s, ["RUN", "JOB", "STARTED", "WORKLOAD", "BS", "DEVICE", "FS", "MiB/s", "IOPS", "P99", "STATUS"],
                      runs.map(function (r) {
                              return [r.id, r.job_id, fmtTimeFull(r.started_usec), r.workload, fmtBytes(r.block_size),
                                      r.device_name || "-", r.fs_type || "-", num(runRate(r) / 1048576), num(runIops(r), 0),
                                      fmtNs(r.lat_p99_ns), r.status];
                      }));
        }

        /* ---- a fleet run (report --fleet): per step the sum over time, a chart per host ---- */

        function fleetSection(F) {
                var hosts = F.hosts || [], steps = F.all_hosts || [];
                var s = section(main, "Each host's runs");
                table(s, ["HOST", "RUN", "WORKLOAD", "STATUS", "MiB/s", "IOPS", "CLOCK OFFSET", "ROUND TRIP"],
                      [].concat.apply([], hosts.map(function (x) {
                              return (x.runs || []).map(function (r) {
                                      return [x.host, r.id, r.workload, r.status, num(r.mib_per_s, 2), num(r.iops, 0),
                                              num((r.fleet_clock_offset_us || 0) / 1e3, 3) + " ms" +
                                              (r.fleet_start_corrected ? " (start corrected)" : ""),
                                              num((r.fleet_rtt_us || 0) / 1e3, 3) + " ms"];
                              });
                      })));
                steps.forEach(function (st, i) {
                        var ss = section(main, "Fleet run, step " + i + ": all hosts");
                        var begin = st.common_begin_usec, tl = st.timeline || [], g;
                        table(ss, null, [
                                ["hosts in the sum", String(st.hosts)],
                                ["throughput", finite(st.mib_per_s) ? num(st.mib_per_s, 2) + " MiB/s" : "n/a"],
                                ["IOPS", num(st.iops, 0)],
                                ["interval every host was measuring", num((st.common_usec || 0) / 1e6, 3) + " s"],
                                ["latency p50 / p99 (added histograms)", finite(st.lat_p50_ns) ?
                                        fmtNs(st.lat_p50_ns) + " / " + fmtNs(st.lat_p99_ns) : "n/a"],
                                ["first done / last done", st.first_done ? st.first_done + " / " + st.last_done +
                                        " (+" + num((st.done_apart_usec || 0) / 1e6, 3) + " s)" : "n/a"],
                                ["spread of the hosts' MiB/s", finite(st.spread_pct) ? num(st.spread_pct) + "%" : "n/a"]
                        ].map(function (r) { return [{ th: true, text: r[0] }, r[1]]; }), "kv");
                        (st.left_out || []).forEach(function (x) {
                                note(ss, "Left out " + x.host + ": " + x.reason + (x.status ? " (" + x.status + ")" : "") +
                                     (x.samples ? "; it measured " + x.samples + " samples, " +
                                      num(x.measured_usec / 1e6, 3) + " s, " + num(x.mib_per_s, 2) + " MiB/s" :
                                      "; it measured nothing") + ".");
                        });
                        if (tl.length) {
                                var names = Object.keys(tl[0].hosts || {});
                                var sets = [series("all hosts", tl.map(function (b) { return { x: b.t_s, y: b.mib_per_s }; }),
                                                   0, { borderWidth: 2.5 })];
                                names.forEach(function (n, k) {
                                        sets.push(series(n, tl.map(function (b) { return { x: b.t_s, y: b.hosts[n] }; }), k + 1));
                                });
                                chart(ss, "All hosts: MiB/s over the interval every host was measuring", {
                                        type: "line", data: { datasets: sets },
                                        options: lineOptions("seconds from the last host's start", "MiB/s")
                                }, true);
                        } else
                                note(ss, "No interval when every host was measuring: no sum over time.");
                        g = grid(ss);
                        hosts.forEach(function (x, k) {
                                var run = (x.runs || [])[i], smp, base, pts = [], prev = 0;
                                if (!run || !Array.isArray(run.samples) || !run.samples.length) return;
                                smp = run.samples;
                                base = (run.started_usec || 0) - (run.fleet_clock_offset_us || 0);
                                if (!finite(begin)) begin = base;
                                smp.forEach(function (p) {
                                        pts.push({ x: (base + (p.t_ms || 0) * 1e3 - begin) / 1e6,
                                                   y: orNull(rate(p, sampleSecs(p, prev)) / 1048576) });
                                        prev = p.t_ms || 0;
                                });
                                pts.pointRadius = smp.length <= 60 ? 2.5 : 0;
                                chart(g, x.host + ": MiB/s over time (run " + run.id + ")", {
                                        type: "line", data: { datasets: [series(x.host, pts, k + 1)] },
                                        options: lineOptions("seconds from the last host's start", "MiB/s")
                                });
                        });
                });
        }

        /* ---- the page ---- */

        function viewSection(v) {
                if (v.view === "iozone") iozoneView(v);
                else if (v.view === "bonnie") bonnieView(v);
                else if (v.view === "crystal") crystalView(v);
                else if (v.view === "dd") ddView(v);
                else if (v.view === "ping") pingView(v);
                else stepsView(v);
        }

        function build() {
                var v = D.view, i;
                document.getElementById("subtitle").textContent = "Generated " + fmtTimeFull(D.generated_usec) +
                        " by benchctl " + D.benchctl_version + ".";
                if (v) {
                        if (v.view === "matrix") matrixView(v);
                        else viewSection(v);
                }
                if (D.fleet)
                        fleetSection(D.fleet);
                if (D.compare)
                        compareSection(D.compare, D.by);
                if (D.results)
                        historySection(D.results, D.regressions);
                if (D.runs_left_out)
                        note(main, D.runs_left_out + " runs: too many for a section each; `benchctl report RUN` " +
                             "draws one run's samples and histogram.");
                for (i = 0; D.runs && i < D.runs.length; i++)
                        runSection(D.runs[i]);

                var foot = document.getElementById("sources");
                foot.appendChild(h("p", { text: "Every figure here is one that these commands print (the data " +
                                                "embedded in this page is their --json output):" }));
                var ul = h("ul");
                Object.keys(D.sources || {}).forEach(function (k) {
                        [].concat(D.sources[k]).forEach(function (cmd) { ul.appendChild(h("li", null, h("code", { text: cmd }))); });
                });
                foot.appendChild(ul);
        }

        window.addEventListener("beforeprint", function () { charts.forEach(function (c) { c.resize(); }); });
        try {
                build();
        } catch (e) {
                R.errors.push(String(e && e.stack || e));
        }
        R.charts = charts.length;
        R.regression_marks = 0;
        R.regression_points = [];
        charts.forEach(function (c) {
                (c.$benchdMarks || []).forEach(function (m) { R.regression_marks++; R.regression_points.push(m); });
        });
        R.done = true;
        window.benchdReportState();
})();

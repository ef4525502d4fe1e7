#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Loads report pages in one headless Chromium, driven over the DevTools protocol on a pipe
# (--remote-debugging-pipe: JSON messages ended by a NUL on descriptors 3 and 4; no websocket, no
# library), for test-report:
#
#   browser.py CHROMIUM PROFILE_DIR PAGE...
#
# For each PAGE (an HTML file) it writes, as test-report's checks read them:
#   PAGE.dom       the DOM once the page's script ran (document.documentElement.outerHTML)
#   PAGE.console   every console message and uncaught exception of the page, one a line, each
#                  starting with CONSOLE or Uncaught (none is what a good page has)
#   PAGE.1100.png  a screenshot of a 1100x1800 viewport
#   PAGE.420.png   a screenshot of a 420x1400 viewport (the page loaded afresh at that size)
# One browser for every page: starting Chromium is most of the time a page takes (seconds on a
# loaded machine, three times a page before). Exit status 1 with the reason when Chromium fails or
# a page does not load within 60 s.

import base64
import fcntl
import json
import os
import subprocess
import sys
import time

SIZES = ((1100, 1800), (420, 1400))


class Browser:
    def __init__(self, chromium, profile):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        # Chromium reads commands on its fd 3 and writes answers on its fd 4 (moved out of the way
        # first: either end may be 3 or 4 already).
        def child_fds():
            r = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)
            w = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)
            os.dup2(r, 3)
            os.dup2(w, 4)
        self.log = profile + ".log"
        self.proc = subprocess.Popen(
            [chromium, "--headless=new", "--disable-gpu", "--no-sandbox", "--no-first-run", "--disable-extensions",
             "--disable-background-networking", "--user-data-dir=" + profile, "--hide-scrollbars",
             "--remote-debugging-pipe", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(self.log, "w"),
            preexec_fn=child_fds, close_fds=False)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def recv(self, deadline):
        while b"\0" not in self.buf:
            if time.monotonic() > deadline:
                raise TimeoutError("no answer from Chromium")
            chunk = os.read(self.from_chrome, 1 << 20)
            if not chunk:
                raise EOFError("Chromium closed its pipe (its output is in %s)" % self.log)
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=True, timeout=60):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            m = self.recv(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def wait_event(self, name, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            for i, e in enumerate(self.events):
                if e["method"] == name:
                    del self.events[i]
                    return e
            self.events.append(self.recv(deadline))

    def evaluate(self, expr, await_promise=False):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": await_promise})
        if "exceptionDetails" in r:
            raise RuntimeError("evaluating %s: %s" % (expr, r["exceptionDetails"]))
        return r["result"].get("value")

    def load(self, url, width, height):
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        self.events = [e for e in self.events if e["method"] != "Page.loadEventFired"]
        self.call("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired")
        # The page script runs at load; its state says when it is done. Then two frames, so that
        # what it drew is painted.
        deadline = time.monotonic() + 60
        while not self.evaluate("!!(window.benchdReport && window.benchdReport.done)"):
            if time.monotonic() > deadline:
                raise TimeoutError("%s: the page script did not finish in 60 s" % url)
            time.sleep(0.05)
        self.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))", await_promise=True)

    def screenshot(self, path):
        r = self.call("Page.captureScreenshot", {"format": "png"})
        with open(path, "wb") as f:
            f.write(base64.b64decode(r["data"]))

    def console_lines(self):
        """The page's console messages and exceptions since the last call, and drops the rest."""
        out = []
        for e in self.events:
            p = e.get("params", {})
            if e["method"] == "Runtime.consoleAPICalled":
                text = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
                out.append("CONSOLE(%s): %s" % (p.get("type"), text))
            elif e["method"] == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                out.append("Uncaught %s" % d.get("exception", {}).get("description", d.get("text", "")))
            elif e["method"] == "Log.entryAdded":
                entry = p.get("entry", {})
                if entry.get("level") in ("error", "warning"):
                    out.append("CONSOLE(%s, %s): %s %s" % (entry.get("source"), entry.get("level"), entry.get("text"),
                                                           entry.get("url", "")))
        self.events = []
        return out

    def close(self):
        try:
            self.call("Browser.close", session=False, timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def main():
    chromium, profile, pages = sys.argv[1], sys.argv[2], sys.argv[3:]
    b = Browser(chromium, profile)
    try:
        target = b.call("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        b.session = b.call("Target.attachToTarget", {"targetId": target, "flatten": True}, session=False)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            b.call(domain + ".enable")
        for page in pages:
            url = "file://" + os.path.abspath(page)
            console = []
            for i, (w, h) in enumerate(SIZES):
                b.load(url, w, h)
                if i == 0:
                    with open(page + ".dom", "w") as f:
                        f.write(b.evaluate("document.documentElement.outerHTML"))
                b.screenshot("%s.%d.png" % (page, w))
                console += b.console_lines()
            with open(page + ".console", "w") as f:
                f.write("".join(line + "\n" for line in console))
            print("loaded %s" % page, flush=True)
    except (OSError, EOFError, TimeoutError, RuntimeError, KeyError) as e:
        sys.exit("browser.py: %s" % e)
    finally:
        b.close()


if __name__ == "__main__":
    main()

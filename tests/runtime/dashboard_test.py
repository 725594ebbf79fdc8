#!/usr/bin/python3
"""The scheduler's /metrics and live dashboard against a live local cluster (docs/runtime.md, "Dashboard and
metrics"): `weft cluster up` prints the dashboard address before the scheduler's, HTTPS with the cluster's own
certificate, which every request here pins (Python trusts that file alone; Chromium gets its public key's hash in
--ignore-certificate-errors-spki-list, so any other certificate still fails); a known workload is run for
real; /metrics is parsed as the Prometheus text format and its series checked against the run's known counts;
the dashboard page is the report of the jobs so far. With --browser, the page is also loaded from the live
scheduler in headless Chromium, through the printed /login link (its cookie then reads the page's JSON), and
every chart must draw (skipped, exit 77, where Chromium cannot be had).

  dashboard_test.py --weft BUILD/src/weft --workload examples/real-small.json --work DIR [--browser]
      [--screenshot OUT.png]
"""
import argparse
import base64
import hashlib
import html
import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from report_browser_test import chromium, ensure_chromium  # noqa: E402

# One sample line of the text format: name{labels} value (no timestamps here).
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse_exposition(text):
    """{(name, frozenset(labels)): value}; fails on any line that is neither a comment nor a sample."""
    samples = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        if not m:
            sys.exit(f"FAILED: not the Prometheus text format: {line!r}")
        labels = frozenset(LABEL.findall(m.group(2) or ""))
        samples[(m.group(1), labels)] = float(m.group(3))
    return samples


def value(samples, name, **labels):
    return samples.get((name, frozenset(labels.items())))


def total(samples, name, **labels):
    """Sum over the series of `name` whose labels include `labels`."""
    want = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and want <= set(ls))


def run(cmd, timeout=120):
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        sys.exit(f"FAILED: {' '.join(cmd)} exited {done.returncode}: {done.stderr}")
    return done.stdout


def survivors(work, wait_s=5.0):
    """The processes (but this one) whose command line mentions `work` or that run inside it, once none is
    left or after wait_s seconds; those left are killed (they are the test's own)."""
    def scan():
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            if int(pid) == os.getpid():
                continue
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
            except OSError:
                continue  # gone meanwhile
            try:
                cwd = os.readlink(f"/proc/{pid}/cwd")
            except OSError:
                cwd = ""
            if cmd and (work in cmd or cwd == work or cwd.startswith(work + "/")):
                found.append((int(pid), cmd))
        return found
    deadline = time.monotonic() + wait_s
    left = scan()
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = scan()
    for pid, _ in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return left


class Dashboard:
    """The dashboard line `weft cluster up` printed ("dashboard: https://HOST:PORT/login?token=T (certificate:
    FILE; ...)"): its login link, the token as a query, an SSL context that trusts FILE alone, and the Chromium
    flag that pins FILE's public key (base64 of the SHA-256 of its SubjectPublicKeyInfo)."""

    def __init__(self, lines):
        dash = [l for l in lines if l.startswith("dashboard: ")]
        if len(dash) != 1 or not dash[0].startswith("dashboard: https://"):
            sys.exit(f"FAILED: cluster up printed no HTTPS dashboard line: {lines!r}")
        self.login = dash[0].split()[1]
        url = urllib.parse.urlsplit(self.login)
        if url.path != "/login" or not url.query.startswith("token="):
            sys.exit(f"FAILED: the dashboard link is not /login?token=: {self.login}")
        self.base, self.token = f"{url.scheme}://{url.netloc}", url.query
        cert = re.search(r"certificate: ([^;]+);", dash[0])
        if not cert or not os.path.exists(cert.group(1)):
            sys.exit(f"FAILED: the dashboard line names no certificate file: {dash[0]}")
        self.cert = cert.group(1)
        self.context = ssl.create_default_context(cafile=self.cert)
        pem = subprocess.run(["openssl", "x509", "-pubkey", "-noout", "-in", self.cert], capture_output=True,
                             check=True).stdout
        der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=pem, capture_output=True,
                             check=True).stdout
        self.pin = "--ignore-certificate-errors-spki-list=" + base64.b64encode(hashlib.sha256(der).digest()).decode()

    def at(self, path, *params):
        """PATH on the dashboard with the token as ?token= (and PARAMS)."""
        query = "&".join(p for p in (*params, self.token) if p)
        return f"{self.base}{path}?{query}"

    def open(self, url):
        return urllib.request.urlopen(url, timeout=30, context=self.context)


def get(dashboard, url):
    with dashboard.open(url) as r:
        return r.status, r.headers.get("Content-Type", ""), r.read().decode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--weft", required=True)
    ap.add_argument("--workload", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--browser", action="store_true")
    ap.add_argument("--screenshot")
    a = ap.parse_args()
    browser = ensure_chromium() if a.browser else None
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    cluster = os.path.join(a.work, "cluster")
    out = run([a.weft, "cluster", "up", "--nodes", "3", "--cpu", "2", "--mem", "4", "--dir", cluster])
    failures = []
    try:
        lines = out.strip().splitlines()
        scheduler = lines[-1]
        dashboard = Dashboard(lines)
        at = dashboard.at
        # Plain HTTP is not served on that port.
        try:
            urllib.request.urlopen(at("/metrics").replace("https://", "http://", 1), timeout=10).read()
            failures.append("the dashboard answered plain HTTP")
        except OSError:
            pass

        with open(a.workload) as f:
            workload = json.load(f)
        jobs = len(workload["jobs"])
        tasks = sum(s["tasks"] for j in workload["jobs"] for s in j["stages"])
        ids = run([a.weft, "submit", "--scheduler", scheduler, a.workload]).split()
        for job in ids:
            run([a.weft, "wait", "--scheduler", scheduler, job, "--timeout", "60"])

        status, ctype, text = get(dashboard, at("/metrics"))
        if not ctype.startswith("text/plain"):
            failures.append(f"/metrics content type {ctype}")
        m = parse_exposition(text)
        expect = {
            ("weft_jobs", "state=done"): value(m, "weft_jobs", state="done") == jobs,
            ("weft_jobs", "state=active"): value(m, "weft_jobs", state="active") == 0,
            ("weft_tasks", "state=done"): value(m, "weft_tasks", state="done") == tasks,
            ("weft_tasks", "state=running"): value(m, "weft_tasks", state="running") == 0,
            ("weft_attempt_ends_total", "outcome=ok"): value(m, "weft_attempt_ends_total", outcome="ok") == tasks,
            ("weft_decisions_total", "kind=launch == attempts ended"):
                value(m, "weft_decisions_total", kind="launch") == total(m, "weft_attempt_ends_total"),
            ("weft_node_up", "all 3"): total(m, "weft_node_up") == 3,
            ("weft_node_capacity", "cpu 2 a node"): total(m, "weft_node_capacity", resource="cpu") == 6,
            ("weft_node_allocated", "nothing left reserved"): total(m, "weft_node_allocated") == 0,
            ("weft_rpc_total", "one Submit OK"): value(m, "weft_rpc_total", method="Submit", code="OK") == 1,
            ("weft_journal_commit_seconds", "commits observed"):
                (value(m, "weft_journal_commit_seconds_count") or 0) >= 1,
            ("weft_refused_decisions_total", "present"): value(m, "weft_refused_decisions_total") is not None,
        }
        for (name, what), ok in expect.items():
            if not ok:
                failures.append(f"/metrics {name}: expected {what}; series: "
                                f"{sorted((dict(ls), v) for (n, ls), v in m.items() if n.startswith(name))}")

        status, ctype, page = get(dashboard, at("/"))
        for needle in ('id="weft-operator"', 'id="weft-status"', 'id="weft-data"'):
            if needle not in page:
                failures.append(f"the dashboard page lacks {needle}")
        # The live page has no workload file: it gives no advice to pass one.
        if "--workload" in page:
            failures.append("the dashboard page advises giving --workload")
        # The tables poll the JSON; the whole page reloads only when asked.
        if 'http-equiv="refresh"' in page:
            failures.append("the dashboard page reloads itself without ?refresh=N")
        if 'http-equiv="refresh" content="7"' not in get(dashboard, at("/", "refresh=7"))[2]:
            failures.append("?refresh=7 does not make the page reload every 7 s")

        charts = []
        if browser:
            with tempfile.TemporaryDirectory() as profile:
                dom = chromium(browser, profile, dashboard.pin, "--virtual-time-budget=10000",
                               "--window-size=1400,1000", "--dump-dom", dashboard.login)
            s = re.search(r'<pre id="weft-status"[^>]*>(.*?)</pre>', dom, re.S)
            if not s or not s.group(1).strip():
                failures.append("the live page wrote no self-check (its script did not run to the end)")
            else:
                check = json.loads(html.unescape(s.group(1)))
                charts = check["charts"]
                if check["errors"]:
                    failures.append(f"console errors: {check['errors']}")
                if len(charts) < 10:
                    failures.append(f"only {len(charts)} charts drew")
                for c in charts:
                    if c["inked"] < 1000:
                        failures.append(f"{c['id']} looks blank ({c['inked']} pixels drawn)")
            if a.screenshot:
                with tempfile.TemporaryDirectory() as profile:
                    chromium(browser, profile, dashboard.pin, "--virtual-time-budget=10000",
                             "--window-size=1400,2000", f"--screenshot={os.path.abspath(a.screenshot)}",
                             dashboard.login)
    finally:
        subprocess.run([a.weft, "cluster", "down", "--dir", cluster], capture_output=True, timeout=60)
        # Nothing the test started may outlive it (issue 34, finding 8).
        left = survivors(os.path.abspath(a.work))
        if left:
            failures.append(f"processes of the test survived it: {left}")

    for f in failures:
        print("FAILED:", f)
    print(f"/metrics: {len(m)} series checked; dashboard: {len(charts)} charts drawn: "
          f"{'ok' if not failures else 'FAILED'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""The operator's live page against a live local cluster (docs/runtime.md, "Dashboard and metrics"): on one
node of 2 cpus, a job holding both cpus runs while a second one waits; /api/jobs must list both with their
user and state and alice's share over time, /api/nodes the node, and the page read in headless Chromium must show the running job and the
queued one in its jobs table while they are so, and alice's share drawn over time (skipped, exit 77, where Chromium cannot be had), and /metrics
its per-user series. Once both ended (the first cancelled), /metrics must count them in its job-time histograms.

  operator_page_test.py --weft BUILD/src/weft --work DIR [--screenshot OUT.png]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from html.parser import HTMLParser

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from report_browser_test import chromium, ensure_chromium  # noqa: E402
from dashboard_test import Dashboard, survivors  # noqa: E402


class JobsTable(HTMLParser):
    """The rows (lists of cell texts) of <table id="op-jobs">'s body."""

    def __init__(self):
        super().__init__()
        self.rows, self.inside, self.cell = [], False, None

    def handle_starttag(self, tag, attrs):
        if tag == "table" and dict(attrs).get("id") == "op-jobs":
            self.inside = True
        elif self.inside and tag == "tr":
            self.rows.append([])
        elif self.inside and tag in ("td", "th"):
            self.cell = ""

    def handle_endtag(self, tag):
        if tag == "table":
            self.inside = False
        elif self.inside and tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(self.cell.strip())
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def run(cmd, timeout=120):
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        sys.exit(f"FAILED: {' '.join(cmd)} exited {done.returncode}: {done.stderr}")
    return done.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--weft", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--screenshot", help="also save the page, read while both jobs are active, as this PNG")
    a = ap.parse_args()
    browser = ensure_chromium()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    cluster = os.path.join(a.work, "cluster")
    started = os.path.join(a.work, "started")
    finished = os.path.join(a.work, "finished")
    workload = os.path.join(a.work, "two.json")
    with open(workload, "w") as f:
        json.dump({"weft": 1, "jobs": [
            {"name": "holder-job", "user": "alice", "stages": [{"name": "crunch", "tasks": 1, "duration": 60,
             "demand": {"cpu": 2, "mem": 0.1}, "command": f"sh -c 'touch {started}; sleep 60; touch {finished}'"}]},
            {"name": "queued-job", "user": "bob", "stages": [{"name": "tail", "tasks": 1, "duration": 0.1,
             "demand": {"cpu": 2, "mem": 0.1}, "command": "true"}]}]}, f)
    out = run([a.weft, "cluster", "up", "--nodes", "1", "--cpu", "2", "--mem", "2", "--dir", cluster])
    failures = []
    try:
        lines = out.strip().splitlines()
        scheduler = lines[-1]
        dashboard = Dashboard(lines)  # HTTPS with the cluster's certificate, pinned
        at = dashboard.at

        def api(path):
            with dashboard.open(at(path)) as r:
                if not r.headers.get("Content-Type", "").startswith("application/json"):
                    failures.append(f"{path}: content type {r.headers.get('Content-Type')}")
                return json.load(r)

        ids = run([a.weft, "submit", "--scheduler", scheduler, workload]).split()
        deadline = time.monotonic() + 20
        while not os.path.exists(started) and time.monotonic() < deadline:
            time.sleep(0.1)
        if not os.path.exists(started):
            sys.exit("FAILED: the first job did not start within 20 s")

        jobs = {j["name"]: j for j in api("/api/jobs")["jobs"]}
        want = {"holder-job": ("alice", "running", "crunch"), "queued-job": ("bob", "waiting", "tail")}
        for name, (user, state, stage) in want.items():
            j = jobs.get(name)
            if not j:
                failures.append(f"/api/jobs does not list {name}: {sorted(jobs)}")
            elif (j["user"], j["state"], j["stage"], j["tasks"]) != (user, state, stage, 1):
                failures.append(f"/api/jobs {name}: {j}, expected user {user}, state {state}, stage {stage}")
        # Shares over time: a sample per read of /api/jobs, a second apart at least.
        time.sleep(1.2)
        history = api("/api/jobs")["share_history"]
        if len(history["t"]) < 2 or history["users"] != ["alice"] or history["running"][0][-1] != 1:
            failures.append(f"/api/jobs share_history: {history}, expected alice holding 1 task over 2 samples or more")
        nodes = api("/api/nodes")["nodes"]
        if len(nodes) != 1 or not nodes[0]["up"] or nodes[0]["capacity"]["cpu"] != 2 or nodes[0]["reserved"]["cpu"] != 2:
            failures.append(f"/api/nodes: {nodes}, expected one node up with its 2 cpus reserved")

        with dashboard.open(at("/metrics")) as r:
            now = r.read().decode().splitlines()
        for series in ('weft_user_running_tasks{user="alice"} 1', 'weft_user_running_tasks{user="bob"} 0',
                       'weft_user_active_jobs{user="bob"} 1'):
            if series not in now:
                failures.append(f"/metrics while both are active lacks `{series}`")

        if browser:
            with tempfile.TemporaryDirectory() as profile:
                dom = chromium(browser, profile, dashboard.pin, "--virtual-time-budget=3000", "--dump-dom",
                               dashboard.login)
            if a.screenshot:
                with tempfile.TemporaryDirectory() as profile:
                    chromium(browser, profile, dashboard.pin, "--virtual-time-budget=3000",
                             "--window-size=1200,760", f"--screenshot={os.path.abspath(a.screenshot)}",
                             dashboard.login)
            if os.path.exists(finished):
                failures.append("the first job ended before the page was read (machine too slow?)")
            history_svg = dom[dom.find('id="op-history"'):dom.find("</svg>", dom.find('id="op-history"'))]
            legend = dom[dom.find('id="op-history-legend"'):dom.find("</p>", dom.find('id="op-history-legend"'))]
            if "<polygon" not in history_svg or "alice" not in legend:
                failures.append(f"the page draws no share of alice over time: {history_svg[:300]} {legend[:200]}")
            table = JobsTable()
            table.feed(dom)
            shown = {r[1]: r for r in table.rows[1:] if len(r) > 3}
            for name, state in (("holder-job", "running"), ("queued-job", "queued")):
                if name not in shown:
                    failures.append(f"the page's jobs table does not show {name}: {table.rows}")
                elif shown[name][3] != state or shown[name][2] != want[name][0]:
                    failures.append(f"the page shows {name} as {shown[name]}, expected {state} for {want[name][0]}")

        # Cancelled, the first job ends (it counts as ended) and lets the second run.
        run([a.weft, "cancel", "--scheduler", scheduler, ids[0]])
        subprocess.run([a.weft, "wait", "--scheduler", scheduler, ids[0], "--timeout", "60"], capture_output=True,
                       timeout=90)  # exits 1: the job did not succeed
        run([a.weft, "wait", "--scheduler", scheduler, ids[1], "--timeout", "60"])
        if api("/api/jobs")["jobs"]:
            failures.append("/api/jobs still lists jobs once all ended")
        with dashboard.open(at("/metrics")) as r:
            metrics = r.read().decode()
        for series in ("weft_job_completion_seconds_count 2", 'weft_job_completion_seconds_bucket{le="+Inf"} 2',
                       "weft_job_queue_wait_seconds_count 2"):
            if series not in metrics.splitlines():
                failures.append(f"/metrics lacks `{series}`")
    finally:
        subprocess.run([a.weft, "cluster", "down", "--dir", cluster], capture_output=True, timeout=60)
        left = survivors(os.path.abspath(a.work))
        if left:
            failures.append(f"processes of the test survived it: {left}")

    for f in failures:
        print("FAILED:", f)
    print(f"operator page: {'ok' if not failures else 'FAILED'}{'' if browser else ' (no Chromium: page not read)'}")
    if not failures and not browser:
        return 77
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

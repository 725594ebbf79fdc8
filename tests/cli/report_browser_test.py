#!/usr/bin/python3
"""The report in a real browser: renders `weft report` of two small runs in headless Chromium and checks
that every chart drew (non-blank canvas, data points), that no error reached the console, and that the
legends name both runs; then the report of every policy (the demo's): at most 60 charts, each run in a
colour and dash pattern of its own; then the report of a sweep over seeds: JCTs of each configuration
ranked, with confidence intervals; then takes a screenshot.

  report_browser_test.py --weft BUILD/src/weft --workload examples/tpch-small.json --work DIR \
      [--screenshot OUT.png]

Chromium is Debian's `chromium`: installed here with apt-get when it is missing and we are root, else the
test is skipped (exit 77, which CTest reports as skipped). The page reports what it drew in
<pre id="weft-status">, read back with --dump-dom once the page's scripts have run.
"""
import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77


def ensure_chromium():
    path = shutil.which("chromium")
    if path:
        return path
    if os.geteuid() != 0:
        print("SKIPPED: chromium is not installed and we are not root to apt-get it", flush=True)
        sys.exit(SKIP)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    install = ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "chromium"]
    if subprocess.run(install, env=env, stdout=subprocess.DEVNULL).returncode != 0:
        subprocess.run(["apt-get", "update", "-qq"], env=env, check=False)
        if subprocess.run(install, env=env, stdout=subprocess.DEVNULL).returncode != 0:
            print("SKIPPED: apt-get could not install chromium", flush=True)
            sys.exit(SKIP)
    return shutil.which("chromium")


def chromium(binary, profile, *args):
    """Runs headless Chromium with nothing that reaches the network, in its own new profile."""
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run",
             "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", "--hide-scrollbars",
             f"--user-data-dir={profile}"]
    done = subprocess.run([binary, *flags, *args], capture_output=True, text=True, timeout=240)
    if done.returncode != 0:
        sys.exit(f"FAILED: chromium exited {done.returncode}: {done.stderr[-2000:]}")
    return done.stdout


def page_status(browser, page):
    """What the page says it drew (<pre id="weft-status">), read back once its scripts have run."""
    with tempfile.TemporaryDirectory() as profile:
        dom = chromium(browser, profile, "--virtual-time-budget=10000", "--window-size=1400,1000", "--dump-dom",
                       "file://" + os.path.abspath(page))
    m = re.search(r'<pre id="weft-status"[^>]*>(.*?)</pre>', dom, re.S)
    if not m or not m.group(1).strip():
        sys.exit(f"FAILED: {page} wrote no self-check (its script did not run to the end)")
    return json.loads(html.unescape(m.group(1)))


def blank_charts(charts):
    failures = []
    for c in charts:
        if c["inked"] < 1000:
            failures.append(f"{c['id']} looks blank ({c['inked']} pixels drawn)")
        if c["points"] == 0:
            failures.append(f"{c['id']} has no data points ({c['legend']})")
    return failures


def run(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"FAILED: {' '.join(cmd)} exited {done.returncode}: {done.stderr}")
    return done.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--weft", required=True)
    ap.add_argument("--workload", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--screenshot")
    a = ap.parse_args()
    browser = ensure_chromium()
    os.makedirs(a.work, exist_ok=True)
    fifo, fair = os.path.join(a.work, "fifo"), os.path.join(a.work, "fair")
    run([a.weft, "sim", "-w", a.workload, "-p", "fifo", "--out", fifo, "--timeline-step", "0.5"])
    run([a.weft, "sim", "-w", a.workload, "-p", "fair", "--task-failures", "0.05", "--out", fair,
         "--timeline-step", "0.5"])
    page = os.path.join(a.work, "report.html")
    run([a.weft, "report", fifo, fair, "-w", a.workload, "-o", page, "--title", "weft report: fifo and fair"])

    failures = []
    status = page_status(browser, page)
    if status["errors"]:
        failures.append(f"console errors: {status['errors']}")
    charts = status["charts"]
    # The ranked JCT chart; 4 overlaid job charts, 3 bar charts, 4 over time; the Gantt chart and the
    # users' shares of the run chosen in a menu; the workload's 2 charts once (both runs share it).
    if len(charts) != 1 + 4 + 3 + 4 + 2 + 2:
        failures.append(f"{len(charts)} charts drew, expected {1 + 4 + 3 + 4 + 2 + 2}")
    failures += blank_charts(charts)
    overlaid = [c for c in charts if "fifo" in c["legend"] and "fair" in c["legend"]]
    if len(overlaid) != 11:
        failures.append(f"{len(overlaid)} charts have both runs in their legend, expected 11")
    legends = {label for c in charts for label in c["legend"]}
    for label in ("mean JCT / fifo", "p95 JCT / fifo", "task attempts", "alice", "bob", "jobs arriving"):
        if label not in legends:
            failures.append(f"no legend entry \"{label}\"")

    # Every policy at once, as the demo compares them: a bounded number of charts whatever the runs,
    # and each run its own colour and dash pattern.
    every = os.path.join(a.work, "all")
    run([a.weft, "compare", "-w", a.workload, "--policies", "all", "--out", every])
    dirs = sorted(os.path.join(every, d) for d in os.listdir(every))
    big = os.path.join(a.work, "all.html")
    run([a.weft, "report", *dirs, "-o", big])
    status = page_status(browser, big)
    if status["errors"]:
        failures.append(f"console errors with {len(dirs)} runs: {status['errors']}")
    charts = status["charts"]
    if len(dirs) < 20 or len(charts) > 60:
        failures.append(f"{len(dirs)} runs drew {len(charts)} charts (want at least 20 runs, at most 60 charts)")
    failures += blank_charts(charts)
    cdf = next((c for c in charts if len(c["legend"]) == len(dirs) and c["styles"][0][1] == ""), None)
    if cdf is None:
        failures.append("no chart overlays every run")
    elif len({tuple(s) for s in cdf["styles"]}) != len(dirs):
        failures.append(f"{len(dirs)} runs share colours and dashes: {cdf['styles']}")

    # A sweep over seeds: its runs averaged per configuration, with confidence intervals as whiskers.
    sweep = os.path.join(a.work, "sweep")
    run([a.weft, "sweep", a.workload, "--policies", "fifo,random,sparrow-random", "--seeds", "1..3", "--out", sweep])
    swept = os.path.join(a.work, "sweep.html")
    run([a.weft, "report", sweep, "-o", swept])
    status = page_status(browser, swept)
    ranked = status["charts"][0] if status["charts"] else {}
    if ranked.get("legend") != ["mean JCT / fifo", "p95 JCT / fifo"] or ranked.get("points") != 2 * 3:
        failures.append(f"the sweep's first chart is not mean and p95 JCT of 3 configurations: {ranked}")
    elif ranked.get("whiskers", 0) < 2:  # random and sparrow-random vary with the seed
        failures.append(f"the sweep's ranked chart draws {ranked.get('whiskers')} confidence intervals, expected >= 2")
    failures += blank_charts(status["charts"])

    if a.screenshot:
        with tempfile.TemporaryDirectory() as profile:
            chromium(browser, profile, "--virtual-time-budget=10000", "--window-size=1400,2600",
                     f"--screenshot={os.path.abspath(a.screenshot)}", "file://" + os.path.abspath(page))
        if not os.path.exists(a.screenshot) or os.path.getsize(a.screenshot) < 20000:
            failures.append(f"the screenshot {a.screenshot} is missing or nearly empty")

    for f in failures:
        print("FAILED:", f)
    print(f"{len(charts)} charts checked in {browser}: {'ok' if not failures else 'FAILED'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

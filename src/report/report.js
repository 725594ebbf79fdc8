// The weft report page: reads the JSON embedded by `weft report` and draws
// every chart with the inlined Chart.js (docs/report.md). No network access:
// everything this page needs is in the file. The page leads with what a
// reader compares (JCTs ranked against a baseline, the summary table), then
// overlays every run on shared axes; charts of one run at a time (Gantt,
// users' shares) draw the run chosen in a menu, so the page keeps the same
// number of charts however many runs it compares.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("weft-data").textContent);
  const root = document.getElementById("report");
  const runs = data.runs;
  // Run i is drawn in palette[i % 12] with dashes[floor(i / 12) % 3] (points:
  // shapes[...]), so up to 36 runs each get their own colour and pattern.
  const palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                   "#bcbd22", "#17becf", "#393b79", "#637939"];
  const dashes = [[], [8, 4], [2, 3]];
  const shapes = ["circle", "triangle", "rect"];
  const fills = ["", "99", "44"];  // bars: solid, then lighter fills outlined in the colour
  const color = (i) => palette[i % palette.length];
  const tier = (i) => Math.floor(i / palette.length) % dashes.length;
  const lineStyle = (i) => ({ borderColor: color(i), backgroundColor: color(i), borderDash: dashes[tier(i)] });
  const barStyle = (i) => ({ backgroundColor: color(i) + fills[tier(i)], borderColor: color(i), borderWidth: tier(i) ? 1.5 : 0 });
  const charts = [];
  // Charts that overlay every run grow with their legend (about five runs a legend row), so the plot
  // keeps its height however many runs there are.
  const overlayHeight = 280 + 18 * Math.max(0, Math.ceil(runs.length / 5) - 1);
  Chart.defaults.animation = false;  // draw at once: big reports stay responsive, screenshots are complete
  Chart.defaults.maintainAspectRatio = false;
  Chart.defaults.font.size = 11;

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    for (const c of children) e.append(c);
    return e;
  }
  function section(title, note) {
    const s = el("section", {}, el("h2", {}, title));
    if (note) s.append(el("p", { class: "note" }, note));
    root.append(s);
    return s;
  }
  function panel(parent, title, height) {
    const canvas = el("canvas", { id: "chart-" + (charts.length + pending.length) });
    const box = el("div", { class: "box" }, canvas);
    if (height) box.style.height = height + "px";
    const p = el("div", { class: "panel" }, el("h3", {}, title), box);
    parent.append(p);
    return canvas;
  }
  // Charts are queued and drawn a few at a time between turns of the event
  // loop, so a report of many runs stays scrollable while it draws.
  const pending = [];
  function chart(canvas, config) {
    pending.push([canvas, config]);
  }
  function drawSome(done) {
    const until = performance.now() + 40;
    while (pending.length && performance.now() < until) charts.push(new Chart(...pending.shift()));
    if (pending.length) setTimeout(() => drawSome(done), 0); else done();
  }
  function axis(title, extra) {
    return Object.assign({ type: "linear", title: { display: true, text: title } }, extra || {});
  }
  const xy = (xs, ys) => xs.map((x, i) => ({ x: x, y: ys[i] }));
  const fmt = (x, digits) => (typeof x === "number" ? x.toFixed(digits) : "-");
  const pct = (x) => (typeof x === "number" ? (100 * x).toFixed(1) + "%" : "-");
  const knows = { "clairvoyant": "yes", "semi-clairvoyant": "semi", "non-clairvoyant": "no" };
  const overCommits = (o) => (!Array.isArray(o) ? "?" : !o.length ? "none" : o.length === 4 ? "all" : o.join(","));

  // --- configurations (runs that differ only by seed) and the baseline ---
  const configs = [];
  for (const r of runs) {
    let c = configs.find((g) => g.name === r.config);
    if (!c) configs.push(c = { name: r.config, policy: r.summary.policy, runs: [] });
    c.runs.push(r);
  }
  const wanted = data.baseline || "";
  const base = configs.find((c) => wanted && (c.name === wanted || c.runs.some((r) => r.name === wanted)))
    || configs.find((c) => wanted && c.policy === wanted)
    || configs.find((c) => !wanted && c.policy === "fifo") || configs[0];
  // Student's t at 97.5 % for 1..30 degrees of freedom (then 1.96): the 95 % interval of a mean, as weft sweep.
  const t975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145,
                2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042];
  function meanCi(values) {
    const v = values.filter((x) => typeof x === "number");
    const n = v.length;
    if (!n) return { mean: NaN, ci: 0 };
    const mean = v.reduce((a, x) => a + x, 0) / n;
    if (n < 2) return { mean: mean, ci: 0 };
    const sd = Math.sqrt(v.reduce((a, x) => a + (x - mean) * (x - mean), 0) / (n - 1));
    return { mean: mean, ci: (n - 1 <= t975.length ? t975[n - 2] : 1.96) * sd / Math.sqrt(n) };
  }
  for (const c of configs) {
    c.avg = meanCi(c.runs.map((r) => r.summary.avg_jct));
    c.p95 = meanCi(c.runs.map((r) => r.summary.p95_jct));
  }
  const ratio = (x, b) => (b > 0 && isFinite(x) ? x / b : NaN);
  const seeded = configs.some((c) => c.runs.length > 1);

  // --- header ---
  document.getElementById("sub").textContent = runs.length + " run(s)" +
    (seeded ? " in " + configs.length + " configurations" : "") + "; JCTs normalised to " + base.name +
    ". Written by " + data.generator + ".";

  // --- the ranked chart: mean and p95 JCT over the baseline's ---
  // Whiskers: each bar's dataset may carry `ci`, half-widths in the bar's units.
  const whiskers = { id: "whiskers", afterDatasetsDraw(c) {
    const g = c.ctx;
    c.data.datasets.forEach((d, di) => {
      if (!d.ci || !c.isDatasetVisible(di)) return;
      c.getDatasetMeta(di).data.forEach((bar, i) => {
        const h = d.ci[i];
        if (!(h > 0)) return;
        const x = c.scales.x, lo = x.getPixelForValue(d.data[i] - h), hi = x.getPixelForValue(d.data[i] + h);
        g.save(); g.strokeStyle = "#222"; g.lineWidth = 1; g.beginPath();
        g.moveTo(lo, bar.y); g.lineTo(hi, bar.y); g.moveTo(lo, bar.y - 3); g.lineTo(lo, bar.y + 3);
        g.moveTo(hi, bar.y - 3); g.lineTo(hi, bar.y + 3); g.stroke(); g.restore();
      });
    });
  } };
  if (configs.length > 1) {
    const ranked = configs.slice().sort((a, b) => ratio(a.avg.mean, base.avg.mean) - ratio(b.avg.mean, base.avg.mean));
    const ranking = section("JCT against " + base.name,
      "Mean and p95 job completion time of each " + (seeded ? "configuration" : "run") + " divided by " + base.name +
      "'s (1 = the same, below 1 = faster), best first." +
      (seeded ? " Over seeds: the mean, with its 95 % confidence interval (Student's t) as whiskers." : ""));
    chart(panel(ranking, "mean and p95 JCT / " + base.name, Math.max(240, 26 * ranked.length + 90)), {
      type: "bar", plugins: [whiskers],
      data: { labels: ranked.map((c) => c.name), datasets: [
        { label: "mean JCT / " + base.name, data: ranked.map((c) => ratio(c.avg.mean, base.avg.mean)),
          ci: ranked.map((c) => ratio(c.avg.ci, base.avg.mean)), backgroundColor: palette[0] },
        { label: "p95 JCT / " + base.name, data: ranked.map((c) => ratio(c.p95.mean, base.p95.mean)),
          ci: ranked.map((c) => ratio(c.p95.ci, base.p95.mean)), backgroundColor: palette[1] }] },
      options: { indexAxis: "y", scales: { x: axis("JCT / " + base.name + "'s", { min: 0 }), y: { type: "category" } } } });
  }

  // --- the summary table (the `weft compare` columns) and its notes ---
  const table = el("table");
  // The policy column only when it says more than the run's name.
  const withPolicy = runs.some((r) => r.name !== r.summary.policy);
  const head = ["run", "policy", "clairvoyant", "over-commits", "jobs", "avg_jct", "avg / " + base.name, "p95_jct",
                "p95 / " + base.name, "median_jct", "makespan", "cpu held", "cpu used", "mem held", "delay_p95",
                "failed", "jct/newlb p50", "wall_s"];
  const shown = (cells) => cells.filter((_, k) => withPolicy || k !== 1);
  table.append(el("tr", {}, ...shown(head).map((h) => el("th", {}, h))));
  for (const r of runs) {
    const s = r.summary;
    table.append(el("tr", {}, ...shown([r.name, s.policy, knows[s.knowledge] || "?", overCommits(s.overbooked), s.jobs,
      fmt(s.avg_jct, 2), fmt(ratio(s.avg_jct, base.avg.mean), 2), fmt(s.p95_jct, 2), fmt(ratio(s.p95_jct, base.p95.mean), 2),
      fmt(s.median_jct, 2), fmt(s.makespan, 2), pct(s.cpu_held), pct(s.cpu_used), pct(s.mem_held), fmt(s.delay_p95, 3),
      s.jobs_failed, fmt(s.median_job_ratio, 2), fmt(s.wall_seconds, 2)]).map((v) => el("td", {}, String(v)))));
  }
  const summary = section("Summary");
  summary.append(el("div", { class: "scroll" }, table));
  const notes = el("details", {}, el("summary", {}, "What the columns mean, and the runs' directories"),
    el("ul", { class: "notes" },
      el("li", {}, "cpu held, mem held: the share of the cluster's capacity tasks held while they ran (summary.json's " +
        "utilization, Ursa's SE). cpu used: the share they used (summary.json's used). A policy may hold much and " +
        "use little: read both. A task run as monotasks (a task with phases under ursa or ursa-yarn) uses exactly " +
        "what its phase holds: weft does not yet model a monotask using less, so for such tasks used equals held."),
      el("li", {}, "clairvoyant: yes = sees every task's duration in advance; semi = a stage's once the stage is " +
        "released; no = never. over-commits: the resources the policy may reserve beyond a machine's capacity in this run."),
      el("li", {}, "avg / " + base.name + ", p95 / " + base.name + ": the run's JCT over the baseline's" +
        (seeded ? " (mean over its seeds)" : "") + " (weft report --baseline chooses it)."),
      el("li", {}, "Directories: " + runs.map((r) => r.name + " = " + r.dir).join("; "))));
  summary.append(notes);
  const sampled = runs.filter((r) => r.series.notes.length);
  if (sampled.length) {
    const d = el("details", {}, el("summary", {}, "Sampling: " + sampled.length + " run(s) are drawn from samples"));
    for (const r of sampled) d.append(el("p", {}, r.name + ":"), el("ul", { class: "notes" }, ...r.series.notes.map((n) => el("li", {}, n))));
    summary.append(d);
  }

  // --- charts that overlay every run ---
  const legendNote = "One line per run; click a run in a legend to hide or show it.";
  function cdfChart(parent, title, key, xTitle, logX) {
    const sets = runs.map((r, i) => [r, i]).filter(([r]) => r.series[key]).map(([r, i]) => Object.assign({
      label: r.name, data: xy(r.series[key].x, r.series[key].y), pointRadius: 0, borderWidth: 1.5, stepped: true }, lineStyle(i)));
    if (!sets.length) return;
    chart(panel(parent, title, overlayHeight), { type: "line", data: { datasets: sets }, options: { parsing: false,
      scales: { x: axis(xTitle, logX ? { type: "logarithmic" } : {}), y: axis("fraction", { min: 0, max: 1 }) } } });
  }
  const jobs = section("Jobs", legendNote);
  const jobGrid = el("div", { class: "grid" });
  jobs.append(jobGrid);
  cdfChart(jobGrid, "JCT CDF", "jct_cdf", "job completion time (s)", true);
  cdfChart(jobGrid, "Slowdown CDF (JCT / critical path)", "slowdown_cdf", "slowdown", true);
  if (!runs.some((r) => r.series.slowdown_cdf) && data.no_slowdown_note) {
    jobGrid.append(el("div", { class: "panel note" }, data.no_slowdown_note));
  }
  chart(panel(jobGrid, "JCT / NewLB per job (the gap to the lower bound)", overlayHeight), { type: "scatter",
    data: { datasets: runs.map((r, i) => ({ label: r.name, data: xy(r.series.lb.x, r.series.lb.y),
      backgroundColor: color(i), borderColor: color(i), pointStyle: shapes[tier(i)], pointRadius: 2 })) },
    options: { parsing: false, scales: { x: axis("job's NewLB alone on the cluster (s)", { type: "logarithmic" }),
      y: axis("JCT / NewLB", { type: "logarithmic" }) } } });
  cdfChart(jobGrid, "Scheduling delay CDF (start - ready, every attempt)", "delay_cdf", "delay (s)", false);

  const bars = (labels, values, yTitle) => ({ type: "bar", data: { labels: labels,
    datasets: runs.map((r, i) => Object.assign({ label: r.name, data: values(r) }, barStyle(i))) },
    options: { scales: { y: axis(yTitle, { min: 0 }) } } });
  const shares = (o, keys) => { const t = keys.reduce((a, k) => a + o[k], 0) || 1; return keys.map((k) => o[k] / t); };
  const placeGrid = el("div", { class: "grid" });
  section("Locality, failures and retries", "One bar per run in each group.").append(placeGrid);
  const loc = ["node", "rack", "remote", "none"];
  chart(panel(placeGrid, "Locality of successful attempts", overlayHeight), bars(loc, (r) => shares(r.series.locality, loc), "share"));
  const outs = ["ok", "failed", "killed"];
  chart(panel(placeGrid, "Attempts by outcome", overlayHeight), bars(outs, (r) => outs.map((k) => r.series.outcomes[k]), "attempts"));
  const most = Math.max(...runs.map((r) => r.series.attempts.length));
  chart(panel(placeGrid, "Attempts by try (1 = first try, 2 = first retry, ...)", overlayHeight),
    bars([...Array(most).keys()].map((k) => String(k + 1)), (r) => r.series.attempts, "attempts"));

  // --- over time: every run on one time axis ---
  const timed = runs.map((r, i) => [r, i]).filter(([r]) => r.series.timeline);
  const untimed = runs.filter((r) => !r.series.timeline).map((r) => r.name);
  const timeGrid = el("div", { class: "grid" });
  section("Over time", legendNote + " From each run's timeline.csv, on one time axis." +
    (untimed.length ? " No timeline.csv: " + untimed.join(", ") + "." : "")).append(timeGrid);
  if (timed.length) {
    const tmax = Math.max(...timed.map(([r]) => r.series.timeline.t[r.series.timeline.t.length - 1] || 0));
    const overTime = (title, yTitle, ys, yExtra) => chart(panel(timeGrid, title, overlayHeight), { type: "line",
      data: { datasets: timed.map(([r, i]) => Object.assign({ label: r.name, data: xy(r.series.timeline.t, ys(r.series.timeline)),
        pointRadius: 0, borderWidth: 1.2 }, lineStyle(i))) },
      options: { parsing: false, scales: { x: axis("time (s)", { min: 0, max: tmax }), y: axis(yTitle, Object.assign({ min: 0 }, yExtra)) } } });
    overTime("cpu held (share of the cluster's cpu)", "share of capacity", (t) => t.alloc.cpu);
    overTime("cpu used (share of the cluster's cpu)", "share of capacity", (t) => t.used.cpu);
    overTime("Running attempts", "attempts", (t) => t.running);
    overTime("Waiting attempts (ready, not started)", "attempts", (t) => t.waiting);
  }

  // --- one run at a time, chosen in a menu ---
  function oneRun(title, note, candidates, draw) {
    if (!candidates.length) return;
    const s = section(title, note);
    const menu = el("select", { "aria-label": "run" }, ...candidates.map((r, k) => el("option", { value: String(k) }, r.name)));
    s.append(el("p", {}, el("label", {}, "run: ", menu)));
    const grid = el("div", { class: "grid wide" });
    s.append(grid);
    const [canvas, config] = draw(grid, candidates[0]);
    chart(canvas, config);
    menu.addEventListener("change", () => {
      const at = charts.findIndex((c) => c.canvas === canvas);
      const next = draw(null, candidates[Number(menu.value)])[1];
      if (at >= 0) { charts[at].destroy(); charts[at] = new Chart(canvas, next); }
    });
  }
  // Jobs take the palette without its red and grey, which mean failed and killed here.
  const jobColors = palette.filter((c) => c !== "#d62728" && c !== "#7f7f7f");
  let ganttCanvas = null, fairCanvas = null;
  oneRun("Gantt chart of tasks on machines",
    "Bars coloured by job; failed attempts red, killed grey; attempts running at once on one machine overlap.", runs,
    (grid, r) => {
      const g = r.series.gantt;
      const colors = g.bars.map((b) => (b[4] === 1 ? "#d62728" : b[4] === 2 ? "#aaaaaa"
        : b[3] < 0 ? "#555555" : jobColors[b[3] % jobColors.length]));
      if (grid) ganttCanvas = panel(grid, "tasks on " + g.machines.length + " machines, " + g.window[0] + "-" + g.window[1] + " s", 420);
      return [ganttCanvas, { type: "bar", data: { labels: g.machines, datasets: [{ label: "task attempts",
        data: g.bars.map((b) => ({ x: [b[1], b[2]], y: g.machines[b[0]] })), backgroundColor: colors,
        borderColor: "rgba(0,0,0,0.25)", borderWidth: 0.5, barPercentage: 0.9, categoryPercentage: 1 }] },
        options: { indexAxis: "y", scales: { x: axis("time (s)", { min: g.window[0], max: g.window[1] }), y: { type: "category" } } } }];
    });
  oneRun("Fairness over time", "Each user's share of the cpu held, per time bin (stacked). Runs with one user are not listed.",
    runs.filter((r) => r.series.users), (grid, r) => {
      const u = r.series.users;
      if (grid) fairCanvas = panel(grid, "users' cpu shares");
      return [fairCanvas, { type: "line", data: { datasets: u.users.map((name, j) => ({
        label: name, data: xy(u.t, u.share[j]), borderColor: color(j), backgroundColor: color(j) + "99",
        fill: j === 0 ? "origin" : "-1",  // each area sits on the one below: a stack
        pointRadius: 0, borderWidth: 1 })) },
        options: { parsing: false, scales: { x: axis("time (s)"), y: axis("share", { stacked: true, min: 0, max: 1 }) } } }];
    });

  // --- the workload: drawn once for each distinct workload among the runs ---
  const workloads = [];
  for (const r of runs) {
    const key = JSON.stringify([r.series.arrivals, r.series.dag_sizes]);
    const w = workloads.find((x) => x.key === key);
    if (w) w.names.push(r.name); else workloads.push({ key: key, run: r, names: [r.name] });
  }
  const wgrid = el("div", { class: "grid" });
  section("The workload", "Job arrivals over time and DAG sizes (tasks per job)" +
    (workloads.length > 1 ? ", once per distinct workload." : ", the same for every run.")).append(wgrid);
  for (const w of workloads) {
    const r = w.run, who = workloads.length > 1 ? (w.names.length > 3 ? w.names.slice(0, 3).join(", ") + ", ..." : w.names.join(", ")) + ": " : "";
    chart(panel(wgrid, who + "arrivals"), { type: "bar", data: { labels: r.series.arrivals.x,
      datasets: [{ label: "jobs arriving", data: r.series.arrivals.count, backgroundColor: color(0) }] },
      options: { scales: { x: { title: { display: true, text: "arrival time (s, bin start)" } }, y: axis("jobs", { min: 0 }) } } });
    chart(panel(wgrid, who + "DAG sizes"), { type: "bar", data: { labels: r.series.dag_sizes.x.map((x) => ">=" + x),
      datasets: [{ label: "jobs", data: r.series.dag_sizes.count, backgroundColor: color(2) }] },
      options: { scales: { x: { title: { display: true, text: "tasks per job" } }, y: axis("jobs", { min: 0 }) } } });
  }

  // --- self-check, once everything is drawn: what a browser test (and a curious reader) can read back ---
  const inked = (canvas) => {
    const px = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
    let n = 0;
    for (let i = 3; i < px.length; i += 4) if (px[i] !== 0) n++;
    return n;
  };
  drawSome(() => {
    document.getElementById("weft-status").textContent = JSON.stringify({
      charts: charts.map((c) => ({ id: c.canvas.id, points: c.data.datasets.reduce((a, d) => a + d.data.length, 0),
        legend: c.data.datasets.map((d) => d.label), styles: c.data.datasets.map((d) => [d.borderColor, (d.borderDash || []).join(" ")]),
        whiskers: c.data.datasets.reduce((a, d) => a + (d.ci || []).filter((h) => h > 0).length, 0),
        inked: inked(c.canvas) })),
      errors: window.weftErrors, drawn_ms: Math.round(performance.now()) });
  });
})();

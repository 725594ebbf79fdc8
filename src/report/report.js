// The weft report page: reads the JSON embedded by `weft report` and draws
// every chart with the inlined Chart.js (docs/report.md). No network access:
// everything this page needs is in the file.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("weft-data").textContent);
  const root = document.getElementById("report");
  const palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                   "#bcbd22", "#17becf"];
  const color = (i) => palette[i % palette.length];
  const charts = [];
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
  function panel(parent, title, tall) {
    const canvas = el("canvas", { id: "chart-" + charts.length });
    const p = el("div", { class: "panel" }, el("h3", {}, title), el("div", { class: tall ? "box tall" : "box" }, canvas));
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

  // --- header and summary table (the `weft compare` columns) ---
  document.getElementById("sub").textContent =
    data.runs.length + " run(s): " + data.runs.map((r) => r.name + " (" + r.dir + ")").join(", ") +
    ". Written by " + data.generator + ".";
  const table = el("table");
  const head = ["run", "policy", "jobs", "tasks", "avg_jct", "median_jct", "p95_jct", "makespan", "cpu_util",
                "mem_util", "delay_p95", "failed", "jct/newlb p50", "wall_s"];
  table.append(el("tr", {}, ...head.map((h) => el("th", {}, h))));
  for (const r of data.runs) {
    const s = r.summary;
    table.append(el("tr", {}, ...[r.name, s.policy, s.jobs, s.tasks, fmt(s.avg_jct, 2), fmt(s.median_jct, 2),
      fmt(s.p95_jct, 2), fmt(s.makespan, 2), fmt(100 * s.cpu_util, 1) + "%", fmt(100 * s.mem_util, 1) + "%",
      fmt(s.delay_p95, 3), s.jobs_failed, fmt(s.median_job_ratio, 2), fmt(s.wall_seconds, 2)]
      .map((v) => el("td", {}, String(v)))));
  }
  section("Summary").append(table);
  const sampled = data.runs.filter((r) => r.series.notes.length);
  if (sampled.length) {
    const s = section("Sampling", "These runs are large: the page shows samples of them, as follows.");
    for (const r of sampled) s.append(el("p", {}, r.name + ":"), el("ul", { class: "notes" }, ...r.series.notes.map((n) => el("li", {}, n))));
  }

  // --- charts that overlay every run ---
  function cdfChart(parent, title, key, xTitle, logX) {
    const sets = data.runs.filter((r) => r.series[key]).map((r, i) => ({
      label: r.name, data: xy(r.series[key].x, r.series[key].y), borderColor: color(i), backgroundColor: color(i),
      pointRadius: 0, borderWidth: 1.5, stepped: true }));
    if (!sets.length) return;
    chart(panel(parent, title), { type: "line", data: { datasets: sets }, options: { parsing: false,
      scales: { x: axis(xTitle, logX ? { type: "logarithmic" } : {}), y: axis("fraction", { min: 0, max: 1 }) } } });
  }
  const jobs = section("Jobs", "Overlaid: one line per run.");
  const jobGrid = el("div", { class: "grid" });
  jobs.append(jobGrid);
  cdfChart(jobGrid, "JCT CDF", "jct_cdf", "job completion time (s)", true);
  cdfChart(jobGrid, "Slowdown CDF (JCT / critical path)", "slowdown_cdf", "slowdown", true);
  if (!data.runs.some((r) => r.series.slowdown_cdf)) {
    jobGrid.append(el("div", { class: "panel note" }, "No slowdown CDF: run weft report with --workload W to compute critical paths."));
  }
  chart(panel(jobGrid, "JCT / NewLB per job (the gap to the lower bound)"), { type: "scatter",
    data: { datasets: data.runs.map((r, i) => ({ label: r.name, data: xy(r.series.lb.x, r.series.lb.y),
      backgroundColor: color(i), pointRadius: 2 })) },
    options: { parsing: false, scales: { x: axis("job's NewLB alone on the cluster (s)", { type: "logarithmic" }),
      y: axis("JCT / NewLB", { type: "logarithmic" }) } } });
  cdfChart(jobGrid, "Scheduling delay CDF (start - ready, every attempt)", "delay_cdf", "delay (s)", false);

  const bars = (labels, values, title, yTitle) => ({ type: "bar", data: { labels: labels,
    datasets: data.runs.map((r, i) => ({ label: r.name, data: values(r), backgroundColor: color(i) })) },
    options: { scales: { y: axis(yTitle, { min: 0 }) } } });
  const shares = (o, keys) => { const t = keys.reduce((a, k) => a + o[k], 0) || 1; return keys.map((k) => o[k] / t); };
  const placeGrid = el("div", { class: "grid" });
  section("Locality, failures and retries").append(placeGrid);
  const loc = ["node", "rack", "remote", "none"];
  chart(panel(placeGrid, "Locality of successful attempts"), bars(loc, (r) => shares(r.series.locality, loc), "", "share"));
  const outs = ["ok", "failed", "killed"];
  chart(panel(placeGrid, "Attempts by outcome"), bars(outs, (r) => outs.map((k) => r.series.outcomes[k]), "", "attempts"));
  const most = Math.max(...data.runs.map((r) => r.series.attempts.length));
  chart(panel(placeGrid, "Attempts by try (1 = first try, 2 = first retry, ...)"),
    bars([...Array(most).keys()].map((k) => String(k + 1)), (r) => r.series.attempts, "", "attempts"));

  // --- charts drawn once per run, side by side ---
  function perRun(title, note, draw) {
    const grid = el("div", { class: "grid" });
    section(title, note).append(grid);
    data.runs.forEach((r, i) => draw(grid, r, i));
  }
  const resources = ["cpu", "mem", "disk", "net"];
  perRun("Utilization over time", "Allocated (solid) and used (dashed) share of the cluster's capacity, from timeline.csv.",
    (grid, r) => {
      const t = r.series.timeline;
      if (!t) { grid.append(el("div", { class: "panel note" }, r.name + ": no timeline.csv in " + r.dir)); return; }
      const sets = [];
      resources.forEach((k, j) => {
        if (!t.alloc[k].some((v) => v > 0) && !t.used[k].some((v) => v > 0)) return;
        sets.push({ label: k + " allocated", data: xy(t.t, t.alloc[k]), borderColor: color(j), pointRadius: 0, borderWidth: 1.5 });
        sets.push({ label: k + " used", data: xy(t.t, t.used[k]), borderColor: color(j), borderDash: [4, 3], pointRadius: 0, borderWidth: 1 });
      });
      chart(panel(grid, r.name + ": utilization"), { type: "line", data: { datasets: sets },
        options: { parsing: false, scales: { x: axis("time (s)"), y: axis("share of capacity", { min: 0 }) } } });
    });
  perRun("Running tasks over time", "Mean running and waiting (ready, not started) attempts per step of timeline.csv.",
    (grid, r) => {
      const t = r.series.timeline;
      if (!t) { grid.append(el("div", { class: "panel note" }, r.name + ": no timeline.csv in " + r.dir)); return; }
      chart(panel(grid, r.name + ": tasks"), { type: "line", data: { datasets: [
        { label: "running", data: xy(t.t, t.running), borderColor: color(0), pointRadius: 0, borderWidth: 1.5 },
        { label: "waiting", data: xy(t.t, t.waiting), borderColor: color(1), pointRadius: 0, borderWidth: 1 }] },
        options: { parsing: false, scales: { x: axis("time (s)"), y: axis("attempts", { min: 0 }) } } });
    });
  perRun("Gantt chart of tasks on machines",
    "Bars colored by job; failed attempts red, killed grey; attempts running at once on one machine overlap.", (grid, r) => {
    const g = r.series.gantt;
    // Jobs take the palette without its red and grey, which mean failed and killed here.
    const jobColors = palette.filter((c) => c !== "#d62728" && c !== "#7f7f7f");
    const colors = g.bars.map((b) => (b[4] === 1 ? "#d62728" : b[4] === 2 ? "#aaaaaa"
      : b[3] < 0 ? "#555555" : jobColors[b[3] % jobColors.length]));
    chart(panel(grid, r.name + ": tasks on " + g.machines.length + " machines, " + g.window[0] + "-" + g.window[1] + " s", true), {
      type: "bar", data: { labels: g.machines, datasets: [{ label: "task attempts", data: g.bars.map((b) => ({ x: [b[1], b[2]], y: g.machines[b[0]] })),
        backgroundColor: colors, borderColor: "rgba(0,0,0,0.25)", borderWidth: 0.5, barPercentage: 0.9, categoryPercentage: 1 }] },
      options: { indexAxis: "y", scales: { x: axis("time (s)", { min: g.window[0], max: g.window[1] }), y: { type: "category" } } } });
  });
  if (data.runs.some((r) => r.series.users)) {
    perRun("Fairness over time", "Each user's share of the cpu allocated, per time bin (stacked).", (grid, r) => {
      const u = r.series.users;
      if (!u) { grid.append(el("div", { class: "panel note" }, r.name + ": one user")); return; }
      chart(panel(grid, r.name + ": users' cpu shares"), { type: "line", data: { datasets: u.users.map((name, j) => ({
        label: name, data: xy(u.t, u.share[j]), borderColor: color(j), backgroundColor: color(j) + "99",
        fill: j === 0 ? "origin" : "-1",  // each area sits on the one below: a stack
        pointRadius: 0, borderWidth: 1 })) },
        options: { parsing: false, scales: { x: axis("time (s)"), y: axis("share", { stacked: true, min: 0, max: 1 }) } } });
    });
  }
  perRun("The workload", "Job arrivals over time and DAG sizes (tasks per job).", (grid, r) => {
    chart(panel(grid, r.name + ": arrivals"), { type: "bar", data: { labels: r.series.arrivals.x,
      datasets: [{ label: "jobs arriving", data: r.series.arrivals.count, backgroundColor: color(0) }] },
      options: { scales: { x: { title: { display: true, text: "arrival time (s, bin start)" } }, y: axis("jobs", { min: 0 }) } } });
    chart(panel(grid, r.name + ": DAG sizes"), { type: "bar", data: { labels: r.series.dag_sizes.x.map((x) => ">=" + x),
      datasets: [{ label: "jobs", data: r.series.dag_sizes.count, backgroundColor: color(2) }] },
      options: { scales: { x: { title: { display: true, text: "tasks per job" } }, y: axis("jobs", { min: 0 }) } } });
  });

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
        legend: c.data.datasets.map((d) => d.label), inked: inked(c.canvas) })),
      errors: window.weftErrors, drawn_ms: Math.round(performance.now()) });
  });
})();

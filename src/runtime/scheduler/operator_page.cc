#include "runtime/scheduler/operator_page.h"

namespace weft::runtime {

const std::string_view kOperatorSection = R"HTML(
<section id="weft-operator">
<style>
#weft-operator { font-family: system-ui, sans-serif; margin: 1em 0 2em; }
#weft-operator table { border-collapse: collapse; margin-bottom: 1.2em; }
#weft-operator th, #weft-operator td { border-bottom: 1px solid #ddd; padding: 2px 10px; text-align: left; }
#weft-operator td.op-empty { color: #777; font-style: italic; }
#weft-operator .op-bar { display: inline-block; width: 80px; height: 8px; background: #eee; margin-right: 6px; }
#weft-operator .op-bar span { display: block; height: 8px; background: #3a7; }
#op-summary.op-error { color: #b00; }
#weft-operator .op-note { color: #666; font-size: 0.9em; margin: 0 0 0.4em; }
#op-history-legend span { margin-right: 1em; }
#op-history-legend i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; }
</style>
<h1>weft live</h1>
<p id="op-summary">loading the scheduler's state&hellip;</p>
<h2>Jobs running and queued</h2>
<table id="op-jobs"><thead><tr><th>id</th><th>name</th><th>user</th><th>state</th><th>progress (tasks done)</th>
<th>running</th><th>age</th><th>stage</th></tr></thead><tbody></tbody></table>
<h2>Nodes</h2>
<table id="op-nodes"><thead><tr><th>node</th><th>state</th><th>cpu reserved / capacity</th><th>cpu used</th>
<th>mem reserved / capacity (GB)</th><th>mem used</th></tr></thead><tbody></tbody></table>
<h2>Shares now (running tasks by user)</h2>
<table id="op-shares"><thead><tr><th>user</th><th>running tasks</th><th>share</th><th>active jobs</th></tr></thead>
<tbody></tbody></table>
<h2>Shares over time (running tasks by user)</h2>
<p class="op-note">Each user's share of the running tasks, stacked, sampled while this page (or /metrics) is
read: a straight stretch is a time nobody was reading.</p>
<svg id="op-history" width="640" height="170" role="img" aria-label="users' shares over time"></svg>
<p id="op-history-legend"></p>
<h2>Recent task failures</h2>
<table id="op-failures"><thead><tr><th>job</th><th>name</th><th>user</th><th>stage</th><th>task</th><th>attempt</th>
<th>node</th><th>reason</th><th>last stderr line</th></tr></thead><tbody></tbody></table>
</section>
<script>
(function () {
  const query = location.search;
  const $ = (id) => document.getElementById(id);
  function fill(id, rows, empty) {
    const body = $(id).querySelector("tbody");
    body.replaceChildren();
    if (!rows.length) {
      const td = body.insertRow().insertCell();
      td.colSpan = $(id).querySelectorAll("th").length;
      td.className = "op-empty";
      td.textContent = empty;
      return;
    }
    for (const row of rows) {
      const tr = body.insertRow();
      for (const v of row) {
        const td = tr.insertCell();
        if (v instanceof Node) td.appendChild(v); else td.textContent = v;
      }
    }
  }
  function age(s) {
    return s < 60 ? s.toFixed(0) + " s" : s < 3600 ? (s / 60).toFixed(1) + " min" : (s / 3600).toFixed(1) + " h";
  }
  function progress(done, total) {
    const wrap = document.createElement("span");
    const bar = wrap.appendChild(document.createElement("span"));
    bar.className = "op-bar";
    bar.appendChild(document.createElement("span")).style.width = (total ? 100 * done / total : 0) + "%";
    wrap.appendChild(document.createTextNode(done + " / " + total));
    return wrap;
  }
  function reason(f) {
    const code = f.signal ? "signal " + f.signal : "exit code " + f.exit_code;
    return f.error ? f.error + " (" + code + ")" : code;
  }
  const lastLine = (t) => t.trim().split("\n").pop() || "";
  // The report's palette, so a user's colour reads the same way below.
  const palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf"];
  const svgNS = "http://www.w3.org/2000/svg";
  function svg(tag, attrs, text) {
    const e = document.createElementNS(svgNS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  // history: each user's share of the running tasks at each sample, as
  // stacked areas on a time axis (scheduler seconds); a legend below.
  function drawHistory(h) {
    const box = $("op-history"), legend = $("op-history-legend");
    box.replaceChildren();
    legend.replaceChildren();
    const W = 640, H = 170, L = 40, R = 10, T = 8, B = 24;
    box.append(svg("rect", {x: L, y: T, width: W - L - R, height: H - T - B, fill: "#fafafa", stroke: "#ccc"}));
    if (h.t.length < 2 || !h.users.length) {
      box.append(svg("text", {x: L + 10, y: T + 24, fill: "#777"}, h.t.length < 2 ? "collecting samples" : "no task has run since"));
      return;
    }
    const t0 = h.t[0], t1 = h.t[h.t.length - 1];
    const x = (t) => L + (W - L - R) * (t - t0) / (t1 - t0), y = (v) => H - B - (H - T - B) * v;
    const totals = h.t.map((_, i) => h.running.reduce((a, r) => a + r[i], 0));
    const below = h.t.map(() => 0);
    h.users.forEach((user, u) => {
      const top = below.map((b, i) => b + (totals[i] ? h.running[u][i] / totals[i] : 0));
      const pts = h.t.map((t, i) => x(t) + "," + y(top[i])).concat(
          h.t.map((t, i) => x(t) + "," + y(below[i])).reverse());
      const c = user === "others" ? "#999999" : palette[u % palette.length];
      box.append(svg("polygon", {points: pts.join(" "), fill: c, "fill-opacity": 0.75, stroke: c}));
      top.forEach((v, i) => { below[i] = v; });
      const item = legend.appendChild(document.createElement("span"));
      item.appendChild(document.createElement("i")).style.background = c;
      item.appendChild(document.createTextNode(user || "-"));
    });
    box.append(svg("text", {x: L, y: H - 6, "font-size": 11}, t0.toFixed(0) + " s"));
    box.append(svg("text", {x: W - R, y: H - 6, "font-size": 11, "text-anchor": "end"}, t1.toFixed(0) + " s"));
    box.append(svg("text", {x: L - 4, y: T + 10, "font-size": 11, "text-anchor": "end"}, "1"));
    box.append(svg("text", {x: L - 4, y: H - B, "font-size": 11, "text-anchor": "end"}, "0"));
  }
  const n1 = (x) => x.toFixed(1);
  async function get(path) {
    const r = await fetch(path + query, {cache: "no-store"});
    if (!r.ok) throw new Error(path + ": HTTP " + r.status);
    return r.json();
  }
  async function poll() {
    try {
      const [jobs, nodes] = await Promise.all([get("api/jobs"), get("api/nodes")]);
      const running = jobs.jobs_running, queued = jobs.jobs_queued;
      document.title = "weft live: " + running + " running, " + queued + " queued";
      $("op-summary").className = "";
      $("op-summary").textContent = "policy " + jobs.policy + "; nodes up " + jobs.nodes_up + " of " +
          jobs.nodes_expected + "; jobs running " + running + ", queued " + queued +
          (running + queued > jobs.jobs.length ? " (the first " + jobs.jobs.length + " listed)" : "") +
          (jobs.journal_error ? "; the journal cannot commit: " + jobs.journal_error : "") +
          "; updated " + new Date().toLocaleTimeString();
      fill("op-jobs", jobs.jobs.map((j) => [j.id, j.name, j.user || "-", j.state === "waiting" ? "queued" : j.state,
          progress(j.done, j.tasks), j.running, age(j.age_s), j.stage || "-"]), "no job is running or queued");
      fill("op-nodes", nodes.nodes.map((n) => [n.name, n.up ? "up" : "down",
          n1(n.reserved.cpu) + " / " + n1(n.capacity.cpu), n1(n.used.cpu),
          n1(n.reserved.mem) + " / " + n1(n.capacity.mem), n1(n.used.mem)]), "no node has registered yet");
      fill("op-shares", jobs.shares.map((s) => [s.user || "-", s.running, (100 * s.share).toFixed(0) + " %", s.jobs]),
          "no active job");
      drawHistory(jobs.share_history);
      fill("op-failures", jobs.failures.map((f) => [f.job, f.name, f.user || "-", f.stage, f.task, f.attempt, f.node,
          reason(f), lastLine(f.stderr_tail)]), "no task has failed in the jobs held");
    } catch (e) {
      $("op-summary").className = "op-error";
      $("op-summary").textContent = "cannot read the scheduler's state (" + e.message + "); retrying";
    }
    setTimeout(poll, 2000);
  }
  poll();
})();
</script>
)HTML";

}  // namespace weft::runtime

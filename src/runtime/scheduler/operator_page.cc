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

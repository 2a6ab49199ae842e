/// The web admin's replication page, appended to `WebAdminScript`'s script (its function
/// declarations are hoisted, so its router reaches this): `#/replication` starts a
/// replication (a `_replicator` document), lists the replication documents
/// (`_scheduler/docs`), the running jobs (`_scheduler/jobs`) and the peers found on the
/// network (`_peers`), and refreshes itself every 5 s while it is shown.
enum WebAdminReplication {
    static let javascript = #"""

// --- replication -------------------------------------------------------------------

async function replicationPage() {
  const [jobs, docs, peers] = await Promise.all([
    api("GET", "/_scheduler/jobs").catch(() => ({ jobs: [] })),
    api("GET", "/_scheduler/docs").catch(() => ({ docs: [] })),
    api("GET", "/_peers").catch(() => ({ peers: [] }))]);
  const source = el("input", { id: "rep-source", placeholder: "source: database or URL", required: true, size: 36 });
  const target = el("input", { id: "rep-target", placeholder: "target: database or URL", required: true, size: 36 });
  const continuous = el("input", { id: "rep-continuous", type: "checkbox" });
  const createTarget = el("input", { id: "rep-create-target", type: "checkbox" });
  const form = el("form", { class: "inline", id: "replicate-form" }, source, target,
    el("label", {}, continuous, " continuous"), el("label", {}, createTarget, " create target"),
    el("button", { type: "submit", id: "start-replication" }, "Start"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      // A database name is this server's database; a URL carries its own credentials.
      await api("POST", "/_replicator", { source: source.value, target: target.value,
                                         continuous: continuous.checked, create_target: createTarget.checked });
      toast("Replication started");
      route();
    } catch (error) { fail(error); }
  });
  const peerList = (peers.peers || []);
  main.replaceChildren(
    el("h1", {}, "Replication"), form,
    el("h2", {}, "Replication documents"),
    el("table", { id: "replication-docs" },
      el("thead", {}, el("tr", {}, el("th", {}, "Document"), el("th", {}, "State"), el("th", {}, "Source"), el("th", {}, "Target"))),
      el("tbody", {}, (docs.docs || []).map((doc) => el("tr", {},
        el("td", {}, doc.doc_id), el("td", {}, el("span", { class: "pill" + (doc.state === "failed" || doc.state === "crashing" ? " bad" : "") }, doc.state)),
        el("td", {}, doc.source), el("td", {}, doc.target))))),
    el("h2", {}, "Running jobs"),
    el("table", { id: "replication-jobs" },
      el("thead", {}, el("tr", {}, el("th", {}, "Job"), el("th", {}, "Source"), el("th", {}, "Target"), el("th", {}, "Started"))),
      el("tbody", {}, (jobs.jobs || []).map((job) => el("tr", {},
        el("td", {}, job.id), el("td", {}, job.source), el("td", {}, job.target), el("td", {}, job.start_time || ""))))),
    el("h2", {}, "Peers on this network"),
    peerList.length ? el("table", { id: "peers" },
      el("thead", {}, el("tr", {}, el("th", {}, "Name"), el("th", {}, "Address"), el("th", {}))),
      el("tbody", {}, peerList.map((peer) => el("tr", {},
        el("td", {}, peer.instance), el("td", {}, peer.url || ""),
        el("td", {}, el("button", { class: "secondary", onclick: () => { target.value = peer.url || ""; source.focus(); } }, "Sync with")))))
    ) : el("p", { class: "muted", id: "no-peers" }, "No peers discovered."));
  poller = setTimeout(() => { if (location.hash === "#/replication") route(); }, 5000);
}
"""#
}

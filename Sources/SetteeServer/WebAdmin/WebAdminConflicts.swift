/// The web admin's conflict pages (issue 42, item 1), appended to `WebAdminScript`'s
/// script (its function declarations are hoisted, so its router reaches these):
/// `#/db/NAME/conflicts` lists the documents in conflict (`GET /{db}/_conflicts`, with
/// why a policy left one, and a button for `POST /{db}/_resolve_conflicts`);
/// `#/db/NAME/conflicts/ID?rev=R` shows the winner and one other leaf side by side.
enum WebAdminConflicts {
    static let javascript = #"""

// --- conflicts -----------------------------------------------------------------------

const conflictsLink = (db, id, rev) => "#/db/" + encodeURIComponent(db) + "/conflicts"
  + (id === undefined ? "" : "/" + encodeURIComponent(id) + (rev ? "?rev=" + encodeURIComponent(rev) : ""));

async function conflictsPage(db) {
  const result = await api("GET", dbPath(db) + "/_conflicts?limit=500");
  const resolve = el("button", { id: "resolve-conflicts", onclick: async () => {
    try {
      const done = await api("POST", dbPath(db) + "/_resolve_conflicts");
      toast("Resolved " + done.resolved + ", failed " + done.failed.length + ", left " + done.remaining);
      route();
    } catch (error) { fail(error); }
  } }, "Resolve by the database's policy");
  main.replaceChildren(
    el("p", {}, el("a", { href: "#/db/" + encodeURIComponent(db) }, "← " + db)),
    el("h1", {}, "Conflicts in " + db, " ", el("span", { class: "pill", id: "conflict-count" }, result.total_rows + " documents")),
    el("p", {}, resolve),
    result.rows.length === 0 ? el("p", { class: "muted", id: "no-conflicted-docs" }, "No document is in conflict.")
      : el("table", { id: "conflicted-docs" },
          el("thead", {}, el("tr", {}, el("th", {}, "ID"), el("th", {}, "Winner"), el("th", {}, "Other leaves"))),
          el("tbody", {}, result.rows.map((row) => el("tr", {},
            el("td", {}, el("a", { href: conflictsLink(db, row.id), class: "conflict-link" }, row.id),
              row.policy_error ? el("div", { class: "pill bad policy-error" }, row.policy_error) : null),
            el("td", { class: "muted" }, row.rev),
            el("td", {}, row.conflicts.map((rev) => el("div", {}, el("a", { href: conflictsLink(db, row.id, rev) }, rev)))))))));
}

async function leavesPage(db, id, rev) {
  const winner = await api("GET", docPath(db, id) + "?conflicts=true");
  const others = winner._conflicts || [];
  delete winner._conflicts;
  const chosen = rev || others[0];
  const other = chosen ? await api("GET", docPath(db, id) + "?rev=" + encodeURIComponent(chosen)) : null;
  const leaf = (title, doc, elementID) => el("div", { class: "grow" }, el("h2", {}, title),
    el("pre", { id: elementID }, doc ? JSON.stringify(doc, null, 2) : "—"));
  main.replaceChildren(
    el("p", {}, el("a", { href: conflictsLink(db) }, "← conflicts in " + db), " · ", el("a", { href: docLink(db, id) }, "edit " + id)),
    el("h1", {}, id),
    el("p", {}, "Other leaves: ", others.length === 0 ? el("span", { class: "muted" }, "none") : others.map((r) =>
      el("a", { href: conflictsLink(db, id, r), class: r === chosen ? "pill" : "" }, r, " "))),
    el("div", { class: "row", id: "leaves" },
      leaf("Winner " + winner._rev, winner, "leaf-winner"),
      leaf(chosen ? "Leaf " + chosen : "No other leaf", other, "leaf-other")));
}
"""#
}

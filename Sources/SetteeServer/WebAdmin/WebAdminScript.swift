/// `/_utils/app.js`: the web admin, one script, no framework. Routes by the URL's hash
/// (`#/`, `#/db/NAME`, `#/db/NAME/doc/ID`, `#/db/NAME/new`, `#/db/NAME/conflicts[/ID]`
/// (`WebAdminConflicts`, appended), `#/replication` (`WebAdminReplication`, appended), `#/peers` (`WebAdminPeers`, appended), `#/login`)
/// and talks to the same CouchDB API every client uses, with the `_session` cookie.
enum WebAdminScript {
    static let javascript = #"""
"use strict";
const main = document.getElementById("main");
let session = null;
let feed = null;       // the open _changes EventSource, closed on navigation
let poller = null;     // the replication and peer pages' refresh timer

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== false && value !== null && value !== undefined) node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

async function api(method, path, body) {
  const options = { method, headers: { Accept: "application/json" }, credentials: "same-origin" };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  const text = await response.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
  if (!response.ok) {
    const error = new Error((json && (json.reason || json.error)) || response.statusText);
    error.status = response.status;
    throw error;
  }
  return json;
}

function toast(message, bad) {
  const box = document.getElementById("toast");
  box.textContent = message;
  box.className = bad ? "bad" : "";
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { box.hidden = true; }, 4000);
}

function fail(error) { toast(error.message, true); }

function size(bytes) {
  if (bytes === undefined || bytes === null) return "";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes, unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit += 1; }
  return (unit === 0 ? value : value.toFixed(1)) + " " + units[unit];
}

const dbPath = (name) => "/" + encodeURIComponent(name);
const docPath = (db, id) => dbPath(db) + "/" + (id.startsWith("_design/") ? "_design/" + encodeURIComponent(id.slice(8))
                                                                            : encodeURIComponent(id));
const docLink = (db, id) => "#/db/" + encodeURIComponent(db) + "/doc/" + encodeURIComponent(id);

async function refreshSession() {
  session = await api("GET", "/_session");
  const name = session.userCtx.name;
  document.getElementById("who").textContent = name ? name + (session.userCtx.roles.includes("_admin") ? " (admin)" : "") : "";
  document.getElementById("logout").hidden = !name;
}

// --- pages -------------------------------------------------------------------------

function loginPage() {
  const form = el("form", { class: "card login", id: "login-form" },
    el("h1", {}, "Log in to Settee"),
    el("label", { for: "login-name" }, "Name"), el("input", { id: "login-name", autocomplete: "username", required: true }),
    el("label", { for: "login-password" }, "Password"),
    el("input", { id: "login-password", type: "password", autocomplete: "current-password", required: true }),
    el("p", {}, el("button", { type: "submit", id: "login-submit" }, "Log in")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await api("POST", "/_session", { name: form.querySelector("#login-name").value,
                                       password: form.querySelector("#login-password").value });
      await refreshSession();
      location.hash = "#/";
      route();
    } catch (error) { fail(error); }
  });
  main.replaceChildren(form);
}

async function databasesPage() {
  const names = await api("GET", "/_all_dbs");
  let infos;
  try {
    infos = await api("POST", "/_dbs_info", { keys: names });
  } catch (error) {
    infos = await Promise.all(names.map(async (key) => ({ key, info: await api("GET", dbPath(key)).catch(() => null) })));
  }
  const rows = infos.map(({ key, info }) => el("tr", { "data-db": key },
    el("td", {}, el("a", { href: "#/db/" + encodeURIComponent(key) }, key)),
    el("td", { class: "num" }, info ? info.doc_count : ""),
    el("td", { class: "num" }, info ? info.doc_del_count : ""),
    el("td", { class: "num" }, info && info.sizes ? size(info.sizes.file) : ""),
    el("td", {}, el("button", { class: "danger delete-db", onclick: () => deleteDatabase(key) }, "Delete"))));
  const input = el("input", { id: "new-db", placeholder: "new database name", required: true });
  const form = el("form", { class: "inline", id: "create-db-form" }, input, el("button", { type: "submit", id: "create-db" }, "Create"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await api("PUT", dbPath(input.value));
      toast("Created " + input.value);
      route();
    } catch (error) { fail(error); }
  });
  main.replaceChildren(el("h1", {}, "Databases"), form,
    el("table", { id: "databases" },
      el("thead", {}, el("tr", {}, el("th", {}, "Name"), el("th", {}, "Documents"), el("th", {}, "Deleted"),
                                   el("th", {}, "Size on disk"), el("th", {}))),
      el("tbody", {}, rows)));
}

async function deleteDatabase(name) {
  if (!confirm("Delete the database " + name + " and every document in it?")) return;
  try {
    await api("DELETE", dbPath(name));
    toast("Deleted " + name);
    route();
  } catch (error) { fail(error); }
}

async function databasePage(db, skip) {
  const pageSize = 50;
  const info = await api("GET", dbPath(db));
  const result = await api("GET", dbPath(db) + "/_all_docs?limit=" + pageSize + "&skip=" + skip);
  const list = el("tbody", {}, result.rows.map((row) => el("tr", {},
    el("td", {}, el("a", { href: docLink(db, row.id), class: "doc-link" }, row.id)),
    el("td", { class: "muted" }, row.value.rev))));
  const pager = el("p", {},
    skip > 0 ? el("a", { href: "#/db/" + encodeURIComponent(db) + "?skip=" + Math.max(0, skip - pageSize) }, "← previous") : null, " ",
    skip + pageSize < result.total_rows ? el("a", { href: "#/db/" + encodeURIComponent(db) + "?skip=" + (skip + pageSize) }, "next →") : null);
  const changes = el("ul", { id: "changes" });
  main.replaceChildren(
    el("h1", {}, db, " ", el("span", { class: "pill", id: "doc-count" }, info.doc_count + " documents")),
    el("p", {}, el("a", { href: "#/db/" + encodeURIComponent(db) + "/new", id: "new-doc" }, "New document"), " · ",
      el("a", { href: "#/db/" + encodeURIComponent(db) + "/conflicts", id: "db-conflicts" }, "Conflicts")),
    el("div", { class: "row" },
      el("div", { class: "grow" }, el("table", { id: "documents" },
        el("thead", {}, el("tr", {}, el("th", {}, "ID"), el("th", {}, "Revision"))), list), pager),
      el("div", { class: "side" }, el("h2", {}, "Live changes"), changes)));
  feed = new EventSource(dbPath(db) + "/_changes?feed=eventsource&since=now&heartbeat=10000");
  feed.onopen = () => changes.setAttribute("data-connected", "");
  feed.onmessage = (event) => {
    const change = JSON.parse(event.data);
    changes.prepend(el("li", {}, el("a", { href: docLink(db, change.id) }, change.id), " ",
      change.deleted ? el("span", { class: "pill bad" }, "deleted") : el("span", { class: "muted" }, change.changes[0].rev)));
  };
}

async function documentPage(db, id, rev) {
  const query = rev ? "?rev=" + encodeURIComponent(rev) : "?revs_info=true&conflicts=true&deleted_conflicts=true";
  const doc = await api("GET", docPath(db, id) + query);
  const revsInfo = doc._revs_info || [];
  const conflicts = doc._conflicts || [];
  const deletedConflicts = doc._deleted_conflicts || [];
  delete doc._revs_info; delete doc._conflicts; delete doc._deleted_conflicts;
  const editor = el("textarea", { id: "doc-editor", spellcheck: "false" }, JSON.stringify(doc, null, 2));
  const save = el("button", { id: "save-doc", onclick: async () => {
    try {
      const body = JSON.parse(editor.value);
      const saved = await api("PUT", docPath(db, id), body);
      toast("Saved " + saved.rev);
      location.hash = docLink(db, id);
      route();
    } catch (error) { fail(error); }
  } }, rev ? "Save as the winner" : "Save");
  const remove = el("button", { class: "danger", id: "delete-doc", onclick: async () => {
    if (!confirm("Delete revision " + doc._rev + " of " + id + "?")) return;
    try {
      await api("DELETE", docPath(db, id) + "?rev=" + encodeURIComponent(doc._rev));
      toast("Deleted " + doc._rev);
      location.hash = rev ? docLink(db, id) : "#/db/" + encodeURIComponent(db);
      route();
    } catch (error) { fail(error); }
  } }, rev ? "Delete this revision" : "Delete");
  const revisionLink = (r) => el("a", { href: docLink(db, id) + "?rev=" + encodeURIComponent(r), class: "rev-link" }, r);
  main.replaceChildren(
    el("p", {}, el("a", { href: "#/db/" + encodeURIComponent(db) }, "← " + db)),
    el("h1", {}, id, rev ? el("span", { class: "pill" }, "revision " + rev) : null),
    el("div", { class: "row" },
      el("div", { class: "grow" }, editor, el("p", {}, save, " ", remove)),
      el("div", { class: "side" },
        el("h2", {}, "Conflicts"),
        conflicts.length ? el("ul", { id: "conflicts" }, conflicts.map((r) => el("li", {}, revisionLink(r))))
                         : el("p", { class: "muted", id: "no-conflicts" }, rev ? "—" : "None"),
        deletedConflicts.length ? el("p", { class: "muted" }, deletedConflicts.length + " deleted conflicts") : null,
        el("h2", {}, "Revisions"),
        el("ul", { id: "revisions" }, revsInfo.map((info) => el("li", {},
          info.status === "available" ? revisionLink(info.rev) : info.rev, " ",
          el("span", { class: "muted" }, info.status)))))));
}

async function newDocumentPage(db) {
  const uuids = await api("GET", "/_uuids");
  const editor = el("textarea", { id: "doc-editor", spellcheck: "false" }, JSON.stringify({ _id: uuids.uuids[0] }, null, 2));
  main.replaceChildren(
    el("p", {}, el("a", { href: "#/db/" + encodeURIComponent(db) }, "← " + db)),
    el("h1", {}, "New document in ", db), editor,
    el("p", {}, el("button", { id: "save-doc", onclick: async () => {
      try {
        const saved = await api("POST", dbPath(db), JSON.parse(editor.value));
        toast("Created " + saved.id);
        location.hash = docLink(db, saved.id);
      } catch (error) { fail(error); }
    } }, "Create")));
}

// --- routing -----------------------------------------------------------------------

async function route() {
  if (feed) { feed.close(); feed = null; }
  clearTimeout(poller);
  const [path, search] = location.hash.slice(1).split("?");
  const params = new URLSearchParams(search || "");
  const parts = (path || "/").split("/").filter(Boolean).map(decodeURIComponent);
  for (const link of document.querySelectorAll("header nav a")) link.classList.remove("active");
  try {
    if (!session || !session.userCtx.name) {
      await refreshSession();
      if (!session.userCtx.name) return loginPage();
    }
    if (parts[0] === "login") return loginPage();
    if (parts[0] === "replication") {
      document.getElementById("nav-replication").classList.add("active");
      return await replicationPage();
    }
    if (parts[0] === "peers") {
      document.getElementById("nav-peers").classList.add("active");
      return await peersPage();
    }
    document.getElementById("nav-databases").classList.add("active");
    if (parts[0] === "db" && parts.length === 2) return await databasePage(parts[1], Number(params.get("skip") || 0));
    if (parts[0] === "db" && parts[2] === "new") return await newDocumentPage(parts[1]);
    if (parts[0] === "db" && parts[2] === "conflicts" && parts.length === 3) return await conflictsPage(parts[1]);
    if (parts[0] === "db" && parts[2] === "conflicts") return await leavesPage(parts[1], parts.slice(3).join("/"), params.get("rev"));
    if (parts[0] === "db" && parts[2] === "doc") return await documentPage(parts[1], parts.slice(3).join("/"), params.get("rev"));
    return await databasesPage();
  } catch (error) {
    if (error.status === 401) { session = null; return loginPage(); }
    main.replaceChildren(el("p", { class: "pill bad", id: "error" }, error.message));
  }
}

document.getElementById("logout").addEventListener("click", async () => {
  await api("DELETE", "/_session").catch(fail);
  session = null;
  document.getElementById("who").textContent = "";
  document.getElementById("logout").hidden = true;
  location.hash = "#/login";
  route();
});
window.addEventListener("hashchange", route);
route();
"""#
}

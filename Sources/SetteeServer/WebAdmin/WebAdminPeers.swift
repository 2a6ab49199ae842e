/// The web admin's peer page (issue 41, item 6), appended to `WebAdminScript`'s script
/// (its function declarations are hoisted, so its router reaches this): `#/peers` lists
/// `GET /_peers` — each peer's state, addresses, when it was last seen, its replication lag
/// and the replications with it both ways (with `topology = pull` the way out is the peer's
/// pull of this server, `run_by` "peer": its checkpoint's time here) — and refreshes itself every
/// `peersRefresh` ms while it is shown. It asks with `reachable=false`: the states already
/// say whether a peer answers (`unanswered`, `away`), and a refresh must not wait on a
/// probe of a peer that is gone.
enum WebAdminPeers {
    static let javascript = #"""

// --- peers -------------------------------------------------------------------------

const peersRefresh = 3000;
const troubledStates = ["failing", "unanswered", "away", "gone"];

// "12 s ago" from an ISO 8601 time; the time itself when it cannot be read.
function ago(iso) {
  const seconds = Math.round((Date.now() - Date.parse(iso)) / 1000);
  if (!Number.isFinite(seconds)) return iso || "";
  if (seconds < 90) return Math.max(0, seconds) + " s ago";
  if (seconds < 5400) return Math.round(seconds / 60) + " min ago";
  if (seconds < 172800) return Math.round(seconds / 3600) + " h ago";
  return Math.round(seconds / 86400) + " d ago";
}

// The largest lag of a peer's replications, in ms, or null when none reported one.
function peerLag(peer) {
  const lags = (peer.replications || []).map((r) => r.lag_ms).filter((lag) => typeof lag === "number");
  return lags.length ? Math.max(...lags) : null;
}

function replicationLine(r) {
  return el("div", { class: "peer-replication" },
    (r.database || "?") + " " + (r.direction || ""), " ",
    el("span", { class: "pill" + (r.last_error ? " bad" : "") }, r.state || "not running"),
    r.caught_up ? el("span", { class: "muted" }, " caught up") : null,
    typeof r.lag_ms === "number" ? el("span", { class: "muted" }, " · lag " + r.lag_ms + " ms") : null,
    typeof r.docs_written === "number" ? el("span", { class: "muted" }, " · " + r.docs_written + " written") : null,
    typeof r.behind === "number" && r.behind > 0 ? el("span", { class: "muted" }, " · " + r.behind + " behind") : null,
    r.run_by === "peer" && r.checkpointed_at ? el("span", { class: "muted", title: r.checkpointed_at },
      " · checkpointed " + ago(r.checkpointed_at)) : null,
    r.last_error ? el("div", { class: "pill bad peer-error" }, r.last_error) : null);
}

function peerRow(peer) {
  const lag = peerLag(peer);
  return el("tr", { class: "peer", "data-instance": peer.instance },
    el("td", {}, el("strong", {}, peer.instance), el("div", { class: "muted" }, peer.uuid || "")),
    el("td", {}, el("span", { class: "pill peer-state" + (troubledStates.includes(peer.state) ? " bad" : "") }, peer.state),
      peer.reason ? el("div", { class: "muted" }, peer.reason) : null),
    el("td", { class: "peer-addresses" }, (peer.addresses || []).map((a) => el("div", {}, a)),
      peer.url ? el("div", { class: "muted" }, peer.url) : null),
    el("td", { class: "peer-last-seen", title: peer.last_seen || "" }, ago(peer.last_seen)),
    el("td", { class: "num peer-lag", style: "white-space: nowrap" }, lag === null ? "—" : lag + " ms"),
    el("td", { class: "peer-replications" }, (peer.replications || []).length
      ? peer.replications.map(replicationLine) : el("span", { class: "muted" }, "none")));
}

async function peersPage() {
  const answer = await api("GET", "/_peers?reachable=false");
  const peers = answer.peers || [];
  const heading = el("h1", {}, "Peers", " ",
    answer.enabled === false ? el("span", { class: "pill bad", id: "discovery-off" }, "discovery off")
                             : el("span", { class: "pill", id: "peer-count" }, peers.length + " peers"));
  main.replaceChildren(heading,
    answer.instance ? el("p", { class: "muted", id: "instance" }, "This server: " + answer.instance) : null,
    peers.length === 0 ? el("p", { class: "muted", id: "peers-none" }, "No peers discovered.")
      : el("table", { id: "peers-table" },
          el("thead", {}, el("tr", {}, ["Peer", "State", "Addresses", "Last seen", "Lag", "Replications"]
            .map((title) => el("th", {}, title)))),
          el("tbody", {}, peers.map(peerRow))),
    el("p", { class: "muted", id: "peers-refreshed" }, "Refreshed " + new Date().toLocaleTimeString()));
  poller = setTimeout(() => { if (location.hash.split("?")[0] === "#/peers") route(); }, peersRefresh);
}
"""#
}

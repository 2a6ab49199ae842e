/// `/_utils/`: the web admin's page and style sheet. Written for Settee (no CouchDB or
/// Fauxton assets), small, and served from the binary: nothing to build or install.
enum WebAdminPage {
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Settee</title>
<link rel="stylesheet" href="style.css">
</head>
<body>
<header>
  <a class="brand" href="#/">Settee</a>
  <nav>
    <a href="#/" id="nav-databases">Databases</a>
    <a href="#/replication" id="nav-replication">Replication</a>
    <a href="#/peers" id="nav-peers">Peers</a>
  </nav>
  <span id="who"></span>
  <button id="logout" hidden>Log out</button>
</header>
<main id="main"><p class="muted">Loading…</p></main>
<div id="toast" role="status" hidden></div>
<script src="app.js"></script>
</body>
</html>
"""#

    static let css = #"""
:root { --fg: #1d232a; --muted: #6b7480; --line: #dde2e8; --accent: #2f6fde; --bad: #c2332f; --bg: #f7f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; gap: 1.5rem; align-items: center; padding: .7rem 1.5rem; background: #fff;
  border-bottom: 1px solid var(--line); }
header .brand { font-weight: 700; font-size: 1.15rem; color: var(--fg); text-decoration: none; }
header nav { display: flex; gap: 1rem; flex: 1; }
header nav a { color: var(--muted); text-decoration: none; }
header nav a.active { color: var(--accent); font-weight: 600; }
main { max-width: 1100px; margin: 1.5rem auto; padding: 0 1.5rem; }
h1 { font-size: 1.35rem; margin: 0 0 1rem; }
h2 { font-size: 1.05rem; margin: 1.5rem 0 .5rem; }
table { width: 100%; border-collapse: collapse; background: #fff; border: 1px solid var(--line); }
th, td { text-align: left; padding: .45rem .7rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); font-size: .85rem; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
a { color: var(--accent); }
form.inline { display: flex; gap: .5rem; margin: .8rem 0; flex-wrap: wrap; }
input, select, textarea, button { font: inherit; }
input, select { padding: .35rem .5rem; border: 1px solid var(--line); border-radius: 4px; }
textarea { width: 100%; min-height: 22rem; font-family: ui-monospace, monospace; font-size: 13px;
  padding: .6rem; border: 1px solid var(--line); border-radius: 4px; }
button { padding: .35rem .9rem; border: 1px solid var(--accent); background: var(--accent); color: #fff;
  border-radius: 4px; cursor: pointer; }
button.secondary { background: #fff; color: var(--accent); }
button.danger { background: #fff; color: var(--bad); border-color: var(--bad); }
.muted { color: var(--muted); }
.card { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 1rem 1.2rem; }
.login { max-width: 22rem; margin: 4rem auto; }
.login label { display: block; margin: .6rem 0 .2rem; }
.login input { width: 100%; }
.row { display: flex; gap: 1.5rem; align-items: flex-start; }
.row > .grow { flex: 1; min-width: 0; }
.side { width: 20rem; }
#changes { font-family: ui-monospace, monospace; font-size: 12px; max-height: 24rem; overflow: auto;
  background: #fff; border: 1px solid var(--line); padding: .5rem; margin: 0; list-style: none; }
#changes li { padding: .1rem 0; border-bottom: 1px dotted var(--line); }
.pill { display: inline-block; padding: 0 .45rem; border-radius: 9px; font-size: .8rem; background: #e9eef7; }
.pill.bad { background: #f8e1e0; color: var(--bad); }
#toast { position: fixed; bottom: 1rem; right: 1rem; background: var(--fg); color: #fff; padding: .6rem 1rem;
  border-radius: 6px; max-width: 30rem; }
#toast.bad { background: var(--bad); }
"""#
}

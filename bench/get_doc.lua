-- GET /{db}/doc%06d with a random id in [0, BENCH_NDOCS), Basic auth from the environment;
-- with BENCH_VIEW set, GET /{db}/{view}?key=N instead (point queries of a built view,
-- bench/views). Each thread formats BENCH_NDOCS random requests once in init() and
-- cycles through them, so the load generator spends its CPU on sending, not on building
-- strings in Lua (wrk.format per request cost it about 2.5 µs of each request's 21 µs).
local db = os.getenv("BENCH_DB") or "getdoc"
local view = os.getenv("BENCH_VIEW")
local n = tonumber(os.getenv("BENCH_NDOCS") or "100000")
-- Keys drawn from [0, BENCH_NKEYS) (default BENCH_NDOCS): bench/views' repeated keys.
local nkeys = tonumber(os.getenv("BENCH_NKEYS") or tostring(n))
wrk.headers["Authorization"] = os.getenv("BENCH_AUTH")
local counter = 0
local requests = {}
local i = 0

function setup(thread)
  counter = counter + 1
  thread:set("seed", counter)
end

local function path(k)
  if view then return string.format("/%s/%s?key=%d", db, view, k) end
  return string.format("/%s/doc%06d", db, k)
end

function init(args)
  math.randomseed(os.time() * 1000 + (seed or 0))
  for k = 1, n do
    requests[k] = wrk.format("GET", path(math.random(0, (view and nkeys or n) - 1)))
  end
end

function request()
  i = i % n + 1
  return requests[i]
end

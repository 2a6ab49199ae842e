-- GET /{db}/{view}?key=N with a random N in [0, BENCH_NDOCS), Basic auth from the
-- environment: point queries of a built view (bench/views). Requests are formatted once
-- per thread in init(), as in get_doc.lua, so wrk spends its CPU on sending.
local db = os.getenv("BENCH_DB")
local view = os.getenv("BENCH_VIEW")
local n = tonumber(os.getenv("BENCH_NDOCS") or "100000")
wrk.headers["Authorization"] = os.getenv("BENCH_AUTH")
local counter = 0
local requests = {}
local i = 0

function setup(thread)
  counter = counter + 1
  thread:set("seed", counter)
end

function init(args)
  math.randomseed(os.time() * 1000 + (seed or 0))
  for k = 1, n do
    requests[k] = wrk.format("GET", string.format("/%s/%s?key=%d", db, view, math.random(0, n - 1)))
  end
end

function request()
  i = i % n + 1
  return requests[i]
end

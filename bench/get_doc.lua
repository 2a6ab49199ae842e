-- GET /{db}/doc%06d with a random id in [0, BENCH_NDOCS), Basic auth from the environment.
-- Each thread formats BENCH_NDOCS random requests once in init() and cycles through
-- them, so the load generator spends its CPU on sending, not on building strings in
-- Lua (wrk.format per request cost it about 2.5 µs of each request's 21 µs).
local db = os.getenv("BENCH_DB") or "getdoc"
local n = tonumber(os.getenv("BENCH_NDOCS") or "100000")
wrk.headers["Authorization"] = os.getenv("BENCH_AUTH")
local counter = 0
local requests = {}
local count = n
local i = 0

function setup(thread)
  counter = counter + 1
  thread:set("seed", counter)
end

function init(args)
  math.randomseed(os.time() * 1000 + (seed or 0))
  for k = 1, count do
    requests[k] = wrk.format("GET", string.format("/%s/doc%06d", db, math.random(0, n - 1)))
  end
end

function request()
  i = i % count + 1
  return requests[i]
end

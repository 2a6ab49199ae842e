-- GET /{db}/doc%06d with a random id in [0, BENCH_NDOCS), Basic auth from the environment.
local db = os.getenv("BENCH_DB") or "getdoc"
local n = tonumber(os.getenv("BENCH_NDOCS") or "100000")
wrk.headers["Authorization"] = os.getenv("BENCH_AUTH")
local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("seed", counter)
end

function init(args)
  math.randomseed(os.time() * 1000 + (seed or 0))
end

function request()
  return wrk.format("GET", string.format("/%s/doc%06d", db, math.random(0, n - 1)))
end

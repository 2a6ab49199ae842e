-- PUT /{db}/t{thread}-c{n}: unique ids per thread, small JSON body. No count cap:
-- wrk's main thread sleeps the whole -d anyway and divides by it, so stopping a
-- thread early (wrk.thread:stop()) would understate requests/s; -d bounds the run.
local db = os.getenv("BENCH_DB") or "puts"
wrk.method = "PUT"
wrk.headers["Authorization"] = os.getenv("BENCH_AUTH")
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"type":"bench","name":"concurrent put","n":1,"tags":["a","b","c"]}'
local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

local sent = 0

function request()
  sent = sent + 1
  return wrk.format(nil, string.format("/%s/t%d-c%07d", db, tid, sent))
end

-- GET /_up with the same Basic auth as get_doc.lua: a reference for the machine's
-- speed of the minute (no store, no reader), printed next to (a) by bench/get_doc.
wrk.headers["Authorization"] = os.getenv("BENCH_AUTH")
local req

function init(args)
  req = wrk.format("GET", "/_up")
end

function request()
  return req
end

// The work a view build asks of a JavaScript engine, the same text for every engine
// (bench/engines/run): 100,000 small documents arrive as JSON text in batches of 1,000,
// each is parsed, run through a map function that emits one row, and the batch's rows go
// back as JSON text (as Settee's __mapBatch and CouchDB's query server both do). The
// documents' text is made before the clock starts. The result is the elapsed milliseconds.
var N = 100000, BATCH = 1000;
var batches = [];
for (var b = 0; b < N; b += BATCH) {
  var docs = [];
  for (var i = b; i < b + BATCH; i++) {
    docs.push({_id: "p" + ("000000" + i).slice(-7), _rev: "1-0123456789abcdef0123456789abcdef", n: i,
               type: "t" + (i % 10), age: (i * 7) % 100, name: "person " + i});
  }
  batches.push(JSON.stringify(docs));
}
var rows = null;
function emit(key, value) { rows.push([key, value]); }
var map = function(doc) { if (doc.type) emit([doc.type, doc.age], doc.name); };
var start = Date.now();
var total = 0;
for (var k = 0; k < batches.length; k++) {
  var docs = JSON.parse(batches[k]);
  var out = [];
  for (var d = 0; d < docs.length; d++) { rows = []; map(docs[d]); out.push(rows); }
  total += JSON.stringify(out).length;
}
if (total < N) throw new Error("rows missing");
Date.now() - start;

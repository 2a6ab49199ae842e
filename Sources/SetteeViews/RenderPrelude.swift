extension JavaScriptEngine {
    /*
     Shows, lists and updates as CouchDB's query server runs them: `provides`,
     `registerType`, `start`, `send` and `getRow`, from CouchDB's share/server/render.js
     and mimeparse.js (Apache License 2.0, as Settee), kept close to the originals so
     a design document behaves as it does there. What differs is the transport: CouchDB
     streams a list's rows to the query server one line at a time; here the rows of
     the request are handed over at once and the response comes back whole, as
     `{"ok": ...}` or `{"error": [type, reason]}` (`__render`).
    */
    static let renderPrelude = #"""
    var __Mimeparse = (function() {
      function strip(string) { return string.replace(/^\s+/, '').replace(/\s+$/, ''); }
      function parseRanges(ranges) {
        var parsedRanges = [], rangeParts = ranges.split(",");
        for (var i = 0; i < rangeParts.length; i++) parsedRanges.push(publicMethods.parseMediaRange(rangeParts[i]));
        return parsedRanges;
      }
      var publicMethods = {
        parseMimeType: function(mimeType) {
          var fullType, typeParts, params = {}, parts = mimeType.split(';');
          for (var i = 0; i < parts.length; i++) {
            var p = parts[i].split('=');
            if (p.length == 2) params[strip(p[0])] = strip(p[1]);
          }
          fullType = parts[0].replace(/^\s+/, '').replace(/\s+$/, '');
          if (fullType == '*') fullType = '*/*';
          typeParts = fullType.split('/');
          return [typeParts[0], typeParts[1], params];
        },
        parseMediaRange: function(range) {
          var q, parsedType = this.parseMimeType(range);
          if (!parsedType[2]['q']) {
            parsedType[2]['q'] = '1';
          } else {
            q = parseFloat(parsedType[2]['q']);
            if (isNaN(q) || q > 1 || q < 0) parsedType[2]['q'] = '1';
          }
          return parsedType;
        },
        fitnessAndQualityParsed: function(mimeType, parsedRanges) {
          var bestFitness = -1, bestFitQ = 0, target = this.parseMediaRange(mimeType);
          var targetType = target[0], targetSubtype = target[1], targetParams = target[2];
          for (var i = 0; i < parsedRanges.length; i++) {
            var parsed = parsedRanges[i];
            var type = parsed[0], subtype = parsed[1], params = parsed[2];
            if ((type == targetType || type == "*" || targetType == "*") &&
                (subtype == targetSubtype || subtype == "*" || targetSubtype == "*")) {
              var matchCount = 0;
              for (var param in targetParams) {
                if (param != 'q' && params[param] && params[param] == targetParams[param]) matchCount += 1;
              }
              var fitness = (type == targetType) ? 100 : 0;
              fitness += (subtype == targetSubtype) ? 10 : 0;
              fitness += matchCount;
              if (fitness > bestFitness) { bestFitness = fitness; bestFitQ = params["q"]; }
            }
          }
          return [bestFitness, parseFloat(bestFitQ)];
        },
        bestMatch: function(supported, header) {
          var parsedHeader = parseRanges(header);
          var weighted = [];
          for (var i = 0; i < supported.length; i++) {
            weighted.push([publicMethods.fitnessAndQualityParsed(supported[i], parsedHeader), i, supported[i]]);
          }
          weighted.sort();
          return weighted[weighted.length - 1][0][1] ? weighted[weighted.length - 1][2] : '';
        }
      };
      return publicMethods;
    })();

    var __Mime = (function() {
      var mimesByKey = {};
      var keysByMime = {};
      function registerType() {
        var mimes = [], key = arguments[0];
        for (var i = 1; i < arguments.length; i++) mimes.push(arguments[i]);
        mimesByKey[key] = mimes;
        for (var i = 0; i < mimes.length; i++) keysByMime[mimes[i]] = key;
      }
      registerType("all", "*/*");
      registerType("text", "text/plain; charset=utf-8", "txt");
      registerType("html", "text/html; charset=utf-8");
      registerType("xhtml", "application/xhtml+xml", "xhtml");
      registerType("xml", "application/xml", "text/xml", "application/x-xml");
      registerType("js", "text/javascript", "application/javascript", "application/x-javascript");
      registerType("css", "text/css");
      registerType("ics", "text/calendar");
      registerType("csv", "text/csv");
      registerType("rss", "application/rss+xml");
      registerType("atom", "application/atom+xml");
      registerType("yaml", "application/x-yaml", "text/yaml");
      registerType("multipart_form", "multipart/form-data");
      registerType("url_encoded_form", "application/x-www-form-urlencoded");
      registerType("json", "application/json", "text/x-json");

      var providesUsed = false;
      var mimeFuns = [];
      var responseContentType = null;
      function provides(type, fun) { providesUsed = true; mimeFuns.push([type, fun]); }
      function resetProvides() { providesUsed = false; mimeFuns = []; responseContentType = null; }
      function runProvides(req, ddoc) {
        var supportedMimes = [], bestFun, bestKey = null, accept = req.headers["Accept"];
        if (req.query && req.query.format) {
          bestKey = req.query.format;
          responseContentType = mimesByKey[bestKey][0];
        } else if (accept) {
          mimeFuns.reverse().forEach(function(mimeFun) {
            var mimeKey = mimeFun[0];
            if (mimesByKey[mimeKey]) supportedMimes = supportedMimes.concat(mimesByKey[mimeKey]);
          });
          responseContentType = __Mimeparse.bestMatch(supportedMimes, accept);
          bestKey = keysByMime[responseContentType];
        } else {
          bestKey = mimeFuns[0][0];
          responseContentType = mimesByKey[bestKey][0];
        }
        if (bestKey) {
          for (var i = 0; i < mimeFuns.length; i++) {
            if (mimeFuns[i][0] == bestKey) { bestFun = mimeFuns[i][1]; break; }
          }
        }
        if (bestFun) return bestFun.call(ddoc);
        var supportedTypes = mimeFuns.map(function(mf) { return mimesByKey[mf[0]].join(', ') || mf[0]; });
        throw(["error", "not_acceptable",
          "Content-Type " + (accept || bestKey) + " not supported, try one of: " + supportedTypes.join(', ')]);
      }
      return {
        registerType: registerType, provides: provides, resetProvides: resetProvides, runProvides: runProvides,
        providesUsed: function() { return providesUsed; },
        responseContentType: function() { return responseContentType; }
      };
    })();

    function registerType() { __Mime.registerType.apply(null, arguments); }
    function provides(type, fun) { __Mime.provides(type, fun); }

    var __Render = (function() {
      var newHeader = false, chunks = [], startResp = {};
      var gotRow = false, lastRow = false;
      // The list being run: its rows, and what CouchDB would have sent so far.
      var rows = null, nextRow = 0, out = null;

      function start(resp) { startResp = resp || {}; newHeader = true; }
      function send(chunk) { chunks.push(chunk.toString()); }

      function applyContentType(resp, responseContentType) {
        resp["headers"] = resp["headers"] || {};
        if (responseContentType) {
          resp["headers"]["Content-Type"] = resp["headers"]["Content-Type"] || responseContentType;
        }
        return resp;
      }
      // CouchDB takes new headers only until the first chunk is sent (couch_mrview_show).
      function emit(head, list) {
        if (out === null) return;
        if (head && !out.started) out.head = head;
        if (list.length) { out.started = true; for (var i = 0; i < list.length; i++) out.chunks.push(list[i]); }
      }
      function sendStart() {
        startResp = applyContentType(startResp || {}, __Mime.responseContentType());
        emit(startResp, chunks);
        chunks = []; startResp = {}; newHeader = false;
      }
      function blowChunks() {
        emit(newHeader ? startResp : null, chunks);
        newHeader = false; chunks = [];
      }
      function getRow() {
        if (lastRow) return null;
        if (!gotRow) { gotRow = true; sendStart(); } else { blowChunks(); }
        if (rows === null || nextRow >= rows.length) { lastRow = true; return null; }
        return rows[nextRow++];
      }
      function maybeWrapResponse(resp) {
        var type = typeof resp;
        return (type == "string" || type == "xml") ? {body: resp} : resp;
      }
      function typeOf(value) {
        var s = typeof value;
        if (s === 'object') s = value ? (value instanceof Array ? 'array' : s) : 'null';
        return s;
      }
      function resetList() {
        gotRow = false; lastRow = false; chunks = []; startResp = {}; newHeader = false;
        rows = null; nextRow = 0; out = null;
      }
      function renderError(e) {
        if (e && ((e.error && e.reason) || e[0] == "error" || e[0] == "fatal")) throw e;
        var message = "function raised error: " + (e && e.toSource ? e.toSource() : String(e)) +
          " \nstacktrace: " + (e && e.stack);
        throw ["error", "render_error", message];
      }

      function runShow(fun, ddoc, doc, req) {
        try {
          resetList();
          __Mime.resetProvides();
          var resp = fun(doc, req) || {};
          resp = maybeWrapResponse(resp);
          if (chunks.length && chunks.length > 0) {
            resp.headers = resp.headers || {};
            for (var header in startResp) resp.headers[header] = startResp[header];
            resp.body = chunks.join("") + (resp.body || "");
            resetList();
          }
          if (__Mime.providesUsed()) {
            var provided = maybeWrapResponse(__Mime.runProvides(req, ddoc) || {});
            resp.body = (resp.body || "") + chunks.join("");
            resp.body += provided.body || "";
            resp = applyContentType(resp, __Mime.responseContentType());
            resetList();
          }
          var type = typeOf(resp);
          if (type == 'object' || type == 'string') return maybeWrapResponse(resp);
          throw(["error", "render_error", "undefined response from show function"]);
        } catch (e) {
          if (doc === null && req.path.length > 5) throw(["error", "not_found", "document not found"]);
          renderError(e);
        }
      }

      function runUpdate(fun, doc, req) {
        try {
          if (req.method == "GET") throw(["error", "method_not_allowed", "Update functions do not allow GET"]);
          var result = fun(doc, req);
          var type = typeOf(result[1]);
          if (type == 'object' || type == 'string') return [result[0], maybeWrapResponse(result[1])];
          throw(["error", "render_error", "undefined response from update function"]);
        } catch (e) {
          renderError(e);
        }
      }

      function runList(fun, ddoc, head, req, rowList) {
        try {
          __Mime.resetProvides();
          resetList();
          rows = rowList; out = {head: null, chunks: [], started: false};
          var tail = fun(head, req);
          if (__Mime.providesUsed()) tail = __Mime.runProvides(req, ddoc);
          if (!gotRow) getRow();
          if (typeof tail != "undefined") chunks.push(tail);
          blowChunks();
          var result = out;
          resetList();
          return result;
        } catch (e) {
          resetList();
          renderError(e);
        }
      }

      return {start: start, send: send, getRow: getRow, show: runShow, update: runUpdate, list: runList};
    })();

    function start(resp) { __Render.start(resp); }
    function send(chunk) { __Render.send(chunk); }
    function getRow() { return __Render.getRow(); }

    // render.js runRewrite: nothing is no rule; a string is a path kept with the request's method.
    function __rewrite(fn, req) {
      var result = fn(req);
      if (!result) return null;
      return typeof result === "string" ? {path: result, method: req.method} : result;
    }

    function __render(kind, fn, first, req, rows) {
      try {
        var result, ddoc = fn.__ddoc || {};
        if (kind === "show") result = __Render.show(fn, ddoc, first, req);
        else if (kind === "update") result = __Render.update(fn, first, req);
        else if (kind === "rewrite") result = __rewrite(fn, req);
        else result = __Render.list(fn, ddoc, first, req, rows);
        return JSON.stringify({ok: result});
      } catch (e) {
        if (e && (e[0] == "error" || e[0] == "fatal")) return JSON.stringify({error: [String(e[1]), String(e[2])]});
        if (e && e.error && e.reason) return JSON.stringify({error: [String(e.error), String(e.reason)]});
        if (e && e.forbidden) return JSON.stringify({error: ["forbidden", String(e.forbidden)]});
        if (e && e.unauthorized) return JSON.stringify({error: ["unauthorized", String(e.unauthorized)]});
        return JSON.stringify({error: [kind === "rewrite" ? "rewrite_error" : "render_error", String(e)]});
      }
    }
    """#
}

extension JavaScriptEngine {
    /// CouchDB's query-server API for map, reduce, validation and filter functions
    /// (emit, log, sum, toJSON, isArray, require), and the batch entry points the engine calls.
    static let prelude = #"""
    var __rows = null;
    function emit(key, value) {
      if (__rows === null) throw new Error("emit called outside a map function");
      __rows.push([key === undefined ? null : key, value === undefined ? null : value]);
    }
    function log(message) {}
    function sum(values) { var s = 0; for (var i = 0; i < values.length; i++) s += values[i]; return s; }
    function toJSON(value) { return JSON.stringify(value); }
    function isArray(value) { return Array.isArray(value); }
    // Each document is deep-frozen, as couchjs seals it (Couch.recursivelySeal) before
    // its map_doc runs every map function of the design document on it: a function that
    // changes the document changes nothing the next one sees (CouchDB's COUCHDB-925 test).
    // The answer: per document, per function in order, its rows, or null where it threw.
    var __mapDocs = (function() {
      var freeze = Object.freeze, isArray = Array.isArray, stringify = JSON.stringify;
      function deepFreeze(value) {
        freeze(value);
        if (isArray(value)) {
          for (var i = 0; i < value.length; i++) {
            var element = value[i];
            if (element !== null && typeof element === "object") deepFreeze(element);
          }
        } else {
          for (var key in value) {
            var member = value[key];
            if (member !== null && typeof member === "object") deepFreeze(member);
          }
        }
      }
      return function(docs) {  // then the functions
        var fns = [], out = [];
        for (var f = 1; f < arguments.length; f++) fns[f - 1] = arguments[f];
        for (var i = 0; i < docs.length; i++) {
          var doc = docs[i];
          deepFreeze(doc);
          for (var f = 0; f < fns.length; f++) {
            __rows = [];
            try { fns[f](doc); out.push(__rows); } catch (e) { out.push(null); }
            __rows = null;
          }
        }
        return stringify(out);
      };
    })();
    function __validate(fn, newDoc, oldDoc, userCtx, secObj) {
      try { fn(newDoc, oldDoc, userCtx, secObj); return JSON.stringify({ok: true}); }
      catch (e) {
        if (e && e.forbidden !== undefined) return JSON.stringify({forbidden: String(e.forbidden)});
        if (e && e.unauthorized !== undefined) return JSON.stringify({unauthorized: String(e.unauthorized)});
        // As couchjs: an Error answers by its name (TypeError, ReferenceError...); another
        // object by its first member's value; anything else by its text.
        if (e instanceof Error) return JSON.stringify({error: String(e), name: String(e.name)});
        if (e && typeof e === "object") {
          var keys = Object.keys(e);
          if (keys.length > 0) return JSON.stringify({error: String(e[keys[0]])});
        }
        return JSON.stringify({error: String(e)});
      }
    }
    function __makeRequire(ddoc) {
      var cache = {};
      function resolve(id, current) {
        var path = id.charAt(0) === "." ? current.slice() : [];
        var parts = id.split("/");
        for (var i = 0; i < parts.length; i++) {
          if (parts[i] === "..") path.pop(); else if (parts[i] !== "." && parts[i] !== "") path.push(parts[i]);
        }
        return path;
      }
      function requireFrom(current) {
        return function(id) {
          var path = resolve(id, current);
          var key = path.join("/");
          if (cache[key]) return cache[key].exports;
          var source = ddoc;
          for (var i = 0; i < path.length; i++) {
            if (source === null || typeof source !== "object" || !(path[i] in source)) {
              throw ["error", "invalid_require_path", "Object has no property \"" + path[i] + "\". " + JSON.stringify(source)];
            }
            source = source[path[i]];
          }
          if (typeof source !== "string") {
            throw ["error", "invalid_require_path", "Must require a JavaScript string, not: " + typeof source];
          }
          var module = {id: key, exports: {}};
          cache[key] = module;  // a cycle gets the exports filled so far, as CommonJS does
          var body = new Function("module", "exports", "require", source);
          body(module, module.exports, requireFrom(path.slice(0, -1)));
          return module.exports;
        };
      }
      return requireFrom([]);
    }
    function __filter(fn, doc, req) {
      try { return JSON.stringify(!!fn(doc, req)); } catch (e) { return "throw:" + String(e); }
    }
    function __reduce(fn, keys, values, rereduce) {
      return JSON.stringify([fn(keys, values, rereduce)]);
    }
    """#
}

/*
 Guards on JavaScriptCore's bulk allocators (issue #46, item 5), installed in every
 engine before any design document code runs.

 The engine's watch (`JavaScriptWatch`) looks at the heap every 20 ms of running
 script, but one native call runs past every look: `new Uint8Array(2e9).fill(1)` or
 `'xy'.repeat(5e8)` allocate gigabytes inside one call, and JavaScriptCore's release
 builds have no hard heap limit (`JSC_gcMaxHeapSize` only paces collection). So each
 native function that allocates a size its caller chooses is replaced by one that
 checks that size against the call's memory limit first and throws a RangeError
 (marking the call refused: the engine turns that into the memory limit's
 `os_process_error` and discards itself, as when the watch stops a call).

 Not bypassable from design document code: the originals are captured in a closure
 before any user code runs; the replacements are non-writable, non-configurable
 properties; the guarded constructors are Proxies of the originals, which are frozen
 and whose `prototype.constructor` is the Proxy, so `instanceof`, `.constructor`,
 species, `Reflect.construct`, `bind` and `class X extends Uint8Array` all construct
 through the guard; `%TypedArray%.from` (reached by `Object.getPrototypeOf(Uint8Array)`)
 is replaced too, and `%TypedArray%` itself cannot be constructed. The handle that sets
 the limit is returned to the engine only, never stored in a global.

 What is guarded: ArrayBuffer and SharedArrayBuffer (length, `maxByteLength`, `resize`,
 `transfer`, `transferToFixedLength`, `grow`); every typed array constructor (length,
 copy of another typed array, array-like, iterable: read once, at most the limit's
 worth of elements) and `%TypedArray%.from`; `%TypedArray%.prototype.join`; String's
 `repeat`, `padStart`, `padEnd`, `concat`, `normalize`, case changes and `split`;
 Array's `join`, `toLocaleString`, `fill`, `toReversed`, `toSorted`, `toSpliced` and
 `with`, which walk every index of an array however sparse (`a.length = 1e9` costs
 nothing until then) and are done here in JavaScript, where the watch sees them.
 WebAssembly is removed (its memories grow outside the heap; CouchDB's engines have
 none). DataView only views a buffer, and JSON.stringify's indentation is at most 10
 characters (ECMA-262 SerializeJSONObject), so neither allocates on its own.

 Listing a large typed array's keys (Object.keys and its kin, Reflect.ownKeys,
 Object.assign, JSON.stringify) makes a string per element in one call: checked too.

 Not guarded, because no prelude can reach them: strings made by `+` (a rope of 2^31
 characters costs nothing until it is flattened, then up to 4 GB at once), spreading
 or JSON.stringify of a sparse array of huge length, spreading a typed array
 (`[...typedArray]`, `{...typedArray}`: up to 16 bytes an element), `replace` with `$'`. The watch
 and the per-call resident-memory check still discard the engine after such a call;
 only a process per engine would bound its peak (README, Security).
*/
extension JavaScriptEngine {
    /// The guards, evaluated as one script: `(function(global) { ... })(this)`, whose value
    /// is the engine's handle. The closure's first half (helpers, buffers, typed arrays)
    /// is here, its second (strings, arrays, the handle) in AllocationGuards+Strings.swift.
    static let allocationGuards = allocationGuardsForBuffers + allocationGuardsForStringsAndArrays

    static let allocationGuardsForBuffers = #"""
(function(global) {
  "use strict";
  var limit = 64 * 1024 * 1024, refused = false;
  var ProxyC = Proxy, RangeErrorC = RangeError, TypeErrorC = TypeError, ObjectC = Object;
  var apply = Reflect.apply, construct = Reflect.construct;
  var defineProperty = Object.defineProperty, getPrototypeOf = Object.getPrototypeOf;
  var freeze = Object.freeze, createObject = Object.create, isArray = Array.isArray;
  var getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  var iteratorSymbol = Symbol.iterator;
  var floor = Math.floor, min = Math.min, max = Math.max;
  var stringRepeat = String.prototype.repeat, stringPadStart = String.prototype.padStart;
  var stringPadEnd = String.prototype.padEnd, stringConcat = String.prototype.concat;
  var stringSplit = String.prototype.split, stringNormalize = String.prototype.normalize;
  var arraySort = Array.prototype.sort;
  var TypedArray = getPrototypeOf(Uint8Array);
  var typedArrayLength = getOwnPropertyDescriptor(TypedArray.prototype, "length").get;
  var typedArrayJoin = TypedArray.prototype.join, typedArrayFrom = TypedArray.from;
  var bufferByteLength = getOwnPropertyDescriptor(ArrayBuffer.prototype, "byteLength").get;
  var OriginalArrayBuffer = ArrayBuffer;
  var sharedByteLength = typeof SharedArrayBuffer === "function"
    ? getOwnPropertyDescriptor(SharedArrayBuffer.prototype, "byteLength").get : null;

  function refuse(what) {
    refused = true;
    throw new RangeErrorC(what + " would take more than the JavaScript memory limit (" + limit + " bytes)");
  }
  function check(bytes, what) { if (!(bytes <= limit)) refuse(what); }
  function integer(value) {
    var number = +value;
    if (number !== number) return 0;
    return number < 0 ? -floor(-number) : floor(number);
  }
  function length(value) { var number = integer(value); return number < 0 ? 0 : number; }
  function relative(value, size, fallback) {
    if (value === undefined) return fallback;
    var number = integer(value);
    return number < 0 ? max(size + number, 0) : min(number, size);
  }
  function text(value) { return `${value}`; }
  // Whether `value` has the internal slots `getter` (a brand's own accessor) reads.
  function isBrand(getter, value) {
    try { apply(getter, value, []); return true; } catch (e) { return false; }
  }
  function isTypedArray(value) { return isBrand(typedArrayLength, value); }
  function isArrayBuffer(value) { return isBrand(bufferByteLength, value); }
  function seal(object, name, value) {
    defineProperty(object, name, {value: value, writable: false, enumerable: false, configurable: false});
  }
  function method(object, name, replacement) {
    defineProperty(replacement, "name", {value: name});
    seal(object, name, replacement);
  }

  // The values of an iterable or array-like, at most `most` of them, read once, in a
  // null-prototype array-like (no iterator, no inherited setters) for the original.
  function materialize(source, most, what) {
    var list = createObject(null), count = 0;
    var iterate = source[iteratorSymbol];
    if (iterate !== undefined && iterate !== null) {
      var iterator = apply(iterate, source, []), next = iterator.next;
      for (;;) {
        var step = apply(next, iterator, []);
        if (step.done) break;
        if (count >= most) refuse(what);
        list[count++] = step.value;
      }
    } else {
      var object = ObjectC(source);
      count = length(object.length);
      if (count > most) refuse(what);
      for (var i = 0; i < count; i++) list[i] = object[i];
    }
    list.length = count;
    return list;
  }

  // The original's handler gets the Proxy that replaces it: a construction aimed at the
  // Proxy itself (not a subclass) is made with the original as new.target, the same
  // prototype without a lookup through the Proxy.
  function guardConstructor(name, handler) {
    var original = global[name];
    if (typeof original !== "function") return;
    var traps = handler(original), guarded = new ProxyC(original, traps);
    traps.guarded = guarded;
    seal(original.prototype, "constructor", guarded);
    freeze(original);
    seal(global, name, guarded);
  }

  // new ArrayBuffer(length, {maxByteLength}): both sizes read once and checked.
  function bufferHandler() {
    return {construct: function(target, args, newTarget) {
      if (newTarget === this.guarded) newTarget = target;
      var size = length(args[0]), options = args[1];
      check(size, "ArrayBuffer");
      if (options === null || typeof options !== "object") return construct(target, [size], newTarget);
      var most = options.maxByteLength;
      if (most === undefined) return construct(target, [size], newTarget);
      most = length(most);
      check(most, "ArrayBuffer");
      return construct(target, [size, {maxByteLength: most}], newTarget);
    }};
  }
  guardConstructor("ArrayBuffer", bufferHandler);
  guardConstructor("SharedArrayBuffer", bufferHandler);
  ["resize", "transfer", "transferToFixedLength"].forEach(function(name) {
    var original = ArrayBuffer.prototype[name];
    if (typeof original !== "function") return;
    method(ArrayBuffer.prototype, name, function(newLength) {
      if (newLength === undefined) return apply(original, this, []);
      var size = length(newLength);
      check(size, "ArrayBuffer." + name);
      return apply(original, this, [size]);
    });
  });
  if (typeof SharedArrayBuffer === "function" && SharedArrayBuffer.prototype.grow) {
    var grow = SharedArrayBuffer.prototype.grow;
    method(SharedArrayBuffer.prototype, "grow", function(newLength) {
      var size = length(newLength);
      check(size, "SharedArrayBuffer.grow");
      return apply(grow, this, [size]);
    });
  }

  // new Uint8Array(length | typedArray | iterable | arrayLike | buffer, ...): what it
  // would allocate, checked before; a view of a buffer allocates nothing.
  function typedArrayHandler(original) {
    var size = original.BYTES_PER_ELEMENT, name = original.name;
    return {construct: function(target, args, newTarget) {
      if (newTarget === this.guarded) newTarget = target;
      if (args.length === 0) return construct(target, [], newTarget);
      var first = args[0];
      if (first === null || (typeof first !== "object" && typeof first !== "function")) {
        var count = integer(first);
        check(count * size, name);
        return construct(target, [count], newTarget);
      }
      // The cheap tests first: a failed brand check throws, and throwing is slow. A
      // buffer or typed array whose prototype was changed is read as an array-like.
      var list = first;
      if (!isArray(first)) {
        if (first instanceof OriginalArrayBuffer && isArrayBuffer(first)) return construct(target, args, newTarget);
        if (sharedByteLength !== null && isBrand(sharedByteLength, first)) return construct(target, args, newTarget);
        if (first instanceof TypedArray && isTypedArray(first)) {
          check(apply(typedArrayLength, first, []) * size, name);
          return construct(target, [first], newTarget);
        }
        // Anything else but an array (whose iterator is its indices) is collected first,
        // so that no native code iterates it or asks a Proxy's length twice.
        list = materialize(first, floor(limit / size), name);
      }
      var count = length(list.length);
      check(count * size, name);
      var made = construct(target, [count], newTarget);
      for (var i = 0; i < count; i++) made[i] = list[i];
      return made;
    }};
  }
  ["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array",
   "Uint32Array", "Float16Array", "Float32Array", "Float64Array", "BigInt64Array",
   "BigUint64Array"].forEach(function(name) { guardConstructor(name, typedArrayHandler); });
  // %TypedArray%.from collects an iterable in native code before it constructs: collected here.
  method(TypedArray, "from", function(source, mapFn, thisArg) {
    var list = materialize(source, limit, "TypedArray.from");
    return apply(typedArrayFrom, this, [list, mapFn, thisArg]);
  });
  // typedArray.join(separator): up to 24 characters per number, plus the separator.
  method(TypedArray.prototype, "join", function(separator) {
    var count = apply(typedArrayLength, this, []);
    var between = separator === undefined ? "," : text(separator);
    check(count * (between.length + 24) * 2, "TypedArray.join");
    return apply(typedArrayJoin, this, [between]);
  });
  // A typed array's elements are cheap (one byte each for Uint8Array) but each becomes a
  // property name, a string and a slot when its keys are listed or it is serialized: about
  // 64 bytes an element, all made in one native call. Checked for typed arrays (ordinary
  // objects and arrays hold their properties on the heap the watch already counts).
  function checkKeys(value, what) {
    if (value instanceof TypedArray && isTypedArray(value)) check(apply(typedArrayLength, value, []) * 64, what);
  }
  ["keys", "values", "entries", "getOwnPropertyNames", "getOwnPropertyDescriptors"].forEach(function(name) {
    var original = ObjectC[name];
    method(ObjectC, name, function(object) {
      checkKeys(object, "Object." + name);
      return apply(original, ObjectC, arguments);
    });
  });
  var ownKeys = Reflect.ownKeys, assign = ObjectC.assign;
  method(Reflect, "ownKeys", function(object) {
    checkKeys(object, "Reflect.ownKeys");
    return apply(ownKeys, Reflect, arguments);
  });
  method(ObjectC, "assign", function(target) {
    for (var i = 1; i < arguments.length; i++) checkKeys(arguments[i], "Object.assign");
    return apply(assign, ObjectC, arguments);
  });
  // Array.from(typedArray) makes a slot (and maybe a number cell) per element in one call.
  var arrayFrom = Array.from;
  method(Array, "from", function(source) {
    if (source instanceof TypedArray && isTypedArray(source)) check(apply(typedArrayLength, source, []) * 16, "Array.from");
    return apply(arrayFrom, this, arguments);
  });
  // JSON.stringify asks each object for its toJSON first: a typed array's is itself,
  // serialized as before, once its size is checked.
  seal(TypedArray.prototype, "toJSON", function toJSON() {
    checkKeys(this, "JSON.stringify");
    return this;
  });
  freeze(TypedArray);

"""#
}

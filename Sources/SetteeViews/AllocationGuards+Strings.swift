extension JavaScriptEngine {
    /// The second half of the allocation guards' closure (see AllocationGuards.swift):
    /// String and Array methods whose result's size is known, or checked, before it is
    /// made; then the handle the engine keeps.
    static let allocationGuardsForStringsAndArrays = #"""
  // Strings: the result's length is known before it is made (two bytes a character).
  function receiver(value, original, args) {
    if (value === null || value === undefined || typeof value === "symbol") apply(original, value, args);
    return text(value);
  }
  method(String.prototype, "repeat", function(count) {
    var string = receiver(this, stringRepeat, arguments), times = integer(count);
    if (string.length > 0) check(string.length * times * 2, "String.repeat");
    return apply(stringRepeat, string, [times]);
  });
  [["padStart", stringPadStart], ["padEnd", stringPadEnd]].forEach(function(pair) {
    var original = pair[1];
    method(String.prototype, pair[0], function(maxLength, fillString) {
      var string = receiver(this, original, arguments), size = length(maxLength);
      if (size > string.length) check(size * 2, "String." + pair[0]);
      return apply(original, string, [size, fillString]);
    });
  });
  method(String.prototype, "concat", function() {
    var string = receiver(this, stringConcat, arguments), parts = [], total = string.length;
    for (var i = 0; i < arguments.length; i++) {
      var part = text(arguments[i]);
      total += part.length;
      check(total * 2, "String.concat");
      defineProperty(parts, i, {value: part, writable: true, enumerable: true, configurable: true});
    }
    return apply(stringConcat, string, parts);
  });
  // Unicode's bounds on how much normalizing or changing case can lengthen a string
  // (UAX #15 "Stability of Normalized Forms"; SpecialCasing.txt: at most three).
  method(String.prototype, "normalize", function(form) {
    var string = receiver(this, stringNormalize, arguments);
    var name = form === undefined ? "NFC" : text(form);
    check(string.length * (name === "NFC" || name === "NFD" ? 4 : 18) * 2, "String.normalize");
    return apply(stringNormalize, string, [name]);
  });
  ["toUpperCase", "toLowerCase", "toLocaleUpperCase", "toLocaleLowerCase"].forEach(function(name) {
    var original = String.prototype[name];
    method(String.prototype, name, function() {
      var string = receiver(this, original, arguments);
      check(string.length * 6, "String." + name);
      return apply(original, string, arguments);
    });
  });
  // Each piece costs a string cell and an array slot (about 40 bytes): at most that many.
  method(String.prototype, "split", function(separator, most) {
    var cap = floor(limit / 40), wanted = most === undefined ? 4294967295 : most >>> 0;
    if (wanted <= cap) return apply(stringSplit, this, [separator, wanted]);
    var pieces = apply(stringSplit, this, [separator, cap + 1]);
    if (pieces.length > cap) refuse("String.split");
    return pieces;
  });

  // Arrays whose length is far past their elements (new Array(1e9), a.length = 1e9) are
  // cheap until a native method walks or copies every index: these do it here instead.
  function coercible(value, name) {
    if (value === null || value === undefined) throw new TypeErrorC("Array.prototype." + name + " requires that |this| not be null or undefined");
    return value;
  }
  var joining = [];
  function joinWith(object, separator, convert, what) {
    var count = length(object.length);
    if (count > 1) check((count - 1) * separator.length * 2, what);
    for (var j = 0; j < joining.length; j++) if (joining[j] === object) return "";
    joining[joining.length] = object;
    try {
      var out = "", total = 0;
      for (var i = 0; i < count; i++) {
        var element = object[i], part = element === null || element === undefined ? "" : convert(element);
        total += part.length + (i > 0 ? separator.length : 0);
        check(total * 2, what);
        out = i > 0 ? out + separator + part : part;
      }
      return out;
    } finally { joining.length -= 1; }
  }
  method(Array.prototype, "join", function(separator) {
    var object = ObjectC(coercible(this, "join"));
    return joinWith(object, separator === undefined ? "," : text(separator), text, "Array.join");
  });
  method(Array.prototype, "toLocaleString", function() {
    var object = ObjectC(coercible(this, "toLocaleString"));
    return joinWith(object, ",", function(element) { return text(element.toLocaleString()); }, "Array.toLocaleString");
  });
  method(Array.prototype, "fill", function(value, start, end) {
    var object = ObjectC(coercible(this, "fill"));
    var size = length(object.length), from = relative(start, size, 0), to = relative(end, size, size);
    check((to - from) * 8, "Array.fill");
    for (var i = from; i < to; i++) object[i] = value;
    return object;
  });
  // The copying methods of ES2023: a new array of the receiver's length, made in JavaScript.
  function copy(object, what) {
    var size = length(object.length);
    check(size * 8, what);
    var out = [];
    for (var i = 0; i < size; i++) defineProperty(out, i, {value: object[i], writable: true, enumerable: true, configurable: true});
    return out;
  }
  method(Array.prototype, "toReversed", function() {
    var source = copy(ObjectC(this), "Array.toReversed"), out = [], last = source.length - 1;
    for (var i = 0; i <= last; i++) defineProperty(out, i, {value: source[last - i], writable: true, enumerable: true, configurable: true});
    return out;
  });
  method(Array.prototype, "toSorted", function(compare) {
    if (compare !== undefined && typeof compare !== "function") throw new TypeErrorC("Array.prototype.toSorted requires the comparator argument to be a function or undefined");
    return apply(arraySort, copy(ObjectC(this), "Array.toSorted"), [compare]);
  });
  method(Array.prototype, "with", function(index, value) {
    var out = copy(ObjectC(this), "Array.with"), at = integer(index);
    if (at < 0) at += out.length;
    if (at < 0 || at >= out.length) throw new RangeErrorC("Array index out of range");
    out[at] = value;
    return out;
  });
  var arraySplice = Array.prototype.splice;
  method(Array.prototype, "toSpliced", function() {
    var out = copy(ObjectC(coercible(this, "toSpliced")), "Array.toSpliced");
    apply(arraySplice, out, arguments);
    return out;
  });

  // No WebAssembly: its memories grow outside the engine's heap (CouchDB's engines have none).
  delete global.WebAssembly;

  // The engine's handle (kept out of reach of user code): sets the limit of the call about
  // to run and tells whether the call that ran was refused an allocation.
  return function(bytes) { var was = refused; refused = false; limit = bytes; return was; };
})(this)
"""#
}

extension [UInt8] {
    /// Appends `text`'s UTF-8 as one copy of its contiguous bytes. Heads and log
    /// lines are built this way for every request; appending a `String.UTF8View`
    /// went through the generic sequence path.
    public mutating func append(utf8 text: String) {
        var text = text
        text.withUTF8 { append(contentsOf: $0) }
    }
}

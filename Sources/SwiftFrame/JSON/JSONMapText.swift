/// A map field printed as its JSON object straight from the dictionary, by the map's own code
/// (`SizeCache.map`, specialised for the field's key and value types where the message's
/// generated code calls it).
///
/// `jsonString()` encodes the message in a form of its own before it prints: a map whose
/// values are scalars goes into that encoding as one length-delimited value holding its JSON
/// object, keys in the order the binary encoding sorts them, and the printer copies the object
/// as it is. Printing the map from its wire entries instead would cost sorting and writing
/// them, then reading each back, several times the work of this. Maps of messages and enums
/// stay in wire form: their values need the printer.
@_documentation(visibility: internal)
public struct JSONMapText: ~Copyable {
    var printer: JSONPrinter
    /// Entries printed so far.
    private var entries = 0

    @usableFromInline
    init(capacity: Int) {
        printer = JSONPrinter(options: Self.plain, tracksPath: false, capacity: capacity)
        printer.output.append(UInt8(ascii: "{"))
    }

    /// A map's scalars print the same under every option.
    private static let plain = JSONOptions()

    /// The object of a map's entries, in the order `order` gives (keys sorted as the binary
    /// encoding sorts them, so that the JSON comes out the same every time).
    @inlinable
    static func object<K: MapKeyCodec, V: MapCodec>(
        _ keys: [K.Value], _ values: [V.Value], order: [Int], _: K.Type, _: V.Type
    ) -> [UInt8] {
        var text = JSONMapText(capacity: 2 &+ 16 &* keys.count)
        for index in order {
            K.appendJSON(keys[index], asKey: true, to: &text)
            V.appendJSON(values[index], asKey: false, to: &text)
        }
        return text.closed()
    }

    @usableFromInline
    consuming func closed() -> [UInt8] {
        printer.output.append(UInt8(ascii: "}"))
        return printer.output.bytes
    }

    /// Before a key: the comma between entries. After it: the colon.
    private mutating func around(key: Bool, _ body: (inout JSONPrinter) -> Void) {
        if key {
            if entries > 0 { printer.output.append(UInt8(ascii: ",")) }
            entries &+= 1
            body(&printer)
            printer.output.append(UInt8(ascii: ":"))
        } else {
            body(&printer)
        }
    }

    /// A signed integer: quoted as a key, and as a 64-bit value (`quoted`).
    public mutating func integer(_ value: Int64, asKey: Bool, quoted: Bool = false) {
        number(asKey: asKey, quoted: quoted) { $0.decimal(value) }
    }

    /// An unsigned integer: quoted as a key, and as a 64-bit value (`quoted`).
    public mutating func unsigned(_ value: UInt64, asKey: Bool, quoted: Bool = false) {
        number(asKey: asKey, quoted: quoted) { $0.decimal(value) }
    }

    /// A number's digits, in quotes as a key or when `quoted`.
    @inline(__always)
    private mutating func number(asKey: Bool, quoted: Bool, _ digits: (inout JSONPrinter) -> Void) {
        around(key: asKey) { printer in
            let inQuotes = asKey || quoted
            if inQuotes { printer.output.append(UInt8(ascii: "\"")) }
            digits(&printer)
            if inQuotes { printer.output.append(UInt8(ascii: "\"")) }
        }
    }

    public mutating func bool(_ value: Bool, asKey: Bool) {
        around(key: asKey) { printer in
            switch (value, asKey) {
            case (true, true): printer.append("\"true\"")
            case (false, true): printer.append("\"false\"")
            case (true, false): printer.append("true")
            case (false, false): printer.append("false")
            }
        }
    }

    public mutating func string(_ value: String, asKey: Bool) {
        around(key: asKey) { $0.string(value) }
    }

    public mutating func bytes(_ value: [UInt8]) {
        value.withUnsafeBytes { printer.base64($0) }
    }

    public mutating func float(_ value: Float) {
        printer.float(value)
    }

    public mutating func double(_ value: Double) {
        printer.double(value)
    }
}

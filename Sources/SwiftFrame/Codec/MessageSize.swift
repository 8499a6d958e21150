/// The running total of a generated size pass (`Message.computeSize(into:)`). Generated code
/// adds with these methods, not with `size &+= 1 &+ x`: the integer operators have overloads
/// for every integer and SIMD type, and choosing among them was most of what the type checker
/// spent on the function bodies of generated code.
@_documentation(visibility: internal)
public struct MessageSize {
    public var total: Int

    @inlinable
    public init(_ bytes: Int) {
        total = bytes
    }

    /// A field of `bytes` bytes, tag included.
    @inlinable
    public mutating func add(_ bytes: Int) {
        total &+= bytes
    }

    /// A field of `tagBytes` of tag and `valueBytes` of value.
    @inlinable
    public mutating func add(_ tagBytes: Int, _ valueBytes: Int) {
        total &+= tagBytes &+ valueBytes
    }

    /// `count` fields of `bytes` bytes each, tags included.
    @inlinable
    public mutating func add(_ count: Int, each bytes: Int) {
        total &+= count &* bytes
    }

    /// A packed field of `count` values of `width` bytes each, after `tagBytes` of tag.
    @inlinable
    public mutating func addPacked(_ tagBytes: Int, count: Int, width: Int) {
        total &+= tagBytes &+ Wire.lengthDelimitedSize(count &* width)
    }
}

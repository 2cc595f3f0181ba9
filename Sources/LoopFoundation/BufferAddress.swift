/// Where a buffer that holds elements starts, for the inner loops of signal processing. Swift
/// gives an empty buffer no address, and these are only asked of buffers their callers made
/// with elements: one without is a bug said by name, not a nil unwrapped.
extension UnsafeBufferPointer {
    /// The first element's address.
    @inlinable public var address: UnsafePointer<Element> {
        guard let baseAddress else { preconditionFailure("the address of an empty buffer") }
        return baseAddress
    }
}

extension UnsafeMutableBufferPointer {
    /// The first element's address.
    @inlinable public var address: UnsafeMutablePointer<Element> {
        guard let baseAddress else { preconditionFailure("the address of an empty buffer") }
        return baseAddress
    }
}

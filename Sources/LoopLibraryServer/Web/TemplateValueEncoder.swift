/// Turns a page model (an `Encodable` struct of PageModels.swift) into the ``TemplateValue`` its
/// template reads: a struct an object of its properties (a nil one left out, so that a section
/// looks for it in the enclosing values), an array a list, a string, number or Bool as it is.
///
/// The models' `Encodable` conformances are made by the compiler: no reflection at render time.
enum TemplateValueEncoder {
    static func value(of model: some Encodable) -> TemplateValue {
        let encoder = ValueEncoder(codingPath: [])
        do {
            try model.encode(to: encoder)
        } catch {
            preconditionFailure("a page model that does not encode: \(error)")
        }
        return encoder.slot.finished
    }

    /// Where a value being encoded is put: a reference, so that a container fills the slot its
    /// parent made for it.
    final class Slot {
        var value: TemplateValue = .object([:])
        var children: [String: Slot] = [:]
        var items: [Slot] = []
        var kind: Kind = .unset

        enum Kind { case unset, object, list, single }

        /// The value with its children's values in place.
        var finished: TemplateValue {
            switch kind {
            case .object: .object(children.mapValues(\.finished))
            case .list: .list(items.map(\.finished))
            case .single, .unset: value
            }
        }
    }

    final class ValueEncoder: Encoder {
        let codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }
        let slot: Slot

        init(codingPath: [any CodingKey], slot: Slot = Slot()) {
            self.codingPath = codingPath
            self.slot = slot
        }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            slot.kind = .object
            return KeyedEncodingContainer(Keyed<Key>(slot: slot, codingPath: codingPath))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            slot.kind = .list
            return Unkeyed(slot: slot, codingPath: codingPath)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            slot.kind = .single
            return Single(slot: slot, codingPath: codingPath)
        }
    }

    /// A value of a leaf type (a string, a number, a Bool), or nil for one that encodes its parts.
    static func leaf(_ value: some Encodable) -> TemplateValue? {
        switch value {
        case let text as String: .text(text)
        case let number as Int: .number(number)
        case let flag as Bool: .flag(flag)
        case let number as any BinaryInteger: .number(Int(truncatingIfNeeded: number))
        case let number as Double: .text(String(number))
        case let number as Float: .text(String(number))
        default: nil
        }
    }

    /// Encodes `value` into `slot`: a leaf directly, anything else through its `encode(to:)`.
    static func encode(_ value: some Encodable, into slot: Slot, codingPath: [any CodingKey]) throws {
        if let leaf = leaf(value) {
            slot.kind = .single
            slot.value = leaf
        } else {
            try value.encode(to: ValueEncoder(codingPath: codingPath, slot: slot))
        }
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let slot: Slot
        let codingPath: [any CodingKey]

        func child(_ key: Key) -> Slot {
            let child = Slot()
            slot.children[key.stringValue] = child
            return child
        }

        mutating func encodeNil(forKey key: Key) throws {}
        mutating func encode(_ value: String, forKey key: Key) throws { set(.text(value), key) }
        mutating func encode(_ value: Int, forKey key: Key) throws { set(.number(value), key) }
        mutating func encode(_ value: Bool, forKey key: Key) throws { set(.flag(value), key) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            try TemplateValueEncoder.encode(value, into: child(key), codingPath: codingPath + [key])
        }

        private func set(_ value: TemplateValue, _ key: Key) {
            let child = child(key)
            child.kind = .single
            child.value = value
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        {
            let child = child(key)
            child.kind = .object
            return KeyedEncodingContainer(Keyed<NestedKey>(slot: child, codingPath: codingPath + [key]))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let child = child(key)
            child.kind = .list
            return Unkeyed(slot: child, codingPath: codingPath + [key])
        }

        mutating func superEncoder() -> any Encoder { ValueEncoder(codingPath: codingPath, slot: slot) }
        mutating func superEncoder(forKey key: Key) -> any Encoder {
            ValueEncoder(codingPath: codingPath + [key], slot: child(key))
        }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let slot: Slot
        let codingPath: [any CodingKey]
        var count: Int { slot.items.count }

        func next() -> Slot {
            let item = Slot()
            slot.items.append(item)
            return item
        }

        mutating func encodeNil() throws {}
        mutating func encode<T: Encodable>(_ value: T) throws {
            try TemplateValueEncoder.encode(value, into: next(), codingPath: codingPath)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
            -> KeyedEncodingContainer<NestedKey>
        {
            let item = next()
            item.kind = .object
            return KeyedEncodingContainer(Keyed<NestedKey>(slot: item, codingPath: codingPath))
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let item = next()
            item.kind = .list
            return Unkeyed(slot: item, codingPath: codingPath)
        }

        mutating func superEncoder() -> any Encoder { ValueEncoder(codingPath: codingPath, slot: next()) }
    }

    struct Single: SingleValueEncodingContainer {
        let slot: Slot
        let codingPath: [any CodingKey]

        mutating func encodeNil() throws {}
        mutating func encode(_ value: String) throws { slot.value = .text(value) }
        mutating func encode(_ value: Int) throws { slot.value = .number(value) }
        mutating func encode(_ value: Bool) throws { slot.value = .flag(value) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            try TemplateValueEncoder.encode(value, into: slot, codingPath: codingPath)
        }
    }
}

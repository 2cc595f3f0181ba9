/// Turns a page model (an `Encodable` struct of PageModels.swift) into the ``TemplateValue`` its
/// template reads: a struct an object of its properties (a nil one left out, so that a section
/// looks for it in the enclosing values), an array a list, a string, number or Bool as it is.
///
/// The models' `Encodable` conformances are made by the compiler: no reflection at render time.
/// Values are built from the leaves up: a property that is a string, number or Bool goes
/// straight into its object; only a struct or an array is an encoder of its own.
enum TemplateValueEncoder {
    static func value<Model: Encodable>(of model: Model) -> TemplateValue {
        do {
            return try value(of: model, codingPath: [])
        } catch {
            preconditionFailure("a page model that does not encode: \(error)")
        }
    }

    static func value<Model: Encodable>(of model: Model, codingPath: [any CodingKey]) throws -> TemplateValue {
        if let leaf = leaf(model) { return leaf }
        let encoder = ValueEncoder(codingPath: codingPath)
        try model.encode(to: encoder)
        return encoder.node.finished
    }

    /// A value of a leaf type (a string, a number, a Bool), or nil for one that encodes its parts.
    /// (Told by its type, not by casting: a page model is most of what comes here.)
    static func leaf<Value: Encodable>(_ value: Value) -> TemplateValue? {
        // (The cast is tried only once the type is known to be the one cast to.)
        if Value.self == String.self, let text = value as? String { return .text(text) }
        if Value.self == Int.self, let number = value as? Int { return .number(number) }
        if Value.self == Bool.self, let flag = value as? Bool { return .flag(flag) }
        if Value.self == Double.self, let number = value as? Double { return .text(String(number)) }
        if Value.self == Float.self, let number = value as? Float { return .text(String(number)) }
        if otherIntegers.contains(ObjectIdentifier(Value.self)), let integer = value as? any BinaryInteger {
            return .number(number(integer))
        }
        return nil
    }

    private static func number(_ integer: some BinaryInteger) -> Int { Int(truncatingIfNeeded: integer) }

    private static let otherIntegers: Set<ObjectIdentifier> = [
        ObjectIdentifier(Int64.self), ObjectIdentifier(Int32.self), ObjectIdentifier(Int16.self),
        ObjectIdentifier(Int8.self), ObjectIdentifier(UInt.self), ObjectIdentifier(UInt64.self),
        ObjectIdentifier(UInt32.self), ObjectIdentifier(UInt16.self), ObjectIdentifier(UInt8.self),
    ]

    /// What an encoder fills: an object's values, a list's items or one value. A container
    /// nested in another (not what the compiler's conformances make) is a node of its own,
    /// its value put in place when the whole is finished.
    final class Node {
        enum Kind { case unset, object, list, single }

        var kind: Kind = .unset
        var values: [String: TemplateValue] = [:]
        var items: [TemplateValue] = []
        var single: TemplateValue = .object([:])
        var nestedValues: [String: Node] = [:]
        var nestedItems: [(index: Int, node: Node)] = []

        /// The value with any nested containers' values in place.
        var finished: TemplateValue {
            switch kind {
            case .object:
                var values = values
                for (key, node) in nestedValues { values[key] = node.finished }
                return .object(values)
            case .list:
                var items = items
                for (index, node) in nestedItems { items[index] = node.finished }
                return .list(items)
            case .single, .unset:
                return single
            }
        }
    }

    final class ValueEncoder: Encoder {
        let codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }
        let node: Node

        init(codingPath: [any CodingKey], node: Node = Node()) {
            self.codingPath = codingPath
            self.node = node
        }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            node.kind = .object
            return KeyedEncodingContainer(Keyed<Key>(node: node, codingPath: codingPath))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            node.kind = .list
            return Unkeyed(node: node, codingPath: codingPath)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            node.kind = .single
            return Single(node: node, codingPath: codingPath)
        }
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: Node
        let codingPath: [any CodingKey]

        mutating func encodeNil(forKey key: Key) throws {}
        mutating func encode(_ value: String, forKey key: Key) throws { node.values[key.stringValue] = .text(value) }
        mutating func encode(_ value: Int, forKey key: Key) throws { node.values[key.stringValue] = .number(value) }
        mutating func encode(_ value: Bool, forKey key: Key) throws { node.values[key.stringValue] = .flag(value) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            node.values[key.stringValue] = try TemplateValueEncoder.value(of: value, codingPath: codingPath + [key])
        }

        private func nested(_ key: Key, _ kind: Node.Kind) -> Node {
            let child = Node()
            child.kind = kind
            node.nestedValues[key.stringValue] = child
            return child
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        {
            KeyedEncodingContainer(Keyed<NestedKey>(node: nested(key, .object), codingPath: codingPath + [key]))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            Unkeyed(node: nested(key, .list), codingPath: codingPath + [key])
        }

        mutating func superEncoder() -> any Encoder { ValueEncoder(codingPath: codingPath, node: node) }
        mutating func superEncoder(forKey key: Key) -> any Encoder {
            ValueEncoder(codingPath: codingPath + [key], node: nested(key, .unset))
        }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let node: Node
        let codingPath: [any CodingKey]
        var count: Int { node.items.count }

        mutating func encodeNil() throws {}
        mutating func encode<T: Encodable>(_ value: T) throws {
            node.items.append(try TemplateValueEncoder.value(of: value, codingPath: codingPath))
        }

        /// A place in the list for a nested container, filled when the list is finished.
        private func nested(_ kind: Node.Kind) -> Node {
            let child = Node()
            child.kind = kind
            node.nestedItems.append((node.items.count, child))
            node.items.append(.object([:]))
            return child
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
            -> KeyedEncodingContainer<NestedKey>
        {
            KeyedEncodingContainer(Keyed<NestedKey>(node: nested(.object), codingPath: codingPath))
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            Unkeyed(node: nested(.list), codingPath: codingPath)
        }

        mutating func superEncoder() -> any Encoder { ValueEncoder(codingPath: codingPath, node: nested(.unset)) }
    }

    struct Single: SingleValueEncodingContainer {
        let node: Node
        let codingPath: [any CodingKey]

        mutating func encodeNil() throws {}
        mutating func encode(_ value: String) throws { node.single = .text(value) }
        mutating func encode(_ value: Int) throws { node.single = .number(value) }
        mutating func encode(_ value: Bool) throws { node.single = .flag(value) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            node.single = try TemplateValueEncoder.value(of: value, codingPath: codingPath)
        }
    }
}

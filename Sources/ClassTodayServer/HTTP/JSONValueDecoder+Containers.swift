/// The members of a JSON object, read by key.
struct JSONKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    /// The object's members.
    let members: [String: JSONValue]
    /// Where the object is in the body.
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.keys.compactMap(Key.init(stringValue:)) }

    func contains(_ key: Key) -> Bool {
        members[key.stringValue] != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        try member(key) == .null
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try member(key).bool(at: codingPath + [key]) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try member(key).string(at: codingPath + [key]) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try member(key).floatingPoint(type, at: codingPath + [key]) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try member(key).floatingPoint(type, at: codingPath + [key]) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try member(key).integer(type, at: codingPath + [key]) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try member(key).integer(type, at: codingPath + [key]) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try member(key).integer(type, at: codingPath + [key]) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try member(key).integer(type, at: codingPath + [key]) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try member(key).integer(type, at: codingPath + [key]) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try member(key).integer(type, at: codingPath + [key]) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try member(key).integer(type, at: codingPath + [key]) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try member(key).integer(type, at: codingPath + [key]) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try member(key).integer(type, at: codingPath + [key]) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try member(key).integer(type, at: codingPath + [key]) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try JSONValueDecoder.decode(type, from: member(key), at: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try JSONValueDecoder(value: member(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try JSONValueDecoder(value: member(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        JSONValueDecoder(value: members["super"] ?? .null, codingPath: codingPath + [JSONIndexKey(stringValue: "super")])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        JSONValueDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }

    /// The member named `key`; a missing member is a required field.
    private func member(_ key: Key) throws -> JSONValue {
        guard let value = members[key.stringValue] else { throw JSONFieldFailure(codingPath + [key], "is required") }
        return value
    }
}

/// The elements of a JSON array, read in order.
struct JSONUnkeyedContainer: UnkeyedDecodingContainer {
    /// The array's elements.
    let elements: [JSONValue]
    /// Where the array is in the body.
    let codingPath: [any CodingKey]
    /// The index of the next element to read.
    private(set) var currentIndex = 0

    /// Reads `elements`, found at `codingPath`.
    init(elements: [JSONValue], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    mutating func decodeNil() throws -> Bool {
        guard try peek().value == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next { try $0.bool(at: $1) } }
    mutating func decode(_ type: String.Type) throws -> String { try next { try $0.string(at: $1) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try next { try $0.floatingPoint(type, at: $1) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try next { try $0.floatingPoint(type, at: $1) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try next { try $0.integer(type, at: $1) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next { try $0.integer(type, at: $1) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next { try $0.integer(type, at: $1) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next { try $0.integer(type, at: $1) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next { try $0.integer(type, at: $1) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next { try $0.integer(type, at: $1) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next { try $0.integer(type, at: $1) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next { try $0.integer(type, at: $1) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next { try $0.integer(type, at: $1) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next { try $0.integer(type, at: $1) } }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try next { try JSONValueDecoder.decode(type, from: $0, at: $1) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next { try JSONValueDecoder(value: $0, codingPath: $1).container(keyedBy: type) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next { try JSONValueDecoder(value: $0, codingPath: $1).unkeyedContainer() }
    }

    mutating func superDecoder() throws -> any Decoder {
        try next { JSONValueDecoder(value: $0, codingPath: $1) }
    }

    /// The next element and its path, without moving past it.
    private func peek() throws -> (value: JSONValue, codingPath: [any CodingKey]) {
        let path = codingPath + [JSONIndexKey(intValue: currentIndex)]
        guard !isAtEnd else { throw JSONFieldFailure(path, "is required") }
        return (elements[currentIndex], path)
    }

    /// Reads the next element with `read` and moves past it once it is read.
    private mutating func next<T>(_ read: (JSONValue, [any CodingKey]) throws -> T) throws -> T {
        let (value, path) = try peek()
        let result = try read(value, path)
        currentIndex += 1
        return result
    }
}

/// A single JSON value.
struct JSONSingleValueContainer: SingleValueDecodingContainer {
    /// The value.
    let value: JSONValue
    /// Where it is in the body.
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { value == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try value.bool(at: codingPath) }
    func decode(_ type: String.Type) throws -> String { try value.string(at: codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try value.floatingPoint(type, at: codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try value.floatingPoint(type, at: codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try value.integer(type, at: codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try value.integer(type, at: codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try value.integer(type, at: codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try value.integer(type, at: codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try value.integer(type, at: codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try value.integer(type, at: codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try value.integer(type, at: codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try value.integer(type, at: codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try value.integer(type, at: codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try value.integer(type, at: codingPath) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONValueDecoder.decode(type, from: value, at: codingPath)
    }
}

/// An array index (or `super`) as a coding key.
struct JSONIndexKey: CodingKey {
    /// The index as text, or `super`.
    let stringValue: String
    /// The index; nil for `super`.
    let intValue: Int?

    /// The key of the element at `intValue`.
    init(intValue: Int) {
        self.stringValue = "\(intValue)"
        self.intValue = intValue
    }

    /// A named key (`super`).
    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }
}

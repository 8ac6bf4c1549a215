/// An optional field a response always carries: `null` when there is no value, never a missing key (the contract's
/// nullable fields). Synthesized `Encodable` skips nil optionals; a field wrapped in this is encoded either way.
@propertyWrapper
struct Nullable<Value: Encodable & Sendable>: Encodable, Sendable {
    var wrappedValue: Value?

    init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue {
            try container.encode(wrappedValue)
        } else {
            try container.encodeNil()
        }
    }
}

extension Nullable: Decodable where Value: Decodable {
    /// Decodes `null` as nil. The key itself must be there, as the contract promises (tests decode responses with it).
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }
}

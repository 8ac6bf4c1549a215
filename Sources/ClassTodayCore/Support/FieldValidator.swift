/// Collects field errors while a request is checked, so that a client learns of every bad field at once.
public struct FieldValidator: Sendable {
    /// The errors found so far, in the order they were found.
    public private(set) var errors: [FieldError] = []

    /// Creates an empty validator.
    public init() {}

    /// Records `message` for `field` unless `condition` holds.
    public mutating func check(_ condition: Bool, _ field: String, _ message: @autoclosure () -> String) {
        if !condition {
            errors.append(FieldError(field: field, message: message()))
        }
    }

    /// Records an error for `field`.
    public mutating func fail(_ field: String, _ message: String) {
        errors.append(FieldError(field: field, message: message))
    }

    /// Checks that `value`, when present, has between `range.lowerBound` and `range.upperBound` characters,
    /// counted as Unicode code points (as JSON Schema's `minLength` and `maxLength` count them), and, when
    /// `range` starts above zero, that it is not only white space.
    public mutating func checkLength(_ value: String?, _ field: String, _ range: ClosedRange<Int>) {
        guard let value else { return }
        let count = value.unicodeScalars.count
        if range.lowerBound > 0 && value.trimmingWhitespace().isEmpty {
            fail(field, "must not be blank")
        } else if count < range.lowerBound || count > range.upperBound {
            fail(field, "must be \(range.lowerBound) to \(range.upperBound) characters")
        }
    }

    /// Records that a required field is missing when `value` is nil.
    public mutating func require<T>(_ value: T?, _ field: String) {
        if value == nil {
            fail(field, "is required")
        }
    }

    /// Throws ``DomainError/validation(_:)`` with every recorded error, if there is any.
    public func throwIfInvalid() throws(DomainError) {
        if !errors.isEmpty {
            throw .validation(errors)
        }
    }
}

extension String {
    /// The string without leading and trailing white space (including ideographic spaces).
    public func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}

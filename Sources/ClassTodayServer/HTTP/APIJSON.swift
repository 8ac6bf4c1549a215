import ClassTodayCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOFoundationCompat

/// Decodes request bodies as JSON, strictly.
///
/// A route that reads a JSON body answers 415 unless the request says `Content-Type: application/json` (or
/// `application/*+json`, see ``JSONMediaType``); a body without any `Content-Type` is 415 as well, and a
/// request with neither a body nor a `Content-Type` is a 400 asking for the body. The body must be RFC 8259
/// JSON (``StrictJSONParser``: no trailing commas, leading zeros, comments, duplicate member names, invalid
/// UTF-8), else 400 with the reason and byte offset. A value of the wrong type, or a number the field's type
/// cannot hold, is a 400 whose `errors` name the field; a string holding the NUL character is a 422 naming it.
/// Nothing of the decoder's internals reaches the client.
public struct APIJSONDecoder: RequestDecoder {
    /// Creates the decoder.
    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        guard let value = try await decodeIfPresent(type, from: request, context: context) else {
            throw DomainError.badRequest("this route needs a JSON body with Content-Type: application/json")
        }
        return value
    }

    /// Decodes the body of a route whose body is optional: nil for a request with neither a body nor a
    /// `Content-Type`, otherwise the same rules as ``decode(_:from:context:)``.
    public func decodeIfPresent<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T? {
        let contentType = request.headers[.contentType]
        if let contentType, !JSONMediaType.accepts(contentType) {
            throw DomainError.unsupportedMediaType("this route reads application/json (UTF-8) bodies")
        }
        let buffer = try await request.body.collect(upTo: context.maxUploadSize)
        guard contentType != nil else {
            if buffer.readableBytes > 0 {
                throw DomainError.unsupportedMediaType("a JSON body needs Content-Type: application/json")
            }
            return nil
        }
        return try Self.decode(type, from: Array(buffer.readableBytesView))
    }

    /// Decodes `bytes`, mapping every failure to a safe ``DomainError/badRequest(_:errors:)``.
    public static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        let value: JSONValue
        do {
            value = try StrictJSONParser.parse(bytes)
        } catch {
            throw DomainError.badRequest("the body is not valid JSON: \(error.description)")
        }
        do {
            return try JSONValueDecoder.decode(type, from: value)
        } catch let failure as JSONFieldFailure {
            guard !failure.field.isEmpty else { throw DomainError.badRequest("the body \(failure.message)") }
            if failure.refusesContent { throw DomainError.invalid(failure.field, failure.message) }
            throw DomainError.badRequest("field '\(failure.field)' \(failure.message)",
                                         errors: [FieldError(field: failure.field, message: failure.message)])
        } catch is DecodingError {
            throw DomainError.badRequest("the body could not be read")
        }
    }
}

/// Encodes response bodies as JSON with RFC 3339 UTC dates.
public struct APIJSONEncoder: ResponseEncoder {
    /// Creates the encoder.
    public init() {}

    public func encode(_ value: some Encodable, from request: Request, context: some RequestContext) throws -> Response {
        Self.response(body: ByteBuffer(data: try Self.encode(value)))
    }

    /// A 200 response with the JSON `body`.
    static func response(body: ByteBuffer) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: body))
    }

    /// The JSON bytes of `value`.
    public static func encode(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(RFC3339.format(date))
        }
        return try encoder.encode(value)
    }
}

/// RFC 3339 timestamps in UTC, as the API writes and reads them.
public enum RFC3339 {
    /// `2026-11-22T09:30:00Z` (whole seconds, UTC; a fraction of a second is dropped).
    ///
    /// Written with calendar arithmetic rather than a format style: every chat frame carries a date.
    public static func format(_ date: Date) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20)
        append(date, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `date`'s UTF-8 text, as ``format(_:)`` writes it, to `bytes` (JSON pages write many dates).
    static func append(_ date: Date, to bytes: inout [UInt8]) {
        // Four digits of year show 0000-01-01T00:00:00Z through 9999-12-31T23:59:59Z; later or earlier dates are clamped.
        let interval = date.timeIntervalSince1970.isNaN ? 0 : date.timeIntervalSince1970
        let seconds = Int64(min(max(interval, -62_167_219_200), 253_402_300_799).rounded(.down))
        let (days, secondOfDay) = seconds.floorDivided(by: 86_400)
        let (year, month, day) = civilDate(daysSince1970: days)
        func write(_ value: Int64, digits: Int, then separator: Unicode.Scalar) {
            var divisor: Int64 = 1
            for _ in 1..<digits { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
                rest %= divisor
                divisor /= 10
            }
            bytes.append(UInt8(ascii: separator))
        }
        write(year, digits: 4, then: "-")
        write(month, digits: 2, then: "-")
        write(day, digits: 2, then: "T")
        write(secondOfDay / 3_600, digits: 2, then: ":")
        write(secondOfDay / 60 % 60, digits: 2, then: ":")
        write(secondOfDay % 60, digits: 2, then: "Z")
    }

    /// The proleptic Gregorian (year, month, day) of a day counted from 1970-01-01 (Howard Hinnant's
    /// `civil_from_days`).
    private static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let (era, dayOfEra) = (days + 719_468).floorDivided(by: 146_097)
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153 // March is 0
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Parses a timestamp with or without fractional seconds and with any offset.
    public static func parse(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: false, timeZone: .gmt).parse(text) {
            return date
        }
        return try? Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt).parse(text)
    }
}

extension Encodable {
    /// The value as API JSON text (for WebSocket frames); `{}` if it cannot be encoded.
    var apiJSONText: String {
        (try? APIJSONEncoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

private extension Int64 {
    /// The quotient rounded down and the remainder that goes with it (never negative for a positive divisor).
    func floorDivided(by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let remainder = self % divisor
        return remainder < 0 ? (self / divisor - 1, remainder + divisor) : (self / divisor, remainder)
    }
}

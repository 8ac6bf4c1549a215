import Foundation

/// Which `Content-Type` values a JSON route reads: `application/json` and any `application/*+json`, in any case,
/// with optional parameters; a `charset` parameter, when present, must be UTF-8 (RFC 8259 JSON is UTF-8).
enum JSONMediaType {
    /// Whether a request with this `Content-Type` value may be read as JSON.
    static func accepts(_ contentType: String) -> Bool {
        let parts = contentType.split(separator: ";", omittingEmptySubsequences: false)
        guard let essence = parts.first else { return false }
        let mediaType = essence.trimmingCharacters(in: .whitespaces).lowercased()
        let halves = mediaType.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2, halves[0] == "application",
              halves[1] == "json" || (halves[1].hasSuffix("+json") && halves[1].count > "+json".count),
              !halves[1].contains(where: \.isWhitespace)
        else { return false }
        return parts.dropFirst().allSatisfy(isAcceptedParameter)
    }

    /// Whether a `name=value` parameter is acceptable: anything but a charset other than UTF-8.
    private static func isAcceptedParameter(_ parameter: Substring) -> Bool {
        let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard pair.count == 2 else { return parameter.trimmingCharacters(in: .whitespaces).isEmpty }
        guard pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset" else { return true }
        let charset = pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: ["\""]).lowercased()
        return charset == "utf-8" || charset == "utf8"
    }
}

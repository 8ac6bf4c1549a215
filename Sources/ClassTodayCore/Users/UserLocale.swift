/// The language a user reads the service's mails in: Korean (the default) or English.
public enum UserLocale: String, Sendable, Hashable, CaseIterable, Codable {
    /// Korean.
    case korean = "ko"
    /// English.
    case english = "en"

    /// The locale given to accounts that chose none.
    public static let `default` = UserLocale.korean

    /// The first supported language of an `Accept-Language` header (RFC 9110: `en-US,en;q=0.8,ko;q=0.5`), by
    /// quality and then order; nil when it names none (or `q=0` excludes every supported one).
    public init?(acceptLanguage header: String) {
        var best: (quality: Double, locale: UserLocale)?
        for item in header.split(separator: ",") {
            let parts = item.split(separator: ";").map { String($0).trimmingWhitespace().lowercased() }
            guard let tag = parts.first, let primary = tag.split(separator: "-").first,
                  let locale = UserLocale(rawValue: String(primary)) else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)) ?? 0
            }
            guard quality > 0 else { continue }
            if quality > (best?.quality ?? 0) { best = (quality, locale) }
        }
        guard let best else { return nil }
        self = best.locale
    }
}

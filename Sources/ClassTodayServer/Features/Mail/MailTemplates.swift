import ClassTodayCore
import Foundation

/// The mail templates of every kind and locale (`Resources/mail/<locale>/<kind>.txt` and `.html`, bundled with the
/// binary), read once at start-up and checked: a missing file, a text without its `Subject:` line or an unknown
/// `{{value}}` is an error then, not when a mail is due.
struct MailTemplates: Sendable {
    /// One kind of mail in one language.
    struct Template: Sendable {
        /// The subject line.
        let subject: String
        /// The plain-text body.
        let text: String
        /// The HTML body.
        let html: String
    }

    /// The values a template may name.
    static let valueNames: Set<String> = ["nickname", "code", "link", "minutes", "email"]

    /// Why the templates cannot be used.
    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    private let templates: [String: Template]

    /// The templates bundled with the server.
    static func bundled() throws -> MailTemplates {
        guard let folder = Bundle.module.url(forResource: "mail", withExtension: nil) else {
            throw Invalid(description: "the mail templates are missing from the resource bundle")
        }
        return try MailTemplates(folder: folder)
    }

    /// Reads every kind in every locale from `folder`.
    init(folder: URL) throws {
        var templates: [String: Template] = [:]
        for locale in UserLocale.allCases {
            for kind in MailKind.allCases {
                let base = folder.appendingPathComponent(locale.rawValue).appendingPathComponent(kind.rawValue)
                let name = "\(locale.rawValue)/\(kind.rawValue)"
                guard let text = try? String(contentsOf: base.appendingPathExtension("txt"), encoding: .utf8),
                      let html = try? String(contentsOf: base.appendingPathExtension("html"), encoding: .utf8)
                else { throw Invalid(description: "the mail template \(name) is missing") }
                let lines = text.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
                guard lines.count == 3, lines[0].hasPrefix("Subject: "), lines[1].isEmpty else {
                    throw Invalid(description: "the mail template \(name).txt must start with a Subject: line and a blank line")
                }
                let template = Template(subject: String(lines[0].dropFirst("Subject: ".count)), text: String(lines[2]), html: html)
                for part in [template.subject, template.text, template.html] {
                    let unknown = Self.names(in: part).subtracting(Self.valueNames)
                    guard unknown.isEmpty else { throw Invalid(description: "the mail template \(name) names unknown values \(unknown.sorted())") }
                }
                templates[name] = template
            }
        }
        self.templates = templates
    }

    /// `kind` in `locale` with `values` filled in (escaped in the HTML body).
    func render(_ kind: MailKind, locale: UserLocale, values: [String: String]) -> Template {
        guard let template = templates["\(locale.rawValue)/\(kind.rawValue)"] else {
            // init(folder:) read every kind of every locale.
            preconditionFailure("no template \(locale.rawValue)/\(kind.rawValue)")
        }
        return Template(subject: Self.fill(template.subject, values, escape: { $0 }), text: Self.fill(template.text, values, escape: { $0 }),
                        html: Self.fill(template.html, values, escape: Self.escapeHTML))
    }

    /// `text` with each `{{name}}` replaced by `escape(values[name])`.
    private static func fill(_ text: String, _ values: [String: String], escape: (String) -> String) -> String {
        var result = text
        for (name, value) in values {
            result = result.replacingOccurrences(of: "{{\(name)}}", with: escape(value))
        }
        return result
    }

    /// The `{{name}}`s in `text`.
    private static func names(in text: String) -> Set<String> {
        var names: Set<String> = []
        var rest = text[...]
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            names.insert(String(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return names
    }

    /// `text` safe in HTML text and attribute values.
    static func escapeHTML(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}

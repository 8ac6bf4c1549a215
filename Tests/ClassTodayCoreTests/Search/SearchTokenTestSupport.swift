@testable import ClassTodayCore

/// Helpers shared by the search tokenizer tests: an FTS5 simulator and a seeded random generator.
enum SearchTokenTestSupport {
    /// Whether `token` is made only of `a`–`z` and `0`–`9`, or only of Hangul syllables: characters that
    /// FTS5's unicode61 tokenizer and PostgreSQL's default parser keep together and unchanged.
    static func isSafeToken(_ token: String) -> Bool {
        let scalars = token.unicodeScalars
        guard !scalars.isEmpty else { return false }
        let ascii = scalars.allSatisfy { (0x30...0x39).contains($0.value) || (0x61...0x7A).contains($0.value) }
        let hangul = scalars.allSatisfy { (0xAC00...0xD7A3).contains($0.value) }
        return ascii || hangul
    }

    /// Parses an expression of the only form the tokenizer may produce — quoted strings (with `""` for a
    /// quote), each optionally followed by `*`, joined by ` AND ` — or returns nil if it is anything else.
    static func parseMatchExpression(_ expression: String) -> [SearchQuery.TokenRequirement]? {
        var requirements: [SearchQuery.TokenRequirement] = []
        var rest = Substring(expression)
        while true {
            guard rest.first == "\"" else { return nil }
            rest = rest.dropFirst()
            var token = ""
            while true {
                guard let character = rest.first else { return nil }
                rest = rest.dropFirst()
                if character == "\"" {
                    if rest.first == "\"" {
                        token.append("\"")
                        rest = rest.dropFirst()
                    } else {
                        break
                    }
                } else {
                    token.append(character)
                }
            }
            let isPrefix = rest.first == "*"
            if isPrefix {
                rest = rest.dropFirst()
            }
            guard !token.isEmpty else { return nil }
            requirements.append(SearchQuery.TokenRequirement(token: token, isPrefix: isPrefix))
            if rest.isEmpty {
                return requirements
            }
            guard rest.hasPrefix(" AND ") else { return nil }
            rest = rest.dropFirst(5)
        }
    }

    /// Simulates FTS5 on a document's tokens: a quoted token needs an identical token, a prefix token
    /// needs a token starting with it (compared scalar by scalar, as SQLite compares bytes).
    static func satisfies(_ requirements: [SearchQuery.TokenRequirement], tokens: [String]) -> Bool {
        let tokenScalars = tokens.map { Array($0.unicodeScalars) }
        let exact = Set(tokenScalars.map { $0.map(\.value) })
        return requirements.allSatisfy { requirement in
            let wanted = Array(requirement.token.unicodeScalars)
            if requirement.isPrefix {
                return tokenScalars.contains { $0.starts(with: wanted) }
            }
            return exact.contains(wanted.map(\.value))
        }
    }

}

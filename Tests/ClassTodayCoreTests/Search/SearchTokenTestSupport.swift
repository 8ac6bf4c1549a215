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

    /// An FTS5 expression of the only form the tokenizer may produce.
    indirect enum MatchExpression {
        /// A quoted token, `*` after it for a prefix.
        case token(SearchQuery.TokenRequirement)
        /// Operands joined by ` AND `.
        case all([MatchExpression])
        /// Operands joined by ` OR `.
        case any([MatchExpression])

        /// The tokens named, in order.
        var tokens: [SearchQuery.TokenRequirement] {
            switch self {
            case .token(let requirement): [requirement]
            case .all(let operands), .any(let operands): operands.flatMap(\.tokens)
            }
        }

        /// Simulates FTS5 on a document's tokens (see ``SearchTokenTestSupport/satisfies(_:tokens:)``).
        func isSatisfied(by tokens: [String]) -> Bool {
            switch self {
            case .token(let requirement): SearchTokenTestSupport.satisfies([requirement], tokens: tokens)
            case .all(let operands): operands.allSatisfy { $0.isSatisfied(by: tokens) }
            case .any(let operands): operands.contains { $0.isSatisfied(by: tokens) }
            }
        }
    }

    /// Parses an expression of the only form the tokenizer may produce — quoted strings (with `""` for a quote),
    /// each optionally followed by `*`, and parenthesized groups, joined by ` AND ` or ` OR ` (never both in one
    /// group) — or returns nil if it is anything else.
    static func parseMatchExpression(_ expression: String) -> MatchExpression? {
        var rest = Substring(expression)
        guard let parsed = parseGroup(&rest), rest.isEmpty else { return nil }
        return parsed
    }

    /// Operands joined by one operator, up to the end or a closing parenthesis.
    private static func parseGroup(_ rest: inout Substring) -> MatchExpression? {
        var operands: [MatchExpression] = []
        var separator: String?
        while true {
            guard let operand = parseOperand(&rest) else { return nil }
            operands.append(operand)
            guard let next = [" AND ", " OR "].first(where: rest.hasPrefix) else { break }
            guard separator == nil || separator == next else { return nil }
            separator = next
            rest = rest.dropFirst(next.count)
        }
        return separator == " OR " ? .any(operands) : .all(operands)
    }

    /// A quoted token or a parenthesized group.
    private static func parseOperand(_ rest: inout Substring) -> MatchExpression? {
        if rest.first == "(" {
            rest = rest.dropFirst()
            guard let group = parseGroup(&rest), rest.first == ")" else { return nil }
            rest = rest.dropFirst()
            return group
        }
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
        return .token(SearchQuery.TokenRequirement(token: token, isPrefix: isPrefix))
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

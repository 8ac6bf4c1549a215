import Foundation

/// A parsed keyword query: a list of terms that must all match, made by ``SearchTokenizer/query(_:)``.
///
/// ``ftsMatchExpression`` and ``tsQuery`` select a superset of the documents that ``matches(_:)`` accepts,
/// so the server runs the index query first and filters its candidates with ``matches(_:)``.
public struct SearchQuery: Sendable, Hashable {
    /// One thing a document must contain, as normalized text.
    public enum Term: Sendable, Hashable {
        /// A Hangul/CJK run that must occur inside a document run, spacing between the document's runs
        /// ignored (`요가수업` occurs in `요가 수업`).
        case substring(String)
        /// The beginning of a word (`gui` for `guitar`).
        case prefix(String)
    }

    /// One token condition of the index query: FTS5 `"token"` or `"token"*`, tsquery `'token'` or `'token':*`.
    public struct TokenRequirement: Sendable, Hashable {
        /// The index token, as produced by ``SearchTokenizer/indexTokens(for:)``.
        public let token: String
        /// Whether any index token starting with ``token`` satisfies the condition.
        public let isPrefix: Bool

        /// Creates a token requirement.
        public init(token: String, isPrefix: Bool) {
            self.token = token
            self.isPrefix = isPrefix
        }
    }

    /// The terms, in query order and without repetitions; never empty.
    public let terms: [Term]

    /// Creates a query from its terms; use ``SearchTokenizer/query(_:)`` to parse user text.
    init(terms: [Term]) {
        self.terms = terms
    }

    /// The index tokens a matching document must have, in query order, without repetitions and at most
    /// ``SearchTokenizer/maximumMatchTerms`` of them: a run term needs each of its bigrams (or its single
    /// unigram), a word term needs some token starting with its own token.
    public var tokenRequirements: [TokenRequirement] {
        var requirements: [TokenRequirement] = []
        for term in terms {
            for requirement in Self.requirements(for: term) where !requirements.contains(requirement) {
                requirements.append(requirement)
            }
        }
        return Array(requirements.prefix(SearchTokenizer.maximumMatchTerms))
    }

    /// Whether the index query can select documents that ``matches(_:)`` rejects, so that candidates must be
    /// confirmed: a run term of three or more characters needs its bigrams in sequence, which the index cannot
    /// tell apart from the same bigrams elsewhere, and a long query may have had requirements left out.
    public var needsVerification: Bool {
        let longRun = terms.contains { term in
            if case .substring(let text) = term { text.unicodeScalars.count >= 3 } else { false }
        }
        let requirementCount = terms.reduce(0) { $0 + Self.requirements(for: $1).count }
        return longRun || requirementCount > SearchTokenizer.maximumMatchTerms
    }

    /// The terms as text that ``SearchTokenizer/query(_:)`` parses back into this same query.
    public var canonicalText: String {
        terms.map { term in
            switch term {
            case .substring(let text), .prefix(let text): text
            }
        }.joined(separator: " ")
    }

    /// An FTS5 `MATCH` expression such as `"요가" AND "가수" AND "gui"*`. Every token is a quoted string,
    /// so no user input can make it a syntax error; run it against a column holding
    /// ``SearchTokenizer/indexText(for:)``.
    public var ftsMatchExpression: String {
        tokenRequirements.map { requirement in
            let quoted = "\"" + requirement.token.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            return requirement.isPrefix ? quoted + "*" : quoted
        }.joined(separator: " AND ")
    }

    /// A PostgreSQL `to_tsquery('simple', …)` argument such as `'요가' & '가수' & 'gui':*`, every token
    /// quoted, for a `tsvector` built with `to_tsvector('simple', indexText)`.
    public var tsQuery: String {
        tokenRequirements.map { requirement in
            let escaped = requirement.token
                .replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "'", with: "''")
            return requirement.isPrefix ? "'\(escaped)':*" : "'\(escaped)'"
        }.joined(separator: " & ")
    }

    /// Whether `documentText` (name and description joined by a newline) satisfies every term exactly:
    /// run terms as substrings of the document's space-joined Hangul/CJK runs, word terms as prefixes of
    /// its words.
    public func matches(_ documentText: String) -> Bool {
        matches(SearchTokenizer.Document(text: documentText))
    }

    /// Whether a document already cut into units satisfies every term exactly (see ``matches(_:)-(String)``).
    public func matches(_ document: SearchTokenizer.Document) -> Bool {
        terms.allSatisfy { term in
            switch term {
            case .substring(let text): document.containsInRun(Array(text.unicodeScalars))
            case .prefix(let text): document.containsWord(withPrefix: Array(text.unicodeScalars))
            }
        }
    }

    /// The token requirements of one term.
    private static func requirements(for term: Term) -> [TokenRequirement] {
        switch term {
        case .prefix(let text):
            let token = SearchTokenizer.TokenEncoder.wordToken(Array(text.unicodeScalars)[...])
            return [TokenRequirement(token: token, isPrefix: true)]
        case .substring(let text):
            let scalars = Array(text.unicodeScalars)
            if scalars.count == 1 {
                return [TokenRequirement(token: SearchTokenizer.TokenEncoder.runToken(scalars[...]), isPrefix: false)]
            }
            return scalars.indices.dropLast().map { index in
                TokenRequirement(token: SearchTokenizer.TokenEncoder.runToken(scalars[index...index + 1]), isPrefix: false)
            }
        }
    }
}

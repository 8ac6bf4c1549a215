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

        /// The requirement as an FTS5 operand: `"token"` or `"token"*`, quoted so that no user input can make it a
        /// syntax error.
        public var ftsMatchOperand: String {
            let quoted = "\"" + token.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            return isPrefix ? quoted + "*" : quoted
        }

        /// The requirement as a PostgreSQL tsquery operand: `'token'` or `'token':*`, quoted so that no user input
        /// can make it a syntax error.
        public var tsQuery: String {
            let escaped = token
                .replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "'", with: "''")
            return isPrefix ? "'\(escaped)':*" : "'\(escaped)'"
        }
    }

    /// The terms, in query order and without repetitions; never empty.
    public let terms: [Term]

    /// How each run term finds its place, in the order of ``terms`` (nil for a word term): made once per query, as
    /// alert matching tests one query against many listings.
    private let runPatterns: [RunPattern?]

    /// Each term's index condition once narrowed by the index's vocabulary (``narrowing(toBigramsIn:words:)``), in the
    /// order of ``terms``: nil while they are coarse.
    private var narrowedConditions: [IndexCondition]?

    /// Whether ``leavingOutCommonTokens(counts:)`` has left tokens out of the index conditions: the candidates are then
    /// always confirmed.
    private var leavesOutCommonTokens = false

    /// Creates a query from its terms; use ``SearchTokenizer/query(_:)`` to parse user text.
    init(terms: [Term]) {
        self.terms = terms
        runPatterns = terms.map { term in
            if case .substring(let text) = term { RunPattern(text) } else { nil }
        }
    }

    /// The Hangul bigrams a typo in a typo-tolerant term may form with the syllables beside it, in order, each once;
    /// empty when no term tolerates one, or once narrowed. Which of them the index holds tells which typos its query
    /// must look for (``narrowing(toBigramsIn:words:)``).
    public var typoBigrams: [String] {
        guard narrowedConditions == nil else { return [] }
        return runPatterns.flatMap { $0?.typoBigrams ?? [] }.uniqued()
    }

    /// The tokens of the word terms whose index words an index's vocabulary can list
    /// (``SearchTokenizer/isListedWord(_:)``), in order, each once; empty once narrowed. When few index words start
    /// with one, the query names them instead (``narrowing(toBigramsIn:words:)``).
    public var expandablePrefixes: [String] {
        guard narrowedConditions == nil else { return [] }
        return terms.compactMap { term in
            guard case .prefix(let text) = term else { return nil }
            let token = Self.wordToken(text)
            return Self.isExpandable(token) ? token : nil
        }.uniqued()
    }

    /// Whether a word term's token may name the index words starting with it: every such word is a listed one
    /// (``SearchTokenizer/isListedWord(_:)``), which `q` is not (it starts escaped tokens too).
    private static func isExpandable(_ token: String) -> Bool {
        SearchTokenizer.isListedWord(token[...]) && !SearchTokenizer.mayStartEscapedTokens(token)
    }

    /// The most index words a word term names instead of its prefix (``narrowing(toBigramsIn:words:)``).
    public static let expandedPrefixWords = 8

    /// This query with its index conditions narrowed by the index's vocabulary.
    ///
    /// Typo-tolerant terms look only for the typos some listing may hold: `present` must hold every one of
    /// ``typoBigrams`` that the index holds (it may hold more). A syllable none of whose typos forms bigrams all in
    /// `present` needs no alternative of its own: `없는말`, where no listing holds a pair like `없느` or `는맘`, then needs
    /// `없는` and `는말` instead of `는말`, or `없` and `말` anywhere, or `없는`.
    ///
    /// A word term of ``expandablePrefixes`` with 1 to ``expandedPrefixWords`` index words starting with it in `words`
    /// names those words instead of its prefix: `words` must hold, for each such prefix, every index word starting
    /// with it, or more than ``expandedPrefixWords`` of them. An index reads a prefix by gathering every listing of
    /// every word it starts before it intersects them: PostgreSQL's GIN took 2.1 ms for `jlpt:*` within a cell, and
    /// 0.09 ms for `jlpt`.
    ///
    /// The conditions still select every match, and far fewer listings that do not match.
    public func narrowing(toBigramsIn present: Set<String>, words: Set<String> = []) -> SearchQuery {
        var query = self
        query.narrowedConditions = terms.indices.map { condition(at: $0, presentBigrams: present, words: words) }
        return query
    }

    /// How many times the listings of the rarest token of an alternative a token must be held by for
    /// ``leavingOutCommonTokens(counts:)`` to leave it out.
    public static let commonTokenFactor = 4

    /// The tokens whose listing counts ``leavingOutCommonTokens(counts:)`` weighs, each once: the exact tokens of the
    /// alternatives naming two or more of them. Empty when the query needs no verification (its index condition is
    /// exact), or has left tokens out already.
    public var tokensToCount: [String] {
        guard !leavesOutCommonTokens, needsVerification else { return [] }
        return conditions.flatMap { condition in
            condition.alternatives.flatMap { alternative in
                let exact = alternative.filter { !$0.isPrefix }.map(\.token)
                return exact.count >= 2 ? exact : []
            }
        }.uniqued()
    }

    /// This query with the tokens left out of its index conditions that are held by more than ``commonTokenFactor``
    /// times as many listings as the rarest exact token of their alternative, by `counts` (a token without a count is
    /// kept); an alternative naming every token of another then gives way to it. Only for a query whose candidates are
    /// confirmed anyway (``tokensToCount`` is not empty): the condition selects a few more candidates, and an index
    /// reads far less of its longest lists. `공업수학` is held by about as many listings as `공업` and `업수`, which
    /// `수학`, in nine times as many, barely narrows: an FTS5 read of the three in a cell took three times one of the two.
    public func leavingOutCommonTokens(counts: [String: Int]) -> SearchQuery {
        var query = self
        query.narrowedConditions = terms.indices.map { index in
            let alternatives = condition(at: index).alternatives.map { alternative in
                let rarest = alternative.compactMap { $0.isPrefix ? nil : counts[$0.token] }.min()
                return alternative.filter { requirement in
                    guard let rarest, !requirement.isPrefix, let count = counts[requirement.token] else { return true }
                    return count <= Self.commonTokenFactor * rarest
                }
            }
            return IndexCondition(alternatives: alternatives.enumerated().filter { index, alternative in
                !alternatives.enumerated().contains { other, wider in
                    other != index && Set(wider).isSubset(of: alternative) && (wider.count < alternative.count || other < index)
                }
            }.map(\.element))
        }
        query.leavesOutCommonTokens = true
        return query
    }

    /// About how many listings the index conditions select, by `counts` of their tokens: in each condition, the
    /// alternative held by the most listings (the others may add some), each alternative taken as its rarest token
    /// (the tokens of one word occur together) and a prefix as its own token, which it holds at least; the least of the
    /// conditions. An alternative with a token not counted is passed over; nil when no condition has an alternative
    /// with every token counted. A walk then knows a cell too crowded to read without asking the index.
    public func estimatedCandidates(counts: [String: Int]) -> Int? {
        conditions.compactMap { condition in
            condition.alternatives.compactMap { alternative -> Int? in
                let held = alternative.map { counts[$0.token] }
                return held.contains(nil) ? nil : held.compactMap { $0 }.min()
            }.max()
        }.min()
    }

    /// One term's condition on the index: a document must have every token of at least one alternative.
    public struct IndexCondition: Sendable, Hashable {
        /// The alternatives, never empty; most terms have one.
        public let alternatives: [[TokenRequirement]]
    }

    /// What a matching document must have in the index, term by term, at most ``SearchTokenizer/maximumMatchTerms``
    /// tokens in all: a run term needs each of its bigrams (or its single unigram; see ``RunPattern`` for runs
    /// typed with initial consonants or tolerating a typo), a word term needs some token starting with its own token.
    public var conditions: [IndexCondition] {
        var conditions: [IndexCondition] = []
        var budget = SearchTokenizer.maximumMatchTerms
        var seen: Set<TokenRequirement> = []
        for index in terms.indices {
            let condition = condition(at: index)
            if condition.alternatives.count == 1 {
                // Tokens of a plain term can be left out one by one: the condition only widens.
                let fresh = condition.alternatives[0].filter { seen.insert($0).inserted }.prefix(budget)
                guard !fresh.isEmpty else { continue }
                budget -= fresh.count
                conditions.append(IndexCondition(alternatives: [Array(fresh)]))
            } else {
                let size = condition.alternatives.reduce(0) { $0 + $1.count }
                guard size <= budget, !conditions.contains(condition) else { continue }
                budget -= size
                conditions.append(condition)
            }
        }
        return conditions
    }

    /// Every token the index query names, in query order.
    public var tokenRequirements: [TokenRequirement] {
        conditions.flatMap { $0.alternatives.flatMap { $0 } }
    }

    /// Whether the index query can select documents that ``matches(_:)`` rejects, so that candidates must be
    /// confirmed: a run term of three or more characters needs its bigrams in sequence, which the index cannot
    /// tell apart from the same bigrams elsewhere; initial consonants and typos are found through coarser tokens; the
    /// word `q`, or an ASCII word starting `qx`, starts escaped tokens too (``SearchTokenizer/escapeMarker``), such as
    /// the initials of `수학`; and a long query may have had requirements left out.
    public var needsVerification: Bool {
        let coarse = runPatterns.contains { pattern in
            pattern.map { $0.scalars.count >= 3 || $0.matchesInitials } ?? false
        }
        let requirementCount = terms.indices.reduce(0) { count, index in
            count + condition(at: index).alternatives.reduce(0) { $0 + $1.count }
        }
        let startsEscapedTokens = terms.contains { term in
            guard case .prefix(let text) = term else { return false }
            return SearchTokenizer.mayStartEscapedTokens(text) && text.unicodeScalars.allSatisfy(\.isASCII)
        }
        return leavesOutCommonTokens || coarse || startsEscapedTokens || requirementCount > SearchTokenizer.maximumMatchTerms
    }

    /// The terms as text that ``SearchTokenizer/query(_:)`` parses back into this same query.
    public var canonicalText: String {
        terms.map { term in
            switch term {
            case .substring(let text), .prefix(let text): text
            }
        }.joined(separator: " ")
    }

    /// An FTS5 `MATCH` expression such as `"요가" AND "가수" AND "gui"*` (alternatives in parentheses joined by
    /// `OR`). Every token is a quoted string, so no user input can make it a syntax error; run it against a column
    /// holding ``SearchTokenizer/indexText(for:)``.
    public var ftsMatchExpression: String {
        expression(and: " AND ", or: " OR ", token: \.ftsMatchOperand)
    }

    /// A PostgreSQL `to_tsquery('simple', …)` argument such as `'요가' & '가수' & 'gui':*` (alternatives in
    /// parentheses joined by `|`), every token quoted, for a `tsvector` built with `to_tsvector('simple', indexText)`.
    public var tsQuery: String {
        expression(and: " & ", or: " | ", token: \.tsQuery)
    }

    /// ``conditions`` spelled with the given operators and token syntax.
    private func expression(and: String, or: String, token: (TokenRequirement) -> String) -> String {
        conditions.map { condition in
            if condition.alternatives.count == 1 {
                return condition.alternatives[0].map(token).joined(separator: and)
            }
            return "(" + condition.alternatives.map { "(" + $0.map(token).joined(separator: and) + ")" }.joined(separator: or) + ")"
        }.joined(separator: and)
    }

    /// Whether `documentText` (name and description joined by a newline) satisfies every term exactly:
    /// run terms as substrings of the document's space-joined Hangul/CJK runs, word terms as prefixes of
    /// its words.
    ///
    /// A text of ASCII and Hangul syllables only, as most listings' are, is first searched for the run terms in its
    /// syllables (``SearchTokenizer/SyllableRuns``), without cutting it into a ``SearchTokenizer/Document``: that
    /// answers a query of run terms alone, and rules out a match of any other. Cutting the texts of the candidates a
    /// walk confirmed took a fifth of a PostgreSQL server's time for `바이올린` within 50 km.
    public func matches(_ documentText: String) -> Bool {
        if let runs = SearchTokenizer.SyllableRuns(text: documentText) {
            if !runPatterns.allSatisfy({ $0.map { $0.isFound(in: runs.scalars) } ?? true }) { return false }
            if hasRunTermsOnly { return true }
        }
        return matches(SearchTokenizer.Document(text: documentText))
    }

    /// Whether every term is a run term with a pattern, which a text's ``SearchTokenizer/SyllableRuns`` decide.
    private var hasRunTermsOnly: Bool {
        zip(terms, runPatterns).allSatisfy { term, pattern in
            if case .substring = term { pattern != nil } else { false }
        }
    }

    /// Whether a document already cut into units satisfies every term exactly (see ``matches(_:)-(String)``).
    public func matches(_ document: SearchTokenizer.Document) -> Bool {
        zip(terms, runPatterns).allSatisfy { term, pattern in
            switch term {
            case .substring: pattern.map(document.containsInRun) ?? false
            case .prefix(let text): document.containsWord(withPrefix: Array(text.unicodeScalars))
            }
        }
    }

    /// The index condition of the term at `index`, narrowed if the query is.
    private func condition(at index: Int) -> IndexCondition {
        narrowedConditions?[index] ?? condition(at: index, presentBigrams: nil, words: [])
    }

    /// The index condition of the term at `index`, its typos narrowed to `presentBigrams` when given, and its prefix
    /// to the `words` starting with it when they are few (``narrowing(toBigramsIn:words:)``).
    private func condition(at index: Int, presentBigrams: Set<String>?, words: Set<String>) -> IndexCondition {
        switch terms[index] {
        case .prefix(let text):
            let token = Self.wordToken(text)
            let named = Self.isExpandable(token) ? words.filter { $0.hasPrefix(token) }.sorted() : []
            guard (1...Self.expandedPrefixWords).contains(named.count) else {
                return IndexCondition(alternatives: [[TokenRequirement(token: token, isPrefix: true)]])
            }
            return IndexCondition(alternatives: named.map { [TokenRequirement(token: $0, isPrefix: false)] })
        case .substring(let text):
            return (runPatterns[index] ?? RunPattern(text)).indexCondition(presentBigrams: presentBigrams)
        }
    }

    /// The index token of a word term's text.
    private static func wordToken(_ text: String) -> String {
        SearchTokenizer.TokenEncoder.wordToken(Array(text.unicodeScalars)[...])
    }
}

/// Tests one listing's text against the keywords of many alerts.
///
/// The listing's text is cut into searchable units once, on the first keyword, and each distinct keyword is
/// parsed and decided once: alerts repeat the same few words (`수학`, `요가`), so matching a new class against
/// hundreds of candidate alerts costs a handful of tests.
public struct KeywordFilter {
    private let text: String
    private var document: SearchTokenizer.Document?
    private var verdicts: [String: Bool] = [:]

    /// A filter for `listing`'s name and description.
    public init(listing: ClassListing) {
        self.text = listing.name + "\n" + listing.description
    }

    /// Whether the listing satisfies `keyword`: always when there is none, never when it holds nothing
    /// searchable, else ``SearchQuery/matches(_:)-(SearchTokenizer.Document)``.
    public mutating func accepts(_ keyword: String?) -> Bool {
        guard let keyword else { return true }
        if let verdict = verdicts[keyword] { return verdict }
        let verdict: Bool
        if let query = SearchTokenizer.query(keyword) {
            let document = document ?? SearchTokenizer.Document(text: text)
            self.document = document
            verdict = query.matches(document)
        } else {
            verdict = false
        }
        verdicts[keyword] = verdict
        return verdict
    }
}

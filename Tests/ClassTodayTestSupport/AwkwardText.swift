extension SeededRandom {
    /// Characters that text must survive through JSON and SQL: quotes, backslashes, control characters, Korean,
    /// an emoji, a slash, JSON's own punctuation and plain ASCII.
    public static let awkwardCharacters: [Character] = [
        "\"", "\\", "\n", "\r", "\t", "\u{08}", "\u{0C}", "\u{01}", "\u{1F}", "/", "가", "힣", "😀", "a", " ", "<", "\u{7F}",
        "]", ",",
    ]

    /// A string of up to `maximumLength` characters drawn from ``awkwardCharacters``.
    public mutating func awkwardText(maximumLength: Int = 12) -> String {
        String((0..<Int.random(in: 0...maximumLength, using: &self)).map { _ in Self.awkwardCharacters.randomElement(using: &self)! })
    }
}

import ClassTodayCore
import Foundation

/// The repository's default banned-words list, `config/banned-words.txt`, as the server loads it.
public enum ShippedBannedWords {
    /// Where the list is.
    public static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("config/banned-words.txt")

    /// The filter read from the list.
    public static func filter() throws -> BannedWordFilter {
        try BannedWordFilter(parsing: String(contentsOf: url, encoding: .utf8))
    }
}

import ClassTodayCore
import Foundation

/// The default banned-words list built into the server (`Sources/ClassTodayServer/Resources/banned-words.txt`), as
/// the server loads it.
public enum ShippedBannedWords {
    /// Where the list is.
    public static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/ClassTodayServer/Resources/banned-words.txt")

    /// The filter read from the list.
    public static func filter() throws -> BannedWordFilter {
        try BannedWordFilter(parsing: String(contentsOf: url, encoding: .utf8))
    }
}

import Foundation

/// Splits an SQL script into its statements, for drivers that run one statement per call.
enum SQLStatements {
    /// The statements of `script`, trimmed, without empty ones. Semicolons inside quoted strings and identifiers,
    /// `--` and `/* */` comments and `$tag$` dollar-quoted bodies do not end a statement.
    static func split(_ script: String) -> [String] {
        let characters = Array(script)
        var statements: [String] = []
        var current = ""
        var index = 0
        func flush() {
            let statement = current.trimmingCharacters(in: .whitespacesAndNewlines)
            if !statement.isEmpty, !isOnlyComments(statement) { statements.append(statement) }
            current = ""
        }
        while index < characters.count {
            let character = characters[index]
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            switch character {
            case "'", "\"":
                let end = closing(character, in: characters, from: index + 1)
                current += String(characters[index..<end])
                index = end
            case "-" where next == "-":
                let end = characters[index...].firstIndex(of: "\n") ?? characters.count
                current += String(characters[index..<end])
                index = end
            case "/" where next == "*":
                var end = index + 2
                while end + 1 < characters.count, !(characters[end] == "*" && characters[end + 1] == "/") { end += 1 }
                end = min(characters.count, end + 2)
                current += String(characters[index..<end])
                index = end
            case "$":
                if let tagEnd = characters[(index + 1)...].firstIndex(of: "$"),
                   characters[(index + 1)..<tagEnd].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) {
                    let tag = String(characters[index...tagEnd])
                    let rest = String(characters[(tagEnd + 1)...])
                    let bodyLength = rest.range(of: tag).map { rest.distance(from: rest.startIndex, to: $0.upperBound) } ?? rest.count
                    let end = tagEnd + 1 + bodyLength
                    current += String(characters[index..<end])
                    index = end
                } else {
                    current.append(character)
                    index += 1
                }
            case ";":
                flush()
                index += 1
            default:
                current.append(character)
                index += 1
            }
        }
        flush()
        return statements
    }

    /// The index just past the quote that closes one opened before `start` (a doubled quote is an escaped one).
    private static func closing(_ quote: Character, in characters: [Character], from start: Int) -> Int {
        var index = start
        while index < characters.count {
            if characters[index] == quote {
                if index + 1 < characters.count, characters[index + 1] == quote {
                    index += 2
                    continue
                }
                return index + 1
            }
            index += 1
        }
        return characters.count
    }

    /// Whether `text` holds nothing but `--` comments and whitespace.
    private static func isOnlyComments(_ text: String) -> Bool {
        text.split(separator: "\n").allSatisfy { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return trimmed.isEmpty || trimmed.hasPrefix("--")
        }
    }
}

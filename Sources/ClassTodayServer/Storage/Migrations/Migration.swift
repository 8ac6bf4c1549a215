import Crypto
import Foundation

/// One SQL migration file, `NNNN_name.sql`, applied once and never edited after it shipped.
public struct Migration: Sendable, Hashable {
    /// The numeric prefix, which orders migrations (`0001`).
    public let version: String
    /// The rest of the file name (`accounts`).
    public let name: String
    /// The SQL to run.
    public let sql: String
    /// Hex SHA-256 of the file's bytes, recorded when applied.
    public let checksum: String

    /// Creates a migration from its file name and contents.
    public init(version: String, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
        self.checksum = SHA256.hash(data: Data(sql.utf8)).hexString
    }

    /// Reads every `NNNN_name.sql` file of `directory`, ordered by version.
    public static func load(from directory: String) throws -> [Migration] {
        let url = URL(fileURLWithPath: directory, isDirectory: true)
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: url.path)
        } catch {
            throw MigrationError.directoryUnreadable(directory)
        }
        var migrations: [Migration] = []
        for fileName in names where fileName.hasSuffix(".sql") {
            let stem = fileName.dropLast(4)
            guard let separator = stem.firstIndex(of: "_"),
                  !stem[..<separator].isEmpty, stem[..<separator].allSatisfy(\.isNumber)
            else { throw MigrationError.badFileName(fileName) }
            let sql = try String(contentsOf: url.appendingPathComponent(fileName), encoding: .utf8)
            migrations.append(Migration(
                version: String(stem[..<separator]), name: String(stem[stem.index(after: separator)...]), sql: sql))
        }
        let sorted = migrations.sorted { ($0.version.count, $0.version) < ($1.version.count, $1.version) }
        for (previous, next) in zip(sorted, sorted.dropFirst()) where Int(previous.version) == Int(next.version) {
            throw MigrationError.duplicateVersion(next.version)
        }
        return sorted
    }
}

/// A migration record found in a database's migrations table.
public struct AppliedMigration: Sendable, Hashable {
    /// The version applied.
    public let version: String
    /// The checksum of the file when it was applied.
    public let checksum: String

    /// Creates a record.
    public init(version: String, checksum: String) {
        self.version = version
        self.checksum = checksum
    }
}

/// Why migrations cannot be applied.
public enum MigrationError: Error, CustomStringConvertible, Equatable {
    /// The migrations folder is missing or unreadable.
    case directoryUnreadable(String)
    /// A `.sql` file whose name is not `NNNN_name.sql`.
    case badFileName(String)
    /// Two files share a version number.
    case duplicateVersion(String)
    /// A file that was applied has changed since.
    case checksumMismatch(version: String, name: String)
    /// The database has a migration applied that no file describes (a newer server wrote it).
    case unknownAppliedVersion(String)

    /// A message for the operator.
    public var description: String {
        switch self {
        case .directoryUnreadable(let path): "cannot read migrations folder \(path)"
        case .badFileName(let name): "migration file \(name) is not named NNNN_name.sql"
        case .duplicateVersion(let version): "two migration files have version \(version)"
        case .checksumMismatch(let version, let name):
            "migration \(version)_\(name) was changed after it was applied; add a new migration instead"
        case .unknownAppliedVersion(let version):
            "the database has migration \(version) applied, which this server does not know; is it older than the database?"
        }
    }
}

/// Decides which migrations to apply, given what a database already has.
public enum MigrationPlan {
    /// The migrations still to apply, in order; throws when an applied one changed or is unknown.
    public static func pending(files: [Migration], applied: [AppliedMigration]) throws -> [Migration] {
        let filesByVersion = Dictionary(files.map { ($0.version, $0) }, uniquingKeysWith: { first, _ in first })
        for record in applied {
            guard let file = filesByVersion[record.version] else {
                throw MigrationError.unknownAppliedVersion(record.version)
            }
            guard file.checksum == record.checksum else {
                throw MigrationError.checksumMismatch(version: file.version, name: file.name)
            }
        }
        let appliedVersions = Set(applied.map(\.version))
        return files.filter { !appliedVersions.contains($0.version) }
    }
}

extension Sequence where Element == UInt8 {
    /// Lowercase hexadecimal digits of the bytes.
    var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var characters: [UInt8] = []
        for byte in self {
            characters.append(digits[Int(byte >> 4)])
            characters.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: characters, as: UTF8.self)
    }
}

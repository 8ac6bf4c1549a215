import Foundation

/// The defaults that travel inside the server's resource bundle (`classtoday_ClassTodayServer.resources`, beside the
/// binary), so that `classtoday` runs from any folder without flags: the SQL migrations, the default banned-words
/// list, the web console and the OpenAPI document. Settings override the first two (`migrationsDir`,
/// `bannedWords.path`).
public enum BuiltInResources {
    /// The resource bundle's folder.
    public static var bundlePath: String { Bundle.module.bundlePath }

    /// The built-in migrations: `sqlite/` and `postgres/` inside.
    public static var migrationsDirectory: String { path(of: "Migrations") }

    /// The built-in banned-words list.
    public static var bannedWordsPath: String { path(of: "banned-words.txt") }

    /// The path of the resource `name` at the top of the bundle.
    private static func path(of name: String) -> String {
        Bundle.module.resourceURL.map { $0.appendingPathComponent(name).path } ?? (bundlePath as NSString).appendingPathComponent(name)
    }
}

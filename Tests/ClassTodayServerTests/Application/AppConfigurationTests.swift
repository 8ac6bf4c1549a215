import ClassTodayCore
import Configuration
import Foundation
import Testing
@testable import ClassTodayServer

@Suite("Configuration")
struct AppConfigurationTests {
    private func writeConfigFile(_ json: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("classtoday-config-\(UUID().uuidString).json").path
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("with nothing set, the server listens on 127.0.0.1:8080 and keeps its data in ./data")
    func defaults() async throws {
        let configuration = try await AppConfiguration.resolve(flags: [:], environment: [:], configFile: nil)
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 8080)
        #expect(configuration.dataDirectory == "./data")
        #expect(try configuration.databaseLocation() == .sqlite(path: "./data/classtoday.sqlite"))
        #expect(configuration.durableCommits)
    }

    @Test("flags beat environment variables, which beat the config file")
    func precedence() async throws {
        let file = try writeConfigFile(#"{"port": 7000, "host": "0.0.0.0", "dataDir": "/srv/file", "bcrypt": {"cost": 10}, "rateLimit": 5}"#)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let fromFile = try await AppConfiguration.resolve(flags: [:], environment: [:], configFile: file)
        #expect(fromFile.port == 7000 && fromFile.host == "0.0.0.0" && fromFile.bcryptCost == 10 && fromFile.rateLimitPerMinute == 5)

        let environment = ["CLASSTODAY_PORT": "7100", "CLASSTODAY_DATA_DIR": "/srv/env", "CLASSTODAY_BCRYPT_COST": "11",
                           "CLASSTODAY_RATE_LIMIT": "0"]
        let fromEnvironment = try await AppConfiguration.resolve(flags: [:], environment: environment, configFile: file)
        #expect(fromEnvironment.port == 7100 && fromEnvironment.dataDirectory == "/srv/env" && fromEnvironment.bcryptCost == 11)
        #expect(fromEnvironment.host == "0.0.0.0")
        #expect(fromEnvironment.rateLimitPerMinute == 0)

        let fromFlags = try await AppConfiguration.resolve(
            flags: ["port": .init(.int(7200), isSecret: false)], environment: environment, configFile: file)
        #expect(fromFlags.port == 7200 && fromFlags.dataDirectory == "/srv/env")
    }

    @Test("bad values are refused with the key named")
    func invalid() async throws {
        await #expect(throws: ConfigurationError.invalid(key: "port", reason: "must be 0 to 65535")) {
            try await AppConfiguration.resolve(flags: [:], environment: ["CLASSTODAY_PORT": "70000"], configFile: nil)
        }
        await #expect(throws: ConfigurationError.self) {
            try await AppConfiguration.resolve(flags: [:], environment: ["CLASSTODAY_DATABASE_URL": "mysql://x"], configFile: nil)
        }
        await #expect(throws: ConfigurationError.self) {
            try await AppConfiguration.resolve(flags: [:], environment: ["CLASSTODAY_LOG_LEVEL": "loud"], configFile: nil)
        }
    }

    /// A connection setting in seconds: its key, its environment variable, its default and where it lands.
    struct ConnectionSeconds: Sendable, CustomTestStringConvertible {
        let key: String
        let variable: String
        let defaultSeconds: Int
        let value: @Sendable (AppConfiguration) -> Duration
        var testDescription: String { key }
    }

    @Test("connection timeouts have their defaults unless set, and must be positive", arguments: [
        ConnectionSeconds(key: "connections.idleSeconds", variable: "CLASSTODAY_CONNECTIONS_IDLE_SECONDS", defaultSeconds: 75) {
            $0.idleConnectionTimeout
        },
        ConnectionSeconds(key: "connections.shutdownGraceSeconds", variable: "CLASSTODAY_CONNECTIONS_SHUTDOWN_GRACE_SECONDS",
                          defaultSeconds: 10) { $0.shutdownGrace },
    ])
    func connectionSeconds(setting: ConnectionSeconds) async throws {
        func resolved(_ environment: [String: String]) async throws -> AppConfiguration {
            try await AppConfiguration.resolve(flags: [:], environment: environment, configFile: nil)
        }
        #expect(setting.value(try await resolved([:])) == .seconds(setting.defaultSeconds))
        #expect(setting.value(try await resolved([setting.variable: "20"])) == .seconds(20))
        await #expect(throws: ConfigurationError.invalid(key: setting.key, reason: "must be positive")) {
            try await resolved([setting.variable: "0"])
        }
    }

    @Test("database URLs", arguments: [
        ("sqlite:///var/lib/ct/db.sqlite", DatabaseLocation.sqlite(path: "/var/lib/ct/db.sqlite")),
        ("sqlite://relative.sqlite", DatabaseLocation.sqlite(path: "relative.sqlite")),
        ("postgres://u:p@localhost:5432/ct", DatabaseLocation.postgres(url: "postgres://u:p@localhost:5432/ct")),
    ])
    func databaseURLs(url: String, location: DatabaseLocation) throws {
        #expect(try DatabaseLocation(url: url) == location)
    }

    @Test("a named config file that does not exist is an error")
    func missingNamedFile() async throws {
        await #expect(throws: (any Error).self) {
            try await AppConfiguration.resolve(flags: [:], environment: [:], configFile: "/nonexistent/classtoday.json")
        }
    }

    @Test("the banned-words list and the terms version come from the file, the environment or flags")
    func contentSettings() async throws {
        let defaults = try await AppConfiguration.resolve(flags: [:], environment: [:], configFile: nil)
        #expect(defaults.bannedWordsPath == BuiltInResources.bannedWordsPath)
        #expect(defaults.migrationsDirectory == BuiltInResources.migrationsDirectory)
        #expect(defaults.vipsLibraryPath == VipsLibrary.defaultPath)
        #expect(FileManager.default.fileExists(atPath: defaults.bannedWordsPath))
        #expect(FileManager.default.fileExists(atPath: defaults.migrationsDirectory + "/sqlite"))
        #expect(defaults.bannedWordsCheckInterval == .seconds(2))
        #expect(defaults.termsVersion == "2026-11-01")

        let file = try writeConfigFile(#"{"bannedWords": {"path": "/etc/ct/words.txt", "checkSeconds": 10}, "terms": {"version": "v7"}}"#)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let fromFile = try await AppConfiguration.resolve(flags: [:], environment: [:], configFile: file)
        #expect(fromFile.bannedWordsPath == "/etc/ct/words.txt" && fromFile.bannedWordsCheckInterval == .seconds(10))
        #expect(fromFile.termsVersion == "v7")

        let environment = ["CLASSTODAY_BANNED_WORDS_PATH": "/env/words.txt", "CLASSTODAY_TERMS_VERSION": "v8"]
        let fromEnvironment = try await AppConfiguration.resolve(flags: [:], environment: environment, configFile: file)
        #expect(fromEnvironment.bannedWordsPath == "/env/words.txt" && fromEnvironment.termsVersion == "v8")

        let fromFlags = try await AppConfiguration.resolve(
            flags: ["bannedWords.path": .init(.string("/flag/words.txt"), isSecret: false)], environment: environment, configFile: file)
        #expect(fromFlags.bannedWordsPath == "/flag/words.txt")

        await #expect(throws: ConfigurationError.invalid(key: "bannedWords.checkSeconds", reason: "must not be negative")) {
            try await AppConfiguration.resolve(flags: [:], environment: ["CLASSTODAY_BANNED_WORDS_CHECK_SECONDS": "-1"], configFile: nil)
        }
        await #expect(throws: ConfigurationError.self) {
            try await AppConfiguration.resolve(flags: [:], environment: ["CLASSTODAY_TERMS_VERSION": " "], configFile: nil)
        }
    }

    @Test("libvips is loaded from libvips.so.42 unless images.vipsLibrary names another file; empty is refused")
    func vipsLibrary() async throws {
        let file = try writeConfigFile(#"{"images": {"vipsLibrary": "/opt/vips/lib/libvips.so.42"}}"#)
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(try await AppConfiguration.resolve(flags: [:], environment: [:], configFile: nil).vipsLibraryPath == "libvips.so.42")
        #expect(try await AppConfiguration.resolve(flags: [:], environment: [:], configFile: file).vipsLibraryPath == "/opt/vips/lib/libvips.so.42")
        let environment = ["CLASSTODAY_IMAGES_VIPS_LIBRARY": "/missing/libvips.so.42"]
        #expect(try await AppConfiguration.resolve(flags: [:], environment: environment, configFile: file).vipsLibraryPath == "/missing/libvips.so.42")
        await #expect(throws: ConfigurationError.invalid(key: "images.vipsLibrary", reason: "must not be empty")) {
            try await AppConfiguration.resolve(flags: [:], environment: ["CLASSTODAY_IMAGES_VIPS_LIBRARY": ""], configFile: nil)
        }
    }
}

@Suite("Sign-in configuration")
struct SignInConfigurationTests {
    @Test("every provider is off by default, with the real providers' endpoints")
    func defaults() async throws {
        let signIn = try await AppConfiguration.resolve(flags: [:], environment: [:], configFile: nil).signIn
        for provider in [IdentityProvider.apple, .kakao, .google] {
            #expect(signIn.openID(provider)?.isConfigured == false)
            #expect(signIn.openID(provider)?.jwksURL.hasPrefix("https://") == true)
        }
        #expect(signIn.google.issuers == ["https://accounts.google.com", "accounts.google.com"])
        #expect(!signIn.naver.enabled && signIn.naver.profileURL == "https://openapi.naver.com/v1/nid/me")
    }

    @Test("the production example reads, with the refresh lifetime and every provider off")
    func productionExample() async throws {
        let file = TestServer.repositoryRoot.appendingPathComponent("config/production.example.json").path
        let configuration = try await AppConfiguration.resolve(flags: [:], environment: [:], configFile: file)
        #expect(configuration.refreshTokenLifetime == .seconds(90 * 24 * 3600))
        #expect(configuration.signIn == SignInSettings())
    }

    @Test("providers are configured from the environment: lists comma-separated")
    func environment() async throws {
        let configuration = try await AppConfiguration.resolve(flags: [:], environment: [
            "CLASSTODAY_SIGN_IN_APPLE_CLIENT_IDS": "app.classtoday.ios,app.classtoday.web",
            "CLASSTODAY_SIGN_IN_KAKAO_JWKS_URL": "https://kakao.staging.example/jwks",
            "CLASSTODAY_SIGN_IN_KAKAO_CLIENT_IDS": "kakao-key",
            "CLASSTODAY_SIGN_IN_NAVER_ENABLED": "true",
            "CLASSTODAY_SIGN_IN_KEY_REFETCH_SECONDS": "30",
            "CLASSTODAY_SIGN_IN_KEY_RETRY_SECONDS": "3",
            "CLASSTODAY_TOKENS_REFRESH_LIFETIME_SECONDS": "3600",
        ], configFile: nil)
        #expect(configuration.signIn.apple.clientIds == ["app.classtoday.ios", "app.classtoday.web"])
        #expect(configuration.signIn.kakao.jwksURL == "https://kakao.staging.example/jwks" && configuration.signIn.kakao.isConfigured)
        #expect(configuration.signIn.naver.enabled)
        #expect(configuration.signIn.keyRefetchInterval == .seconds(30))
        #expect(configuration.signIn.keyRetryDelay == .seconds(3))
        #expect(configuration.refreshTokenLifetime == .seconds(3600))
    }

    @Test("a configured provider's endpoint must be https, or http on loopback", arguments: [
        ("http://keys.example.com/jwks", false), ("ftp://127.0.0.1/jwks", false), ("not a url", false),
        ("https://keys.example.com/jwks", true), ("http://127.0.0.1:8081/jwks", true), ("http://localhost/jwks", true),
    ])
    func endpoints(url: String, accepted: Bool) async throws {
        let environment = ["CLASSTODAY_SIGN_IN_GOOGLE_CLIENT_IDS": "id", "CLASSTODAY_SIGN_IN_GOOGLE_JWKS_URL": url]
        do {
            let configuration = try await AppConfiguration.resolve(flags: [:], environment: environment, configFile: nil)
            #expect(accepted && configuration.signIn.google.jwksURL == url)
        } catch let error as ConfigurationError {
            #expect(!accepted && error == .invalid(key: "signIn.google.jwksUrl", reason: "must use https (plain http only on a loopback address)")
                    || url == "not a url")
        }
    }
}

import Foundation
import Testing

/// A markdown page: its relative links and the anchors its headings make, as GitHub renders them.
struct MarkdownPage {
    /// Link targets outside code: inline links, images and reference definitions.
    let links: [String]
    /// The anchors of its headings (GitHub's slugs, with `-1`, `-2` for repeats).
    let anchors: Set<String>

    /// Reads `text`, skipping fenced code blocks and inline code spans.
    init(_ text: String) {
        var links: [String] = []
        var anchors: Set<String> = []
        var repeats: [String: Int] = [:]
        var fence: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let open = fence {
                if trimmed.hasPrefix(open) { fence = nil }
                continue
            }
            if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") {
                fence = String(trimmed.prefix(3))
                continue
            }
            let prose = line.replacing(/`[^`]*`/, with: "")
            links += prose.matches(of: /\]\(([^)\s]+)(?:\s+"[^"]*")?\)/).map { String($0.output.1) }
            if let definition = prose.firstMatch(of: /^\s{0,3}\[[^\]]+\]:\s*(\S+)/) { links.append(String(definition.output.1)) }
            if let heading = line.firstMatch(of: /^#{1,6}\s+(.+?)\s*#*\s*$/) {
                let slug = Self.slug(String(heading.output.1))
                let seen = repeats[slug, default: 0]
                repeats[slug] = seen + 1
                anchors.insert(seen == 0 ? slug : "\(slug)-\(seen)")
            }
        }
        (self.links, self.anchors) = (links, anchors)
    }

    /// GitHub's anchor for a heading: its text as rendered (code and links reduced to their text), lower-cased,
    /// without punctuation or symbols other than `-` and `_`, spaces turned into hyphens.
    static func slug(_ heading: String) -> String {
        let rendered = heading.replacing(/\[([^\]]*)\]\([^)]*\)/) { String($0.output.1) }
        var slug = ""
        for scalar in rendered.lowercased().unicodeScalars {
            switch scalar.properties.generalCategory {
            case .lowercaseLetter, .uppercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                 .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .letterNumber, .otherNumber,
                 .connectorPunctuation:
                slug.unicodeScalars.append(scalar)
            case .spaceSeparator: slug.append("-")
            default: if scalar == "-" { slug.append("-") }
            }
        }
        return slug
    }
}

/// Checks the links between a set of markdown pages in a folder.
struct MarkdownLinkChecker {
    /// The folder the pages' paths are relative to.
    let root: URL

    /// Every dead relative link and missing anchor of `pages` (paths relative to ``root``), one line each.
    func problems(in pages: [String]) throws -> [String] {
        var parsed: [String: MarkdownPage] = [:]
        func page(_ path: String) throws -> MarkdownPage {
            if let page = parsed[path] { return page }
            let page = MarkdownPage(try String(contentsOf: root.appending(path: path), encoding: .utf8))
            parsed[path] = page
            return page
        }
        var problems: [String] = []
        for path in pages {
            for link in try page(path).links where !link.contains(":") {
                let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let file = parts[0].removingPercentEncoding ?? parts[0]
                let target = file.isEmpty ? path : Self.resolve(file, from: path)
                guard FileManager.default.fileExists(atPath: root.appending(path: target).path) else {
                    problems.append("\(path): \(link) leads nowhere")
                    continue
                }
                if parts.count == 2, target.hasSuffix(".md"), !(try page(target).anchors.contains(parts[1])) {
                    problems.append("\(path): \(link) names no heading of \(target)")
                }
            }
        }
        return problems
    }

    /// The path, relative to the root, of `file` linked from the page at `page`.
    private static func resolve(_ file: String, from page: String) -> String {
        var components = page.split(separator: "/").dropLast().map(String.init)
        for part in file.split(separator: "/") {
            switch part {
            case "..": _ = components.popLast()
            case ".": continue
            default: components.append(String(part))
            }
        }
        return components.joined(separator: "/")
    }
}

/// The links between the README, the CHANGELOG, CONTRIBUTING and `docs/`.
@Suite("Markdown links")
struct MarkdownLinksTests {
    /// The repository's root: four levels above this file (Tests/ClassTodayCoreTests/Documentation/).
    static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The pages checked: the top-level ones and every page under `docs/`.
    static func pages() throws -> [String] {
        let docs = root.appending(path: "docs")
        let nested = FileManager.default.enumerator(at: docs, includingPropertiesForKeys: nil)?
            .compactMap { ($0 as? URL)?.standardizedFileURL.path }
            .filter { $0.hasSuffix(".md") }
            .map { "docs/" + $0.dropFirst(docs.standardizedFileURL.path.count + 1) } ?? []
        return ["README.md", "CHANGELOG.md", "CONTRIBUTING.md"] + nested.sorted()
    }

    @Test("no page links to a missing file or a heading that does not exist")
    func noDeadLinks() throws {
        let pages = try Self.pages()
        #expect(pages.contains("docs/configuration.md") && pages.contains("docs/design/README.md"))
        let problems = try MarkdownLinkChecker(root: Self.root).problems(in: pages)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test("anchors follow GitHub's slugs", arguments: [
        ("Sign-in with providers", "sign-in-with-providers"),
        ("Measuring: `classtoday bench push`", "measuring-classtoday-bench-push"),
        ("PostgreSQL: listings laid out by location", "postgresql-listings-laid-out-by-location"),
        ("The web console and CSP", "the-web-console-and-csp"),
        ("Tests against [PostgreSQL](https://postgresql.org)", "tests-against-postgresql"),
        ("검색 (Search) 1.0", "검색-search-10"),
    ])
    func slugs(heading: String, anchor: String) {
        #expect(MarkdownPage.slug(heading) == anchor)
    }

    @Test("the checker reports a missing file, a missing anchor, and a repeated heading's second anchor")
    func checkerFindsProblems() throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "markdown-links-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appending(path: "docs"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "# Top\n## Part\n## Part\n[ok](docs/b.md#b) [two](#part-1) [gone](docs/c.md) [bad](docs/b.md#nope)\n`[code](x.md)`\n"
            .write(to: folder.appending(path: "a.md"), atomically: true, encoding: .utf8)
        try "# B\n```\n# not a heading\n[fenced](missing.md)\n```\n[up](../a.md#top) [web](https://example.com/x.md)\n"
            .write(to: folder.appending(path: "docs/b.md"), atomically: true, encoding: .utf8)
        let problems = try MarkdownLinkChecker(root: folder).problems(in: ["a.md", "docs/b.md"])
        #expect(problems == ["a.md: docs/c.md leads nowhere", "a.md: docs/b.md#nope names no heading of docs/b.md"])
    }
}

import HTTPTypes
import Hummingbird
import Synchronization

/// The registered route patterns and their methods, filled once the router is built.
final class RouteTable: Sendable {
    private struct Entry: Sendable {
        let segments: [Substring]
        let method: HTTPRequest.Method
    }

    private let entries = Mutex<[Entry]>([])

    /// Records the routes of a built router.
    func install(_ routes: [(path: String, method: HTTPRequest.Method)]) {
        entries.withLock { entries in
            entries = routes.map { Entry(segments: $0.path.split(separator: "/"), method: $0.method) }
        }
    }

    /// The methods registered for paths matching `path`, empty when no route pattern matches it.
    func allowedMethods(forPath path: String) -> [HTTPRequest.Method] {
        let segments = path.split(separator: "/")
        return entries.withLock { entries in
            entries.filter { entry in
                entry.segments.count == segments.count
                    && zip(entry.segments, segments).allSatisfy { pattern, segment in
                        pattern == segment || pattern.hasPrefix("{") || pattern.hasPrefix(":") || pattern == "*"
                    }
            }.map(\.method)
        }
    }
}

import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// Why an object-store request failed. Every case is an outage for the server's clients (a 503), logged with its reason.
public enum ObjectStoreError: Error, Equatable, CustomStringConvertible {
    /// The store could not be reached or did not answer in time.
    case unreachable(String)
    /// The store answered with an unexpected status (its error code from the XML body, when it sent one).
    case failed(status: Int, code: String)

    public var description: String {
        switch self {
        case .unreachable(let reason): "unreachable: \(reason)"
        case .failed(let status, let code): "HTTP \(status) \(code)"
        }
    }
}

/// An object read from the store.
public struct S3Object: Sendable, Equatable {
    /// Its bytes (those of the range asked for).
    public let data: Data
    /// Its entity tag, quotes included.
    public let etag: String?
}

/// The answer to a conditional GET.
public enum S3GetResult: Sendable, Equatable {
    /// The object (or the part of it asked for).
    case found(S3Object)
    /// `If-None-Match` named its entity tag.
    case notModified
    /// No such key.
    case notFound
}

/// A small S3 REST client: PUT, GET (with `Range` and `If-None-Match`), HEAD, DELETE and list, signed with
/// ``SigV4Signer``, in path-style or virtual-hosted addressing. Every request, its answer's body included, is cancelled
/// when it takes longer than the settings' timeout; TLS is verified with the system's roots (AsyncHTTPClient's default).
public struct S3Client: Sendable {
    /// The bucket and how to reach it.
    public let settings: S3Settings
    private let client: HTTPClient
    private let signer: SigV4Signer
    /// The base URL's parts.
    private let scheme: String, host: String

    /// The largest object read, in bytes: larger answers are refused rather than held.
    static let maximumObjectBytes = 256 << 20

    /// A client for `settings` over `client`.
    public init(settings: S3Settings, client: HTTPClient = .shared) {
        self.settings = settings
        self.client = client
        signer = SigV4Signer(credentials: settings.credentials, region: settings.region, service: "s3")
        let components = URLComponents(string: settings.resolvedEndpoint)
        scheme = components?.scheme ?? "https"
        let authority = (components?.host ?? "") + (components?.port.map { ":\($0)" } ?? "")
        host = settings.pathStyle ? authority : "\(settings.bucket).\(authority)"
    }

    /// Stores `data` under `key`.
    public func put(key: String, data: Data, contentType: String) async throws {
        let (status, _, body) = try await send("PUT", key: key, headers: [("Content-Type", contentType)], body: data)
        guard status == 200 else { throw Self.failure(status, body) }
    }

    /// The object under `key`: all of it, or the bytes in `range`; ``S3GetResult/notModified`` when `ifNoneMatch` names
    /// its entity tag.
    public func get(key: String, range: ClosedRange<Int>? = nil, ifNoneMatch: String? = nil) async throws -> S3GetResult {
        var headers: [(String, String)] = []
        if let range { headers.append(("Range", "bytes=\(range.lowerBound)-\(range.upperBound)")) }
        if let ifNoneMatch { headers.append(("If-None-Match", ifNoneMatch)) }
        let (status, responseHeaders, body) = try await send("GET", key: key, headers: headers)
        switch status {
        case 200, 206: return .found(S3Object(data: body, etag: responseHeaders.first(name: "ETag")))
        case 304: return .notModified
        case 404: return .notFound
        default: throw Self.failure(status, body)
        }
    }

    /// The size of the object under `key`, nil when there is none.
    public func head(key: String) async throws -> Int? {
        let (status, headers, _) = try await send("HEAD", key: key)
        switch status {
        case 200: return headers.first(name: "Content-Length").flatMap { Int($0) } ?? 0
        case 404: return nil
        default: throw ObjectStoreError.failed(status: status, code: "")
        }
    }

    /// Deletes the object under `key`; deleting a missing key succeeds (S3 answers 204 either way).
    public func delete(key: String) async throws {
        let (status, _, body) = try await send("DELETE", key: key)
        guard status == 204 || status == 200 || status == 404 else { throw Self.failure(status, body) }
    }

    /// The keys under `prefix` (at most 1000, from `after` on), with whether more follow (`ListObjectsV2`).
    public func list(prefix: String, after: String? = nil) async throws -> (keys: [String], truncated: Bool) {
        var query = [("list-type", "2"), ("prefix", prefix)]
        if let after { query.append(("start-after", after)) }
        let (status, _, body) = try await send("GET", key: "", query: query)
        guard status == 200 else { throw Self.failure(status, body) }
        let text = String(decoding: body, as: UTF8.self)
        return (Self.elements("Key", in: text), Self.elements("IsTruncated", in: text).first == "true")
    }

    /// A URL that lets anyone GET `key` for `expires` seconds from `date`, without credentials.
    public func presignedURL(key: String, expires: Int, date: Date = Date()) -> String {
        let path = objectPath(key)
        return "\(scheme)://\(host)\(SigV4Signer.encodedPath(path))?"
            + signer.presignedQuery(method: "GET", host: host, path: path, expires: expires, date: date)
    }

    /// The request path of `key` (the bucket first in path-style addressing).
    private func objectPath(_ key: String) -> String {
        (settings.pathStyle ? "/\(settings.bucket)/" : "/") + key
    }

    /// Sends one signed request and reads its whole answer within the timeout.
    private func send(
        _ method: String, key: String, query: [(String, String)] = [], headers: [(String, String)] = [], body: Data? = nil
    ) async throws -> (status: Int, headers: HTTPHeaders, body: Data) {
        let path = objectPath(key)
        let payloadHash = SigV4Signer.hexSHA256(body ?? Data())
        var signed = headers + [("Host", host), ("x-amz-content-sha256", payloadHash)]
        signed += signer.authorizationHeaders(
            method: method, path: path, query: query, headers: signed, payloadHash: payloadHash, date: Date())
        let queryString = query.isEmpty ? "" : "?" + SigV4Signer.canonicalQuery(query)
        var request = HTTPClientRequest(url: "\(scheme)://\(host)\(SigV4Signer.encodedPath(path))\(queryString)")
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in signed { request.headers.add(name: name, value: value) }
        if let body {
            request.body = .bytes(ByteBuffer(data: body))
        }
        let (client, timeout, prepared) = (self.client, settings.timeout, request)
        do {
            return try await Self.within(timeout) {
                let response = try await client.execute(prepared, timeout: TimeAmount(timeout))
                let bytes = try await response.body.collect(upTo: Self.maximumObjectBytes)
                return (Int(response.status.code), response.headers, Data(buffer: bytes))
            }
        } catch let error as ObjectStoreError {
            throw error
        } catch {
            throw ObjectStoreError.unreachable(String(describing: error))
        }
    }

    /// The value of `operation`, which is cancelled (and this throws) when it takes longer than `timeout`.
    private static func within<Value: Sendable>(
        _ timeout: Duration, _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let value = try await group.next(), let value else { throw ObjectStoreError.unreachable("no answer within \(timeout)") }
            return value
        }
    }

    /// The error for an unexpected status, with S3's error code from the XML body.
    private static func failure(_ status: Int, _ body: Data) -> ObjectStoreError {
        .failed(status: status, code: elements("Code", in: String(decoding: body, as: UTF8.self)).first ?? "")
    }

    /// The texts of the elements named `name` in a small XML answer (S3's keys hold no markup: they are escaped).
    static func elements(_ name: String, in xml: String) -> [String] {
        xml.components(separatedBy: "<\(name)>").dropFirst().compactMap { part in
            part.range(of: "</\(name)>").map { String(part[..<$0.lowerBound]) }
        }
    }
}

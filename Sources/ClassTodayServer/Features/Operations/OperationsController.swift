import Foundation
import HTTPTypes
import Hummingbird
import Prometheus

/// `/health`, `/metrics` and the OpenAPI document.
struct OperationsController {
    let storage: Storage
    let registry: PrometheusCollectorRegistry
    /// Whether image variants can be made (libvips is loaded), reported by `/health`.
    let imageVariantsAvailable: Bool

    /// Adds the operational routes at the top level.
    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("health", use: health)
        router.get("metrics", use: metrics)
        router.get("openapi.json", use: openAPIJSON)
        router.get("openapi.yaml", use: openAPIYAML)
    }

    @Sendable func health(_ request: Request, context: AppRequestContext) async throws -> Response {
        let healthy = await storage.isHealthy()
        let variants = imageVariantsAvailable ? "available" : "unavailable"
        let body = healthy
            ? #"{"status":"ok","imageVariants":"\#(variants)"}"#
            : #"{"status":"unavailable","database":"unreachable","imageVariants":"\#(variants)"}"#
        return Response(status: healthy ? .ok : .serviceUnavailable, headers: [.contentType: "application/json"],
                        body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    @Sendable func metrics(_ request: Request, context: AppRequestContext) async throws -> Response {
        Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                 body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
    }

    @Sendable func openAPIJSON(_ request: Request, context: AppRequestContext) async throws -> Response {
        try Self.document(contentType: "application/json")
    }

    /// JSON is a subset of YAML 1.2, so the same document serves both.
    @Sendable func openAPIYAML(_ request: Request, context: AppRequestContext) async throws -> Response {
        try Self.document(contentType: "application/yaml")
    }

    private static func document(contentType: String) throws -> Response {
        Response(status: .ok, headers: [.contentType: contentType, .cacheControl: "no-cache"],
                 body: .init(byteBuffer: ByteBuffer(bytes: try OpenAPIDocument.bytes())))
    }
}

/// The OpenAPI 3.1 document of the API, kept in the repository as `Resources/openapi.json`.
public enum OpenAPIDocument {
    /// The document's bytes.
    public static func bytes() throws -> Data {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "json") else {
            throw CocoaError(.fileNoSuchFile)
        }
        return try Data(contentsOf: url)
    }
}

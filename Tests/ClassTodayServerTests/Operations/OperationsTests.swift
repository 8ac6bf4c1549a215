import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing
@testable import ClassTodayServer

@Suite("Operations")
struct OperationsTests {
    @Test("GET /health checks the database")
    func health() async throws {
        try await TestServer.withRouter { client in
            let response = try await client.send(.get, "/health")
            #expect(response.status == .ok)
            #expect(try response.jsonObject()["status"] as? String == "ok")
        }
    }

    @Test("GET /metrics counts requests by route and status and records latency")
    func metrics() async throws {
        try await TestServer.withRouter { client in
            _ = try await client.send(.get, "/v1/users/nobody")
            _ = try await client.send(.get, "/v1/users/nobody")
            let response = try await client.send(.get, "/metrics")
            #expect(response.status == .ok)
            let text = String(buffer: response.body)
            #expect(text.contains(#"http_requests_total{method="GET",route="/v1/users/{id}",status="404"} 2"#))
            #expect(text.contains("http_request_duration_seconds_bucket"))
            #expect(text.contains("# HELP http_requests_total ") && text.contains("# HELP http_request_duration_seconds "))
        }
    }

    @Test("the OpenAPI document describes every route that exists, and nothing else")
    func openAPICoversRoutes() async throws {
        let configuration = try TestServer.configuration()
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let environment = try await ServerEnvironment.open(configuration, logger: Logger(label: "test"))
        let hub = ChatHub(bus: InProcessChatBus(), chats: environment.chats, bannedWords: environment.bannedWords,
                          logger: Logger(label: "test"))
        let fanOut = AlertFanOut(alerts: environment.alerts, hub: hub, logger: Logger(label: "test"))
        let router = buildRouter(environment, hub: hub, fanOut: fanOut, logger: Logger(label: "test"))
        let document = try #require(try JSONSerialization.jsonObject(with: OpenAPIDocument.bytes()) as? [String: Any])
        #expect(document["openapi"] as? String == "3.1.0")
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let documented = Set(paths.flatMap { path, operations in
            operations.keys.filter { $0 != "parameters" }.map { "\($0.uppercased()) \(path)" }
        })
        let registered = Set(router.routes.filter { $0.method != .head }.map { "\($0.method.rawValue) \($0.path.description)" })
        #expect(registered.subtracting(documented).sorted() == [], "routes missing from openapi.json")
        #expect(documented.subtracting(registered).sorted() == [], "openapi.json documents routes that do not exist")
        for (path, operations) in paths {
            for (method, operation) in operations where method != "parameters" {
                let responses = (operation as? [String: Any])?["responses"] as? [String: Any]
                #expect(responses?.isEmpty == false, "\(method) \(path) has no responses")
            }
        }
    }

    @Test("the OpenAPI document is served as JSON and YAML")
    func openAPIServed() async throws {
        try await TestServer.withRouter { client in
            let json = try await client.send(.get, "/openapi.json")
            #expect(json.status == .ok)
            #expect(try json.jsonObject()["openapi"] as? String == "3.1.0")
            let yaml = try await client.send(.get, "/openapi.yaml")
            #expect(yaml.status == .ok)
            #expect(yaml.headers[.contentType] == "application/yaml")
        }
    }

    @Test("every operation has an operationId and lists the statuses every route of its kind can answer")
    func openAPIStatuses() throws {
        let document = try #require(try JSONSerialization.jsonObject(with: OpenAPIDocument.bytes()) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var operationIds: [String] = []
        var linkTargets: [String] = []
        for (path, operations) in paths {
            for (method, value) in operations where method != "parameters" {
                let name = "\(method.uppercased()) \(path)"
                let operation = try #require(value as? [String: Any])
                operationIds.append(try #require(operation["operationId"] as? String, "\(name) has no operationId"))
                let responses = try #require(operation["responses"] as? [String: [String: Any]])
                let statuses = Set(responses.keys)
                if path.hasPrefix("/v1/") {
                    #expect(statuses.isSuperset(of: ["413", "429"]), "\(name) lacks 413 or 429")
                }
                if operation["security"] as? [[String: [String]]] == [["bearer": []]] {
                    #expect(statuses.contains("401"), "\(name) needs a token but lacks 401")
                }
                let body = (operation["requestBody"] as? [String: Any])?["content"] as? [String: Any]
                if body?["application/json"] != nil {
                    #expect(statuses.isSuperset(of: ["400", "415"]), "\(name) reads JSON but lacks 400 or 415")
                }
                for response in responses.values {
                    let links = response["links"] as? [String: [String: Any]] ?? [:]
                    linkTargets += links.values.compactMap { $0["operationId"] as? String }
                }
            }
        }
        #expect(Set(operationIds).count == operationIds.count, "operationIds repeat")
        #expect(Set(linkTargets).subtracting(operationIds).sorted() == [], "links name operations that do not exist")
    }

    /// swift-openapi-generator has no null schema: a `{"type": "null"}` schema, alone or as an `anyOf`/`oneOf`
    /// alternative, is skipped with a warning and its property disappears from the app's Swift client. A nullable
    /// value is written `"type": [T, "null"]` (an enum also lists `null`), an always-null one `"enum": [null]`.
    @Test("no schema in the OpenAPI document is a null type alone, which the app's Swift client generator skips")
    func openAPIHasNoNullSchemas() throws {
        let nullSchemas = try Self.documentObjects().filter { _, object in
            object["type"] as? String == "null" || (object["type"] as? [String]) == ["null"]
        }
        #expect(nullSchemas.map { $0.path }.sorted() == [], "null schemas: write a nullable type instead")
    }

    /// The generator reads either `properties` or `oneOf`/`anyOf` at one level of a schema, not both: properties
    /// beside alternatives go in an `allOf` with them.
    @Test("no schema in the OpenAPI document has properties beside oneOf or anyOf alternatives")
    func openAPIHasNoPropertiesBesideAlternatives() throws {
        let mixed = try Self.documentObjects().filter { _, object in
            object["properties"] != nil && (object["oneOf"] != nil || object["anyOf"] != nil)
        }
        #expect(mixed.map { $0.path }.sorted() == [], "move the properties into an allOf with the alternatives")
    }

    /// Every JSON object in the OpenAPI document, with its JSON pointer.
    private static func documentObjects() throws -> [(path: String, object: [String: Any])] {
        var objects: [(path: String, object: [String: Any])] = []
        func visit(_ value: Any, at path: String) {
            if let object = value as? [String: Any] {
                objects.append((path, object))
                for (key, child) in object { visit(child, at: "\(path)/\(key)") }
            } else if let array = value as? [Any] {
                for (index, child) in array.enumerated() { visit(child, at: "\(path)/\(index)") }
            }
        }
        visit(try JSONSerialization.jsonObject(with: OpenAPIDocument.bytes()), at: "#")
        return objects
    }
}

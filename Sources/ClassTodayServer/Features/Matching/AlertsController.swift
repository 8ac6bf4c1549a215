import ClassTodayCore
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Alerts (saved searches) and notifications.
struct AlertsController {
    let alerts: any AlertRepository

    /// Adds the alert and notification routes to the `/v1` group.
    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("alerts", use: create)
        group.get("alerts", use: list)
        group.delete("alerts/{id}", use: delete)
        group.get("me/notifications", use: notifications)
        group.post("me/notifications/read", use: markRead)
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<AlertResponse> {
        let caller = try context.requireCaller()
        let body = try await request.decode(as: AlertRequest.self, context: context)
        var validator = FieldValidator()
        let type: ClassType? = EnumField.value(body.type, "type", &validator)
        let subjects: [Subject]? = EnumField.list(body.subjects, "subjects", &validator)
        let targets: [Target]? = EnumField.list(body.targets, "targets", &validator)
        let days: [Weekday]? = EnumField.list(body.days, "days", &validator)
        Alert.check(lat: body.lat, lon: body.lon, radius: body.radius, query: body.q, maxPrice: body.maxPrice,
                    subjects: subjects, targets: targets, days: days, into: &validator)
        try validator.throwIfInvalid()
        guard let lat = body.lat, let lon = body.lon, let radius = body.radius else { throw DomainError.badRequest("lat, lon and radius are required") }
        let alert = Alert(id: Identifier.make(), userId: caller.userId, center: GeoPoint(lat: lat, lon: lon), radius: radius, query: body.q,
                          type: type, subjects: subjects, targets: targets, days: days, maxPrice: body.maxPrice, createdAt: Date())
        try await alerts.create(alert)
        return EditedResponse(status: .created, response: AlertResponse(alert: alert))
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> PageResponse<AlertResponse> {
        let caller = try context.requireCaller()
        let page = try await alerts.alerts(of: caller.userId, page: PageRequest(query: request.uri, ordering: "alerts"))
        return PageResponse(items: page.items.map(AlertResponse.init(alert:)), nextCursor: page.nextCursor, requestURI: request.uri)
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        try await alerts.delete(id: try context.parameters.require("id"), by: caller.userId)
        return Response(status: .noContent)
    }

    @Sendable func notifications(_ request: Request, context: AppRequestContext) async throws -> PageResponse<NotificationResponse> {
        let caller = try context.requireCaller()
        let page = try await alerts.notifications(of: caller.userId, page: PageRequest(query: request.uri, ordering: "notifications"))
        return PageResponse(items: page.items.map(NotificationResponse.init(notification:)), nextCursor: page.nextCursor, requestURI: request.uri)
    }

    @Sendable func markRead(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        let body = try await request.decode(as: MarkReadRequest.self, context: context)
        guard let ids = body.ids else { throw DomainError.invalid("ids", "is required") }
        guard ids.count <= 500 else { throw DomainError.invalid("ids", "must have at most 500 ids") }
        try await alerts.markRead(ids: ids, userId: caller.userId)
        return Response(status: .noContent)
    }
}

/// The body of `POST /v1/alerts`.
struct AlertRequest: Decodable {
    let lat: Double?
    let lon: Double?
    let radius: Double?
    let q: String?
    let type: String?
    let subjects: [String]?
    let targets: [String]?
    let days: [String]?
    let maxPrice: Int?
}

/// The body of `POST /v1/me/notifications/read`.
struct MarkReadRequest: Decodable {
    let ids: [String]?
}

/// An alert as the API shows it.
struct AlertResponse: ResponseCodable {
    let id: String
    let lat: Double
    let lon: Double
    let radius: Double
    @Nullable var q: String?
    @Nullable var type: ClassType?
    @Nullable var subjects: [Subject]?
    @Nullable var targets: [Target]?
    @Nullable var days: [Weekday]?
    @Nullable var maxPrice: Int?
    let createdAt: Date

    init(alert: Alert) {
        (id, lat, lon, radius, q) = (alert.id, alert.center.lat, alert.center.lon, alert.radius, alert.query)
        (type, subjects, targets, days) = (alert.type, alert.subjects, alert.targets, alert.days)
        (maxPrice, createdAt) = (alert.maxPrice, alert.createdAt)
    }
}

/// `{id, kind: "alert", alertId, classId, createdAt, read}`.
struct NotificationResponse: ResponseEncodable {
    let id: String
    let kind = "alert"
    let alertId: String
    let classId: String
    let createdAt: Date
    let read: Bool

    init(notification: AlertNotification) {
        id = notification.id
        alertId = notification.alertId
        classId = notification.classId
        createdAt = notification.createdAt
        read = notification.read
    }
}

import ClassTodayCore
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Reports (`POST /v1/reports`, any user) and the operators' routes under `/v1/admin`: the report queue, the actions
/// on classes, messages and users, and the audit log. Admin routes answer 401 without a token and 403 to users who are
/// not operators.
struct ModerationController {
    let moderation: any ModerationRepository
    /// Tells connected members of a removed message's room, and closes a suspended user's connections.
    let hub: ChatHub
    /// The oldest open report's age, refreshed after every change to the queue.
    let queueGauge: ModerationQueueGauge

    /// Adds the report and admin routes to the `/v1` group.
    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("reports", use: file)
        group.get("admin/reports", use: queue)
        group.get("admin/reports/{id}", use: reportCase)
        group.post("admin/reports/{id}/dismiss", use: act(.dismiss))
        group.post("admin/classes/{id}/hide", use: act(.hideClass))
        group.post("admin/classes/{id}/unhide", use: act(.unhideClass))
        group.post("admin/messages/{id}/remove", use: act(.removeMessage))
        group.post("admin/users/{id}/warn", use: act(.warnUser))
        group.post("admin/users/{id}/suspend", use: act(.suspendUser))
        group.post("admin/users/{id}/unsuspend", use: act(.unsuspendUser))
        group.get("admin/audit", use: audit)
    }

    @Sendable func file(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<ReportResponse> {
        let caller = try context.requireCaller()
        let body = try await request.decode(as: ReportRequest.self, context: context)
        var validator = FieldValidator()
        validator.require(body.targetType, "targetType")
        validator.require(body.targetId, "targetId")
        validator.require(body.reason, "reason")
        let targetType: ReportTargetType? = EnumField.value(body.targetType, "targetType", &validator)
        let reason: ReportReason? = EnumField.value(body.reason, "reason", &validator)
        validator.checkLength(body.targetId, "targetId", ReportRules.targetIdLength)
        validator.checkLength(body.detail, "detail", ReportRules.detailLength)
        try validator.throwIfInvalid()
        guard let targetType, let targetId = body.targetId, let reason else { throw DomainError.badRequest("targetType, targetId and reason are required") }
        let report = try await moderation.file(
            NewReport(reporterId: caller.userId, targetType: targetType, targetId: targetId, reason: reason, detail: body.detail), at: Date())
        await queueGauge.refreshLogged(context.logger)
        return EditedResponse(status: .created, response: ReportResponse(report))
    }

    @Sendable func queue(_ request: Request, context: AppRequestContext) async throws -> PageResponse<ReportCaseResponse> {
        _ = try context.requireOperator()
        var validator = FieldValidator()
        let statusText = request.uri.queryParameters.get("status").map { String($0) }
        let status: ReportStatus = EnumField.value(statusText, "status", &validator) ?? .open
        try validator.throwIfInvalid()
        let page = try await moderation.reports(status: status, page: PageRequest(query: request.uri, ordering: "reports-\(status.rawValue)"))
        let now = Date()
        return PageResponse(items: page.items.map { ReportCaseResponse($0, now: now) }, nextCursor: page.nextCursor, requestURI: request.uri)
    }

    @Sendable func reportCase(_ request: Request, context: AppRequestContext) async throws -> ReportCaseResponse {
        _ = try context.requireOperator()
        guard let found = try await moderation.reportCase(id: try context.parameters.require("id")) else { throw DomainError.notFound("report") }
        return ReportCaseResponse(found, now: Date())
    }

    /// The handler of one action on the target named by the path's `id`.
    func act(_ kind: ModerationActionKind) -> @Sendable (Request, AppRequestContext) async throws -> AuditEntryResponse {
        { request, context in
            let caller = try context.requireOperator()
            let body = try await request.decode(as: ModerationActionRequest.self, context: context)
            let now = Date()
            var validator = FieldValidator()
            ModerationRules.check(reason: body.reason, until: body.until, now: now, into: &validator)
            validator.check(kind == .suspendUser || body.until == nil, "until", "only a suspension has an end")
            validator.checkLength(body.reportId, "reportId", ReportRules.targetIdLength)
            try validator.throwIfInvalid()
            guard let reason = body.reason else { throw DomainError.badRequest("reason is required") }
            let outcome = try await moderation.act(
                ModerationAction(kind: kind, targetId: try context.parameters.require("id"), operatorId: caller.userId,
                                 reason: reason.trimmingWhitespace(), reportId: body.reportId, until: body.until),
                at: now)
            context.logger.info("moderation action", metadata: ["action": "\(kind.rawValue)", "target_id": "\(outcome.entry.targetId)"])
            if let removed = outcome.removedMessage { await hub.removed(removed) }
            if kind == .suspendUser { await hub.close(userId: outcome.entry.targetId, reason: "account suspended") }
            await queueGauge.refreshLogged(context.logger)
            return AuditEntryResponse(outcome.entry)
        }
    }

    @Sendable func audit(_ request: Request, context: AppRequestContext) async throws -> PageResponse<AuditEntryResponse> {
        _ = try context.requireOperator()
        let page = try await moderation.audit(page: PageRequest(query: request.uri, ordering: "audit"))
        return PageResponse(items: page.items.map(AuditEntryResponse.init), nextCursor: page.nextCursor, requestURI: request.uri)
    }
}

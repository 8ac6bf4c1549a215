import ClassTodayCore
import Foundation
import Hummingbird

/// The body of `POST /v1/reports`.
struct ReportRequest: Decodable {
    let targetType: String?
    let targetId: String?
    let reason: String?
    let detail: String?
}

/// The body of an admin action: why (required), the report it answers (optional), a suspension's end (optional:
/// without it a suspension is for good).
struct ModerationActionRequest: Decodable {
    let reason: String?
    let reportId: String?
    let until: Date?
}

/// A report as the API shows it.
struct ReportResponse: ResponseEncodable {
    let id: String
    let reporterId: String
    let targetType: ReportTargetType
    let targetId: String
    let targetUserId: String
    let reason: ReportReason
    @Nullable var detail: String?
    let status: ReportStatus
    /// For a message report, the message as it was when reported (`clientId` null).
    @Nullable var evidence: MessageResponse?
    let createdAt: Date
    @Nullable var resolvedAt: Date?
    @Nullable var resolvedBy: String?
    @Nullable var resolution: ModerationActionKind?

    init(_ report: Report) {
        (id, reporterId, targetType, targetId, targetUserId) = (report.id, report.reporterId, report.targetType, report.targetId, report.targetUserId)
        (reason, detail, status, evidence) = (report.reason, report.detail, report.status, report.evidence.map(MessageResponse.init(message:)))
        (createdAt, resolvedAt, resolvedBy, resolution) = (report.createdAt, report.resolvedAt, report.resolvedBy, report.resolution)
    }
}

/// A report in the queue: `{report, ageSeconds, class, targetUser, messages}`: the class even when hidden (class
/// reports), the public profile of the user answerable for the target, and the messages around a reported message.
struct ReportCaseResponse: ResponseEncodable {
    let report: ReportResponse
    /// Seconds since the report was filed.
    let ageSeconds: Int
    @Nullable var `class`: ClassResponse?
    @Nullable var targetUser: PublicProfileResponse?
    let messages: [MessageResponse]

    init(_ found: ReportCase, now: Date) {
        report = ReportResponse(found.report)
        ageSeconds = max(0, Int(now.timeIntervalSince(found.report.createdAt)))
        `class` = found.classView.map(ClassResponse.init(view:))
        targetUser = found.targetUser.map(PublicProfileResponse.init(user:))
        messages = found.messages.map(MessageResponse.init(message:))
    }
}

/// An audit log entry.
struct AuditEntryResponse: ResponseEncodable {
    let id: String
    /// Null when the system acted (automatic hiding, the command line).
    @Nullable var operatorId: String?
    let action: ModerationActionKind
    let targetType: String
    let targetId: String
    let reason: String
    @Nullable var until: Date?
    @Nullable var reportId: String?
    let resolvedReports: Int
    let createdAt: Date

    init(_ entry: AuditEntry) {
        (id, operatorId, action, targetType, targetId) = (entry.id, entry.operatorId, entry.action, entry.targetType, entry.targetId)
        (reason, until, reportId, resolvedReports, createdAt) = (entry.reason, entry.until, entry.reportId, entry.resolvedReports, entry.createdAt)
    }
}

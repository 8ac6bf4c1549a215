import Foundation

/// What a report is about.
public enum ReportTargetType: String, Sendable, Codable, Hashable, CaseIterable {
    /// A class listing.
    case `class`
    /// A user (their profile or conduct).
    case user
    /// One chat message.
    case message
}

/// Why a user reports something: a fixed list.
public enum ReportReason: String, Sendable, Codable, Hashable, CaseIterable {
    /// Advertising, repeated or meaningless posts.
    case spam
    /// An attempt to cheat (fake listing, taking money without teaching).
    case fraud
    /// Sexual, violent or otherwise objectionable content.
    case inappropriate
    /// Insults, threats, stalking.
    case harassment
    /// Asking to pay outside the app.
    case offPlatformPayment
    /// Anything else (the detail says what).
    case other
}

/// Where a report stands: open until an operator acts on its target or dismisses it.
public enum ReportStatus: String, Sendable, Codable, Hashable, CaseIterable {
    /// Waiting in the queue.
    case open
    /// Reviewed; nothing was wrong (or a hidden class or a suspension was lifted).
    case dismissed
    /// An operator acted on its target (hid, removed, warned, suspended).
    case actioned
}

/// A report a user files: what, why, and optionally in their own words.
public struct NewReport: Sendable, Hashable {
    /// Who reports.
    public let reporterId: String
    /// What kind of thing is reported.
    public let targetType: ReportTargetType
    /// Its id.
    public let targetId: String
    /// Why.
    public let reason: ReportReason
    /// The reporter's own words, if any.
    public let detail: String?

    /// Creates a report to file.
    public init(reporterId: String, targetType: ReportTargetType, targetId: String, reason: ReportReason, detail: String?) {
        (self.reporterId, self.targetType, self.targetId) = (reporterId, targetType, targetId)
        (self.reason, self.detail) = (reason, detail)
    }
}

/// A stored report.
public struct Report: Sendable, Hashable {
    /// Opaque identifier.
    public let id: String
    /// Who reported.
    public let reporterId: String
    /// What kind of thing is reported.
    public let targetType: ReportTargetType
    /// Its id.
    public let targetId: String
    /// The user answerable for the target: the class's writer, the user, the message's sender.
    public let targetUserId: String
    /// Why.
    public let reason: ReportReason
    /// The reporter's own words.
    public let detail: String?
    /// Open, dismissed or actioned.
    public var status: ReportStatus
    /// For a message, a copy of it as reported (its text stays here when the message is removed).
    public let evidence: ChatMessage?
    /// When it was filed.
    public let createdAt: Date
    /// When it left the queue.
    public var resolvedAt: Date?
    /// The operator who resolved it (nil while open, or when the system did).
    public var resolvedBy: String?
    /// The action that resolved it.
    public var resolution: ModerationActionKind?

    /// Creates a report value.
    public init(id: String, reporterId: String, targetType: ReportTargetType, targetId: String, targetUserId: String,
                reason: ReportReason, detail: String?, status: ReportStatus = .open, evidence: ChatMessage? = nil,
                createdAt: Date, resolvedAt: Date? = nil, resolvedBy: String? = nil, resolution: ModerationActionKind? = nil) {
        (self.id, self.reporterId, self.targetType, self.targetId, self.targetUserId) = (id, reporterId, targetType, targetId, targetUserId)
        (self.reason, self.detail, self.status, self.evidence, self.createdAt) = (reason, detail, status, evidence, createdAt)
        (self.resolvedAt, self.resolvedBy, self.resolution) = (resolvedAt, resolvedBy, resolution)
    }
}

/// The rules of reporting: who may report what, and how a report leaves the queue.
public enum ReportRules {
    /// Accepted lengths of a report's detail, in characters.
    public static let detailLength = 0...1000
    /// Accepted target id lengths.
    public static let targetIdLength = 1...100
    /// How many distinct users reporting one class hide it pending review.
    public static let autoHideReporters = 3

    /// Throws a validation error on `targetId` when `reporterId` is the one answerable for the target: nobody reports
    /// themselves, their own class or their own message.
    public static func checkReporter(_ reporterId: String, isNot targetUserId: String, _ targetType: ReportTargetType) throws(DomainError) {
        guard reporterId != targetUserId else {
            let what = switch targetType {
            case .class: "your own class"
            case .user: "yourself"
            case .message: "your own message"
            }
            throw .invalid("targetId", "you cannot report \(what)")
        }
    }

    /// Throws a validation error on `targetId` for a message that cannot be reported (the server's own notices).
    public static func checkReportable(_ message: ChatMessage) throws(DomainError) {
        guard message.kind != .system else { throw .invalid("targetId", "system messages cannot be reported") }
    }

    /// The status an open report takes when `action` is taken on its target; nil for actions that resolve no
    /// report (granting or revoking the operator role).
    public static func status(after action: ModerationActionKind) -> ReportStatus? {
        switch action {
        case .dismiss, .unhideClass, .unsuspendUser: .dismissed
        case .hideClass, .removeMessage, .warnUser, .suspendUser: .actioned
        case .grantOperator, .revokeOperator: nil
        }
    }

    /// Throws ``DomainError/conflict(_:)`` unless `status` is open: a report leaves the queue once.
    public static func checkOpen(_ status: ReportStatus) throws(DomainError) {
        guard status == .open else { throw .conflict("the report is already \(status.rawValue)") }
    }
}

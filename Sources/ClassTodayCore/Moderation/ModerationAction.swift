import Foundation

/// What an operator (or the system) does; every one is recorded in the audit log.
public enum ModerationActionKind: String, Sendable, Codable, Hashable, CaseIterable {
    /// Closes a report (and the other open reports on its target) without acting on the target.
    case dismiss
    /// Hides a class from everyone but its writer.
    case hideClass
    /// Shows a hidden class again.
    case unhideClass
    /// Replaces a message's text with a notice; its seq stays.
    case removeMessage
    /// Warns a user; they see the warning on their profile (`GET /v1/me`).
    case warnUser
    /// Suspends a user until a time or for good: their tokens stop working and their listings leave search.
    case suspendUser
    /// Lifts a suspension.
    case unsuspendUser
    /// Grants the operator role (the `classtoday admin grant` command only).
    case grantOperator
    /// Revokes the operator role (the `classtoday admin revoke` command only).
    case revokeOperator

    /// The kind of thing the action applies to: `class`, `message`, `user`, or `report` for a dismissal.
    public var targetType: String {
        switch self {
        case .dismiss: "report"
        case .hideClass, .unhideClass: ReportTargetType.class.rawValue
        case .removeMessage: ReportTargetType.message.rawValue
        case .warnUser, .suspendUser, .unsuspendUser, .grantOperator, .revokeOperator: ReportTargetType.user.rawValue
        }
    }
}

/// One moderation action to take.
public struct ModerationAction: Sendable, Hashable {
    /// What to do.
    public let kind: ModerationActionKind
    /// The id of the class, message, user or (for a dismissal) report.
    public let targetId: String
    /// The operator acting; nil for the system (automatic hiding, the command line).
    public let operatorId: String?
    /// Why, in the operator's words (a warning's reason is shown to the user).
    public let reason: String
    /// A report the action answers: it and the other open reports on its target are resolved too.
    public let reportId: String?
    /// For a suspension, its end; nil for good.
    public let until: Date?

    /// Creates an action.
    public init(kind: ModerationActionKind, targetId: String, operatorId: String?, reason: String, reportId: String? = nil, until: Date? = nil) {
        (self.kind, self.targetId, self.operatorId, self.reason, self.reportId, self.until) = (kind, targetId, operatorId, reason, reportId, until)
    }
}

/// What a moderation action did: its audit entry, and what connected clients must hear of it.
public struct ModerationOutcome: Sendable, Hashable {
    /// The entry recorded in the audit log.
    public let entry: AuditEntry
    /// The message the action removed now (nil for other actions, and for a message removed before).
    public let removedMessage: RemovedMessage?

    /// Creates an outcome.
    public init(entry: AuditEntry, removedMessage: RemovedMessage? = nil) {
        (self.entry, self.removedMessage) = (entry, removedMessage)
    }
}

/// A chat message an operator removed, with the members of its room who must see it change.
public struct RemovedMessage: Sendable, Hashable {
    /// The message's room.
    public let roomId: String
    /// The message.
    public let messageId: String
    /// Its seq in the room, which it keeps.
    public let seq: Int
    /// The two members of the room.
    public let memberIds: [String]

    /// Creates a removal.
    public init(roomId: String, messageId: String, seq: Int, memberIds: [String]) {
        (self.roomId, self.messageId, self.seq, self.memberIds) = (roomId, messageId, seq, memberIds)
    }
}

/// One entry of the audit log.
public struct AuditEntry: Sendable, Hashable {
    /// Opaque identifier.
    public let id: String
    /// The operator; nil when the system acted.
    public let operatorId: String?
    /// What was done.
    public let action: ModerationActionKind
    /// `class`, `message`, `user` or `report`.
    public let targetType: String
    /// The target's id.
    public let targetId: String
    /// Why.
    public let reason: String
    /// A suspension's end; nil for good or for other actions.
    public let until: Date?
    /// The report the action answered, if one was named.
    public let reportId: String?
    /// How many open reports the action resolved.
    public let resolvedReports: Int
    /// When.
    public let createdAt: Date

    /// Creates an entry.
    public init(id: String, operatorId: String?, action: ModerationActionKind, targetType: String, targetId: String, reason: String,
                until: Date?, reportId: String?, resolvedReports: Int, createdAt: Date) {
        (self.id, self.operatorId, self.action, self.targetType, self.targetId) = (id, operatorId, action, targetType, targetId)
        (self.reason, self.until, self.reportId, self.resolvedReports, self.createdAt) = (reason, until, reportId, resolvedReports, createdAt)
    }
}

/// A user's suspension: from when, until when (nil: for good).
public struct Suspension: Sendable, Hashable {
    /// When it began.
    public let since: Date
    /// When it ends; nil for good.
    public let until: Date?

    /// Creates a suspension.
    public init(since: Date, until: Date?) {
        self.since = since
        self.until = until
    }

    /// The suspension stored as `since` and `until`, when there is one in force at `now`.
    public static func active(since: Date?, until: Date?, at now: Date) -> Suspension? {
        guard let since, until.map({ $0 > now }) ?? true else { return nil }
        return Suspension(since: since, until: until)
    }

    /// What a refused request is told: "this account is suspended until …" or "… for good".
    public var message: String {
        guard let until else { return "this account is suspended" }
        return "this account is suspended until \(ISO8601DateFormatter().string(from: until))"
    }
}

/// A warning an operator gave a user, as the user sees it.
public struct UserWarnings: Sendable, Hashable {
    /// How many warnings the user has had.
    public let count: Int
    /// The reason of the latest.
    public let lastReason: String?
    /// When the latest was given.
    public let lastAt: Date?

    /// Creates the summary.
    public init(count: Int, lastReason: String?, lastAt: Date?) {
        (self.count, self.lastReason, self.lastAt) = (count, lastReason, lastAt)
    }

    /// No warnings.
    public static let none = UserWarnings(count: 0, lastReason: nil, lastAt: nil)
}

/// The rules of moderation actions.
public enum ModerationRules {
    /// Accepted lengths of an action's reason, in characters (a reason is required).
    public static let reasonLength = 1...1000
    /// The text a removed message shows instead of its own.
    public static let removedMessageText = "운영 정책에 따라 삭제된 메시지입니다."
    /// The reason the audit log gives for a class hidden automatically.
    public static let autoHideReason = "reported by \(ReportRules.autoHideReporters) different users; hidden pending review"

    /// Checks an action's reason (required, not blank, bounded) and a suspension's end (in the future).
    public static func check(reason: String?, until: Date?, now: Date, into validator: inout FieldValidator) {
        validator.require(reason, "reason")
        validator.checkLength(reason, "reason", reasonLength)
        if let until { validator.check(until > now, "until", "must be in the future") }
    }
}

import Foundation

/// A report in the operators' queue with what they need to judge it.
public struct ReportCase: Sendable, Hashable {
    /// The report.
    public let report: Report
    /// For a class report, the class as it is now (hidden or not); nil once deleted.
    public let classView: ClassView?
    /// The user answerable for the target (the reported user, the class's writer, the message's sender).
    public let targetUser: User?
    /// For a message report, the messages around it in its room, oldest first (as they are now).
    public let messages: [ChatMessage]

    /// Creates a case.
    public init(report: Report, classView: ClassView?, targetUser: User?, messages: [ChatMessage]) {
        (self.report, self.classView, self.targetUser, self.messages) = (report, classView, targetUser, messages)
    }
}

/// Who a bearer token belongs to, and what that user may do now.
public struct SessionOwner: Sendable, Hashable {
    /// The user.
    public let userId: String
    /// Whether the user holds the operator role.
    public let isOperator: Bool
    /// The suspension in force, if any: the token is refused while there is one.
    public let suspension: Suspension?
    /// When the session started (the user signed in).
    public let signedInAt: Date
    /// The sign-in the token belongs to: its refresh-token family, which refreshing keeps (the token's own hash for a
    /// session without one). Signing out ends every token, device and chat connection of it.
    public let sessionId: String
    /// Whether the user's address is verified.
    public let emailVerified: Bool

    /// Creates an owner.
    public init(userId: String, isOperator: Bool = false, suspension: Suspension? = nil, signedInAt: Date, sessionId: String,
                emailVerified: Bool = true) {
        (self.userId, self.isOperator, self.suspension, self.signedInAt) = (userId, isOperator, suspension, signedInAt)
        (self.sessionId, self.emailVerified) = (sessionId, emailVerified)
    }
}

/// Stores reports, moderation actions and their audit log. Implementations are named after their backend.
public protocol ModerationRepository: Sendable {
    /// Files a report. Throws ``DomainError/notFound(_:)`` for a missing target (a message of a room the reporter is
    /// not in counts as missing), a validation error on `targetId` for one's own class, message or self, and
    /// ``DomainError/conflict(_:)`` when the reporter has an open report on the target already. A class reported by
    /// ``ReportRules/autoHideReporters`` distinct users with open reports is hidden in the same transaction, with an
    /// audit entry without an operator.
    func file(_ report: NewReport, at date: Date) async throws -> Report
    /// Reports in `status`, oldest first, each with its content and context.
    func reports(status: ReportStatus, page: PageRequest) async throws -> Page<ReportCase>
    /// One report with its content and context.
    func reportCase(id: String) async throws -> ReportCase?
    /// Takes `action` and records it in the audit log, resolving the open reports on its target (and on the target
    /// of its report, when it names one) in one transaction. Throws ``DomainError/notFound(_:)`` for a missing
    /// target or report, and ``DomainError/conflict(_:)`` when dismissing a report that is not open.
    func act(_ action: ModerationAction, at date: Date) async throws -> ModerationOutcome
    /// The audit log, newest first.
    func audit(page: PageRequest) async throws -> Page<AuditEntry>
    /// When the oldest open report was filed; nil when none is open.
    func oldestOpenReport() async throws -> Date?
    /// Grants (`true`) or revokes the operator role of the user with `email` (compared case-insensitively), with an
    /// audit entry; returns the user's id. Throws ``DomainError/notFound(_:)`` when no user has the email.
    func setOperator(email: String, _ isOperator: Bool, at date: Date) async throws -> String
}

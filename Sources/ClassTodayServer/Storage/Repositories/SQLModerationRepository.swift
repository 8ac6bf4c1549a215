import ClassTodayCore
import Foundation

/// Reports, moderation actions and the audit log, on either backend. Filing a report and every action are one
/// transaction each, with the reports they resolve and their audit entry.
///
/// On PostgreSQL, reports of one class lock the class row first, so that of several nodes filing the third report at
/// once exactly one counts three reporters and hides the class.
public struct SQLModerationRepository: ModerationRepository {
    private let database: any SQLDatabase

    /// Creates the repository over a database.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    public func file(_ report: NewReport, at date: Date) async throws -> Report {
        do {
            return try await database.transaction { db in
                let (targetUserId, evidence) = try await Self.target(of: report, db)
                try ReportRules.checkReporter(report.reporterId, isNot: targetUserId, report.targetType)
                guard try await db.row("""
                    SELECT 1 AS found FROM reports WHERE reporter_id = \(report.reporterId) AND target_type = \(report.targetType.rawValue)
                        AND target_id = \(report.targetId) AND status = 'open'
                    """) == nil
                else { throw Self.duplicate }
                let filed = Report(id: Identifier.make(at: date), reporterId: report.reporterId, targetType: report.targetType,
                                   targetId: report.targetId, targetUserId: targetUserId, reason: report.reason, detail: report.detail,
                                   evidence: evidence, createdAt: date)
                try await db.execute("""
                    INSERT INTO reports (id, reporter_id, target_type, target_id, target_user_id, reason, detail, status,
                        evidence_room_id, evidence_seq, evidence_sender_id, evidence_kind, evidence_text, evidence_image_id,
                        evidence_sent_at, created_at)
                    VALUES (\(filed.id), \(filed.reporterId), \(filed.targetType.rawValue), \(filed.targetId), \(targetUserId),
                        \(filed.reason.rawValue), \(filed.detail), 'open', \(evidence?.roomId), \(evidence?.seq), \(evidence?.senderId),
                        \(evidence?.kind.rawValue), \(evidence?.text), \(evidence?.imageId), \(evidence?.sentAt.millisecondsSince1970),
                        \(date.millisecondsSince1970))
                    """)
                if report.targetType == .class {
                    try await Self.hideIfReportedEnough(classId: report.targetId, at: date, db)
                }
                return filed
            }
        } catch is SQLUniqueViolation {
            throw Self.duplicate
        }
    }

    /// The answer to a second open report of one reporter on one target.
    private static let duplicate = DomainError.conflict("you have already reported this; it is waiting for review")

    /// The user answerable for the report's target and, for a message, its evidence; throws ``DomainError/notFound(_:)``
    /// when the target does not exist or the reporter cannot see it. A class's row is locked for the transaction.
    private static func target(of report: NewReport, _ db: any SQLExecutor) async throws -> (String, ChatMessage?) {
        switch report.targetType {
        case .class:
            guard let row = try await db.row("""
                SELECT writer_id FROM classes WHERE id = \(report.targetId) AND deleted_at IS NULL \(raw: db.dialect.lockForNoKeyUpdate)
                """)
            else { throw DomainError.notFound("class") }
            return (try row["writer_id"], nil)
        case .user:
            guard try await db.row("SELECT 1 AS found FROM users WHERE id = \(report.targetId)") != nil else { throw DomainError.notFound("user") }
            return (report.targetId, nil)
        case .message:
            guard let row = try await db.row("""
                SELECT m.*, r.seller_id, r.buyer_id FROM chat_messages m JOIN chat_rooms r ON r.id = m.room_id WHERE m.id = \(report.targetId)
                """),
                [try row["seller_id"], try row["buyer_id"]].contains(report.reporterId)
            else { throw DomainError.notFound("message") }
            let message = try ChatLog.message(row: row)
            try ReportRules.checkReportable(message)
            return (message.senderId, message)
        }
    }

    /// Hides `classId` when enough distinct users have open reports on it and it is not hidden yet, with an audit
    /// entry without an operator.
    private static func hideIfReportedEnough(classId: String, at date: Date, _ db: any SQLExecutor) async throws {
        let reporters: Int = try await db.row("""
            SELECT COUNT(DISTINCT reporter_id) AS reporters FROM reports WHERE target_type = 'class' AND target_id = \(classId) AND status = 'open'
            """)?["reporters"] ?? 0
        guard reporters >= ReportRules.autoHideReporters,
              try await db.execute("UPDATE classes SET hidden_at = \(date.millisecondsSince1970) WHERE id = \(classId) AND hidden_at IS NULL") > 0
        else { return }
        let action = ModerationAction(kind: .hideClass, targetId: classId, operatorId: nil, reason: ModerationRules.autoHideReason)
        try await record(action, resolved: 0, at: date, db)
    }

    public func reports(status: ReportStatus, page: PageRequest) async throws -> Page<ReportCase> {
        try await database.read { db in
            var statement: SQLStatement = "SELECT * FROM reports WHERE status = \(status.rawValue)"
            if let after = page.after, let createdAt = after.values.first?.int, let id = after.values.last?.string {
                statement.append(" AND (created_at > \(createdAt) OR (created_at = \(createdAt) AND id \(raw: db.dialect.byteOrder) > \(id)))")
            }
            statement.append(" ORDER BY created_at, id \(raw: db.dialect.byteOrder) LIMIT \(page.limit + 1)")
            let rows = try await db.rows(statement)
            let reports = try rows.prefix(page.limit).map(Self.report(row:))
            var cases: [ReportCase] = []
            for report in reports {
                cases.append(try await Self.reportCase(report, db))
            }
            let next = rows.count > page.limit ? reports.last.map {
                PageCursor(ordering: "reports-\(status.rawValue)", values: [.int($0.createdAt.millisecondsSince1970), .string($0.id)]).encoded
            } : nil
            return Page(items: cases, nextCursor: next)
        }
    }

    public func reportCase(id: String) async throws -> ReportCase? {
        try await database.read { db in
            guard let row = try await db.row("SELECT * FROM reports WHERE id = \(id)") else { return nil }
            return try await Self.reportCase(try Self.report(row: row), db)
        }
    }

    /// How many messages before and after a reported one its case shows.
    static let contextMessages = 3

    /// `report` with its content (the class even if hidden, the answerable user) and, for a message, the messages
    /// around it.
    private static func reportCase(_ report: Report, _ db: any SQLExecutor) async throws -> ReportCase {
        var classView: ClassView?
        if report.targetType == .class {
            classView = try await db.row(ClassViewQuery.select(viewerId: nil, db.dialect, where: "c.id = \(report.targetId)", moderated: false))
                .map(ClassView.init(row:))
        }
        let targetUser = try await db.row("SELECT * FROM users WHERE id = \(report.targetUserId)").map(User.init(row:))
        var messages: [ChatMessage] = []
        if let evidence = report.evidence {
            messages = try await db.rows("""
                SELECT * FROM chat_messages WHERE room_id = \(evidence.roomId)
                    AND seq BETWEEN \(evidence.seq - contextMessages) AND \(evidence.seq + contextMessages) ORDER BY seq
                """).map { try ChatLog.message(row: $0) }
        }
        return ReportCase(report: report, classView: classView, targetUser: targetUser, messages: messages)
    }

    public func act(_ action: ModerationAction, at date: Date) async throws -> ModerationOutcome {
        try await database.transaction { db in
            let now = date.millisecondsSince1970
            var targets = [(type: action.kind.targetType, id: action.targetId)]
            var removedMessage: RemovedMessage?
            let changed: Int
            switch action.kind {
            case .dismiss:
                guard let row = try await db.row("SELECT status, target_type, target_id FROM reports WHERE id = \(action.targetId) \(raw: db.dialect.lockForUpdate)") else {
                    throw DomainError.notFound("report")
                }
                try ReportRules.checkOpen(ReportStatus(rawValue: try row["status"]) ?? .open)
                targets = [(type: try row["target_type"], id: try row["target_id"])]
                changed = 1
            case .hideClass, .unhideClass:
                let hiddenAt: Int64? = action.kind == .hideClass ? now : nil
                changed = try await db.execute("""
                    UPDATE classes SET hidden_at = \(hiddenAt) WHERE id = \(action.targetId) AND deleted_at IS NULL
                        AND hidden_at IS \(raw: hiddenAt == nil ? "NOT NULL" : "NULL")
                    """)
                if changed == 0 {
                    try Self.require(try await db.row("SELECT 1 AS found FROM classes WHERE id = \(action.targetId) AND deleted_at IS NULL") != nil, "class")
                }
            case .removeMessage:
                let removed = try await db.rows("""
                    UPDATE chat_messages SET text = \(ModerationRules.removedMessageText), image_id = NULL, removed_at = \(now)
                    WHERE id = \(action.targetId) AND removed_at IS NULL
                    RETURNING room_id, seq
                    """)
                changed = removed.count
                if let row = removed.first, let room = try await db.row("SELECT seller_id, buyer_id FROM chat_rooms WHERE id = \(try row["room_id"] as String)") {
                    removedMessage = RemovedMessage(roomId: try row["room_id"], messageId: action.targetId, seq: try row["seq"],
                                                    memberIds: [try room["seller_id"], try room["buyer_id"]])
                }
                if changed == 0 {
                    try Self.require(try await db.row("SELECT 1 AS found FROM chat_messages WHERE id = \(action.targetId)") != nil, "message")
                }
            case .warnUser:
                changed = try await db.execute("""
                    UPDATE users SET warning_count = warning_count + 1, last_warning_reason = \(action.reason), last_warned_at = \(now)
                    WHERE id = \(action.targetId)
                    """)
                try Self.require(changed > 0, "user")
            case .suspendUser, .unsuspendUser:
                let suspended = action.kind == .suspendUser
                changed = try await db.execute("""
                    UPDATE users SET suspended_at = \(suspended ? now : nil), suspended_until = \(suspended ? action.until?.millisecondsSince1970 : nil)
                    WHERE id = \(action.targetId)
                    """)
                try Self.require(changed > 0, "user")
            case .grantOperator, .revokeOperator:
                let literal = action.kind == .grantOperator ? db.dialect.trueLiteral : db.dialect.falseLiteral
                changed = try await db.execute("UPDATE users SET is_operator = \(raw: literal) WHERE id = \(action.targetId)")
                try Self.require(changed > 0, "user")
            }
            if let reportId = action.reportId {
                guard let row = try await db.row("SELECT target_type, target_id FROM reports WHERE id = \(reportId)") else {
                    throw DomainError.notFound("report")
                }
                targets.append((type: try row["target_type"], id: try row["target_id"]))
            }
            var resolved = 0
            if let status = ReportRules.status(after: action.kind) {
                for target in targets {
                    resolved += try await db.execute("""
                        UPDATE reports SET status = \(status.rawValue), resolved_at = \(now), resolved_by = \(action.operatorId),
                            resolution = \(action.kind.rawValue)
                        WHERE target_type = \(target.type) AND target_id = \(target.id) AND status = 'open'
                        """)
                }
            }
            return ModerationOutcome(entry: try await Self.record(action, resolved: resolved, at: date, db), removedMessage: removedMessage)
        }
    }

    /// Throws ``DomainError/notFound(_:)`` naming `what` unless `found`.
    private static func require(_ found: Bool, _ what: String) throws {
        guard found else { throw DomainError.notFound(what) }
    }

    /// Writes the audit entry of `action`.
    @discardableResult
    private static func record(_ action: ModerationAction, resolved: Int, at date: Date, _ db: any SQLExecutor) async throws -> AuditEntry {
        let entry = AuditEntry(id: Identifier.make(at: date), operatorId: action.operatorId, action: action.kind,
                               targetType: action.kind.targetType, targetId: action.targetId, reason: action.reason,
                               until: action.until, reportId: action.reportId, resolvedReports: resolved, createdAt: date)
        try await db.execute("""
            INSERT INTO moderation_audit (id, operator_id, action, target_type, target_id, reason, until, report_id, resolved_reports, created_at)
            VALUES (\(entry.id), \(entry.operatorId), \(entry.action.rawValue), \(entry.targetType), \(entry.targetId), \(entry.reason),
                \(entry.until?.millisecondsSince1970), \(entry.reportId), \(entry.resolvedReports), \(date.millisecondsSince1970))
            """)
        return entry
    }

    public func audit(page: PageRequest) async throws -> Page<AuditEntry> {
        try await SQLPage.newestFirst(database, from: "SELECT * FROM moderation_audit", page: page, ordering: "audit") { row in
            AuditEntry(id: try row["id"], operatorId: try row["operator_id"],
                       action: ModerationActionKind(rawValue: try row["action"]) ?? .dismiss, targetType: try row["target_type"],
                       targetId: try row["target_id"], reason: try row["reason"], until: try row.optionalDate("until"),
                       reportId: try row["report_id"], resolvedReports: try row["resolved_reports"], createdAt: try row.date("created_at"))
        }
    }

    public func oldestOpenReport() async throws -> Date? {
        try await database.row("SELECT MIN(created_at) AS oldest FROM reports WHERE status = 'open'")?.optionalDate("oldest")
    }

    public func setOperator(email: String, _ isOperator: Bool, at date: Date) async throws -> String {
        guard let row = try await database.row("SELECT id FROM users WHERE email_normalized = \(UserRules.normalizedEmail(email))") else {
            throw DomainError.notFound("user")
        }
        let userId: String = try row["id"]
        let action = ModerationAction(kind: isOperator ? .grantOperator : .revokeOperator, targetId: userId, operatorId: nil,
                                      reason: "classtoday admin \(isOperator ? "grant" : "revoke") \(email)")
        _ = try await act(action, at: date)
        return userId
    }

    /// Decodes a `reports` row.
    private static func report(row: SQLRow) throws -> Report {
        var evidence: ChatMessage?
        if let roomId: String = try row["evidence_room_id"] {
            evidence = ChatMessage(
                id: try row["target_id"], roomId: roomId, seq: try row["evidence_seq"], senderId: try row["evidence_sender_id"],
                kind: MessageKind(rawValue: try row["evidence_kind"]) ?? .text, text: try row["evidence_text"],
                imageId: try row["evidence_image_id"], clientId: nil, sentAt: try row.date("evidence_sent_at"))
        }
        let resolution: String? = try row["resolution"]
        return Report(
            id: try row["id"], reporterId: try row["reporter_id"], targetType: ReportTargetType(rawValue: try row["target_type"]) ?? .user,
            targetId: try row["target_id"], targetUserId: try row["target_user_id"], reason: ReportReason(rawValue: try row["reason"]) ?? .other,
            detail: try row["detail"], status: ReportStatus(rawValue: try row["status"]) ?? .open, evidence: evidence,
            createdAt: try row.date("created_at"), resolvedAt: try row.optionalDate("resolved_at"), resolvedBy: try row["resolved_by"],
            resolution: resolution.flatMap(ModerationActionKind.init(rawValue:)))
    }
}

/// The condition that keeps moderated listings out of what others see: not hidden, and not written by a user
/// suspended at the time. Searches, lists, views for others and alert fan-out all use it on `classes c`.
enum ClassModeration {
    /// `c` is neither hidden nor written by a user suspended at `date`.
    static func visible(at date: Date) -> SQLStatement {
        "(c.hidden_at IS NULL AND c.writer_id NOT IN (\(suspendedUsers(at: date))))"
    }

    /// The ids (column `id`) of the users suspended at `date`, read on the index of suspensions.
    static func suspendedUsers(at date: Date) -> SQLStatement {
        """
        SELECT su.id FROM users su WHERE su.suspended_at IS NOT NULL \
        AND (su.suspended_until IS NULL OR su.suspended_until > \(date.millisecondsSince1970))
        """
    }
}

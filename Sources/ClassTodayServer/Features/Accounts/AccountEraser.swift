import ClassTodayCore
import Foundation
import Logging

/// Deletes accounts (`DELETE /v1/me`) by the rules of ``AccountDeletion``, and tells the connected clients.
struct AccountEraser {
    let users: any UserRepository
    let matches: any MatchRepository
    let imageRecords: any ImageRecordRepository
    /// The database, whose log files must not keep what the deletion overwrote.
    let database: any SQLDatabase
    let hub: ChatHub
    let fanOut: AlertFanOut

    /// Cancels the user's open matches (each with its system message; an accepted one gives its seat back), deletes
    /// the account in one transaction, collects the images nothing shows any more, closes the user's chat connections
    /// on every node, and purges the database's log of what was deleted (SQLite's WAL checkpointed and truncated).
    func erase(userId: String, logger: Logger) async throws {
        let now = Date()
        var cancelled = 0
        for match in try await matches.openMatches(of: userId) {
            do {
                await MatchesController.publish(try await matches.apply(.cancel, matchId: match.id, by: userId, at: now), hub: hub, fanOut: fanOut)
                cancelled += 1
            } catch DomainError.conflict {
                // The other member declined, cancelled or completed it meanwhile: nothing is left to cancel.
            }
        }
        try await users.delete(id: userId, at: now)
        let collected = try await imageRecords.collectGarbage(uploadedBefore: .distantFuture, by: userId)
        await hub.close(userId: userId, reason: "account deleted")
        do {
            try await database.purgeDeletedData()
        } catch {
            // Deleted all the same: the log is emptied at the next purge or at a clean stop.
            logger.warning("purging the database's log after an account deletion failed", metadata: ["error": "\(String(reflecting: error))"])
        }
        logger.info("account deleted", metadata: [
            "user_id": "\(userId)", "matches_cancelled": "\(cancelled)", "images_collected": "\(collected.records)",
        ])
    }
}

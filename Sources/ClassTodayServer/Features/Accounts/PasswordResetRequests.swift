import ClassTodayCore
import Foundation
import Logging
import ServiceLifecycle

/// Password-reset requests, handled after the request was answered: the route only checks the address's form and the
/// limits and hands the address here, so that its answer (202) takes the same time whether or not an account has the
/// address. Here the account is looked up and, when there is one, its token and mail are written in one transaction.
///
/// A request still waiting when the node stops is handled before it stops (graceful shutdown); one waiting when the
/// process dies is lost, as if it never came, and the user asks again. At most ``capacity`` wait; beyond that a request
/// is dropped with a warning (the per-client and per-address limits make that rare).
final class PasswordResetRequests: Service, Sendable {
    /// The most requests waiting at once.
    static let capacity = 1024

    private let tokens: any AccountTokenRepository
    private let mails: AccountMails
    private let mailQueued: @Sendable () -> Void
    private let logger: Logger
    private let requests: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation

    /// A queue issuing tokens through `tokens` with `mails`' reset mail; `mailQueued` wakes the delivery.
    init(tokens: any AccountTokenRepository, mails: AccountMails, mailQueued: @escaping @Sendable () -> Void, logger: Logger) {
        (self.tokens, self.mails, self.mailQueued, self.logger) = (tokens, mails, mailQueued, logger)
        (requests, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingOldest(Self.capacity))
    }

    /// Queues a reset for `email` (already checked to be an address); never waits.
    func submit(_ email: String) {
        if case .dropped = continuation.yield(email) {
            logger.warning("a password-reset request was dropped: too many are waiting")
        }
    }

    /// Handles requests until graceful shutdown, then the ones still waiting.
    func run() async throws {
        await withGracefulShutdownHandler {
            for await email in requests {
                await handle(email)
            }
        } onGracefulShutdown: { [continuation] in
            continuation.finish()
        }
    }

    /// Issues a token to the account with `email`, if there is one, and queues its mail.
    func handle(_ email: String) async {
        let (token, grant) = AccountRecoveryController.makeToken()
        do {
            if try await tokens.issuePasswordReset(email: email, grant: grant, compose: { [mails] in mails.passwordReset(token: token, to: $0) }) {
                mailQueued()
            }
        } catch {
            logger.error("a password-reset request failed", metadata: ["error": "\(String(reflecting: error))"])
        }
    }
}

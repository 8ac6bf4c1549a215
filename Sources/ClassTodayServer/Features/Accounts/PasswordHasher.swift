import HummingbirdBcrypt

/// Hashes and checks passwords with bcrypt on threads of their own (``WorkerPool/passwords``), off the event loops.
package struct PasswordHasher: Sendable {
    /// The bcrypt cost factor for new hashes.
    let cost: Int
    /// A hash of a random password, checked against when an email is unknown so that both failures take as long.
    private let decoyHash: String

    /// Creates a hasher with the given cost.
    package init(cost: Int) {
        self.cost = cost
        self.decoyHash = Bcrypt.hash(BearerToken.generate(), cost: UInt8(cost))
    }

    /// The bcrypt hash of `password`.
    package func hash(_ password: String) async throws -> String {
        let cost = UInt8(self.cost)
        return try await WorkerPool.passwords.run { Bcrypt.hash(password, cost: cost) }
    }

    /// Whether `password` matches `hash`; with no hash, spends the same time and answers false.
    func verify(_ password: String, against hash: String?) async throws -> Bool {
        let target = hash ?? decoyHash
        let matches = try await WorkerPool.passwords.run { Bcrypt.verify(password, hash: target) }
        return hash != nil && matches
    }
}

import Dispatch
import Foundation
import GRDB
import NIOCore
import NIOPosix
import Synchronization

/// The seam over GRDB's `DatabasePool`: single statements run on a pooled connection (reads on a reader, writes on
/// the writer); ``read(_:)`` and ``transaction(_:)`` lend one connection to async code for the whole body (one
/// snapshot, one transaction), handing its statements over to the thread GRDB runs that connection on.
public struct SQLiteDatabase: SQLDatabase {
    /// The pool.
    let pool: DatabasePool
    /// The listings' points in memory, which reads (``read(_:)``) lend to nearest-first circles.
    let points: ClassPointIndex
    /// The keyword tokens' counts in memory, which leases lend to keyword searches; nil lends none.
    let counts: TokenCounts?

    /// The seam over `pool`, whose listings' points `points` holds and keyword tokens' counts `counts`.
    init(pool: DatabasePool, points: ClassPointIndex, counts: TokenCounts?) {
        self.pool = pool
        self.points = points
        self.counts = counts
    }

    /// SQLite's fragments.
    public var dialect: SQLDialect { .sqlite }

    /// The keyword tokens' counts this database's leases lend.
    public var tokenCounts: TokenCounts? { counts }

    public func rows(_ statement: SQLStatement) async throws -> [SQLRow] {
        try await pool.read { db in try Self.rows(statement, db) }
    }

    @discardableResult
    public func execute(_ statement: SQLStatement) async throws -> Int {
        try await pool.write { db in try Self.execute(statement, db) }
    }

    /// Checkpoints the write-ahead log into the database file and truncates it to nothing (`wal_checkpoint(TRUNCATE)`,
    /// which waits up to the busy timeout for readers of older snapshots): the pages of what was deleted, still whole
    /// in the log, are gone from it, and `secure_delete` has zeroed them in the database file.
    public func purgeDeletedData() async throws {
        try await pool.writeWithoutTransaction(Self.truncateLog)
    }

    /// Checkpoints the whole log into the database file and truncates it, on the writer `db`. A closed connection (the
    /// pool was closed at shutdown, which emptied the log) has nothing to checkpoint: SQLite would be handed no handle.
    static func truncateLog(_ db: Database) throws {
        guard db.sqliteConnection != nil else { return }
        let (logged, checkpointed) = try db.checkpoint(.truncate)
        guard logged <= 0 || logged == checkpointed else { throw SQLiteCheckpointIncomplete(logged: logged, checkpointed: checkpointed) }
    }

    /// Lends a reader to `body`. On an event loop's thread (a request's handler, ``EventLoopExecutor``) the reader
    /// serves the body on that very thread, right after the handler's current job (``Lease/serveHere(from:)``): no
    /// thread hop there and none back, and no memory freed on a thread other than the one that took it. Elsewhere, and
    /// in a read nested in another lease's body, it serves through GRDB's `asyncRead`, whose callback runs on the
    /// reader's thread inside its read transaction. A reader that cannot be had fails the body's statements.
    public func read<Result: Sendable>(_ body: (any SQLExecutor) async throws -> Result) async throws -> Result {
        let lease = Lease(points: points, counts: counts)
        if !Lease.isLent, let eventLoop = MultiThreadedEventLoopGroup.currentEventLoop {
            eventLoop.execute { [pool] in lease.serveHere(from: pool) }
        } else {
            pool.asyncRead { connection in
                guard case .failure(let error) = connection else { return _ = lease.serve(connection) }
                // A closed pool calls back at once, on this very thread, which must not wait for the body it is to start.
                DispatchQueue.global().async { _ = lease.serve(.failure(error)) }
            }
        }
        return try await Lease.$isLent.withValue(true) { try await lease.run(body).get() }
    }

    /// Lends the writer to `body` through GRDB's `async` write, from a child task: unlike a read (``read(_:)``), a
    /// transaction must await its commit's outcome before it returns.
    public func transaction<Result: Sendable>(_ body: (any SQLExecutor) async throws -> Result) async throws -> Result {
        let lease = Lease(points: nil, counts: counts)
        async let committed: Bool = pool.write { db in
            guard lease.serve(.success(db)) else { throw Lease.RollBack() }
            return true
        }
        let result = await lease.run(body)
        do {
            _ = try await committed
        } catch is Lease.RollBack {
            // The body's own error follows.
        }
        return try result.get()
    }

    /// Runs `statement` on `db` and copies its rows out.
    static func rows(_ statement: SQLStatement, _ db: Database) throws -> [SQLRow] {
        try mapErrors {
            let prepared = try prepare(statement, db)
            let columns = SQLColumns(prepared.columnNames)
            let positions = 0..<prepared.columnCount
            var rows: [SQLRow] = []
            let cursor = try Row.fetchCursor(prepared)
            while try cursor.next() != nil {
                // Read from the statement the cursor stands on, by position: a `Row`'s values each went through GRDB's
                // generic decoding (`row[i] as DatabaseValue`), most of the copy's time in a page's rows.
                rows.append(SQLRow(columns: columns, values: positions.map {
                    DatabaseValue(sqliteStatement: prepared.sqliteStatement, index: CInt($0)).sqlValue
                }))
            }
            return rows
        }
    }

    /// Runs `statement` on `db` and returns how many rows it changed.
    static func execute(_ statement: SQLStatement, _ db: Database) throws -> Int {
        try mapErrors {
            try prepare(statement, db).execute()
            return db.changesCount
        }
    }

    private static func prepare(_ statement: SQLStatement, _ db: Database) throws -> Statement {
        let prepared = statement.isCached ? try db.cachedStatement(sql: statement.sql) : try db.makeStatement(sql: statement.sql)
        try prepared.setArguments(StatementArguments(statement.values.map(\.databaseValue)))
        return prepared
    }

    /// One connection lent to async code for a whole body. The connection's GRDB thread waits in ``serve(_:)`` and
    /// runs what is sent to it, in order: the body itself (the lease is the body's task executor, so the body's
    /// code runs on that thread) and its statements, which then run inline, without a thread hop each. Code the
    /// body awaits elsewhere (an actor) comes back through ``enqueue(_:)``.
    private final class Lease: SQLExecutor, TaskExecutor {
        /// Work for the connection's thread, or the end of the body.
        private enum Message: @unchecked Sendable {
            case job(UnownedJob)
            case run(@Sendable (Swift.Result<Database, any Error>) -> Void)
            case end(commit: Bool)
        }

        /// A transaction's body threw: GRDB rolls back.
        struct RollBack: Error {}

        private let inbox = Mutex<[Message]>([])
        private let ready = DispatchSemaphore(value: 0)
        /// The connection (or why there is none) and the thread serving it, while ``serve(_:)`` runs.
        private let serving = Mutex<(thread: pthread_t, connection: UnsafeConnection)?>(nil)

        /// The listings' points, lent to a read.
        let classPoints: ClassPointIndex?
        /// The keyword tokens' counts.
        let tokenCounts: TokenCounts?

        var dialect: SQLDialect { .sqlite }

        /// A lease lending `counts`, and `points` too (a read's).
        init(points: ClassPointIndex?, counts: TokenCounts?) {
            (classPoints, tokenCounts) = (points, counts)
        }

        /// Whether the current task runs a lease's body: a read it starts then never serves on an event loop, which
        /// is waiting for that body.
        @TaskLocal static var isLent = false

        /// Runs `body` with this lease as its executor, then ends the lease (committing when the body returned). The
        /// end is sent from the body's own executor, before the task leaves it: a lease served on an event loop
        /// frees that loop then, and the task's next job can run there.
        func run<Value: Sendable>(_ body: (any SQLExecutor) async throws -> Value) async -> Swift.Result<Value, any Error> {
            await withTaskExecutorPreference(self) {
                let result: Swift.Result<Value, any Error>
                do {
                    result = .success(try await body(self))
                } catch {
                    result = .failure(error)
                }
                send(.end(commit: (try? result.get()) != nil))
                return result
            }
        }

        /// Runs what is sent on `connection` until the body ends (its statements throw the error when there is no
        /// connection); returns whether to commit.
        func serve(_ connection: Swift.Result<Database, any Error>) -> Bool {
            serving.withLock { $0 = (pthread_self(), UnsafeConnection(result: connection)) }
            defer { serving.withLock { $0 = nil } }
            while true {
                ready.wait()
                switch inbox.withLock({ $0.removeFirst() }) {
                case .job(let job): job.runSynchronously(on: asUnownedTaskExecutor())
                case .run(let work): work(connection)
                case .end(let commit): return commit
                }
            }
        }

        /// Serves the body on the calling thread with a reader of `pool` (GRDB's synchronous read runs on the caller),
        /// or with the error that no reader could be had.
        func serveHere(from pool: DatabasePool) {
            var served = false
            do {
                try pool.read { db in
                    served = true
                    _ = serve(.success(db))
                }
            } catch where !served {
                _ = serve(.failure(error))
            } catch {
                // Ending the read transaction failed after the body had its result: nothing was written.
            }
        }

        func enqueue(_ job: consuming ExecutorJob) {
            send(.job(UnownedJob(job)))
        }

        func rows(_ statement: SQLStatement) async throws -> [SQLRow] {
            try await perform { db in try SQLiteDatabase.rows(statement, db) }
        }

        func execute(_ statement: SQLStatement) async throws -> Int {
            try await perform { db in try SQLiteDatabase.execute(statement, db) }
        }

        /// Runs `work` on the connection: inline when called on its thread (the body's code), else sent there.
        private func perform<Value: Sendable>(_ work: @escaping @Sendable (Database) throws -> Value) async throws -> Value {
            let here = serving.withLock { serving in serving.flatMap { pthread_equal($0.thread, pthread_self()) != 0 ? $0.connection : nil } }
            if let here {
                return try work(here.result.get())
            }
            return try await withCheckedThrowingContinuation { continuation in
                send(.run { connection in continuation.resume(with: Swift.Result { try work(connection.get()) }) })
            }
        }

        private func send(_ message: Message) {
            inbox.withLock { $0.append(message) }
            ready.signal()
        }
    }

    /// A connection (or why there is none) handed to the thread that already owns it.
    private struct UnsafeConnection: @unchecked Sendable {
        let result: Swift.Result<Database, any Error>
    }

    /// Runs `work`, reporting unique constraint violations as ``SQLUniqueViolation``.
    private static func mapErrors<Value>(_ work: () throws -> Value) throws -> Value {
        do {
            return try work()
        } catch let error as DatabaseError
            where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE || error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY {
            throw SQLUniqueViolation()
        }
    }
}

extension DatabaseValue {
    /// The value as the seam reads it (blobs, which the schema does not use, as NULL).
    var sqlValue: SQLValue {
        switch storage {
        case .null, .blob: .null
        case .int64(let value): .integer(value)
        case .double(let value): .real(value)
        case .string(let value): .text(value)
        }
    }
}

extension SQLValue {
    /// The value as GRDB binds it.
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let value): value.databaseValue
        case .real(let value): value.databaseValue
        case .text(let value): value.databaseValue
        }
    }
}

/// A checkpoint that could not copy the whole write-ahead log (readers held older snapshots past the busy timeout).
struct SQLiteCheckpointIncomplete: Error, CustomStringConvertible {
    /// Frames in the log.
    let logged: Int
    /// Frames copied into the database file.
    let checkpointed: Int

    var description: String { "the checkpoint copied \(checkpointed) of the log's \(logged) frames" }
}

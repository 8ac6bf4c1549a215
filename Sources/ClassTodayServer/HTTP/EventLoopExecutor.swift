import NIOCore

/// Runs a task's jobs on an event loop: code awaiting what arrives there (a connection's requests, a PostgreSQL
/// connection's results) resumes where it arrives, without a hop to another thread and back.
final class EventLoopExecutor: TaskExecutor {
    /// The event loop the jobs run on.
    let eventLoop: any EventLoop

    /// An executor running jobs on `eventLoop`.
    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

#if canImport(Glibc)
import CMalloc
#endif
import Foundation

/// How the server sets up glibc's allocator, so that image variants made on the worker threads do not leave their
/// peak behind. By default glibc gives each busy thread an arena of its own (up to 8 per core) and keeps what is freed
/// there, and it raises its mmap threshold as large blocks are freed, so that later pixel buffers come from those
/// arenas and stay. Measured with `classtoday-bench images` (peak RSS of the process while two uploads' variants are
/// made; 61 MiB before): 211 MiB with glibc's defaults, 142 MiB with two arenas, 117 MiB with two arenas and a fixed
/// 128 KiB mmap threshold, which the server uses.
///
/// Fixing the mmap threshold also stops glibc from raising its trim threshold, which then stays at 128 KiB: requests
/// gave the free top of their arena back to the kernel and faulted it in again, zeroed, about 380 page faults per
/// circle page over HTTP at a million listings (p50 3.1–3.4 ms). With ``trimThreshold`` the same pages take 2.4 ms
/// with almost no faults; the image benchmark's peak grew by 7 MiB (121 to 128 MiB).
public enum MallocTuning {
    /// Arenas kept (`MALLOC_ARENA_MAX` overrides).
    public static let arenas: Int32 = 2
    /// Blocks at least this large are mapped on their own and returned when freed (`MALLOC_MMAP_THRESHOLD_` overrides).
    public static let mmapThreshold: Int32 = 128 * 1024
    /// Free memory at the top of an arena is given back to the kernel beyond this much (`MALLOC_TRIM_THRESHOLD_`
    /// overrides).
    public static let trimThreshold: Int32 = 4 * 1024 * 1024

    /// Applies ``arenas``, ``mmapThreshold`` and ``trimThreshold`` where the environment does not choose; call it
    /// first thing, before threads start. Does nothing on other C libraries.
    public static func apply() {
        #if canImport(Glibc)
        let environment = ProcessInfo.processInfo.environment
        if environment["MALLOC_ARENA_MAX"] == nil { _ = mallopt(M_ARENA_MAX, arenas) }
        if environment["MALLOC_MMAP_THRESHOLD_"] == nil { _ = mallopt(M_MMAP_THRESHOLD, mmapThreshold) }
        if environment["MALLOC_TRIM_THRESHOLD_"] == nil { _ = mallopt(M_TRIM_THRESHOLD, trimThreshold) }
        #endif
    }
}

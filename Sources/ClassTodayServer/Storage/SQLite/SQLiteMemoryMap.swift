#if canImport(Glibc)
import Glibc
import GRDBSQLite

/// How the pages of SQLite's memory map of a database file come from storage: one page at a time, as `pread` reads
/// them, not a window of the file around each.
///
/// A page missing from the OS page cache is read when a connection first touches it through the map. For a mapped
/// file the kernel reads a window around that page: on the Linux 6.18 VMs here, one such read of a million listings'
/// file brought 6.4 MB from the disk in 7 ms, where a `pread` of the same 4 KB page took 0.05 ms. A search page touches
/// a few hundred pages scattered over the b-trees when none is cached, so a page whose data had been paged out read
/// 170-200 MB in 200 ms (the median of 16 keyword and circle pages). Pages go missing on a machine that reclaims file
/// pages left idle for a minute, as these VMs do.
///
/// `MADV_RANDOM` on the map tells the kernel that reads are scattered, so that it reads only the page touched: the same
/// pages read 1.4-1.6 MB in 21-23 ms. Reads of cached pages are unchanged.
enum SQLiteMemoryMap {
    /// Makes SQLite's Unix file system layer advise `MADV_RANDOM` on every read-only map it makes, which are the maps of
    /// database files (its write-ahead log's index is mapped for writing); true once done.
    ///
    /// SQLite calls `mmap` through a table of system calls that its Unix layer lets a program replace. The table is
    /// not guarded, so the replacement is made once, on first use: in ``SQLiteStore/open(path:durableCommits:busyTimeout:logger:)``,
    /// before the first store opens its connections. A map SQLite grows, with `mremap` or anew, keeps the advice.
    static let readsOnePageAtATime: Bool = {
        guard let fileSystem = sqlite3_vfs_find(nil), let replace = fileSystem.pointee.xSetSystemCall else { return false }
        let advisingMap: @convention(c) (UnsafeMutableRawPointer?, Int, Int32, Int32, Int32, off_t) -> UnsafeMutableRawPointer? = {
            address, length, protection, flags, file, offset in
            let map = mmap(address, length, protection, flags, file, offset)
            if let map, map != MAP_FAILED, file >= 0, protection & PROT_WRITE == 0 {
                // Advice only: a kernel that refuses it reads as before.
                _ = madvise(map, length, MADV_RANDOM)
            }
            return map
        }
        return replace(fileSystem, "mmap", unsafeBitCast(advisingMap, to: sqlite3_syscall_ptr.self)) == SQLITE_OK
    }()
}
#endif

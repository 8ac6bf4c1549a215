import Foundation

/// Stores class listings and favourites. Implementations are named after their backend.
public protocol ClassRepository: Sendable {
    /// Stores a new listing and, in the same transaction, queues it for alert fan-out
    /// (``AlertRepository/fanOut(limit:at:)``); throws a validation error on `imageIds` when an image is missing
    /// or not the writer's. Returns the listing as its writer sees it.
    func create(_ listing: ClassListing) async throws -> ClassView
    /// The listing as `viewerId` sees it; nil when it does not exist or was deleted, or when it is hidden (or its
    /// writer suspended) and the viewer is neither its writer nor, with `includingHidden`, an operator.
    func view(id: String, viewerId: String?, includingHidden: Bool) async throws -> ClassView?
    /// Reads, changes and stores a listing in one transaction; a listing that becomes open again is queued for
    /// alert fan-out in the same transaction. Throws ``DomainError/notFound(_:)`` when missing and
    /// ``DomainError/forbidden(_:)`` when `userId` is not its writer.
    func update(id: String, by userId: String, _ change: @Sendable (inout ClassListing) throws -> Void) async throws -> ClassView
    /// Deletes a listing for `userId` (its writer): it leaves searches and favourites and releases its images,
    /// while what chat rooms and matches need stays readable.
    func delete(id: String, by userId: String) async throws
    /// Saves (`true`) or forgets (`false`) a listing as a favourite of `userId`; idempotent.
    func setFavorite(classId: String, userId: String, _ isFavorite: Bool) async throws
    /// The favourites of `userId`, most recently saved first.
    func favorites(of userId: String, page: PageRequest) async throws -> Page<ClassView>
    /// The listings matching `search`, in its sort order, as `viewerId` sees them; geo searches carry distances.
    func search(_ search: ClassSearch, viewerId: String?, page: PageRequest) async throws -> Page<ClassView>
    /// The listings written by `writerId`, newest first, as `viewerId` sees them.
    func classes(writtenBy writerId: String, viewerId: String?, page: PageRequest) async throws -> Page<ClassView>
    /// Re-indexes, in one transaction, the next `batchSize` listings whose keyword tokens predate
    /// ``SearchTokenizer/indexVersion``, and records the version once none are left. Returns how many it re-indexed:
    /// 0 when the index is up to date.
    func upgradeKeywordIndex(batchSize: Int) async throws -> Int
}

extension ClassRepository {
    /// The listing as `viewerId`, who is not an operator, sees it; nil when it does not exist, was deleted or is
    /// hidden from them.
    public func view(id: String, viewerId: String?) async throws -> ClassView? {
        try await view(id: id, viewerId: viewerId, includingHidden: false)
    }
}

import ClassTodayCore
import Foundation
import HTTPTypes
import Hummingbird

/// Blocking users: `PUT/DELETE /v1/users/{id}/block` and the caller's block list.
struct BlocksController {
    let blocks: any BlockRepository
    let hub: ChatHub

    /// Adds the block routes to the `/v1` group.
    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.put("users/{id}/block", use: block)
        group.delete("users/{id}/block", use: unblock)
        group.get("me/blocks", use: myBlocks)
    }

    /// Blocks the user (idempotent): their pending proposals with the caller are declined, with the usual system
    /// message and notifications.
    @Sendable func block(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        let declined = try await blocks.block(try context.parameters.require("id"), by: caller.userId, at: Date())
        for step in declined { await hub.announce(step) }
        return Response(status: .noContent)
    }

    /// Lifts the caller's block of the user (idempotent).
    @Sendable func unblock(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        try await blocks.unblock(try context.parameters.require("id"), by: caller.userId)
        return Response(status: .noContent)
    }

    @Sendable func myBlocks(_ request: Request, context: AppRequestContext) async throws -> PageResponse<BlockResponse> {
        let caller = try context.requireCaller()
        let page = try await blocks.blocks(of: caller.userId, page: PageRequest(query: request.uri, ordering: "blocks"))
        return PageResponse(items: page.items.map(BlockResponse.init), nextCursor: page.nextCursor, requestURI: request.uri)
    }
}

/// `{user: {id, nickname, profileImageUrl, rating}, blockedAt}`.
struct BlockResponse: Encodable, Sendable {
    let user: WriterResponse
    let blockedAt: Date

    init(_ blocked: BlockedUser) {
        user = WriterResponse(blocked.user)
        blockedAt = blocked.blockedAt
    }
}

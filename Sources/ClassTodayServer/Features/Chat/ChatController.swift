import ClassTodayCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging

/// Chat rooms and messages over REST, and the WebSocket endpoint.
struct ChatController {
    /// Rooms and messages, read directly; sends and read positions go through the hub, which publishes them.
    let chats: any ChatRepository
    /// Per-room mutes, shown on the room objects.
    let devices: any DeviceRepository
    /// The node's chat hub.
    let hub: ChatHub
    /// Where the sessions log.
    let logger: Logger
    /// Whether opening a room needs a verified address (`auth.requireVerifiedEmail`).
    var requireVerifiedEmail = false

    /// Adds the chat routes to the `/v1` group.
    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("chat/rooms", use: openRoom)
        group.get("chat/rooms", use: rooms)
        group.get("chat/rooms/{id}/messages", use: history)
        group.post("chat/rooms/{id}/messages", use: send)
        group.post("chat/rooms/{id}/read", use: markRead)
        group.ws("chat/ws", shouldUpgrade: authenticateUpgrade) { inbound, outbound, context in
            guard let caller = context.requestContext.caller else { return }
            let session = ChatSession(userId: caller.userId, sessionId: caller.sessionId, hub: hub, chats: chats, logger: logger)
            try await session.serve(inbound: inbound, outbound: outbound)
        }
    }

    /// Upgrades only requests with a valid token (``TokenAuthenticator`` reads the `Authorization` header or,
    /// on this route, `?token=`); anything else is a 401 problem and no upgrade.
    @Sendable func authenticateUpgrade(_ request: Request, context: AppRequestContext) async throws -> RouterShouldUpgrade {
        _ = try context.requireCaller()
        guard request.headers[.upgrade]?.lowercased() == "websocket" else {
            throw DomainError.badRequest("this endpoint needs a WebSocket upgrade")
        }
        return .upgrade([:])
    }

    @Sendable func openRoom(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<RoomResponse> {
        let caller = try context.requireCaller()
        try caller.requireVerifiedEmail(requireVerifiedEmail)
        let body = try await request.decode(as: OpenRoomRequest.self, context: context)
        guard let classId = body.classId, !classId.isEmpty else { throw DomainError.invalid("classId", "is required") }
        let (room, created) = try await chats.openRoom(classId: classId, userId: caller.userId, at: Date())
        guard let summary = try await chats.summary(roomId: room.id) else { throw DomainError.notFound("room") }
        let muted = try await devices.mutedRooms(of: caller.userId, among: [room.id])
        return EditedResponse(status: created ? .created : .ok,
                              response: RoomResponse(summary: summary, viewerId: caller.userId, muted: muted.contains(room.id)))
    }

    @Sendable func rooms(_ request: Request, context: AppRequestContext) async throws -> PageResponse<RoomResponse> {
        let caller = try context.requireCaller()
        let page = try await chats.rooms(of: caller.userId, page: PageRequest(query: request.uri, ordering: "activity"))
        let muted = try await devices.mutedRooms(of: caller.userId, among: page.items.map(\.room.id))
        return PageResponse(items: page.items.map { RoomResponse(summary: $0, viewerId: caller.userId, muted: muted.contains($0.room.id)) },
                            nextCursor: page.nextCursor,
                            requestURI: request.uri)
    }

    @Sendable func history(_ request: Request, context: AppRequestContext) async throws -> PageResponse<MessageResponse> {
        let caller = try context.requireCaller()
        let room = try await memberRoom(context, caller)
        var before: Int?
        if let text = request.uri.queryParameters.get("before") {
            guard let value = QueryValue.integer(text), value >= 1 else { throw DomainError.invalid("before", "must be a seq of 1 or more") }
            before = value
        }
        let page = try await chats.history(roomId: room.id, beforeSeq: before, page: PageRequest(query: request.uri, ordering: "seq"))
        return PageResponse(items: page.items.map(MessageResponse.init(message:)), nextCursor: page.nextCursor, requestURI: request.uri)
    }

    @Sendable func send(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<MessageResponse> {
        let caller = try context.requireCaller()
        let room = try await memberRoom(context, caller)
        let body = try await request.decode(as: SendMessageRequest.self, context: context)
        var validator = FieldValidator()
        ChatRules.check(clientId: body.clientId, text: body.text, imageId: body.imageId, into: &validator)
        try validator.throwIfInvalid()
        let outgoing = OutgoingMessage(roomId: room.id, senderId: caller.userId, clientId: body.clientId,
                                       kind: body.imageId == nil ? .text : .image, text: body.text, imageId: body.imageId)
        switch try await hub.send(outgoing, in: room) {
        case .stored(let message): return EditedResponse(status: .created, response: MessageResponse(message: message))
        case .duplicate(let message): return EditedResponse(status: .ok, response: MessageResponse(message: message))
        }
    }

    @Sendable func markRead(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        let room = try await memberRoom(context, caller)
        let body = try await request.decode(as: ReadRequest.self, context: context)
        guard let seq = body.seq, seq >= 0 else { throw DomainError.invalid("seq", "is required and must not be negative") }
        _ = try await hub.markRead(room: room, userId: caller.userId, seq: seq)
        return Response(status: .noContent)
    }

    /// The room of the `id` parameter: 404 when missing, 403 when the caller is not a member.
    private func memberRoom(_ context: AppRequestContext, _ caller: Caller) async throws -> ChatRoom {
        guard let room = try await chats.room(id: try context.parameters.require("id")) else { throw DomainError.notFound("room") }
        try room.checkMember(caller.userId, to: "see it")
        return room
    }
}

/// The body of `POST /v1/chat/rooms`.
struct OpenRoomRequest: Decodable {
    let classId: String?
}

/// The body of `POST /v1/chat/rooms/{id}/messages`.
struct SendMessageRequest: Decodable {
    let clientId: String?
    let text: String?
    let imageId: String?
}

/// The body of `POST /v1/chat/rooms/{id}/read`.
struct ReadRequest: Decodable {
    let seq: Int?
}

/// A room as its member sees it.
struct RoomResponse: ResponseCodable {
    /// The room's id.
    let id: String
    /// The class the room is about.
    let `class`: ClassSummary
    /// The member who sells (the writer of a sell class).
    let seller: WriterResponse
    /// The member who buys.
    let buyer: WriterResponse
    /// The newest message, if any.
    @Nullable var lastMessage: MessageResponse?
    /// Messages the viewer has not read.
    let unreadCount: Int
    /// The last seq the viewer read.
    let lastReadSeq: Int
    /// Whether the viewer muted the room's pushes.
    let muted: Bool
    /// When the room was opened.
    let createdAt: Date

    /// `{id, name, type, status, imageUrl, imageVariants}` of the room's class.
    struct ClassSummary: Codable {
        /// The class's id.
        let id: String
        /// Its name.
        let name: String
        /// Sell or buy.
        let type: ClassType
        /// Open or closed.
        let status: ClassStatus
        /// The path of the class's first image, so that a room list shows it without a request per room.
        @Nullable var imageUrl: String?
        /// The variants of the class's first image (lists show `thumb`).
        @Nullable var imageVariants: ImageVariantLinks?

        /// The class part of `summary`.
        init(_ summary: RoomSummary) {
            (id, name, type, status) = (summary.classId, summary.className, summary.classType, summary.classStatus)
            imageUrl = summary.classImageId.map(ImageURL.path(for:))
            imageVariants = summary.classImageId.map(ImageVariantLinks.init(imageId:))
        }
    }

    /// The room of `summary` as `viewerId` sees it.
    init(summary: RoomSummary, viewerId: String, muted: Bool) {
        id = summary.room.id
        `class` = ClassSummary(summary)
        (seller, buyer) = (WriterResponse(summary.seller), WriterResponse(summary.buyer))
        lastMessage = summary.lastMessage.map(MessageResponse.init(message:))
        (unreadCount, lastReadSeq) = (summary.room.unreadCount(of: viewerId), summary.room.readSeq(of: viewerId))
        (self.muted, createdAt) = (muted, summary.room.createdAt)
    }
}

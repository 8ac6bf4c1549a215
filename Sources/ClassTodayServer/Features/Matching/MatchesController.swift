import ClassTodayCore
import Foundation
import HTTPTypes
import Hummingbird

/// The match lifecycle inside chat rooms, and reviews.
struct MatchesController {
    let matches: any MatchRepository
    let classes: any ClassRepository
    /// Users, to tell an unknown reviewee (404) from one without reviews.
    let users: any UserRepository
    let hub: ChatHub
    let fanOut: AlertFanOut

    /// Adds the matching routes to the `/v1` group.
    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("chat/rooms/{id}/matches", use: propose)
        for action in MatchAction.allCases {
            group.post("matches/{id}/\(action.rawValue)") { request, context in
                try await apply(action, request, context)
            }
        }
        group.get("me/matches", use: myMatches)
        group.post("matches/{id}/reviews", use: review)
        group.get("users/{id}/reviews", use: reviews)
    }

    @Sendable func propose(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<MatchResponse> {
        let caller = try context.requireCaller()
        let body = try await request.decode(as: MatchTermsRequest.self, context: context)
        var validator = FieldValidator()
        let terms = body.terms(into: &validator)
        terms.check(into: &validator)
        try validator.throwIfInvalid()
        let step = try await matches.propose(roomId: try context.parameters.require("id"), by: caller.userId, terms: terms, at: Date())
        await Self.publish(step, hub: hub, fanOut: fanOut)
        return EditedResponse(status: .created, response: MatchResponse(match: step.match))
    }

    private func apply(_ action: MatchAction, _ request: Request, _ context: AppRequestContext) async throws -> MatchResponse {
        let caller = try context.requireCaller()
        let step = try await matches.apply(action, matchId: try context.parameters.require("id"), by: caller.userId, at: Date())
        await Self.publish(step, hub: hub, fanOut: fanOut)
        return MatchResponse(match: step.match)
    }

    /// Announces a stored step in its room and to both members; a step that reopened its class wakes the alert
    /// fan-out (the step queued the class in its transaction).
    static func publish(_ step: MatchStep, hub: ChatHub, fanOut: AlertFanOut) async {
        await hub.announce(step)
        if step.reopenedClass {
            fanOut.classQueued()
        }
    }

    @Sendable func myMatches(_ request: Request, context: AppRequestContext) async throws -> PageResponse<MatchResponse> {
        let caller = try context.requireCaller()
        var validator = FieldValidator()
        let role: MatchRole? = EnumField.value(request.uri.queryParameters.get("role"), "role", &validator)
        try validator.throwIfInvalid()
        let page = try await matches.matches(of: caller.userId, role: role, page: PageRequest(query: request.uri, ordering: "matches"))
        return PageResponse(items: page.items.map(MatchResponse.init(match:)), nextCursor: page.nextCursor, requestURI: request.uri)
    }

    @Sendable func review(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<ReviewResponse> {
        let caller = try context.requireCaller()
        let body = try await request.decode(as: ReviewRequest.self, context: context)
        var validator = FieldValidator()
        ReviewRules.check(grade: body.grade, description: body.description, into: &validator)
        try validator.throwIfInvalid()
        let review = try await matches.review(matchId: try context.parameters.require("id"), by: caller.userId,
                                              grade: body.grade ?? 0, description: body.description ?? "", at: Date())
        return EditedResponse(status: .created, response: ReviewResponse(review: review))
    }

    @Sendable func reviews(_ request: Request, context: AppRequestContext) async throws -> PageResponse<ReviewResponse> {
        let userId = try await users.existingUser(id: try context.parameters.require("id")).id
        let page = try await matches.reviews(of: userId, page: PageRequest(query: request.uri, ordering: "reviews"))
        return PageResponse(items: page.items.map(ReviewResponse.init(review:)), nextCursor: page.nextCursor, requestURI: request.uri)
    }
}

/// The body of `POST /v1/chat/rooms/{id}/matches`: terms, each optional (absent terms come from the class).
struct MatchTermsRequest: Decodable {
    let days: [String]?
    let time: String?
    let place: String?
    let location: ClassWriteRequest.LocationBody?
    let price: Int?
    let priceUnit: String?

    /// The domain terms, with unknown enum values and incomplete locations recorded in `validator`.
    func terms(into validator: inout FieldValidator) -> MatchTerms {
        var location: GeoPoint?
        if let body = self.location {
            validator.require(body.lat, "location.lat")
            validator.require(body.lon, "location.lon")
            if let lat = body.lat, let lon = body.lon { location = GeoPoint(lat: lat, lon: lon) }
        }
        return MatchTerms(days: EnumField.list(days, "days", &validator), time: time, place: place, location: location,
                          price: price, priceUnit: EnumField.value(priceUnit, "priceUnit", &validator))
    }
}

/// The body of `POST /v1/matches/{id}/reviews`.
struct ReviewRequest: Decodable {
    let grade: Double?
    let description: String?
}

/// A match as the API shows it.
struct MatchResponse: ResponseCodable {
    let id: String
    let roomId: String
    let classId: String
    let sellerId: String
    let buyerId: String
    let status: MatchStatus
    let proposedBy: String
    @Nullable var days: [Weekday]?
    @Nullable var time: String?
    @Nullable var place: String?
    @Nullable var location: GeoPoint?
    @Nullable var price: Int?
    @Nullable var priceUnit: PriceUnit?
    let createdAt: Date
    let updatedAt: Date

    init(match: Match) {
        (id, roomId, classId, sellerId, buyerId) = (match.id, match.roomId, match.classId, match.sellerId, match.buyerId)
        (status, proposedBy, createdAt, updatedAt) = (match.status, match.proposedBy, match.createdAt, match.updatedAt)
        let terms = match.terms
        (days, time, place, location, price, priceUnit) = (terms.days, terms.time, terms.place, terms.location, terms.price, terms.priceUnit)
    }
}

/// A review as the API shows it.
struct ReviewResponse: ResponseCodable {
    let id: String
    let matchId: String
    let reviewerId: String
    let revieweeId: String
    let grade: Double
    let description: String
    let createdAt: Date

    init(review: Review) {
        id = review.id
        matchId = review.matchId
        reviewerId = review.reviewerId
        revieweeId = review.revieweeId
        grade = review.grade
        description = review.description
        createdAt = review.createdAt
    }
}

/// The `notification` pushed to both members when a match changes.
struct MatchNotification: Encodable {
    let kind = "match"
    let matchId: String
    let roomId: String
    let classId: String
    let status: MatchStatus
    let createdAt: Date

    init(match: Match) {
        matchId = match.id
        roomId = match.roomId
        classId = match.classId
        status = match.status
        createdAt = match.updatedAt
    }
}

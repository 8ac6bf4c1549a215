import ClassTodayCore
import Foundation
import HTTPTypes
import Hummingbird

/// `GET /v1/classes/{id}/recommendations`: open classes of the opposite type near a class, ranked.
struct RecommendationsController {
    let classes: any ClassRepository

    /// How many nearest candidates are scored.
    static let candidatePool = 200
    /// The radius used when none is given, in meters.
    static let defaultRadius = 5_000.0

    /// Adds the route to the `/v1` group.
    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("classes/{id}/recommendations", use: recommend)
    }

    @Sendable func recommend(_ request: Request, context: AppRequestContext) async throws -> RecommendationsResponse {
        let viewerId = context.caller?.userId
        guard let source = try await classes.view(id: try context.parameters.require("id"), viewerId: viewerId)?.listing else {
            throw DomainError.notFound("class")
        }
        var validator = FieldValidator()
        var radius = Self.defaultRadius
        if let text = request.uri.queryParameters.get("radius") {
            if let value = QueryValue.number(text), value > 0, value <= ClassSearch.maximumRadius { radius = value } else {
                validator.fail("radius", "must be a number above 0 and at most \(Int(ClassSearch.maximumRadius))")
            }
        }
        var limit = PageRequest.defaultLimit
        if let text = request.uri.queryParameters.get("limit") {
            if let value = QueryValue.integer(text), (1...PageRequest.maximumLimit).contains(value) { limit = value } else {
                validator.fail("limit", "must be a whole number from 1 to \(PageRequest.maximumLimit)")
            }
        }
        guard let center = source.location else {
            validator.fail("id", "the class has no location to search around")
            try validator.throwIfInvalid()
            return RecommendationsResponse(items: [])
        }
        try validator.throwIfInvalid()
        var search = ClassSearch()
        search.circle = .init(center: center, radius: radius)
        search.type = source.type.opposite
        search.sort = .distance
        let candidates = try await classes.search(search, viewerId: viewerId, page: PageRequest(limit: Self.candidatePool)).items
        let ranked = candidates
            .filter { Recommendation.isCandidate($0.listing, for: source, viewerId: viewerId) }
            .map { view in
                (view, Recommendation(source: source, candidate: view.listing, distance: view.distance ?? 0, radius: radius,
                                      writerRating: view.writer.rating))
            }
            .sorted { ($0.1.score, -($0.0.distance ?? 0), $0.0.listing.id) > ($1.1.score, -($1.0.distance ?? 0), $1.0.listing.id) }
            .prefix(limit)
        return RecommendationsResponse(items: ranked.map { RecommendationsResponse.Item(view: $0.0, recommendation: $0.1) })
    }
}

/// `{"items": [{"class", "score", "distance", "reasons"}]}`.
struct RecommendationsResponse: ResponseEncodable {
    /// One recommended class, its score and distance, and the reasons' parts.
    struct Item: Encodable {
        let `class`: ClassResponse
        let score: Double
        let distance: Double
        let reasons: Reasons

        /// How much each part of the match counted.
        struct Reasons: Encodable {
            let subjects, targets, days, distance, price, rating: Double
        }

        init(view: ClassView, recommendation: Recommendation) {
            let reasons = recommendation.reasons
            self.class = ClassResponse(view: view)
            score = (recommendation.score * 1000).rounded() / 1000
            distance = ClassResponse.shownDistance(view.distance ?? 0)
            self.reasons = Reasons(subjects: reasons.subjects, targets: reasons.targets, days: reasons.days,
                                   distance: reasons.distance, price: reasons.price, rating: reasons.rating)
        }
    }

    let items: [Item]
}

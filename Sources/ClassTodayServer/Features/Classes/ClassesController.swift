import ClassTodayCore
import Foundation
import HTTPTypes
import Hummingbird

/// Class listings: create, read, change, close, delete; favourites; a user's listings; categories.
struct ClassesController {
    let classes: any ClassRepository
    /// Users, to tell an unknown writer (404) from one without listings.
    let users: any UserRepository
    let fanOut: AlertFanOut
    /// The banned words that names and descriptions must not hold.
    let bannedWords: BannedWordsFile
    /// Whether posting needs a verified address (`auth.requireVerifiedEmail`).
    var requireVerifiedEmail = false

    /// Adds the listing routes to the `/v1` group.
    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("classes", use: create)
        group.get("classes", use: search)
        group.get("classes/{id}", use: show)
        group.patch("classes/{id}", use: update)
        group.delete("classes/{id}", use: delete)
        group.put("classes/{id}/status", use: setStatus)
        group.put("classes/{id}/favorite", use: addFavorite)
        group.delete("classes/{id}/favorite", use: removeFavorite)
        group.get("me/favorites", use: myFavorites)
        group.get("me/classes", use: myClasses)
        group.get("users/{id}/classes", use: userClasses)
        group.get("categories", use: categories)
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<ClassResponse> {
        let caller = try context.requireCaller()
        try caller.requireVerifiedEmail(requireVerifiedEmail)
        let draft = try await draft(from: request, context: context, creating: true)
        let now = Date()
        var listing = ClassListing(
            id: Identifier.make(at: now), type: draft.type ?? .sell, name: "", description: "", days: [], time: nil,
            place: nil, location: nil, keywordLocation: nil, price: nil, priceUnit: .perHour, subjects: [], targets: [],
            capacity: 1, status: .open, imageIds: [], writerId: caller.userId, favoriteCount: 0, createdAt: now, updatedAt: now)
        draft.apply(to: &listing)
        let view = try await classes.create(listing)
        fanOut.classQueued()
        return EditedResponse(status: .created, headers: [.location: "/v1/classes/\(view.listing.id)"],
                              response: ClassResponse(view: view))
    }

    @Sendable func search(_ request: Request, context: AppRequestContext) async throws -> PageResponse<ClassPageItem> {
        let search = try ClassSearchParameters.parse(request.uri)
        let page = try PageRequest(query: request.uri, ordering: search.sort.rawValue)
        return try await classes.search(search, viewerId: context.caller?.userId, page: page).response(for: request)
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> ClassResponse {
        let id = try context.parameters.require("id")
        // Operators see a hidden listing too (marked hidden), as the reports they act on need.
        let caller = context.caller
        guard let view = try await classes.view(id: id, viewerId: caller?.userId, includingHidden: caller?.isOperator == true) else {
            throw DomainError.notFound("class")
        }
        return ClassResponse(view: view)
    }

    @Sendable func update(_ request: Request, context: AppRequestContext) async throws -> ClassResponse {
        let caller = try context.requireCaller()
        let id = try context.parameters.require("id")
        let draft = try await draft(from: request, context: context, creating: false)
        return ClassResponse(view: try await classes.update(id: id, by: caller.userId) { draft.apply(to: &$0) })
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        try await classes.delete(id: try context.parameters.require("id"), by: caller.userId)
        return Response(status: .noContent)
    }

    @Sendable func setStatus(_ request: Request, context: AppRequestContext) async throws -> ClassResponse {
        let caller = try context.requireCaller()
        let id = try context.parameters.require("id")
        let body = try await request.decode(as: StatusRequest.self, context: context)
        guard let raw = body.status else { throw DomainError.invalid("status", "is required") }
        guard let status = ClassStatus(rawValue: raw), status != .matched else {
            throw DomainError.invalid("status", "must be open or closed")
        }
        let view = try await classes.update(id: id, by: caller.userId) { $0.status = status }
        if view.listing.status == .open {
            fanOut.classQueued() // reopening queued the class in the update's transaction
        }
        return ClassResponse(view: view)
    }

    @Sendable func addFavorite(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await setFavorite(true, request, context)
    }

    @Sendable func removeFavorite(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await setFavorite(false, request, context)
    }

    @Sendable func myFavorites(_ request: Request, context: AppRequestContext) async throws -> PageResponse<ClassPageItem> {
        let caller = try context.requireCaller()
        let page = try PageRequest(query: request.uri, ordering: "favorites")
        return try await classes.favorites(of: caller.userId, page: page).response(for: request)
    }

    @Sendable func myClasses(_ request: Request, context: AppRequestContext) async throws -> PageResponse<ClassPageItem> {
        let caller = try context.requireCaller()
        let page = try PageRequest(query: request.uri, ordering: "recent")
        return try await classes.classes(writtenBy: caller.userId, viewerId: caller.userId, page: page).response(for: request)
    }

    @Sendable func userClasses(_ request: Request, context: AppRequestContext) async throws -> PageResponse<ClassPageItem> {
        let userId = try await users.existingUser(id: try context.parameters.require("id")).id
        let page = try PageRequest(query: request.uri, ordering: "recent")
        return try await classes.classes(writtenBy: userId, viewerId: context.caller?.userId, page: page).response(for: request)
    }

    @Sendable func categories(_ request: Request, context: AppRequestContext) async throws -> CategoriesResponse {
        CategoriesResponse()
    }

    private func setFavorite(_ isFavorite: Bool, _ request: Request, _ context: AppRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        try await classes.setFavorite(classId: try context.parameters.require("id"), userId: caller.userId, isFavorite)
        return Response(status: .noContent)
    }

    /// Decodes and checks a create or update body: a name or description holding a banned word is a 422 naming it.
    private func draft(from request: Request, context: AppRequestContext, creating: Bool) async throws -> ClassDraft {
        let body = try await request.decode(as: ClassWriteRequest.self, context: context)
        var validator = FieldValidator()
        let draft = body.draft(into: &validator)
        ClassRules.check(draft, creating: creating, into: &validator)
        let filter = bannedWords.filter
        filter.check(draft.name, "name", into: &validator)
        filter.check(draft.description, "description", into: &validator)
        try validator.throwIfInvalid()
        return draft
    }
}

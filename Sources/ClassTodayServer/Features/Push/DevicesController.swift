import ClassTodayCore
import Foundation
import Hummingbird

/// The caller's push devices (`/v1/me/devices`) and per-room mutes (`/v1/chat/rooms/{id}/mute`).
struct DevicesController {
    /// Devices and mutes.
    let devices: any DeviceRepository

    /// Adds the routes to the `/v1` group.
    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("me/devices", use: list)
        group.put("me/devices/{token}", use: register)
        group.delete("me/devices/{token}", use: remove)
        group.put("chat/rooms/{id}/mute", use: mute)
    }

    /// `GET /v1/me/devices`.
    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> DeviceListResponse {
        let caller = try context.requireCaller()
        return DeviceListResponse(items: try await devices.devices(of: caller.userId).map(DeviceResponse.init(device:)))
    }

    /// `PUT /v1/me/devices/{token}`: 201 for a new device, 200 for one registered again.
    @Sendable func register(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<DeviceResponse> {
        let caller = try context.requireCaller()
        let token = try context.parameters.require("token")
        let body = try await request.decode(as: RegisterDeviceRequest.self, context: context)
        var validator = FieldValidator()
        validator.check(DeviceRules.isValidToken(token), "token",
                        "must be \(DeviceRules.tokenLength.lowerBound) to \(DeviceRules.tokenLength.upperBound) letters, digits, '-', '_', ':' or '.'")
        DeviceRules.check(platform: body.platform, appVersion: body.appVersion, locale: body.locale, into: &validator)
        try validator.throwIfInvalid()
        guard let platform = body.platform.flatMap(DevicePlatform.init(rawValue:)) else { throw DomainError.invalid("platform", "must be ios or android") }
        let registration = DeviceRegistration(token: token, platform: platform, appVersion: body.appVersion, locale: body.locale)
        let created = try await devices.register(registration, userId: caller.userId, sessionTokenHash: caller.tokenHash, at: Date())
        guard let device = try await devices.devices(of: caller.userId).first(where: { $0.token == token }) else {
            throw DomainError.notFound("device")
        }
        return EditedResponse(status: created ? .created : .ok, response: DeviceResponse(device: device))
    }

    /// `DELETE /v1/me/devices/{token}`.
    @Sendable func remove(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        let token = try context.parameters.require("token")
        guard DeviceRules.isValidToken(token) else { throw DomainError.notFound("device") }
        try await devices.remove(token: token, userId: caller.userId)
        return Response(status: .noContent)
    }

    /// `PUT /v1/chat/rooms/{id}/mute`: members only (404 for anyone else).
    @Sendable func mute(_ request: Request, context: AppRequestContext) async throws -> MuteResponse {
        let caller = try context.requireCaller()
        let roomId = try context.parameters.require("id")
        let body = try await request.decode(as: MuteRequest.self, context: context)
        guard let muted = body.muted else { throw DomainError.invalid("muted", "is required") }
        try await devices.setMuted(muted, roomId: roomId, userId: caller.userId, at: Date())
        return MuteResponse(roomId: roomId, muted: muted)
    }
}

/// The body of `PUT /v1/me/devices/{token}`.
struct RegisterDeviceRequest: Decodable {
    /// `ios` or `android`.
    let platform: String?
    /// The app's version.
    let appVersion: String?
    /// The app's locale.
    let locale: String?
}

/// The body of `PUT /v1/chat/rooms/{id}/mute`.
struct MuteRequest: Decodable {
    /// Whether the room's pushes are off.
    let muted: Bool?
}

/// A device as its owner sees it.
struct DeviceResponse: ResponseEncodable {
    /// The push token.
    let token: String
    /// `ios` or `android`.
    let platform: DevicePlatform
    /// The app's version.
    @Nullable var appVersion: String?
    /// The app's locale.
    @Nullable var locale: String?
    /// When it was first registered.
    let createdAt: Date
    /// When it was last registered.
    let updatedAt: Date

    /// The response for `device`.
    init(device: Device) {
        token = device.token
        platform = device.platform
        appVersion = device.appVersion
        locale = device.locale
        createdAt = device.createdAt
        updatedAt = device.updatedAt
    }
}

/// The caller's devices (at most ``DeviceRules/maximumPerUser``, so one page).
struct DeviceListResponse: ResponseEncodable {
    /// The devices, most recently registered first.
    let items: [DeviceResponse]
}

/// A room's mute setting for the caller.
struct MuteResponse: ResponseEncodable {
    /// The room.
    let roomId: String
    /// Whether its pushes are off for the caller.
    let muted: Bool
}

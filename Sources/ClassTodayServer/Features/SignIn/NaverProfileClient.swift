import ClassTodayCore
import Foundation

/// Naver Login: Naver issues no ID token, so the app's access token is checked by reading the user's profile from
/// Naver's profile API with it. An access token Naver refuses is a 401; Naver unreachable is a 503.
struct NaverProfileClient: Sendable {
    /// The profile API (`https://openapi.naver.com/v1/nid/me`).
    let profileURL: String
    /// How requests are made.
    let http: ProviderHTTP

    /// `{"resultcode": "00", "message": "success", "response": {"id", "nickname"?, "name"?, "email"?}}`.
    private struct ProfileAnswer: Decodable {
        struct Profile: Decodable {
            let id: String?
            let nickname: String?
            let name: String?
            let email: String?
        }

        let resultcode: String?
        let response: Profile?
    }

    /// The identity the access token belongs to.
    func identity(accessToken: String) async throws -> VerifiedIdentity {
        let answer = try await http.get(profileURL, bearer: accessToken, for: .naver)
        guard answer.status == 200 else {
            throw DomainError.unauthorized("Naver did not accept the access token")
        }
        guard let profile = try? JSONDecoder().decode(ProfileAnswer.self, from: answer.body), profile.resultcode == "00",
              let user = profile.response, let id = user.id, UserRules.isValidProviderSubject(id)
        else {
            throw DomainError.unauthorized("Naver did not accept the access token")
        }
        return VerifiedIdentity(provider: .naver, subject: id, email: user.email, name: user.nickname ?? user.name)
    }
}

import ClassTodayCore
import HTTPTypes
import Hummingbird
import Logging
import NIOHTTP1

/// Turns every error into an `application/problem+json` response: domain errors by their case, Hummingbird's
/// HTTP errors by their status (never their message), a path that exists under another method into 405, a request
/// body the HTTP parser rejects (a bad chunk) into 400, and anything else into a generic 500 that is logged with the request id.
struct ProblemMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    /// The routes that exist, to tell "no such path" (404) from "wrong method" (405).
    let routes: RouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as DomainError {
            return error.problem.response(headers: error.headers)
        } catch let error as any HTTPResponseError {
            if error.status == .notFound, context.endpointPath == nil || context.endpointPath == "NotFound" {
                let allowed = routes.allowedMethods(forPath: request.uri.path)
                if !allowed.isEmpty {
                    return Problem(status: .methodNotAllowed, detail: "\(request.method) is not allowed here")
                        .response(headers: [.allow: allowed.map(\.rawValue).joined(separator: ", ")])
                }
                return Problem(status: .notFound, detail: "no route for \(request.uri.path)").response()
            }
            if error.status == .contentTooLarge {
                return Problem(status: .contentTooLarge, detail: "the request body is larger than this route accepts").response()
            }
            return Problem(status: error.status, detail: nil).response()
        } catch is HTTPParserError {
            return Problem.malformedHTTP.response()
        } catch {
            context.logger.error("unhandled error", metadata: ["error": "\(String(reflecting: error))"])
            return Problem(status: .internalServerError, detail: "something went wrong; the request id identifies it in our logs").response()
        }
    }
}

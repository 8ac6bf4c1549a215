import Foundation
import Testing
@testable import ClassTodayServer

/// The published vectors: AWS's Signature Version 4 test suite (`get-vanilla`, `get-vanilla-query-order-key-case`,
/// `post-x-www-form-urlencoded`) and the S3 examples of "Examples: Signature Calculations in AWS Signature Version 4".
@Suite("SigV4 signer")
struct SigV4SignerTests {
    /// The test suite's keys, region and service, at 2015-08-30 12:36:00 UTC.
    static let suite = SigV4Signer(
        credentials: AWSCredentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1", service: "service")
    static let suiteDate = Date(timeIntervalSince1970: 1_440_938_160)

    /// The S3 examples' keys, at 2013-05-24 00:00:00 UTC.
    static let s3 = SigV4Signer(
        credentials: AWSCredentials(accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1", service: "s3")
    static let s3Date = Date(timeIntervalSince1970: 1_369_353_600)
    static let s3Host = ("Host", "examplebucket.s3.amazonaws.com")
    static let empty = SigV4Signer.emptyPayloadHash

    /// The `Authorization` header among `headers`.
    private func authorization(_ headers: [(String, String)]) throws -> String {
        try #require(headers.first { $0.0 == "Authorization" }?.1)
    }

    @Test("get-vanilla")
    func getVanilla() throws {
        let headers = Self.suite.authorizationHeaders(
            method: "GET", path: "/", query: [], headers: [("Host", "example.amazonaws.com")], payloadHash: Self.empty, date: Self.suiteDate)
        #expect(headers.first { $0.0 == "x-amz-date" }?.1 == "20150830T123600Z")
        #expect(try authorization(headers) == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
            + "SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")
    }

    @Test("get-vanilla-query-order-key-case: parameters sorted by name, upper case first")
    func queryOrder() throws {
        let headers = Self.suite.authorizationHeaders(
            method: "GET", path: "/", query: [("Param2", "value2"), ("Param1", "value1")],
            headers: [("Host", "example.amazonaws.com")], payloadHash: Self.empty, date: Self.suiteDate)
        #expect(try authorization(headers).hasSuffix("Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"))
    }

    @Test("post-x-www-form-urlencoded: the content type is signed, the body hashed")
    func postForm() throws {
        let body = Data("Param1=value1".utf8)
        let headers = Self.suite.authorizationHeaders(
            method: "POST", path: "/", query: [],
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Host", "example.amazonaws.com")],
            payloadHash: SigV4Signer.hexSHA256(body), date: Self.suiteDate)
        let value = try authorization(headers)
        #expect(value.contains("SignedHeaders=content-type;host;x-amz-date,"))
        #expect(value.hasSuffix("Signature=ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"))
    }

    @Test("S3 GET Object with Range")
    func getObjectRange() throws {
        let headers = Self.s3.authorizationHeaders(
            method: "GET", path: "/test.txt", query: [],
            headers: [Self.s3Host, ("Range", "bytes=0-9"), ("x-amz-content-sha256", Self.empty)],
            payloadHash: Self.empty, date: Self.s3Date)
        let value = try authorization(headers)
        #expect(value.contains("SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"))
        #expect(value.hasSuffix("Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"))
    }

    @Test("S3 PUT Object: the key's '$' is percent-encoded, every given header signed")
    func putObject() throws {
        let payload = SigV4Signer.hexSHA256(Data("Welcome to Amazon S3.".utf8))
        #expect(payload == "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        #expect(SigV4Signer.encodedPath("/test$file.text") == "/test%24file.text")
        let headers = Self.s3.authorizationHeaders(
            method: "PUT", path: "/test$file.text", query: [],
            headers: [("Date", "Fri, 24 May 2013 00:00:00 GMT"), Self.s3Host, ("x-amz-storage-class", "REDUCED_REDUNDANCY"),
                      ("x-amz-content-sha256", payload)],
            payloadHash: payload, date: Self.s3Date)
        #expect(try authorization(headers).hasSuffix("Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"))
    }

    @Test("S3 GET Bucket lifecycle: a parameter without a value signs as 'lifecycle='")
    func bucketLifecycle() throws {
        let headers = Self.s3.authorizationHeaders(
            method: "GET", path: "/", query: [("lifecycle", "")], headers: [Self.s3Host, ("x-amz-content-sha256", Self.empty)],
            payloadHash: Self.empty, date: Self.s3Date)
        #expect(try authorization(headers).hasSuffix("Signature=fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"))
    }

    @Test("S3 list objects")
    func listObjects() throws {
        let headers = Self.s3.authorizationHeaders(
            method: "GET", path: "/", query: [("prefix", "J"), ("max-keys", "2")],
            headers: [Self.s3Host, ("x-amz-content-sha256", Self.empty)], payloadHash: Self.empty, date: Self.s3Date)
        #expect(try authorization(headers).hasSuffix("Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"))
    }

    @Test("S3 presigned GET (query-string authentication) of test.txt for 86400 seconds")
    func presigned() {
        let query = Self.s3.presignedQuery(
            method: "GET", host: "examplebucket.s3.amazonaws.com", path: "/test.txt", expires: 86400, date: Self.s3Date)
        #expect(query == "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"
            + "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
            + "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404")
    }

    @Test("a session token is sent and signed")
    func sessionToken() throws {
        var credentials = Self.s3.credentials
        credentials.sessionToken = "token/with+symbols"
        let signer = SigV4Signer(credentials: credentials, region: "us-east-1", service: "s3")
        let headers = signer.authorizationHeaders(
            method: "GET", path: "/", query: [], headers: [Self.s3Host], payloadHash: Self.empty, date: Self.s3Date)
        #expect(headers.first { $0.0 == "x-amz-security-token" }?.1 == "token/with+symbols")
        #expect(try authorization(headers).contains("SignedHeaders=host;x-amz-date;x-amz-security-token,"))
        #expect(try authorization(headers) != authorization(Self.s3.authorizationHeaders(
            method: "GET", path: "/", query: [], headers: [Self.s3Host], payloadHash: Self.empty, date: Self.s3Date)))
    }

    @Test("keys and query values are encoded byte by byte, unreserved characters kept")
    func encoding() {
        #expect(SigV4Signer.encodedPath("images/ab/a b+c~é") == "/images/ab/a%20b%2Bc~%C3%A9")
        #expect(SigV4Signer.canonicalQuery([("b", "x/y"), ("a", "2"), ("a", "1")]) == "a=1&a=2&b=x%2Fy")
    }
}

import ClassTodayCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import ClassTodayServer

/// `classtoday explain search`: the plan that answers a search, the statements it ran and its counts, for a few
/// representative searches on SQLite, and on PostgreSQL when `CLASSTODAY_TEST_DATABASE_URL` names a server; and bad
/// query strings refused with the parameter named.
@Suite("Explain search")
struct SearchExplainTests {
    /// A circle around the test listings.
    static let circle = "lat=37.4842&lon=126.9297&radius=3000"

    @Test("names the plan that answered each representative search, with its statements, and gives the API's page")
    func namesPlans() async throws {
        try await TestServer.withEnvironment(.router) { environment, client in
            let writer = try await client.signup()
            for (index, name) in ["수학 과외", "영어 회화", "기타 레슨", "수학 올림피아드", "피아노"].enumerated() {
                let location = ["lat": 37.4842 + Double(index) * 0.001, "lon": 126.9297]
                _ = try await client.createClass(token: writer.token, ["name": name, "location": location])
            }
            let postgres = environment.storage.database.dialect.backend == .postgres
            let cases: [(query: String, plan: SearchPlanName)] = [
                (Self.circle, postgres ? .nearestIndexOrder : .pointWalk),
                (Self.circle + "&q=수학", postgres ? .cellWalk : .keywordHitsByPoints),
                (Self.circle + "&keywordLocation=관악구", .cellWalk),
                (Self.circle + "&sort=recent", postgres ? .rangesInSortOrder : .newestWindow),
                ("q=수학", .relevanceTiers),
                ("sort=recent&limit=2", .rangesInSortOrder),
            ]
            for (query, plan) in cases {
                let (search, page) = try SearchExplanation.request(query)
                let explanation = try await environment.explainSearch(search, page: page)
                #expect(explanation.record.plan == plan, "\(query)")
                #expect(explanation.lines.first == "plan: \(plan.rawValue)", "\(query)")
                #expect(!explanation.record.statements.isEmpty, "\(query)")
                #expect(explanation.record.candidates >= explanation.ids.count, "\(query)")
                let answer = try await client.send(.get, "/v1/classes?" + query)
                let items = try #require(try answer.jsonObject()["items"] as? [[String: Any]])
                #expect(explanation.ids == items.compactMap { $0["id"] as? String }, "\(query)")
            }
            let (search, page) = try SearchExplanation.request("?q=수학")
            let lines = try await environment.explainSearch(search, page: page).lines
            #expect(lines.contains("page: 2 of limit \(PageRequest.defaultLimit), last page"))
            #expect(lines.contains { $0.contains("SELECT") })
        }
    }

    @Test("a bad query string is refused, naming the parameter", arguments: [
        ("lat=91&lon=126.97", "lat"), ("lat=37.56&lon=126.97&radius=far", "radius"), ("lat=37.56", "lon"), ("q=", "q"),
        ("sort=distance", "sort"), ("limit=0", "limit"), ("minPrice=10&maxPrice=5", "maxPrice"), ("cursor=nonsense", "cursor"),
    ])
    func badQuery(query: String, field: String) {
        #expect {
            try SearchExplanation.request(query)
        } throws: { error in
            guard case DomainError.validation(let errors) = error else { return false }
            return errors.map(\.field) == [field]
        }
    }
}

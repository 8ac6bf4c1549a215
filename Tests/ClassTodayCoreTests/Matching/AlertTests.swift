import Foundation
import ClassTodayTestSupport
import Testing
@testable import ClassTodayCore

/// Tests for ``Alert/matches(_:)`` and ``Alert/check(lat:lon:radius:query:maxPrice:subjects:targets:days:into:)``.
@Suite("Alert matching")
struct AlertTests {
    /// An alert of user `owner` for 3 km around Seoul City Hall with the given filters.
    func alert(
        query: String? = nil, type: ClassType? = nil, subjects: [Subject]? = nil, targets: [Target]? = nil,
        days: [Weekday]? = nil, maxPrice: Int? = nil, radius: Double = 3_000
    ) -> Alert {
        Alert(id: "a1", userId: "owner", center: MatchingTestSupport.seoul, radius: radius, query: query, type: type,
              subjects: subjects, targets: targets, days: days, maxPrice: maxPrice, createdAt: MatchingTestSupport.date)
    }

    /// A listing `meters` north of the alert centre.
    func listing(
        northOf meters: Double = 1_000, name: String = "수학 과외", description: String = "고등학생 수능 대비",
        type: ClassType = .sell, price: Int? = 30_000, subjects: [Subject] = [.math], targets: [Target] = [.senior],
        days: [Weekday] = [.mon, .wed], status: ClassStatus = .open, writerId: String = "teacher"
    ) -> ClassListing {
        let location = MatchingTestSupport.destination(from: MatchingTestSupport.seoul, distanceMeters: meters,
                                                       bearingDegrees: 0)
        return MatchingTestSupport.listing(type: type, name: name, description: description, days: days,
                                           location: location, price: price, subjects: subjects, targets: targets,
                                           status: status, writerId: writerId)
    }

    /// Checks the plain area match and its edges.
    @Test("area: inside the radius matches, outside or without location does not")
    func area() throws {
        let edge = try #require(listing(northOf: 2_999).location)
        #expect(Haversine.distance(MatchingTestSupport.seoul, edge) <= 3_000)
        #expect(alert().matches(listing(northOf: 0)))
        #expect(alert().matches(listing(northOf: 2_999)))
        #expect(!alert().matches(listing(northOf: 3_001)))
        var nowhere = listing()
        nowhere.location = nil
        #expect(!alert().matches(nowhere))
    }

    /// Checks that the owner's own classes and classes that are not open never match.
    @Test("own classes and classes that are not open never match")
    func ownAndClosed() {
        #expect(!alert().matches(listing(writerId: "owner")))
        #expect(!alert().matches(listing(status: .closed)))
        #expect(!alert().matches(listing(status: .matched)))
    }

    /// Checks the keyword, including Korean substrings and spacing differences.
    @Test("keyword: Korean substrings, spacing, English prefixes, unparseable queries")
    func keyword() {
        let yoga = listing(name: "요가 수업", description: "초보자 환영, beginner friendly")
        #expect(alert(query: "요가").matches(yoga))
        #expect(alert(query: "가수").matches(yoga)) // spans the space: 요가 수업 → 요가수업
        #expect(alert(query: "요가수업").matches(yoga))
        #expect(alert(query: "환영").matches(yoga)) // in the description
        #expect(alert(query: "begin").matches(yoga))
        #expect(alert(query: "요가 begin").matches(yoga))
        #expect(!alert(query: "필라테스").matches(yoga))
        #expect(!alert(query: "요가 필라테스").matches(yoga))
        #expect(!alert(query: "ginner").matches(yoga)) // words match by prefix only
        #expect(!alert(query: "!!!").matches(yoga))
        // The name and description are separate runs.
        #expect(!alert(query: "업초").matches(yoga))
    }

    /// Checks the type, overlap and price filters.
    @Test("filters: type, subjects, targets, days, price")
    func filters() {
        let class1 = listing()
        #expect(alert(type: .sell).matches(class1))
        #expect(!alert(type: .buy).matches(class1))
        #expect(alert(subjects: [.math, .english]).matches(class1))
        #expect(!alert(subjects: [.english]).matches(class1))
        #expect(alert(subjects: []).matches(class1))
        #expect(alert(targets: [.senior]).matches(class1))
        #expect(!alert(targets: [.junior]).matches(class1))
        #expect(alert(days: [.wed, .sun]).matches(class1))
        #expect(!alert(days: [.sat, .sun]).matches(class1))
        #expect(alert(maxPrice: 30_000).matches(class1))
        #expect(!alert(maxPrice: 29_999).matches(class1))
        #expect(!alert(maxPrice: 100_000).matches(listing(price: nil)))
        #expect(alert().matches(listing(price: nil)))
        #expect(alert(maxPrice: 0).matches(listing(price: 0)))
        #expect(alert(query: "수학", type: .sell, subjects: [.math], targets: [.senior], days: [.mon],
                      maxPrice: 50_000).matches(class1))
    }

    /// Checks that an alert with every filter agrees with ``ClassSearch/matchesFilters(_:)`` plus the
    /// owner rule on random listings.
    @Test("agrees with ClassSearch on random listings")
    func agreesWithSearch() {
        var random = SeededRandom(seed: 9)
        for _ in 0..<1_000 {
            func some<Value>(_ values: [Value]) -> [Value]? {
                guard Bool.random(using: &random) else { return nil }
                let picked = values.filter { _ in Int.random(in: 0..<3, using: &random) == 0 }
                return picked.isEmpty ? nil : picked
            }
            let subjects = some(Subject.allCases)
            let targets = some(Target.allCases)
            let days = some(Weekday.allCases)
            let maxPrice = Bool.random(using: &random) ? Int.random(in: 0...60_000, using: &random) : nil
            let type = Bool.random(using: &random) ? ClassType.allCases.randomElement(using: &random) : nil
            let saved = alert(type: type, subjects: subjects, targets: targets, days: days, maxPrice: maxPrice)
            let candidate = listing(
                northOf: Double.random(in: 0...6_000, using: &random),
                type: ClassType.allCases.randomElement(using: &random) ?? .sell,
                price: Bool.random(using: &random) ? Int.random(in: 0...60_000, using: &random) : nil,
                subjects: Subject.allCases.filter { _ in Bool.random(using: &random) },
                targets: Target.allCases.filter { _ in Bool.random(using: &random) },
                days: Weekday.allCases.filter { _ in Bool.random(using: &random) },
                status: ClassStatus.allCases.randomElement(using: &random) ?? .open,
                writerId: Bool.random(using: &random) ? "teacher" : "owner"
            )
            var search = ClassSearch()
            search.circle = ClassSearch.Circle(center: saved.center, radius: saved.radius)
            search.type = type
            search.subjects = subjects
            search.targets = targets
            search.days = days
            search.maxPrice = maxPrice
            let expected = search.matchesFilters(candidate) && candidate.writerId != "owner"
            #expect(saved.matches(candidate) == expected)
        }
    }

    /// Checks that one filter answers many keywords exactly as parsing each against the text would, repeats included.
    @Test("a keyword filter tests many keywords against one listing, each as SearchQuery would")
    func keywordFilter() {
        let target = listing(name: "요가 수업", description: "Yoga for beginners, 초보 환영")
        let text = target.name + "\n" + target.description
        var filter = KeywordFilter(listing: target)
        let keywords = ["요가", "요가수업", "가수", "yog", "YOGA", "필라테스", "영", "?!", "요가", "수학", "초보 환영", "beg"]
        for keyword in keywords {
            let expected = SearchTokenizer.query(keyword)?.matches(text) ?? false
            let accepted = filter.accepts(keyword)
            #expect(accepted == expected, "\(keyword)")
        }
        let noKeyword = filter.accepts(nil), punctuation = filter.accepts("?!"), repeated = filter.accepts("요가수업")
        #expect(noKeyword && !punctuation && repeated)
    }

    /// Checks request validation and the reported field names.
    @Test("validation of alert requests")
    func validation() {
        func fields(lat: Double? = 37.5, lon: Double? = 127, radius: Double? = 3_000, query: String? = nil,
                    maxPrice: Int? = nil, subjects: [Subject]? = nil, days: [Weekday]? = nil) -> [String] {
            var validator = FieldValidator()
            Alert.check(lat: lat, lon: lon, radius: radius, query: query, maxPrice: maxPrice, subjects: subjects,
                        days: days, into: &validator)
            return validator.errors.map(\.field)
        }
        #expect(fields().isEmpty)
        #expect(fields(lat: -90, lon: 180, radius: 1, query: "요가", maxPrice: 0).isEmpty)
        #expect(fields(radius: 50_000, maxPrice: 100_000_000).isEmpty)
        #expect(fields(lat: nil, lon: nil, radius: nil) == ["lat", "lon", "radius"])
        #expect(fields(lat: 90.5) == ["lat"])
        #expect(fields(lat: .nan, lon: .infinity) == ["lat", "lon"])
        #expect(fields(lon: -181) == ["lon"])
        #expect(fields(radius: 0.5) == ["radius"])
        #expect(fields(radius: 50_001) == ["radius"])
        #expect(fields(radius: .nan) == ["radius"])
        #expect(fields(query: "  ?! ") == ["q"])
        #expect(fields(maxPrice: -1) == ["maxPrice"])
        #expect(fields(maxPrice: 100_000_001) == ["maxPrice"])
        #expect(fields(subjects: [.math, .math], days: [.mon, .mon]) == ["subjects", "days"])
    }
}

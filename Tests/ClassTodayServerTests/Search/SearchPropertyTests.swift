import ClassTodayCore
import Foundation
import ClassTodayTestSupport
import Logging
import Testing
@testable import ClassTodayServer

/// Fast paths against brute force: thousands of random listings, hundreds of random searches (circles and boxes
/// near the antimeridian and the poles, tiny and maximal radii, keywords, filters, every sort, random page
/// sizes), each compared with a full scan that applies ``ClassSearch/matchesFilters(_:)`` and
/// ``SearchQuery/matches(_:)`` to every listing.
@Suite("Search against brute force", .serialized, .sqliteOnly)
struct SearchPropertyTests {

    static let words = ["수학", "요가", "영어", "기타", "수업", "과외", "초등", "코딩", "python", "Guitar", "yoga", "토익", "영", "피아노 레슨", "요가수업", "café"]
    static let hotspots = [
        GeoPoint(lat: 37.5665, lon: 126.9780), GeoPoint(lat: 35.1796, lon: 129.0756), // Seoul, Busan
        GeoPoint(lat: -16.5, lon: 179.95), GeoPoint(lat: -16.5, lon: -179.95),        // Fiji, both sides of 180°
        GeoPoint(lat: 89.95, lon: 10), GeoPoint(lat: -89.9, lon: -120),               // near the poles
        GeoPoint(lat: 0, lon: 0),
    ]

    /// Random listings around ``hotspots`` named from ``words`` (many sharing a creation time).
    static func randomListings(count: Int, writers: [String], random: inout SeededRandom) -> [ClassListing] {
        let start = Date()
        return (0..<count).map { index in
            let hotspot = hotspots[Int.random(in: 0..<hotspots.count, using: &random)]
            let spread = [0.0005, 0.01, 0.2, 1.0][Int.random(in: 0..<4, using: &random)]
            var point = random.point(near: hotspot, spread: spread)
            // Some listings lie on the antimeridian itself, as 180 or as -180, which boxes must take for one meridian.
            if abs(hotspot.lon) > 179, Int.random(in: 0..<8, using: &random) == 0 { point.lon = Bool.random(using: &random) ? 180 : -180 }
            let name = (0..<Int.random(in: 1...2, using: &random)).map { _ in words.randomElement(using: &random)! }.joined(separator: " ")
            return ClassListing(
                id: Identifier.make(at: start.addingTimeInterval(Double(index)), using: &random),
                type: Bool.random(using: &random) ? .buy : .sell, name: name,
                description: words.randomElement(using: &random)! + " 설명",
                days: Array(Weekday.allCases.shuffled(using: &random).prefix(Int.random(in: 0...2, using: &random))),
                time: nil, place: nil,
                location: Int.random(in: 0..<20, using: &random) == 0 ? nil : point,
                keywordLocation: ["관악구", "강남구", nil].randomElement(using: &random)!,
                price: Int.random(in: 0..<5, using: &random) == 0 ? nil : Int.random(in: 0...100_000, using: &random),
                priceUnit: .perHour,
                subjects: Array(Subject.allCases.shuffled(using: &random).prefix(Int.random(in: 0...2, using: &random))),
                targets: Array(Target.allCases.shuffled(using: &random).prefix(Int.random(in: 0...2, using: &random))),
                capacity: 1, status: [.open, .open, .open, .closed, .matched].randomElement(using: &random)!, imageIds: [],
                writerId: writers.randomElement(using: &random)!, favoriteCount: 0,
                createdAt: start.addingTimeInterval(Double(index % 50)), updatedAt: start)
        }
    }

    final class Fixture: Sendable {
        let store: SQLiteStore
        let repository: SQLClassRepository
        /// The five writers of ``listings``.
        let writers: [String]
        let listings: [ClassListing]
        let folder: String
        /// A viewer who blocked one writer and was blocked by another: neither's listings reach them.
        let viewer: String
        /// The two writers ``viewer`` must not see.
        let blockedWriters: Set<String>

        /// ``SearchPropertyTests/randomListings(count:writers:random:)``, `count` of them.
        convenience init(seed: UInt64, count: Int) async throws {
            try await self.init(seed: seed) { writers, random in SearchPropertyTests.randomListings(count: count, writers: writers, random: &random) }
        }

        /// The listings `make` makes for the fixture's writers.
        init(seed: UInt64, listings make: ([String], inout SeededRandom) -> [ClassListing]) async throws {
            var random = SeededRandom(seed: seed)
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("classtoday-search-\(UUID().uuidString)").path
            store = try SQLiteStore.open(path: folder + "/db.sqlite", durableCommits: false)
            try await store.migrate(try Migration.load(from: TestServer.migrationsDirectory + "/sqlite"), logger: Logger(label: "test"))
            let users = SQLUserRepository(database: store.database)
            var writers: [String] = []
            for index in 0..<5 {
                writers.append(try await users.create(NewUser(email: "w\(index)@example.com", passwordHash: "x", nickname: "w\(index)"), at: Date()).id)
            }
            viewer = try await users.create(NewUser(email: "viewer@example.com", passwordHash: "x", nickname: "viewer"), at: Date()).id
            let blocks = SQLBlockRepository(database: store.database)
            _ = try await blocks.block(writers[0], by: viewer, at: Date())
            _ = try await blocks.block(viewer, by: writers[1], at: Date())
            blockedWriters = [writers[0], writers[1]]
            self.writers = writers
            repository = SQLClassRepository(database: store.database)
            var created: [ClassListing] = []
            for listing in make(writers, &random) {
                created.append(try await repository.create(listing).listing)
            }
            listings = created
        }

        deinit { try? FileManager.default.removeItem(atPath: folder) }

        /// The ids of `search`'s pages as `viewerId` sees them, `limit` at a time, up to a page past `atMost` ids.
        func pageIds(_ search: ClassSearch, viewerId: String?, limit: Int, fewHits: Int, atMost: Int) async throws -> [String] {
            try await pages(search, viewerId: viewerId, limit: limit, fewHits: fewHits, atMost: atMost).flatMap { $0 }
        }

        /// The ids of each of `search`'s pages as `viewerId` sees them, `limit` at a time, confirming at most `confirming`
        /// keyword candidates a page, up to a page past `atMost` ids.
        func pages(
            _ search: ClassSearch, viewerId: String?, limit: Int, fewHits: Int, confirming: Int = SQLClassSearch.confirmationBudget,
            atMost: Int
        ) async throws -> [[String]] {
            var pages: [[String]] = []
            var page = PageRequest(limit: limit)
            while true {
                let result = try await repository.search(search, viewerId: viewerId, page: page, fewHits: fewHits, confirming: confirming)
                pages.append(result.items.map(\.listing.id))
                guard let next = result.nextCursor, pages.joined().count <= atMost else { return pages }
                page = PageRequest(limit: limit, after: try PageCursor.decode(next, ordering: search.sort.rawValue))
            }
        }
    }

    static func randomSearch(_ random: inout SeededRandom) -> ClassSearch {
        var search = ClassSearch()
        let hotspot = hotspots[Int.random(in: 0..<hotspots.count, using: &random)]
        let center = GeoPoint(lat: min(90, max(-90, hotspot.lat + Double.random(in: -0.3...0.3, using: &random))),
                              lon: hotspot.lon + Double.random(in: -0.3...0.3, using: &random))
        let wrapped = GeoPoint(lat: center.lat, lon: center.lon > 180 ? center.lon - 360 : center.lon < -180 ? center.lon + 360 : center.lon)
        switch Int.random(in: 0..<6, using: &random) {
        case 0, 1, 2:
            let radius = [10.0, 500, 3000, 20_000, 50_000][Int.random(in: 0..<5, using: &random)]
            search.circle = .init(center: wrapped, radius: radius)
        case 3:
            let width = Double.random(in: 0.001...2, using: &random), height = Double.random(in: 0.001...2, using: &random)
            var minLon = wrapped.lon - width, maxLon = wrapped.lon + width
            if minLon < -180 { minLon += 360 }
            if maxLon > 180 { maxLon -= 360 }
            search.box = GeoBoundingBox(minLat: max(-90, wrapped.lat - height), maxLat: min(90, wrapped.lat + height), minLon: minLon, maxLon: maxLon)
        case 4:
            search.circle = .init(center: wrapped, radius: 50_000)
            search.box = GeoBoundingBox(minLat: wrapped.lat - 0.2, maxLat: wrapped.lat + 0.2, minLon: max(-180, wrapped.lon - 0.2), maxLon: min(180, wrapped.lon + 0.2))
        default:
            break
        }
        if Int.random(in: 0..<3, using: &random) == 0 { search.keyword = SearchTokenizer.query(words.randomElement(using: &random)!) }
        if Int.random(in: 0..<4, using: &random) == 0 { search.type = Bool.random(using: &random) ? .buy : .sell }
        if Int.random(in: 0..<4, using: &random) == 0 { search.subjects = [Subject.allCases.randomElement(using: &random)!, .math] }
        if Int.random(in: 0..<5, using: &random) == 0 { search.targets = [Target.allCases.randomElement(using: &random)!] }
        if Int.random(in: 0..<5, using: &random) == 0 { search.days = [Weekday.allCases.randomElement(using: &random)!] }
        if Int.random(in: 0..<5, using: &random) == 0 { search.minPrice = Int.random(in: 0...50_000, using: &random) }
        if Int.random(in: 0..<5, using: &random) == 0 { search.maxPrice = Int.random(in: 50_000...100_000, using: &random) }
        if Int.random(in: 0..<6, using: &random) == 0 { search.keywordLocation = "관악구" }
        search.status = [.open, .open, nil, .closed].randomElement(using: &random)!
        var sorts: [ClassSearch.Sort] = [.recent]
        if search.circle != nil { sorts.append(.distance) }
        if search.keyword != nil { sorts.append(.relevance) }
        search.sort = sorts.randomElement(using: &random)!
        return search
    }

    @Test("a keyword's nearest-first pages, typo-tolerant and initial-consonant words and words held by none included, equal brute force in order, walked over the hits' rowids or with statements")
    func keywordNearestFirst() async throws {
        let fixture = try await Fixture(seed: 20261126, count: 2500)
        var random = SeededRandom(seed: 26)
        let keywords = Self.words + ["피아너", "요가수엽", "ㅅㅎ", "없는말"]
        var found = 0
        for round in 0..<120 {
            var search = ClassSearch()
            let hotspot = Self.hotspots[round % 2]
            let center = GeoPoint(lat: hotspot.lat + Double.random(in: -0.1...0.1, using: &random),
                                  lon: hotspot.lon + Double.random(in: -0.1...0.1, using: &random))
            search.circle = .init(center: center, radius: [500.0, 3000, 20_000, 50_000].randomElement(using: &random)!)
            search.keyword = SearchTokenizer.query(keywords.randomElement(using: &random)!)
            search.status = [.open, nil].randomElement(using: &random)!
            search.sort = .distance
            let viewerId = Bool.random(using: &random) ? fixture.viewer : nil
            let limit = [5, 20].randomElement(using: &random)!
            let expected = fixture.listings.filter { listing in
                search.matchesFilters(listing) && search.keyword?.matches(listing.name + "\n" + listing.description) == true
                    && (viewerId == nil || !fixture.blockedWriters.contains(listing.writerId))
            }.map { (Haversine.distance(center, $0.location!), $0.id) }.sorted { $0 < $1 }.map(\.1)
            found += expected.count
            // By default, and with 8, the walk reads each cell's hits as rowids and places them with the listings'
            // points; 0 walks with statements.
            for fewHits in [SQLClassSearch.fewHits, 0, 8] {
                let ids = try await fixture.pageIds(search, viewerId: viewerId, limit: limit, fewHits: fewHits, atMost: expected.count)
                #expect(ids == expected, "round \(round), fewHits \(fewHits): \(search)")
            }
        }
        #expect(found > 1_000, "the searches should find many listings")
    }

    @Test("a typo-tolerant word whose unmatched candidates crowd the centre and whose matches lie far pages as brute force does, confirmed on their text")
    func farMatchesAmongNearCandidates() async throws {
        let fixture = try await Fixture(seed: 11) { writers, random in Self.farMatchListings(writers: writers, random: &random) }
        let expected = Self.farMatches(among: fixture.listings)
        for (fewHits, limit) in [(SQLClassSearch.fewHits, 5), (SQLClassSearch.fewHits, 20), (0, 20), (8, 20)] {
            let ids = try await fixture.pageIds(Self.farMatchSearch, viewerId: nil, limit: limit, fewHits: fewHits, atMost: expected.count)
            #expect(ids == expected, "fewHits \(fewHits), limit \(limit)")
        }
    }

    @Test("keywords whose hits crowd the centre's cells, plain, typo-tolerant and initial consonants, page nearest first as brute force does, the crowded cells split")
    func crowdedHitCells() async throws {
        let fixture = try await Fixture(seed: 12) { writers, random in Self.crowdedListings(writers: writers, random: &random) }
        var found = 0
        for word in ["요가", "피아너", "ㅇㄱ"] {
            for radius in [30.0, 300, 3000, 50_000] {
                var search = ClassSearch()
                search.circle = .init(center: Self.hotspots[0], radius: radius)
                search.keyword = SearchTokenizer.query(word)
                search.sort = .distance
                let expected = fixture.listings.filter { listing in
                    search.matchesFilters(listing) && search.keyword?.matches(listing.name + "\n" + listing.description) == true
                }.map { (Haversine.distance(Self.hotspots[0], $0.location!), $0.id) }.sorted { $0 < $1 }.map(\.1)
                found += expected.count
                // By default the walk reads the hits' rowids and places them with the listings' points; 0 walks with
                // statements.
                for (fewHits, limit) in [(SQLClassSearch.fewHits, 20), (SQLClassSearch.fewHits, 7), (0, 20)] {
                    let ids = try await fixture.pageIds(search, viewerId: nil, limit: limit, fewHits: fewHits, atMost: expected.count)
                    #expect(ids == expected, "\(word) within \(radius) m, fewHits \(fewHits), limit \(limit)")
                }
            }
        }
        #expect(found > 4_000, "the searches should find many listings")
    }

    /// 1,600 open listings, seven in eight within about 1 km of Seoul's hotspot, the rest within 30 km: half `요가 수업`,
    /// a quarter `피아노 레슨` and a quarter `피아트 수업`, so that a cell around the centre holds more hits of `요가`, and
    /// more candidates of `피아너` (`피아`) and of `ㅇㄱ`, than a walk reads of one cell.
    static func crowdedListings(writers: [String], random: inout SeededRandom) -> [ClassListing] {
        randomListings(count: 1_600, writers: writers, random: &random).enumerated().map { index, listing in
            var listing = listing
            listing.name = ["요가 수업", "요가 수업", "피아노 레슨", "피아트 수업"][index % 4]
            (listing.description, listing.status) = ("설명", .open)
            listing.location = random.point(near: hotspots[0], spread: index % 8 == 7 ? 0.3 : 0.01)
            return listing
        }
    }

    /// 300 open `피아트` listings within about 2 km of Seoul's hotspot and 80 open `피아노 레슨` ones 10-45 km out:
    /// `피아트` holds `피아`, as the candidates of `피아너` (``farMatchSearch``) must, but differs from `피아노` in two jamo.
    static func farMatchListings(writers: [String], random: inout SeededRandom) -> [ClassListing] {
        let center = hotspots[0]
        return randomListings(count: 380, writers: writers, random: &random).enumerated().map { index, listing in
            var listing = listing
            let decoy = index < 300
            (listing.name, listing.description, listing.status) = (decoy ? "피아트 수업" : "피아노 레슨", "설명", .open)
            repeat {
                listing.location = random.point(near: center, spread: decoy ? 0.02 : 0.4)
            } while !decoy && !(10_000...45_000).contains(Haversine.distance(center, listing.location!))
            return listing
        }
    }

    /// `피아너` within 50 km of Seoul's hotspot, nearest first.
    static var farMatchSearch: ClassSearch {
        var search = ClassSearch()
        search.circle = .init(center: hotspots[0], radius: 50_000)
        search.keyword = SearchTokenizer.query("피아너")
        search.sort = .distance
        return search
    }

    /// The ids ``farMatchSearch`` finds among ``farMatchListings(writers:random:)``, nearest first.
    static func farMatches(among listings: [ClassListing]) -> [String] {
        listings.filter { $0.name == "피아노 레슨" }.map { (Haversine.distance(hotspots[0], $0.location!), $0.id) }.sorted { $0 < $1 }.map(\.1)
    }

    /// 1,500 open listings around Seoul's hotspot, one in 25 named `가게 구경` (a run of four syllables starting with ㄱ)
    /// and in the district `가게동`, the others `가게 수리` (one such pair) elsewhere: `ㄱㄱㄱㄱ`'s index condition, the
    /// pair `ㄱㄱ`, holds all of them, and the district few.
    static func initialsRunListings(writers: [String], random: inout SeededRandom) -> [ClassListing] {
        randomListings(count: 1_500, writers: writers, random: &random).enumerated().map { index, listing in
            var listing = listing
            let isMatch = index % 25 == 0
            (listing.name, listing.description, listing.status) = (isMatch ? "가게 구경" : "가게 수리", "설명", .open)
            listing.keywordLocation = isMatch ? "가게동" : "다른동"
            listing.location = random.point(near: hotspots[0], spread: 0.1)
            return listing
        }
    }

    @Test("a run of initials almost nothing matches ends a page after its budget of candidates confirmed, by relevance and nearest first, over the points and with statements: pages come short, and walking their cursors gives brute force; so does a keyword all the listings hold with a price few ask; a district a circle barely holds spends the budget on its own listings alone, with a keyword all the listings hold or without, and its pages stay full")
    func confirmationBudget() async throws {
        // The matches alone ask 200,000 or more, so that with a keyword all the listings hold, a price selects them.
        let fixture = try await Fixture(seed: 14) { writers, random in
            Self.initialsRunListings(writers: writers, random: &random).map { listing in
                var listing = listing
                listing.price = listing.name == "가게 구경" ? 200_000 + (listing.price ?? 0) : listing.price.map { $0 % 200_000 }
                return listing
            }
        }
        let matches = fixture.listings.filter { $0.name == "가게 구경" }
        let circle = ClassSearch.Circle(center: Self.hotspots[0], radius: 50_000)
        var byRelevance = ClassSearch(), nearestFirst = ClassSearch(), inDistrict = ClassSearch()
        (byRelevance.keyword, byRelevance.sort) = (SearchTokenizer.query("ㄱㄱㄱㄱ"), .relevance)
        (nearestFirst.keyword, nearestFirst.sort, nearestFirst.circle) = (SearchTokenizer.query("ㄱㄱㄱㄱ"), .distance, circle)
        (inDistrict.keywordLocation, inDistrict.sort, inDistrict.circle) = ("가게동", .distance, circle)
        var keywordInDistrict = inDistrict, keywordAndPrice = ClassSearch()
        keywordInDistrict.keyword = SearchTokenizer.query("가게")
        (keywordAndPrice.keyword, keywordAndPrice.minPrice, keywordAndPrice.sort, keywordAndPrice.circle) =
            (SearchTokenizer.query("가게"), 200_000, .distance, circle)
        let newestFirst = matches.sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }.map(\.id)
        let nearest = matches.map { (Haversine.distance(Self.hotspots[0], $0.location!), $0.id) }.sorted { $0 < $1 }.map(\.1)
        // With `fewHits` 0 a keyword's circle is walked with statements, as a district's always is. The district's walk
        // counts the cells' listings, or hits, of the district, 60 of the 1,500, so the budget never ends its pages;
        // counting every listing, or hit, of its cells, it did.
        let searches = [
            ("relevance", byRelevance, newestFirst, SQLClassSearch.fewHits, true), ("over the points", nearestFirst, nearest, SQLClassSearch.fewHits, true),
            ("with statements", nearestFirst, nearest, 0, true), ("district", inDistrict, nearest, SQLClassSearch.fewHits, false),
            ("keyword in district", keywordInDistrict, nearest, 0, false),
            ("keyword and price over the points", keywordAndPrice, nearest, SQLClassSearch.fewHits, true),
            ("keyword and price with statements", keywordAndPrice, nearest, 0, true),
        ]
        for (label, search, expected, fewHits, endsEarly) in searches {
            #expect(expected.count == 60)
            let whole = try await fixture.pages(search, viewerId: nil, limit: 20, fewHits: fewHits, atMost: expected.count)
            #expect(Array(whole.joined()) == expected, "\(label)")
            #expect(whole.dropLast().allSatisfy { $0.count == 20 }, "\(label): \(whole.map(\.count))")
            let budgeted = try await fixture.pages(search, viewerId: nil, limit: 20, fewHits: fewHits, confirming: 200, atMost: expected.count)
            #expect(Array(budgeted.joined()) == expected, "\(label)")
            if endsEarly {
                #expect(budgeted.count > whole.count && budgeted.dropLast().contains { $0.count < 20 }, "\(label): \(budgeted.map(\.count))")
            } else {
                #expect(budgeted.map(\.count) == whole.map(\.count), "\(label)")
            }
        }
    }

    /// 1,500 open listings around Seoul's hotspot: 200 `공업수학 과외`, 100 `업수 공업` (`공업` and `업수`, not in order)
    /// and 1,200 `수학 공부`: `수학` is held by over four times as many as `공업` and `업수`, which `공업수학` then asks
    /// the index for alone (``SearchQuery/leavingOutCommonTokens(counts:)``).
    static func commonTokenListings(writers: [String], random: inout SeededRandom) -> [ClassListing] {
        randomListings(count: 1_500, writers: writers, random: &random).enumerated().map { index, listing in
            var listing = listing
            listing.name = index < 200 ? "공업수학 과외" : index < 300 ? "업수 공업" : "수학 공부"
            (listing.description, listing.status) = ("설명", .open)
            listing.location = random.point(near: hotspots[0], spread: 0.2)
            return listing
        }
    }

    /// `공업수학` by relevance and within 50 km of Seoul's hotspot nearest first, with the ids brute force gives each
    /// among `listings`.
    static func commonTokenSearches(among listings: [ClassListing]) -> [(search: ClassSearch, expected: [String])] {
        let keyword = SearchTokenizer.query("공업수학")
        let matches = listings.filter { keyword?.matches($0.name + "\n" + $0.description) == true }
        var byRelevance = ClassSearch(), nearestFirst = ClassSearch()
        (byRelevance.keyword, byRelevance.sort) = (keyword, .relevance)
        (nearestFirst.keyword, nearestFirst.sort, nearestFirst.circle) = (keyword, .distance, .init(center: hotspots[0], radius: 50_000))
        return [
            // All are name hits, newest first: creation time, then id.
            (byRelevance, matches.sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }.map(\.id)),
            (nearestFirst, matches.map { (Haversine.distance(hotspots[0], $0.location!), $0.id) }.sorted { $0 < $1 }.map(\.1)),
        ]
    }

    @Test("a keyword's token over four times as common as the rarest beside it is counted in the FTS index and left out, and its pages equal brute force")
    func commonTokenLeftOut() async throws {
        let fixture = try await Fixture(seed: 13) { writers, random in Self.commonTokenListings(writers: writers, random: &random) }
        let counts = try await fixture.store.database.read { db in
            try await FTS5ClassIndex().counts(of: ["공업", "업수", "수학", "없는"], upTo: 1_000, db)
        }
        #expect(counts == ["공업": 300, "업수": 300, "수학": 1_000, "없는": 0], "exact, and at most the limit")
        // The first search starts counting its tokens apart and reads with all of them, as may those after it; once
        // they are kept, the searches leave the common one out.
        for counted in [false, true] {
            if counted {
                let kept = await eventually {
                    fixture.store.tokenCounts.counts(of: ["공업", "업수", "수학"]) == ["공업": 300, "업수": 300, "수학": 1_400]
                }
                #expect(kept, "the searches counted their tokens apart and kept them")
            }
            for (search, expected) in Self.commonTokenSearches(among: fixture.listings) {
                #expect(expected.count == 200)
                for fewHits in [SQLClassSearch.fewHits, 8, 0] {
                    let ids = try await fixture.pageIds(search, viewerId: nil, limit: 20, fewHits: fewHits, atMost: expected.count)
                    #expect(ids == expected, "\(search.sort), fewHits \(fewHits), counted \(counted)")
                }
            }
        }
    }

    @Test("random circles, boxes, keywords and filters, anonymous or by a viewer with blocks both ways, return exactly the brute-force set, each once, in order; so do those ending their pages after a small budget of candidates, each page walked another way than the last")
    func againstBruteForce() async throws {
        let fixture = try await Fixture(seed: 20261122, count: 2500)
        var random = SeededRandom(seed: 7)
        var nonEmpty = 0
        for round in 0..<300 {
            let search = Self.randomSearch(&random)
            let limit = [5, 20, 100].randomElement(using: &random)!
            let viewerId = Bool.random(using: &random) ? fixture.viewer : nil
            // A quarter of the rounds end their pages after a few candidates, and continue each page's cursor with
            // the other walk of a circle: over the points, then with statements.
            let budget = round % 4 == 3 ? [1, 40, 400][round / 4 % 3] : nil
            var views: [ClassView] = []
            var page = PageRequest(limit: limit)
            var pages = 0
            while true {
                // A third of the rounds walk a keyword's circle with statements; the others read each cell's hits as
                // rowids when the listings' points can answer, and else read the hits at once when few (8 at most
                // with 8).
                let fewHits = budget == nil ? [SQLClassSearch.fewHits, 0, 8][round % 3] : [SQLClassSearch.fewHits, 0][pages % 2]
                let result = try await fixture.repository.search(search, viewerId: viewerId, page: page, fewHits: fewHits,
                                                                 confirming: budget ?? SQLClassSearch.confirmationBudget)
                views += result.items
                pages += 1
                #expect(budget != nil || result.nextCursor == nil || result.items.count == limit, "round \(round): a short page before the last")
                guard let next = result.nextCursor, pages < 3000 else { break }
                page = PageRequest(limit: limit, after: try PageCursor.decode(next, ordering: search.sort.rawValue))
            }
            let expected = Set(fixture.listings.filter { listing in
                search.matchesFilters(listing)
                    && (viewerId == nil || !fixture.blockedWriters.contains(listing.writerId))
                    && (search.keyword.map { $0.matches(listing.name + "\n" + listing.description) } ?? true)
            }.map(\.id))
            let ids = views.map(\.listing.id)
            #expect(Set(ids).count == ids.count, "round \(round): an item appeared twice")
            #expect(Set(ids) == expected, "round \(round): \(search) missing \(expected.subtracting(ids).count), extra \(Set(ids).subtracting(expected).count)")
            if !expected.isEmpty { nonEmpty += 1 }
            switch search.sort {
            case .distance:
                let keys = views.map { ($0.distance ?? -1, $0.listing.id) }
                #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 <= $1 }, "round \(round): not nearest first")
                if let circle = search.circle {
                    for view in views {
                        let exact = Haversine.distance(circle.center, try #require(view.listing.location))
                        #expect(abs(exact - (view.distance ?? -1)) < 0.01)
                    }
                }
            case .recent:
                let keys = views.map { ($0.listing.createdAt, $0.listing.id) }
                #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 >= $1 }, "round \(round): not newest first")
            case .relevance:
                let keyword = try #require(search.keyword)
                #expect(keyword.isInRelevanceOrder(views.map(\.listing)), "round \(round): not name hits first, then newest first")
            }
            if search.circle != nil { #expect(views.allSatisfy { $0.distance != nil }) }
        }
        #expect(nonEmpty > 80, "the random searches should mostly find something")
    }
}

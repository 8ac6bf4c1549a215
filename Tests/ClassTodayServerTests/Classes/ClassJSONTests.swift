import ClassTodayCore
import ClassTodayTestSupport
import Foundation
import HummingbirdCore
import NIOCore
import Testing
@testable import ClassTodayServer

/// Class objects and class pages are written by hand (``JSONObjectWriter``) for speed; every byte must be what
/// `APIJSONEncoder` writes for the same `Encodable` response, so that the two can never drift apart.
@Suite("Class objects as JSON")
struct ClassJSONTests {
    /// Numbers whose text is easy to get wrong: whole, tiny, huge, negative, long fractions.
    static let awkwardNumbers: [Double] = [0, -0.0, 1, -1, 0.1, 1e-7, 1.5e-5, 123_456_789.1, 1e15, 1e16, 2e21, -179.9999999, 4.333333333333333, 37.4842, 126.9297]

    static func number(_ random: inout SeededRandom, in range: ClosedRange<Double>) -> Double {
        Bool.random(using: &random) ? awkwardNumbers.randomElement(using: &random)! : Double.random(in: range, using: &random)
    }

    static func maybe<Value>(_ random: inout SeededRandom, _ value: (inout SeededRandom) -> Value) -> Value? {
        Bool.random(using: &random) ? value(&random) : nil
    }

    static func randomView(_ random: inout SeededRandom) -> ClassView {
        let created = Date(timeIntervalSince1970: Double.random(in: 0...4_000_000_000, using: &random))
        let listing = ClassListing(
            id: UUID().uuidString, type: ClassType.allCases.randomElement(using: &random)!, name: random.awkwardText(),
            description: random.awkwardText(), days: Weekday.allCases.filter { _ in Bool.random(using: &random) },
            time: maybe(&random) { $0.awkwardText() }, place: maybe(&random) { $0.awkwardText() },
            location: maybe(&random) { GeoPoint(lat: number(&$0, in: -90...90), lon: number(&$0, in: -180...180)) },
            keywordLocation: maybe(&random) { $0.awkwardText() }, price: maybe(&random) { Int.random(in: 0...10_000_000, using: &$0) },
            priceUnit: PriceUnit.allCases.randomElement(using: &random)!, subjects: Subject.allCases.filter { _ in Int.random(in: 0..<8, using: &random) == 0 },
            targets: Target.allCases.filter { _ in Bool.random(using: &random) }, capacity: Int.random(in: 1...100, using: &random),
            status: ClassStatus.allCases.randomElement(using: &random)!, imageIds: (0..<Int.random(in: 0...3, using: &random)).map { _ in UUID().uuidString },
            writerId: UUID().uuidString, favoriteCount: Int.random(in: 0...100_000, using: &random), createdAt: created,
            updatedAt: created.addingTimeInterval(Double.random(in: 0...1e6, using: &random)),
            hiddenAt: maybe(&random) { _ in created })
        let writer = WriterSummary(
            id: UUID().uuidString, nickname: random.awkwardText(), profileImageId: maybe(&random) { _ in UUID().uuidString },
            rating: Rating(average: number(&random, in: 0...5), count: Int.random(in: 0...1_000, using: &random)))
        return ClassView(listing: listing, writer: writer, isFavorite: Bool.random(using: &random),
                         distance: maybe(&random) { number(&$0, in: 0...20_000_000) })
    }

    @Test("a class object written by hand is byte for byte what JSONEncoder writes")
    func classObject() throws {
        var random = SeededRandom(seed: 71)
        for _ in 0..<2_000 {
            let view = Self.randomView(&random)
            let encoded = String(decoding: try APIJSONEncoder.encode(ClassResponse(view: view)), as: UTF8.self)
            #expect(ClassPageItem(view: view).jsonText == encoded)
        }
    }

    @Test("integers are written as JSONEncoder writes them, at the ends of their ranges too")
    func integers() throws {
        struct Numbers: Encodable { let small: Int; let large: Int64; let unsigned: UInt64; let byte: Int8 }
        let cases = [Numbers(small: 0, large: .min, unsigned: .max, byte: .min), Numbers(small: -1, large: .max, unsigned: 0, byte: .max),
                     Numbers(small: 9, large: -10, unsigned: 10, byte: -9), Numbers(small: 1_000_000, large: 99_999, unsigned: 100, byte: 0)]
        for numbers in cases {
            var object = JSONObjectWriter()
            // In the order of the encoder's sorted keys.
            object.add("byte", numbers.byte)
            object.add("large", numbers.large)
            object.add("small", numbers.small)
            object.add("unsigned", numbers.unsigned)
            #expect(object.finish() == String(decoding: try APIJSONEncoder.encode(numbers), as: UTF8.self))
        }
    }

    @Test("a class page written by hand is byte for byte what JSONEncoder writes, empty and with a next cursor")
    func classPage() throws {
        var random = SeededRandom(seed: 72)
        for size in [0, 1, 20, 100] {
            for cursor in [nil, "eyJ0IjoiYS9iIn0\"", "abc"] {
                let items = (0..<size).map { _ in ClassPageItem(view: Self.randomView(&random)) }
                let page = PageResponse(items: items, nextCursor: cursor, requestURI: URI("/v1/classes?q=%EA%B8%B0%ED%83%80"))
                let encoded = String(decoding: try APIJSONEncoder.encode(page), as: UTF8.self)
                #expect(String(buffer: try page.body()) == encoded)
            }
        }
    }
}

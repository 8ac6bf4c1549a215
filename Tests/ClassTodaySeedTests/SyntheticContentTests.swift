import Foundation
import Testing
import ClassTodayCore
@testable import ClassTodaySeed

@Suite("SyntheticData content")
struct SyntheticContentTests {
    /// A few thousand drafts shared by the content tests.
    static let drafts: [ClassDraft] = {
        var data = SyntheticData(seed: 2024)
        return (0..<4_000).map { _ in data.classDraft() }
    }()

    @Test("fields are distributed like real listings")
    func fieldDistributions() {
        let drafts = Self.drafts
        let count = Double(drafts.count)
        func share(_ predicate: (ClassDraft) -> Bool) -> Double {
            Double(drafts.filter(predicate).count) / count
        }
        #expect((0.50...0.60).contains(share { $0.type == .sell }))
        #expect((0.65...0.85).contains(share { $0.capacity == 1 }))
        #expect(drafts.allSatisfy { (1...10).contains($0.capacity ?? 0) })
        #expect(drafts.allSatisfy { (1...2).contains($0.subjects?.count ?? 0) })
        #expect(drafts.allSatisfy { (1...2).contains($0.targets?.count ?? 0) })
        #expect(share { $0.subjects?.count == 2 } > 0.05)
        #expect(share { $0.targets?.count == 2 } > 0.05)
        #expect((0.12...0.32).contains(share { ($0.time ?? nil) == nil }))
        #expect((0.10...0.30).contains(share { ($0.price ?? nil) == nil }))
        #expect(share { ($0.price ?? nil) == 0 } > 0.001)
        #expect(Set(drafts.compactMap(\.priceUnit)) == Set(PriceUnit.allCases))
        #expect(Set(drafts.flatMap { $0.subjects ?? [] }) == Set(Subject.allCases))
        #expect(Set(drafts.flatMap { $0.targets ?? [] }) == Set(Target.allCases))
        #expect(Set(drafts.compactMap(\.name)).count > 1_000)
    }

    @Test("prices suit their units")
    func prices() {
        for draft in Self.drafts {
            guard let price = draft.price ?? nil, price > 0, let unit = draft.priceUnit else { continue }
            switch unit {
            case .perProblem: #expect((1_000...10_000).contains(price), "\(price) per problem")
            case .perHour: #expect((5_000...60_000).contains(price), "\(price) per hour")
            case .perClass: #expect((5_000...100_000).contains(price), "\(price) per class")
            }
        }
    }

    @Test("times are plausible ranges")
    func times() {
        for draft in Self.drafts {
            guard let time = draft.time ?? nil else { continue }
            guard let range = TimeRange(time) else {
                Issue.record("invalid time \(time)")
                continue
            }
            #expect(range.start >= 9 * 60 && range.end <= 23 * 60 && range.end - range.start <= 180, "\(time)")
        }
    }

    @Test("names and descriptions are Korean and places are road addresses in the district")
    func text() {
        for draft in Self.drafts {
            let name = draft.name ?? ""
            let description = draft.description ?? ""
            #expect(SeedTestSupport.containsHangul(name), "\(name)")
            #expect(SeedTestSupport.containsHangul(description))
            #expect((10...600).contains(description.count), "\(description)")
            #expect(!name.contains("{") && !description.contains("{"))
            if let place = draft.place ?? nil, let district = draft.keywordLocation ?? nil {
                #expect(place.contains(" " + district + " "), "\(place) is not in \(district)")
            }
        }
    }

    @Test("keyword search words match a few percent of listings, never by accident", arguments: [
        ("수학", 0.02...0.10),
        ("요가", 0.005...0.04),
        ("토익", 0.003...0.04),
        ("python", 0.003...0.04),
        ("수업", 0.15...0.80),
    ])
    func vocabulary(word: String, expected: ClosedRange<Double>) throws {
        let query = try #require(SearchTokenizer.query(word))
        let sample = Self.drafts.prefix(2_000)
        var matches = 0
        for draft in sample {
            let text = SeedTestSupport.searchText(draft)
            guard query.matches(text) else { continue }
            matches += 1
            // A Hangul query word may also match across two words of a sentence ("필요 가능" → "요가");
            // the templates avoid that, so every match really contains the word.
            #expect(text.lowercased().contains(word), "\(word) matched \(text)")
        }
        let share = Double(matches) / Double(sample.count)
        #expect(expected.contains(share), "\(word) matches \(share)")
    }

    @Test("English words appear in language and computer listings")
    func englishWords() {
        let englishTopics = Self.drafts.filter { draft in
            draft.subjects?.first == .computer || draft.subjects?.first == .english
        }
        let withLatin = englishTopics.filter { draft in
            SeedTestSupport.searchText(draft).unicodeScalars.contains { (65...90).contains($0.value) }
        }
        #expect(Double(withLatin.count) / Double(englishTopics.count) > 0.2)
    }
}

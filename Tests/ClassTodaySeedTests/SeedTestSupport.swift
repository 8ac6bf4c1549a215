import Foundation
import ClassTodayCore
@testable import ClassTodaySeed

/// Helpers shared by the synthetic-data tests.
enum SeedTestSupport {
    /// Whether `text` contains a precomposed Hangul syllable.
    static func containsHangul(_ text: String) -> Bool {
        text.unicodeScalars.contains { (0xAC00...0xD7A3).contains($0.value) }
    }

    /// Meters from `point` to the nearest city centre in ``KoreanCities/all``.
    static func distanceToNearestCity(_ point: GeoPoint) -> Double {
        KoreanCities.all.map { Haversine.distance($0.center, point) }.min() ?? .infinity
    }

    /// Whether a generated draft sets every field a seeded listing is expected to have.
    static func isComplete(_ draft: ClassDraft) -> Bool {
        draft.type != nil && draft.name != nil && draft.description != nil && draft.days != nil
            && draft.time != nil && draft.place != nil && draft.location != nil && draft.keywordLocation != nil
            && draft.price != nil && draft.priceUnit != nil && draft.subjects != nil && draft.targets != nil
            && draft.capacity != nil
    }

    /// The text keyword search indexes for a draft: its name and description joined by a newline.
    static func searchText(_ draft: ClassDraft) -> String {
        (draft.name ?? "") + "\n" + (draft.description ?? "")
    }
}

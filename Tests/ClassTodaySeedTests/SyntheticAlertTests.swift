import ClassTodayCore
import Foundation
import Testing
@testable import ClassTodaySeed

/// The synthetic alerts `classtoday-bench alerts` stores.
@Suite("Synthetic alerts")
struct SyntheticAlertTests {
    /// Checks the synthetic alerts the benchmark stores: deterministic, each waiting for something, valid.
    @Test("synthetic alerts name a subject or a keyword and pass validation")
    func syntheticAlerts() {
        var first = SyntheticData(seed: 7)
        var second = SyntheticData(seed: 7)
        for index in 0..<500 {
            let alert = first.alert(id: "a\(index)", userId: "u", at: Date(timeIntervalSince1970: 1_780_000_000))
            let again = second.alert(id: "a\(index)", userId: "u", at: Date(timeIntervalSince1970: 1_780_000_000))
            #expect(alert.center == again.center && alert.radius == again.radius && alert.query == again.query)
            #expect(alert.subjects != nil || alert.query != nil)
            var validator = FieldValidator()
            Alert.check(lat: alert.center.lat, lon: alert.center.lon, radius: alert.radius, query: alert.query,
                        maxPrice: alert.maxPrice, subjects: alert.subjects, into: &validator)
            #expect(validator.errors.isEmpty)
        }
    }
}

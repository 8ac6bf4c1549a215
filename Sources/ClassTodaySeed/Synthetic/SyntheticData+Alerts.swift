import ClassTodayCore
import ClassTodayServer
import Foundation

extension SyntheticData {
    /// A saved search as people make them: "tell me when a math class appears within 2 km".
    ///
    /// The centre is a listing-like location (near a city district, or the background). Every alert names what
    /// it waits for: a subject (three in four alerts), a keyword taken from a class topic (`수학`, `요가`,
    /// `파이썬`; half of the alerts, and all of those without a subject), or both. The radius is 1 km (30 %),
    /// 2 km (30 %), 3 km (20 %), 5 km (15 %) or 10 km (5 %). Two in three look for one class type (mostly
    /// teachers' offers), one in four sets a price ceiling of 50,000 KRW.
    public mutating func alert(id: String, userId: String, at date: Date) -> Alert {
        let center = nextPlace().point
        let topic = nextTopic()
        let hasSubject = generator.chance(0.75)
        let hasKeyword = !hasSubject || generator.chance(1.0 / 3)
        let radius = [1_000.0, 2_000, 3_000, 5_000, 10_000][Self.alertRadiusTable.pick(using: &generator)]
        let type: ClassType? = generator.chance(2.0 / 3) ? (generator.chance(0.8) ? .sell : .buy) : nil
        return Alert(id: id, userId: userId, center: center, radius: radius, query: hasKeyword ? topic.word : nil, type: type,
                     subjects: hasSubject ? [topic.subject] : nil,
                     maxPrice: generator.chance(0.25) ? 50_000 : nil, createdAt: date)
    }

    /// The weights of the alert radii 1, 2, 3, 5 and 10 km.
    private static let alertRadiusTable = WeightedTable(weights: [0.30, 0.30, 0.20, 0.15, 0.05])
}

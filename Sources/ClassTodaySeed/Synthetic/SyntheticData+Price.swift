import ClassTodayCore
extension SyntheticData {
    /// Weights of `PriceUnit.allCases` (perHour, perProblem, perClass) for each ``ClassTemplates/Kind``.
    static let unitTables: [WeightedTable] = [
        WeightedTable(weights: [0.75, 0.10, 0.15]),
        WeightedTable(weights: [0.45, 0, 0.55]),
        WeightedTable(weights: [0.55, 0.05, 0.40]),
        WeightedTable(weights: [0.25, 0, 0.75]),
        WeightedTable(weights: [0.65, 0, 0.35]),
    ]

    /// What the price is counted per; per problem only for topics where answering questions makes sense.
    mutating func priceUnit(for topic: ClassTemplates.Topic) -> PriceUnit {
        let unit = PriceUnit.allCases[Self.unitTables[topic.kind.rawValue].pick(using: &generator)]
        return unit == .perProblem && !topic.allowsPerProblem ? .perHour : unit
    }

    /// A price in KRW typical for the unit, audience and kind of class: 1,000–10,000 per problem, about
    /// 15,000–60,000 per hour, 20,000–100,000 per session; less per person in groups and a little less when
    /// a buyer names a budget. Nil ("to be agreed") for a tenth of sellers and a quarter of buyers; a few
    /// sellers teach for free.
    mutating func price(
        for topic: ClassTemplates.Topic, unit: PriceUnit, target: Target, isGroup: Bool, type: ClassType
    ) -> Int? {
        guard !generator.chance(type == .sell ? 0.1 : 0.25) else { return nil }
        if type == .sell && generator.chance(0.015) {
            return 0
        }
        if unit == .perProblem {
            return generator.integer(in: 2...20) * 500
        }
        let thousands = generator.integer(in: Self.priceRange(unit: unit, kind: topic.kind, target: target))
        let factor = (isGroup ? 0.6 : 1) * (type == .buy ? 0.9 : 1)
        let steps = (Double(thousands * 1000) * factor / 5000).rounded()
        return max(1, Int(steps)) * 5000
    }

    /// The price range in thousands of KRW for a unit, kind and audience.
    static func priceRange(unit: PriceUnit, kind: ClassTemplates.Kind, target: Target) -> ClosedRange<Int> {
        if unit == .perClass {
            switch kind {
            case .school, .exam: return 30...80
            case .skill: return 30...100
            case .hobby: return 20...90
            case .language: return 25...60
            }
        }
        switch kind {
        case .skill, .hobby: return 20...60
        case .school, .exam, .language:
            switch target {
            case .elementary: return 15...35
            case .junior: return 20...45
            case .senior, .university: return 25...60
            case .housewife: return 15...40
            case .all: return 20...50
            }
        }
    }

    /// A price as people write it: `3만 원`, `3만 5천 원`, `4천 원`, `2,500원`, `무료`.
    static func writtenPrice(_ price: Int) -> String {
        guard price > 0 else { return "무료" }
        guard price % 1000 == 0 else { return groupedDigits(price) + "원" }
        let tenThousands = price / 10000
        let thousands = price % 10000 / 1000
        var text = ""
        if tenThousands > 0 {
            text += groupedDigits(tenThousands) + "만"
        }
        if thousands > 0 {
            text += (text.isEmpty ? "" : " ") + String(thousands) + "천"
        }
        return text + " 원"
    }

    /// `value` with thousands separators (`12,500`); `value` must not be negative.
    static func groupedDigits(_ value: Int) -> String {
        let digits = String(value)
        guard digits.count > 3 else { return digits }
        var text = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0 && (digits.count - offset) % 3 == 0 {
                text += ","
            }
            text.append(digit)
        }
        return text
    }

    /// The unit in words as it precedes a price: `시간당`, `문제당`, `1회`.
    static func unitWord(_ unit: PriceUnit) -> String {
        switch unit {
        case .perHour: "시간당"
        case .perProblem: "문제당"
        case .perClass: "1회"
        }
    }
}

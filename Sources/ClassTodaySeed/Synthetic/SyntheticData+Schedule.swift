import ClassTodayCore
extension SyntheticData {
    /// Common day patterns: 월수, 화목, 월수금, 토, 일, 주말, 금, 화, none fixed.
    static let dayPatterns: [[Weekday]] = [
        [.mon, .wed], [.tue, .thu], [.mon, .wed, .fri], [.sat], [.sun], [.sat, .sun], [.fri], [.tue], [],
    ]

    /// How often each of ``dayPatterns`` is used.
    static let dayPatternTable = WeightedTable(weights: [10, 10, 6, 10, 6, 8, 3, 3, 5])

    /// `HH:MM` for every half hour from `00:00` (slot 0) to `24:00` (slot 48).
    static let slotTexts: [String] = (0...48).map { slot in
        let hours = slot / 2
        return (hours < 10 ? "0" : "") + String(hours) + (slot % 2 == 0 ? ":00" : ":30")
    }

    /// The latest slot a class may end at (23:00).
    static let latestEndSlot = 46

    /// Lengths in half hours of hobby and skill classes (1 to 3 hours).
    static let longLengths = [2, 3, 4, 4, 6]

    /// Lengths in half hours of lessons (1 to 2 hours).
    static let shortLengths = [2, 2, 3, 4]

    /// Days without repetitions, in week order: a common pattern, or one to three random days.
    mutating func days() -> [Weekday] {
        guard generator.chance(0.3) else {
            return Self.dayPatterns[Self.dayPatternTable.pick(using: &generator)]
        }
        let wanted = 1 + generator.index(3)
        var mask = 0
        while mask.nonzeroBitCount < wanted {
            mask |= 1 << generator.index(7)
        }
        return Weekday.allCases.enumerated().compactMap { mask & (1 << $0.offset) != 0 ? $0.element : nil }
    }

    /// A time range `HH:MM-HH:MM` that suits the days and the audience (after school for children, mornings
    /// for 주부, evenings for the rest, daytime at weekends), or nil (flexible) about a fifth of the time.
    mutating func time(days: [Weekday], target: Target, kind: ClassTemplates.Kind) -> String? {
        guard !generator.chance(0.22) else { return nil }
        let weekendOnly = !days.isEmpty && days.allSatisfy { $0 == .sat || $0 == .sun }
        let starts: ClosedRange<Int>
        if weekendOnly {
            starts = 18...34
        } else {
            switch target {
            case .elementary: starts = 28...35
            case .junior, .senior: starts = 34...42
            case .housewife: starts = 19...26
            case .university, .all: starts = generator.chance(0.7) ? 37...42 : 20...32
            }
        }
        let longClasses = kind == .hobby || kind == .skill
        let length = generator.element(of: longClasses ? Self.longLengths : Self.shortLengths)
        var start = generator.integer(in: starts)
        if start + length > Self.latestEndSlot {
            start = Self.latestEndSlot - length
        }
        return Self.slotTexts[start] + "-" + Self.slotTexts[start + length]
    }

    /// Group sizes and how often each is used.
    static let groupSizes = [2, 3, 4, 5, 6, 8, 10]

    /// Weights of ``groupSizes``.
    static let groupSizeTable = WeightedTable(weights: [2, 3, 4, 3, 2, 1, 1])

    /// The share of group classes (스터디, 반, 클래스) for a kind of topic and listing type.
    static func groupShare(_ kind: ClassTemplates.Kind, _ type: ClassType) -> Double {
        let share: Double = switch kind {
        case .school: 0.2
        case .exam: 0.45
        case .skill: 0.3
        case .hobby: 0.45
        case .language: 0.35
        }
        return type == .sell ? share : share * 0.6
    }
}

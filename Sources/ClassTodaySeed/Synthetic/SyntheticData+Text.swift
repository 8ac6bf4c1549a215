import ClassTodayCore
extension SyntheticData {
    /// Optional sentences a description may add after its opening, in the order they appear.
    enum Extra: Int, CaseIterable {
        /// About the audience (sellers) or wishes (buyers).
        case audience
        /// About the group size.
        case group
        /// About the days.
        case schedule
        /// About the place.
        case place
        /// About the price or budget.
        case price
        /// A closing line.
        case closing
    }

    /// A class name: for sellers often a ready-made one (`토익 900 목표 스터디`), otherwise composed as
    /// `[audience] topic ending` (`초등 수학 기초반`, `기타 왕초보 레슨`, `Python 과외 구합니다`).
    mutating func name(for topic: ClassTemplates.Topic, target: Target, isGroup: Bool, type: ClassType) -> String {
        typealias Names = ClassTemplates.Names
        if type == .sell {
            let ready = isGroup ? topic.groupNames : topic.soloNames
            if !ready.isEmpty && generator.chance(0.55) {
                return generator.element(of: ready)
            }
        }
        let kind = topic.kind
        var text = ""
        let schoolLike = kind == .school || kind == .exam
        if generator.chance(kind == .school ? 0.7 : 0.3) {
            let prefixes = schoolLike ? Names.schoolPrefixes : Names.otherPrefixes
            text += generator.element(of: prefixes[ClassTemplates.Sentences.targetIndex(target)])
            text += " "
        }
        if let english = topic.english, kind == .skill || kind == .exam, generator.chance(0.35) {
            text += english
        } else {
            text += topic.word
        }
        text += " "
        let endings = type == .sell ? (isGroup ? Names.sellGroup : Names.sellSolo)
            : (isGroup ? Names.buyGroup : Names.buySolo)
        text += generator.element(of: endings[kind.rawValue])
        return text
    }

    /// Two to four sentences: an optional greeting, a sentence about the topic or the need, then extras
    /// (audience, group size, days, place, price, closing) in a natural order.
    mutating func description(
        type: ClassType, context: ClassTemplates.Context, days: [Weekday], price: Int?
    ) -> String {
        typealias Sentences = ClassTemplates.Sentences
        let kind = context.topic.kind.rawValue
        let separator = generator.chance(0.2) ? "\n" : " "
        var text = ""
        text.reserveCapacity(512)
        var count = 0
        let total = generator.integer(in: 2...4)

        if generator.chance(type == .sell ? 0.7 : 0.8) {
            let pool = type == .sell ? Sentences.sellIntros[kind]
                : Sentences.buyIntros[Sentences.targetIndex(context.target)]
            append(generator.element(of: pool), to: &text, separator: separator, context: context)
            count += 1
        }
        let opening: [ClassTemplates.Template]
        if type == .sell {
            opening = !context.topic.details.isEmpty && generator.chance(0.65)
                ? context.topic.details : Sentences.sellDetails[kind]
        } else {
            opening = generator.chance(0.5) ? Sentences.buyNeeds : Sentences.buyNeedsByKind[kind]
        }
        append(generator.element(of: opening), to: &text, separator: separator, context: context)
        count += 1

        for extra in extras(count: total - count, type: type, capacity: context.capacity, price: price) {
            append(generator.element(of: pool(for: extra, type: type, context: context, days: days, price: price)),
                   to: &text, separator: separator, context: context)
        }
        return text
    }

    /// `count` distinct extras that apply, in ``Extra`` order.
    private mutating func extras(count: Int, type: ClassType, capacity: Int, price: Int?) -> [Extra] {
        guard count > 0 else { return [] }
        var available = Extra.allCases.filter { extra in
            switch extra {
            case .group: type == .sell && capacity > 1
            case .price: type == .sell || price != nil
            case .place: type == .sell
            default: true
            }
        }
        var chosen: [Extra] = []
        while chosen.count < count && !available.isEmpty {
            chosen.append(available.remove(at: generator.index(available.count)))
        }
        return chosen.sorted { $0.rawValue < $1.rawValue }
    }

    /// The sentences an extra is drawn from.
    private func pool(
        for extra: Extra, type: ClassType, context: ClassTemplates.Context, days: [Weekday], price: Int?
    ) -> [ClassTemplates.Template] {
        typealias Sentences = ClassTemplates.Sentences
        let sell = type == .sell
        switch extra {
        case .audience:
            return sell ? Sentences.sellTargetLines[Sentences.targetIndex(context.target)] : Sentences.buyPreferences
        case .group: return Sentences.sellGroupLines
        case .schedule:
            let pools = sell ? Sentences.sellScheduleLines : Sentences.buyScheduleLines
            return pools[Self.scheduleIndex(days)]
        case .place: return Sentences.sellPlaceLines
        case .price:
            if !sell { return Sentences.buyBudgetLines }
            switch price {
            case nil: return Sentences.sellNegotiableLines
            case 0: return Sentences.sellFreeLines
            default: return Sentences.sellPriceLines
            }
        case .closing: return sell ? Sentences.sellClosings : Sentences.buyClosings
        }
    }

    /// Which schedule sentence pool fits `days`: weekdays, weekends, both, none.
    static func scheduleIndex(_ days: [Weekday]) -> Int {
        guard !days.isEmpty else { return 3 }
        let weekend = days.filter { $0 == .sat || $0 == .sun }.count
        if weekend == 0 { return 0 }
        return weekend == days.count ? 1 : 2
    }

    /// Appends `template` as the next sentence.
    private func append(
        _ template: ClassTemplates.Template, to text: inout String, separator: String,
        context: ClassTemplates.Context
    ) {
        if !text.isEmpty {
            text += separator
        }
        template.render(into: &text, context)
    }
}

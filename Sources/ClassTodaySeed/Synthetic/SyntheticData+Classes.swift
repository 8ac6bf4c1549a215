import ClassTodayCore
extension SyntheticData {
    /// A valid class draft (it passes `ClassRules.check(_:creating: true, into:)`), written by a user the
    /// caller picks: buy or sell (slightly more sell), a Korean name and a two-to-four sentence description
    /// about a topic of one or two subjects, days, a time (sometimes none), a road address, a location from
    /// ``location()``, its district as `keywordLocation`, a price in KRW that suits the unit (sometimes none),
    /// one or two audiences and a capacity (mostly 1, up to 10 for group classes).
    public mutating func classDraft() -> ClassDraft {
        let topic = nextTopic()
        return makeDraft(topic: topic, place: nextPlace())
    }

    /// A class draft that fits `writer`: usually about one of the writer's subjects, always near the
    /// writer's home (about a kilometre away) and in the writer's district.
    public mutating func classDraft(by writer: SyntheticUser) -> ClassDraft {
        let topic: ClassTemplates.Topic
        if !writer.subjects.isEmpty && generator.chance(0.75) {
            topic = self.topic(for: generator.element(of: writer.subjects))
        } else {
            topic = nextTopic()
        }
        let point = scatter(around: writer.location, kilometers: 1)
        var place = named(point)
        if let cityIndex = KoreanCities.indexByName[writer.city],
           let districtIndex = KoreanCities.all[cityIndex].districts.firstIndex(of: writer.keywordLocation) {
            place = Place(point: point, cityIndex: cityIndex, districtIndex: districtIndex)
        }
        return makeDraft(topic: topic, place: place)
    }

    /// A topic: a subject by popularity, then one of its topics by weight.
    mutating func nextTopic() -> ClassTemplates.Topic {
        topic(for: Subject.allCases[ClassTemplates.subjectTable.pick(using: &generator)])
    }

    /// One of `subject`'s topics by weight.
    mutating func topic(for subject: Subject) -> ClassTemplates.Topic {
        let index = ClassTemplates.subjectIndex(subject)
        let topics = ClassTemplates.topicsBySubject[index]
        return topics[ClassTemplates.topicTables[index].pick(using: &generator)]
    }

    /// Builds every field of a draft about `topic` at `place`.
    private mutating func makeDraft(topic: ClassTemplates.Topic, place: Place) -> ClassDraft {
        let type: ClassType = generator.chance(0.55) ? .sell : .buy
        let targets = targets(for: topic)
        let isGroup = generator.chance(Self.groupShare(topic.kind, type))
        let capacity = isGroup ? Self.groupSizes[Self.groupSizeTable.pick(using: &generator)]
            : (generator.chance(0.05) ? 2 : 1)
        let days = days()
        let unit = priceUnit(for: topic)
        let price = price(for: topic, unit: unit, target: targets[0], isGroup: isGroup, type: type)
        let city = place.city
        let district = place.district

        var draft = ClassDraft()
        draft.type = type
        draft.name = name(for: topic, target: targets[0], isGroup: isGroup, type: type)
        draft.days = days
        draft.time = .some(time(days: days, target: targets[0], kind: topic.kind))
        draft.place = .some(generator.chance(0.92) ? address(in: city, districtIndex: place.districtIndex) : nil)
        draft.location = .some(place.point)
        draft.keywordLocation = .some(district)
        draft.price = .some(price)
        draft.priceUnit = unit
        draft.subjects = subjects(for: topic)
        draft.targets = targets
        draft.capacity = capacity
        let context = ClassTemplates.Context(
            topic: topic, target: targets[0], district: district, city: city.name, capacity: capacity,
            price: price.map(Self.writtenPrice) ?? "", unit: Self.unitWord(unit)
        )
        draft.description = description(type: type, context: context, days: days, price: price)
        return draft
    }

    /// The topic's subject, sometimes followed by a related one.
    private mutating func subjects(for topic: ClassTemplates.Topic) -> [Subject] {
        guard !topic.related.isEmpty, generator.chance(0.3) else { return [topic.subject] }
        return [topic.subject, generator.element(of: topic.related)]
    }

    /// One of the topic's audiences, sometimes with a second one.
    private mutating func targets(for topic: ClassTemplates.Topic) -> [Target] {
        let count = topic.targets.count
        let first = generator.index(count)
        guard count > 1, generator.chance(0.25) else { return [topic.targets[first]] }
        let second = (first + 1 + generator.index(count - 1)) % count
        return [topic.targets[first], topic.targets[second]]
    }
}

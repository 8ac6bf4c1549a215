import ClassTodayCore
extension SyntheticData {
    /// A user: the unique email `user<index>@seed.classtoday.app`, a Korean nickname, a short introduction,
    /// one to three subjects, and a home near a city with its district name and a road address.
    ///
    /// The user depends only on the seed and `index` (not on earlier calls), so users can be generated in any
    /// order or in parallel; the listing stream is not advanced.
    public mutating func user(index: Int) -> SyntheticUser {
        var local = SyntheticData(seed: Self.userSeed(seed: seed, index: index), clusteredShare: 1)
        return local.makeUser(index: index)
    }

    /// The seed of the private stream that user `index` is drawn from.
    static func userSeed(seed: UInt64, index: Int) -> UInt64 {
        var state = seed ^ 0x05EE_D05E_ED05_EED0
        let base = Generator.splitMix(&state)
        return base ^ (UInt64(bitPattern: Int64(index)) &* 0xD1B5_4A32_D192_ED03)
    }

    /// Draws a user from this generator's stream.
    mutating func makeUser(index: Int) -> SyntheticUser {
        let place = clusteredPlace()
        let city = place.city
        let subjects = userSubjects()
        let topic = topic(for: subjects[0])
        return SyntheticUser(
            index: index,
            email: "user" + String(index) + "@" + Self.emailDomain,
            nickname: nickname(city: city, district: place.district, topic: topic),
            description: userDescription(city: city, district: place.district, topic: topic),
            subjects: subjects,
            location: place.point,
            city: city.name,
            keywordLocation: place.district,
            detailLocation: address(in: city, districtIndex: place.districtIndex)
        )
    }

    /// One to three distinct subjects, drawn by listing popularity.
    private mutating func userSubjects() -> [Subject] {
        let wanted = 1 + generator.index(3)
        var subjects: [Subject] = []
        for _ in 0..<(wanted * 4) where subjects.count < wanted {
            let subject = Subject.allCases[ClassTemplates.subjectTable.pick(using: &generator)]
            if !subjects.contains(subject) {
                subjects.append(subject)
            }
        }
        return subjects
    }

    /// A nickname in one of four common styles: a name, a name with an ending, an adjective and a noun,
    /// or a place and an interest.
    private mutating func nickname(city: KoreanCity, district: String, topic: ClassTemplates.Topic) -> String {
        typealias People = ClassTemplates.People
        let style = generator.index(10)
        switch style {
        case 0...2:
            return generator.element(of: People.familyNames) + givenName()
        case 3...5:
            return givenName() + generator.element(of: People.nameSuffixes)
        case 6...7:
            var text = generator.element(of: People.adjectives) + generator.element(of: People.nouns)
            if generator.chance(0.5) {
                text += String(generator.integer(in: 1...999))
            }
            return text
        default:
            let stem = district.count > 2 ? String(district.dropLast()) : city.name
            return stem + topic.word + generator.element(of: People.interestSuffixes)
        }
    }

    /// Two given-name syllables.
    private mutating func givenName() -> String {
        let syllables = ClassTemplates.People.givenSyllables
        return generator.element(of: syllables) + generator.element(of: syllables)
    }

    /// Two or three sentences: a greeting with district and role, an interest, sometimes a closing.
    private mutating func userDescription(city: KoreanCity, district: String, topic: ClassTemplates.Topic) -> String {
        typealias People = ClassTemplates.People
        let greeting = generator.element(of: People.greetings)
        var text = greeting.0 + district + greeting.1 + generator.element(of: People.roles) + greeting.2
        text += " "
        let context = ClassTemplates.Context(
            topic: topic, target: .all, district: district, city: city.name, capacity: 1, price: "", unit: ""
        )
        generator.element(of: People.interestLines).render(into: &text, context)
        if generator.chance(0.5) {
            text += " "
            text += generator.element(of: People.closings)
        }
        return text
    }

    /// A plausible road address in the district: `서울 관악구 봉천로 123`, `경기 수원시 영통구 영통로45번길 7, 3층`.
    mutating func address(in city: KoreanCity, districtIndex: Int) -> String {
        var text = city.addressPrefix
        text += " "
        text += city.districtAreas[districtIndex].name
        text += " "
        text += generator.element(of: city.roads(ofDistrictAt: districtIndex))
        if generator.chance(0.2) {
            text += String(generator.integer(in: 1...40))
            text += city.name == "서울" ? "길 " : "번길 "
            text += String(generator.integer(in: 1...80))
        } else {
            text += " "
            text += String(generator.chance(0.6) ? generator.integer(in: 1...120) : generator.integer(in: 121...600))
        }
        if generator.chance(0.25) {
            text += ", "
            text += String(generator.integer(in: 1...6))
            text += "층"
        }
        return text
    }
}

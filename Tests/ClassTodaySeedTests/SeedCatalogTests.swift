import Foundation
import Testing
import ClassTodayCore
@testable import ClassTodaySeed

@Suite("Seed catalogs")
struct SeedCatalogTests {
    @Test("the required cities are present with real-looking data")
    func cities() {
        let names = Set(KoreanCities.all.map(\.name))
        let required: Set<String> = [
            "서울", "부산", "인천", "대구", "대전", "광주", "울산", "수원", "성남", "고양", "창원", "청주", "전주", "제주",
        ]
        #expect(required.isSubset(of: names))
        #expect(names.count == KoreanCities.all.count)
        #expect((KoreanCities.named("서울")?.districts.count ?? 0) >= 10)
        #expect(KoreanCities.named("서울")?.districts.contains("관악구") == true)
        #expect(KoreanCities.named("없는도시") == nil)
        for city in KoreanCities.all {
            #expect(city.weight > 0)
            #expect(city.spreadKilometers > 0)
            #expect(!city.districts.isEmpty)
            #expect(Set(city.districts).count == city.districts.count, "\(city.name) repeats a district")
            #expect(SyntheticData.latitudeRange.contains(city.center.lat))
            #expect(SyntheticData.longitudeRange.contains(city.center.lon))
            for (index, area) in city.districtAreas.enumerated() {
                #expect(Haversine.distance(area.center, city.center) < 30_000, "\(city.name) \(area.name)")
                #expect(!city.roads(ofDistrictAt: index).isEmpty)
                #expect(city.nearestDistrictIndex(to: area.center) == index)
            }
        }
        let seoulHall = GeoPoint(lat: 37.5665, lon: 126.9780)
        #expect(KoreanCities.all[KoreanCities.nearestCityIndex(to: seoulHall)].name == "서울")
    }

    @Test("every topic is usable")
    func topics() {
        #expect(ClassTemplates.topics.count > 60)
        #expect(ClassTemplates.subjectWeights.count == Subject.allCases.count)
        for (index, subject) in Subject.allCases.enumerated() {
            #expect(ClassTemplates.subjectIndex(subject) == index)
            #expect(!ClassTemplates.topicsBySubject[index].isEmpty, "no topic for \(subject)")
        }
        for topic in ClassTemplates.topics {
            #expect(!topic.targets.isEmpty && Set(topic.targets).count == topic.targets.count, "\(topic.word)")
            #expect(!topic.related.contains(topic.subject))
            #expect(!(topic.soloNames + topic.groupNames).isEmpty)
            for name in topic.soloNames + topic.groupNames {
                #expect(ClassRules.nameLength.contains(name.count))
                #expect(SeedTestSupport.containsHangul(name), "\(name)")
            }
        }
        #expect(ClassTemplates.isGroupName("토익 900 목표 스터디"))
        #expect(ClassTemplates.isGroupName("초등 수학 기초반"))
        #expect(!ClassTemplates.isGroupName("요가 1:1 개인 레슨"))
    }

    @Test("every sentence template renders without leftover placeholders")
    func sentencesRender() {
        typealias Sentences = ClassTemplates.Sentences
        let pools: [[ClassTemplates.Template]] = Sentences.sellIntros + Sentences.sellDetails
            + Sentences.sellTargetLines + Sentences.buyIntros + Sentences.buyNeedsByKind
            + Sentences.sellScheduleLines + Sentences.buyScheduleLines
            + [Sentences.sellPlaceLines, Sentences.sellGroupLines, Sentences.sellPriceLines, Sentences.sellFreeLines,
               Sentences.sellNegotiableLines, Sentences.sellClosings, Sentences.buyNeeds, Sentences.buyPreferences,
               Sentences.buyBudgetLines, Sentences.buyClosings, ClassTemplates.People.interestLines]
            + ClassTemplates.topics.map(\.details)
        #expect(pools.count > 30)
        for topic in ClassTemplates.topics.prefix(5) {
            let context = ClassTemplates.Context(
                topic: topic, target: .junior, district: "관악구", city: "서울", capacity: 4, price: "3만 원", unit: "시간당"
            )
            for template in pools.joined() {
                var text = ""
                template.render(into: &text, context)
                #expect(!text.isEmpty && !text.contains("{") && !text.contains("}"), "\(text)")
                #expect(".!?~)".contains(text.last ?? " "), "sentence without final punctuation: \(text)")
            }
        }
    }

    @Test("particles follow the word's last sound", arguments: [
        ("수학", "{w을} {w은} {w이} {w과} {w로}", "수학을 수학은 수학이 수학과 수학으로"),
        ("요가", "{w을} {w은} {w이} {w과} {w로}", "요가를 요가는 요가가 요가와 요가로"),
        ("스킬", "{w을} {w로}", "스킬을 스킬로"),
        ("C언어", "{w을}", "C언어를"),
        ("토익 900", "{w을} {w로}", "토익 900을 토익 900으로"),
    ])
    func particles(word: String, source: String, expected: String) {
        let topic = ClassTemplates.Topic(.hobby, word, kind: .hobby, targets: [.all], names: ["x"])
        let context = ClassTemplates.Context(
            topic: topic, target: .all, district: "", city: "", capacity: 1, price: "", unit: ""
        )
        var text = ""
        ClassTemplates.Template(source).render(into: &text, context)
        #expect(text == expected)
    }

    @Test("templates keep unknown placeholders and fill the others")
    func templateParsing() {
        let topic = ClassTemplates.Topic(.computer, "파이썬", english: "Python", kind: .skill, targets: [.all], names: ["x"])
        let context = ClassTemplates.Context(
            topic: topic, target: .university, district: "관악구", city: "서울", capacity: 6, price: "4만 원", unit: "1회"
        )
        var text = ""
        ClassTemplates.Template("{e}/{w}/{t}/{c} {d}/{n}명/{u} {p}/{x}/{").render(into: &text, context)
        #expect(text == "Python/파이썬/대학생/서울 관악구/6명/1회 4만 원/{x}/{")
    }

    @Test("prices are written the Korean way", arguments: [
        (0, "무료"), (3_000, "3천 원"), (30_000, "3만 원"), (35_000, "3만 5천 원"), (2_500, "2,500원"),
        (120_000, "12만 원"), (12_345_000, "1,234만 5천 원"),
    ])
    func writtenPrices(price: Int, expected: String) {
        #expect(SyntheticData.writtenPrice(price) == expected)
    }

    @Test("the generator is uniform enough and weighted tables follow their weights")
    func generator() {
        var generator = SyntheticData.Generator(seed: 99)
        var buckets = [Int](repeating: 0, count: 10)
        for _ in 0..<10_000 {
            buckets[generator.index(10)] += 1
            let unit = generator.unit()
            #expect((0..<1).contains(unit))
        }
        #expect(buckets.allSatisfy { (850...1_150).contains($0) })
        let table = SyntheticData.WeightedTable(weights: [1, 0, 3])
        var counts = [0, 0, 0]
        for _ in 0..<8_000 {
            counts[table.pick(using: &generator)] += 1
        }
        #expect(counts[1] == 0)
        #expect((1_800...2_200).contains(counts[0]))
    }
}

import Foundation
import Testing
import ClassTodayCore
@testable import ClassTodaySeed

@Suite("SyntheticData")
struct SyntheticDataTests {
    @Test("every generated draft passes the creation rules")
    func draftsAreValid() {
        var data = SyntheticData(seed: 1)
        for _ in 0..<3_000 {
            let draft = data.classDraft()
            var validator = FieldValidator()
            ClassRules.check(draft, creating: true, into: &validator)
            #expect(validator.errors.isEmpty, "\(validator.errors) in \(draft)")
            #expect(SeedTestSupport.isComplete(draft), "missing fields in \(draft)")
        }
    }

    @Test("drafts written for a user and background-only drafts pass the rules too")
    func otherDraftsAreValid() {
        var data = SyntheticData(seed: 2, clusteredShare: 0)
        let users = (0..<50).map { data.user(index: $0) }
        for round in 0..<1_000 {
            let draft = round.isMultiple(of: 2) ? data.classDraft() : data.classDraft(by: users[round % users.count])
            var validator = FieldValidator()
            ClassRules.check(draft, creating: true, into: &validator)
            #expect(validator.errors.isEmpty, "\(validator.errors) in \(draft)")
        }
    }

    @Test("the same seed gives the same sequence; other seeds differ")
    func determinism() {
        var first = SyntheticData(seed: 42)
        var second = SyntheticData(seed: 42)
        var other = SyntheticData(seed: 43)
        var differences = 0
        for index in 0..<300 {
            let draft = first.classDraft()
            #expect(draft == second.classDraft())
            #expect(first.user(index: index) == second.user(index: index))
            #expect(first.location() == second.location())
            #expect(first.next() == second.next())
            if draft != other.classDraft() {
                differences += 1
            }
        }
        #expect(differences > 290)
        var seedOne = SyntheticData(seed: 1)
        var seedTwo = SyntheticData(seed: 2)
        #expect(seedOne.user(index: 0) != seedTwo.user(index: 0))
    }

    @Test("a user depends only on the seed and index, not on earlier calls")
    func usersAreOrderIndependent() {
        var fresh = SyntheticData(seed: 9)
        var used = SyntheticData(seed: 9)
        for _ in 0..<25 {
            _ = used.classDraft()
            _ = used.user(index: 3)
        }
        #expect(fresh.user(index: 17) == used.user(index: 17))

        var withUsers = SyntheticData(seed: 9)
        var withoutUsers = SyntheticData(seed: 9)
        _ = withUsers.user(index: 5)
        #expect(withUsers.classDraft() == withoutUsers.classDraft())
    }

    @Test("locations are valid, mostly near a city, the rest inside the Korea box")
    func locations() {
        var data = SyntheticData(seed: 3)
        let count = 20_000
        var nearCity = 0
        for _ in 0..<count {
            let (point, city, district) = data.location()
            #expect(point.isValid)
            #expect(SyntheticData.latitudeRange.contains(point.lat))
            #expect(SyntheticData.longitudeRange.contains(point.lon))
            #expect(city.districts.contains(district))
            if SeedTestSupport.distanceToNearestCity(point) <= 30_000 {
                nearCity += 1
            }
        }
        let share = Double(nearCity) / Double(count)
        // 85% clustered, plus the background points that happen to fall near a city.
        #expect((0.84...0.90).contains(share), "share near a city: \(share)")
    }

    @Test("clustering follows population: Seoul is the most common city")
    func clusteringFollowsPopulation() {
        var data = SyntheticData(seed: 4, clusteredShare: 1)
        var counts: [String: Int] = [:]
        for _ in 0..<5_000 {
            counts[data.location().city.name, default: 0] += 1
        }
        let seoul = counts["서울", default: 0]
        #expect(counts.values.allSatisfy { $0 <= seoul })
        #expect((0.25...0.40).contains(Double(seoul) / 5_000))
        #expect(counts.count == KoreanCities.all.count)
    }

    @Test("users have unique emails, Korean nicknames and homes near their district")
    func users() {
        var data = SyntheticData(seed: 5)
        var emails = Set<String>()
        for index in 0..<2_000 {
            let user = data.user(index: index)
            emails.insert(user.email)
            #expect(user.email == "user\(index)@seed.classtoday.app")
            #expect(UserRules.isValidEmail(user.email))
            #expect(UserRules.nicknameLength.contains(user.nickname.count))
            #expect(SeedTestSupport.containsHangul(user.nickname))
            #expect(SeedTestSupport.containsHangul(user.description))
            #expect(UserRules.descriptionLength.contains(user.description.count))
            #expect((1...3).contains(user.subjects.count))
            #expect(Set(user.subjects).count == user.subjects.count)
            #expect(KoreanCities.named(user.city)?.districts.contains(user.keywordLocation) == true)
            #expect(user.detailLocation.contains(user.keywordLocation))
            #expect(SeedTestSupport.distanceToNearestCity(user.location) < 40_000)
        }
        #expect(emails.count == 2_000)
    }

    @Test("drafts written by a user stay near the user's home and district")
    func draftsByWriter() {
        var data = SyntheticData(seed: 6)
        let writer = data.user(index: 11)
        var aboutWritersSubjects = 0
        for _ in 0..<300 {
            let draft = data.classDraft(by: writer)
            #expect(draft.keywordLocation == .some(writer.keywordLocation))
            if let location = draft.location ?? nil {
                #expect(Haversine.distance(location, writer.location) < 6_000)
            } else {
                Issue.record("draft without a location: \(draft)")
            }
            if draft.subjects?.contains(where: writer.subjects.contains) == true {
                aboutWritersSubjects += 1
            }
        }
        #expect(aboutWritersSubjects > 200)
    }

    @Test("writer indexes stay in range and favour early users")
    func writerIndexes() {
        var data = SyntheticData(seed: 8)
        var firstTenth = 0
        for _ in 0..<2_000 {
            let index = data.writerIndex(among: 100)
            #expect((0..<100).contains(index))
            if index < 10 {
                firstTenth += 1
            }
        }
        #expect(firstTenth > 300)
        #expect(data.writerIndex(among: 1) == 0)
    }
}

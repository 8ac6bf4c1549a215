import Foundation
import ClassTodayTestSupport
import Testing
@testable import ClassTodayCore

/// Tests for ``Recommendation``.
@Suite("Recommendation score")
struct RecommendationTests {
    /// A buy listing looking for senior math on Monday and Wednesday with a 30,000 KRW hourly budget.
    let source = MatchingTestSupport.listing(id: "buy", type: .buy, writerId: "student")

    /// A sell listing by `writer`, otherwise like the source.
    func candidate(
        subjects: [Subject] = [.math], targets: [Target] = [.senior], days: [Weekday] = [.mon, .wed],
        price: Int? = 30_000, priceUnit: PriceUnit = .perHour
    ) -> ClassListing {
        MatchingTestSupport.listing(id: "sell", type: .sell, days: days, price: price, priceUnit: priceUnit,
                                    subjects: subjects, targets: targets, writerId: "teacher")
    }

    /// The recommendation of `candidate` for the source.
    func recommend(_ candidate: ClassListing, distance: Double = 1_000, radius: Double = 5_000,
                   rating: Rating = Rating(average: 4.5, count: 10)) -> Recommendation {
        Recommendation(source: source, candidate: candidate, distance: distance, radius: radius, writerRating: rating)
    }

    /// Checks that the weights are positive and add up to 1.
    @Test("weights are positive and add up to 1")
    func weights() {
        let weights = Recommendation.Weights.standard
        let all = [weights.subjects, weights.targets, weights.days, weights.distance, weights.price, weights.rating]
        #expect(all.allSatisfy { $0 > 0 })
        #expect(abs(all.reduce(0, +) - 1) < 1e-12)
        let perfect = Recommendation.Reasons(subjects: 1, targets: 1, days: 1, distance: 1, price: 1, rating: 1)
        #expect(abs(perfect.weightedSum(weights) - 1) < 1e-12)
    }

    /// Checks the subject, target and day overlaps.
    @Test("overlaps: Jaccard, neutral when empty, `all` matches everyone")
    func overlaps() {
        #expect(recommend(candidate(subjects: [.math])).reasons.subjects == 1)
        #expect(recommend(candidate(subjects: [.math, .english])).reasons.subjects == 0.5)
        #expect(recommend(candidate(subjects: [.english])).reasons.subjects == 0)
        #expect(recommend(candidate(subjects: [])).reasons.subjects == 0.5)
        #expect(recommend(candidate(targets: [.all])).reasons.targets == 1)
        #expect(recommend(candidate(targets: [.junior, .senior, .university])).reasons.targets == 1.0 / 3)
        #expect(recommend(candidate(targets: [.junior])).reasons.targets == 0)
        #expect(recommend(candidate(targets: [])).reasons.targets == 0.5)
        #expect(recommend(candidate(days: [.mon])).reasons.days == 0.5)
        #expect(recommend(candidate(days: [.sat, .sun])).reasons.days == 0)
        #expect(recommend(candidate(days: [])).reasons.days == 0.5)
        #expect(Recommendation.Fit.overlap([Weekday](), []) == 0.5)
        #expect(Recommendation.Fit.overlap([Weekday.mon, .mon], [.mon]) == 1)
    }

    /// Checks the distance reason.
    @Test("distance: linear from 1 at the centre to 0 at the radius")
    func distance() {
        #expect(recommend(candidate(), distance: 0).reasons.distance == 1)
        #expect(recommend(candidate(), distance: 2_500).reasons.distance == 0.5)
        #expect(recommend(candidate(), distance: 5_000).reasons.distance == 0)
        #expect(recommend(candidate(), distance: 9_000).reasons.distance == 0)
        #expect(recommend(candidate(), distance: -3).reasons.distance == 1)
        #expect(recommend(candidate(), distance: .nan).reasons.distance == 0)
        #expect(recommend(candidate(), distance: 0, radius: 0).reasons.distance == 1)
        #expect(recommend(candidate(), distance: 1, radius: 0).reasons.distance == 0)
    }

    /// Checks the price reason.
    @Test("price: 1 within budget, decreasing above it, neutral when unknown or incomparable")
    func price() {
        #expect(recommend(candidate(price: 20_000)).reasons.price == 1)
        #expect(recommend(candidate(price: 30_000)).reasons.price == 1)
        #expect(abs(recommend(candidate(price: 37_500)).reasons.price - 0.64) < 1e-12)
        #expect(abs(recommend(candidate(price: 60_000)).reasons.price - 0.25) < 1e-12)
        #expect(recommend(candidate(price: nil)).reasons.price == 0.5)
        #expect(recommend(candidate(priceUnit: .perClass)).reasons.price == 0.5)
        #expect(Recommendation.Fit.price(ask: 1, budget: 0) == 0)
        #expect(Recommendation.Fit.price(ask: 0, budget: 0) == 1)
        // Strictly decreasing above the budget.
        let fits = stride(from: 30_000, through: 300_000, by: 5_000).map { Recommendation.Fit.price(ask: $0, budget: 30_000) }
        #expect(zip(fits, fits.dropFirst()).allSatisfy { $0 > $1 })
        // The seller is whichever listing sells: swapping the roles gives the same fit.
        let seller = MatchingTestSupport.listing(id: "s", type: .sell, price: 45_000, writerId: "t")
        let buyer = MatchingTestSupport.listing(id: "b", type: .buy, price: 30_000, writerId: "u")
        let forward = Recommendation(source: buyer, candidate: seller, distance: 0, radius: 1, writerRating: .none)
        let backward = Recommendation(source: seller, candidate: buyer, distance: 0, radius: 1, writerRating: .none)
        #expect(forward.reasons.price == backward.reasons.price)
        #expect(forward.reasons.price < 1)
        // Two sell listings have no budget: neutral.
        let other = MatchingTestSupport.listing(id: "s2", type: .sell, price: 1, writerId: "v")
        #expect(Recommendation(source: seller, candidate: other, distance: 0, radius: 1, writerRating: .none)
            .reasons.price == 0.5)
    }

    /// Checks the Bayesian rating: one perfect review does not beat many very good ones.
    @Test("rating: one 5.0 review ranks below fifty 4.8 reviews")
    func bayesianRating() {
        let one = recommend(candidate(), rating: Rating(average: 5.0, count: 1))
        let fifty = recommend(candidate(), rating: Rating(average: 4.8, count: 50))
        let none = recommend(candidate(), rating: .none)
        #expect(one.reasons.rating < fifty.reasons.rating)
        #expect(one.score < fifty.score)
        #expect(none.reasons.rating < one.reasons.rating)
        #expect(abs(none.reasons.rating - (4.0 - 0.5) / 4.5) < 1e-12)
        #expect(abs(one.reasons.rating - (25.0 / 6 - 0.5) / 4.5) < 1e-12)
        #expect(abs(fifty.reasons.rating - (260.0 / 55 - 0.5) / 4.5) < 1e-12)
        // Many poor reviews rank below no reviews; garbage counts as no reviews.
        #expect(recommend(candidate(), rating: Rating(average: 2.0, count: 40)).reasons.rating < none.reasons.rating)
        #expect(recommend(candidate(), rating: Rating(average: .nan, count: 3)).reasons.rating == none.reasons.rating)
        #expect(recommend(candidate(), rating: Rating(average: 5, count: -2)).reasons.rating == none.reasons.rating)
        #expect(recommend(candidate(), rating: Rating(average: 5, count: .max)).reasons.rating <= 1)
    }

    /// Checks that a close, well-matched candidate beats far and mismatched ones.
    @Test("same subjects, targets and days nearby beats far and mismatched")
    func ordering() {
        let best = recommend(candidate(), distance: 300)
        let far = recommend(candidate(), distance: 4_800)
        let wrongSubject = recommend(candidate(subjects: [.english]), distance: 300)
        let wrongEverything = recommend(candidate(subjects: [.english], targets: [.elementary], days: [.sat],
                                                  price: 90_000), distance: 4_900)
        #expect(best.score > far.score)
        #expect(best.score > wrongSubject.score)
        #expect(far.score > wrongEverything.score)
        #expect(wrongSubject.score > wrongEverything.score)
        #expect(best.score > 0.9)
        #expect(wrongEverything.score < 0.2)
    }

    /// Checks on random inputs that every reason and the score lie in 0...1, the score is the weighted sum,
    /// the result is deterministic, and raising one reason never lowers the score.
    @Test("random inputs stay in range, deterministic and monotone")
    func randomInputs() {
        var random = SeededRandom(seed: 77)
        func sample<Value>(_ values: [Value]) -> [Value] {
            values.filter { _ in Bool.random(using: &random) }
        }
        let weights = Recommendation.Weights.standard
        for index in 0..<2_000 {
            let type = Bool.random(using: &random) ? ClassType.buy : .sell
            let prices: [Int?] = [nil, 0, 1, 10_000, 30_000, 100_000_000]
            let first = MatchingTestSupport.listing(
                id: "a\(index)", type: type, days: sample(Weekday.allCases),
                price: prices.randomElement(using: &random) ?? nil, subjects: sample(Subject.allCases),
                targets: sample(Target.allCases), writerId: "a"
            )
            let second = MatchingTestSupport.listing(
                id: "b\(index)", type: type.opposite, days: sample(Weekday.allCases),
                price: prices.randomElement(using: &random) ?? nil,
                priceUnit: PriceUnit.allCases.randomElement(using: &random) ?? .perHour,
                subjects: sample(Subject.allCases), targets: sample(Target.allCases), writerId: "b"
            )
            let distances: [Double] = [0, 1, 2_999, 3_000, 50_000, -1, .nan, .infinity]
            let distance = Bool.random(using: &random)
                ? Double.random(in: 0...60_000, using: &random) : distances.randomElement(using: &random) ?? 0
            let radii: [Double] = [0, 1, 3_000, 50_000, .infinity, -5]
            let radius = radii.randomElement(using: &random) ?? 3_000
            let rating = Rating(average: Double.random(in: -1...7, using: &random),
                                count: Int.random(in: -2...10_000, using: &random))
            let result = Recommendation(source: first, candidate: second, distance: distance, radius: radius,
                                        writerRating: rating)
            let reasons = result.reasons
            let values = [reasons.subjects, reasons.targets, reasons.days, reasons.distance, reasons.price, reasons.rating]
            #expect(values.allSatisfy { (0...1).contains($0) }, "\(values)")
            #expect((0...1).contains(result.score))
            #expect(abs(result.score - reasons.weightedSum(weights)) < 1e-12)
            #expect(result == Recommendation(source: first, candidate: second, distance: distance, radius: radius,
                                             writerRating: rating))
            var better = reasons
            let bump = Double.random(in: 0...1, using: &random)
            switch index % 6 {
            case 0: better.subjects = max(better.subjects, bump)
            case 1: better.targets = max(better.targets, bump)
            case 2: better.days = max(better.days, bump)
            case 3: better.distance = max(better.distance, bump)
            case 4: better.price = max(better.price, bump)
            default: better.rating = max(better.rating, bump)
            }
            #expect(better.weightedSum(weights) >= reasons.weightedSum(weights))
        }
    }

    /// Checks which listings may be recommended.
    @Test("candidates: open, opposite type, not the caller's or the source writer's")
    func candidates() {
        let good = candidate()
        #expect(Recommendation.isCandidate(good, for: source, viewerId: "student"))
        #expect(Recommendation.isCandidate(good, for: source, viewerId: nil))
        #expect(!Recommendation.isCandidate(good, for: source, viewerId: "teacher"))
        var closed = good
        closed.status = .closed
        #expect(!Recommendation.isCandidate(closed, for: source, viewerId: nil))
        var matched = good
        matched.status = .matched
        #expect(!Recommendation.isCandidate(matched, for: source, viewerId: nil))
        let sameType = MatchingTestSupport.listing(id: "other", type: .buy, writerId: "teacher")
        #expect(!Recommendation.isCandidate(sameType, for: source, viewerId: nil))
        let sameWriter = MatchingTestSupport.listing(id: "mine", type: .sell, writerId: "student")
        #expect(!Recommendation.isCandidate(sameWriter, for: source, viewerId: nil))
    }
}

import Foundation

/// How well a candidate listing suits a source listing of the opposite type
/// (`GET /v1/classes/{id}/recommendations`).
///
/// Six reasons, each in 0...1, are combined by a weighted sum whose weights add up to 1:
///
/// | reason | weight | value |
/// | --- | --- | --- |
/// | `subjects` | 0.30 | Jaccard index \|A∩B\| / \|A∪B\| of the two subject lists; 0.5 when either list is empty |
/// | `distance` | 0.20 | `1 - d / radius`, clamped to 0...1 (1 at the source's location, 0 at or beyond the radius) |
/// | `targets` | 0.15 | 0.5 when either list is empty, else 1 when either list holds `all`, else the Jaccard index |
/// | `days` | 0.15 | Jaccard index of the two day lists; 0.5 when either list is empty |
/// | `price` | 0.10 | see below |
/// | `rating` | 0.10 | see below |
///
/// **Price.** The `.sell` listing's price is the ask, the `.buy` listing's price is the budget. The fit is 1
/// when `ask <= budget` and `(budget / ask)²` above it (0.64 at 25 % over budget, 0.25 at twice the budget,
/// 0 for any ask over a budget of 0): continuous at the budget and smoothly decreasing. It is a neutral 0.5
/// when either price is nil, when the price units differ (the prices are not comparable), or when the two
/// listings are not one buy and one sell.
///
/// **Rating.** The candidate writer's grades are shrunk towards a prior with a Bayesian average
/// `(C·m + average·n) / (C + n)` with prior mean `m` = ``priorMeanGrade`` (4.0) and prior weight `C` =
/// ``priorWeight`` (5 reviews), then mapped from the grade scale 0.5...5.0 onto 0...1. A writer without
/// reviews scores (4.0 - 0.5) / 4.5 ≈ 0.78; one 5.0 review gives 4.17 (≈ 0.82) while fifty 4.8 reviews
/// give 4.73 (≈ 0.94).
///
/// A neutral 0.5 stands for "unknown" and so ranks above a known mismatch (0) and below a known match.
/// The score is deterministic, lies in 0...1 and never decreases when any one reason increases.
public struct Recommendation: Sendable, Hashable {
    /// The six reasons behind a score, each in 0...1 (1 is the best fit).
    public struct Reasons: Sendable, Hashable {
        /// Subject overlap.
        public var subjects: Double
        /// Audience overlap.
        public var targets: Double
        /// Day overlap.
        public var days: Double
        /// Nearness within the search radius.
        public var distance: Double
        /// How well the ask fits the budget.
        public var price: Double
        /// The candidate writer's rating, Bayesian-averaged.
        public var rating: Double

        /// Creates reasons from their values.
        public init(subjects: Double, targets: Double, days: Double, distance: Double, price: Double, rating: Double) {
            self.subjects = subjects
            self.targets = targets
            self.days = days
            self.distance = distance
            self.price = price
            self.rating = rating
        }

        /// The weighted sum of the reasons with `weights`.
        public func weightedSum(_ weights: Weights) -> Double {
            weights.subjects * subjects + weights.targets * targets + weights.days * days
                + weights.distance * distance + weights.price * price + weights.rating * rating
        }
    }

    /// The weight of each reason in the score.
    public struct Weights: Sendable, Hashable {
        /// Weight of ``Reasons/subjects``.
        public let subjects: Double
        /// Weight of ``Reasons/targets``.
        public let targets: Double
        /// Weight of ``Reasons/days``.
        public let days: Double
        /// Weight of ``Reasons/distance``.
        public let distance: Double
        /// Weight of ``Reasons/price``.
        public let price: Double
        /// Weight of ``Reasons/rating``.
        public let rating: Double

        /// The weights used by ``Recommendation``: subjects 0.30, distance 0.20, targets 0.15, days 0.15,
        /// price 0.10, rating 0.10 (they add up to 1).
        public static let standard = Weights(
            subjects: 0.30, targets: 0.15, days: 0.15, distance: 0.20, price: 0.10, rating: 0.10
        )
    }

    /// The mean grade a writer is assumed to have before any review (the Bayesian prior mean `m`).
    public static let priorMeanGrade = 4.0
    /// How many reviews the prior counts as (the Bayesian prior weight `C`).
    public static let priorWeight = 5.0
    /// A suggested search radius in meters when the client names none.
    public static let defaultRadius = 10_000.0

    /// The combined score in 0...1, higher is better.
    public let score: Double
    /// The reasons the score is made of.
    public let reasons: Reasons

    /// The recommendation of `candidate` for `source`, `distance` meters apart, within a search `radius`
    /// (meters), the candidate's writer having `writerRating`. See the type's documentation for the formula.
    public init(source: ClassListing, candidate: ClassListing, distance: Double, radius: Double, writerRating: Rating) {
        let reasons = Reasons(
            subjects: Fit.overlap(source.subjects, candidate.subjects),
            targets: Fit.targets(source.targets, candidate.targets),
            days: Fit.overlap(source.days, candidate.days),
            distance: Fit.distance(distance, radius: radius),
            price: Fit.price(source, candidate),
            rating: Fit.rating(writerRating)
        )
        self.reasons = reasons
        self.score = Fit.unit(reasons.weightedSum(.standard))
    }

    /// Whether `candidate` may be recommended for `source` to `viewerId`: an `open` listing of the
    /// opposite type, not `source` itself, and written neither by `source`'s writer nor by the viewer.
    public static func isCandidate(_ candidate: ClassListing, for source: ClassListing, viewerId: String?) -> Bool {
        candidate.status == .open
            && candidate.type == source.type.opposite
            && candidate.id != source.id
            && candidate.writerId != source.writerId
            && candidate.writerId != viewerId
    }

    /// The formulas of the individual reasons.
    enum Fit {
        /// The Jaccard index of two lists as sets; 0.5 when either is empty.
        static func overlap<Value: Hashable>(_ first: [Value], _ second: [Value]) -> Double {
            let a = Set(first)
            let b = Set(second)
            guard !a.isEmpty, !b.isEmpty else { return 0.5 }
            return Double(a.intersection(b).count) / Double(a.union(b).count)
        }

        /// 0.5 when either list is empty, 1 when either holds `all`, else the Jaccard index.
        static func targets(_ first: [Target], _ second: [Target]) -> Double {
            guard !first.isEmpty, !second.isEmpty else { return 0.5 }
            if first.contains(.all) || second.contains(.all) { return 1 }
            return overlap(first, second)
        }

        /// `1 - distance / radius` clamped to 0...1; for a radius that is not positive, 1 at distance 0 and
        /// 0 elsewhere; 0 for a NaN distance.
        static func distance(_ distance: Double, radius: Double) -> Double {
            guard !distance.isNaN else { return 0 }
            guard radius > 0, radius.isFinite else { return distance <= 0 ? 1 : 0 }
            return unit(1 - distance / radius)
        }

        /// The fit of the sell listing's ask to the buy listing's budget (see ``Recommendation``).
        static func price(_ source: ClassListing, _ candidate: ClassListing) -> Double {
            guard source.type != candidate.type else { return 0.5 }
            let (sell, buy) = source.type == .sell ? (source, candidate) : (candidate, source)
            guard let ask = sell.price, let budget = buy.price, sell.priceUnit == buy.priceUnit else { return 0.5 }
            return price(ask: ask, budget: budget)
        }

        /// 1 when `ask <= budget`, else `(budget / ask)²` (0 for a budget of 0 or less).
        static func price(ask: Int, budget: Int) -> Double {
            if ask <= budget { return 1 }
            guard budget > 0 else { return 0 }
            let ratio = Double(budget) / Double(ask)
            return unit(ratio * ratio)
        }

        /// The Bayesian average of `rating` mapped from 0.5...5.0 onto 0...1; a rating without a positive
        /// count or with a non-finite average counts as no reviews.
        static func rating(_ rating: Rating) -> Double {
            let grades = ReviewRules.gradeRange
            let hasReviews = rating.count > 0 && rating.average.isFinite
            let count = hasReviews ? Double(rating.count) : 0
            let average = hasReviews ? min(grades.upperBound, max(grades.lowerBound, rating.average)) : 0
            let mean = (priorWeight * priorMeanGrade + average * count) / (priorWeight + count)
            return unit((mean - grades.lowerBound) / (grades.upperBound - grades.lowerBound))
        }

        /// `value` clamped to 0...1 (NaN becomes 0).
        static func unit(_ value: Double) -> Double {
            guard !value.isNaN else { return 0 }
            return min(1, max(0, value))
        }
    }
}

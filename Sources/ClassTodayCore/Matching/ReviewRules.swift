import Foundation

/// The rules a review of a completed match must satisfy, and how reviews add up to a ``Rating``.
public enum ReviewRules {
    /// The lowest and highest grade.
    public static let gradeRange = 0.5...5.0
    /// Grades are whole multiples of this step.
    public static let gradeStep = 0.5
    /// Accepted description lengths, in characters.
    public static let descriptionLength = 0...1000

    /// What a member's second review of one match gets: each member reviews a match once.
    public static let alreadyReviewed = DomainError.conflict("you have already reviewed this match")

    /// Whether `grade` is one of 0.5, 1.0, …, 5.0 (NaN, infinities and values such as 0.3 are not).
    public static func isValidGrade(_ grade: Double) -> Bool {
        guard grade.isFinite, gradeRange.contains(grade) else { return false }
        let steps = grade / gradeStep
        return steps == steps.rounded()
    }

    /// Records errors for a missing or invalid `grade` and for a `description` longer than
    /// ``descriptionLength`` (an absent description counts as empty).
    public static func check(grade: Double?, description: String?, into validator: inout FieldValidator) {
        if let grade {
            validator.check(isValidGrade(grade), "grade", "must be between 0.5 and 5.0 in steps of 0.5")
        } else {
            validator.fail("grade", "is required")
        }
        if let description {
            validator.check(description.unicodeScalars.count <= descriptionLength.upperBound, "description",
                            "must be at most \(descriptionLength.upperBound) characters")
        }
    }

    /// `rating` with one more review of `grade` folded into its average.
    public static func rating(_ rating: Rating, adding grade: Double) -> Rating {
        let count = max(0, rating.count)
        let total = rating.average * Double(count) + grade
        return Rating(average: total / Double(count + 1), count: count + 1)
    }
}

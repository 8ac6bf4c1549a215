import Foundation
import Testing
@testable import ClassTodayCore

/// Tests for ``ReviewRules``.
@Suite("Review rules")
struct ReviewRulesTests {
    /// Checks that every half step from 0.5 to 5.0 is a valid grade.
    @Test("every half step from 0.5 to 5.0 is valid")
    func validGrades() {
        let grades = (1...10).map { Double($0) / 2 }
        #expect(grades.first == 0.5 && grades.last == 5.0)
        for grade in grades {
            #expect(ReviewRules.isValidGrade(grade), "\(grade)")
        }
    }

    /// Checks that grades off the steps, out of range or not finite are rejected.
    @Test("off-step, out-of-range and non-finite grades are invalid",
          arguments: [0.0, -0.5, 0.3, 0.49, 0.51, 1.25, 4.99, 5.5, 10, 0.5000001, .nan, .infinity, -.infinity,
                      .ulpOfOne, .greatestFiniteMagnitude])
    func invalidGrades(grade: Double) {
        #expect(!ReviewRules.isValidGrade(grade))
    }

    /// Checks the field errors of a review request.
    @Test("check reports grade and description")
    func check() {
        func fields(_ grade: Double?, _ description: String?) -> [String] {
            var validator = FieldValidator()
            ReviewRules.check(grade: grade, description: description, into: &validator)
            return validator.errors.map(\.field)
        }
        #expect(fields(4.5, "친절하게 잘 가르쳐 주셨어요").isEmpty)
        #expect(fields(0.5, nil).isEmpty)
        #expect(fields(5, String(repeating: "좋", count: 1000)).isEmpty)
        #expect(fields(5, "").isEmpty)
        #expect(fields(nil, "좋아요") == ["grade"])
        #expect(fields(0.3, "좋아요") == ["grade"])
        #expect(fields(5, String(repeating: "좋", count: 1001)) == ["description"])
        #expect(fields(.nan, String(repeating: "a", count: 1001)) == ["grade", "description"])
    }

    /// Checks that adding grades keeps a running mean.
    @Test("adding grades keeps the mean")
    func addingGrades() {
        var rating = Rating.none
        for grade in [5.0, 4.0, 3.0] {
            rating = ReviewRules.rating(rating, adding: grade)
        }
        #expect(rating.count == 3)
        #expect(abs(rating.average - 4.0) < 1e-12)
        #expect(ReviewRules.rating(.none, adding: 2.5) == Rating(average: 2.5, count: 1))
    }
}

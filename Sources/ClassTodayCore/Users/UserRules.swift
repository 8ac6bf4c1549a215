/// The rules an account's fields must satisfy.
public enum UserRules {
    /// Shortest accepted password, in characters.
    public static let minimumPasswordLength = 8
    /// Longest accepted password in UTF-8 bytes: bcrypt reads no further than 72 bytes.
    public static let maximumPasswordBytes = 72
    /// Accepted nickname lengths.
    public static let nicknameLength = 1...40
    /// Accepted description lengths.
    public static let descriptionLength = 0...1000
    /// Accepted company lengths.
    public static let companyLength = 0...100
    /// Accepted district name lengths.
    public static let keywordLocationLength = 0...100
    /// Accepted address text lengths.
    public static let detailLocationLength = 0...200

    /// The form used to compare emails: trimmed and lowercased.
    public static func normalizedEmail(_ email: String) -> String {
        email.trimmingWhitespace().lowercased()
    }

    /// Whether `email` looks like a deliverable address: one `@`, a local part, a dotted domain, no spaces.
    public static func isValidEmail(_ email: String) -> Bool {
        let trimmed = email.trimmingWhitespace()
        guard trimmed.utf8.count <= 254, !trimmed.contains(where: { $0.isWhitespace }) else { return false }
        let parts = trimmed.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, let local = parts.first, let domain = parts.last,
              !local.isEmpty, local.utf8.count <= 64
        else { return false }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { label in
            !label.isEmpty && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" }
        }
    }

    /// Checks a password against the length rules.
    public static func checkPassword(_ password: String?, into validator: inout FieldValidator) {
        guard let password else {
            validator.fail("password", "is required")
            return
        }
        validator.check(password.count >= minimumPasswordLength, "password",
                        "must be at least \(minimumPasswordLength) characters")
        validator.check(password.utf8.count <= maximumPasswordBytes, "password",
                        "must be at most \(maximumPasswordBytes) bytes")
    }

    /// Checks a list of subjects for duplicates (values are already known members of the enum).
    public static func checkNoDuplicates<Value: Hashable>(_ values: [Value]?, _ field: String, into validator: inout FieldValidator) {
        guard let values else { return }
        validator.check(Set(values).count == values.count, field, "must not contain duplicates")
    }
}

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
    /// Accepted terms-of-service version lengths.
    public static let termsVersionLength = 1...64

    /// Checks a terms version sent by a client: absent is fine (the caller decides what that means); present, it
    /// must be `current`, the only version a user can accept now.
    public static func checkTermsVersion(_ version: String?, current: String, into validator: inout FieldValidator) {
        guard let version else { return }
        validator.check(version == current, "termsVersion", "must be the current terms version (\(current))")
    }

    /// Accepted lengths of a provider's id of a user (`sub`): Apple's are 44 characters, Google's 21 digits.
    public static let providerSubjectLength = 1...255

    /// Whether `subject`, a provider's id of a user, can key an identity: of ``providerSubjectLength`` and without
    /// control characters (PostgreSQL's text cannot hold U+0000 at all).
    public static func isValidProviderSubject(_ subject: String) -> Bool {
        providerSubjectLength.contains(subject.unicodeScalars.count) && !containsControlCharacters(subject)
    }

    /// Whether `text` holds a control character (Unicode's Cc: U+0000–U+001F and U+007F–U+009F).
    static func containsControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// The nickname of an account created by a sign-in provider: the name the provider gave, trimmed, when it is a
    /// valid nickname without control characters that `filter` allows; otherwise `이웃` and six random digits.
    public static func providerNickname(
        _ name: String?, filter: BannedWordFilter, using generator: inout some RandomNumberGenerator
    ) -> String {
        if let name = name?.trimmingWhitespace(), nicknameLength.contains(name.unicodeScalars.count),
           !containsControlCharacters(name), filter.allows(name) {
            return name
        }
        return "이웃" + String(Int.random(in: 100_000...999_999, using: &generator))
    }

    /// The form used to compare emails: trimmed and lowercased.
    public static func normalizedEmail(_ email: String) -> String {
        email.trimmingWhitespace().lowercased()
    }

    /// The longest accepted email address, in characters (RFC 5321's path limit less the angle brackets).
    public static let maximumEmailLength = 254

    /// RFC 5322's `atext`: the characters of an email's local part between its dots (ASCII letters, digits and symbols).
    private static let atext = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+/=?^_`{|}~-".unicodeScalars)

    /// Whether `email` is an address the service accepts (exactly what the API document's pattern for it
    /// accepts): at most ``maximumEmailLength`` characters; a local part of 1 to 64 characters that is an RFC 5322
    /// dot-atom (runs of ``atext`` joined by single dots, no dot first or last); one `@`; a domain of two or more dot-separated labels, each 1 to 63 ASCII letters,
    /// digits and hyphens that neither starts nor ends with a hyphen (internationalised domains in punycode).
    /// No white space, not even around it.
    public static func isValidEmail(_ email: String) -> Bool {
        let scalars = email.unicodeScalars
        guard scalars.count <= maximumEmailLength else { return false }
        let parts = scalars.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...64).contains(parts[0].count),
              parts[0].split(separator: ".", omittingEmptySubsequences: false).allSatisfy({ !$0.isEmpty && $0.allSatisfy(atext.contains) })
        else {
            return false
        }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy(isDomainLabel)
    }

    /// Whether `label` is 1 to 63 ASCII letters, digits and hyphens, neither starting nor ending with a hyphen.
    private static func isDomainLabel(_ label: Substring.UnicodeScalarView) -> Bool {
        func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))
        }
        guard let first = label.first, let last = label.last, label.count <= 63 else { return false }
        return isAlphanumeric(first) && isAlphanumeric(last) && label.allSatisfy { isAlphanumeric($0) || $0 == "-" }
    }

    /// Checks that an address was sent and is one ``isValidEmail(_:)`` accepts, naming `field` (`email`, `newEmail`).
    public static func checkEmail(_ email: String?, field: String = "email", into validator: inout FieldValidator) {
        guard let email else {
            validator.fail(field, "is required")
            return
        }
        validator.check(isValidEmail(email), field, "must be a valid email address")
    }

    /// Checks a password against the length rules, naming `field` (`password`, `newPassword`) in the errors.
    public static func checkPassword(_ password: String?, field: String = "password", into validator: inout FieldValidator) {
        guard let password else {
            validator.fail(field, "is required")
            return
        }
        validator.check(password.unicodeScalars.count >= minimumPasswordLength, field,
                        "must be at least \(minimumPasswordLength) characters")
        validator.check(password.utf8.count <= maximumPasswordBytes, field,
                        "must be at most \(maximumPasswordBytes) bytes")
    }

    /// Checks a list of subjects for duplicates (values are already known members of the enum).
    public static func checkNoDuplicates<Value: Hashable>(_ values: [Value]?, _ field: String, into validator: inout FieldValidator) {
        guard let values else { return }
        validator.check(Set(values).count == values.count, field, "must not contain duplicates")
    }
}

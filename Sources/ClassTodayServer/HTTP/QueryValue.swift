/// Reads query-parameter text strictly: exactly the forms that the API document's schemas allow, so that
/// `0x10`, `+5`, ` 5`, `05` or `inf` are refused rather than read as numbers.
enum QueryValue {
    /// A finite number written as JSON writes numbers (`-12.5`, `3000`, `1e-05`).
    static func number(_ text: some StringProtocol) -> Double? {
        guard StrictJSONParser.isNumber(text), let value = Double(String(text)), value.isFinite else { return nil }
        return value
    }

    /// A whole number written in decimal digits, with an optional `-` and no leading zeros (`20`, `-3`).
    static func integer(_ text: some StringProtocol) -> Int? {
        guard StrictJSONParser.isNumber(text), !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) else { return nil }
        return Int(String(text))
    }

    /// A number in plain decimal notation, without an exponent (`126.9`, `-33`).
    static func decimal(_ text: some StringProtocol) -> Double? {
        guard !text.contains(where: { $0 == "e" || $0 == "E" }) else { return nil }
        return number(text)
    }

    /// The items of a comma-separated list (`math,hobby`); every item, empty ones included, is kept as written.
    static func list(_ text: String) -> [String] {
        text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }
}

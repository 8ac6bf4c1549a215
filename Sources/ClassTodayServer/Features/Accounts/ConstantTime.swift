/// Comparisons whose time depends only on the lengths compared, not on where the first difference is.
enum ConstantTime {
    /// Whether `a` and `b` hold the same UTF-8 bytes, looking at every byte of the longer.
    static func equals(_ a: String, _ b: String) -> Bool {
        let (left, right) = (Array(a.utf8), Array(b.utf8))
        var difference = UInt8(truncatingIfNeeded: left.count ^ right.count) | (left.count == right.count ? 0 : 1)
        for index in 0..<max(left.count, right.count) {
            difference |= (index < left.count ? left[index] : 0) ^ (index < right.count ? right[index] : 0)
        }
        return difference == 0
    }
}

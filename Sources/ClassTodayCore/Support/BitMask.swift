/// Sets of enum cases as bit masks (bit `i` for the `i`-th case), so that "shares at least one value" is one
/// `mask & other != 0` test in SQL.
public enum BitMask {
    /// The mask of `values`.
    public static func of<Value: CaseIterable & Equatable>(_ values: some Sequence<Value>) -> Int64 {
        let all = Array(Value.allCases)
        return values.reduce(0) { mask, value in
            guard let index = all.firstIndex(of: value) else { return mask }
            return mask | (Int64(1) << Int64(index))
        }
    }
}

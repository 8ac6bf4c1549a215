import ClassTodayCore
import Foundation

extension SearchPlan {
    /// One statement: candidates in `ranges` (all listings when nil) that satisfy everything, after `position`, in
    /// sort order; nil when nothing can match. `reading` says where a cell's candidates are (``CellCandidates/Reading``):
    /// keyword hits stand for the keyword's index condition. Without `gate`, a condition on no listing, the statement's
    /// `LIMIT` is 0, which both backends check before reading a row; `withText` selects name and description instead of
    /// confirming a keyword in SQL; `window` reads the newest listings on the backend's recency index instead of `ranges`.
    func statement(
        ranges: [GeohashRange]?, limit: Int, after position: SearchPosition?, keyword clause: KeywordClause?,
        reading: CellCandidates.Reading = .range, gate: SQLStatement? = nil, window: NewestWindow? = nil, withText: Bool = false
    ) -> SQLStatement? {
        // Several ranges are a table of bounds where the backend joins them (``ClassSearchIndex/joinsRanges``).
        let rangeTable = ranges.flatMap { $0.count > 1 && index.joinsRanges ? $0 : nil }
        guard let area = areaConditions(ranges: rangeTable == nil ? ranges : nil) else { return nil }
        var columns = keyColumns
        var conditions = filterConditions + area.conditions
        if let floor = window?.floor { conditions.append("c.created_at >= \(floor)") }
        var outer: [SQLStatement] = []
        var hint = if window != nil {
            index.newestWindowHint ?? ""
        } else if ranges != nil {
            index.rangeHint(district: search.keywordLocation)
        } else {
            ""
        }
        if let distance = area.distance {
            columns.append(", \(distance) AS distance")
            outer.append("k.distance <= \(area.radius)")
        }
        if let keyword = search.keyword {
            switch reading {
            case .keys(let restriction):
                conditions.append(restriction)
                hint = ""
            case .rows:
                break
            case .range:
                guard let clause else { break }
                conditions.append(clause.condition)
                if !withText, keyword.needsVerification, let verification = clause.verification { conditions.append(verification) }
            }
            if withText { columns.append(", c.name, c.description") }
        }
        // Keyset: (key, id) ascending for distance, descending for recent (relevance reads through the index instead).
        let (key, ascending) = search.sort == .distance ? ("k.distance", true) : ("k.created_at", false)
        let direction = ascending ? "" : " DESC"
        if let position {
            if case .string = position.value {
                // Numbers sort before text: nothing follows a text key ascending, everything descending.
                if ascending { return nil }
            } else {
                let value: SQLStatement = ascending ? "\(position.value.double ?? 0)" : "\(position.value.int ?? 0)"
                let beyond = ascending ? ">" : "<"
                outer.append("""
                    (\(raw: key) \(raw: beyond) \(value) OR (\(raw: key) = \(value) AND k.id \(raw: dialect.byteOrder) \(raw: beyond) \(position.id)))
                    """)
            }
        }
        let limitClause: SQLStatement = gate.map { "CASE WHEN \($0) THEN \(limit) ELSE 0 END" } ?? "\(limit)"
        let listings: SQLStatement = if let rangeTable {
            """
            (VALUES \(rangeTable.map { "(\($0.lower), \($0.upper))" as SQLStatement }.joined(with: ", "))) r
                JOIN classes c \(raw: hint) ON c.geohash >= r.column1 AND c.geohash < r.column2
            """
        } else if case .rows = reading {
            "\(raw: CellCandidates.table) c"
        } else {
            "classes c \(raw: hint)"
        }
        return """
            SELECT * FROM (SELECT \(columns) FROM \(listings)
                WHERE \((["c.deleted_at IS NULL"] + conditions).joined(with: " AND "))) k
            WHERE \(outer.isEmpty ? "1 = 1" : outer.joined(with: " AND "))
            ORDER BY \(raw: key)\(raw: direction), k.id \(raw: dialect.byteOrder)\(raw: direction) LIMIT \(limitClause)
            """
    }

    /// Up to `limit` keys of the candidates in `ranges` (all listings when nil) that satisfy everything, after the
    /// cursor, in sort order; with `window`, of the newest listings it selects, read on the backend's recency index.
    func keys(_ db: any SQLExecutor, ranges: [GeohashRange]?, limit: Int, window: NewestWindow? = nil) async throws -> [SearchKey] {
        let clause = search.keyword.map { index.keyword($0, withinRanges: ranges != nil) }
        let confirmedHere = confirmedHere(clause, restricted: false)
        var keys: [SearchKey] = []
        var position = startPosition
        while keys.count < limit {
            let batch = max(limit - keys.count, confirmedHere == nil ? 0 : SQLClassSearch.verificationBatch)
            guard var statement = statement(ranges: ranges, limit: batch, after: position, keyword: clause, window: window,
                                            withText: confirmedHere != nil)
            else { break }
            // Texts holding a search's own ranges would fill SQLite's statement cache.
            statement.isCached = false
            let fetched = try await db.rows(statement).map { try SearchKey(row: $0, sort: search.sort) }
            trace?.examined(fetched.count)
            keys += fetched.filter { accepts($0, confirming: confirmedHere) }
            guard fetched.count == batch, let last = fetched.last, let value = last.values.first else { break }
            position = SearchPosition(value: value, id: last.id)
        }
        return Array(keys.prefix(limit))
    }

    /// The keyword to confirm in Swift for a read selecting `clause`, or the index's candidates when `restricted`:
    /// one that needs verification, where the read leaves it out.
    func confirmedHere(_ clause: KeywordClause?, restricted: Bool) -> SearchQuery? {
        search.keyword.flatMap { keyword in
            keyword.needsVerification && (restricted || clause?.verification == nil) ? keyword : nil
        }
    }

    /// Whether the viewer may see `key`'s listing and it matches `keyword`, confirmed on its text.
    func accepts(_ key: SearchKey, confirming keyword: SearchQuery?) -> Bool {
        !(key.writerId.map(blockedWriters.contains) ?? false) && keyword.map { $0.matches(key.text ?? "") } ?? true
    }
}

/// A read of the newest listings on the backend's recency index (``ClassSearchIndex/newestWindowHint``): those
/// created at `floor` or after, or every one when there is no floor.
struct NewestWindow {
    let floor: Int64?
}

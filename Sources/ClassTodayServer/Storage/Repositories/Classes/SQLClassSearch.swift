import ClassTodayCore
import Foundation

/// Runs a ``ClassSearch`` on either backend. Each step is one statement that selects only keys: geohash ranges on
/// the `classes_by_geohash` index (`classes_by_district_cell` within a district) or the keyword index select
/// candidates, and the exact haversine distance (``SQLDialect/distance(lat1:lon1:lat2:lon2:)``), box and keyword
/// checks, every filter and the keyset condition apply in the same statement. The page's listings are then read in
/// one more statement (``ClassViewQuery/views(ids:viewerId:_:)``), so that writer, images and favourite flags are
/// looked up for the page only, never for every candidate.
///
/// Nearest-first searches without a keyword or a district read their page, listings and all, in one statement when
/// the backend's index has its own nearest-first order (``ClassSearchIndex/nearestOrder(within:)``: PostgreSQL's).
/// Others walk the circle's geohash cells nearest first (``NearestCellWalk``): a cell the backend's index finds crowded
/// (``CellCandidates/capacity``) is split into its children, any other is read with one one-range
/// statement, and the walk stops once the page holds listings nearer than the next cell can offer. A dense city is
/// read in small cells around the centre, a sparse region in large ones, and neither reads the whole circle. Where the
/// backend keeps its listings' points in memory (SQLite's ``ClassPointIndex``), a circle with no filter but status and
/// type walks the same cells over them instead, and reads only its page's listings; with a keyword, it reads each
/// cell's hits from the keyword index as rowids alone and places them with the points
/// (``nearestFirstOverHits(_:circle:)``). Elsewhere a keyword's walk that finds little in its first cells reads all the
/// keyword's hits at once instead, when they are few (``keysFromHits(_:)``).
///
/// Keywords: the index's condition selects a superset of the matches; when ``SearchQuery/needsVerification`` the
/// candidates are confirmed by the index's SQL when it has some, or else here with ``SearchQuery/matches(_:)-(String)``,
/// reading further candidates until the page is full or none are left.
///
/// Relevance order (``SearchQuery/RelevanceTier``) reads the name tier, then the description tier, each newest first
/// from the keyword index (``ClassSearchIndex/newest(_:nameOnly:district:columns:conditions:after:limit:enough:_:)``), and stops
/// once the page is full: no hit is scored, however common the word.
package struct SQLClassSearch {
    /// The search; its keyword narrowed once the read has looked up its typos and words (``KeywordVocabulary``).
    private(set) var search: ClassSearch
    let page: PageRequest
    let viewerId: String?
    /// The backend's SQL.
    let dialect: SQLDialect
    /// The most keyword hits a nearest-first walk reads at once when it goes far (``keysFromHits(_:)``); 0 reads every
    /// cell with statements.
    let fewHits: Int
    /// The most candidates a page's walk confirms or examines before it ends the page where it stands
    /// (``confirmationBudget``).
    let confirming: Int

    /// The search `search` for the page `page` as `viewerId` sees it, in `dialect`'s SQL; tests set `fewHits` to 0 so
    /// that a walk reads all its cells, and `confirming` low to end pages early.
    package init(
        search: ClassSearch, page: PageRequest, viewerId: String?, dialect: SQLDialect, fewHits: Int = Self.fewHits,
        confirming: Int = Self.confirmationBudget
    ) {
        self.search = search
        self.page = page
        self.viewerId = viewerId
        self.dialect = dialect
        self.fewHits = fewHits
        self.confirming = confirming
    }

    /// The most candidates a page's walk reads to confirm a keyword on their text, or, nearest first with statements,
    /// examines in its cells: past them, the page ends with the matches found so far, fewer than its limit or none,
    /// and a cursor where the walk stood, from which the next page goes on. A run of initial consonants almost nothing
    /// matches (`ㅇㅇㅇㅇㅇㅇ`) asks the index for one common pair and confirmed every listing holding it: 19 s for one
    /// page by relevance on a million, 4 s within 50 km over the points and 30 s with statements on PostgreSQL; a
    /// circle whose listings a filter all leaves out (another district) read every cell of it, 4 s within 50 km.
    package static let confirmationBudget = 20_000

    /// The backend's keyword index.
    private var index: any ClassSearchIndex { dialect.classIndex }

    /// The fewest candidates read per statement when keyword candidates are confirmed in Swift.
    private static let verificationBatch = 64

    /// The ordering name cursors of this search carry.
    private var ordering: String { search.sort.rawValue }

    /// Runs the search on `database`: in one snapshot (``SQLDatabase/read(_:)``), unless the backend's index reads the
    /// page in its order (``nearestOrder``) with no filter but status and type, whose page is one statement, listings
    /// and all, and needs no snapshot of its own. A filtered page may ask where its reach ended in a second statement,
    /// which must see the listings the first read.
    package func run(on database: any SQLDatabase) async throws -> Page<ClassView> {
        if let order = nearestOrder, filteredReach(for: order) == nil { return try await run(database) }
        return try await database.read { db in try await run(db) }
    }

    /// Runs the search on `db` (one snapshot: inside ``SQLDatabase/read(_:)``, but for a page the index orders).
    package func run(_ db: any SQLExecutor) async throws -> Page<ClassView> {
        if let keyword = search.keyword, let planned = try await planned(keyword, db) {
            var plannedSearch = self
            plannedSearch.search.keyword = planned
            return try await plannedSearch.run(db)
        }
        if let order = nearestOrder, let circle = search.circle,
           let page = try await pageByIndex(db, order: order, circle: circle, reach: filteredReach(for: order)) {
            return page
        }
        if search.sort == .distance, let circle = search.circle, let page = try await commonKeywordPageByIndex(db, circle: circle) {
            return page
        }
        var scoped = self
        if let viewerId { scoped.blockedWriters = Set(try await BlockSQL.counterparts(of: viewerId, db)) }
        return try await scoped.runScoped(db)
    }

    /// `keyword` as the index had best read it, one step at a time: its typos narrowed to the bigrams the index holds
    /// and its words' prefixes to the few words they start (``KeywordVocabulary``), then, when its candidates are
    /// confirmed anyway, its tokens far more common than the rarest beside them left out, by the counts the backend
    /// keeps (``SearchQuery/leavingOutCommonTokens(counts:)``). Nil once neither step is left.
    private func planned(_ keyword: SearchQuery, _ db: any SQLExecutor) async throws -> SearchQuery? {
        if let narrowed = try await KeywordVocabulary.narrowing(keyword, db) { return narrowed }
        let tokens = keyword.tokensToCount
        guard !tokens.isEmpty, let counts = db.tokenCounts?.counts(of: tokens), !counts.isEmpty else { return nil }
        return keyword.leavingOutCommonTokens(counts: counts)
    }

    /// The writers whose listings the viewer must not see (blocked either way), read once per search and left out
    /// in Swift: the key statements then select `writer_id`, and stay the same statements whoever the viewer blocked.
    private var blockedWriters: Set<String> = []

    private func runScoped(_ db: any SQLExecutor) async throws -> Page<ClassView> {
        var keys: [Key]
        var resumeAfter: Key?
        if search.sort == .distance, let circle = search.circle {
            if let found = try await nearestFirstInMemory(db, circle: circle) {
                keys = found
            } else if let found = try await nearestFirstOverHits(db, circle: circle) {
                (keys, resumeAfter) = found
            } else {
                try await index.prepareWalk(db)
                (keys, resumeAfter) = try await nearestFirst(db, circle: circle)
            }
        } else if search.sort == .relevance, let keyword = search.keyword {
            (keys, resumeAfter) = try await byRelevance(db, keyword: keyword)
        } else {
            if let found = try await keysFromNewestWindow(db, limit: page.limit + 1) {
                keys = found
            } else {
                keys = try await self.keys(db, ranges: coveringRanges, limit: page.limit + 1)
            }
        }
        return try await views(for: keys, resumingAfter: resumeAfter, db)
    }

    /// The geohash ranges covering the search's circle or box; nil without either.
    private var coveringRanges: [GeohashRange]? {
        search.circle.map { GeohashCover.circle(center: $0.center, radiusMeters: $0.radius) } ?? search.box.map(GeohashCover.box)
    }

    /// The sort key of one result, and what is needed to confirm a keyword.
    private struct Key {
        let id: String
        let sort: ClassSearch.Sort
        let tier: SearchQuery.RelevanceTier?
        let createdAt: Int64
        let distance: Double?
        let name: String?
        let description: String?
        let writerId: String?
        /// Whether the name's own index tokens hold the keyword's (``ClassSearchIndex/newest(_:nameOnly:district:columns:conditions:after:limit:enough:_:)``).
        let nameHit: Bool

        /// Whether `key` comes before `other` nearest first: by distance, then id, as ``NearestFirstPage`` orders keys.
        static func isNearer(_ key: Key, than other: Key) -> Bool {
            (key.distance ?? 0, key.id) < (other.distance ?? 0, other.id)
        }

        /// The key of a listing `distance` metres from a nearest-first search's centre.
        init(id: String, distance: Double) {
            (self.id, self.distance, sort, tier, createdAt) = (id, distance, .distance, nil, 0)
            (name, description, writerId, nameHit) = (nil, nil, nil, false)
        }

        /// The key of a listing's point found by a walk over the listings' points.
        init(point: PointKey) {
            self.init(id: Identifier.text(packed: point.id), distance: point.distance)
        }

        init(row: SQLRow, sort: ClassSearch.Sort, tier: SearchQuery.RelevanceTier? = nil) throws {
            id = try row["id"]
            createdAt = try row["created_at"]
            writerId = row.contains("writer_id") ? try row["writer_id"] : nil
            distance = row.contains("distance") ? try row["distance"] : nil
            name = row.contains("name") ? try row["name"] : nil
            description = row.contains("description") ? try row["description"] : nil
            nameHit = row.contains("name_hit") ? try row["name_hit"] as Bool : false
            (self.sort, self.tier) = (sort, tier)
        }

        /// The sort values before the id, as the page cursor carries them (computed for the page's last key only: an
        /// array per key read was a walk's most frequent allocation).
        var values: [PageCursorValue] {
            switch sort {
            case .distance: [.double(distance ?? 0)]
            case .relevance: [.int(Int64(tier?.rawValue ?? 0)), .int(createdAt)]
            case .recent: [.int(createdAt)]
            }
        }

        /// The searchable text, when it was read.
        var text: String? {
            name.map { ClassSearchDocument.text(name: $0, description: description ?? "") }
        }
    }

    /// A keyset position: the sort value and id of the last result seen.
    private struct Position {
        let value: PageCursorValue
        let id: String
    }

    /// The keys of a nearest-first page read cell by cell with statements (``cellKeys(_:cell:limit:rangeCells:)``), and
    /// where the walk stood when it ended the page early: past ``confirming`` candidates examined in its cells (a
    /// keyword's to confirm, a filter's to check; a cell's statement counts as a full cell of listings,
    /// ``CellCandidates/crowdedCell``, at least), the page ends at the next cell, with the keys nearer than it, fewer
    /// than the page wants or none, and resumes from that cell's least distance (a key of no id, which every id
    /// follows). Each cell's candidates are examined cell by cell, not in distance order, so the page cannot end within
    /// a cell. A search without a keyword examines ``filterFactor`` times as many; one with no filter but status and
    /// type either has no budget: it gives the pages of the walk over the listings' points
    /// (``nearestFirstInMemory(_:circle:)``), which it stands in for (with other filters, a page it ends at its budget
    /// ends earlier than the points' would; the pages after it go on from there). A cell every point of which comes
    /// before the page's cursor is not read.
    private func nearestFirst(_ db: any SQLExecutor, circle: ClassSearch.Circle) async throws -> (keys: [Key], resumeAfter: Key?) {
        var walk = NearestCellWalk(center: circle.center, radius: circle.radius)
        var keys = NearestFirstPage<Key, String>(wanted: page.limit + 1, distance: { $0.distance ?? 0 }, id: { $0.id })
        var rangeCells: RangeCellStatement?
        var cellsRead = 0
        var examined = 0
        // A search the listings' points could answer walks as they would, whole: its cells rarely lack a match.
        let budget = search.keyword != nil ? confirming : filtersOnlyByStatusAndType ? .max : Self.filterFactor * confirming
        let after = startPosition?.value.double ?? 0
        var nextCheck = search.keyword?.needsVerification == true ? Self.cellsBeforeHits : Int.max
        while let entry = walk.popNearest(), !keys.settle(before: entry.minimumDistance) {
            // Past the budget, the page ends once the walk has gone beyond its cursor, so that the next page goes on.
            if examined >= budget, entry.minimumDistance > after {
                return (keys.settledItems, Key(id: "", distance: entry.minimumDistance))
            }
            if liesBeforeCursor(entry.cell, of: circle) { continue }
            if entry.cell.precision < Geohash.storagePrecision, try await isSurelyCrowded(entry.cell, db) {
                walk.split(entry)
                continue
            }
            let read = try await cellKeys(db, cell: entry.cell, limit: keys.stillWanted, rangeCells: &rangeCells)
            // A statement costs at least a full cell's reading in its round trip, however few its candidates. The cells
            // across the cursor, which each page after it reads again, count too: not counted, they made a page of a
            // run of initials within a district and 50 km take 1.9 s (0.25 s counted, in more pages).
            examined += max(read.candidates, CellCandidates.crowdedCell)
            if let found = read.keys {
                keys.add(found)
                cellsRead += 1
                if cellsRead == nextCheck {
                    nextCheck = 4 * keys.count < keys.wanted ? .max : 2 * nextCheck
                    if nextCheck == .max, let found = try await keysFromHits(db) { return (found, nil) }
                }
            } else if entry.cell.precision < Geohash.storagePrecision {
                walk.split(entry)
            } else {
                // A crowded cell of the finest precision: read its range with the search's whole condition.
                keys.add(try await self.keys(db, ranges: [GeohashRange(cell: entry.cell)], limit: keys.stillWanted))
            }
        }
        return (keys.finish(), nil)
    }

    /// How many times the budget a walk without a keyword examines (``confirming``): its cells' listings are checked
    /// on their columns, not confirmed on their text. A district no listing within 50 km holds walked a page past
    /// 20,000 listings in 30-40 ms on SQLite, and a million's circle in hundreds of pages of none; a keyword's
    /// candidates confirmed on PostgreSQL took 0.3-0.6 s.
    private static let filterFactor = 8

    /// Whether every point of `cell` comes before the page's cursor in a walk of `circle`, so that the cell holds
    /// nothing for the page (``GeohashCover/maximumDistance(from:to:)``).
    private func liesBeforeCursor(_ cell: Geohash, of circle: ClassSearch.Circle) -> Bool {
        guard let after = startPosition?.value.double else { return false }
        return GeohashCover.maximumDistance(from: circle.center, to: cell.bounds) < after
    }

    /// Whether the backend's counts say that `cell` holds over ``surelyCrowdedCell`` of the keyword's candidates
    /// (``ClassSearchIndex/estimatedCandidates(of:in:_:)``), so that the walk splits it without asking the index. On
    /// PostgreSQL, a GIN intersection saying a large cell is crowded cost 3-8 ms of a rare word's 20-35 (`@wyd` for
    /// `jlpt` or `공업수학` within 50 km of Seoul), and the counts said so in memory. Within a district the estimate is
    /// the keyword's in the whole cell, as the counts cannot tell the district's share of a cell: splitting the cells
    /// of a district ahead of the index kept `피아노` within 10 km of Sillim and `관악구` at 25-28 ms (37-50 asking the
    /// index for every cell), though it splits cells outside the district in vain (`jlpt` and `강남구` within 50 km,
    /// 78-79 ms against 41-43 asking).
    private func isSurelyCrowded(_ cell: Geohash, _ db: any SQLExecutor) async throws -> Bool {
        guard let keyword = search.keyword, let estimate = try await index.estimatedCandidates(of: keyword, in: cell, db) else { return false }
        return estimate > Double(Self.surelyCrowdedCell)
    }

    /// The fewest candidates estimated in a cell for the walk to split it without asking the index: twice what a
    /// cell may hold to be read, since an estimate takes the keyword and the place as independent, and a cell split
    /// in vain costs a statement per child the walk reaches, where one asked in vain costs one.
    private static let surelyCrowdedCell = 2 * CellCandidates.crowdedKeywordCell

    /// How many cells the walk of a keyword that needs confirming reads before it asks whether its hits are few
    /// (``keysFromHits(_:)``), when it has found less than a quarter of its page by then; it asks again, once at most,
    /// after twice as many cells and so on. A page whose matches lie near the centre is read by then, or soon after.
    /// Only such keywords ask: their candidates may be many more than their matches, which the walk reads cell by cell;
    /// another keyword's cells hold its matches only, and a walk over cells holding few or none is quick.
    private static let cellsBeforeHits = 4

    /// The most hits ``keysFromHits(_:)`` reads at once by default.
    package static let fewHits = 8_192

    /// The keys of a keyword's nearest-first page read from all of its hits at once, when ``fewHits`` at most pass the
    /// search's filters; nil otherwise, and the walk goes on. Each of a walk's cell statements intersects the keyword's
    /// tokens with the cell's, which costs about as much as the keyword's own intersection: a word whose matches are few
    /// and far apart, or none, made the walk read every cell of a large circle (114 statements for `없는말` within
    /// 50 km, 0.5 s). The index first says whether the hits may be few (``ClassSearchIndex/mayHoldFewHits(of:atMost:_:)``);
    /// then one statement reads every hit, ``fewHits`` + 1 at most, by key and distance, with its text when the keyword
    /// needs confirming (the rows the index read are read anyway); those within the circle after the cursor are sorted
    /// here, nearest first, and confirmed in that order until the page is full.
    private func keysFromHits(_ db: any SQLExecutor) async throws -> [Key]? {
        guard let keyword = search.keyword, fewHits > 0, let circle = search.circle, let area = areaConditions(ranges: nil),
              let distance = area.distance, try await index.mayHoldFewHits(of: keyword, atMost: fewHits, db)
        else { return nil }
        // The index's condition alone, the limit before any other: a keyword's SQL confirmation (SQLite's) would confirm
        // every hit, near or far, and a distance condition would read every hit to count those within.
        let conditions = ["c.deleted_at IS NULL", index.keyword(keyword, withinRanges: false).condition] + filterConditions + area.conditions
        let text: SQLStatement = keyword.needsVerification ? ", c.name, c.description" : ""
        let rows = try await db.rows("""
            SELECT \(keyColumns), \(distance) AS distance\(text) FROM classes c WHERE \(conditions.joined(with: " AND ")) LIMIT \(fewHits + 1)
            """)
        guard rows.count <= fewHits else { return nil }
        let hits = try rows.map { try Key(row: $0, sort: .distance) }.filter { isOnPage($0, within: circle) }
            .sorted(by: Key.isNearer)
        let confirming = keyword.needsVerification ? keyword : nil
        return Array(hits.lazy.filter { accepts($0, confirming: confirming) }.prefix(page.limit + 1))
    }

    /// The keys of a keyword's nearest-first page walked over the listings' points in memory
    /// (``SQLExecutor/classPoints``): the walk of ``nearestFirst(_:circle:)``, each cell's hits read from the keyword
    /// index as rowids alone (``ClassSearchIndex/hitRowids(of:in:limit:_:)``) and placed with the points, which give
    /// their distance and leave out those the search's filters or hidden writers leave out. A cell holding more than
    /// ``crowdedHitCell`` hits is split, but at the finest cell the index holds, which is read whole. No listing's row is
    /// read for the walk: the candidates of a keyword that needs confirming are confirmed on their text nearest first,
    /// only once the walk has passed them (``settle(_:into:before:wanted:keyword:_:_:)``). As a statement returns rowids
    /// alone, a cell of several hundred hits costs about what the keyword's intersection with the cell costs: cells
    /// twice as crowded as the walk with statements reads are read whole, in fewer statements. Past ``confirming``
    /// candidates confirmed, the page ends where the walk stands (the second key returned, after which it goes on).
    ///
    /// With filters beyond status and type, which the points check, past ``confirming`` hits read (a cell's statement
    /// counting as a crowded cell at least) the page ends at the next cell, as the walk with statements ends it.
    ///
    /// Nil when the points cannot answer: the search has a district, its cursor is not one of their pages', its
    /// ``fewHits`` is 0 (the walk then reads every cell with statements), or the index reads no rowids.
    private func nearestFirstOverHits(_ db: any SQLExecutor, circle: ClassSearch.Circle) async throws -> (keys: [Key], resumeAfter: Key?)? {
        guard let keyword = search.keyword, fewHits > 0, search.keywordLocation == nil, let points = try await db.classPoints?.points(db),
              let filter = try await pointFilter(points, circle: circle, db)
        else { return nil }
        let wanted = page.limit + 1
        var walk = NearestCellWalk(center: circle.center, radius: circle.radius)
        var found: [PointKey] = []
        var pending: [Hit] = []
        var confirmation = Confirmation()
        // Hits that filters beyond status and type may leave out count against the budget, as the walk with statements
        // counts its cells' candidates (a cell's statement as a crowded cell at least).
        let hitBudget = filtersOnlyByStatusAndType ? Int.max : confirming
        var examined = 0
        let after = startPosition?.value.double ?? 0
        while let entry = walk.popNearest() {
            try await settle(&pending, into: &found, before: entry.minimumDistance, wanted: wanted, keyword: keyword, &confirmation, db)
            if found.count >= wanted || confirmation.count >= confirming { break }
            // Past the budget, the page ends once the walk has gone beyond its cursor, so that the next page goes on.
            if examined >= hitBudget, entry.minimumDistance > after {
                return (found.map(Key.init(point:)), Key(id: "", distance: entry.minimumDistance))
            }
            if liesBeforeCursor(entry.cell, of: circle) { continue }
            let finest = entry.cell.precision >= ClassSearchDocument.cellPrecisions.upperBound
            let limit = finest ? Self.finestCellHits : Self.crowdedHitCell
            guard let rowids = try await index.hitRowids(of: keyword, in: entry.cell, limit: limit, db) else {
                // A cell coarser than the index's cells is split; an index reading no rowids cannot walk.
                guard entry.cell.precision < ClassSearchDocument.cellPrecisions.lowerBound else { return nil }
                walk.split(entry)
                continue
            }
            if rowids.count > limit {
                guard !finest else { return nil }
                walk.split(entry)
                continue
            }
            examined += max(rowids.count, CellCandidates.crowdedCell)
            pending += place(rowids, in: points, cell: entry.cell, filter: filter)
            pending.sort { ($0.point.distance, $0.point.id) < ($1.point.distance, $1.point.id) }
        }
        // Past the budget, this confirms nothing more: the page ends where the walk stands.
        try await settle(&pending, into: &found, before: .infinity, wanted: wanted, keyword: keyword, &confirmation, db)
        let resumeAfter = found.count < wanted && confirmation.count >= confirming ? confirmation.last.map(Key.init(point:)) : nil
        return (found.map(Key.init(point:)), resumeAfter)
    }

    /// How far a walk has gone confirming a keyword's candidates on their text: how many it read, and the last of them
    /// in the walk's order, after which a page ended early goes on (``confirming``).
    private struct Confirmation {
        var count = 0
        var last: PointKey?
    }

    /// The most hits of a cell ``nearestFirstOverHits(_:circle:)`` reads rather than split it.
    private static let crowdedHitCell = 2 * CellCandidates.crowdedKeywordCell

    /// The most hits ``nearestFirstOverHits(_:circle:)`` reads of a cell of the finest precision the index holds, which
    /// splitting would not narrow: more than any such cell (about 150 m square) holds listings.
    private static let finestCellHits = 1 << 20

    /// A keyword's candidate placed with the listings' points: its point's distance and packed id, and its rowid.
    private typealias Hit = (point: PointKey, rowid: Int64)

    /// The candidates among `rowids` whose points lie in `cell` (the index may read a wider one) and that `filter` keeps.
    private func place(_ rowids: [Int64], in points: ClassPoints, cell: Geohash, filter: PointFilter) -> [Hit] {
        let keys = cell.storageKeys
        return rowids.compactMap { rowid in
            guard let point = points.point(row: rowid), keys.contains(point.key), let key = filter.key(of: point) else { return nil }
            return (key, rowid)
        }
    }

    /// Moves into `found` the `pending` candidates (in order: by distance, then packed id) nearer than `distance` that
    /// match `keyword`, nearest first, until `found` holds `wanted`; the farther ones stay pending. A keyword that needs
    /// confirming reads the candidates' text in batches (each twice the last), counted in `confirmation`, until it has
    /// read ``confirming`` of them, and leaves out those whose text does not match; the others' candidates are all
    /// matches. Every candidate a later cell adds is at least `distance` away, so `found` stays in order.
    private func settle(
        _ pending: inout [Hit], into found: inout [PointKey], before distance: Double, wanted: Int, keyword: SearchQuery,
        _ confirmation: inout Confirmation, _ db: any SQLExecutor
    ) async throws {
        guard found.count < wanted else { return }
        let nearer = pending.prefix { $0.point.distance < distance }.count
        var (next, batch) = (0, Self.verificationBatch)
        while found.count < wanted, next < nearer, confirmation.count < confirming {
            let slice = pending[next..<(keyword.needsVerification ? min(next + batch, nearer) : nearer)]
            var matches: Set<Int64>?
            if keyword.needsVerification {
                matches = try await matching(slice.map(\.rowid), keyword: keyword, db)
                (confirmation.count, confirmation.last) = (confirmation.count + slice.count, slice.last?.point)
            }
            for hit in slice where found.count < wanted && matches?.contains(hit.rowid) ?? true {
                found.append(hit.point)
            }
            (next, batch) = (slice.endIndex, 2 * batch)
        }
        pending.removeFirst(next)
    }

    /// Which of the listings of `rowids` match `keyword`, confirmed on their text in one statement.
    private func matching(_ rowids: [Int64], keyword: SearchQuery, _ db: any SQLExecutor) async throws -> Set<Int64> {
        var statement: SQLStatement = """
            SELECT c.rowid AS row_key, c.name, c.description FROM classes c
            WHERE c.rowid IN (\(raw: rowids.map(String.init).joined(separator: ", ")))
            """
        // Texts holding a page's own rowids would fill SQLite's statement cache.
        statement.isCached = false
        var matches: Set<Int64> = []
        for row in try await db.rows(statement)
        where keyword.matches(ClassSearchDocument.text(name: try row["name"], description: try row["description"])) {
            matches.insert(try row["row_key"])
        }
        return matches
    }

    /// The points a walk over the listings' points keeps: those within its circle after the page's cursor that pass
    /// the search's filters, and of no hidden writer.
    private struct PointFilter {
        let circle: ClassSearch.Circle
        /// The cursor's last key as the points order them (distance, then packed id, which orders as the id's text).
        let after: PointKey?
        let filters: PointFilters
        /// The numbers of the writers left out (``hiddenWriters(in:_:)``).
        let hidden: Set<UInt32>

        /// `point`'s key, its distance from the centre and packed id, when the walk keeps it.
        func key(of point: ClassPoints.Point) -> PointKey? {
            passes(point) ? place(of: point) : nil
        }

        /// Whether `point` passes the search's filters and is of no hidden writer, wherever it lies.
        func passes(_ point: ClassPoints.Point) -> Bool {
            point.passes(filters, hidden: hidden)
        }

        /// The key of a `point` that passes, when it lies within the circle after the cursor.
        func place(of point: ClassPoints.Point) -> PointKey? {
            let distance = Haversine.distance(GeoPoint(lat: point.lat, lon: point.lon), circle.center)
            guard distance <= circle.radius else { return nil }
            if let after, (distance, point.id) <= (after.distance, after.id) { return nil }
            return (distance, point.id)
        }
    }

    /// The filter of a walk of `circle` over `points`; nil when they cannot continue the page's cursor: its last key is
    /// no distance, or its id is neither one they pack nor the empty id of a walk that ended its page at a cell
    /// (``nearestFirst(_:circle:)``), which packs as the least.
    private func pointFilter(_ points: ClassPoints, circle: ClassSearch.Circle, _ db: any SQLExecutor) async throws -> PointFilter? {
        var after: PointKey?
        if let position = startPosition {
            guard case .double(let distance) = position.value, let id = position.id.isEmpty ? 0 : Identifier.packed(position.id)
            else { return nil }
            after = (distance, id)
        }
        return PointFilter(circle: circle, after: after, filters: PointFilters(search), hidden: try await hiddenWriters(in: points, db))
    }

    /// Whether a nearest-first key whose distance was read without the walk's conditions may be on this page: within
    /// `circle` and after the cursor's last key (nothing follows a cursor whose distance is no number).
    private func isOnPage(_ key: Key, within circle: ClassSearch.Circle) -> Bool {
        guard let distance = key.distance, distance <= circle.radius else { return false }
        guard let position = startPosition else { return true }
        guard let after = position.value.double else { return false }
        return (distance, key.id) > (after, position.id)
    }

    /// The columns of a ``Key`` read over `classes c`, before its sort values: the writer's too when the viewer blocks
    /// some.
    private var keyColumns: SQLStatement {
        blockedWriters.isEmpty ? "c.id, c.created_at" : "c.id, c.created_at, c.writer_id"
    }

    /// Whether the search has no filter but status and type beside its area and keyword: no district, box, subjects,
    /// targets, days or prices, which leave a keyword's hits fewer than its share of the listings says.
    private var filtersOnlyByStatusAndType: Bool {
        !filtersBeyondPrices && search.minPrice == nil && search.maxPrice == nil
    }

    /// Whether the search has a filter beyond status, type and prices: a district, a box, subjects, targets or days.
    private var filtersBeyondPrices: Bool {
        search.keywordLocation != nil || search.box != nil || search.subjects != nil || search.targets != nil || search.days != nil
    }

    /// A listing's point in the in-memory walk: its distance from the centre and its packed id.
    private typealias PointKey = (distance: Double, id: UInt128)

    /// The keys of a nearest-first page read from the listings' points in memory (``SQLExecutor/classPoints``): the
    /// walk of ``nearestFirst(_:circle:)``, each cell read from memory and split while more of its points may pass the
    /// search's filters than a cell read with a statement may hold (``PassingShare``). The points hold every filter but
    /// a district: a walk with statements read the listings a filter leaves out from the table, up to its budget, and
    /// `subjects=major&targets=senior&days=sun&maxPrice=5000` within 50 km of Seoul's city hall took 150-230 ms a page
    /// of 5 on 1,000,000 classes over HTTP (now 4.4-6.0 ms a page of 20). Nil when the points cannot answer: the search
    /// has a keyword or a district, its cursor is not one of their pages', or they cannot answer this read.
    private func nearestFirstInMemory(_ db: any SQLExecutor, circle: ClassSearch.Circle) async throws -> [Key]? {
        guard search.keyword == nil, search.keywordLocation == nil, let points = try await db.classPoints?.points(db),
              let filter = try await pointFilter(points, circle: circle, db)
        else { return nil }
        var walk = NearestCellWalk(center: circle.center, radius: circle.radius)
        var nearest = NearestFirstPage<PointKey, UInt128>(wanted: page.limit + 1, distance: { $0.distance }, id: { $0.id })
        var passing = PassingShare()
        while let entry = walk.popNearest(), !nearest.settle(before: entry.minimumDistance) {
            let count = points.count(in: entry.cell)
            if entry.cell.precision < Geohash.storagePrecision, passing.expected(of: count) > Double(CellCandidates.crowdedCell) {
                walk.split(entry)
                continue
            }
            var (found, passed): ([PointKey], Int) = ([], 0)
            points.forEach(in: entry.cell) { point in
                guard filter.passes(point) else { return }
                passed += 1
                if let key = filter.place(of: point) { found.append(key) }
            }
            passing.add(passed, of: count)
            nearest.add(found)
        }
        return nearest.finish().map(Key.init(point:))
    }

    /// The share of the points the in-memory walk has read that pass the search's filters, which sizes the cells it
    /// reads whole: a cell is split while more of its points may pass than a cell read with a statement may hold
    /// (``CellCandidates/crowdedCell``). Splitting a cell costs more than passing over a point a filter leaves out:
    /// split down to 64 points whatever passed, `subjects=major&targets=senior&days=sun&maxPrice=5000` within 50 km of
    /// Seoul's city hall took 33-42 ms a page on 1,000,000 classes.
    private struct PassingShare {
        private var read = 0
        private var passed = 0

        /// How many of `count` points may pass: all of them until the walk has read some.
        func expected(of count: Int) -> Double {
            Double(count) * Double(passed + 1) / Double(read + 1)
        }

        /// Notes a cell of `count` points of which `passed` passed.
        mutating func add(_ passed: Int, of count: Int) {
            (read, self.passed) = (read + count, self.passed + passed)
        }
    }

    /// The numbers of the writers whose listings `points` must leave out: suspended users, and those the viewer blocks
    /// or is blocked by.
    private func hiddenWriters(in points: ClassPoints, _ db: any SQLExecutor) async throws -> Set<UInt32> {
        let suspended: [String] = try await db.rows(ClassModeration.suspendedUsers(at: Date())).map { try $0["id"] }
        return Set((suspended + blockedWriters).compactMap(points.writerNumber(of:)))
    }

    /// The index's own nearest-first order for this search, when the backend has one and the search reads a circle by
    /// distance without a keyword or a district. A keyword search walks cells, reading each cell's hits from the
    /// keyword index, and a district's walks its cells on the district's index: in the order of nearness, the listings
    /// of other districts nearer than the district's were each read and left out (`keywordLocation=관악구` within 5 km
    /// of Seoul's city hall, 150-240 ms on 1,000,000 classes), and every listing of the circle for a district it does
    /// not reach (0.8-1.4 s within 50 km).
    private var nearestOrder: NearestOrder? {
        guard search.sort == .distance, search.keyword == nil, search.keywordLocation == nil, let circle = search.circle
        else { return nil }
        return index.nearestOrder(within: circle)
    }

    /// A nearest-first page of a keyword's hits read in the index's order, as ``pageByIndex(_:order:circle:reach:)``
    /// reads one, when the index finds the keyword common enough (``ClassSearchIndex/nearestReach(of:wanted:_:)``) and
    /// no filter but status and type narrows the hits; nil otherwise, or when the read reached its most listings before
    /// the page settled: the walk reads the page then.
    private func commonKeywordPageByIndex(_ db: any SQLExecutor, circle: ClassSearch.Circle) async throws -> Page<ClassView>? {
        guard let keyword = search.keyword, filtersOnlyByStatusAndType, let order = index.nearestOrder(within: circle),
              let reach = try await index.nearestReach(of: keyword, wanted: firstNearestLimit, db)
        else { return nil }
        let clause = index.keyword(keyword, withinRanges: false)
        return try await pageByIndex(db, order: order, circle: circle, reach: Reach(listings: reach, keyword: clause))
    }

    /// A nearest-first page read in the index's order (``ClassSearchIndex/nearestOrder(within:)``), keys and listings in
    /// one statement (``nearestStatement(_:limit:after:reach:)``). Each listing's distance is computed here from its
    /// position, as the in-memory walk does, and the listings beyond the radius (the index reads a cube around the
    /// circle) are left out. The order ascends with the distance to within ``NearestOrder/margin``: no listing after the
    /// last one read is nearer than that one's distance less the margin, so the page is final once the page's listings
    /// are all nearer than that, or it is beyond the radius. The statement reads one listing more than the page wants
    /// for this; when that does not settle the page, it is read again with four times the limit, each read whole in
    /// itself. With a `reach`, the statement checks the nearest listings for its keyword's condition or the search's
    /// filters, `reach.listings` of them at most: then a keyword's read that settles no page, or finds fewer hits than
    /// its limit, returns nil, and a filtered read that finds fewer ends the page where its reach ended
    /// (``pageEndingAtReach(_:order:circle:reach:keys:views:)``).
    private func pageByIndex(
        _ db: any SQLExecutor, order: NearestOrder, circle: ClassSearch.Circle, reach: Reach? = nil
    ) async throws -> Page<ClassView>? {
        var limit = firstNearestLimit
        while true {
            guard let statement = nearestStatement(order, limit: limit, after: startPosition, reach: reach) else {
                return Page(items: [], nextCursor: nil)
            }
            let views = try await db.rows(statement).map(ClassView.init(row:))
            let read = views.map { view in
                Key(id: view.listing.id, distance: view.listing.location.map { Haversine.distance($0, circle.center) } ?? .infinity)
            }
            var keys = NearestFirstPage<Key, String>(wanted: page.limit + 1, distance: { $0.distance ?? 0 }, id: { $0.id })
            keys.add(read.filter { isOnPage($0, within: circle) })
            // A statement that read fewer listings than its limit read every one left, unless its reach cut it short.
            if views.count < limit, let reach {
                if reach.keyword != nil { return nil }
                return try await pageEndingAtReach(db, order: order, circle: circle, reach: reach, keys: keys, views: views)
            }
            if views.count == limit, let floor = read.last?.distance.map({ $0 - NearestOrder.margin }), floor <= circle.radius {
                _ = keys.settle(before: floor)
                // The page is final once its listings are settled and one more listing read lies on it: the next page's.
                if keys.settledCount < page.limit || keys.count <= page.limit {
                    if reach?.keyword != nil { return nil }
                    limit *= 4
                    continue
                }
            }
            return self.page(of: keys.finish(), views: views)
        }
    }

    /// The page of a filtered read in the index's order (``pageByIndex(_:order:circle:reach:)``) within `reach`, whose
    /// matches, `keys` of `views`, were fewer than its limit: final when the reach went past the circle or past the
    /// last listing; else the matches nearer than where the reach ended, less the order's margin, with that distance
    /// as its cursor (every listing nearer was read), from which the next page reads on. Nil when that distance does
    /// not pass the page's cursor (more listings than the reach at about one distance): the walk reads the page then.
    private func pageEndingAtReach(
        _ db: any SQLExecutor, order: NearestOrder, circle: ClassSearch.Circle, reach: Reach, keys: NearestFirstPage<Key, String>,
        views: [ClassView]
    ) async throws -> Page<ClassView>? {
        var keys = keys
        guard let statement = reachEndStatement(order, reach: reach, after: startPosition) else { return page(of: keys.finish(), views: views) }
        let end = try await db.rows(statement).first.map { row in
            Haversine.distance(GeoPoint(lat: try row["lat"], lon: try row["lon"]), circle.center)
        }
        guard let floor = end.map({ $0 - NearestOrder.margin }), floor <= circle.radius else {
            return page(of: keys.finish(), views: views)
        }
        guard floor > startPosition?.value.double ?? -.infinity else { return nil }
        _ = keys.settle(before: floor)
        return page(of: keys.settledItems, views: views, resumingAfter: Key(id: "", distance: floor))
    }

    /// How far ``nearestStatement(_:limit:after:reach:)`` reads in the index's order, and what it checks of those
    /// listings outside that bound: a common keyword's condition (``commonKeywordPageByIndex(_:circle:)``), or the
    /// search's filters beyond status and type and its box, which may leave out most listings.
    private struct Reach {
        /// The most listings read in the index's order.
        let listings: Int
        /// The keyword whose condition is checked; nil when the filters are.
        let keyword: KeywordClause?
    }

    /// The bound of a nearest-first page with filters beyond status and type, read in the index's order, the filters
    /// checked outside it; nil without such filters. It reads the budget's number of listings at most (``confirming``;
    /// 64 at least). Unbounded, a page few listings pass read the circle's listings until it filled,
    /// `subjects=major&targets=senior&days=sun&maxPrice=5000` within 50 km of Seoul's city hall 650-760 ms on a
    /// million; a tenth of the budget bounded that page at 11-14 ms, but `minPrice=100000` within 3 km, whose page of
    /// 20 took 42-65 ms, then came one listing a page.
    ///
    /// A page with prices alone beyond status and type needs no bound where the index of `order` reads prices
    /// (``NearestOrder/checksPrices``): the read skips the others in the index, and `minPrice=100000` within 3 km took
    /// 0.4-2 ms in psql on a million, 50-130 ms checking the rows.
    private func filteredReach(for order: NearestOrder) -> Reach? {
        let pricesOutsideIndex = !order.checksPrices && (search.minPrice != nil || search.maxPrice != nil)
        guard filtersBeyondPrices || pricesOutsideIndex else { return nil }
        return Reach(listings: max(confirming, 64), keyword: nil)
    }

    /// The statement of ``pageByIndex(_:order:circle:reach:)``: up to `limit` listings in the index's order, from about
    /// the distance of the cursor's `position` on, as the viewer sees them
    /// (``ClassViewQuery/select(viewerId:_:from:extraColumns:join:where:orderBy:limit:moderated:)``, over the listings
    /// the index read, whose whole rows it selects); nil when nothing can match. With a `reach`, those of the
    /// `reach.listings` nearest listings that satisfy its keyword's condition or the search's filters: a limit inside,
    /// which PostgreSQL reads in the index's order, and the condition outside, which it cannot then read from another
    /// index instead. It is repeated (``SQLStatement/isRepeated``): PostgreSQL parses it once per connection and keeps a
    /// plan for any values, where parsing and planning it for its values took longer than running it.
    private func nearestStatement(_ order: NearestOrder, limit: Int, after position: Position?, reach: Reach? = nil) -> SQLStatement? {
        let filtersOutside = reach != nil && reach?.keyword == nil
        guard let area = areaConditions(ranges: nil) else { return nil }
        let read = filtersOutside ? reachReadConditions(order) : [order.within] + filterConditions + area.conditions
        guard let conditions = nearestConditions(order, reading: read, after: position) else { return nil }
        // The limits are written in the text, not bound: planning for a bound limit, PostgreSQL takes it for a tenth of
        // the rows and prices its one plan for any values far above a plan for the values, so it planned every page
        // anew (0.4-0.6 ms of a 2 ms page); with the limit written, it keeps one plan after the fifth page.
        let keys: SQLStatement = if let reach {
            """
            SELECT \(raw: ClassViewQuery.listingColumns), c.deleted_at FROM (SELECT c.*, \(order.nearness) AS nearness FROM classes c
                WHERE \(conditions.joined(with: " AND ")) ORDER BY nearness LIMIT \(raw: "\(reach.listings)")) c
            WHERE \(reach.keyword?.condition ?? (selectiveConditions + area.conditions).joined(with: " AND "))
            ORDER BY c.nearness LIMIT \(raw: "\(limit)")
            """
        } else {
            """
            SELECT \(raw: ClassViewQuery.listingColumns), c.deleted_at FROM classes c
            WHERE \(conditions.joined(with: " AND ")) ORDER BY \(order.nearness) LIMIT \(raw: "\(limit)")
            """
        }
        // The index read already left out what moderation hides (``filterConditions``), before its limit counted.
        var statement = ClassViewQuery.select(viewerId: viewerId, dialect, from: "(\(keys)) c", where: "1 = 1", moderated: false)
        statement.isRepeated = true
        return statement
    }

    /// The conditions of a nearest statement's read in the index's order: listings not deleted that satisfy `filters`,
    /// as the viewer may see them, after the cursor's `position`; nil when nothing can match.
    private func nearestConditions(_ order: NearestOrder, reading filters: [SQLStatement], after position: Position?) -> [SQLStatement]? {
        var conditions: [SQLStatement] = ["c.deleted_at IS NULL"] + filters
        // The viewer's blocks are left out here, not in Swift (``blockedWriters``).
        if let viewerId { conditions.append("NOT \(BlockSQL.between("\(viewerId)", "c.writer_id"))") }
        if let position {
            // Numbers sort before text: nothing follows a text key ascending.
            guard let distance = position.value.double else { return nil }
            conditions.append(order.atLeast(distance - NearestOrder.margin))
        }
        return conditions
    }

    /// What a filtered reach's read (``filteredReach(for:)``) in `order` checks itself: status, type and moderation,
    /// prices where the index holds them, and not the cube around the circle: with it, the planner sorted the cube's
    /// listings for a reach of thousands (105 ms for 2 km in Seoul) instead of reading the index in its order (4.5 ms).
    private func reachReadConditions(_ order: NearestOrder) -> [SQLStatement] {
        ["c.lat IS NOT NULL"] + statusConditions + (order.checksPrices ? priceConditions : [])
    }

    /// The place of the last listing a filtered `reach` read, the `reach.listings`-th in the index's order after the
    /// cursor's `position`: no row when there are fewer; nil when nothing can match.
    private func reachEndStatement(_ order: NearestOrder, reach: Reach, after position: Position?) -> SQLStatement? {
        guard let conditions = nearestConditions(order, reading: reachReadConditions(order), after: position) else { return nil }
        var statement: SQLStatement = """
            SELECT c.lat, c.lon FROM classes c WHERE \(conditions.joined(with: " AND "))
            ORDER BY \(order.nearness) OFFSET \(raw: "\(reach.listings - 1)") LIMIT 1
            """
        statement.isRepeated = true
        return statement
    }

    /// How many listings ``pageByIndex(_:order:circle:reach:)`` reads first: the page and one listing farther, which
    /// settles the page's listings and says that there is a next page when it lies on it. Every listing read costs
    /// PostgreSQL a row with its writer, sent and decoded: reading a second one beyond the page, as the read once did,
    /// made PostgreSQL's circle pages 1.2-2.6 % slower (4-11 µs of 0.36-0.41 ms; 8 of 8 blocks of 2,000 pages on a
    /// million, alternating page by page).
    private var firstNearestLimit: Int { page.limit + 1 }

    /// Up to `limit` keys of a walk's cell that satisfy everything, after the cursor, read in one statement
    /// (``cellStatement(_:limit:rangeCells:)``), and how many candidates the cell's statement examined for them; no keys
    /// when the cell is crowded.
    private func cellKeys(
        _ db: any SQLExecutor, cell: Geohash, limit: Int, rangeCells: inout RangeCellStatement?
    ) async throws -> (keys: [Key]?, candidates: Int) {
        guard let (statement, confirmedHere) = cellStatement(cell, limit: limit, rangeCells: &rangeCells) else { return ([], 0) }
        let rows = try await db.rows(statement)
        let candidates: Int = try rows.first?["candidates"] ?? 0
        guard let isRead: Bool = try rows.first?["cell_read"], isRead else { return (nil, candidates) }
        let fetched = try rows.filter { try $0.value("id") != .null }.map { try Key(row: $0, sort: search.sort) }
        return (Array(fetched.filter { accepts($0, confirming: confirmedHere) }.prefix(limit)), candidates)
    }

    /// The statement reading a walk's cell, and the keyword to confirm in Swift; nil when nothing can match. A cell
    /// whose keyword hits the index holds (``ClassSearchIndex/hits(in:keyword:district:)``) gets a statement of its
    /// own; the others share the walk's `rangeCells`, written for the first of them.
    private func cellStatement(
        _ cell: Geohash, limit: Int, rangeCells: inout RangeCellStatement?
    ) -> (SQLStatement, confirmedHere: SearchQuery?)? {
        if let keyword = search.keyword, let hits = index.hits(in: cell, keyword: keyword, district: search.keywordLocation) {
            return cellStatement(hits, range: GeohashRange(cell: cell), limit: limit)
        }
        if rangeCells == nil { rangeCells = rangeCellStatement() }
        return rangeCells?.bound(to: cell, limit: limit)
    }

    /// The walk's statement for the cells it reads by geohash range, with marks for the range and the limit.
    private func rangeCellStatement() -> RangeCellStatement? {
        let range = GeohashRange(lower: RangeCellStatement.lowerMark, upper: RangeCellStatement.upperMark)
        let candidates = index.candidates(in: range, district: search.keywordLocation)
        return cellStatement(candidates, range: range, limit: RangeCellStatement.limitMark).map(RangeCellStatement.init)
    }

    /// The statement reading the walk's cell `range` whose candidates are `candidates`: it first finds them, says in
    /// `candidates` how many (up to one more than their capacity) and in `cell_read` whether they are few enough to
    /// read, and only then reads the keys of up to `limit` listings (all the candidates when some may be left out in
    /// Swift). It is prepared once for the walk's next cells. Also returns the keyword to confirm in Swift; nil when
    /// nothing can match.
    private func cellStatement(
        _ candidates: CellCandidates, range: GeohashRange, limit: Int
    ) -> (SQLStatement, confirmedHere: SearchQuery?)? {
        let clause = search.keyword.map { index.keyword($0, withinRanges: true) }
        let confirmedHere = confirmedHere(clause, restricted: candidates.reading.readsHits)
        let filtersHere = confirmedHere != nil || !blockedWriters.isEmpty
        let count: SQLStatement = "(SELECT COUNT(*) FROM \(raw: CellCandidates.table))"
        let gate: SQLStatement = "\(count) <= \(candidates.capacity)"
        guard let read = statement(ranges: [range], limit: filtersHere ? candidates.capacity : limit, after: startPosition,
                                   keyword: clause, reading: candidates.reading, gate: gate, withText: confirmedHere != nil)
        else { return nil }
        var statement: SQLStatement = """
            WITH \(raw: CellCandidates.table) AS (\(candidates.select))
            SELECT n.cell_read, n.candidates, k.* FROM (SELECT \(gate) AS cell_read, \(count) AS candidates) n LEFT JOIN (\(read)) k ON 1 = 1
            """
        statement.isRepeated = true
        return (statement, confirmedHere)
    }

    /// The keyword to confirm in Swift for a read selecting `clause`, or the index's candidates when `restricted`:
    /// one that needs verification, where the read leaves it out.
    private func confirmedHere(_ clause: KeywordClause?, restricted: Bool) -> SearchQuery? {
        search.keyword.flatMap { keyword in
            keyword.needsVerification && (restricted || clause?.verification == nil) ? keyword : nil
        }
    }

    /// Whether the viewer may see `key`'s listing and it matches `keyword`, confirmed on its text.
    private func accepts(_ key: Key, confirming keyword: SearchQuery?) -> Bool {
        !(key.writerId.map(blockedWriters.contains) ?? false) && keyword.map { $0.matches(key.text ?? "") } ?? true
    }

    /// The page of listings for the keys (fetched with `limit + 1`: the extra key only says there is more), as
    /// ``page(of:views:resumingAfter:)`` makes it.
    private func views(for keys: [Key], resumingAfter resumeAfter: Key? = nil, _ db: any SQLExecutor) async throws -> Page<ClassView> {
        page(of: keys, views: try await ClassViewQuery.views(ids: keys.prefix(page.limit).map(\.id), viewerId: viewerId, db),
             resumingAfter: resumeAfter)
    }

    /// The page of `keys` (fetched with `limit + 1`), each with its listing among `fetched` (those missing left out). Its
    /// cursor follows the last of them when there is one more; otherwise it follows `resumeAfter`, where a walk that
    /// ended the page early stood, if any.
    private func page(of keys: [Key], views fetched: [ClassView], resumingAfter resumeAfter: Key? = nil) -> Page<ClassView> {
        let visible = Array(keys.prefix(page.limit))
        let byId = Dictionary(fetched.map { ($0.listing.id, $0) }, uniquingKeysWith: { first, _ in first })
        let items = visible.compactMap { key in
            byId[key.id].map { ClassView(listing: $0.listing, writer: $0.writer, isFavorite: $0.isFavorite, distance: key.distance) }
        }
        let after = keys.count > page.limit ? visible.last : resumeAfter
        return Page(items: items, nextCursor: after.map { PageCursor(ordering: ordering, values: $0.values + [.string($0.id)]).encoded })
    }

    /// The keys of a page by recency within a circle or box read from the ``newestWindow`` newest listings after the
    /// cursor, on the backend's recency index (``ClassSearchIndex/newestWindowHint``), each checked for the area and
    /// the rest; nil when the backend reads no such window, or when the window holds fewer than `limit` of them: the
    /// area's listings are then few (or a filter leaves out most of them), and are read by its geohash ranges. Read by
    /// those ranges whatever their number, a page of a 10 km circle in Seoul took 0.9-1.5 s on SQLite (86 s cold; now
    /// 1.5-2.1 ms) and of 50 km with `수학` over 100 s (now 14-26 ms), as every listing of the area was read, and read
    /// again for each batch of a keyword's candidates.
    private func keysFromNewestWindow(_ db: any SQLExecutor, limit: Int) async throws -> [Key]? {
        guard search.sort == .recent, search.circle != nil || search.box != nil, let hint = index.newestWindowHint else { return nil }
        // The floor counts the window's listings from the cursor's millisecond: those of it before the cursor too.
        let notAfter: SQLStatement = startPosition?.value.int.map { " AND c.created_at <= \($0)" } ?? ""
        let floor: Int64? = try await db.row("""
            SELECT c.created_at FROM classes c \(raw: hint) WHERE c.deleted_at IS NULL\(notAfter)
            ORDER BY c.created_at DESC LIMIT 1 OFFSET \(newestWindow - 1)
            """)?["created_at"]
        // Without a floor the window is every listing after the cursor, and what it holds is the page.
        let found = try await keys(db, ranges: nil, limit: limit, window: NewestWindow(floor: floor))
        return floor == nil || found.count >= limit ? found : nil
    }

    /// A read of the newest listings on the backend's recency index (``ClassSearchIndex/newestWindowHint``): those
    /// created at `floor` or after, or every one when there is no floor.
    private struct NewestWindow {
        let floor: Int64?
    }

    /// How many of the newest listings ``keysFromNewestWindow(_:limit:)`` checks: a fifth of ``confirming``, 4,000 by
    /// default. A window that misses costs about what reading the ranges of an area too sparse for it costs: on
    /// 1,000,000 classes, 20,000 made a page of 500 m by recency 19-20 ms instead of 3.
    private var newestWindow: Int { max(confirming / 5, 1) }

    /// Up to `limit` keys of the candidates in `ranges` (all listings when nil) that satisfy everything, after the
    /// cursor, in sort order; with `window`, of the newest listings it selects, read on the backend's recency index.
    private func keys(_ db: any SQLExecutor, ranges: [GeohashRange]?, limit: Int, window: NewestWindow? = nil) async throws -> [Key] {
        let clause = search.keyword.map { index.keyword($0, withinRanges: ranges != nil) }
        let confirmedHere = confirmedHere(clause, restricted: false)
        var keys: [Key] = []
        var position = startPosition
        while keys.count < limit {
            let batch = max(limit - keys.count, confirmedHere == nil ? 0 : Self.verificationBatch)
            guard var statement = statement(ranges: ranges, limit: batch, after: position, keyword: clause, window: window,
                                            withText: confirmedHere != nil)
            else { break }
            // Texts holding a search's own ranges would fill SQLite's statement cache.
            statement.isCached = false
            let fetched = try await db.rows(statement).map { try Key(row: $0, sort: search.sort) }
            keys += fetched.filter { accepts($0, confirming: confirmedHere) }
            guard fetched.count == batch, let last = fetched.last, let value = last.values.first else { break }
            position = Position(value: value, id: last.id)
        }
        return Array(keys.prefix(limit))
    }

    /// The position the page request continues after, if any.
    private var startPosition: Position? {
        guard let after = page.after, let value = after.values.first, let id = after.values.last?.string else { return nil }
        return Position(value: value, id: id)
    }

    /// The statement of the first step (the first cell, for nearest-first searches; the name tier's first read, by
    /// relevance); nil when nothing can match.
    func firstStatement() -> SQLStatement? {
        let ranges = coveringRanges
        if let order = nearestOrder {
            return nearestStatement(order, limit: firstNearestLimit, after: nil)
        } else if search.sort == .distance, let circle = search.circle {
            var rangeCells: RangeCellStatement?
            return cellStatement(Geohash(circle.center, precision: 6), limit: page.limit + 1, rangeCells: &rangeCells)?.0
        } else if search.sort == .relevance, let keyword = search.keyword {
            guard let area = areaConditions(ranges: ranges) else { return nil }
            return index.newestStatement(keyword, nameOnly: true, district: search.keywordLocation, columns: relevanceColumns(area, tier: .name, keyword: keyword),
                                         conditions: filterConditions + area.all, after: nil, limit: page.limit + 1)
        }
        let clause = search.keyword.map { index.keyword($0, withinRanges: ranges != nil) }
        return statement(ranges: ranges, limit: page.limit + 1, after: nil, keyword: clause)
    }

    /// The keys of a relevance page: the name tier's hits, then the description tier's, each newest first, after the
    /// cursor, read in batches until the page is full; and where the walk stood when it ended the page early, past
    /// ``confirming`` candidates read to confirm, with fewer keys than the page wants. Batches of candidates to confirm
    /// double while they find too few, up to ``largestVerificationBatch``.
    private func byRelevance(_ db: any SQLExecutor, keyword: SearchQuery) async throws -> (keys: [Key], resumeAfter: Key?) {
        guard let area = areaConditions(ranges: coveringRanges) else { return ([], nil) }
        let wanted = page.limit + 1
        let start = relevanceStart
        var keys: [Key] = []
        var (confirmed, batch) = (0, Self.verificationBatch)
        for tier in SearchQuery.RelevanceTier.allCases where tier >= start.tier {
            var position = tier == start.tier ? start.position : nil
            // The description tier leaves out the name tier's hits in Swift, so it reads in larger batches.
            let filtersHere = tier == .description || keyword.needsVerification || !blockedWriters.isEmpty
            while keys.count < wanted {
                let missing = wanted - keys.count
                let hits = try await index.newest(keyword, nameOnly: tier == .name, district: search.keywordLocation,
                                                  columns: relevanceColumns(area, tier: tier, keyword: keyword), conditions: filterConditions + area.all,
                                                  after: position, limit: filtersHere ? max(missing, batch) : missing, enough: missing, db)
                let fetched = try hits.rows.map { try Key(row: $0, sort: .relevance, tier: tier) }
                let found = keys.count
                keys += fetched.filter { key in
                    !(key.writerId.map(blockedWriters.contains) ?? false) && Self.belongs(key, to: tier, keyword: keyword)
                }
                guard hits.mayContinue, let last = fetched.last else { break }
                position = RecencyPosition(createdAt: last.createdAt, id: last.id)
                guard keyword.needsVerification else { continue }
                confirmed += fetched.count
                if keys.count < wanted, confirmed >= confirming { return (keys, last) }
                if 4 * (keys.count - found) < fetched.count { batch = min(2 * batch, Self.largestVerificationBatch) }
            }
            if keys.count >= wanted { break }
        }
        return (Array(keys.prefix(wanted)), nil)
    }

    /// The most candidates a relevance walk reads in one statement to confirm them.
    private static let largestVerificationBatch = 2_048

    /// Whether a candidate the index found for `tier` is a match of that tier: the name tier's candidates (their
    /// name's tokens hold the keyword's) must match by name alone; the description tier's must match, and not by
    /// name alone when the name tier found them.
    private static func belongs(_ key: Key, to tier: SearchQuery.RelevanceTier, keyword: SearchQuery) -> Bool {
        switch tier {
        case .name:
            return !keyword.needsVerification || keyword.matches(key.name ?? "")
        case .description:
            if keyword.needsVerification, !keyword.matches(key.text ?? "") { return false }
            return !(key.nameHit && keyword.relevanceTier(ofListingNamed: key.name ?? "") == .name)
        }
    }

    /// The columns a relevance read selects for `tier`: the name when the tier needs it, the description when the
    /// keyword must be confirmed on the whole text.
    private func relevanceColumns(_ area: AreaConditions, tier: SearchQuery.RelevanceTier, keyword: SearchQuery) -> SQLStatement {
        var columns = keyColumns
        if let distance = area.distance { columns.append(", \(distance) AS distance") }
        if tier == .description || keyword.needsVerification { columns.append(", c.name") }
        if tier == .description, keyword.needsVerification { columns.append(", c.description") }
        return columns
    }

    /// Where a relevance page continues: the tier of the cursor's last result and its place in it, or the start.
    private var relevanceStart: (tier: SearchQuery.RelevanceTier, position: RecencyPosition?) {
        guard let values = page.after?.values, values.count == 3, let rawTier = values[0].int,
              let tier = SearchQuery.RelevanceTier(rawValue: Int(rawTier)), let createdAt = values[1].int, let id = values[2].string
        else { return (.name, nil) }
        return (tier, RecencyPosition(createdAt: createdAt, id: id))
    }

    /// A search's area as statement conditions over `classes c`: its geohash ranges and box, and its circle's distance
    /// expression, which callers select and compare with the radius.
    struct AreaConditions {
        var conditions: [SQLStatement] = []
        var distance: SQLStatement?
        var radius = 0.0

        /// The conditions and, for a circle, the distance within the radius.
        var all: [SQLStatement] {
            conditions + (distance.map { ["\($0) <= \(radius)"] } ?? [])
        }
    }

    /// The conditions selecting the search's circle and box, within `ranges` when given; nil when nothing can match.
    private func areaConditions(ranges: [GeohashRange]?) -> AreaConditions? {
        var area = AreaConditions()
        if let ranges {
            if ranges.isEmpty { return nil }
            area.conditions.append("(\(ranges.map { "(c.geohash >= \($0.lower) AND c.geohash < \($0.upper))" }.joined(with: " OR ")))")
        }
        if let box = search.box {
            area.conditions.append("c.lat BETWEEN \(box.minLat) AND \(box.maxLat)")
            var longitude: SQLStatement = box.crossesAntimeridian
                ? "c.lon >= \(box.minLon) OR c.lon <= \(box.maxLon)" : "c.lon BETWEEN \(box.minLon) AND \(box.maxLon)"
            // 180 and -180 name one meridian (``GeoBoundingBox/containsLongitude(_:)``): a box holding it holds listings
            // at either.
            if box.containsLongitude(180) { longitude.append(" OR c.lon IN (180, -180)") }
            area.conditions.append("(\(longitude))")
        }
        if let circle = search.circle {
            // Geohash ranges leave out the listings without a place; without ranges this does, as the distance of one
            // is no number (PostgreSQL's `greatest` takes it for 0: at the centre).
            if ranges == nil { area.conditions.append("c.lat IS NOT NULL") }
            let distance = dialect.distance(lat1: "c.lat", lon1: "c.lon", lat2: "\(circle.center.lat)", lon2: "\(circle.center.lon)")
            area.distance = distance
            area.radius = circle.radius
        }
        return area
    }

    /// One statement: candidates in `ranges` (all listings when nil) that satisfy everything, after `position`, in
    /// sort order; nil when nothing can match. `reading` says where a cell's candidates are (``CellCandidates/Reading``):
    /// keyword hits stand for the keyword's index condition. Without `gate`, a condition on no listing, the statement's
    /// `LIMIT` is 0, which both backends check before reading a row; `withText` selects name and description instead of
    /// confirming a keyword in SQL; `window` reads the newest listings on the backend's recency index instead of `ranges`.
    private func statement(
        ranges: [GeohashRange]?, limit: Int, after position: Position?, keyword clause: KeywordClause?,
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

    /// The conditions of the search's plain column filters (status, type, district, masks, price).
    private var filterConditions: [SQLStatement] { statusConditions + selectiveConditions }

    /// The filters most listings pass: visible, and of the status and type asked.
    private var statusConditions: [SQLStatement] {
        var conditions: [SQLStatement] = [ClassModeration.visible(at: Date())]
        if let status = search.status { conditions.append("c.status = \(status.rawValue)") }
        if let type = search.type { conditions.append("c.type = \(type.rawValue)") }
        return conditions
    }

    /// The filters that may leave out most listings: district, subjects, targets, days and prices.
    private var selectiveConditions: [SQLStatement] { maskConditions + priceConditions }

    /// The district's, subjects', targets' and days' conditions.
    private var maskConditions: [SQLStatement] {
        var conditions: [SQLStatement] = []
        if let district = search.keywordLocation { conditions.append("c.keyword_location = \(district)") }
        for (column, mask) in [("subjects_mask", search.subjects.map(BitMask.of)), ("targets_mask", search.targets.map(BitMask.of)),
                               ("days_mask", search.days.map(BitMask.of))] {
            guard let mask else { continue }
            conditions.append("(c.\(raw: column) & \(mask)) <> 0")
        }
        return conditions
    }

    /// The price range's conditions.
    private var priceConditions: [SQLStatement] {
        var conditions: [SQLStatement] = []
        if let minPrice = search.minPrice { conditions.append("c.price >= \(minPrice)") }
        if let maxPrice = search.maxPrice { conditions.append("c.price <= \(maxPrice)") }
        return conditions
    }
}

/// The statement a nearest-first walk reads its cells with by geohash range, written once per walk with marks where a
/// cell's range and the limit go, then bound to each cell's (``bound(to:limit:)``): nothing else differs between the
/// cells, and writing the statement's text for every cell took a third of the search's own time in a served page.
private struct RangeCellStatement {
    /// The marks written in place of the range's bounds: no geohash starts with a control character.
    static let lowerMark = "\u{1}lower", upperMark = "\u{1}upper"
    /// The mark written in place of the limit: no limit is negative.
    static let limitMark = Int(Int64.min)

    /// The statement with its marks.
    private let template: SQLStatement
    /// The keyword the walk confirms in Swift for these cells.
    private let confirmedHere: SearchQuery?
    /// The placeholders holding a mark, and which.
    private let marks: [(index: Int, mark: Mark)]

    private enum Mark {
        case lower, upper, limit
    }

    /// The walk's statement `template`, written with the marks, and its keyword to confirm in Swift.
    init(template: SQLStatement, confirmedHere: SearchQuery?) {
        self.template = template
        self.confirmedHere = confirmedHere
        marks = template.values.enumerated().compactMap { index, value in
            switch value {
            case .text(Self.lowerMark): (index, .lower)
            case .text(Self.upperMark): (index, .upper)
            case .integer(Int64(Self.limitMark)): (index, .limit)
            default: nil
            }
        }
        // A range bound some other way than as its two values would send the marks themselves to the database.
        assert(Set(marks.map(\.mark)).isSuperset(of: [.lower, .upper]), "the walk's cell statement binds no cell range")
    }

    /// The statement reading `cell`'s range, up to `limit` keys, and the keyword to confirm in Swift.
    func bound(to cell: Geohash, limit: Int) -> (SQLStatement, confirmedHere: SearchQuery?) {
        let range = GeohashRange(cell: cell)
        var statement = template
        for (index, mark) in marks {
            switch mark {
            case .lower: statement.rebind(at: index, to: .text(range.lower))
            case .upper: statement.rebind(at: index, to: .text(range.upper))
            case .limit: statement.rebind(at: index, to: .integer(Int64(limit)))
            }
        }
        return (statement, confirmedHere)
    }
}

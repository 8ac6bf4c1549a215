import ClassTodayCore
import Foundation

/// ``SearchPlanName/nearestIndexOrder``: a page by distance within a circle, with no keyword or district, read in the
/// backend's own nearest-first index order (``ClassSearchIndex/nearestOrder(within:)``: PostgreSQL's), keys and
/// listings in one statement. Chosen when the index has such an order; fast there because the index hands the
/// listings over nearest first, so that a page reads about its own listings and stops, where a walk reads whole cells.
/// With filters beyond status and type, the read checks them on a bounded reach of the nearest listings
/// (``filteredReach(for:)``), and a page whose reach settles nothing declines to the walk.
struct NearestIndexOrderPlan: SearchPlan {
    /// The search this plan answers a page of.
    let query: SQLClassSearch

    func answer(_ db: any SQLExecutor) async throws -> Page<ClassView>? {
        guard let order = nearestOrder, let circle = search.circle else { return nil }
        return try await pageByIndex(db, order: order, circle: circle, reach: filteredReach(for: order))
    }

    /// The index's own nearest-first order for this search, when the backend has one and the search reads a circle by
    /// distance without a keyword or a district. A keyword search walks cells, reading each cell's hits from the
    /// keyword index, and a district's walks its cells on the district's index: in the order of nearness, the listings
    /// of other districts nearer than the district's were each read and left out (`keywordLocation=관악구` within 5 km
    /// of Seoul's city hall, 150-240 ms on 1,000,000 classes), and every listing of the circle for a district it does
    /// not reach (0.8-1.4 s within 50 km).
    var nearestOrder: NearestOrder? {
        guard search.sort == .distance, search.keyword == nil, search.keywordLocation == nil, let circle = search.circle
        else { return nil }
        return index.nearestOrder(within: circle)
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
    func pageByIndex(
        _ db: any SQLExecutor, order: NearestOrder, circle: ClassSearch.Circle, reach: Reach? = nil
    ) async throws -> Page<ClassView>? {
        var limit = firstNearestLimit
        while true {
            guard let statement = nearestStatement(order, limit: limit, after: startPosition, reach: reach) else {
                return Page(items: [], nextCursor: nil)
            }
            let views = try await db.rows(statement).map(ClassView.init(row:))
            trace?.examined(views.count)
            let read = views.map { view in
                SearchKey(id: view.listing.id, distance: view.listing.location.map { Haversine.distance($0, circle.center) } ?? .infinity)
            }
            var keys = NearestFirstPage<SearchKey, String>(wanted: page.limit + 1, distance: { $0.distance ?? 0 }, id: { $0.id })
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
        _ db: any SQLExecutor, order: NearestOrder, circle: ClassSearch.Circle, reach: Reach, keys: NearestFirstPage<SearchKey, String>,
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
        return page(of: keys.settledItems, views: views, resumingAfter: SearchKey(id: "", distance: floor))
    }

    /// How far ``nearestStatement(_:limit:after:reach:)`` reads in the index's order, and what it checks of those
    /// listings outside that bound: a common keyword's condition (``CommonKeywordIndexOrderPlan``), or the
    /// search's filters beyond status and type and its box, which may leave out most listings.
    struct Reach {
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
    func filteredReach(for order: NearestOrder) -> Reach? {
        let pricesOutsideIndex = !order.checksPrices && (search.minPrice != nil || search.maxPrice != nil)
        guard search.filtersBeyondPrices || pricesOutsideIndex else { return nil }
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
    func nearestStatement(_ order: NearestOrder, limit: Int, after position: SearchPosition?, reach: Reach? = nil) -> SQLStatement? {
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
    private func nearestConditions(_ order: NearestOrder, reading filters: [SQLStatement], after position: SearchPosition?) -> [SQLStatement]? {
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
    private func reachEndStatement(_ order: NearestOrder, reach: Reach, after position: SearchPosition?) -> SQLStatement? {
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
    var firstNearestLimit: Int { page.limit + 1 }
}

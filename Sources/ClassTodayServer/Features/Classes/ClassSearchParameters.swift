import ClassTodayCore
import Foundation
import Hummingbird
import HummingbirdCore

/// Reads `GET /v1/classes` query parameters into a ``ClassSearch``, reporting every bad parameter at once.
/// Numbers, lists and the box are read strictly (``QueryValue``), as the API document writes them.
enum ClassSearchParameters {
    /// The search the query asks for.
    static func parse(_ query: URI) throws -> ClassSearch {
        let parameters = query.queryParameters
        var validator = FieldValidator()
        var search = ClassSearch()

        let lat = number(parameters.get("lat"), "lat", -90...90, &validator)
        let lon = number(parameters.get("lon"), "lon", -180...180, &validator)
        let radius = number(parameters.get("radius"), "radius", 0...ClassSearch.maximumRadius, &validator)
        switch (lat, lon) {
        case let (lat?, lon?):
            search.circle = .init(center: GeoPoint(lat: lat, lon: lon), radius: radius ?? ClassSearch.defaultRadius)
        case (nil, nil):
            if parameters.get("radius") != nil { validator.fail("lat", "lat and lon are required with radius") }
        case (nil, _) where parameters.get("lat") == nil:
            validator.fail("lat", "is required with lon")
        case (_, nil) where parameters.get("lon") == nil:
            validator.fail("lon", "is required with lat")
        default:
            break
        }

        if let text = parameters.get("bbox") {
            search.box = box(text, &validator)
        }
        if let text = parameters.get("q") {
            if text.unicodeScalars.count > ClassSearch.maximumQueryLength {
                validator.fail("q", "must be at most \(ClassSearch.maximumQueryLength) characters")
            } else if let keyword = SearchTokenizer.query(text) {
                search.keyword = keyword
            } else {
                validator.fail("q", "must contain a letter, number or Hangul syllable")
            }
        }
        if let district = parameters.get("keywordLocation") {
            // `q` needs no such check: its words are split at control characters.
            if district.utf8.contains(0) { validator.fail("keywordLocation", FieldError.nulCharacter) } else { search.keywordLocation = district }
        }
        search.type = EnumField.value(parameters.get("type"), "type", &validator)
        search.subjects = EnumField.list(parameters.get("subjects").map(QueryValue.list), "subjects", &validator)
        search.targets = EnumField.list(parameters.get("targets").map(QueryValue.list), "targets", &validator)
        search.days = EnumField.list(parameters.get("days").map(QueryValue.list), "days", &validator)
        search.minPrice = price(parameters.get("minPrice"), "minPrice", &validator)
        search.maxPrice = price(parameters.get("maxPrice"), "maxPrice", &validator)
        if let minPrice = search.minPrice, let maxPrice = search.maxPrice, minPrice > maxPrice {
            validator.fail("maxPrice", "must not be below minPrice")
        }
        if let status = parameters.get("status") {
            if status == "any" {
                search.status = nil
            } else {
                search.status = EnumField.value(status, "status", &validator) ?? .open
            }
        }
        let sort: ClassSearch.Sort? = EnumField.value(parameters.get("sort"), "sort", &validator)
        search.sort = sort ?? ClassSearch.defaultSort(hasCircle: search.circle != nil, hasKeyword: search.keyword != nil)
        if search.sort == .distance && search.circle == nil && sort != nil {
            validator.fail("sort", "distance needs lat and lon")
        }
        if search.sort == .relevance && search.keyword == nil && sort != nil {
            validator.fail("sort", "relevance needs q")
        }
        try validator.throwIfInvalid()
        return search
    }

    private static func number(_ text: String?, _ field: String, _ range: ClosedRange<Double>, _ validator: inout FieldValidator) -> Double? {
        guard let text else { return nil }
        guard let value = QueryValue.number(text), range.contains(value) else {
            validator.fail(field, "must be a number from \(range.lowerBound) to \(range.upperBound)")
            return nil
        }
        return value
    }

    private static func price(_ text: String?, _ field: String, _ validator: inout FieldValidator) -> Int? {
        guard let text else { return nil }
        guard let value = QueryValue.integer(text), ClassRules.priceRange.contains(value) else {
            validator.fail(field, "must be a whole number from 0 to 100,000,000")
            return nil
        }
        return value
    }

    private static func box(_ text: String, _ validator: inout FieldValidator) -> GeoBoundingBox? {
        let numbers = text.split(separator: ",", omittingEmptySubsequences: false).map(QueryValue.decimal)
        guard numbers.count == 4, let minLon = numbers[0], let minLat = numbers[1], let maxLon = numbers[2], let maxLat = numbers[3] else {
            validator.fail("bbox", "must be minLon,minLat,maxLon,maxLat in decimal degrees")
            return nil
        }
        guard (-180...180).contains(minLon), (-180...180).contains(maxLon), (-90...90).contains(minLat), (-90...90).contains(maxLat) else {
            validator.fail("bbox", "longitudes must be within -180...180 and latitudes within -90...90")
            return nil
        }
        guard minLat <= maxLat else {
            validator.fail("bbox", "minLat must not be above maxLat")
            return nil
        }
        return GeoBoundingBox(minLat: minLat, maxLat: maxLat, minLon: minLon, maxLon: maxLon)
    }
}

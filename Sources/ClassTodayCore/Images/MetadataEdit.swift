/// What a metadata scrubber does with one marker segment (JPEG) or chunk (PNG, WebP).
enum MetadataEdit: Equatable {
    /// Copy it unchanged.
    case keep
    /// Leave it out.
    case drop
    /// Copy its header, then this payload (always of the original length, so no length field changes).
    case replace([UInt8])
}

/// Why a document, attachment or multipart body in CouchDB's wire form cannot be
/// taken. The server maps each case to CouchDB's status and error word
/// (`CouchError+Mapping`); the replicator reports them as its own.
public enum DocumentError: Error, Sendable, Equatable {
    /// A `_`-member CouchDB does not know, or one of the wrong type (400 `doc_validation`,
    /// "Bad special document member: _x").
    case badSpecialMember(String)
    /// A known member with an unusable value (400 `doc_validation`, the reason given).
    case invalidMember(String)
    /// An id that is not a string, is empty or is reserved (400 `illegal_docid`).
    case invalidDocumentID(String)
    /// A revision id that does not parse (400 `bad_request`, "Invalid rev format").
    case invalidRevision
    /// Any other malformed request (400 `bad_request`, the reason given).
    case badRequest(String)
    /// A document over `max_document_size` (413 `document_too_large`, the reason given).
    case tooLarge(String)
    /// An attachment `encoding` other than gzip (415 `bad_content_type`).
    case unsupportedAttachmentEncoding(String)
    /// No such document or revision (404 `not_found`: "missing" or "deleted").
    case notFound(String)
}

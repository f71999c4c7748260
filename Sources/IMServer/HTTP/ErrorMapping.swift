import IMProtocol
import IMStore

/// Maps every failure a handler can raise to the API error the client sees: the one
/// place where internal errors become HTTP, and where storage failures get their wording.
enum ErrorMapping {
    /// What a storage failure was about, when the handler knows: it sharpens the answer
    /// (which field a reference came from).
    struct Subject {
        /// The request field whose value the store refused.
        var field: String?

        init(field: String? = nil) { self.field = field }
    }

    /// How a failure is logged (``FailureLog``).
    enum Logged: Sendable {
        /// The client's own doing, or a decision: not logged.
        case no
        /// A fault of the server: one line each.
        case internalError
        /// The store out of reach: once for the whole outage.
        case unavailable
    }

    /// The API error for any failure, and how it is logged.
    static func apiError(for error: any Error, about subject: Subject = Subject()) -> (APIError, logged: Logged) {
        switch error {
        case let error as APIError:
            return (error, .no)
        case let error as DecodingError:
            return (APIError(decoding: error), .no)
        case let error as StoreError:
            return apiError(for: error, about: subject)
        case let error as SQLiteError where error.isStorageFailure:
            return (APIError(.unavailable, "the server cannot write to its storage right now", retryAfter: 30), .unavailable)
        case let error as PostgresError where error.isUnavailable:
            return (APIError(.unavailable, "the server cannot reach its database right now", retryAfter: 5), .unavailable)
        default:
            return (internalError, .internalError)
        }
    }

    /// Rethrows a storage failure as its API error (for handlers that know the subject).
    static func rethrow(_ error: any Error, about subject: Subject) -> any Error {
        guard let storeError = error as? StoreError else { return error }
        return apiError(for: storeError, about: subject).0
    }

    private static func apiError(for error: StoreError, about subject: Subject) -> (APIError, logged: Logged) {
        switch error {
        case .conflict(let message):
            return (APIError(.conflict, "\(message): pick another name (names are unique on this server)", field: subject.field), .no)
        case .notFound(let message):
            return (APIError(.notFound, message), .no)
        case .closed:
            return (APIError(.unavailable, "the server is shutting down", retryAfter: 5), .no)
        case .notMember:
            return (APIError(.forbidden, "you are not a member of this conversation", reason: "not_member"), .no)
        case .muted(let until):
            let end = until.map { "until \($0)" } ?? "until a moderator unmutes you"
            return (APIError(.forbidden, "you are muted in this conversation \(end)", reason: "muted", until: until), .no)
        case .restricted:
            return (APIError(
                .forbidden, "newcomers to this group may not post yet: answer the question its moderator bot sent "
                    + "you in a direct message, or wait for an admin to let you post", reason: "restricted"), .no)
        case .banned(let until):
            let end = until.map { "until \($0)" } ?? "until an admin unbans you"
            return (APIError(.forbidden, "you are banned from this group \(end)", reason: "banned", until: until), .no)
        case .slowMode(let seconds):
            return (APIError(
                .rateLimited, "this group is in slow mode: you may post again in \(seconds) s", retryAfter: seconds,
                reason: "slow_mode"), .no)
        case .blocked:
            // The blocked are told no more than that.
            return (APIError(.forbidden, "you cannot send messages to this user"), .no)
        case .refused(let reason, let message):
            return (APIError(.forbidden, message, reason: reason), .no)
        case .invalidState(let message):
            return (APIError(.conflict, message), .no)
        case .invalidReference(let message):
            return (APIError(.invalidRequest, message, field: subject.field), .no)
        case .cursorTooOld:
            return (APIError(
                .cursorExpired, "events after this cursor are no longer kept: poll without a cursor and re-sync"), .no)
        case .overBudget(let used, let limit):
            return (APIError(
                .payloadTooLarge,
                "this would pass the account's media budget of \(limit) bytes (\(used) in use by images "
                    + "still shown, e.g. as group logos): stop showing one first"), .no)
        case .quotaExceeded(let limit, let seconds):
            return (APIError(
                .rateLimited,
                "this account stored its \(limit) bytes of messages for today (UTC): it may send and edit again "
                    + "in \(seconds) s; an administrator can raise message_bytes_per_day",
                retryAfter: seconds, reason: "message_quota"), .no)
        case .tooManyRecords(let limit):
            return (APIError(
                .payloadTooLarge, "the bot's journal holds its \(limit) records: replace the snapshot to compact it",
                reason: "journal_full"), .no)
        case .leaseLost:
            return (APIError(
                .conflict, "this runner no longer holds the bot's lease (another runner took the bot over, or it was "
                    + "released): stop the bot and take the lease again before writing", reason: "lease_lost"), .no)
        case .incompatibleSchema, .internalFailure:
            return (internalError, .internalError)
        }
    }

    private static let internalError = APIError(
        .internalError, "the server failed to handle this request; it has been logged")
}

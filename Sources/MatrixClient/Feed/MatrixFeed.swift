import IMClient

/// A bot's Matrix feed: `/sync` long-polls from a `since` token kept in a `CursorStore`
/// (the runner's keeps it in the bot's journal), handed out in batches.
///
/// The token of a batch is saved only when the consumer asks for the next one, that is
/// once it has handled (or journaled) every event of the batch: a restart goes on right
/// there, so nothing is skipped and at most the last batch is seen again (the consumer
/// gives its events the positions they had, by the batch's layout it journaled). A feed
/// that never ran begins at the present: its first token is saved by ``start()`` before
/// anything is handed out, so history from before the bot's first start is never
/// answered, and a crash right after the start does not move its beginning to a later
/// present.
///
/// Invitations are joined when `acceptInvite` says so; a room whose state turns on
/// encryption is reported once per feed in ``MatrixFeedBatch/encrypted``, since the
/// bot cannot read it.
public actor MatrixFeed {
    /// How a feed polls.
    public struct Options: Sendable {
        /// How long one `/sync` waits on the homeserver for something to happen.
        public var pollTimeout: Duration
        public var filter: SyncFilter
        /// Whether to join a room the bot is invited to (room id, inviter's user id).
        public var acceptInvite: @Sendable (String, String?) -> Bool
        /// The most events of one room paged in when an answer's timeline left some out
        /// (the bot was stopped, or a room was busy); past it the gap is reported.
        public var mostMissedEvents: Int

        public init(pollTimeout: Duration = .seconds(30), filter: SyncFilter = .bot, mostMissedEvents: Int = 1_000,
                    acceptInvite: @escaping @Sendable (String, String?) -> Bool = { _, _ in false }) {
            self.pollTimeout = pollTimeout
            self.filter = filter
            self.mostMissedEvents = mostMissedEvents
            self.acceptInvite = acceptInvite
        }
    }

    public let client: MatrixClient
    private let cursor: any CursorStore
    private let options: Options
    private var since: String?
    /// The token of the batch handed out last, saved when the next one is asked for.
    private var unsaved: String?
    private var filterID: String?
    private var started = false
    /// Rooms already reported as encrypted (or declined invitations), so each is told once.
    private var encryptedRooms: Set<String> = []
    private var declined: Set<String> = []
    /// What a feed that never ran found at its start: invitations waiting and encrypted
    /// rooms, handed out as its first batch.
    private var atStart = MatrixFeedBatch()

    public init(client: MatrixClient, cursor: any CursorStore, options: Options = Options()) {
        self.client = client
        self.cursor = cursor
        self.options = options
    }

    /// Loads the saved token, or, for a feed that never ran, takes the present as its
    /// beginning and saves it. Called by the first ``next()`` when not called before.
    public func start() async throws(IMClientError) {
        guard !started else { return }
        let saved: String?
        do {
            saved = try await cursor.load()
        } catch {
            throw IMClientError(.localStorage, "cannot read the Matrix feed's since token: \(error)")
        }
        if filterID == nil { filterID = try await client.createFilter(options.filter) }
        if let saved {
            since = saved
        } else {
            let present = try await client.sync(since: nil, filter: filterID, timeout: .zero)
            // The rooms as they are now, without their history: encrypted rooms and
            // invitations waiting are the first batch.
            var first = MatrixFeedBatch()
            try await invitations(present.rooms.invite, into: &first)
            for (roomID, room) in present.rooms.join.sorted(by: { $0.key < $1.key }) {
                Self.collectNames(room.state + room.timeline, into: &first)
                if Self.turnsOnEncryption(room.state + room.timeline) {
                    encryptedRooms.insert(roomID)
                    first.encrypted.append(roomID)
                }
            }
            atStart = first
            try await save(present.nextBatch)
            since = present.nextBatch
        }
        started = true
    }

    /// The next batch of events: waits (a long-poll at a time) until there is one.
    /// Saves the previous batch's token first: asking for more says it was handled.
    public func next() async throws(IMClientError) -> MatrixFeedBatch {
        try await start()
        if let unsaved {
            try await save(unsaved)
            since = unsaved
            self.unsaved = nil
        }
        if !atStart.isEmpty {
            defer { atStart = MatrixFeedBatch() }
            return atStart
        }
        let me = try client.currentUser()
        while true {
            let answer = try await client.sync(since: since, filter: filterID, timeout: options.pollTimeout)
            var batch = MatrixFeedBatch()
            batch.since = since
            try await invitations(answer.rooms.invite, into: &batch)
            for (roomID, room) in answer.rooms.join.sorted(by: { $0.key < $1.key }) {
                if !encryptedRooms.contains(roomID), Self.turnsOnEncryption(room.state + room.timeline) {
                    encryptedRooms.insert(roomID)
                    batch.encrypted.append(roomID)
                }
                // A room the bot just joined or made comes with its recent history marked
                // limited: that is its beginning here, not a gap.
                let justJoined = room.timeline.contains { event in
                    event.type == "m.room.create"
                        || (event.type == "m.room.member" && event.stateKey == me.rawValue && event.membership == "join"
                            && event.previousMembership != "join")
                }
                var timeline = room.timeline
                if room.limited, !justJoined {
                    // More happened than one answer holds (a busy room, or the bot was
                    // stopped): the events left out are paged in from before the timeline.
                    if let missed = await missedEvents(in: roomID, room, since: since) {
                        timeline = missed + timeline
                    } else {
                        batch.gaps.append(roomID)
                    }
                }
                Self.collectNames(room.state + timeline, into: &batch)
                for event in timeline { batch.events.append(MatrixRoomEvent(roomID: roomID, event: event)) }
            }
            guard batch.isEmpty else {
                unsaved = answer.nextBatch
                return batch
            }
            // Nothing for the consumer: the token moves on at once (an empty long-poll
            // gives the same token again: nothing to save).
            if answer.nextBatch != since { try await save(answer.nextBatch) }
            since = answer.nextBatch
        }
    }

    /// The events a limited timeline left out, oldest first: paged back from the
    /// timeline's start to the token of the previous answer, at most
    /// ``Options/mostMissedEvents``. Nil when they cannot all be had (too many, or the
    /// homeserver refused): the gap is then reported instead.
    private func missedEvents(in roomID: String, _ room: SyncResponse.JoinedRoom, since: String?) async
        -> [MatrixEvent]?
    {
        guard let since, var from = room.prevBatch else { return nil }
        let inTimeline = Set(room.timeline.compactMap(\.eventID))
        var missed: [MatrixEvent] = []  // newest first
        while true {
            let page: (events: [MatrixEvent], next: String?)
            do {
                page = try await client.events(in: roomID, backFrom: from, to: since,
                                               limit: min(100, options.mostMissedEvents - missed.count + 1),
                                               types: options.filter.timelineTypes)
            } catch {
                return nil
            }
            missed += page.events.filter { $0.eventID.map { !inTimeline.contains($0) } ?? true }
            if missed.count > options.mostMissedEvents { return nil }
            guard let next = page.next, next != from else { return missed.reversed() }
            from = next
        }
    }

    /// Joins the invitations the policy accepts; records the others as declined, once.
    private func invitations(_ invites: [String: SyncResponse.InvitedRoom], into batch: inout MatrixFeedBatch)
        async throws(IMClientError)
    {
        let me = try client.currentUser()
        for (roomID, invite) in invites.sorted(by: { $0.key < $1.key }) where !declined.contains(roomID) {
            guard options.acceptInvite(roomID, invite.inviter(of: me)) else {
                declined.insert(roomID)
                batch.declined.append(roomID)
                continue
            }
            _ = try await client.join(.id(roomID))
            batch.joined.append(roomID)
            if invite.isDirect(for: me), let inviter = invite.inviter(of: me) { batch.direct[roomID] = inviter }
        }
    }

    /// The token the feed goes on from (saved), nil before ``start()``.
    public var savedSince: String? { since }

    private func save(_ token: String) async throws(IMClientError) {
        do {
            try await cursor.save(token)
        } catch {
            throw IMClientError(.localStorage, "cannot save the Matrix feed's since token: \(error)")
        }
    }

    /// The display names of the membership events among `events`.
    static func collectNames(_ events: [MatrixEvent], into batch: inout MatrixFeedBatch) {
        for event in events where event.type == "m.room.member" {
            if let user = event.stateKey, let name = event.content["displayname"]?.string, !name.isEmpty {
                batch.displayNames[user] = name
            }
        }
    }

    /// True when `events` hold an `m.room.encryption` state event.
    static func turnsOnEncryption(_ events: [MatrixEvent]) -> Bool {
        events.contains { $0.type == "m.room.encryption" && $0.stateKey != nil }
    }
}

/// One batch of a ``MatrixFeed``: its events in order within each room.
public struct MatrixFeedBatch: Sendable {
    /// The token the batch was asked from: asked again from it (after a crash), the
    /// homeserver brings each room's same events in the same order, and those since.
    public var since: String?
    /// Timeline events, room by room, each room's in order.
    public var events: [MatrixRoomEvent] = []
    /// Rooms joined because the bot was invited and the policy said yes.
    public var joined: [String] = []
    /// Invitations the policy declined (each told once).
    public var declined: [String] = []
    /// Of the rooms joined, the direct chats (their invitation said `is_direct`), with
    /// the user who invited the bot.
    public var direct: [String: String] = [:]
    /// Rooms that turned out to be encrypted: the bot cannot read them (told once).
    public var encrypted: [String] = []
    /// Rooms whose timeline left events out (more than the filter's limit arrived at once).
    public var gaps: [String] = []
    /// Display names members gave themselves, from the membership events of the batch
    /// (lazily loaded: those of the timeline's senders).
    public var displayNames: [String: String] = [:]

    public init() {}

    var isEmpty: Bool {
        events.isEmpty && joined.isEmpty && declined.isEmpty && encrypted.isEmpty && displayNames.isEmpty
    }
}

/// An event with the room it happened in.
public struct MatrixRoomEvent: Sendable, Hashable {
    public var roomID: String
    public var event: MatrixEvent

    public init(roomID: String, event: MatrixEvent) {
        self.roomID = roomID
        self.event = event
    }
}

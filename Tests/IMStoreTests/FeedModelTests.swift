import IMProtocol
import IMStore
import Testing

/// The feeds of random histories (sends, joins, leaves, kicks, re-joins, new info, read
/// markers, contacts, profile changes, sends by non-members) compared with a model of the
/// layout before schema version 2, which copied each event into the feed of every member
/// at the time it was written. Positions differ between the two (an event now has one
/// position in every feed); what each feed holds, and in which order, must not.
@Suite struct FeedModelTests {
    /// The old layout's feeds, in memory: each write appended to the feeds of whoever
    /// was a member when it was written.
    struct OldFeeds {
        var names: [UserID: String] = [:]
        var members: [ConversationID: Set<UserID>] = [:]
        var kinds: [ConversationID: (ConversationKind, String)] = [:]
        var lastSeq: [ConversationID: Int64] = [:]
        var markers: [ConversationID: [UserID: Int64]] = [:]
        var contacts: [UserID: Set<UserID>] = [:]
        var feeds: [UserID: [String]] = [:]

        func address(_ conversation: ConversationID, viewer: UserID) -> String {
            guard let (kind, name) = kinds[conversation] else { return "-" }
            guard kind == .direct else { return "\(kind.rawValue):\(name)" }
            let other = members[conversation]?.first { $0 != viewer } ?? viewer
            return "user:\(names[other] ?? "?")"
        }

        mutating func deliver(
            _ type: EventType, in conversation: ConversationID?, text: String? = nil, user: UserID? = nil,
            by: UserID? = nil, seq: Int64? = nil, to recipients: Set<UserID>
        ) {
            for recipient in recipients {
                let place = conversation.map { address($0, viewer: recipient) } ?? "-"
                feeds[recipient, default: []].append(
                    describe(type, place, text, user.flatMap { names[$0] }, by.flatMap { names[$0] }, seq))
            }
        }

        /// The old `addMember`: the member is added, then everyone present is told.
        mutating func join(_ user: UserID, _ conversation: ConversationID, notice: String, by: UserID? = nil) -> Bool {
            guard members[conversation]?.contains(user) == false else { return false }
            members[conversation, default: []].insert(user)
            markers[conversation, default: [:]][user] = lastSeq[conversation] ?? 0
            lastSeq[conversation, default: 0] += 1
            deliver(.memberJoined, in: conversation, text: notice, user: user, by: by, to: members[conversation] ?? [])
            return true
        }

        /// The old `removeMember`: everyone is told, the member included, then removed.
        mutating func leave(_ user: UserID, _ conversation: ConversationID, _ event: EventType, notice: String, by: UserID?)
            -> Bool
        {
            guard members[conversation]?.contains(user) == true else { return false }
            lastSeq[conversation, default: 0] += 1
            deliver(event, in: conversation, text: notice, user: user, by: by, to: members[conversation] ?? [])
            members[conversation]?.remove(user)
            return true
        }

        mutating func send(_ user: UserID, _ conversation: ConversationID, text: String) -> Bool {
            guard members[conversation]?.contains(user) == true else { return false }
            lastSeq[conversation, default: 0] += 1
            markers[conversation, default: [:]][user] = lastSeq[conversation]
            deliver(.message, in: conversation, text: text, to: members[conversation] ?? [])
            return true
        }

        mutating func markRead(_ user: UserID, _ conversation: ConversationID, seq: Int64) -> Int64? {
            guard members[conversation]?.contains(user) == true else { return nil }
            let marker = min(seq, lastSeq[conversation] ?? 0)
            let current = markers[conversation]?[user] ?? 0
            guard marker > current else { return current }
            markers[conversation, default: [:]][user] = marker
            deliver(.read, in: conversation, seq: marker, to: [user])
            return marker
        }
    }

    static func describe(
        _ type: EventType, _ place: String, _ text: String?, _ user: String?, _ by: String?, _ seq: Int64?
    ) -> String {
        "\(type.rawValue) \(place) text=\(text ?? "-") user=\(user ?? "-") by=\(by ?? "-") seq=\(seq.map(String.init) ?? "-")"
    }

    static func describe(_ event: Event) -> String {
        describe(
            event.type, event.conversation?.address.description ?? "-", event.message?.text, event.user?.username,
            event.by, event.seq)
    }

    /// SplitMix64: the same history for the same seed.
    struct Random {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }

    /// Eight histories on SQLite; three of them on PostgreSQL, where each costs a database.
    static let histories: [(StoreKind, UInt64)] =
        (1...8).map { (StoreKind.sqlite, UInt64($0)) } + (1...3).map { (StoreKind.postgres, UInt64($0)) }

    @Test(arguments: histories)
    func theFeedsOfARandomHistoryHoldWhatTheOldLayoutWouldHave(_ kind: StoreKind, seed: UInt64) async throws {
        try await withStore(kind) { store in
            var random = Random(state: seed)
            var model = OldFeeds()
            var users: [UserID] = []
            for index in 0..<5 {
                let user = try await store.makeUser("u\(index)")
                users.append(user.id)
                model.names[user.id] = "u\(index)"
            }
            var shared: [ConversationID] = []
            for (index, kind) in [ConversationKind.group, .group, .room].enumerated() {
                let creator = users[index]
                let record = try await store.createConversation(
                    kind: kind, name: "c\(index)", title: "", description: "", logoURL: "", creator: creator)
                model.kinds[record.id] = (kind, "c\(index)")
                model.members[record.id] = []
                _ = model.join(creator, record.id, notice: "u\(index) created the \(kind.rawValue)")
                shared.append(record.id)
            }
            var direct: [ConversationID] = []
            for (a, b) in [(0, 1), (1, 2), (3, 4)] {
                let record = try await store.directConversation(users[a], users[b])
                model.kinds[record.id] = (.direct, record.name)
                model.members[record.id] = [users[a], users[b]]
                model.markers[record.id] = [users[a]: 0, users[b]: 0]
                direct.append(record.id)
            }
            let all = shared + direct

            for step in 0..<150 {
                let user = users[random.next(users.count)]
                let other = users[random.next(users.count)]
                switch random.next(10) {
                case 0, 1, 2, 3:
                    let conversation = all[random.next(all.count)]
                    let sent = try? await store.send("t\(step)", to: conversation, from: user)
                    #expect((sent != nil) == model.send(user, conversation, text: "t\(step)"), "step \(step)")
                case 4:
                    let conversation = shared[random.next(shared.count)]
                    let added = try await store.addMember(
                        conversation, user, role: .member, change: MembershipChange(event: .memberJoined, notice: "j\(step)"))
                    #expect(added == model.join(user, conversation, notice: "j\(step)"), "step \(step)")
                case 5:
                    let conversation = shared[random.next(shared.count)]
                    let kick = random.next(2) == 0
                    let event: EventType = kick ? .memberKicked : .memberLeft
                    let removed = try await store.removeMember(
                        conversation, user, change: MembershipChange(event: event, notice: "l\(step)", by: kick ? other : nil))
                    #expect(
                        removed == model.leave(user, conversation, event, notice: "l\(step)", by: kick ? other : nil),
                        "step \(step)")
                case 6:
                    let conversation = shared[random.next(shared.count)]
                    _ = try await store.updateInfo(
                        conversation, ConversationInfoUpdate(title: "title \(step)"),
                        // Who may change the info is not this model's concern.
                        by: ActingUser(id: user, isServerAdministrator: true), notice: "i\(step)")
                    model.lastSeq[conversation, default: 0] += 1
                    model.deliver(
                        .conversationUpdated, in: conversation, text: "i\(step)", by: user,
                        to: model.members[conversation] ?? [])
                case 7:
                    let conversation = all[random.next(all.count)]
                    let seq = Int64(random.next(Int(model.lastSeq[conversation] ?? 0) + 2))
                    let marker = try? await store.markRead(conversation, user, seq: seq)
                    #expect(marker == model.markRead(user, conversation, seq: seq), "step \(step)")
                case 8:
                    let added = try await store.addContact(user, other)
                    let isNew = model.contacts[user, default: []].insert(other).inserted
                    #expect(added == isNew, "step \(step)")
                    if isNew {
                        model.deliver(.contactAdded, in: nil, user: other, by: user, to: [user])
                        if other != user { model.deliver(.contactAdded, in: nil, user: user, by: user, to: [other]) }
                    }
                default:
                    _ = try await store.updateProfile(user, ProfileUpdate(signature: "s\(step)"))
                    let watchers = Set(users.filter { $0 != user && model.contacts[$0]?.contains(user) == true })
                    model.deliver(.profileUpdated, in: nil, user: user, to: watchers.union([user]))
                }
            }

            for user in users {
                let feed = try await store.events(for: user, after: 0, limit: 10_000)
                #expect(feed.map(Self.describe) == model.feeds[user] ?? [], "\(model.names[user] ?? "?"), seed \(seed)")
                #expect(zip(feed, feed.dropFirst()).allSatisfy { $0.position < $1.position })
                // Paging from each of its positions reads on where it left off.
                for index in feed.indices {
                    let limit = 1 + random.next(4)
                    let page = try await store.events(for: user, after: feed[index].position, limit: limit)
                    #expect(page == Array(feed[(index + 1)...].prefix(limit)), "seed \(seed), after \(index)")
                }
            }
        }
    }

    /// A conversation long enough that finding where a cursor falls among its messages
    /// takes a search (SQLite finds a message's event through the message: schema
    /// version 10), with system messages that carry no event of their own between them, a
    /// member who leaves and comes back, and a room someone joins late: a page read from
    /// any position holds what the whole feed holds after it.
    @Test(arguments: [StoreKind.sqlite, .postgres])
    func aLongHistoryPagesFromEveryPositionAsTheWholeFeedHoldsIt(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.makeUser("alice").id
            let bob = try await store.makeUser("bob").id
            let carol = try await store.makeUser("carol").id
            let group = try await store.createConversation(
                kind: .group, name: "long", title: "", description: "", logoURL: "", creator: alice).id
            let room = try await store.createConversation(
                kind: .room, name: "hall", title: "", description: "", logoURL: "", creator: alice).id
            let direct = try await store.directConversation(alice, bob).id
            _ = try await store.addMember(
                group, bob, role: .member, change: MembershipChange(event: .memberJoined, notice: "bob in"))
            for step in 0..<600 {
                switch step {
                case 150, 400:
                    _ = try await store.addMember(
                        group, carol, role: .member, change: MembershipChange(event: .memberJoined, notice: "carol in"))
                case 300:
                    _ = try await store.removeMember(
                        group, carol, change: MembershipChange(event: .memberLeft, notice: "carol out"))
                case 250:
                    _ = try await store.addMember(
                        room, bob, role: .member, change: MembershipChange(event: .memberJoined, notice: "bob in"))
                default:
                    if step % 97 == 0 {
                        _ = try await store.updateInfo(
                            group, ConversationInfoUpdate(title: "t\(step)"),
                            by: ActingUser(id: alice, isServerAdministrator: true), notice: "title \(step)")
                    }
                    let conversation = [group, group, group, room, direct][step % 5]
                    let sender = conversation != room && step % 3 == 0 ? bob : alice
                    _ = try await store.send("m\(step)", to: conversation, from: sender)
                }
            }
            for user in [alice, bob, carol] {
                let feed = try await store.events(for: user, after: 0, limit: 10_000)
                #expect(feed.count > 100)
                #expect(zip(feed, feed.dropFirst()).allSatisfy { $0.position < $1.position })
                for index in feed.indices {
                    let page = try await store.events(for: user, after: feed[index].position, limit: 1 + index % 3)
                    #expect(page == Array(feed[(index + 1)...].prefix(1 + index % 3)), "\(user) after \(index)")
                }
            }
            // Bob reads the room only from his joining on: none of its first 250 steps' messages.
            let bobsRoom = try await store.events(for: bob, after: 0, limit: 10_000).filter {
                $0.conversation?.id == room && $0.type == .message
            }
            #expect(bobsRoom.count == (251..<600).filter { $0 % 5 == 3 }.count)
        }
    }
}

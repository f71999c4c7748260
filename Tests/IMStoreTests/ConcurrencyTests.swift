import IMProtocol
import IMStore
import Testing

@Suite struct ConcurrencyTests {
    @Test(.timeLimit(.minutes(1)), arguments: StoreKind.allCases)
    func fiveHundredConcurrentSendsGetContiguousSeqsAndReachEachFeedOnce(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            var users: [UserRecord] = []
            for index in 0..<8 { users.append(try await store.makeUser("user\(index)")) }
            // Four groups of five overlapping members each.
            var groups: [(id: ConversationID, members: [UserID])] = []
            for index in 0..<4 {
                let members = (0..<5).map { users[(index * 2 + $0) % users.count].id }
                let group = try await store.makeGroup("group\(index)", owner: members[0], members: Array(members.dropFirst()))
                groups.append((group.id, members))
            }
            let count = 500
            let sent = try await withThrowingTaskGroup(of: Message.self) { tasks in
                for index in 0..<count {
                    let group = groups[index % groups.count]
                    let sender = group.members[(index / groups.count) % group.members.count]
                    tasks.addTask { try await store.send("message \(index)", to: group.id, from: sender) }
                }
                return try await tasks.reduce(into: [Message]()) { $0.append($1) }
            }
            #expect(sent.count == count)
            #expect(Set(sent.map(\.id)).count == count)

            var chatIDsByGroup: [ConversationID: Set<MessageID>] = [:]
            for group in groups {
                let record = try #require(try await store.conversation(id: group.id))
                let history = try await store.messages(group.id, before: nil, limit: 1_000)
                #expect(history.map(\.seq) == Array((1...record.lastSeq).reversed()))
                let chats = history.filter { $0.type == .chat }
                #expect(chats.count == count / groups.count)
                #expect(Set(chats.map(\.id)) == Set(sent.filter { $0.conversationID == group.id }.map(\.id)))
                chatIDsByGroup[group.id] = Set(chats.map(\.id))
            }
            // The seq each send returned is the seq stored.
            let storedSeqs = try await withThrowingTaskGroup(of: [MessageID: Int64].self) { tasks in
                for group in groups {
                    tasks.addTask {
                        let history = try await store.messages(group.id, before: nil, limit: 1_000)
                        return Dictionary(uniqueKeysWithValues: history.map { ($0.id, $0.seq) })
                    }
                }
                return try await tasks.reduce(into: [MessageID: Int64]()) { $0.merge($1) { a, _ in a } }
            }
            #expect(sent.allSatisfy { storedSeqs[$0.id] == $0.seq })

            for user in users {
                let feed = try await store.feed(user.id)
                #expect(zip(feed, feed.dropFirst()).allSatisfy { $0.position < $1.position })
                let received = feed.filter { $0.type == .message }.compactMap(\.message?.id)
                let expected = groups.filter { $0.members.contains(user.id) }
                    .reduce(into: Set<MessageID>()) { $0.formUnion(chatIDsByGroup[$1.id] ?? []) }
                #expect(received.count == expected.count, "\(user.user.username)")
                #expect(Set(received) == expected, "\(user.user.username)")
            }
        }
    }
}

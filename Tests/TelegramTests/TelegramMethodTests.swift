import Foundation
import IMClient
import IMProtocol
import Testing
import TestSupport

/// Each method of the dialect against a real server: what it answers, in Telegram's
/// shapes, and what it does on the Switchboard side.
@Suite(.timeLimit(.minutes(3)))
struct TelegramMethodTests {
    /// A server with a bot, alice and a group `ops` (alice owns it, the bot is a member).
    func withGroup(_ body: (TestServer, TelegramBot, Person, ConversationID) async throws -> Void) async throws {
        try await withServer { server in
            let bot = try await TelegramBot.create("helper", on: server)
            let alice = try await Person("alice", on: server)
            let created = try await alice.client.send("POST", "/v1/groups", json: CreateConversationRequest(name: "ops", title: "Operations"))
            let info = try created.decode(ConversationInfo.self)
            _ = try await alice.client.send("POST", "/v1/groups/ops/invites", json: ["user": "helper"])
            // Reading its updates, the bot takes the invitation.
            try await bot.ok("getUpdates")
            try await body(server, bot, alice, info.id)
        }
    }

    @Test func getMeDescribesTheBotAndMethodNamesIgnoreCase() async throws {
        try await withServer { server in
            let bot = try await TelegramBot.create("helper", on: server)
            for name in ["getMe", "getme", "GETME"] {
                let me = try await bot.ok(name).resultObject
                #expect(me["id"] as? Int64 == bot.id)
                #expect(me["is_bot"] as? Bool == true)
                #expect(me["first_name"] as? String == "helper")
                #expect(me["username"] as? String == "helper")
                #expect(me["can_join_groups"] as? Bool == true)
                #expect(me["can_read_all_group_messages"] as? Bool == true)
                #expect(me["supports_inline_queries"] as? Bool == false)
            }
        }
    }

    @Test func parametersArriveInEveryEncoding() async throws {
        try await withServer { server in
            let bot = try await TelegramBot.create("helper", on: server)
            let alice = try await Person("alice", on: server)
            let chat = alice.user.id.rawValue
            let first = try await bot.ok("sendMessage", ["chat_id": chat, "text": "json"]).resultObject
            let replyTo = first["message_id"] as? Int ?? 0
            // A URL-encoded form, with an object as JSON text (python-telegram-bot, aiogram).
            let form = "chat_id=\(chat)&text=form+%26+more&reply_parameters=" + "{\"message_id\":\(replyTo)}"
                .addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let formed = try await bot.raw(
                "POST", "/bot\(bot.token)/sendMessage", body: Data(form.utf8),
                headers: [("Content-Type", "application/x-www-form-urlencoded")])
            #expect(formed.ok, "\(formed.text)")
            #expect(formed.resultObject["text"] as? String == "form & more")
            #expect((formed.resultObject["reply_to_message"] as? [String: Any])?["message_id"] as? Int == replyTo)
            // Multipart.
            let boundary = "b0undary"
            var multipart = ""
            for (name, value) in [("chat_id", "\(chat)"), ("text", "multi\npart ✓")] {
                multipart += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
            }
            multipart += "--\(boundary)--\r\n"
            let parted = try await bot.raw(
                "POST", "/bot\(bot.token)/sendMessage", body: Data(multipart.utf8),
                headers: [("Content-Type", "multipart/form-data; boundary=\(boundary)")])
            #expect(parted.resultObject["text"] as? String == "multi\npart ✓", "\(parted.text)")
            // A query string on a GET (and on a POST with no body: pyTelegramBotAPI).
            let queried = try await bot.raw("GET", "/bot\(bot.token)/sendMessage?chat_id=\(chat)&text=query%20string")
            #expect(queried.resultObject["text"] as? String == "query string", "\(queried.text)")
            // Numbers and booleans as strings in JSON (Alertmanager's telebot sends them so).
            let strings = try await bot.ok(
                "sendMessage", ["chat_id": "\(chat)", "text": "strings", "disable_notification": "true"])
            #expect(strings.resultObject["text"] as? String == "strings")
            try await alice.waitFor("five messages") { $0.messages(in: "user:helper").count == 5 }
            #expect(alice.messages(in: "user:helper").map(\.text) == ["json", "form & more", "multi\npart ✓", "query string", "strings"])
        }
    }

    @Test func errorsHaveTelegramsShape() async throws {
        try await withServer { server in
            let bot = try await TelegramBot.create("helper", on: server)
            let (person, _) = try await server.createAccount("alice")
            let unknown = try await bot.call("sendTelepathy")
            #expect(unknown.status == 404 && unknown.errorCode == 404 && unknown.object["ok"] as? Bool == false)
            #expect(unknown.description.contains("sendTelepathy"))
            let declined = try await bot.call("sendPhoto", ["chat_id": 1])
            #expect(declined.status == 400 && declined.description.contains("sendPhoto"), "\(declined.text)")
            let noText = try await bot.call("sendMessage", ["chat_id": bot.id + 1, "text": "  "])
            #expect(noText.status == 400 && noText.description == "Bad Request: message text is empty", "\(noText.text)")
            let noChat = try await bot.call("sendMessage", ["chat_id": 987_654, "text": "hi"])
            #expect(noChat.status == 400 && noChat.description == "Bad Request: chat not found")
            let badMarkup = try await bot.call("sendMessage", ["chat_id": bot.id + 1, "text": "*open", "parse_mode": "MarkdownV2"])
            #expect(badMarkup.status == 400 && badMarkup.description.hasPrefix("Bad Request: can't parse entities"))
            // Tokens: a wrong secret, a person's login, no method.
            let wrong = try await bot.raw("GET", "/bot\(bot.id):AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/getMe")
            #expect(wrong.status == 401 && wrong.description == "Unauthorized")
            // A person's login is no Telegram token: that path is not the dialect's.
            let personal = try await bot.raw("GET", "/bot\(person.token ?? "")/getMe")
            #expect(personal.status == 404 && personal.object["ok"] == nil)
            // The bot's secret under another id.
            let secret = bot.token.split(separator: ":").last ?? ""
            let borrowed = try await bot.raw("GET", "/bot\(bot.id + 1):\(secret)/getMe")
            #expect(borrowed.status == 401 && borrowed.description == "Unauthorized")
            let bare = try await bot.raw("GET", "/bot\(bot.token)/")
            #expect(bare.status == 404 && bare.errorCode == 404)
        }
    }

    @Test func aSpentBudgetAnswers429WithRetryAfter() async throws {
        try await withServer({ $0.rateLimits.enabled = true; $0.rateLimits.general = .init(rate: 0.01, burst: 2) }) { server in
            let bot = try await TelegramBot.create("helper", on: server)
            var answers: [TelegramBot.Answer] = []
            for _ in 0..<3 { answers.append(try await bot.call("getMe")) }
            let limited = try #require(answers.last)
            #expect(limited.status == 429 && limited.errorCode == 429, "\(limited.text)")
            let retry = (limited.object["parameters"] as? [String: Any])?["retry_after"] as? Int
            #expect((retry ?? 0) >= 1)
            #expect(limited.description == "Too Many Requests: retry after \(retry ?? -1)")
        }
    }

    @Test func parseModesBecomePlainTextWithEntities() async throws {
        try await withServer { server in
            let bot = try await TelegramBot.create("helper", on: server)
            let alice = try await Person("alice", on: server)
            let chat = alice.user.id.rawValue
            let cases: [(String, String, String, [String])] = [
                ("MarkdownV2", "*bold* _it_ __under__ ~gone~ ||secret|| `code` [link](https://x.example) 1\\.5", "bold it under gone secret code link 1.5",
                 ["bold", "italic", "underline", "strikethrough", "spoiler", "code", "text_link"]),
                ("HTML", "<b>bold</b> &lt;3 <a href=\"https://x.example\">link</a> <pre><code class=\"language-swift\">let x</code></pre>",
                 "bold <3 link let x", ["bold", "text_link", "pre"]),
                ("Markdown", "*bold* _it_ `code` [link](https://x.example)", "bold it code link", ["bold", "italic", "code", "text_link"]),
            ]
            for (mode, markup, plain, types) in cases {
                let sent = try await bot.ok("sendMessage", ["chat_id": chat, "text": markup, "parse_mode": mode]).resultObject
                #expect(sent["text"] as? String == plain, "\(mode)")
                let entities = sent["entities"] as? [[String: Any]] ?? []
                #expect(Set(entities.compactMap { $0["type"] as? String }).isSuperset(of: types), "\(mode): \(entities)")
            }
            // Offsets count UTF-16 code units: the emoji takes two.
            let emoji = try await bot.ok("sendMessage", ["chat_id": chat, "text": "😀 *b*", "parse_mode": "MarkdownV2"]).resultObject
            let bold = (emoji["entities"] as? [[String: Any]])?.first
            #expect(bold?["offset"] as? Int == 3 && bold?["length"] as? Int == 1)
            // Entities given are answered back, but those outside the text (and past the
            // 100th) are dropped.
            let given: [[String: Any]] = [
                ["type": "bold", "offset": 0, "length": 2], ["type": "italic", "offset": -5, "length": 99],
                ["type": "code", "offset": 1, "length": 2], ["type": "underline", "offset": 0, "length": 0],
            ] + Array(repeating: ["type": "bold", "offset": 0, "length": 1], count: 200)
            let kept = try await bot.ok("sendMessage", ["chat_id": chat, "text": "hi", "entities": given]).resultObject
            let keptEntities = kept["entities"] as? [[String: Any]] ?? []
            #expect(keptEntities.count == 100 && keptEntities.first?["type"] as? String == "bold", "\(keptEntities.prefix(3))")
            #expect(!keptEntities.contains { ["italic", "code", "underline"].contains($0["type"] as? String) })
            // The person reads plain text.
            try await alice.waitFor("the formatted messages") { $0.messages(in: "user:helper").count == 5 }
            #expect(alice.messages(in: "user:helper").first?.text == "bold it under gone secret code link 1.5")
        }
    }

    @Test func receivedMessagesCarryTheEntitiesTheServerFinds() async throws {
        try await withServer { server in
            let bot = try await TelegramBot.create("helper", on: server)
            let alice = try await Person("alice", on: server)
            try await alice.send("/start@helper now 😀 @bob see https://example.com/a?b=1. #news", to: "user:helper")
            let update = try #require(try await bot.ok("getUpdates").resultList.first)
            let message = try #require(update["message"] as? [String: Any])
            let entities = (message["entities"] as? [[String: Any]] ?? []).map {
                "\($0["type"] as? String ?? "")@\($0["offset"] as? Int ?? -1)+\($0["length"] as? Int ?? -1)"
            }
            #expect(entities == ["bot_command@0+13", "mention@21+4", "url@30+25", "hashtag@57+5"], "\(entities)")
            let chat = try #require(message["chat"] as? [String: Any])
            #expect(chat["id"] as? Int64 == alice.user.id.rawValue && chat["type"] as? String == "private")
            #expect((message["from"] as? [String: Any])?["username"] as? String == "alice")
        }
    }

    @Test func getUpdatesConfirmsWithOffsetLimitsAndWaits() async throws {
        try await withServer { server in
            let bot = try await TelegramBot.create("helper", on: server)
            let alice = try await Person("alice", on: server)
            for text in ["one", "two", "three"] { try await alice.send(text, to: "user:helper") }
            let firstTwo = try await bot.ok("getUpdates", ["limit": 2]).resultList
            #expect(firstTwo.compactMap { ($0["message"] as? [String: Any])?["text"] as? String } == ["one", "two"])
            let ids = firstTwo.compactMap { $0["update_id"] as? Int64 }
            #expect(ids.count == 2 && ids[0] < ids[1])
            // Unconfirmed updates come again; an offset confirms those before it.
            #expect(try await bot.ok("getUpdates").resultList.count == 3)
            let rest = try await bot.ok("getUpdates", ["offset": ids[1] + 1]).resultList
            #expect(rest.compactMap { ($0["message"] as? [String: Any])?["text"] as? String } == ["three"])
            let last = try #require(rest.last?["update_id"] as? Int64)
            // A long poll waits for the next message and answers with it.
            async let waiting = bot.ok("getUpdates", ["offset": last + 1, "timeout": 30])
            try await server.awaitParkedPolls(1)
            try await alice.send("four", to: "user:helper")
            let woken = try await waiting.resultList
            #expect(woken.compactMap { ($0["message"] as? [String: Any])?["text"] as? String } == ["four"])
            // The confirmed offset is kept on the server: a restart picks up after it.
            _ = try await bot.ok("getUpdates", ["offset": (woken.last?["update_id"] as? Int64 ?? 0) + 1, "timeout": 0])
            let restarted = try await server.restart()
            let again = TelegramBot(server: restarted, user: bot.user, token: bot.token)
            #expect(try await again.ok("getUpdates").resultList.isEmpty)
            await restarted.stop()
        }
    }

    @Test func aSecondPollEndsTheFirstWith409() async throws {
        try await withServer { server in
            let bot = try await TelegramBot.create("helper", on: server)
            async let first = bot.call("getUpdates", ["timeout": 30])
            try await server.awaitParkedPolls(1)
            async let second = bot.call("getUpdates", ["timeout": 1])
            let ended = try await first
            #expect(ended.status == 409 && ended.description.contains("terminated by other getUpdates request"), "\(ended.text)")
            #expect(try await second.ok)
        }
    }

    @Test func memberChangesAreChatMemberUpdatesWhenAskedFor() async throws {
        try await withGroup { server, bot, alice, group in
            // The bot's own joining came as my_chat_member.
            let mine = try await bot.ok("getUpdates", ["allowed_updates": ["message", "chat_member", "my_chat_member"]]).resultList
            let joined = try #require(mine.compactMap { $0["my_chat_member"] as? [String: Any] }.first)
            #expect((joined["new_chat_member"] as? [String: Any])?["status"] as? String == "member")
            #expect((joined["chat"] as? [String: Any])?["id"] as? Int64 == TelegramBot.chatID(of: group))
            #expect((joined["chat"] as? [String: Any])?["type"] as? String == "supergroup")
            var offset = (mine.last?["update_id"] as? Int64 ?? 0) + 1
            let bob = try await Person("bob", on: server)
            _ = try await alice.client.send("POST", "/v1/groups/ops/invites", json: ["user": "bob"])
            _ = try await bob.client.send("POST", "/v1/groups/ops/join")
            try await moderate(alice, "promote", "bob")
            try await moderate(alice, "mute", "bob")
            try await moderate(alice, "ban", "bob")
            var statuses: [String] = []
            var joinedMessage = false
            try await eventually("five member updates", hangGuard: .seconds(30)) {
                let updates = try await bot.ok("getUpdates", ["offset": offset]).resultList
                for update in updates {
                    offset = (update["update_id"] as? Int64 ?? 0) + 1
                    if let change = update["chat_member"] as? [String: Any],
                        let old = (change["old_chat_member"] as? [String: Any])?["status"] as? String,
                        let new = (change["new_chat_member"] as? [String: Any])?["status"] as? String
                    {
                        statuses.append("\(old)>\(new)")
                    }
                    if let message = update["message"] as? [String: Any], message["new_chat_members"] != nil { joinedMessage = true }
                }
                return statuses.count >= 4
            }
            #expect(statuses == ["left>member", "member>administrator", "administrator>member", "member>restricted", "member>kicked"].filter { statuses.contains($0) })
            #expect(statuses.first == "left>member" && statuses.last == "member>kicked", "\(statuses)")
            #expect(joinedMessage)
            // Without asking for chat_member (Telegram's default), none come.
            _ = try await alice.client.send("POST", "/v1/groups/ops/moderation", json: ["action": "unban", "user": "bob"])
            let unasked = try await bot.ok("getUpdates", ["offset": offset, "allowed_updates": [String]()]).resultList
            #expect(unasked.allSatisfy { $0["chat_member"] == nil })
        }
    }

    @Test func editsAreEditedMessagesAndBotsEditTheirOwn() async throws {
        try await withServer { server in
            let bot = try await TelegramBot.create("helper", on: server)
            let alice = try await Person("alice", on: server)
            let sent = try await alice.send("teh typo", to: "user:helper")
            _ = try await alice.client.send(
                "PATCH", "/v1/conversations/user:helper/messages/\(sent.id)", json: EditMessageRequest(text: "the typo"))
            let updates = try await bot.ok("getUpdates").resultList
            let edited = try #require(updates.compactMap { $0["edited_message"] as? [String: Any] }.first)
            #expect(edited["text"] as? String == "the typo" && edited["edit_date"] != nil)
            #expect(edited["message_id"] as? Int64 == sent.seq)
            let chat = alice.user.id.rawValue
            let mine = try await bot.ok("sendMessage", ["chat_id": chat, "text": "draft"]).resultObject
            let id = try #require(mine["message_id"] as? Int)
            let changed = try await bot.ok("editMessageText", ["chat_id": chat, "message_id": id, "text": "<b>final</b>", "parse_mode": "HTML"])
            #expect(changed.resultObject["text"] as? String == "final" && changed.resultObject["edit_date"] != nil)
            let same = try await bot.call("editMessageText", ["chat_id": chat, "message_id": id, "text": "final"])
            #expect(same.status == 400 && same.description.hasPrefix("Bad Request: message is not modified"))
            let others = try await bot.call("editMessageText", ["chat_id": chat, "message_id": sent.seq, "text": "mine now"])
            #expect(others.status == 403 || others.status == 400, "\(others.text)")
        }
    }

    @Test func forwardCopyAndDelete() async throws {
        try await withGroup { server, bot, alice, group in
            let chat = TelegramBot.chatID(of: group)
            let original = try await alice.send("the plan", to: "group:ops")
            let forwarded = try await bot.ok(
                "forwardMessage", ["chat_id": alice.user.id.rawValue, "from_chat_id": chat, "message_id": original.seq]).resultObject
            #expect(forwarded["text"] as? String == "the plan")
            let origin = try #require(forwarded["forward_origin"] as? [String: Any])
            #expect(origin["type"] as? String == "user" && (origin["sender_user"] as? [String: Any])?["username"] as? String == "alice")
            let copied = try await bot.ok("copyMessage", ["chat_id": "@ops", "from_chat_id": chat, "message_id": original.seq]).resultObject
            let copyID = try #require(copied["message_id"] as? Int64)
            #expect(copied.count == 1)
            try await bot.ok("deleteMessage", ["chat_id": chat, "message_id": copyID])
            let gone = try await bot.call("deleteMessage", ["chat_id": chat, "message_id": 999])
            #expect(gone.status == 400 && gone.description == "Bad Request: message to delete not found")
            // Someone else's message: the bot is no admin.
            let refused = try await bot.call("deleteMessage", ["chat_id": chat, "message_id": original.seq])
            #expect(refused.status == 400 && refused.description.hasPrefix("Bad Request: message can't be deleted"), "\(refused.text)")
            // An admin deletes a member's messages (not the owner's: that is the owner's own).
            try await moderate(alice, "promote", "helper")
            let bob = try await Person("bob", on: server)
            _ = try await alice.client.send("POST", "/v1/groups/ops/invites", json: ["user": "bob"])
            let joined = try await bob.client.send("POST", "/v1/groups/ops/join")
            #expect(joined.status == 200, "\(joined.text)")
            let first = try await bob.send("spam", to: "group:ops")
            let extra = try await bob.send("more spam", to: "group:ops")
            let owners = try await bot.call("deleteMessage", ["chat_id": chat, "message_id": original.seq])
            #expect(owners.status == 400 && owners.description.hasPrefix("Bad Request: message can't be deleted"), "\(owners.text)")
            try await bot.ok("deleteMessages", ["chat_id": chat, "message_ids": [first.seq, extra.seq, 12345]])
            try await alice.waitFor("both deleted") { person in
                let deleted = person.events.filter { $0.type == .messageDeleted }.compactMap { $0.message?.id }
                return deleted.contains(first.id) && deleted.contains(extra.id)
            }
        }
    }

    @Test func aBotReadsAGroupsEarlierMessagesButARoomsOnlySinceItEntered() async throws {
        try await withServer { server in
            let bot = try await TelegramBot.create("helper", on: server)
            let alice = try await Person("alice", on: server)
            // A group: what was said before the bot joined is the group's history, its to read.
            let group = try await alice.client.send("POST", "/v1/groups", json: CreateConversationRequest(name: "ops"))
                .decode(ConversationInfo.self)
            let early = try await alice.send("said before the bot came", to: "group:ops")
            _ = try await alice.client.send("POST", "/v1/groups/ops/invites", json: ["user": "helper"])
            try await bot.ok("getUpdates")
            let copied = try await bot.call(
                "forwardMessage", ["chat_id": alice.user.id.rawValue, "from_chat_id": TelegramBot.chatID(of: group.id), "message_id": early.seq])
            #expect(copied.ok && copied.resultObject["text"] as? String == "said before the bot came", "\(copied.text)")

            // A room: only what was said while the bot is there.
            let room = try await alice.client.send("POST", "/v1/rooms", json: CreateConversationRequest(name: "lounge"))
                .decode(ConversationInfo.self)
            let before = try await alice.send("said before the bot entered", to: "room:lounge")
            let botClient = try await server.client.login("helper")
            let entered = try await botClient.send("POST", "/v1/rooms", json: CreateConversationRequest(name: "lounge"))
            #expect(entered.status == 200, "\(entered.text)")
            let after = try await alice.send("said while the bot is there", to: "room:lounge")
            let chat = TelegramBot.chatID(of: room.id)
            let refused = try await bot.call(
                "forwardMessage", ["chat_id": alice.user.id.rawValue, "from_chat_id": chat, "message_id": before.seq])
            #expect(refused.status == 400 && refused.description.contains("not found"), "\(refused.text)")
            let forwarded = try await bot.call(
                "forwardMessage", ["chat_id": alice.user.id.rawValue, "from_chat_id": chat, "message_id": after.seq])
            #expect(forwarded.ok && forwarded.resultObject["text"] as? String == "said while the bot is there", "\(forwarded.text)")
        }
    }

    @Test func chatsAndMembersAsTelegramDescribesThem() async throws {
        try await withGroup { server, bot, alice, group in
            let chat = TelegramBot.chatID(of: group)
            let info = try await bot.ok("getChat", ["chat_id": chat]).resultObject
            #expect(info["type"] as? String == "supergroup" && info["title"] as? String == "Operations")
            #expect(info["accent_color_id"] as? Int == 0 && info["max_reaction_count"] as? Int == 0)
            #expect(info["accepted_gift_types"] is [String: Any])
            let direct = try await bot.ok("getChat", ["chat_id": alice.user.id.rawValue]).resultObject
            #expect(direct["type"] as? String == "private" && direct["username"] as? String == "alice")
            let owner = try await bot.ok("getChatMember", ["chat_id": chat, "user_id": alice.user.id.rawValue]).resultObject
            #expect(owner["status"] as? String == "creator" && owner["is_anonymous"] as? Bool == false)
            let me = try await bot.ok("getChatMember", ["chat_id": chat, "user_id": bot.id]).resultObject
            #expect(me["status"] as? String == "member")
            let bob = try await Person("bob", on: server)
            let outsider = try await bot.ok("getChatMember", ["chat_id": chat, "user_id": bob.user.id.rawValue]).resultObject
            #expect(outsider["status"] as? String == "left")
            #expect(try await bot.ok("getChatMemberCount", ["chat_id": chat]).result as? Int == 2)
            let admins = try await bot.ok("getChatAdministrators", ["chat_id": chat]).resultList
            #expect(admins.compactMap { ($0["user"] as? [String: Any])?["username"] as? String } == ["alice"])
            // Not an admin yet: moderation is refused as Telegram refuses it.
            _ = try await alice.client.send("POST", "/v1/groups/ops/invites", json: ["user": "bob"])
            _ = try await bob.client.send("POST", "/v1/groups/ops/join")
            let refused = try await bot.call("banChatMember", ["chat_id": chat, "user_id": bob.user.id.rawValue])
            #expect(refused.status == 400 && refused.description.contains("not enough rights"), "\(refused.text)")
            try await moderate(alice, "promote", "helper")
            let admin = try await bot.ok("getChatMember", ["chat_id": chat, "user_id": bot.id]).resultObject
            #expect(admin["status"] as? String == "administrator" && admin["can_restrict_members"] as? Bool == true)
            let bobID = bob.user.id.rawValue
            try await bot.ok("restrictChatMember", ["chat_id": chat, "user_id": bobID, "permissions": ["can_send_messages": false]])
            let restricted = try await bot.ok("getChatMember", ["chat_id": chat, "user_id": bobID]).resultObject
            #expect(restricted["status"] as? String == "restricted" && restricted["can_send_messages"] as? Bool == false)
            #expect(restricted["until_date"] as? Int == 0)
            try await bot.ok("restrictChatMember", ["chat_id": chat, "user_id": bobID, "permissions": ["can_send_messages": true]])
            #expect(try await bot.ok("getChatMember", ["chat_id": chat, "user_id": bobID]).resultObject["status"] as? String == "member")
            let until = Int(Date().timeIntervalSince1970) + 3600
            try await bot.ok("banChatMember", ["chat_id": chat, "user_id": bobID, "until_date": until])
            let banned = try await bot.ok("getChatMember", ["chat_id": chat, "user_id": bobID]).resultObject
            #expect(banned["status"] as? String == "kicked")
            #expect(abs((banned["until_date"] as? Int ?? 0) - until) <= 2)
            try await bot.ok("unbanChatMember", ["chat_id": chat, "user_id": bobID, "only_if_banned": true])
            #expect(try await bot.ok("getChatMember", ["chat_id": chat, "user_id": bobID]).resultObject["status"] as? String == "left")
            // Only the owner promotes: the bot, an admin, may not.
            _ = try await bob.client.send("POST", "/v1/groups/ops/join")
            let promote = try await bot.call("promoteChatMember", ["chat_id": chat, "user_id": bobID, "can_delete_messages": true])
            #expect(promote.status == 400, "\(promote.text)")
            try await bot.ok("setChatTitle", ["chat_id": chat, "title": "Ops room"])
            try await bot.ok("setChatDescription", ["chat_id": chat, "description": "on call"])
            let renamed = try await alice.client.get("/v1/groups/ops").decode(ConversationInfo.self)
            #expect(renamed.title == "Ops room" && renamed.description == "on call")
            try await bot.ok("sendChatAction", ["chat_id": chat, "action": "typing"])
            try await bot.ok("leaveChat", ["chat_id": chat])
            let members = try await alice.client.get("/v1/groups/ops/members").decode(MemberList.self)
            #expect(!members.members.contains { $0.user.username == "helper" })
            let outside = try await bot.call("sendMessage", ["chat_id": chat, "text": "still here?"])
            #expect(outside.status == 403 || outside.status == 400, "\(outside.text)")
        }
    }

    @Test func commandsNamesAndDescriptionsAreKeptPerScopeAndLanguage() async throws {
        try await withServer { server in
            let bot = try await TelegramBot.create("helper", on: server)
            let commands = [["command": "start", "description": "begin"], ["command": "help", "description": "how"]]
            try await bot.ok("setMyCommands", ["commands": commands])
            try await bot.ok("setMyCommands", ["commands": [["command": "ban", "description": "ban someone"]],
                                               "scope": ["type": "all_chat_administrators"], "language_code": "de"])
            let general = try await bot.ok("getMyCommands").resultList
            #expect(general.compactMap { $0["command"] as? String } == ["start", "help"])
            let scoped = try await bot.ok("getMyCommands", ["scope": ["type": "all_chat_administrators"], "language_code": "de"]).resultList
            #expect(scoped.compactMap { $0["command"] as? String } == ["ban"])
            try await bot.ok("deleteMyCommands")
            #expect(try await bot.ok("getMyCommands").resultList.isEmpty)
            let invalid = try await bot.call("setMyCommands", ["commands": [["command": "Not Valid", "description": "x"]]])
            #expect(invalid.status == 400)
            try await bot.ok("setMyName", ["name": "Helper Bot"])
            #expect(try await bot.ok("getMyName").resultObject["name"] as? String == "Helper Bot")
            #expect(try await bot.ok("getMe").resultObject["first_name"] as? String == "Helper Bot")
            try await bot.ok("setMyDescription", ["description": "I help"])
            #expect(try await bot.ok("getMyDescription").resultObject["description"] as? String == "I help")
            try await bot.ok("setMyShortDescription", ["short_description": "helps"])
            #expect(try await bot.ok("getMyShortDescription").resultObject["short_description"] as? String == "helps")
            #expect(try await bot.ok("logOut").result as? Bool == true)
            #expect(try await bot.ok("close").result as? Bool == true)
            let query = try await bot.call("answerCallbackQuery", ["callback_query_id": "1"])
            #expect(query.status == 400)
        }
    }

    @Test func tokensAreIssuedAgainAndRevokedByAdministrators() async throws {
        try await withServer { server in
            let bot = try await TelegramBot.create("helper", on: server)
            let admin = try await server.localAdministrator()
            let reissued = try await admin.send("POST", "/v1/admin/users/helper/telegram-token")
            #expect(reissued.status == 201)
            let token = try #require(try reissued.decode(AdminUser.self).telegramToken)
            #expect(token.hasPrefix("\(bot.id):") && token != bot.token)
            // The old token ended with the new one.
            #expect(try await bot.call("getMe").status == 401)
            let current = TelegramBot(server: server, user: bot.user, token: token)
            try await current.ok("getMe")
            #expect(try await admin.send("DELETE", "/v1/admin/users/helper/telegram-token").status == 204)
            #expect(try await current.call("getMe").status == 401)
            #expect(try await admin.send("DELETE", "/v1/admin/users/helper/telegram-token").status == 404)
            // People have no Telegram token.
            _ = try await server.createAccount("alice")
            #expect(try await admin.send("POST", "/v1/admin/users/alice/telegram-token").status == 409)
        }
    }

    @Test func profilePhotosAreFilesTheBotDownloads() async throws {
        try await withServer { server in
            let bot = try await TelegramBot.create("helper", on: server)
            let alice = try await Person("alice", on: server)
            let none = try await bot.ok("getUserProfilePhotos", ["user_id": alice.user.id.rawValue]).resultObject
            #expect(none["total_count"] as? Int == 0)
            // A 1×1 PNG as alice's avatar.
            let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")!
            let uploaded = try await alice.client.send("PUT", "/v1/me/avatar", body: png, headers: [("Content-Type", "image/png")])
            #expect(uploaded.status == 200)
            let photos = try await bot.ok("getUserProfilePhotos", ["user_id": alice.user.id.rawValue]).resultObject
            let size = try #require((photos["photos"] as? [[[String: Any]]])?.first?.first)
            #expect(size["width"] as? Int == 1 && size["height"] as? Int == 1 && size["file_size"] as? Int == png.count)
            let fileID = try #require(size["file_id"] as? String)
            let file = try await bot.ok("getFile", ["file_id": fileID]).resultObject
            let path = try #require(file["file_path"] as? String)
            let download = try await TestClient.sharedTransport.send(
                TransportRequest(url: server.baseURL + "/file/bot\(bot.token)/\(path)"))
            #expect(download.status == 200 && download.body == png)
            let wrongToken = try await bot.raw("GET", "/file/bot\(bot.id):wrong/\(path)")
            #expect(wrongToken.status == 401)
            #expect(try await bot.call("getFile", ["file_id": "nope"]).status == 400)
        }
    }

    private func moderate(_ actor: Person, _ action: String, _ user: String) async throws {
        let answer = try await actor.client.send("POST", "/v1/groups/ops/moderation", json: ["action": action, "user": user])
        guard answer.status == 200 else { throw TestFailure("\(action) \(user): \(answer.status) \(answer.text)") }
    }
}

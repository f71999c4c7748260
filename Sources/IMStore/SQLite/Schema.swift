/// The schema's migrations, oldest first. Shipped versions are never edited; a change is
/// a new version.
public enum Schema {
    /// The newest version: this program refuses databases of a higher one.
    public static var latestVersion: Int { migrations.map(\.version).max() ?? 0 }

    public static let migrations: [Migration] = [
        Migration(
            version: 1, name: "accounts, conversations, messages, event feeds, media",
            sql: """
                CREATE TABLE meta (
                    key TEXT PRIMARY KEY,
                    value TEXT NOT NULL
                ) WITHOUT ROWID;

                CREATE TABLE users (
                    id INTEGER PRIMARY KEY,
                    username TEXT NOT NULL UNIQUE,
                    password_hash TEXT NOT NULL,
                    nickname TEXT NOT NULL,
                    avatar_url TEXT NOT NULL DEFAULT '',
                    signature TEXT NOT NULL DEFAULT '',
                    attrs TEXT NOT NULL DEFAULT '{}',
                    is_bot INTEGER NOT NULL DEFAULT 0,
                    is_admin INTEGER NOT NULL DEFAULT 0,
                    created_at INTEGER NOT NULL,
                    -- the highest feed position dropped by retention: older cursors get 410
                    feed_floor INTEGER NOT NULL DEFAULT 0
                );

                CREATE TABLE tokens (
                    id INTEGER PRIMARY KEY,
                    hash BLOB NOT NULL UNIQUE,
                    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    device TEXT,
                    created_at INTEGER NOT NULL,
                    expires_at INTEGER,
                    revoked_at INTEGER,
                    revoked_reason TEXT
                );
                CREATE INDEX tokens_by_user ON tokens(user_id, device);

                CREATE TABLE contacts (
                    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    contact_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    created_at INTEGER NOT NULL,
                    PRIMARY KEY (user_id, contact_id)
                ) WITHOUT ROWID;
                CREATE INDEX contacts_by_contact ON contacts(contact_id);

                CREATE TABLE conversations (
                    id INTEGER PRIMARY KEY,
                    kind TEXT NOT NULL CHECK (kind IN ('direct', 'group', 'room')),
                    -- groups and rooms: the unique name; direct: '<low user id>:<high user id>'
                    name TEXT NOT NULL,
                    title TEXT NOT NULL DEFAULT '',
                    logo_url TEXT NOT NULL DEFAULT '',
                    description TEXT NOT NULL DEFAULT '',
                    created_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
                    created_at INTEGER NOT NULL,
                    last_seq INTEGER NOT NULL DEFAULT 0,
                    last_message_id INTEGER,
                    updated_at INTEGER NOT NULL,
                    member_count INTEGER NOT NULL DEFAULT 0,
                    UNIQUE (kind, name)
                );

                -- group members, both sides of a direct conversation, people present in a room
                CREATE TABLE members (
                    conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    role TEXT NOT NULL DEFAULT 'member',
                    joined_at INTEGER NOT NULL,
                    last_read_seq INTEGER NOT NULL DEFAULT 0,
                    muted_until INTEGER,
                    PRIMARY KEY (conversation_id, user_id)
                ) WITHOUT ROWID;
                CREATE INDEX members_by_user ON members(user_id);

                CREATE TABLE messages (
                    id INTEGER PRIMARY KEY,
                    conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                    seq INTEGER NOT NULL,
                    type TEXT NOT NULL DEFAULT 'chat',
                    sender_id INTEGER NOT NULL,
                    text TEXT NOT NULL,
                    client_msg_id TEXT,
                    reply_to INTEGER,
                    created_at INTEGER NOT NULL,
                    deleted_at INTEGER,
                    UNIQUE (conversation_id, seq)
                );
                CREATE UNIQUE INDEX messages_by_client_id ON messages(sender_id, client_msg_id)
                    WHERE client_msg_id IS NOT NULL;

                -- each user's feed; positions come from one counter shared by all feeds
                CREATE TABLE events (
                    user_id INTEGER NOT NULL,
                    position INTEGER NOT NULL,
                    type TEXT NOT NULL,
                    conversation_id INTEGER,
                    message_id INTEGER,
                    payload TEXT,
                    created_at INTEGER NOT NULL,
                    PRIMARY KEY (user_id, position)
                ) WITHOUT ROWID;
                CREATE INDEX events_by_time ON events(created_at);

                CREATE TABLE media (
                    id TEXT PRIMARY KEY,
                    owner_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    content_type TEXT NOT NULL,
                    bytes BLOB NOT NULL,
                    created_at INTEGER NOT NULL
                ) WITHOUT ROWID;
                """),
        Migration(
            version: 2, name: "conversation events stored once, read through membership",
            sql: """
                -- Events of a conversation (messages, membership changes, new info), each
                -- stored once at one position that every member's feed shares.
                CREATE TABLE conversation_events (
                    position INTEGER PRIMARY KEY,
                    conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                    type TEXT NOT NULL,
                    message_id INTEGER,
                    payload TEXT,
                    created_at INTEGER NOT NULL
                );
                CREATE INDEX conversation_events_by_conversation ON conversation_events(conversation_id, position);

                -- A member reads the conversation's events from the position of their
                -- joining on. The default (never) keeps a member added by code that does not
                -- set it from reading anything from before their joining. Members of today
                -- read from the next position on: what they had is in their user_events.
                ALTER TABLE members ADD COLUMN joined_position INTEGER NOT NULL DEFAULT 9223372036854775807;
                UPDATE members SET joined_position =
                    coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'feed_position'), 0) + 1;

                -- Someone who left reads up to the position of their leaving, until retention
                -- has dropped what came before it.
                CREATE TABLE former_members (
                    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    left_position INTEGER NOT NULL,
                    conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                    joined_position INTEGER NOT NULL,
                    PRIMARY KEY (user_id, left_position, conversation_id)
                );

                -- Events of one user (read markers, profile changes, contacts), and, from
                -- before this version, every event of every feed with the positions it had:
                -- so every cursor handed out before still works, and those rows go with
                -- retention. (Its index keeps the name events_by_time: renaming it would mean
                -- building it again over every old row while the server waits to start.)
                ALTER TABLE events RENAME TO user_events;
                """),
        Migration(
            version: 3, name: "invite-only groups, invites, suspended and deleted accounts, login use, media hashes",
            sql: """
                -- groups: 'invite' (members add people) or 'open' (anyone may join); existing
                -- groups become invite-only. Rooms and direct conversations ignore it.
                ALTER TABLE conversations ADD COLUMN join_policy TEXT NOT NULL DEFAULT 'invite';

                CREATE TABLE invites (
                    conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    invited_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
                    created_at INTEGER NOT NULL,
                    PRIMARY KEY (conversation_id, user_id)
                ) WITHOUT ROWID;
                CREATE INDEX invites_by_user ON invites(user_id);

                -- a group without an owner gets one: its creator (back as a member if they
                -- left, reading from the next position on), else the first server administrator
                INSERT INTO members (conversation_id, user_id, role, joined_at, last_read_seq, joined_position)
                    SELECT c.id, c.created_by, 'owner', c.created_at, c.last_seq, coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'feed_position'), 0) + 1
                    FROM conversations c
                    WHERE c.kind = 'group' AND c.created_by IS NOT NULL
                        AND NOT EXISTS (SELECT 1 FROM members m WHERE m.conversation_id = c.id AND m.role = 'owner')
                    ON CONFLICT (conversation_id, user_id) DO UPDATE SET role = 'owner';
                INSERT INTO members (conversation_id, user_id, role, joined_at, last_read_seq, joined_position)
                    SELECT c.id, a.id, 'owner', c.created_at, c.last_seq,
                        coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'feed_position'), 0) + 1
                    FROM conversations c, (SELECT id FROM users WHERE is_admin = 1 ORDER BY id LIMIT 1) a
                    WHERE c.kind = 'group'
                        AND NOT EXISTS (SELECT 1 FROM members m WHERE m.conversation_id = c.id AND m.role = 'owner')
                    ON CONFLICT (conversation_id, user_id) DO UPDATE SET role = 'owner';
                UPDATE conversations SET member_count = (SELECT count(*) FROM members m WHERE m.conversation_id = conversations.id)
                    WHERE kind = 'group';

                -- suspended accounts cannot log in; deleted ones keep only their id and messages
                ALTER TABLE users ADD COLUMN suspended_at INTEGER;
                ALTER TABLE users ADD COLUMN deleted_at INTEGER;

                -- when a login was last used (written now and then, not per request)
                ALTER TABLE tokens ADD COLUMN last_used_at INTEGER;

                -- media: its size (for each account's budget) and hash (one copy of the same bytes)
                ALTER TABLE media ADD COLUMN size INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE media ADD COLUMN sha256 BLOB;
                UPDATE media SET size = length(bytes);
                CREATE INDEX media_by_owner ON media(owner_id, sha256);
                -- earlier uploads nothing shows any more (every avatar upload used to be kept)
                DELETE FROM media
                    WHERE NOT EXISTS (SELECT 1 FROM users WHERE avatar_url = '/v1/media/' || media.id)
                        AND NOT EXISTS (SELECT 1 FROM conversations WHERE logo_url = '/v1/media/' || media.id);
                """),
        Migration(
            version: 4, name: "groups with doors: edits, bans, join requests, blocks, group settings",
            sql: """
                -- when the sender last changed a message's text (NULL: never)
                ALTER TABLE messages ADD COLUMN edited_at INTEGER;

                -- group settings: whether newcomers may post ('full') or wait until an
                -- admin lets them ('restricted'); slow mode, in seconds between a member's
                -- posts (0: off); who may change title, logo and description ('admins' or
                -- 'members'). join_policy gains 'approval'. Rooms ignore all of them.
                ALTER TABLE conversations ADD COLUMN new_members TEXT NOT NULL DEFAULT 'full';
                ALTER TABLE conversations ADD COLUMN slow_mode INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE conversations ADD COLUMN info_editable_by TEXT NOT NULL DEFAULT 'admins';

                -- a newcomer kept from posting; when the member last posted (slow mode);
                -- the conversation's last seq when they joined: someone in a room reads
                -- only what was said after it (members of today read everything, as before)
                ALTER TABLE members ADD COLUMN restricted INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE members ADD COLUMN last_posted_at INTEGER;
                ALTER TABLE members ADD COLUMN joined_seq INTEGER NOT NULL DEFAULT 0;

                -- who may not join, be invited to or post in a group, until when (NULL: until unbanned)
                CREATE TABLE bans (
                    conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    banned_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
                    reason TEXT NOT NULL DEFAULT '',
                    until INTEGER,
                    created_at INTEGER NOT NULL,
                    PRIMARY KEY (conversation_id, user_id)
                ) WITHOUT ROWID;
                CREATE INDEX bans_by_user ON bans(user_id);

                -- people asking to join a group whose policy is 'approval'
                CREATE TABLE join_requests (
                    conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    created_at INTEGER NOT NULL,
                    PRIMARY KEY (conversation_id, user_id)
                ) WITHOUT ROWID;
                CREATE INDEX join_requests_by_user ON join_requests(user_id);

                -- user_id does not take one-to-one messages from blocked_id
                CREATE TABLE blocks (
                    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    blocked_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    created_at INTEGER NOT NULL,
                    PRIMARY KEY (user_id, blocked_id)
                ) WITHOUT ROWID;
                CREATE INDEX blocks_by_blocked ON blocks(blocked_id, user_id);
                """),
        Migration(
            version: 5, name: "bot runners' leases and journals",
            sql: """
                -- one row per bot account that a runner ever leased: who holds it (NULL once
                -- released) until when, its fencing number (grows by one each time the lease
                -- is taken afresh; every journal write names it), and the journal's snapshot
                -- and sizes. The server reads none of the journal's texts.
                CREATE TABLE bot_journals (
                    user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                    holder TEXT,
                    fence INTEGER NOT NULL DEFAULT 0,
                    expires_at INTEGER NOT NULL DEFAULT 0,
                    snapshot TEXT,
                    snapshot_bytes INTEGER NOT NULL DEFAULT 0,
                    record_bytes INTEGER NOT NULL DEFAULT 0
                );

                -- the records appended after the snapshot, in order
                CREATE TABLE bot_journal_records (
                    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    seq INTEGER NOT NULL,
                    data TEXT NOT NULL,
                    PRIMARY KEY (user_id, seq)
                ) WITHOUT ROWID;
                """),
        Migration(
            version: 6, name: "the sessions list's unread counts without visiting every unread message",
            sql: """
                -- the messages an unread count leaves out (system notices, deleted messages):
                -- the count is the numbers after a member's read marker less these
                CREATE INDEX messages_not_plain ON messages(conversation_id, seq)
                    WHERE type <> 'chat' OR deleted_at IS NOT NULL;
                """),
        Migration(
            version: 7, name: "what those who left may read of later edits; message quotas; journal records counted",
            sql: """
                -- the text (and edit time) a message showed before the edit at until_position:
                -- someone who left before that edit reads this one (the first version after
                -- their leaving), never what was written in later. A deletion drops them all.
                CREATE TABLE message_versions (
                    message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
                    until_position INTEGER NOT NULL,
                    text TEXT NOT NULL,
                    edited_at INTEGER,
                    PRIMARY KEY (message_id, until_position)
                ) WITHOUT ROWID;

                -- as members.joined_seq: someone who was in a room reads of its messages only
                -- those said after it, edits and deletions included
                ALTER TABLE former_members ADD COLUMN joined_seq INTEGER NOT NULL DEFAULT 0;
                CREATE INDEX former_members_by_conversation ON former_members(conversation_id, left_position);

                -- the message bytes an account stored on one day (days since 1970, UTC)
                CREATE TABLE message_quotas (
                    user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                    day INTEGER NOT NULL,
                    bytes INTEGER NOT NULL
                );

                -- a journal's records: how many, the newest number given (numbers never go
                -- back, so a paged read can go on from one), and the newest number a snapshot
                -- replaced; record_bytes now counts an overhead per record (BotJournalStore)
                ALTER TABLE bot_journals ADD COLUMN record_count INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE bot_journals ADD COLUMN last_seq INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE bot_journals ADD COLUMN compacted_through INTEGER NOT NULL DEFAULT 0;
                UPDATE bot_journals SET
                    record_count = (SELECT count(*) FROM bot_journal_records r WHERE r.user_id = bot_journals.user_id),
                    last_seq = coalesce((SELECT max(seq) FROM bot_journal_records r WHERE r.user_id = bot_journals.user_id), 0);
                UPDATE bot_journals SET record_bytes = record_bytes + 64 * record_count;
                """),
        Migration(
            version: 8, name: "bots that speak the Telegram Bot API",
            sql: """
                -- one row per bot account with a Telegram token: the first update id it has
                -- not confirmed (getUpdates' offset, or a webhook's delivery), its webhook
                -- (JSON; NULL while it polls) and its commands and names (JSON)
                CREATE TABLE telegram_bots (
                    user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                    acknowledged INTEGER NOT NULL,
                    webhook TEXT,
                    settings TEXT NOT NULL DEFAULT '{}'
                );
                """),
        Migration(
            version: 9, name: "notices: replies only one member of a conversation sees",
            sql: """
                -- a notice is an event of its recipient's feed (user_events, type 'notice', the
                -- notice in its payload), in nobody's history; this row gives it its id and
                -- answers a repeat of the sender's client id. It goes with its event.
                CREATE TABLE notices (
                    id INTEGER PRIMARY KEY,
                    conversation_id INTEGER NOT NULL,
                    sender_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    user_id INTEGER NOT NULL,
                    client_id TEXT NOT NULL,
                    text TEXT NOT NULL,
                    reply_to INTEGER,
                    created_at INTEGER NOT NULL,
                    UNIQUE (sender_id, client_id)
                );
                CREATE TRIGGER notices_go_with_their_events AFTER DELETE ON user_events
                WHEN old.type = 'notice'
                BEGIN
                    DELETE FROM notices WHERE id = CAST(json_extract(old.payload, '$.notice.id') AS INTEGER);
                END;
                """),
        Migration(
            version: 10, name: "a message's event found through the message, not an index entry of its own",
            sql: """
                -- the position of the message's own event ('message'), or NULL when it has
                -- none in conversation_events (a system message another event carries, a
                -- message from before version 2). Within a conversation the positions ascend
                -- with seq, so a member's feed finds a conversation's messages after a
                -- position through the messages' (conversation_id, seq) index, and a send
                -- no longer adds an entry of its own to the events' index by conversation
                -- (BENCHMARKS.md, "The floor under the store").
                ALTER TABLE messages ADD COLUMN position INTEGER;
                UPDATE messages SET position = e.position
                FROM conversation_events e WHERE e.message_id = messages.id AND e.type = 'message';
                DROP INDEX conversation_events_by_conversation;
                CREATE INDEX conversation_events_by_conversation ON conversation_events(conversation_id, position)
                    WHERE type <> 'message';
                """),
    ]
}

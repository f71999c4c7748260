/// The schema of a PostgreSQL store, as versioned migrations (applied by
/// `PostgresMigrator` under its advisory lock).
///
/// The tables are SQLite's (`Schema`) as they stand at its version 3, created in one
/// migration numbered 3 so that the two stores' versions stay the same from here on (a
/// change is a new version on both: version 4 is SQLite's version 4). Times are milliseconds since 1970 in `bigint`, as in
/// SQLite, so a database moves between the two unchanged (`SQLiteToPostgres`). Besides the
/// feed layout of docs/architecture.md it holds what several server nodes share: the feed
/// clock, the revocation log, poll claims and login throttling.
public enum PostgresSchema {
    public static let migrations: [Migration] = [
        Migration(
            version: 3, name: "accounts, conversations, messages, event feeds, media, invites; cluster coordination",
            sql: """
                CREATE TABLE meta (
                    key text PRIMARY KEY,
                    value text NOT NULL
                );

                -- Every feed position comes from this one row, taken last in each writing
                -- transaction (just before COMMIT): positions are handed out in commit order
                -- and without gaps, so a reader that has seen position n has seen all before it.
                CREATE TABLE feed_clock (
                    one_row boolean PRIMARY KEY DEFAULT true CHECK (one_row),
                    position bigint NOT NULL
                );
                INSERT INTO feed_clock (position) VALUES (0);

                CREATE TABLE users (
                    id bigserial PRIMARY KEY,
                    username text NOT NULL UNIQUE,
                    password_hash text NOT NULL,
                    nickname text NOT NULL,
                    avatar_url text NOT NULL DEFAULT '',
                    signature text NOT NULL DEFAULT '',
                    attrs text NOT NULL DEFAULT '{}',
                    is_bot boolean NOT NULL DEFAULT false,
                    is_admin boolean NOT NULL DEFAULT false,
                    created_at bigint NOT NULL,
                    -- the highest feed position dropped by retention: older cursors get 410
                    feed_floor bigint NOT NULL DEFAULT 0,
                    suspended_at bigint,
                    deleted_at bigint
                );

                CREATE TABLE tokens (
                    id bigserial PRIMARY KEY,
                    hash bytea NOT NULL UNIQUE,
                    user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    device text,
                    created_at bigint NOT NULL,
                    expires_at bigint,
                    revoked_at bigint,
                    revoked_reason text,
                    last_used_at bigint
                );
                CREATE INDEX tokens_by_user ON tokens(user_id, device);

                CREATE TABLE contacts (
                    user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    contact_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    created_at bigint NOT NULL,
                    PRIMARY KEY (user_id, contact_id)
                );
                CREATE INDEX contacts_by_contact ON contacts(contact_id);

                CREATE TABLE conversations (
                    id bigserial PRIMARY KEY,
                    kind text NOT NULL CHECK (kind IN ('direct', 'group', 'room')),
                    -- groups and rooms: the unique name; direct: '<low user id>:<high user id>'
                    name text NOT NULL,
                    title text NOT NULL DEFAULT '',
                    logo_url text NOT NULL DEFAULT '',
                    description text NOT NULL DEFAULT '',
                    created_by bigint REFERENCES users(id) ON DELETE SET NULL,
                    created_at bigint NOT NULL,
                    last_seq bigint NOT NULL DEFAULT 0,
                    last_message_id bigint,
                    updated_at bigint NOT NULL,
                    member_count bigint NOT NULL DEFAULT 0,
                    join_policy text NOT NULL DEFAULT 'invite',
                    UNIQUE (kind, name)
                );

                -- group members, both sides of a direct conversation, people present in a room;
                -- a member reads the conversation's events from joined_position on (the default,
                -- never, until the writing transaction sets the position it was handed)
                CREATE TABLE members (
                    conversation_id bigint NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                    user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    role text NOT NULL DEFAULT 'member',
                    joined_at bigint NOT NULL,
                    last_read_seq bigint NOT NULL DEFAULT 0,
                    muted_until bigint,
                    joined_position bigint NOT NULL DEFAULT 9223372036854775807,
                    PRIMARY KEY (conversation_id, user_id)
                );
                CREATE INDEX members_by_user ON members(user_id);

                -- someone who left reads up to the position of their leaving
                CREATE TABLE former_members (
                    user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    left_position bigint NOT NULL,
                    conversation_id bigint NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                    joined_position bigint NOT NULL,
                    PRIMARY KEY (user_id, left_position, conversation_id)
                );

                CREATE TABLE invites (
                    conversation_id bigint NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                    user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    invited_by bigint REFERENCES users(id) ON DELETE SET NULL,
                    created_at bigint NOT NULL,
                    PRIMARY KEY (conversation_id, user_id)
                );
                CREATE INDEX invites_by_user ON invites(user_id);

                CREATE TABLE messages (
                    id bigserial PRIMARY KEY,
                    conversation_id bigint NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                    seq bigint NOT NULL,
                    type text NOT NULL DEFAULT 'chat',
                    sender_id bigint NOT NULL,
                    text text NOT NULL,
                    client_msg_id text,
                    reply_to bigint,
                    created_at bigint NOT NULL,
                    deleted_at bigint,
                    UNIQUE (conversation_id, seq)
                );
                CREATE UNIQUE INDEX messages_by_client_id ON messages(sender_id, client_msg_id)
                    WHERE client_msg_id IS NOT NULL;

                -- events of a conversation, each stored once at the position every member's feed shares
                CREATE TABLE conversation_events (
                    position bigint PRIMARY KEY,
                    conversation_id bigint NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                    type text NOT NULL,
                    message_id bigint,
                    payload text,
                    created_at bigint NOT NULL
                );
                CREATE INDEX conversation_events_by_conversation ON conversation_events(conversation_id, position);

                -- events of one user (read markers, profile changes, contacts), and rows a
                -- SQLite database of schema version 1 brought along
                CREATE TABLE user_events (
                    user_id bigint NOT NULL,
                    position bigint NOT NULL,
                    type text NOT NULL,
                    conversation_id bigint,
                    message_id bigint,
                    payload text,
                    created_at bigint NOT NULL,
                    PRIMARY KEY (user_id, position)
                );
                CREATE INDEX events_by_time ON user_events(created_at);

                CREATE TABLE media (
                    id text PRIMARY KEY,
                    owner_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    content_type text NOT NULL,
                    bytes bytea NOT NULL,
                    created_at bigint NOT NULL,
                    size bigint NOT NULL DEFAULT 0,
                    sha256 bytea
                );
                CREATE INDEX media_by_owner ON media(owner_id, sha256);

                -- Ended logins and accounts, numbered from one row taken last in the writing
                -- transaction (like feed_clock): every node reads the entries after the last
                -- it applied before it trusts a login it has cached.
                CREATE TABLE revocation_clock (
                    one_row boolean PRIMARY KEY DEFAULT true CHECK (one_row),
                    epoch bigint NOT NULL
                );
                INSERT INTO revocation_clock (epoch) VALUES (0);
                CREATE TABLE revocations (
                    epoch bigint PRIMARY KEY,
                    token_id bigint,
                    user_id bigint,
                    created_at bigint NOT NULL
                );

                -- The node whose event poll of a login is the current one: a claim on another
                -- node raises the generation and ends the older poll (409).
                CREATE TABLE poll_claims (
                    token_id bigint PRIMARY KEY,
                    generation bigint NOT NULL,
                    node text NOT NULL,
                    claimed_at bigint NOT NULL
                );

                -- Login throttling shared by every node (LoginThrottle): failures, checks in
                -- flight and lock-outs per (account, address), address and account.
                CREATE TABLE login_counters (
                    scope text NOT NULL,
                    key text NOT NULL,
                    failures bigint NOT NULL DEFAULT 0,
                    pending bigint NOT NULL DEFAULT 0,
                    first_failure bigint NOT NULL DEFAULT 0,
                    locked_until bigint NOT NULL DEFAULT 0,
                    pending_since bigint NOT NULL DEFAULT 0,
                    PRIMARY KEY (scope, key)
                );
                -- addresses each account logged in from lately
                CREATE TABLE login_trust (
                    username text NOT NULL,
                    address text NOT NULL,
                    at bigint NOT NULL,
                    PRIMARY KEY (username, address)
                );
                """),
        Migration(
            version: 4, name: "groups with doors: edits, bans, join requests, blocks, group settings",
            sql: """
                -- as SQLite's version 4 (Schema.swift says what each column means)
                ALTER TABLE messages ADD COLUMN edited_at bigint;

                ALTER TABLE conversations ADD COLUMN new_members text NOT NULL DEFAULT 'full';
                ALTER TABLE conversations ADD COLUMN slow_mode bigint NOT NULL DEFAULT 0;
                ALTER TABLE conversations ADD COLUMN info_editable_by text NOT NULL DEFAULT 'admins';

                ALTER TABLE members ADD COLUMN restricted boolean NOT NULL DEFAULT false;
                ALTER TABLE members ADD COLUMN last_posted_at bigint;
                ALTER TABLE members ADD COLUMN joined_seq bigint NOT NULL DEFAULT 0;

                CREATE TABLE bans (
                    conversation_id bigint NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                    user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    banned_by bigint REFERENCES users(id) ON DELETE SET NULL,
                    reason text NOT NULL DEFAULT '',
                    until bigint,
                    created_at bigint NOT NULL,
                    PRIMARY KEY (conversation_id, user_id)
                );
                CREATE INDEX bans_by_user ON bans(user_id);

                CREATE TABLE join_requests (
                    conversation_id bigint NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                    user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    created_at bigint NOT NULL,
                    PRIMARY KEY (conversation_id, user_id)
                );
                CREATE INDEX join_requests_by_user ON join_requests(user_id);

                CREATE TABLE blocks (
                    user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    blocked_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    created_at bigint NOT NULL,
                    PRIMARY KEY (user_id, blocked_id)
                );
                CREATE INDEX blocks_by_blocked ON blocks(blocked_id, user_id);
                """),
        Migration(
            version: 5, name: "bot runners' leases and journals",
            sql: """
                -- as SQLite's version 5 (Schema.swift says what each column means)
                CREATE TABLE bot_journals (
                    user_id bigint PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                    holder text,
                    fence bigint NOT NULL DEFAULT 0,
                    expires_at bigint NOT NULL DEFAULT 0,
                    snapshot text,
                    snapshot_bytes bigint NOT NULL DEFAULT 0,
                    record_bytes bigint NOT NULL DEFAULT 0
                );

                CREATE TABLE bot_journal_records (
                    user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    seq bigint NOT NULL,
                    data text NOT NULL,
                    PRIMARY KEY (user_id, seq)
                );
                """),
        Migration(
            version: 6, name: "the sessions list's unread counts without visiting every unread message",
            sql: """
                -- as SQLite's version 6
                CREATE INDEX messages_not_plain ON messages(conversation_id, seq)
                    WHERE type <> 'chat' OR deleted_at IS NOT NULL;
                """),
        Migration(
            version: 7,
            name: "what those who left may read of later edits; message quotas; journal records counted; the cluster channel closed to strangers",
            sql: """
                -- as SQLite's version 7 (Schema.swift says what each column means)
                CREATE TABLE message_versions (
                    message_id bigint NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
                    until_position bigint NOT NULL,
                    text text NOT NULL,
                    edited_at bigint,
                    PRIMARY KEY (message_id, until_position)
                );
                ALTER TABLE former_members ADD COLUMN joined_seq bigint NOT NULL DEFAULT 0;
                CREATE INDEX former_members_by_conversation ON former_members(conversation_id, left_position);
                CREATE TABLE message_quotas (
                    user_id bigint PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                    day bigint NOT NULL,
                    bytes bigint NOT NULL
                );
                ALTER TABLE bot_journals ADD COLUMN record_count bigint NOT NULL DEFAULT 0,
                    ADD COLUMN last_seq bigint NOT NULL DEFAULT 0,
                    ADD COLUMN compacted_through bigint NOT NULL DEFAULT 0;
                UPDATE bot_journals j SET record_count = r.n, last_seq = r.last, record_bytes = j.record_bytes + 64 * r.n
                FROM (SELECT user_id, count(*) AS n, max(seq) AS last FROM bot_journal_records GROUP BY user_id) r
                WHERE r.user_id = j.user_id;

                -- A node hears of another's commit as a hint and reads what it committed from
                -- the tables (PostgresClusterFeed): the users' own events by position.
                CREATE INDEX user_events_by_position ON user_events(position);

                -- Any role that may connect may also send on the nodes' channel (NOTIFY needs no
                -- grant), and read it: only the roles granted CONNECT may connect from now on.
                -- The role migrating keeps it; docs/operations.md says what the nodes' role needs.
                -- A role that does not own the database cannot change who may connect: then
                -- the nodes warn at every start until its owner does.
                DO $do$
                BEGIN
                    IF pg_has_role(current_user, (SELECT datdba FROM pg_database WHERE datname = current_database()), 'MEMBER')
                    THEN
                        EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), current_user);
                        EXECUTE format('REVOKE CONNECT ON DATABASE %I FROM PUBLIC', current_database());
                    END IF;
                END
                $do$;
                """),
        Migration(
            version: 8, name: "bots that speak the Telegram Bot API",
            sql: """
                -- as SQLite's version 8
                CREATE TABLE telegram_bots (
                    user_id bigint PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                    acknowledged bigint NOT NULL,
                    webhook text,
                    settings text NOT NULL DEFAULT '{}'
                );
                """),
        Migration(
            version: 9, name: "notices: replies only one member of a conversation sees",
            sql: """
                -- as SQLite's version 9 (Schema.swift says what the table holds)
                CREATE TABLE notices (
                    id bigserial PRIMARY KEY,
                    conversation_id bigint NOT NULL,
                    sender_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    user_id bigint NOT NULL,
                    client_id text NOT NULL,
                    text text NOT NULL,
                    reply_to bigint,
                    created_at bigint NOT NULL,
                    UNIQUE (sender_id, client_id)
                );
                CREATE FUNCTION notices_go_with_their_events() RETURNS trigger LANGUAGE plpgsql AS $fn$
                BEGIN
                    DELETE FROM notices WHERE id = (OLD.payload::json -> 'notice' ->> 'id')::bigint;
                    RETURN NULL;
                END
                $fn$;
                CREATE TRIGGER notices_go_with_their_events AFTER DELETE ON user_events
                FOR EACH ROW WHEN (OLD.type = 'notice') EXECUTE FUNCTION notices_go_with_their_events();
                """),
        Migration(
            version: 10, name: "a message's event found through the message, not an index entry of its own",
            sql: """
                -- SQLite's version 10 changes how its one writer stores a message's event
                -- (Schema.swift). PostgreSQL numbers events when a batch commits, after its
                -- messages are written, and reads them through the whole index: nothing
                -- changes here; the version keeps the two engines' numbers in step.
                SELECT 1;
                """),
    ]
}

-- made by make-feed-v1.py with a server of schema version 1
BEGIN TRANSACTION;
CREATE TABLE contacts (
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    contact_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, contact_id)
) WITHOUT ROWID;
INSERT INTO "contacts" VALUES(1,2,1796112133650);
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
INSERT INTO "conversations" VALUES(1,'direct','1:2','','','',NULL,1796112133453,3,3,1796112133502,2);
INSERT INTO "conversations" VALUES(2,'group','ops','Operations','','',1,1796112133516,10,19,1796112133647,3);
INSERT INTO "conversations" VALUES(3,'room','lobby','','','',4,1796112133612,7,20,1796112133652,2);
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
INSERT INTO "events" VALUES(1,1,'message',1,1,NULL,1796112133461);
INSERT INTO "events" VALUES(1,3,'message',1,2,NULL,1796112133482);
INSERT INTO "events" VALUES(1,5,'message',1,3,NULL,1796112133502);
INSERT INTO "events" VALUES(1,7,'member_joined',2,4,'{"user":{"attrs":{},"avatar_url":"","created_at":"2026-12-01T08:02:13.237Z","id":"1","is_bot":false,"nickname":"alice","signature":"","username":"alice"}}',1796112133516);
INSERT INTO "events" VALUES(1,8,'member_joined',2,5,'{"user":{"attrs":{},"avatar_url":"","created_at":"2026-12-01T08:02:13.277Z","id":"2","is_bot":false,"nickname":"bob","signature":"","username":"bob"}}',1796112133531);
INSERT INTO "events" VALUES(1,10,'member_joined',2,6,'{"user":{"attrs":{},"avatar_url":"","created_at":"2026-12-01T08:02:13.336Z","id":"3","is_bot":false,"nickname":"carol","signature":"","username":"carol"}}',1796112133543);
INSERT INTO "events" VALUES(1,13,'message',2,7,NULL,1796112133558);
INSERT INTO "events" VALUES(1,16,'message',2,8,NULL,1796112133566);
INSERT INTO "events" VALUES(1,19,'member_left',2,9,'{"user":{"attrs":{},"avatar_url":"","created_at":"2026-12-01T08:02:13.277Z","id":"2","is_bot":false,"nickname":"bob","signature":"","username":"bob"}}',1796112133574);
INSERT INTO "events" VALUES(1,22,'message',2,10,NULL,1796112133581);
INSERT INTO "events" VALUES(1,24,'member_joined',2,11,'{"user":{"attrs":{},"avatar_url":"","created_at":"2026-12-01T08:02:13.277Z","id":"2","is_bot":false,"nickname":"bob","signature":"","username":"bob"}}',1796112133597);
INSERT INTO "events" VALUES(1,27,'message',2,12,NULL,1796112133602);
INSERT INTO "events" VALUES(1,31,'member_joined',3,14,'{"user":{"attrs":{},"avatar_url":"","created_at":"2026-12-01T08:02:13.237Z","id":"1","is_bot":false,"nickname":"alice","signature":"","username":"alice"}}',1796112133630);
INSERT INTO "events" VALUES(1,33,'message',3,15,NULL,1796112133641);
INSERT INTO "events" VALUES(1,35,'member_left',3,16,'{"user":{"attrs":{},"avatar_url":"","created_at":"2026-12-01T08:02:13.237Z","id":"1","is_bot":false,"nickname":"alice","signature":"","username":"alice"}}',1796112133642);
INSERT INTO "events" VALUES(1,40,'conversation_updated',2,19,'{"by":"alice","info":{"created_at":"2026-12-01T08:02:13.516Z","created_by":"alice","description":"","id":"2","kind":"group","logo_url":"","member_count":3,"name":"ops","title":"Operations"}}',1796112133647);
INSERT INTO "events" VALUES(1,44,'contact_added',NULL,NULL,'{"by":"alice","user":{"attrs":{},"avatar_url":"","created_at":"2026-12-01T08:02:13.277Z","id":"2","is_bot":false,"nickname":"bob","signature":"on call","username":"bob"}}',1796112133650);
INSERT INTO "events" VALUES(2,2,'message',1,1,NULL,1796112133461);
INSERT INTO "events" VALUES(2,4,'message',1,2,NULL,1796112133482);
INSERT INTO "events" VALUES(2,6,'message',1,3,NULL,1796112133502);
INSERT INTO "events" VALUES(2,9,'member_joined',2,5,'{"user":{"attrs":{},"avatar_url":"","created_at":"2026-12-01T08:02:13.277Z","id":"2","is_bot":false,"nickname":"bob","signature":"","username":"bob"}}',1796112133531);
INSERT INTO "events" VALUES(2,11,'member_joined',2,6,'{"user":{"attrs":{},"avatar_url":"","created_at":"2026-12-01T08:02:13.336Z","id":"3","is_bot":false,"nickname":"carol","signature":"","username":"carol"}}',1796112133543);
INSERT INTO "events" VALUES(2,14,'message',2,7,NULL,1796112133558);
INSERT INTO "events" VALUES(2,17,'message',2,8,NULL,1796112133566);
INSERT INTO "events" VALUES(2,20,'member_left',2,9,'{"user":{"attrs":{},"avatar_url":"","created_at":"2026-12-01T08:02:13.277Z","id":"2","is_bot":false,"nickname":"bob","signature":"","username":"bob"}}',1796112133574);
INSERT INTO "events" VALUES(2,25,'member_joined',2,11,'{"user":{"attrs":{},"avatar_url":"","created_at":"2026-12-01T08:02:13.277Z","id":"2","is_bot":false,"nickname":"bob","signature":"","username":"bob"}}',1796112133597);
INSERT INTO "events" VALUES(2,28,'message',2,12,NULL,1796112133602);
INSERT INTO "events" VALUES(2,41,'conversation_updated',2,19,'{"by":"alice","info":{"created_at":"2026-12-01T08:02:13.516Z","created_by":"alice","description":"","id":"2","kind":"group","logo_url":"","member_count":3,"name":"ops","title":"Operations"}}',1796112133647);
INSERT INTO "events" VALUES(2,43,'profile_updated',NULL,NULL,'{"user":{"attrs":{},"avatar_url":"","created_at":"2026-12-01T08:02:13.277Z","id":"2","is_bot":false,"nickname":"bob","signature":"on call","username":"bob"}}',1796112133649);
INSERT INTO "events" VALUES(2,45,'contact_added',NULL,NULL,'{"by":"alice","user":{"attrs":{},"avatar_url":"","created_at":"2026-12-01T08:02:13.237Z","id":"1","is_bot":false,"nickname":"alice","signature":"","username":"alice"}}',1796112133650);
INSERT INTO "events" VALUES(3,12,'member_joined',2,6,'{"user":{"attrs":{},"avatar_url":"","created_at":"2026-12-01T08:02:13.336Z","id":"3","is_bot":false,"nickname":"carol","signature":"","username":"carol"}}',1796112133543);
INSERT INTO "events" VALUES(3,15,'message',2,7,NULL,1796112133558);
INSERT INTO "events" VALUES(3,18,'message',2,8,NULL,1796112133566);
INSERT INTO "events" VALUES(3,21,'member_left',2,9,'{"user":{"attrs":{},"avatar_url":"","created_at":"2026-12-01T08:02:13.277Z","id":"2","is_bot":false,"nickname":"bob","signature":"","username":"bob"}}',1796112133574);
INSERT INTO "events" VALUES(3,23,'message',2,10,NULL,1796112133581);
INSERT INTO "events" VALUES(3,26,'member_joined',2,11,'{"user":{"attrs":{},"avatar_url":"","created_at":"2026-12-01T08:02:13.277Z","id":"2","is_bot":false,"nickname":"bob","signature":"","username":"bob"}}',1796112133597);
INSERT INTO "events" VALUES(3,29,'message',2,12,NULL,1796112133602);
INSERT INTO "events" VALUES(3,42,'conversation_updated',2,19,'{"by":"alice","info":{"created_at":"2026-12-01T08:02:13.516Z","created_by":"alice","description":"","id":"2","kind":"group","logo_url":"","member_count":3,"name":"ops","title":"Operations"}}',1796112133647);
INSERT INTO "events" VALUES(4,30,'member_joined',3,13,'{"user":{"attrs":{},"avatar_url":"","created_at":"2026-12-01T08:02:13.409Z","id":"4","is_bot":false,"nickname":"dave","signature":"","username":"dave"}}',1796112133612);
INSERT INTO "events" VALUES(4,32,'member_joined',3,14,'{"user":{"attrs":{},"avatar_url":"","created_at":"2026-12-01T08:02:13.237Z","id":"1","is_bot":false,"nickname":"alice","signature":"","username":"alice"}}',1796112133630);
INSERT INTO "events" VALUES(4,34,'message',3,15,NULL,1796112133641);
INSERT INTO "events" VALUES(4,36,'member_left',3,16,'{"user":{"attrs":{},"avatar_url":"","created_at":"2026-12-01T08:02:13.237Z","id":"1","is_bot":false,"nickname":"alice","signature":"","username":"alice"}}',1796112133642);
INSERT INTO "events" VALUES(4,37,'message',3,17,NULL,1796112133644);
INSERT INTO "events" VALUES(4,38,'member_joined',3,18,'{"user":{"attrs":{},"avatar_url":"","created_at":"2026-12-01T08:02:13.421Z","id":"5","is_bot":false,"nickname":"erin","signature":"","username":"erin"}}',1796112133645);
INSERT INTO "events" VALUES(4,46,'message',3,20,NULL,1796112133652);
INSERT INTO "events" VALUES(5,39,'member_joined',3,18,'{"user":{"attrs":{},"avatar_url":"","created_at":"2026-12-01T08:02:13.421Z","id":"5","is_bot":false,"nickname":"erin","signature":"","username":"erin"}}',1796112133645);
INSERT INTO "events" VALUES(5,47,'message',3,20,NULL,1796112133652);
CREATE TABLE media (
    id TEXT PRIMARY KEY,
    owner_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    content_type TEXT NOT NULL,
    bytes BLOB NOT NULL,
    created_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE members (
    conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    role TEXT NOT NULL DEFAULT 'member',
    joined_at INTEGER NOT NULL,
    last_read_seq INTEGER NOT NULL DEFAULT 0,
    muted_until INTEGER,
    PRIMARY KEY (conversation_id, user_id)
) WITHOUT ROWID;
INSERT INTO "members" VALUES(1,1,'member',1796112133453,2,NULL);
INSERT INTO "members" VALUES(1,2,'member',1796112133453,3,NULL);
INSERT INTO "members" VALUES(2,1,'owner',1796112133516,7,NULL);
INSERT INTO "members" VALUES(2,2,'member',1796112133597,7,NULL);
INSERT INTO "members" VALUES(2,3,'member',1796112133543,9,NULL);
INSERT INTO "members" VALUES(3,4,'member',1796112133612,5,NULL);
INSERT INTO "members" VALUES(3,5,'member',1796112133645,7,NULL);
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
INSERT INTO "messages" VALUES(1,1,1,'chat',1,'hi bob',NULL,NULL,1796112133461,NULL);
INSERT INTO "messages" VALUES(2,1,2,'chat',1,'are you there?',NULL,NULL,1796112133482,NULL);
INSERT INTO "messages" VALUES(3,1,3,'chat',2,'here',NULL,NULL,1796112133502,NULL);
INSERT INTO "messages" VALUES(4,2,1,'system',1,'alice created the group',NULL,NULL,1796112133516,NULL);
INSERT INTO "messages" VALUES(5,2,2,'system',2,'bob joined the group',NULL,NULL,1796112133531,NULL);
INSERT INTO "messages" VALUES(6,2,3,'system',3,'carol joined the group',NULL,NULL,1796112133543,NULL);
INSERT INTO "messages" VALUES(7,2,4,'chat',1,'welcome',NULL,NULL,1796112133558,NULL);
INSERT INTO "messages" VALUES(8,2,5,'chat',3,'thanks',NULL,NULL,1796112133566,NULL);
INSERT INTO "messages" VALUES(9,2,6,'system',2,'bob left the group',NULL,NULL,1796112133574,NULL);
INSERT INTO "messages" VALUES(10,2,7,'chat',1,'after bob left',NULL,NULL,1796112133581,NULL);
INSERT INTO "messages" VALUES(11,2,8,'system',2,'bob joined the group',NULL,NULL,1796112133597,NULL);
INSERT INTO "messages" VALUES(12,2,9,'chat',3,'bob is back',NULL,NULL,1796112133602,NULL);
INSERT INTO "messages" VALUES(13,3,1,'system',4,'dave created the room',NULL,NULL,1796112133612,NULL);
INSERT INTO "messages" VALUES(14,3,2,'system',1,'alice entered the room',NULL,NULL,1796112133630,NULL);
INSERT INTO "messages" VALUES(15,3,3,'chat',4,'anyone here?',NULL,NULL,1796112133641,NULL);
INSERT INTO "messages" VALUES(16,3,4,'system',1,'alice left the room',NULL,NULL,1796112133642,NULL);
INSERT INTO "messages" VALUES(17,3,5,'chat',4,'alone now',NULL,NULL,1796112133644,NULL);
INSERT INTO "messages" VALUES(18,3,6,'system',5,'erin entered the room',NULL,NULL,1796112133645,NULL);
INSERT INTO "messages" VALUES(19,2,10,'system',1,'alice changed the group info',NULL,NULL,1796112133647,NULL);
INSERT INTO "messages" VALUES(20,3,7,'chat',5,'hello dave',NULL,NULL,1796112133652,NULL);
CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
INSERT INTO "meta" VALUES('epoch','4q2h98');
INSERT INTO "meta" VALUES('feed_position','47');
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
INSERT INTO "tokens" VALUES(1,X'C4456D9099DCA996E18F4F1E2E896AF5600B6A372E15469DD2474E0B7BE848CB',1,NULL,1796112133262,1798704133261,NULL,NULL);
INSERT INTO "tokens" VALUES(2,X'733CBBFEC23BB1219121CE6DAECACFFEFD74BFF9A502A02CB3C9952440F11BE7',2,NULL,1796112133281,1798704133281,NULL,NULL);
INSERT INTO "tokens" VALUES(3,X'E898CACD4CF5CDFEA5C5DFE3975317DCB6A03857B06C922A2C07CFE4DA7DEE7C',3,NULL,1796112133353,1798704133353,NULL,NULL);
INSERT INTO "tokens" VALUES(4,X'1D399E299608004B7346AD471503EDD23085F99BE41099BDCFFD85F629325C11',4,NULL,1796112133413,1798704133413,NULL,NULL);
INSERT INTO "tokens" VALUES(5,X'DF68EF6A904483B836FCFF07221DF8B0332AF155F90864F68435BCBD9FB8BACE',5,NULL,1796112133429,1798704133429,NULL,NULL);
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
INSERT INTO "users" VALUES(1,'alice','$argon2id$v=19$m=256,t=1,p=1$HMCJ21/mqZ4pRe2DZt6ugA$abTXP45pGOi1qrAHb24l9U2eA1/uhH79Gx1p5jqSwzg','alice','','','{}',0,0,1796112133237,0);
INSERT INTO "users" VALUES(2,'bob','$argon2id$v=19$m=256,t=1,p=1$e14B0mXG5uYrq3kTh1H3sg$vNDwJ92s7KZMbs9NdkV8YCbMOXVIeAk64PDdQNZuxUg','bob','','on call','{}',0,0,1796112133277,0);
INSERT INTO "users" VALUES(3,'carol','$argon2id$v=19$m=256,t=1,p=1$gKDoxxIwcUNEac4f5maCRg$oIlxjQ2OXDvd5K1/XTA9qZ20+lUq896a2+eIGc6Fesg','carol','','','{}',0,0,1796112133336,0);
INSERT INTO "users" VALUES(4,'dave','$argon2id$v=19$m=256,t=1,p=1$PbmLThAR8yrv/R1QCD1Y5A$8olIwLWW9q8QNKkARwqZ/jX1VyaelBPHQUxxx9ZxTsw','dave','','','{}',0,0,1796112133409,0);
INSERT INTO "users" VALUES(5,'erin','$argon2id$v=19$m=256,t=1,p=1$+C5vmc0HYpsQG7tbyDMRtw$vixpDg0KhY44B9Dxf3lw14KpujIR/xqwUxiS+mY6yVo','erin','','','{}',0,0,1796112133421,0);
CREATE INDEX tokens_by_user ON tokens(user_id, device);
CREATE INDEX contacts_by_contact ON contacts(contact_id);
CREATE INDEX members_by_user ON members(user_id);
CREATE UNIQUE INDEX messages_by_client_id ON messages(sender_id, client_msg_id)
    WHERE client_msg_id IS NOT NULL;
CREATE INDEX events_by_time ON events(created_at);
COMMIT;
PRAGMA user_version = 1;

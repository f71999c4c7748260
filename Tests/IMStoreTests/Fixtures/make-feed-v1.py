#!/usr/bin/env python3
"""Makes feed-v1.sql and feed-v1.json: a database written by a server of schema version 1
(one feed row per recipient), and what its feeds answered from each cursor taken.

    make-feed-v1.py PATH-TO-SWITCHBOARD-OF-SCHEMA-1 OUTPUT-FOLDER

The migration test (FeedMigrationTests) loads the dump, opens it with the current store
and checks that every cursor reads exactly the events the old server answered.
"""
import json, os, shutil, socket, sqlite3, subprocess, sys, tempfile, time, urllib.request

binary, out = sys.argv[1], sys.argv[2]
work = tempfile.mkdtemp(prefix="feed-v1-")
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
config = os.path.join(work, "config.yaml")
with open(config, "w") as f:
    f.write(f"""log_level: warning
server:
  listen: 127.0.0.1:{port}
  data: {work}/data
  durability: full
  password_hashing: {{ memory_kib: 256, iterations: 1 }}
  rate_limits: {{ enabled: false }}
""")
server = subprocess.Popen([binary, "serve", "--config", config])
base = f"http://127.0.0.1:{port}"


def call(method, path, token=None, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(request) as response:
        text = response.read()
        return json.loads(text) if text else None


for _ in range(200):
    try:
        call("GET", "/healthz")
        break
    except Exception:
        time.sleep(0.05)

tokens, ids, cursors = {}, {}, []
for name in ["alice", "bob", "carol", "dave", "erin"]:
    answer = call("POST", "/v1/register", body={"username": name, "password": "fixture password"})
    tokens[name], ids[name] = answer["token"], int(answer["user"]["id"])


def cursor(name):
    cursors.append((name, call("GET", "/v1/events", tokens[name])["cursor"]))


def send(name, address, text):
    call("POST", f"/v1/conversations/{address}/messages", tokens[name], {"text": text})


for name in tokens:
    cursor(name)
send("alice", "user:bob", "hi bob")
send("alice", "user:bob", "are you there?")
send("bob", "user:alice", "here")
call("POST", "/v1/groups", tokens["alice"], {"name": "ops"})
call("POST", "/v1/groups/ops/join", tokens["bob"])
cursor("bob")
call("POST", "/v1/groups/ops/join", tokens["carol"])
send("alice", "group:ops", "welcome")
send("carol", "group:ops", "thanks")
call("POST", "/v1/groups/ops/leave", tokens["bob"])
send("alice", "group:ops", "after bob left")
cursor("bob")
cursor("carol")
call("POST", "/v1/groups/ops/join", tokens["bob"])
send("carol", "group:ops", "bob is back")
call("POST", "/v1/rooms", tokens["dave"], {"name": "lobby"})
call("POST", "/v1/rooms/lobby/enter", tokens["alice"])
send("dave", "room:lobby", "anyone here?")
call("POST", "/v1/rooms/lobby/leave", tokens["alice"])
send("dave", "room:lobby", "alone now")
call("POST", "/v1/rooms/lobby/enter", tokens["erin"])
cursor("erin")
call("PATCH", "/v1/groups/ops", tokens["alice"], {"title": "Operations"})
call("PATCH", "/v1/me", tokens["bob"], {"signature": "on call"})
call("PUT", "/v1/contacts/bob", tokens["alice"])
call("POST", "/v1/conversations/user:alice/read", tokens["bob"], {"seq": 2})
send("erin", "room:lobby", "hello dave")
for name in tokens:
    cursor(name)

# Every cursor taken, and every cursor a client paging two events at a time is handed.
checks, seen = [], set()
for name, start in cursors:
    page = start
    while (name, page) not in seen:
        seen.add((name, page))
        answer = call("GET", f"/v1/events?cursor={page}&timeout=0&limit=1000", tokens[name])
        checks.append({"user": name, "cursor": page, "events": [
            {"position": e["position"], "type": e["type"],
             "address": e.get("conversation", {}).get("address"),
             "message_id": e.get("message", {}).get("id"), "text": e.get("message", {}).get("text"),
             "user": e.get("user", {}).get("username"), "seq": e.get("seq")}
            for e in answer["events"]]})
        page = call("GET", f"/v1/events?cursor={page}&timeout=0&limit=2", tokens[name])["cursor"]

server.terminate()
server.wait()
database = sqlite3.connect(os.path.join(work, "data", "switchboard.sqlite"))
version = database.execute("PRAGMA user_version").fetchone()[0]
with open(os.path.join(out, "feed-v1.sql"), "w") as f:
    f.write(f"-- made by make-feed-v1.py with a server of schema version {version}\n")
    for line in database.iterdump():
        f.write(line + "\n")
    f.write(f"PRAGMA user_version = {version};\n")
with open(os.path.join(out, "feed-v1.json"), "w") as f:
    json.dump({"ids": ids, "checks": checks}, f, indent=1, sort_keys=True)
    f.write("\n")
shutil.rmtree(work)

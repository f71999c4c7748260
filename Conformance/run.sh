#!/usr/bin/env bash
# API conformance: schemathesis (from .venv-conformance, made by `make conformance`)
# against docs/openapi.yaml and a real `switchboard serve` on loopback.
#
#   Conformance/run.sh [EXAMPLES]     test cases per operation and phase (default 30)
#
# Six runs, so that no run ends what the next requests need: every operation but the
# administration, leaving, ending logins and password change as a person; the
# administration as an administrator (made on the data folder, as an operator makes the
# first one) but deleting an account; then leaving and password change; then deleting an
# account; then logout and ending a session, with a login of their own; then a bot
# account's lease, journal and notices, as the bot. Request budgets
# are off (their 429s are the abuse scenario's subject, not the contract's), everything
# else is the production configuration. Fails when any run finds a 5xx, an answer outside
# the spec, or a check failure; reports go to .build-conformance/.
set -euo pipefail
cd "$(dirname "$0")/.."
examples=${1:-30}
st=.venv-conformance/bin/schemathesis
binary=.build/debug/switchboard
out=.build-conformance
[ -x "$st" ] || { echo "schemathesis is missing: run make conformance" >&2; exit 2; }
[ -x "$binary" ] || { echo "$binary is missing: run swift build" >&2; exit 2; }
rm -rf "$out" && mkdir -p "$out"
work=$(mktemp -d /tmp/switchboard-conformance-XXXXXX)
trap 'rm -rf "$work"' EXIT
port=$(python3 -c 'import socket,random
while True:
    p = random.randrange(10000, 32768); s = socket.socket()
    try: s.bind(("127.0.0.1", p)); print(p); break
    except OSError: pass')
cat > "$work/server.yaml" <<YAML
log_level: warning
server:
  listen: 127.0.0.1:$port
  data: $work/data
  durability: normal
  password_hashing: { memory_kib: 1024, iterations: 1 }
  rate_limits: { enabled: false }
  # The fuzzer logs in far more often than a person: neither its address's budget of
  # password checks nor the cap of live logins may end the login it tests with.
  login_limits: { checks_per_address_per_minute: 1000000, checks_per_account_per_minute: 1000000, logins_per_account: 1000000 }
YAML
password="conformance password"
SWITCHBOARD_NEW_PASSWORD=$password "$binary" user add conformance-admin --admin --data "$work/data" > "$out/admin.log" 2>&1 \
    || { cat "$out/admin.log" >&2; exit 1; }
"$binary" serve --config "$work/server.yaml" > "$out/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true; rm -rf "$work"' EXIT
base=http://127.0.0.1:$port
for _ in $(seq 200); do curl -sf "$base/healthz" > /dev/null && break; sleep 0.05; done

token() {  # token register|login USERNAME: registers or logs in and prints the token
    curl -sf -X POST "$base/v1/$1" -H 'Content-Type: application/json' \
        -d "{\"username\":\"$2\",\"password\":\"$password\"}" \
        | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])'
}
person=$(token register conformance-person)
admin=$(token login conformance-admin)
token register conformance-target > /dev/null  # whom the administration run changes, suspends and deletes
# A bot account, for its lease and journal.
curl -sf -X POST "$base/v1/admin/users" -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' \
    -d "{\"username\":\"conformance-bot\",\"password\":\"$password\",\"bot\":true}" > /dev/null
bot=$(token login conformance-bot)
# Something for the operations that need an existing name.
curl -sf -X POST "$base/v1/groups" -H "Authorization: Bearer $person" -d '{"name":"ops"}' > /dev/null
curl -sf -X POST "$base/v1/rooms" -H "Authorization: Bearer $person" -d '{"name":"lobby"}' > /dev/null
# The bot is in ops, to send notices there.
curl -sf -X POST "$base/v1/groups/ops/invites" -H "Authorization: Bearer $person" -d '{"user":"conformance-bot"}' > /dev/null
curl -sf -X POST "$base/v1/groups/ops/join" -H "Authorization: Bearer $bot" > /dev/null

# Failures accepted for now (each is listed in RELIABILITY.md with who fixes it): only a
# new failure fails the run. CONFORMANCE_UPDATE_BASELINE=1 merges this run's failures in.
baseline=Conformance/baseline.json
update=""
[ "${CONFORMANCE_UPDATE_BASELINE:-}" = 1 ] && update=--baseline-update

status=0
run() {  # run NAME TOKEN FILTER...: one schemathesis run
    local name=$1 bearer=$2
    shift 2
    echo "== $name"
    if SCHEMATHESIS_HOOKS=Conformance/hooks.py "$st" --config-file Conformance/schemathesis.toml run docs/openapi.yaml --url "$base" -H "Authorization: Bearer $bearer" \
        --checks all -n "$examples" --workers 1 --request-timeout 20 --no-color \
        --report junit --report-dir "$out/$name" --baseline "$baseline" $update "$@" > "$out/$name.txt" 2>&1; then
        echo "   passed"
    else
        status=1
    fi
    # The summary: operations and test cases, then each distinct failure's title.
    grep -E "^(API Operations|Test Phases|Test cases|Seed|[0-9]+ (passed|failed))|passed|failed|errors? in " "$out/$name.txt" | tail -6 | sed 's/^/   /'
    grep -E "^_+ ((GET|POST|PUT|PATCH|DELETE|HEAD) |Stateful tests)" "$out/$name.txt" | sort -u | sed 's/^/   FAILED /' || true
    # And the first failure whole (its check, the request as curl, the answer), so that a
    # failure seen once can be reproduced from this output alone.
    awk '/^_+ ((GET|POST|PUT|PATCH|DELETE|HEAD) |Stateful tests)/{n++} n==1' "$out/$name.txt" | head -40 | sed 's/^/   | /'
}
run person "$person" --exclude-path-regex '^/v1/(admin|logout|me/password|me/sessions/|groups/[^/]+/leave|rooms/[^/]+/leave)'
# Revoking a Telegram token runs apart from the account's creation: a user just created
# has none, so in the stateful phase, which chains a creation to the revoke, its 404 read
# as "created resource not found" (the per-operation exemption in schemathesis.toml does
# not reach that phase's checks).
run admin "$admin" --include-path-regex '^/v1/admin' --exclude-name 'DELETE /v1/admin/users/{name}' \
    --exclude-name 'DELETE /v1/admin/users/{name}/telegram-token'
run telegram-revoke "$admin" --include-name 'DELETE /v1/admin/users/{name}/telegram-token'
run leaving "$person" --include-path-regex '^/v1/(me/password|groups/[^/]+/leave|rooms/[^/]+/leave)$'
run deletion "$admin" --include-name 'DELETE /v1/admin/users/{name}'
run logout "$(token register conformance-leaver)" --include-path-regex '^/v1/(logout|me/sessions/[^/]+)$'
run bot "$bot" --include-path-regex '^/v1/(me/(lease|journal)|conversations/[^/]+/notices$)'

if ! kill -0 $server 2>/dev/null; then
    echo "the server exited during the runs; see $out/server.log"
    status=1
fi
if grep -q " failed: " "$out/server.log"; then
    echo "the server logged internal failures:"
    grep " failed: " "$out/server.log" | sort -u | head -10
    status=1
fi
echo "details: $out/{person,admin,telegram-revoke,leaving,deletion,logout,bot}.txt"
exit $status

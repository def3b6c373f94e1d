#!/usr/bin/env bash
# `gridlock oracle query` and `gridlock map --source oracle:URL` against servers that misbehave
# (issue 36): one that sends its answer a byte every 200 ms, one that sends an endless chunked
# answer. The client must fail by itself, within a few seconds, naming the server and its bound.
# Usage: oracle_client_cli.sh GRIDLOCK WORKDIR CASE   (needs python3; exit 77 = skipped without it)
set -euo pipefail
. "$(dirname "$(realpath "$0")")/lib.sh"
gridlock="$(realpath "$1")"
case_name="$3"
work="$(realpath -m "$2")/$case_name"
rm -rf "$work"
mkdir -p "$work"
cd "$work"
command -v python3 >/dev/null || { echo "python3 not found: skipped"; exit 77; }

# The server: python3 -c SCRIPT MODE; writes its port to server.port once listening.
python3 -c '
import os, socket, sys, threading, time
mode = sys.argv[1]
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
open("server.port.tmp", "w").write(str(s.getsockname()[1])); os.rename("server.port.tmp", "server.port")
def answer(c):
    try:
        c.settimeout(30)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = c.recv(4096)
            if not chunk: return
            data += chunk
        if mode == "dribble":
            body = b"{\"status\":\"ok\",\"kind\":\"torus\",\"spec\":\"torus:2x2x8\"}"
            text = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
            for i in range(len(text)):
                c.sendall(text[i:i + 1]); time.sleep(0.2)
        else:
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
            chunk = b"10000\r\n" + b" " * 0x10000 + b"\r\n"
            while True: c.sendall(chunk)
    except OSError:
        pass
    finally:
        c.close()
while True:
    c, _ = s.accept()
    threading.Thread(target=answer, args=(c,), daemon=True).start()
' "$([ "$case_name" = endless ] && echo endless || echo dribble)" >server.log 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  [ -s server.port ] && break
  sleep 0.05
done
[ -s server.port ] || { cat server.log; fail "the test server did not start"; }
url="http://127.0.0.1:$(cat server.port)"

# expect_within CODE REGEX MAX_SECONDS -- COMMAND...: exit code, stderr and elapsed time.
expect_within() {
  local code="$1" regex="$2" max="$3"
  shift 4
  local start=$SECONDS got=0
  timeout 60 "$@" >out 2>err || got=$?
  local took=$((SECONDS - start))
  [ "$got" -eq "$code" ] || { cat err; fail "exit code $got, wanted $code: $*"; }
  grep -Eq "$regex" err || { cat err; fail "stderr does not match '$regex': $*"; }
  [ "$took" -le "$max" ] || fail "took ${took} s, at most $max s wanted: $*"
}

case "$case_name" in
  dribble)
    expect_within 3 "no whole answer from the oracle at $url to GET /v1/health within the timeout of 1 s" 8 -- \
      "$gridlock" oracle query --server "$url" --timeout 1s health
    ;;
  endless)
    expect_within 3 "the answer of the oracle at $url to GET /v1/health is larger than 1 MiB \(the client's limit; raise it with --max-response\)" 10 -- \
      "$gridlock" oracle query --server "$url" --timeout 30s --max-response 1MiB health
    ;;
  map_dribble)
    expect_within 3 "no whole answer from the oracle at $url to GET /v1/topology within the timeout of 1 s" 8 -- \
      "$gridlock" map torus:2x2x8 --nodes nid00000,nid00001 --cores-per-node 1 --tasks stencil2d:2x1 --metric bw \
      --source "oracle:$url" --timeout 1s -q
    ;;
  *) fail "unknown case $case_name" ;;
esac

#!/usr/bin/env python3
# 1,000 keep-alive clients connect to `gridlock oracle serve` at once, each sends one request,
# reads the answer and then stays connected and idle (issue 4: concurrent clients). Prints how
# many were answered within 30 s and when the last answer came.
#   gridlock oracle serve torus:2x2x8 --listen 127.0.0.1:18711 &
#   ulimit -n 4096; python3 bench/oracle_keepalive_burst.py 18711
import asyncio, time, sys
PORT=int(sys.argv[1])
errors={}
async def one(i, done):
  try:
    r, w = await asyncio.open_connection('127.0.0.1', PORT)
    w.write(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n"); await w.drain()
    data = b""
    while b'"ok"' not in data:
        chunk = await r.read(4096)
        if not chunk: break
        data += chunk
    if b'"ok"' in data: done.append(time.time())
    await asyncio.sleep(40)   # stay connected, idle
    w.close()
  except asyncio.CancelledError:
    raise
  except Exception as e:
    errors[type(e).__name__]=errors.get(type(e).__name__,0)+1
async def main():
    done=[]; t0=time.time()
    tasks=[asyncio.create_task(one(i, done)) for i in range(1000)]
    await asyncio.sleep(30)
    print(errors)
    print(f"answered within 30 s: {len(done)} of 1000; last at {max(done)-t0 if done else -1:.2f} s")
    for t in tasks: t.cancel()
asyncio.run(main())

"""A media stream flooded at 40x real time: the server's memory and /healthz meanwhile.

Run: python tests/bench/bench_media_flood.py [--speed 40] [--seconds 30]

A real ``gamehost serve`` child process on 127.0.0.1 (its own SQLite file, the installed
Korean Vosk model) takes one Media Stream, opened the way Twilio opens it: a signed
handshake and a ``start`` carrying a stream token minted for the call. The client then
sends 20 ms mu-law frames ``speed`` times faster than real time for ``seconds`` while a
thread times ``GET /healthz`` every 20 ms and the server's resident memory (VmRSS) is read
every 0.2 s. Prints the memory growth from the start of the flood and /healthz p50/p99/max.
Loopback only; bounded to about a minute.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import websockets

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.servers import free_port, wait_healthy  # noqa: E402
from tests.twilio_helpers import TEST_ACCOUNT_SID, TEST_AUTH_TOKEN, sign  # noqa: E402


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def prepare(db: Path, call_sid: str) -> str:
    """A Korean game and a stream token for ``call_sid``, written before the server starts."""
    from host.channels.media.handover import mint_token
    from host.referee import Referee
    from host.session import SessionConfig
    from host.store import Store

    store = Store(db)  # migrated: stream_tokens is there
    session = Referee(store).create(SessionConfig(lang="ko"), ["Ann", "Bob"])
    token = mint_token(store, call_sid, session, None, None, "ko")
    store.close()
    return token


async def flood(
    url: str,
    token: str,
    call_sid: str,
    speed: float,
    seconds: float,
    warmup: float,
    ready: threading.Event,
    flooding: threading.Event,
) -> int:
    stream_sid = "MZ" + "f" * 32
    headers = {"X-Twilio-Signature": sign(url, {})}
    sent = 0
    async with websockets.connect(url, additional_headers=headers, max_size=None) as ws:

        async def drain() -> None:  # what the host says back; read so its sends never block
            async for _ in ws:
                ready.set()

        reader = asyncio.create_task(drain())
        await ws.send(json.dumps({"event": "connected", "protocol": "Call", "version": "1.0.0"}))
        start = {
            "streamSid": stream_sid,
            "accountSid": TEST_ACCOUNT_SID,
            "callSid": call_sid,
            "tracks": ["inbound"],
            "customParameters": {"token": token},
            "mediaFormat": {"encoding": "audio/x-mulaw", "sampleRate": 8000, "channels": 1},
        }
        await ws.send(json.dumps({"event": "start", "streamSid": stream_sid, "start": start}))
        for _ in range(600):  # until the model is loaded and the greeting comes (bounded)
            if ready.is_set():
                break
            await asyncio.sleep(0.05)
        rng = random.Random(7)
        noise = [base64.b64encode(bytes(rng.randrange(256) for _ in range(160))).decode() for _ in range(50)]
        for phase, (secs, rate) in enumerate(((warmup, 1.0), (seconds, speed))):
            if phase == 1:
                flooding.set()  # the flood starts: memory is measured from here
            t0 = time.monotonic()
            for i in range(int(secs * 50 * rate)):
                media = {
                    "track": "inbound",
                    "chunk": str(sent + 1),
                    "timestamp": str(sent * 20),
                    "payload": noise[i % 50],
                }
                await ws.send(json.dumps({"event": "media", "streamSid": stream_sid, "media": media}))
                sent += 1
                delay = t0 + (i + 1) / (50 * rate) - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
        await ws.send(json.dumps({"event": "stop", "streamSid": stream_sid, "stop": {"callSid": call_sid}}))
        reader.cancel()
    return sent


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--speed", type=float, default=40.0)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--warmup", type=float, default=5.0, help="seconds of real-time audio first")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="gamehost-flood-"))
    db = work / "gamehost.sqlite3"
    call_sid = "CA" + "e" * 32
    token = prepare(db, call_sid)
    port = free_port()
    env = {
        **os.environ,
        "TWILIO_AUTH_TOKEN": TEST_AUTH_TOKEN,
        "GAMEHOST_PUBLIC_URL": f"http://127.0.0.1:{port}",  # production serve needs it
        "PYTHONUNBUFFERED": "1",
    }
    log = (work / "server.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "host", "serve", "--port", str(port), "--db", str(db)],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=log,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(base, proc, 20, "gamehost serve", work / "server.log", error=RuntimeError)
        ready = threading.Event()
        flooding = threading.Event()
        stop = threading.Event()
        flood_rss: list[float] = []
        health: list[float] = []
        rss: list[float] = []

        def sample() -> None:
            with httpx.Client(timeout=5) as client:
                while not stop.is_set():
                    t = time.perf_counter()
                    client.get(base + "/healthz").raise_for_status()
                    health.append((time.perf_counter() - t) * 1000)
                    stop.wait(0.02)

        def memory() -> None:
            while not stop.is_set():
                if ready.is_set():
                    rss.append(rss_mb(proc.pid))
                if flooding.is_set():
                    flood_rss.append(rss[-1])
                stop.wait(0.2)

        threads = [threading.Thread(target=sample), threading.Thread(target=memory)]
        for t in threads:
            t.start()
        url = f"ws://127.0.0.1:{port}/twilio/media"
        sent = asyncio.run(
            flood(url, token, call_sid, args.speed, args.seconds, args.warmup, ready, flooding)
        )
        time.sleep(1.0)
        stop.set()
        for t in threads:
            t.join()
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
    text = (work / "server.log").read_text(errors="replace")
    if os.environ.get("FLOOD_TRACE"):
        print("  rss every 2 s:", " ".join(f"{r:.0f}" for r in rss[::10]))
    p = sorted(health)
    flooded = sent - int(args.warmup * 50)
    print(
        f"media flood: {args.warmup:.0f} s of real-time audio, then {flooded} frames = {flooded / 50:.0f} s "
        f"of audio in {args.seconds:.0f} s ({args.speed:.0f}x real time)"
    )
    print(
        f"  server memory (VmRSS): stream start {rss[0]:.1f} MB, flood start {flood_rss[0]:.1f} MB, "
        f"max {max(rss):.1f} MB; growth during the flood {max(flood_rss) - flood_rss[0]:.1f} MB "
        f"(since the stream started, recogniser warm-up included: {max(rss) - rss[0]:.1f} MB)"
    )
    print(
        f"  /healthz during the run: {len(p)} samples, p50 {statistics.median(p):.1f} ms, "
        f"p99 {p[int(len(p) * 0.99) - 1]:.1f} ms, max {p[-1]:.1f} ms"
    )
    print(
        f"  flood warnings logged: {text.count('faster than it can be heard')}, "
        f"tracebacks: {text.count('Traceback')}"
    )


if __name__ == "__main__":
    main()

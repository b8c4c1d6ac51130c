"""
The request loop `vllm bench serve` runs, for the engine benchmark's
side-by-side figure: one aiohttp ClientSession over a TCPConnector(limit=C,
force_close=...) , at most C requests at once, each POSTed and its body read
with iter_any(), split on blank lines as vLLM's StreamedResponseHandler does,
and every message timestamped with perf_counter and parsed with json.loads
(TTFT, ITL, generated text and usage kept as vLLM keeps them).

usage: vllmStyleClient.py URL N CONCURRENCY keep-alive|per-request [ttfts] [words=W]
prints JSON: completed, failed, wall_s, cpu_s (process CPU over the same span: session opened .. all done);
with "ttfts", also each request's TTFT in seconds, in start order (the first-wave figure);
with "words=W", every request has its own prompt of W random words, all built before the run as vLLM's
random dataset builds its prompts (default: the one prompt "hello"), sent as stallscope's random dataset sends
them (a text part, max_tokens, ignore_eos), so both clients serialise a body of the same size.
"""

import asyncio
import json
import random
import sys
import time

import aiohttp


class StreamedResponseHandler:
    """vLLM's: complete SSE messages out of arbitrary reads."""

    def __init__(self):
        self.buffer = ""

    def add_chunk(self, chunk_bytes):
        self.buffer += chunk_bytes.decode("utf-8")
        messages = []
        while "\n\n" in self.buffer:
            message, self.buffer = self.buffer.split("\n\n", 1)
            message = message.strip()
            if message:
                messages.append(message)
        if self.buffer.startswith("data: "):
            content = self.buffer.removeprefix("data: ").strip()
            if content == "[DONE]":
                messages.append(self.buffer.strip())
                self.buffer = ""
            elif content:
                try:
                    json.loads(content)
                    messages.append(self.buffer.strip())
                    self.buffer = ""
                except json.JSONDecodeError:
                    pass
        return messages


async def request(session, url, payload, headers):
    out = {"success": False, "ttft": 0.0, "itl": [], "generated_text": "", "output_tokens": 0}
    st = time.perf_counter()
    most_recent = st
    ttft = 0.0
    text = ""
    try:
        async with session.post(url=url, json=payload, headers=headers) as response:
            if response.status != 200:
                out["error"] = response.reason or ""
                return out
            handler = StreamedResponseHandler()
            async for chunk_bytes in response.content.iter_any():
                chunk_bytes = chunk_bytes.strip()
                if not chunk_bytes:
                    continue
                for message in handler.add_chunk(chunk_bytes):
                    chunk = message.removeprefix("data: ")
                    if chunk == "[DONE]":
                        continue
                    timestamp = time.perf_counter()
                    data = json.loads(chunk)
                    if choices := data.get("choices"):
                        content = choices[0]["delta"].get("content")
                        if ttft == 0.0:
                            ttft = timestamp - st
                            out["ttft"] = ttft
                        else:
                            out["itl"].append(timestamp - most_recent)
                        text += content or ""
                    elif usage := data.get("usage"):
                        out["output_tokens"] = usage.get("completion_tokens")
                    most_recent = timestamp
            out["generated_text"] = text
            out["success"] = True
            out["latency"] = most_recent - st
    except Exception as e:  # vLLM records the traceback; one string is enough here
        out["error"] = repr(e)
    return out


VOCAB = (
    "time person year way day thing man world life hand part child eye woman place work week case point "
    "government company number group problem fact stage audio wave token stream model chunk frame voice "
    "signal cache window batch phase thread worker server client request result metric latency"
).split()


def prompts(n, words):
    """One body per request, built before the clock (vLLM's sample_requests runs before benchmark())."""
    if words == 0:
        one = {
            "model": "m",
            "messages": [{"role": "user", "content": "hello"}],
            "max_completion_tokens": 48,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        return [one] * n
    rng = random.Random(0)
    return [
        {
            "model": "m",
            "messages": [{"role": "user", "content": [{"type": "text", "text": " ".join(rng.choices(VOCAB, k=words))}]}],
            "temperature": 0,
            "max_tokens": 48,
            "stream": True,
            "stream_options": {"include_usage": True, "continuous_usage_stats": True},
            "ignore_eos": True,
        }
        for _ in range(n)
    ]


async def main():
    url, n, conc, mode = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    want_ttfts = "ttfts" in sys.argv[5:]
    words = next((int(a.split("=", 1)[1]) for a in sys.argv[5:] if a.startswith("words=")), 0)
    payloads = prompts(n, words)
    headers = {"Content-Type": "application/json"}
    c0, t0 = time.process_time(), time.perf_counter()
    connector = aiohttp.TCPConnector(limit=conc, force_close=(mode == "per-request"))
    session = aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=6 * 60 * 60))
    sem = asyncio.Semaphore(conc)

    async def limited(i):
        async with sem:
            return await request(session, url, payloads[i], headers)

    outs = await asyncio.gather(*[asyncio.create_task(limited(i)) for i in range(n)])
    await session.close()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    ok = sum(1 for o in outs if o["success"])
    result = {"completed": ok, "failed": n - ok, "wall_s": wall, "cpu_s": cpu}
    if want_ttfts:
        # gather keeps task order and the semaphore admits tasks in creation order: index order is start order.
        result["ttfts"] = [o["ttft"] for o in outs]
    print(json.dumps(result))


asyncio.run(main())

"""stallscope's transcription server for the Seed-TTS WER gate.

An OpenAI-compatible endpoint, POST /v1/audio/transcriptions (multipart:
file, model, language, temperature, response_format) -> {"text": ...}, that
recognises speech the way vLLM-Omni's seed_tts_eval does in its own process
(the seed-tts-eval protocol):

- English: a Whisper model (default openai/whisper-large-v3) through
  transformers, float32, on cuda:0 when torch sees a GPU (SEED_TTS_EVAL_DEVICE
  overrides), greedy decoding with the model's own generation config, the
  English transcribe prompt, special tokens skipped, the text stripped;
- Chinese: paraformer-zh through funasr, the text converted to simplified
  Chinese with zhconv.

The upload must be what the gate sends: a 16 kHz mono 16-bit PCM WAV (the
gate resamples every answer to 16 kHz first, as upstream does); anything
else is refused with 400 and the reason. Transcriptions run one at a time,
as upstream runs them.

Bounded whatever its clients send (asr_bounds.py): an upload is read and
decoded only by the request that holds the recogniser (the others wait
with their bodies unread, so memory holds one upload); a body larger than
--max-upload-bytes is refused with 413 before it is read; each request has
--read-timeout seconds to arrive; at most --max-connections connections
are served, one thread each, and one more is answered 503 + Retry-After.

Usage:
  python asr_server.py --check --language en
      exits 0, or 3 after one line naming the missing packages;
  python asr_server.py [--model M] [--language en|zh] [--port 0]
                       [--max-upload-bytes B] [--read-timeout S] [--max-connections N]
      prints "listening on http://127.0.0.1:PORT" once the model is loaded;
      exits when its standard input closes (its parent is gone) or on SIGTERM.

Only the standard library is imported before the check, so the check itself
cannot fail on a missing package.
"""

import argparse
import importlib
import json
import os
import signal
import sys
import tempfile
import threading
import wave

from asr_bounds import BoundedHTTPServer, DeadlineHandler, close_after_refusal

DEFAULT_WHISPER = "openai/whisper-large-v3"
PARAFORMER = "paraformer-zh"
# 16 kHz 16-bit mono: ten minutes is 19 MB; the longest Seed-TTS answer is well under a minute.
MAX_UPLOAD_BYTES = 64 * 1024 * 1024
# One model, used by one transcription at a time, as upstream runs them: uploads are read and decoded only by the
# request holding the recogniser, so memory holds one upload whatever the clients send at once.
RECOGNISER_WORKERS = 1
READ_TIMEOUT_S = 30.0
MAX_CONNECTIONS = 64
EXIT_MISSING = 3

# What each language needs, as upstream imports it (seed_tts_eval's _missing_deps_message).
NEEDS = {
    "en": [("torch", "torch"), ("transformers", "transformers"), ("numpy", "numpy")],
    "zh": [("torch", "torch"), ("funasr", "funasr"), ("zhconv", "zhconv"), ("numpy", "numpy")],
}


def missing_packages(language):
    """The packages of NEEDS[language] that cannot be imported, with why."""
    missing = []
    for module, package in NEEDS[language]:
        try:
            importlib.import_module(module)
        except Exception as e:  # an ImportError, or a broken install failing at import time
            missing.append(f"{package} ({type(e).__name__}: {e})")
    return missing


def eval_device():
    explicit = os.environ.get("SEED_TTS_EVAL_DEVICE", "").strip()
    if explicit:
        return explicit
    import torch

    return "cuda:0" if torch.cuda.is_available() else "cpu"


class Whisper:
    """English recognition as seed_tts_eval's _transcribe_en_f32_16k."""

    def __init__(self, model_id, device):
        import torch
        from transformers import WhisperForConditionalGeneration, WhisperProcessor

        self.torch = torch
        self.device = device
        self.processor = WhisperProcessor.from_pretrained(model_id)
        # float32 whatever the checkpoint's torch_dtype (large-v3 ships float16): the features are float32.
        self.model = WhisperForConditionalGeneration.from_pretrained(model_id, torch_dtype=torch.float32).to(device)
        self.model.eval()

    def transcribe(self, wav_f32):
        if len(wav_f32) == 0:
            return ""
        # The feature extractor keeps the first n_samples (30 s) whatever it is given (truncation=True, its default),
        # after copying all of it: the same features, without a copy of a long upload.
        wav_f32 = wav_f32[: self.processor.feature_extractor.n_samples]
        try:
            inputs = self.processor(wav_f32, sampling_rate=16000, return_tensors="pt", return_attention_mask=True)
        except TypeError:
            inputs = self.processor(wav_f32, sampling_rate=16000, return_tensors="pt")
        features = inputs.input_features.to(self.device)
        kwargs = {}
        mask = getattr(inputs, "attention_mask", None)
        if mask is not None:
            kwargs["attention_mask"] = mask.to(self.device)
        with self.torch.no_grad():
            try:
                # Older transformers: the forced English transcribe prompt.
                forced = self.processor.get_decoder_prompt_ids(language="english", task="transcribe")
                ids = self.model.generate(features, forced_decoder_ids=forced, **kwargs)
            except Exception:
                # transformers that refuse forced_decoder_ids: the same prompt by name.
                ids = self.model.generate(features, language="english", task="transcribe", **kwargs)
        return (self.processor.batch_decode(ids, skip_special_tokens=True)[0] or "").strip()


class Paraformer:
    """Chinese recognition as seed_tts_eval's _transcribe_zh_wav_path."""

    def __init__(self, model_id, device):
        from funasr import AutoModel
        import zhconv

        self.zhconv = zhconv
        try:
            self.model = AutoModel(model=model_id, device=device)
        except TypeError:
            self.model = AutoModel(model=model_id)

    def transcribe(self, wav_f32, pcm16):
        # funasr reads a file: the upload's own 16-bit samples, as upstream writes them (PCM_16).
        fd, path = tempfile.mkstemp(suffix=".wav")
        os.close(fd)
        try:
            with wave.open(path, "wb") as w:
                w.setnchannels(1)
                w.setsampwidth(2)
                w.setframerate(16000)
                w.writeframes(pcm16)
            res = self.model.generate(input=path, batch_size_s=300)
        finally:
            try:
                os.unlink(path)
            except OSError:
                pass
        text = res[0]["text"] if res else ""
        return self.zhconv.convert(text, "zh-cn").strip()


def parse_multipart(content_type, body):
    """The form's parts as {name: (filename or None, a memoryview of the content)}; raises ValueError when malformed.

    The body is searched in place and each part is a view of it: an upload is never copied to be split."""
    boundary = None
    for param in content_type.split(";")[1:]:
        key, _, value = param.strip().partition("=")
        if key.lower() == "boundary":
            boundary = value.strip().strip('"')
    if not content_type.lower().startswith("multipart/form-data") or not boundary:
        raise ValueError("the body must be multipart/form-data with a boundary")
    # Every part starts after CRLF--boundary (the first may start the body without its CRLF); the boundary never
    # occurs inside a part.
    delimiter = b"\r\n--" + boundary.encode("latin-1")
    if body.startswith(delimiter[2:]):
        start = len(delimiter) - 2
    else:
        start = body.find(delimiter)
        if start < 0:
            return {}
        start += len(delimiter)
    view = memoryview(body)
    parts = {}
    while not body.startswith(b"--", start):
        end = body.find(delimiter, start)
        stop = end if end >= 0 else len(body)
        head_end = body.find(b"\r\n\r\n", start + 2, stop)
        if head_end < 0:
            raise ValueError("a form part has no header end")
        name = filename = None
        for line in bytes(view[start + 2 : head_end]).decode("utf-8", "replace").split("\r\n"):
            key, _, value = line.partition(":")
            if key.strip().lower() != "content-disposition":
                continue
            for item in value.split(";")[1:]:
                k, _, v = item.strip().partition("=")
                if k == "name":
                    name = v.strip('"')
                elif k == "filename":
                    filename = v.strip('"')
        if name is not None:
            parts[name] = (filename, view[head_end + 4 : stop])
        if end < 0:
            break
        start = end + len(delimiter)
    return parts


class ViewFile:
    """A read-only file over a memoryview: wave reads an upload's header from it without a copy of the upload."""

    def __init__(self, view):
        self.view, self.pos = view, 0

    def read(self, n=-1):
        end = len(self.view) if n is None or n < 0 else min(len(self.view), self.pos + n)
        data = bytes(self.view[self.pos : end])
        self.pos = max(self.pos, end)
        return data

    def seek(self, pos, whence=0):
        self.pos = max(0, pos if whence == 0 else self.pos + pos if whence == 1 else len(self.view) + pos)
        return self.pos

    def tell(self):
        return self.pos


def read_wav16k(data):
    """(float32 samples in [-1, 1), the 16-bit PCM) of a 16 kHz mono 16-bit WAV; raises ValueError otherwise.

    The PCM is a view of the upload and the samples one array: a 60 MB upload costs 120 MB more, not 300."""
    import numpy as np

    view = memoryview(data).cast("B")
    file = ViewFile(view)
    try:
        with wave.open(file) as w:
            rate, channels, width = w.getframerate(), w.getnchannels(), w.getsampwidth()
            # Where the samples start, as readframes finds it (which would copy them): the data chunk's start.
            w._data_chunk.seek(0, 0)
            start = file.tell()
            end = min(len(view), start + w.getnframes() * channels * width)
    except (wave.Error, EOFError) as e:
        raise ValueError(f"not a WAV file: {e}") from e
    if (rate, channels, width) != (16000, 1, 2):
        raise ValueError(f"expected 16 kHz mono 16-bit PCM, got {rate} Hz, {channels} channel(s), {8 * width}-bit")
    pcm = view[start : end - (end - start) % 2]
    wav = np.frombuffer(pcm, dtype="<i2").astype(np.float32)
    wav /= 32768.0
    return wav, pcm


class Handler(DeadlineHandler):
    protocol_version = "HTTP/1.1"
    server_version = "stallscope-asr"

    def log_message(self, format, *args):  # one line per request on stderr is noise for a benchmark log
        pass

    def answer(self, status, payload, headers=()):
        body = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def refuse(self, status, message):
        self.answer(status, {"error": {"message": message}})

    def handle_expect_100(self):
        # "100 Continue" is sent once the body may be read (do_POST): a waiting client does not send it yet.
        self.expects_continue = True
        return True

    def do_GET(self):
        if self.path.split("?")[0] == "/health":
            self.answer(200, {"model": self.server.model_id, "language": self.server.language, "device": self.server.device})
        else:
            self.refuse(404, f"no route {self.path}")

    def do_POST(self):
        if self.path.split("?")[0] != "/v1/audio/transcriptions":
            self.refuse(404, f"no route {self.path}")
            return close_after_refusal(self)
        try:
            length = int(self.headers.get("content-length", ""))
        except ValueError:
            self.refuse(411, "a content-length is required")
            return close_after_refusal(self)
        cap = self.server.max_upload_bytes
        if length < 0 or length > cap:
            self.refuse(413, f"the upload is {length} bytes, larger than this server's cap of {cap} bytes")
            return close_after_refusal(self)
        # The body is read only by the request holding a recogniser worker: the others wait with theirs unread.
        with self.server.workers:
            if getattr(self, "expects_continue", False):
                self.send_response_only(100)
                self.end_headers()
            self.restart_deadline()  # the time spent waiting for a worker was ours, not the sender's
            body = self.rfile.read(length)
            if len(body) < length:
                self.close_connection = True  # the client went away mid-body
                return
            self.transcribe(body)

    def transcribe(self, body):
        try:
            parts = parse_multipart(self.headers.get("content-type", ""), body)
            self.check_fields(parts)
            if "file" not in parts:
                raise ValueError("no file part")
            wav, pcm = read_wav16k(parts["file"][1])
        except ValueError as e:
            return self.refuse(400, str(e))
        try:
            if self.server.language == "zh":
                text = self.server.recogniser.transcribe(wav, pcm)
            else:
                text = self.server.recogniser.transcribe(wav)
        except Exception as e:
            return self.refuse(500, f"recognition failed: {type(e).__name__}: {e}")
        self.answer(200, {"text": text})

    def check_fields(self, parts):
        field = lambda k: bytes(parts[k][1]).decode("utf-8", "replace").strip() if k in parts else None
        language = field("language")
        if language not in (None, "", self.server.language):
            raise ValueError(f"this server transcribes language '{self.server.language}', not '{language}'")
        if field("temperature") not in (None, "", "0", "0.0"):
            raise ValueError("only temperature 0 (greedy decoding, as seed-tts-eval) is served")
        if field("response_format") not in (None, "", "json"):
            raise ValueError("only response_format json is served")


def positive(kind):
    def parse(text):
        value = kind(text)
        if not value > 0 or value == float("inf"):
            raise argparse.ArgumentTypeError(f"{text} is not a positive finite number")
        return value

    parse.__name__ = kind.__name__  # argparse names the type in its error
    return parse


def main():
    ap = argparse.ArgumentParser(description="stallscope's transcription server (the Seed-TTS WER gate's recogniser)")
    ap.add_argument("--model", default=DEFAULT_WHISPER, help="the Whisper model for English (a Hub id or a folder)")
    ap.add_argument("--zh-model", default=PARAFORMER, help="the funasr model for Chinese")
    ap.add_argument("--language", choices=("en", "zh"), default="en")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--check", action="store_true", help="check the packages and exit")
    ap.add_argument(
        "--max-upload-bytes",
        type=positive(int),
        default=MAX_UPLOAD_BYTES,
        help=f"the request body cap: a larger content-length is refused with 413 and not read (default {MAX_UPLOAD_BYTES})",
    )
    ap.add_argument(
        "--read-timeout",
        type=positive(float),
        default=READ_TIMEOUT_S,
        help="seconds a request has to arrive, its headers (an idle connection's next request included) and then its "
        f"body; a sender that stalls or trickles is dropped at the deadline (default {READ_TIMEOUT_S:g})",
    )
    ap.add_argument(
        "--max-connections",
        type=positive(int),
        default=MAX_CONNECTIONS,
        help="connections served at once, one thread each; one more is answered 503 with Retry-After "
        f"(default {MAX_CONNECTIONS})",
    )
    args = ap.parse_args()

    missing = missing_packages(args.language)
    if missing:
        print(f"missing Python packages in {sys.executable}: {'; '.join(missing)}", file=sys.stderr, flush=True)
        sys.exit(EXIT_MISSING)
    if args.check:
        print("ok", flush=True)
        return

    device = eval_device()
    model_id = args.zh_model if args.language == "zh" else args.model
    print(f"loading {model_id} on {device}", flush=True)
    recogniser = Paraformer(model_id, device) if args.language == "zh" else Whisper(model_id, device)

    server = BoundedHTTPServer(("127.0.0.1", args.port), Handler, args.max_connections, args.read_timeout)
    server.recogniser, server.model_id, server.language, server.device = recogniser, model_id, args.language, device
    server.workers = threading.BoundedSemaphore(RECOGNISER_WORKERS)
    server.max_upload_bytes = args.max_upload_bytes
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    # The parent holds our stdin open while it needs us; EOF means it is gone.
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    # Last: once it is printed every thread of the idle server exists (what a thread count is compared with).
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass
    server.shutdown()


if __name__ == "__main__":
    main()

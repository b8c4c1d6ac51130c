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

Usage:
  python asr_server.py --check --language en
      exits 0, or 3 after one line naming the missing packages;
  python asr_server.py [--model M] [--language en|zh] [--port 0]
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
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULT_WHISPER = "openai/whisper-large-v3"
PARAFORMER = "paraformer-zh"
# 16 kHz 16-bit mono: ten minutes is 19 MB; the longest Seed-TTS answer is well under a minute.
MAX_UPLOAD_BYTES = 64 * 1024 * 1024
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
    """The form's parts as {name: (filename or None, bytes)}; raises ValueError when malformed."""
    boundary = None
    for param in content_type.split(";")[1:]:
        key, _, value = param.strip().partition("=")
        if key.lower() == "boundary":
            boundary = value.strip().strip('"')
    if not content_type.lower().startswith("multipart/form-data") or not boundary:
        raise ValueError("the body must be multipart/form-data with a boundary")
    parts = {}
    # Every part starts after CRLF--boundary; the boundary never occurs inside a part.
    for chunk in (b"\r\n" + body).split(b"\r\n--" + boundary.encode("latin-1"))[1:]:
        if chunk.startswith(b"--"):
            break
        head, sep, content = chunk[2:].partition(b"\r\n\r\n")
        if not sep:
            raise ValueError("a form part has no header end")
        name = filename = None
        for line in head.decode("utf-8", "replace").split("\r\n"):
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
            parts[name] = (filename, content)
    return parts


def read_wav16k(data):
    """(float32 samples in [-1, 1), the 16-bit PCM) of a 16 kHz mono 16-bit WAV; raises ValueError otherwise."""
    import io

    import numpy as np

    try:
        with wave.open(io.BytesIO(data)) as w:
            rate, channels, width = w.getframerate(), w.getnchannels(), w.getsampwidth()
            pcm = w.readframes(w.getnframes())
    except (wave.Error, EOFError) as e:
        raise ValueError(f"not a WAV file: {e}") from e
    if (rate, channels, width) != (16000, 1, 2):
        raise ValueError(f"expected 16 kHz mono 16-bit PCM, got {rate} Hz, {channels} channel(s), {8 * width}-bit")
    return np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0, pcm


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "stallscope-asr"

    def log_message(self, format, *args):  # one line per request on stderr is noise for a benchmark log
        pass

    def answer(self, status, payload):
        body = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def refuse(self, status, message):
        self.answer(status, {"error": {"message": message}})

    def do_GET(self):
        if self.path.split("?")[0] == "/health":
            self.answer(200, {"model": self.server.model_id, "language": self.server.language, "device": self.server.device})
        else:
            self.refuse(404, f"no route {self.path}")

    def do_POST(self):
        if self.path.split("?")[0] != "/v1/audio/transcriptions":
            return self.refuse(404, f"no route {self.path}")
        try:
            length = int(self.headers.get("content-length", ""))
        except ValueError:
            self.close_connection = True
            return self.refuse(411, "a content-length is required")
        if length < 0 or length > MAX_UPLOAD_BYTES:
            self.close_connection = True
            return self.refuse(413, f"the upload is larger than {MAX_UPLOAD_BYTES} bytes")
        body = self.rfile.read(length)
        try:
            parts = parse_multipart(self.headers.get("content-type", ""), body)
            self.check_fields(parts)
            if "file" not in parts:
                raise ValueError("no file part")
            wav, pcm = read_wav16k(parts["file"][1])
        except ValueError as e:
            return self.refuse(400, str(e))
        try:
            with self.server.lock:
                if self.server.language == "zh":
                    text = self.server.recogniser.transcribe(wav, pcm)
                else:
                    text = self.server.recogniser.transcribe(wav)
        except Exception as e:
            return self.refuse(500, f"recognition failed: {type(e).__name__}: {e}")
        self.answer(200, {"text": text})

    def check_fields(self, parts):
        field = lambda k: parts[k][1].decode("utf-8", "replace").strip() if k in parts else None
        language = field("language")
        if language not in (None, "", self.server.language):
            raise ValueError(f"this server transcribes language '{self.server.language}', not '{language}'")
        if field("temperature") not in (None, "", "0", "0.0"):
            raise ValueError("only temperature 0 (greedy decoding, as seed-tts-eval) is served")
        if field("response_format") not in (None, "", "json"):
            raise ValueError("only response_format json is served")


def main():
    ap = argparse.ArgumentParser(description="stallscope's transcription server (the Seed-TTS WER gate's recogniser)")
    ap.add_argument("--model", default=DEFAULT_WHISPER, help="the Whisper model for English (a Hub id or a folder)")
    ap.add_argument("--zh-model", default=PARAFORMER, help="the funasr model for Chinese")
    ap.add_argument("--language", choices=("en", "zh"), default="en")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--check", action="store_true", help="check the packages and exit")
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

    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    server.recogniser, server.model_id, server.language, server.device = recogniser, model_id, args.language, device
    server.lock = threading.Lock()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    # The parent holds our stdin open while it needs us; EOF means it is gone.
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass
    server.shutdown()


if __name__ == "__main__":
    main()

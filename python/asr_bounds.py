"""The HTTP side of asr_server.py, bounded (docs/design.md#local-asr).

Whatever its clients send, the server holds at most:

- max_connections connections, each on its own thread: one more is answered
  503 with Retry-After on the accepting thread and closed, so 300 idle
  sockets cost no more threads than 8 busy ones;
- read_timeout seconds for a request to arrive: its request line and headers
  (an idle keep-alive connection included) within one deadline, its body
  within another that starts when it may be read. The deadline is the
  request's whole, not each recv's: a sender that trickles a byte a second is
  dropped as surely as one that stops.

Only the standard library: asr_server.py imports this before its check.
"""

import io
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

BUSY_BODY = b'{"error": {"message": "the transcription server holds its maximum of connections; retry later"}}'
BUSY_REPLY = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\n"
    + b"content-length: %d\r\nconnection: close\r\n\r\n" % len(BUSY_BODY)
    + BUSY_BODY
)


class DeadlineReader(io.RawIOBase):
    """A connection's bytes, each recv allowed only what is left before `deadline` (monotonic seconds)."""

    def __init__(self, sock):
        self.sock = sock
        self.deadline = None

    def readable(self):
        return True

    def readinto(self, b):
        if self.deadline is not None:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the request did not arrive before its read deadline")
            self.sock.settimeout(left)
        return self.sock.recv_into(b)


class DeadlineHandler(BaseHTTPRequestHandler):
    """A request handler whose reads share one deadline per request (server.read_timeout seconds)."""

    def setup(self):
        self.timeout = self.server.read_timeout  # sends too: a client that reads nothing cannot hold a thread
        super().setup()
        # The buffered file the base class made counts as a reference to the socket: closed, or the socket outlives us.
        self.rfile.close()
        self.reader = DeadlineReader(self.connection)
        self.rfile = io.BufferedReader(self.reader, 64 * 1024)

    def handle_one_request(self):
        # Waiting for the next request line is reading too: an idle connection is closed at the deadline.
        self.restart_deadline()
        super().handle_one_request()  # a TimeoutError anywhere in the request closes the connection there

    def restart_deadline(self):
        self.reader.deadline = time.monotonic() + self.server.read_timeout


def drain_ready(sock):
    """Reads what has already arrived, without waiting: a socket closed with unread bytes resets the connection, and
    the peer may then lose the answer it was sent before reading it."""
    try:
        sock.setblocking(False)
        sock.recv(64 * 1024)
    except OSError:
        pass


class BoundedHTTPServer(HTTPServer):
    """HTTPServer with one thread per connection, at most max_connections of them."""

    daemon_threads = True
    # Connections past the cap are answered by the accepting thread, quickly; a burst waits in the backlog for it.
    request_queue_size = 128

    def __init__(self, address, handler, max_connections, read_timeout):
        super().__init__(address, handler)
        self.read_timeout = read_timeout
        self.slots = threading.BoundedSemaphore(max_connections)

    def process_request(self, request, client_address):
        if not self.slots.acquire(blocking=False):
            try:
                request.setblocking(False)  # the accepting thread never waits on a client
                request.send(BUSY_REPLY)
            except OSError:
                pass
            drain_ready(request)
            self.shutdown_request(request)
            return
        threading.Thread(target=self.serve_connection, args=(request, client_address), daemon=True).start()

    def serve_connection(self, request, client_address):
        try:
            self.finish_request(request, client_address)
        except Exception:
            self.handle_error(request, client_address)
        finally:
            self.shutdown_request(request)
            self.slots.release()

    def handle_error(self, request, client_address):
        # A client that resets or times out is the client's business; anything else is ours and is printed.
        import sys

        if isinstance(sys.exc_info()[1], OSError):
            return
        super().handle_error(request, client_address)


def close_after_refusal(handler):
    """After a refusal sent before the body was read: read no further, but let the answer reach the client."""
    handler.close_connection = True
    try:
        handler.wfile.flush()
        handler.connection.shutdown(socket.SHUT_WR)
    except OSError:
        pass
    drain_ready(handler.connection)

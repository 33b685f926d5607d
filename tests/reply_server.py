"""A local OpenAI-compatible chat-completions server whose replies a test scripts: ``reply(body)``
returns the answer text, or (status, error text) to fail the request."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class ReplyServer:
    def __init__(self, reply):
        self.reply, self.requests = reply, []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(body)
                answer = server.reply(body)
                if isinstance(answer, tuple):
                    status, payload = answer[0], json.dumps({"error": {"message": answer[1]}}).encode()
                else:
                    status, payload = 200, _completion(body.get("model", "m"), answer)
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def _completion(model, text):
    return json.dumps(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 4, "total_tokens": 15},
        }
    ).encode()

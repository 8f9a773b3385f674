#!/usr/bin/env python3
"""A scripted Anthropic Messages API server, so Claude Code can run offline in tests.

Usage:
  messages_server.py --script turns.json [--port 0] [--port-file F] [--log requests.jsonl]
                     [--log-bodies]

The script is a JSON list of turns (or {"turns": [...]}), one per model answer in the
conversation:
  {"bash": "touch made.txt"}            a tool_use of the request's shell tool (Bash)
  {"tool": "Write", "input": {...}}      a tool_use of any tool the request offers
  {"text": "All done."}                  a final text answer (stop_reason end_turn)

Which turn to play is derived from the request alone: the number of assistant messages
already in its "messages" list. A retried request therefore gets the same answer, and the
server keeps no conversation state. Past the end of the script the answer is the text
"(script exhausted)".

Claude Code also sends side requests to /v1/messages that are not the conversation (a
session title, a quota probe, ...): those offer no tools. They are answered with a short
fixed text and do not consume turns.

Other endpoints: /v1/messages/count_tokens answers a fixed estimate; /v1/models lists one
model; anything else gets a 404 with an Anthropic-shaped error body. Every request is
logged as one JSON line (method, path, what was answered; with --log-bodies the body too).

Exit: 0 on SIGTERM/SIGINT; 64 on bad arguments; 66 when the script cannot be read.
Standard library only.
"""

import argparse
import json
import os
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

EX_USAGE = 64
EX_NOINPUT = 66
SIDE_TEXT = "ok"
EXHAUSTED_TEXT = "(script exhausted)"


def load_script(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    turns = doc.get("turns") if isinstance(doc, dict) else doc
    if not isinstance(turns, list):
        raise ValueError("expected a list of turns or {\"turns\": [...]}")
    for i, t in enumerate(turns):
        if not isinstance(t, dict) or not ({"bash", "text", "tool"} & set(t)):
            raise ValueError(f"turn {i}: expected one of \"bash\", \"text\", \"tool\"")
    return turns


def shell_tool(tools):
    """The request's shell tool: named Bash, else the first whose schema takes a command."""
    for t in tools:
        if t.get("name") == "Bash":
            return t
    for t in tools:
        props = (t.get("input_schema") or {}).get("properties") or {}
        if "command" in props:
            return t
    return None


def count_assistant(messages):
    return sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant")


def rough_tokens(body_bytes):
    return max(1, len(body_bytes) // 4)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, addr, turns, log_path, log_bodies):
        super().__init__(addr, Handler)
        self.turns = turns
        self.log_bodies = log_bodies
        self.log_file = open(log_path, "a", encoding="utf-8") if log_path else None
        self.lock = threading.Lock()
        self.seq = 0

    def next_seq(self):
        with self.lock:
            self.seq += 1
            return self.seq

    def log(self, rec):
        if not self.log_file:
            return
        with self.lock:
            self.log_file.write(json.dumps(rec, sort_keys=True) + "\n")
            self.log_file.flush()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "hangar-messages-server/1"

    def log_message(self, fmt, *args):  # silence the default stderr access log
        pass

    # --- plumbing -------------------------------------------------------------------------

    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n > 0 else b""

    def send_json(self, code, obj):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("request-id", f"req_{self.seq:06d}")
        self.end_headers()
        self.wfile.write(data)

    def record(self, body, answer, extra=None):
        rec = {
            "seq": self.seq,
            "method": self.command,
            "path": self.path,
            "user_agent": self.headers.get("User-Agent", ""),
            "answer": answer,
        }
        beta = self.headers.get("anthropic-beta")
        if beta:
            rec["anthropic_beta"] = beta
        if extra:
            rec.update(extra)
        if self.server.log_bodies and body:
            try:
                rec["body"] = json.loads(body)
            except ValueError:
                rec["body_raw"] = body.decode("utf-8", "replace")
        self.server.log(rec)

    def not_found(self, body):
        self.record(body, "404")
        self.send_json(404, {"type": "error",
                             "error": {"type": "not_found_error",
                                       "message": f"no such endpoint: {self.path}"}})

    # --- routes ---------------------------------------------------------------------------

    def do_GET(self):
        self.seq = self.server.next_seq()
        path = self.path.split("?", 1)[0]
        if path == "/v1/models" or path.startswith("/v1/models/"):
            model = {"type": "model", "id": "claude-scripted", "display_name": "Scripted",
                     "created_at": "2025-01-01T00:00:00Z"}
            self.record(b"", "models")
            if path == "/v1/models":
                self.send_json(200, {"data": [model], "has_more": False,
                                     "first_id": model["id"], "last_id": model["id"]})
            else:
                model["id"] = path.rsplit("/", 1)[1]
                self.send_json(200, model)
            return
        self.not_found(b"")

    def do_HEAD(self):
        self.seq = self.server.next_seq()
        self.record(b"", "head")
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        self.seq = self.server.next_seq()
        body = self.read_body()
        path = self.path.split("?", 1)[0]
        if path == "/v1/messages/count_tokens":
            self.record(body, "count_tokens")
            self.send_json(200, {"input_tokens": rough_tokens(body)})
            return
        if path != "/v1/messages":
            self.not_found(body)
            return
        try:
            req = json.loads(body)
        except ValueError:
            self.record(body, "400")
            self.send_json(400, {"type": "error", "error": {
                "type": "invalid_request_error", "message": "body is not JSON"}})
            return
        self.messages(req, body)

    # --- /v1/messages ---------------------------------------------------------------------

    def messages(self, req, body):
        tools = req.get("tools") or []
        messages = req.get("messages") or []
        turn_index = count_assistant(messages)
        extra = {"model": req.get("model"), "stream": bool(req.get("stream")),
                 "n_messages": len(messages), "n_tools": len(tools),
                 "tool_names": [t.get("name") for t in tools][:60]}
        if not any(t.get("input_schema") for t in tools):
            # Not the conversation: a side request (title, quota probe, summary...).
            blocks, stop, answer = [{"type": "text", "text": SIDE_TEXT}], "end_turn", "side"
        elif turn_index >= len(self.server.turns):
            blocks, stop, answer = [{"type": "text", "text": EXHAUSTED_TEXT}], "end_turn", \
                "exhausted"
        else:
            turn = self.server.turns[turn_index]
            extra["turn"] = turn_index
            blocks, stop, answer, err = self.play(turn, tools, turn_index)
            if err:
                self.record(body, "400", dict(extra, error=err))
                self.send_json(400, {"type": "error", "error": {
                    "type": "invalid_request_error", "message": err}})
                return
        self.record(body, answer, extra)
        msg = {"id": f"msg_scripted_{self.seq:06d}", "type": "message", "role": "assistant",
               "model": req.get("model") or "claude-scripted", "content": blocks,
               "stop_reason": stop, "stop_sequence": None,
               "usage": {"input_tokens": rough_tokens(body), "output_tokens": 10,
                         "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}
        if req.get("stream"):
            self.stream(msg)
        else:
            self.send_json(200, msg)

    def play(self, turn, tools, turn_index):
        """Returns (content blocks, stop_reason, log tag, error or None)."""
        if "text" in turn:
            return [{"type": "text", "text": str(turn["text"])}], "end_turn", "text", None
        if "bash" in turn:
            tool = shell_tool(tools)
            if tool is None:
                return None, None, None, "script asks for bash but the request offers no shell tool"
            name, inp = tool["name"], {"command": str(turn["bash"])}
            props = (tool.get("input_schema") or {}).get("properties") or {}
            if "description" in props:
                inp["description"] = turn.get("description", "scripted command")
        else:
            name, inp = str(turn["tool"]), dict(turn.get("input") or {})
            if not any(t.get("name") == name for t in tools):
                return None, None, None, f"script asks for tool {name!r}, which is not offered"
        blocks = []
        if turn.get("say"):
            blocks.append({"type": "text", "text": str(turn["say"])})
        blocks.append({"type": "tool_use", "id": f"toolu_scripted_{turn_index:04d}",
                       "name": name, "input": inp})
        return blocks, "tool_use", "tool_use:" + name, None

    def stream(self, msg):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.send_header("request-id", f"req_{self.seq:06d}")
        self.end_headers()
        self.close_connection = True

        def event(kind, data):
            data["type"] = kind
            self.wfile.write(f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode())

        start = dict(msg, content=[], stop_reason=None,
                     usage=dict(msg["usage"], output_tokens=1))
        event("message_start", {"message": start})
        event("ping", {})
        for i, block in enumerate(msg["content"]):
            if block["type"] == "text":
                event("content_block_start", {"index": i,
                                              "content_block": {"type": "text", "text": ""}})
                event("content_block_delta", {"index": i, "delta": {"type": "text_delta",
                                                                    "text": block["text"]}})
            else:
                event("content_block_start", {"index": i, "content_block": {
                    "type": "tool_use", "id": block["id"], "name": block["name"],
                    "input": {}}})
                event("content_block_delta", {"index": i, "delta": {
                    "type": "input_json_delta", "partial_json": json.dumps(block["input"])}})
            event("content_block_stop", {"index": i})
        event("message_delta", {"delta": {"stop_reason": msg["stop_reason"],
                                          "stop_sequence": None},
                                "usage": {"output_tokens": msg["usage"]["output_tokens"]}})
        event("message_stop", {})
        self.wfile.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--script", required=True)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--log")
    ap.add_argument("--log-bodies", action="store_true")
    try:
        args = ap.parse_args()
    except SystemExit as e:
        sys.exit(EX_USAGE if e.code else 0)
    try:
        turns = load_script(args.script)
    except (OSError, ValueError) as e:
        print(f"messages_server: cannot read script {args.script}: {e}", file=sys.stderr)
        sys.exit(EX_NOINPUT)
    srv = Server((args.host, args.port), turns, args.log, args.log_bodies)
    port = srv.server_address[1]
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(f"{port}\n")
        os.rename(tmp, args.port_file)  # readers never see a half-written port

    def stop(_sig, _frm):
        threading.Thread(target=srv.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    srv.serve_forever()
    srv.server_close()


if __name__ == "__main__":
    main()

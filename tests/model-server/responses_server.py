#!/usr/bin/env python3
"""A scripted model server speaking the OpenAI Responses API, for testing drones offline.

Usage: responses_server.py --script FILE --log FILE [--port N] [--port-file FILE]

It listens on 127.0.0.1 (port 0, the default, picks a free one and writes it to --port-file).
POST /v1/responses with "stream": true is answered as server-sent events, one scripted turn per
request. The script is a JSON list of turns, served in order:

  {"exec": "touch made.txt"}   run this shell command: a function_call item calling codex's
                               exec_command tool with {"cmd": ...}
  {"patch": "*** Begin Patch\n..."}
                               edit files: a custom_tool_call item calling the apply_patch tool
                               (offered only for models codex knows, e.g. -c model=gpt-5.5)
  {"message": "done"}          end the task with this assistant message (output_text)
  {"fail": "why", "code": "server_error"}
                               a response.failed event; codex retries server_error (5 times),
                               and gives up on other codes (e.g. "invalid_prompt")

Each answer is response.created, the one output item, then response.completed with a fixed usage.
After the last turn every request is answered with the message "script finished".
Every request (method, path, headers, parsed body) and the turn served are appended to --log as
one JSON object per line, so a test can assert what the agent sent (e.g. its function_call_output).
GET /v1/models answers an empty list; any other path answers 404 (and is logged).
"""

import argparse
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FINISHED = {"message": "script finished"}
KINDS = ("exec", "patch", "message", "fail")


def check_turns(turns):
    """Why the script is not a list of turns of the forms above, or None when it is."""
    if not isinstance(turns, list):
        return "expected a JSON list of turns"
    for i, turn in enumerate(turns):
        keys = set(turn) if isinstance(turn, dict) else set()
        kinds = keys & set(KINDS)
        allowed = kinds | ({"code"} if kinds == {"fail"} else set())
        if len(kinds) != 1 or keys != allowed or not all(isinstance(turn[k], str) for k in keys):
            return (f"turn {i}: expected an object with one of {', '.join(KINDS)}, a string"
                    " (and with fail, an optional code)")
    return None


class Script:
    """The turns still to serve, the log, and a counter for ids; shared by all request threads."""

    def __init__(self, turns, log_path):
        self.turns = list(turns)
        self.served = 0
        self.lock = threading.Lock()
        self.log = open(log_path, "a", encoding="utf-8")

    def next_turn(self):
        with self.lock:
            self.served += 1
            return self.served, (self.turns.pop(0) if self.turns else FINISHED)

    def record(self, entry):
        with self.lock:
            self.log.write(json.dumps(entry, sort_keys=True) + "\n")
            self.log.flush()


def output_item(n, turn):
    """The one output item of response number n for this turn."""
    if "exec" in turn:
        args = {"cmd": turn["exec"]}
        return {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}",
                "name": "exec_command", "arguments": json.dumps(args), "status": "completed"}
    if "patch" in turn:
        return {"type": "custom_tool_call", "id": f"ctc_{n}", "call_id": f"call_{n}",
                "name": "apply_patch", "input": turn["patch"], "status": "completed"}
    text = turn.get("message", "")
    return {"type": "message", "id": f"msg_{n}", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def sse_events(n, turn):
    """The server-sent events of response number n: created, the item, completed with usage."""
    rid = f"resp_{n}"
    usage = {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": 110}
    created = {"type": "response.created", "response": {"id": rid, "status": "in_progress"}}
    if "fail" in turn:
        error = {"code": turn.get("code", "server_error"), "message": turn["fail"]}
        events = [created, {"type": "response.failed",
                            "response": {"id": rid, "status": "failed", "error": error}}]
    else:
        events = [
            created,
            {"type": "response.output_item.done", "output_index": 0, "item": output_item(n, turn)},
            {"type": "response.completed",
             "response": {"id": rid, "status": "completed", "usage": usage}},
        ]
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    script = None  # set by main

    def log_message(self, fmt, *args):  # the JSON log is the record; keep stderr quiet
        pass

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return {"unparsed": raw.decode("utf-8", "replace")}

    def reply(self, status, content_type, body):
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def handle_any(self):
        body = self.read_body() if self.command == "POST" else None
        entry = {"method": self.command, "path": self.path, "headers": dict(self.headers),
                 "body": body}
        path = self.path.split("?")[0]
        if self.command == "POST" and path.endswith("/responses"):
            n, turn = self.script.next_turn()
            entry.update(response=n, turn=turn)
            self.script.record(entry)
            self.reply(200, "text/event-stream", sse_events(n, turn))
        elif self.command == "GET" and path.endswith("/models"):
            self.script.record(entry)
            self.reply(200, "application/json", json.dumps({"object": "list", "data": []}))
        else:
            self.script.record(entry)
            self.reply(404, "application/json", json.dumps({"error": {"message": "not scripted"}}))

    do_GET = do_POST = do_PUT = do_DELETE = handle_any


def main():
    ap = argparse.ArgumentParser(description="scripted OpenAI Responses API server")
    ap.add_argument("--script", required=True, help="JSON list of turns")
    ap.add_argument("--log", required=True, help="JSON lines: requests and turns served")
    ap.add_argument("--port", type=int, default=0, help="0 picks a free port")
    ap.add_argument("--port-file", help="where to write the port, once listening")
    args = ap.parse_args()
    with open(args.script, encoding="utf-8") as f:
        turns = json.load(f)
    problem = check_turns(turns)
    if problem:
        ap.exit(2, f"responses_server: cannot use script {args.script}: {problem}\n")
    Handler.script = Script(turns, args.log)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    if args.port_file:  # written whole, then renamed: a reader never sees half a number
        with open(args.port_file + ".tmp", "w", encoding="utf-8") as f:
            f.write(f"{server.server_address[1]}\n")
        os.replace(args.port_file + ".tmp", args.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""An OpenAI Responses API endpoint in front of the eval kit's bridge (../shared/eval/bridge.py).

council speaks the Responses API to OpenAI (COUNCIL_OPENAI_API=responses
OPENAI_BASE_URL=http://127.0.0.1:PORT/v1 OPENAI_API_KEY=bridge). This adapter turns each
POST /v1/responses into the Anthropic Messages request the bridge answers from files, and the
bridge's answer back into a Responses answer, so that answerers see the same requests, in the
same lanes, as on the Anthropic path:

  instructions                      -> system (marked for the bridge's cache accounting)
  a user message's input_text parts -> one user turn of text blocks; the first of several is
                                       the shared prefix, marked as council marks it
  function tools                    -> tools with input_schema (strict is dropped)
  function_call / function_call_output, paired by call_id -> tool_use / tool_result
  tool_choice required / {function} -> {"type": "any"} / {"type": "tool", "name": ...}
  max_output_tokens                 -> max_tokens (16, the API's minimum, is a cache warm-up:
                                       1, which the bridge answers at once)

The bridge picks the lane from the first user turn's text ("# Your role: ..." for a reviewer,
"Finding to check" / "# Issues to check" for the validator): it is council's first message,
passed on unchanged, so the lanes are the Anthropic path's. Answers come back as message and
function_call items (call_id is the bridge's tool_use id), a max_tokens stop as an incomplete
answer, and the usage with the bridge's cache figures: input_tokens counts the cached and
cache-written tokens, input_tokens_details.cached_tokens the cache reads, cache_write_tokens
the writes. Reasoning items are never produced (the bridge does not reason), so none come back.
GET /v1/models/{id} answers that the model exists (council doctor asks). Python 3.11, stdlib.

usage: responses_bridge.py --port P --bridge http://127.0.0.1:B [--timeout S]
"""
import argparse
import itertools
import json
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ids = itertools.count(1)
MIN_OUTPUT_TOKENS = 16  # the Responses API's minimum: council sends it for a warm-up's 1
EPHEMERAL = {"type": "ephemeral"}


def text_of(content):
    """The text of a Responses message's content: a string, or parts with text."""
    if isinstance(content, str):
        return [content]
    return [p.get("text", "") for p in content or [] if isinstance(p, dict)]


def to_messages(items):
    """Responses input items -> Anthropic messages, consecutive blocks of one role in one turn."""
    messages = []

    def add(role, block):
        if messages and messages[-1]["role"] == role:
            messages[-1]["content"].append(block)
        else:
            messages.append({"role": role, "content": [block]})

    for it in items:
        kind = it.get("type") or ("message" if it.get("role") else None)
        if kind == "message":
            role = "assistant" if it.get("role") == "assistant" else "user"
            for t in text_of(it.get("content")):
                if t.strip():
                    add(role, {"type": "text", "text": t})
        elif kind == "function_call":
            try:
                args = json.loads(it.get("arguments") or "{}")
            except ValueError:
                args = {"_arguments": it.get("arguments")}
            add("assistant", {"type": "tool_use", "id": it["call_id"], "name": it["name"], "input": args})
        elif kind == "function_call_output":
            out = it.get("output")
            out = out if isinstance(out, str) else "\n".join(text_of(out))
            block = {"type": "tool_result", "tool_use_id": it["call_id"], "content": out}
            if out.startswith("error: "):  # council's sign of a refused call
                block["is_error"] = True
            add("user", block)
        # reasoning items: the bridge never issues them, so council never sends them
    return messages


def to_messages_request(req):
    """A Responses request body -> the Anthropic Messages request the bridge reads."""
    inp = req.get("input") or []
    items = [{"role": "user", "content": inp}] if isinstance(inp, str) else inp
    out = {"model": req.get("model", "bridge")}
    limit = req.get("max_output_tokens") or 1024
    out["max_tokens"] = 1 if limit <= MIN_OUTPUT_TOKENS else limit
    if req.get("instructions"):
        out["system"] = [{"type": "text", "text": req["instructions"], "cache_control": EPHEMERAL}]
    messages = to_messages(items)
    # Cache marks as council puts them on the Anthropic path: the shared prefix (the first of
    # several blocks of the first turn), and the newest tool result.
    if messages and len(messages[0]["content"]) > 1:
        messages[0]["content"][0]["cache_control"] = EPHEMERAL
    results = [b for m in messages for b in m["content"] if b["type"] == "tool_result"]
    if results:
        results[-1]["cache_control"] = EPHEMERAL
    out["messages"] = messages
    tools = [{"name": t["name"], "description": t.get("description", ""), "input_schema": t.get("parameters") or {"type": "object"}}
             for t in req.get("tools") or [] if t.get("type") == "function"]
    if tools:
        out["tools"] = tools
    choice = req.get("tool_choice")
    if choice == "required":
        out["tool_choice"] = {"type": "any"}
    elif isinstance(choice, dict) and choice.get("type") == "function":
        out["tool_choice"] = {"type": "tool", "name": choice["name"]}
    return out


def to_response(req, msg):
    """The bridge's Messages answer -> a Responses answer."""
    n = next(ids)
    output = []
    for i, b in enumerate(msg.get("content") or []):
        if b.get("type") == "text":
            output.append({"type": "message", "id": "msg_bridge_%d_%d" % (n, i), "role": "assistant", "status": "completed",
                           "content": [{"type": "output_text", "text": b["text"], "annotations": []}]})
        elif b.get("type") == "tool_use":
            output.append({"type": "function_call", "id": "fc_bridge_%d_%d" % (n, i), "call_id": b["id"], "name": b["name"],
                           "arguments": json.dumps(b.get("input") or {}), "status": "completed"})
    u = msg.get("usage") or {}
    read, write = u.get("cache_read_input_tokens", 0), u.get("cache_creation_input_tokens", 0)
    fresh, out_tokens = u.get("input_tokens", 0), u.get("output_tokens", 0)
    incomplete = msg.get("stop_reason") == "max_tokens"
    return {
        "id": "resp_bridge_%d" % n, "object": "response", "created_at": int(time.time()),
        "status": "incomplete" if incomplete else "completed",
        "incomplete_details": {"reason": "max_output_tokens"} if incomplete else None,
        "error": None, "model": msg.get("model") or req.get("model"), "output": output,
        "parallel_tool_calls": True, "store": False, "tool_choice": req.get("tool_choice", "auto"), "tools": req.get("tools") or [],
        "usage": {"input_tokens": fresh + read + write, "input_tokens_details": {"cached_tokens": read, "cache_write_tokens": write},
                  "output_tokens": out_tokens, "output_tokens_details": {"reasoning_tokens": 0},
                  "total_tokens": fresh + read + write + out_tokens},
    }


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send_json(self, code, obj):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def error(self, code, message, typ="invalid_request_error"):
        self.send_json(code, {"error": {"message": message, "type": typ, "param": None, "code": None}})

    def do_GET(self):
        if "/models/" in self.path:
            model = self.path.split("/models/", 1)[1]
            return self.send_json(200, {"id": model, "object": "model", "created": 0, "owned_by": "bridge", "shutdown_date": None})
        self.error(404, "Invalid URL (GET %s)" % self.path)

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        if not self.path.endswith("/responses"):
            return self.error(404, "Invalid URL (POST %s)" % self.path)
        try:
            req = json.loads(raw)
        except ValueError:
            return self.error(400, "We could not parse the JSON body of your request.")
        body = json.dumps(to_messages_request(req)).encode()
        fwd = urllib.request.Request(self.server.bridge + "/v1/messages", data=body, method="POST",
                                     headers={"content-type": "application/json", "x-api-key": "bridge", "anthropic-version": "2023-06-01"})
        try:
            with urllib.request.urlopen(fwd, timeout=self.server.timeout) as r:
                msg = json.load(r)
        except urllib.error.HTTPError as e:
            try:
                err = json.load(e).get("error") or {}
            except ValueError:
                err = {}
            return self.error(e.code, err.get("message") or str(e), err.get("type") or "server_error")
        except (urllib.error.URLError, TimeoutError) as e:
            return self.error(502, "the bridge did not answer: %s" % e, "server_error")
        self.send_json(200, to_response(req, msg))


def main():
    ap = argparse.ArgumentParser(description="An OpenAI Responses API endpoint in front of the eval kit's bridge.")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--bridge", required=True, help="the bridge's base URL, e.g. http://127.0.0.1:18500")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds to wait for the bridge's answer")
    a = ap.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.bridge, srv.timeout = a.bridge.rstrip("/"), a.timeout
    srv.serve_forever()


if __name__ == "__main__":
    main()

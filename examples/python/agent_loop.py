"""agent_loop is a complete agent backend loop on toolhost: hand the model the tool list, carry
out each tool call it makes with CallTool, send the results back, until it answers in text.

    .venv/bin/python examples/python/agent_loop.py --addr 127.0.0.1:50051

The "model" here is scripted (ScriptedModel) so the loop runs anywhere, in CI included; swap
it for a real client (OpenAI's chat.completions.create(tools=..., messages=...) takes the
same list and returns the same tool_calls shape). Nothing in the loop knows any tool: names
and arguments go to CallTool exactly as the model produced them.
"""

import argparse
import json
import sys
from typing import Any

import grpc

from toolhost.tools.v1 import tools_pb2, tools_pb2_grpc


class ScriptedModel:
    """Plays a model that edits a file: it reads it, fixes a typo, reads it again, and answers.

    It speaks the OpenAI Chat Completions shape: an assistant message with tool_calls, or one
    with content when it is done. Its second call also makes a mistake (a path outside the
    roots) to show that a refused call comes back as a tool result the model can read.
    """

    def __init__(self) -> None:
        self.turn = 0

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        names = {t["function"]["name"] for t in tools}
        assert {"file_read", "file_edit"} <= names, f"tools missing: {names}"
        self.turn += 1
        if self.turn == 1:
            return call("c1", "file_read", {"path": "greeting.txt"})
        if self.turn == 2:
            assert "helo" in messages[-1]["content"], messages[-1]
            return call("c2", "file_edit", {"path": "greeting.txt", "edits": [{"replace": {"oldText": "helo", "newText": "hello"}}]},
                        ("c3", "file_read", {"path": "../../etc/passwd"}))
        if self.turn == 3:
            assert "+hello" in messages[-2]["content"], messages[-2]
            assert messages[-1]["content"].startswith("Error (PATH_TRAVERSAL)"), messages[-1]
            return call("c4", "file_read", {"path": "greeting.txt"})
        return {"role": "assistant", "content": "Fixed the typo: " + messages[-1]["content"].split("\t", 1)[1].strip()}


def call(call_id: str, name: str, args: dict[str, Any], *more: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    """Builds an assistant message with tool calls, as a model API returns it."""
    calls = [(call_id, name, args), *more]
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}} for i, n, a in calls],
    }


def run(addr: str) -> str:
    with grpc.insecure_channel(addr) as channel:
        tools_api = tools_pb2_grpc.ToolsStub(channel)
        # 1. The tool list, already in the model API's shape.
        listed = tools_api.ListTools(tools_pb2.ListToolsRequest(dialect=tools_pb2.DIALECT_OPENAI), timeout=30)
        tools = json.loads(listed.rendered)
        model = ScriptedModel()
        messages: list[dict[str, Any]] = [{"role": "user", "content": "Fix the typo in greeting.txt."}]
        for _ in range(10):
            # 2. The model answers: text (done) or tool calls.
            reply = model.complete(messages, tools)
            messages.append(reply)
            if not reply.get("tool_calls"):
                return str(reply["content"])
            # 3. Each tool call goes to CallTool as it came; its content goes back to the model.
            for tc in reply["tool_calls"]:
                result = tools_api.CallTool(
                    tools_pb2.CallToolRequest(name=tc["function"]["name"], arguments=tc["function"]["arguments"], session_id="demo"),
                    timeout=60,
                )
                print(f"{tc['function']['name']}: {'error ' + result.reason if result.is_error else 'ok'}")
                messages.append({"role": "tool", "tool_call_id": tc["id"], "content": result.content})
        raise RuntimeError("the model did not finish in 10 turns")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--addr", default="127.0.0.1:50051")
    answer = run(parser.parse_args().addr)
    print(answer)
    return 0


if __name__ == "__main__":
    sys.exit(main())

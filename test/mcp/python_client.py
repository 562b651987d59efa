"""Drives strata's MCP server with the official Python `mcp` package, as an independent
client: over stdio (`strata mcp`) or Streamable HTTP (`strata serve`'s /mcp). Prints one
JSON object of what it saw; the test (python.slow.test.ts) checks it.

Usage: python python_client.py stdio COMMAND [ARG…] | python python_client.py http URL
Environment: STRATA_MCP_PACK, the pack folder the test edits (its CrewAI agents.yaml).
"""

import json
import os
import sys

import anyio
import mcp.types as types
from mcp import ClientSession, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

PACK = os.environ["STRATA_MCP_PACK"]
AGENTS = os.path.join(PACK, "config", "agents.yaml")


async def drive(read, write):
    seen = {"list_changed": 0}
    changed = anyio.Event()

    async def on_message(message):
        method = getattr(getattr(message, "root", message), "method", None)
        if method == "notifications/prompts/list_changed":
            seen["list_changed"] += 1
            changed.set()

    out = {}
    async with ClientSession(read, write, message_handler=on_message) as session:
        init = await session.initialize()
        out["server"] = init.server_info.name
        out["listChanged"] = bool(init.capabilities.prompts and init.capabilities.prompts.list_changed)
        listed = await session.list_prompts()
        out["prompts"] = [
            {
                "name": p.name,
                "description": p.description,
                "arguments": [{"name": a.name, "required": bool(a.required)} for a in (p.arguments or [])],
            }
            for p in listed.prompts
        ]
        got = await session.get_prompt("market_analyst", {"sector": "AI agents", "quarter": "Q3 2026"})
        out["get"] = {
            "role": got.messages[0].role,
            "type": got.messages[0].content.type,
            "text": got.messages[0].content.text,
            "meta": got.meta,
        }
        out["missing"] = await error_of(session.get_prompt("report_writer", {}))
        out["unknown"] = await error_of(session.get_prompt("market_analist", {}))
        # The pack changes: the server says so, and the next get has the new text.
        with open(AGENTS, encoding="utf-8") as f:
            text = f.read()
        with open(AGENTS, "w", encoding="utf-8") as f:
            f.write(text.replace("Confirm every figure", "Confirm each figure"))
        with anyio.fail_after(60):
            await changed.wait()
        out["list_changed"] = seen["list_changed"]
        relisted = await session.list_prompts()
        out["relisted"] = {p.name: p.description for p in relisted.prompts}
        regot = await session.get_prompt("fact_checker", {})
        out["regot"] = {"text": regot.messages[0].content.text, "meta": regot.meta}
    return out


async def error_of(call):
    try:
        await call
    except MCPError as e:
        return {"code": e.code, "message": e.message, "data": e.data}
    return None


async def main():
    mode = sys.argv[1]
    if mode == "stdio":
        params = StdioServerParameters(command=sys.argv[2], args=sys.argv[3:], env=dict(os.environ))
        async with stdio_client(params) as (read, write):
            out = await drive(read, write)
    else:
        async with streamable_http_client(sys.argv[2]) as streams:
            out = await drive(streams[0], streams[1])
    print(json.dumps(out))


anyio.run(main)

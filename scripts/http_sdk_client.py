#!/usr/bin/env python3
"""filewright over Streamable HTTP, driven by the official MCP Python SDK (pip `mcp`).

    http_sdk_client.py URL --writer TOKEN --reader TOKEN --writer-agent NAME

URL is the server's `/mcp` endpoint; the server runs with a token file in which TOKEN of
--writer maps to agent NAME with a writing profile and TOKEN of --reader to a readonly one.

The SDK parses every result into its own types and re-validates each structuredContent against
the tool's outputSchema, so a result filewright shapes wrongly fails here. On top of that this
checks what a user of an HTTP file server relies on: the session transport and the stateless
2026-07-28 one both work, the recorded agent is the token's and never the `agent` argument,
a readonly token cannot write, and a call without a token is refused with a challenge that
names the protected-resource metadata.

Prints PASS/FAIL per check, then `http-sdk: P/T pass`; exits 0 only when all passed.
"""
import argparse
import json
import sys

try:
    import anyio
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client
    from mcp.shared.exceptions import MCPError
except ImportError as e:  # pragma: no cover
    print(f"http-sdk: cannot import the mcp SDK ({e})", file=sys.stderr)
    sys.exit(2)

ROWS = []


def check(name, ok, detail=""):
    ROWS.append(ok)
    print(f"{'PASS' if ok else 'FAIL'} {name}" + (f": {detail}" if detail else ""), flush=True)


def text_of(result):
    return "".join(getattr(b, "text", "") or "" for b in result.content or [])


def short(s, n=240):
    s = str(s).replace("\n", "\\n")
    return s if len(s) <= n else s[:n] + "..."


async def connect(url, token, mode, body):
    """Runs `body(session)` on a session of `mode` ("session": initialize; "stateless": discover)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with create_mcp_http_client(headers=headers) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                with anyio.fail_after(30):
                    if mode == "session":
                        await session.initialize()
                    else:
                        await session.discover()
                return await body(session)


async def call(session, name, args):
    with anyio.fail_after(60):
        return await session.call_tool(name, args)


async def writer_checks(url, token, agent, mode):
    async def body(session):
        check(f"{mode}: protocol", session.protocol_version is not None, f"negotiated {session.protocol_version}")
        tools = (await session.list_tools()).tools
        names = {t.name for t in tools}
        check(f"{mode}: tools/list", {"write_file", "append_file", "read_file"} <= names, f"{len(names)} tools")
        path = f"http-sdk-{mode}.txt"
        first = await call(session, "write_file", {"path": path, "content": "part one\n"})
        check(f"{mode}: write_file", not first.is_error, short(text_of(first)))
        second = await call(session, "append_file", {"path": path, "content": "part two\n"})
        check(f"{mode}: append_file", not second.is_error, short(text_of(second)))
        read = await call(session, "read_file", {"path": path})
        check(f"{mode}: read_file sees both parts", "part one" in text_of(read) and "part two" in text_of(read))
        forged = await call(session, "write_file", {"path": path, "content": "forged\n", "agent": "someone-else"})
        check(f"{mode}: a forged agent argument is refused", forged.is_error, short(text_of(forged)))
        claims = await call(session, "list_claims", {})
        owners = json.dumps(claims.structured_content or {})
        check(f"{mode}: the claim is recorded for the token's agent",
              not claims.is_error and agent in owners and "someone-else" not in owners, short(owners))
        after = await call(session, "read_file", {"path": path})
        check(f"{mode}: the forged write changed nothing", "forged" not in text_of(after))

    await connect(url, token, mode, body)


async def reader_checks(url, token):
    async def body(session):
        names = {t.name for t in (await session.list_tools()).tools}
        check("readonly: tools/list leaves out the writing tools", "read_file" in names and "write_file" not in names,
              ", ".join(sorted(names)))
        try:
            result = await call(session, "write_file", {"path": "http-sdk-session.txt", "content": "reader\n"})
            refused, detail = result.is_error, short(text_of(result))
        except MCPError as e:
            refused, detail = True, short(e)
        check("readonly: write_file is refused", refused, detail)
        read = await call(session, "read_file", {"path": "http-sdk-session.txt"})
        check("readonly: the file is unchanged", "reader" not in text_of(read) and "part one" in text_of(read))

    await connect(url, token, "session", body)


async def unauthenticated_checks(url):
    async with httpx2.AsyncClient() as http:
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "probe", "version": "0"}}}
        headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        for label, extra in (("no token", {}), ("a wrong token", {"Authorization": "Bearer not-a-token-of-this-server"})):
            r = await http.post(url, json=init, headers={**headers, **extra})
            challenge = r.headers.get("www-authenticate", "")
            check(f"{label}: 401 with a resource_metadata challenge",
                  r.status_code == 401 and "resource_metadata=" in challenge, f"{r.status_code} {short(challenge)}")
        meta_url = challenge.split('resource_metadata="', 1)[-1].split('"', 1)[0] if challenge else ""
        if meta_url:
            m = await http.get(meta_url)
            doc = m.json() if m.status_code == 200 else {}
            check("protected-resource metadata names the resource", doc.get("resource", "").endswith("/mcp"), short(doc))
        try:
            await connect(url, None, "session", lambda s: anyio.sleep(0))
            check("the SDK without a token cannot connect", False, "it connected")
        except BaseException as e:  # noqa: BLE001  (ExceptionGroup from the SDK's task groups)
            check("the SDK without a token cannot connect", True, type(e).__name__)


async def main(a):
    for mode in ("session", "stateless"):
        try:
            await writer_checks(a.url, a.writer, a.writer_agent, mode)
        except BaseException as e:  # noqa: BLE001
            check(f"{mode}: session", False, f"{type(e).__name__}: {short(e)}")
    try:
        await reader_checks(a.url, a.reader)
    except BaseException as e:  # noqa: BLE001
        check("readonly: session", False, f"{type(e).__name__}: {short(e)}")
    await unauthenticated_checks(a.url)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("url")
    ap.add_argument("--writer", required=True)
    ap.add_argument("--reader", required=True)
    ap.add_argument("--writer-agent", required=True)
    args = ap.parse_args()
    anyio.run(main, args)
    passed = sum(ROWS)
    print(f"http-sdk: {passed}/{len(ROWS)} pass")
    sys.exit(0 if ROWS and passed == len(ROWS) else 1)

# A documented check with the Python MCP SDK (PyPI `mcp`, tried with 2.3.0): a second real client
# beside the rmcp client of tests/api/mcp.rs. With the server running and a key registered:
#   pip install mcp && python3 tests/clients/mcp_python_check.py http://127.0.0.1:8080/mcp/ "$KEY"
# It initializes, lists the tools, searches, evaluates a placeholder draft (not_useful), gets a
# tool error with the 422 detail for a bad entry, and lists the resources.
import asyncio, sys, json
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
import httpx2

async def main(url, key):
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"})
    async with streamable_http_client(url, http_client=http) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            print("protocol", init.protocol_version, "server", init.server_info.name)
            tools = await session.list_tools()
            print("tools", [t.name for t in tools.tools])
            r = await session.call_tool("search_records", {"query": "plumber"})
            print("search isError", r.is_error, "structured keys", list((r.structured_content or {}).keys()))
            r = await session.call_tool("evaluate_entry_draft", {"entry_type": "entity", "latitude": 0, "longitude": 0, "context": {"display_name": "Test Company"}})
            print("evaluate", r.structured_content["verdict"], [f["code"] for f in r.structured_content["findings"]])
            r = await session.call_tool("create_space_time_entry", {"entry_type": "entity", "latitude": 95, "longitude": 0})
            print("bad create isError", r.is_error, json.dumps(r.structured_content)[:160])
            res = await session.list_resources()
            print("resources", len(res.resources))

asyncio.run(main(sys.argv[1], sys.argv[2]))

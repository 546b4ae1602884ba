# A second real MCP client beside the rmcp client of tests/api/mcp.rs: the Python MCP SDK (PyPI
# `mcp`, pinned in tests/requirements.txt), run by tests/clients/mcp-python.sh against a running
# server with a registered key:
#   python3 tests/clients/mcp_python_check.py http://127.0.0.1:8080/mcp/ "$KEY"
# It initializes, lists the tools, searches, evaluates a placeholder draft (not_useful), gets a
# tool error with the 422 detail for a bad entry, lists the resources and resource templates,
# lists the prompts and gets one, completes prompt and template arguments, and sets the log
# level. Every step is checked; the first wrong answer stops it with a non-zero exit. The SDK
# validates structured content against each tool's output schema itself.
import asyncio
import json
import sys
import warnings

import httpx2
from mcp import ClientSession, types
from mcp.client.streamable_http import streamable_http_client


def check(condition, what):
    if not condition:
        raise SystemExit(f"mcp-python: FAILED: {what}")
    print(f"mcp-python: ok: {what}")


async def main(url, key):
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"})
    async with streamable_http_client(url, http_client=http) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check(init.server_info.name == "spacetime-records", f"initialize (protocol {init.protocol_version})")
            capabilities = init.capabilities
            check(capabilities.prompts is not None and capabilities.completions is not None,
                  "prompts and completions declared")

            tools = await session.list_tools()
            names = [t.name for t in tools.tools]
            check(len(names) == 10 and "search_records" in names, f"ten tools listed: {names}")

            r = await session.call_tool("search_records", {"query": "plumber"})
            check(not r.is_error and "results" in (r.structured_content or {}), "search_records answers")

            r = await session.call_tool("evaluate_entry_draft", {
                "entry_type": "entity", "latitude": 0, "longitude": 0,
                "context": {"display_name": "Test Company"}})
            check(r.structured_content["verdict"] == "not_useful",
                  f"a placeholder draft is not_useful: {[f['code'] for f in r.structured_content['findings']]}")

            r = await session.call_tool("create_space_time_entry", {"entry_type": "entity", "latitude": 95, "longitude": 0})
            detail = (r.structured_content or {}).get("detail") or [{}]
            check(r.is_error and r.structured_content.get("status") == 422
                  and detail[0].get("loc") == ["arguments", "latitude"],
                  f"a bad entry is a tool error with the 422 detail: {json.dumps(r.structured_content)[:160]}")

            resources = await session.list_resources()
            check(len(resources.resources) > 10, f"{len(resources.resources)} resources listed")
            templates = await session.list_resource_templates()
            check(len(templates.resource_templates) == 3, "three resource templates listed")

            prompts = await session.list_prompts()
            prompt_names = [p.name for p in prompts.prompts]
            check(prompt_names == ["publish_entry", "explain_provenance", "review_for_me"],
                  f"prompts listed: {prompt_names}")
            prompt = await session.get_prompt("publish_entry", {"entry_type": "request"})
            text = json.dumps([m.model_dump(mode="json") for m in prompt.messages])
            check("search_records" in text and "strs://rubrics/request" in text,
                  f"publish_entry comes with its flow and rubric ({len(prompt.messages)} messages)")
            review = await session.get_prompt("review_for_me")
            check(len(review.messages) == 1, "review_for_me answers")

            done = await session.complete(
                types.PromptReference(type="ref/prompt", name="publish_entry"),
                {"name": "entry_type", "value": "obs"})
            check(done.completion.values == ["observation"], f"entry_type completes: {done.completion.values}")
            done = await session.complete(
                types.ResourceTemplateReference(type="ref/resource", uri="strs://rubrics/{entry_type}"),
                {"name": "entry_type", "value": ""})
            check(done.completion.values == ["entity", "listing", "request"],
                  f"rubric slugs complete: {done.completion.values}")

            # The SDK warns that logging is deprecated (SEP-2577); the server still offers it and
            # older clients still use it, so it is checked, without the warning in the CI log.
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message="The logging capability is deprecated")
                await session.set_logging_level("info")
            check(True, "logging/setLevel accepted")


asyncio.run(main(sys.argv[1], sys.argv[2]))

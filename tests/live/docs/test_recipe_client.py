"""The recipes' GDScript client (docs/recipes.md, "Serve Godot clients"), run by Godot 4.6
through the harness beside this file, joins the recipe's Python server and hears a Python
client speak."""

from __future__ import annotations

import asyncio
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from gdvariant.asyncio import connect, serve
from tests.support import processes
from tests.support.engines import Engine
from tests.support.paths import DOCS

pytestmark = [pytest.mark.engine, pytest.mark.slow]

RECIPES = (DOCS / "recipes.md").read_text()
HARNESS = Path(__file__).parent / "recipe_client_harness.gd"


def _recipe(heading: str, language: str) -> str:
    """The first ``language`` block under one ``## heading`` of the recipes."""
    section = RECIPES.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    blocks: list[str] = re.findall(rf"```{language}\n(.*?)```", section, re.S)
    return blocks[0]


def test_recipe_gdscript_client_talks_to_the_recipe_server(godot4: Engine) -> None:
    """The recipe's Godot client, run by Godot 4.6, joins the recipe's server and hears a
    Python client speak."""
    server_code = _recipe("Serve Godot clients", "python")
    namespace: dict[str, Any] = {}
    exec(compile(server_code.replace("asyncio.run(main())", ""), "recipes.md", "exec"), namespace)
    handler = namespace["handler"]

    async def session(here: Path, inside: str) -> tuple[str, str]:
        async with await serve(handler, "127.0.0.1", 0) as server:
            port = server.sockets[0].getsockname()[1]
            client = _recipe("Serve Godot clients", "gdscript").replace("9080", str(port))
            (here / "client.gd").write_text(client)
            shutil.copy(HARNESS, here)
            godot = processes.watch(
                await asyncio.create_subprocess_exec(
                    *godot4.command(HARNESS.name, [f"{inside}/client.gd"], inside),
                    cwd=here,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE,
                )
            )
            stdout = godot.stdout
            assert stdout is not None
            printed: list[str] = []

            async def until(text: str) -> None:
                while text not in (line := (await stdout.readline()).decode()):
                    assert line, f"Godot ended before printing {text}: {printed}"
                    printed.append(line)

            try:
                await asyncio.wait_for(until('"welcome": "godot"'), 60)  # it joined
                ann = await connect("127.0.0.1", port)
                await ann.put_var({"join": "ann"})
                assert await ann.get_var() == {"welcome": "ann", "players": ["ann", "godot"]}
                await ann.put_var({"say": "hi"})
                assert await ann.get_var() == {"from": "ann", "say": "hi"}
                await asyncio.wait_for(until('"say": "hi"'), 60)  # Godot heard it
                await ann.close()
            except BaseException:
                godot.kill()
                raise
        _, err = await asyncio.wait_for(godot.communicate(), 60)  # it quits once closed
        return str(godot.returncode), err.decode(errors="replace")

    with godot4.workdir() as (here, inside):
        status, stderr = asyncio.run(session(here, inside))
    assert (status, "SCRIPT ERROR" in stderr) == ("0", False), stderr

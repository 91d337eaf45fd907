"""The package's modules import each other without a cycle (http.py and server.py once did, one
of them from inside functions to get by): every import, at any depth, counts."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "asyncio_patterns"


def _graph() -> dict[str, set[str]]:
    names = {p.stem for p in PACKAGE.glob("*.py")}
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.glob("*.py"):
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "asyncio_patterns":
                edges.update(a.name for a in node.names if a.name in names)
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "asyncio_patterns."
            ):
                edges.add(node.module.split(".")[1])
            elif isinstance(node, ast.Import):
                edges.update(
                    a.name.split(".")[1]
                    for a in node.names
                    if a.name.startswith("asyncio_patterns.")
                )
        graph[path.stem] = edges - {path.stem}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1 on the path, 2 done

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path, node, nxt]
            if nxt not in state and (found := visit(nxt, [*path, node])):
                return found
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start, [])):
            return found
    return None


def test_the_graph_sees_imports():
    graph = _graph()
    assert "loopback" in graph["http"] and "loopback" in graph["server"]


def test_no_import_cycle():
    assert _cycle(_graph()) is None


def test_a_cycle_is_found():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]

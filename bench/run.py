#!/usr/bin/env python3
"""Sift benchmark (Python 3.11, stdlib only).

Generates Sift programs into a temporary directory and times
`sift verify --json` on each:

  (a) chain   -- the paper's Figure 11 snippet: n cells created and set,
                 then an assertion on the first one;
  (b) ifs     -- section 6.1's method with n independent if-statements,
                 without joins, with one `join true;` in the middle, and
                 with a `join true;` after every if-statement;
  (c) straight-- a straight-line method of 10,000 assignments.

Every generated program must verify (exit status 0); anything else is a
failed row.  See bench/README.md.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import resources  # noqa: E402  (bench/resources.py)

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
DEFAULT_SIFT = REPO / "target" / "release" / "sift"

# A run whose first wall time is below this is repeated (best of 3).
SMALL_SECONDS = 5.0


# --------------------------------------------------------------------------
# Program generators
# --------------------------------------------------------------------------

CELL = """\
class Cell {
  int x;
  Cell(int v) ensures valid() && getX() == v; { x = v; close valid(); use getX(); }
  void setX(int v) requires valid(); ensures valid() && getX() == v;
  { open valid(); x = v; close valid(); use getX(); }
  predicate valid() { return acc(x); }
  pure int getX() requires valid(); { return opening valid() in x; }
}
"""


def gen_chain(n: int) -> str:
    """Figure 11: create n cells, set each, assert on the first."""
    lines = [CELL, "class Main {", "  static void main() {"]
    for i in range(1, n + 1):
        lines.append(f"    Cell c{i} = new Cell(0); c{i}.setX({i});")
    lines.append("    assert c1.getX() == 1;")
    lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def gen_ifs(n: int, joins: str) -> str:
    """Section 6.1: n independent if-statements.

    joins: "none", "middle" (one `join true;` after if n//2) or "every"
    (a `join true;` after every if-statement)."""
    params = ", ".join(f"int x{i}" for i in range(1, n + 1))
    lines = ["class Main {", f"  static void m({params}) {{", "    int y = 0;"]
    for i in range(1, n + 1):
        lines.append(f"    if (x{i} == 0) {{ y = 1; }} else {{ y = 2; }}")
        if joins == "every" or (joins == "middle" and i == n // 2):
            lines.append("    join true;")
    lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def gen_straight(n: int) -> str:
    """A straight-line method of n assignments, then an assertion."""
    lines = ["class Main {", "  static void m() {", "    int x = 0;"]
    lines.extend("    x = x + 1;" for _ in range(n))
    lines.append(f"    assert x == {n};")
    lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------


@dataclass
class Row:
    suite: str          # "chain", "ifs-none", "ifs-middle", "ifs-every", "straight"
    n: int
    method: str         # method whose time_ms / queries is reported
    ok: bool = False
    status: str = ""    # "ok", "exit N", "timeout", "bad json", ...
    wall: float | None = None          # best wall-clock seconds
    walls: list[float] = field(default_factory=list)
    method_ms: float | None = None     # verifier's own time for `method`
    queries: int | None = None         # verifier's query count for `method`
    total_ms: float | None = None      # sum of time_ms over all members
    total_queries: int | None = None
    size_kb: float = 0.0
    detail: str = ""    # first error lines on failure

    def num_paths(self) -> int:
        if self.suite == "ifs-none":
            return 2 ** self.n
        if self.suite == "ifs-middle":
            return 2 ** (self.n // 2) + 2 ** (self.n - self.n // 2)
        if self.suite == "ifs-every":
            return 2 * self.n
        return 1

    def paths(self) -> str:
        if self.suite == "ifs-none":
            return f"2^{self.n}"
        if self.suite == "ifs-middle":
            a, b = self.n // 2, self.n - self.n // 2
            return f"2^{a}+2^{b}"
        if self.suite == "ifs-every":
            return f"{self.n}x2"
        return "1"


def run_once(sift: Path, path: Path, timeout: float, jobs: int | None):
    cmd = [str(sift), "verify", "--json", str(path)]
    if jobs is not None:
        cmd[2:2] = ["--jobs", str(jobs)]
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - t0, "", ""
    return p.returncode, time.perf_counter() - t0, p.stdout, p.stderr


def first_errors(stdout: str, stderr: str, limit: int = 5) -> str:
    out: list[str] = []
    try:
        doc = json.loads(stdout)
        for f in doc.get("files", []):
            for e in f.get("errors", []):
                out.append(f"{e.get('kind')} at {e.get('line')}:{e.get('column')}"
                           f" in {e.get('method')}: {e.get('message')}")
    except (json.JSONDecodeError, AttributeError):
        out.extend(l for l in stdout.splitlines() if l.strip())
    out.extend(l for l in stderr.splitlines() if l.strip())
    return "\n".join(out[:limit])


def measure(row: Row, src: str, workdir: Path, sift: Path, timeout: float,
            jobs: int | None, reps: int) -> Row:
    path = workdir / f"{row.suite}_{row.n}.sift"
    path.write_text(src)
    row.size_kb = len(src.encode()) / 1024
    for rep in range(reps):
        rc, wall, out, err = run_once(sift, path, timeout, jobs)
        if rc is None:
            row.status = f"timeout >{timeout:g}s"
            row.detail = f"no result within {timeout:g} s"
            return row
        if rc != 0:
            row.status = f"exit {rc}"
            row.detail = first_errors(out, err)
            return row
        row.walls.append(wall)
        try:
            doc = json.loads(out)
            methods = [m for f in doc["files"] for m in f["methods"]]
        except (json.JSONDecodeError, KeyError, TypeError):
            row.status = "bad json"
            row.detail = out[:300]
            return row
        # Best of the runs, for each measure separately.
        row.wall = min(row.walls)
        total_ms = sum(float(m.get("time_ms") or 0) for m in methods)
        row.total_ms = total_ms if row.total_ms is None else min(row.total_ms, total_ms)
        row.total_queries = sum(int(m.get("queries") or 0) for m in methods)
        for m in methods:
            if m.get("name") == row.method:
                ms = m.get("time_ms")
                if ms is not None:
                    ms = float(ms)
                    row.method_ms = ms if row.method_ms is None else min(row.method_ms, ms)
                row.queries = m.get("queries")
        # Best of 3 only for small runs; big ones run once.
        if rep == 0 and wall >= SMALL_SECONDS:
            break
    row.ok = True
    row.status = "ok"
    return row


# --------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------


def fmt_s(x: float | None) -> str:
    if x is None:
        return "-"
    if x < 10:
        return f"{x:.3f}"
    return f"{x:.1f}"


def fmt_ms(x) -> str:
    if x is None:
        return "-"
    return f"{float(x):.1f}"


def table(rows: list[Row], with_paths: bool) -> str:
    head = ["n"]
    if with_paths:
        head.append("paths")
    head += ["status", "wall s (best)", "runs", "method ms", "method queries",
             "all members ms", "all queries", "ratio wall", "ratio method ms"]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---" for _ in head) + "|"]
    prev: Row | None = None
    for r in rows:
        ratio = mratio = "-"
        if prev is not None and prev.ok and r.ok and prev.wall and r.wall:
            ratio = f"{r.wall / prev.wall:.2f}"
            if prev.method_ms and r.method_ms:
                mratio = f"{float(r.method_ms) / float(prev.method_ms):.2f}"
        cells = [str(r.n)]
        if with_paths:
            cells.append(r.paths())
        cells += [r.status, fmt_s(r.wall), str(len(r.walls)), fmt_ms(r.method_ms),
                  "-" if r.queries is None else str(r.queries), fmt_ms(r.total_ms),
                  "-" if r.total_queries is None else str(r.total_queries), ratio, mratio]
        lines.append("| " + " | ".join(cells) + " |")
        prev = r
    return "\n".join(lines)


def _fit(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Least-squares line y = a + b x; returns (slope b, residual sum of squares)."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0
    a = my - b * mx
    return b, sum((y - a - b * x) ** 2 for x, y in zip(xs, ys))


def growth(rows: list[Row], base_ms: float) -> str:
    """Describe how the verifier's own time for the method grows with n.

    Uses `time_ms` of the benchmarked method minus that of an empty method
    (fixed per-method cost), ignoring points where what is left is under
    5 ms or under the empty method's time: those are noise.
    Fits both t ~ n^k (log t against log n) and t ~ b^n (log t against n)
    and reports the better fit."""
    pts = [(r.n, float(r.method_ms) - base_ms) for r in rows
           if r.ok and r.method_ms is not None]
    pts = [(n, t) for n, t in pts if t > max(5.0, base_ms)]
    if len(pts) < 2:
        return ("fewer than two rows where the method's own time clearly exceeds "
                "an empty method's, so there is no growth to measure")
    steps = [f"{n1}->{n2}: x{t2 / t1:.2f}" for (n1, t1), (n2, t2) in zip(pts, pts[1:])]
    ns = [float(n) for n, _ in pts]
    lt = [math.log(t) for _, t in pts]
    k, res_poly = _fit([math.log(n) for n in ns], lt)
    lb, res_exp = _fit(ns, lt)
    b = math.exp(lb)
    if len(pts) == 2:
        use_exp = ns[1] - ns[0] <= 2 and b > 1.4
    else:
        use_exp = res_exp < res_poly and b > 1.2
    if use_exp:
        verdict = (f"exponential: time multiplies by ~{b:.2f} per extra n "
                   f"(best fit t ~ {b:.2f}^n)")
    else:
        kind = ("sub-linear / dominated by fixed costs" if k < 0.8 else
                "linear" if k < 1.3 else
                "between linear and quadratic" if k < 1.7 else
                "quadratic" if k < 2.4 else "super-quadratic")
        verdict = f"{kind}: best fit t ~ n^{k:.2f}"
    last = [r for r in rows if r.ok and r.method_ms is not None][-1]
    if last.num_paths() > 1:
        verdict += (f"; at n = {last.n}, {last.num_paths()} paths: "
                    f"{float(last.method_ms) / last.num_paths():.3f} ms per path")
    if len(pts) > 2:
        verdict += (f"; the other fit: {'t ~ n^%.2f' % k if use_exp else 't ~ %.2f^n' % b}"
                    f" (log residuals: power {res_poly:.3f}, exponential {res_exp:.3f})")
    else:
        verdict += "; only two usable rows, so the shape is a guess"
    return (verdict + f" (fit over n = {pts[0][0]}..{pts[-1][0]}, method ms minus "
            f"an empty method's {base_ms:.1f} ms). Successive ratios of method ms: "
            + ", ".join(steps))


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def machine_info() -> dict[str, str]:
    info: dict[str, str] = {}
    info["nproc"] = str(os.cpu_count())
    try:
        info["nproc"] = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip() or info["nproc"]
    except OSError:
        pass
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    info["cpu"] = cpu
    mem = "unknown"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                kb = int(line.split()[1])
                mem = f"{kb / 1024 / 1024:.1f} GiB"
                break
    except OSError:
        pass
    info["memory"] = mem
    info["os"] = f"{platform.system()} {platform.release()}"
    info["date"] = _dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    commit = "uncommitted"
    try:
        p = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                           capture_output=True, text=True)
        if p.returncode == 0 and p.stdout.strip():
            commit = p.stdout.strip()
            d = subprocess.run(["git", "status", "--porcelain", "--", "src",
                                "Cargo.toml", "Cargo.lock", "prelude.smt2"],
                               cwd=REPO, capture_output=True, text=True)
            if d.stdout.strip():
                commit += " + uncommitted changes in src/"
    except OSError:
        pass
    info["commit"] = commit
    z3 = "z3 binary not found (Sift links Z3 through the z3 crate)"
    if shutil.which("z3"):
        p = subprocess.run(["z3", "--version"], capture_output=True, text=True)
        z3 = p.stdout.strip() or z3
    info["z3"] = z3
    info["load_before"] = loadavg()
    return info


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------


def plan(quick: bool):
    """Yield (suite, n, method, generator) in run order."""
    if quick:
        chain_ns = [10, 100]
        ifs_ns = list(range(4, 11))
        every_ns = list(range(4, 11)) + [100]
        straight_ns = [1000]
    else:
        chain_ns = [10, 100, 1000, 10000]
        ifs_ns = list(range(4, 17))
        every_ns = list(range(4, 17)) + [100]
        straight_ns = [10000]
    for n in chain_ns:
        yield "chain", n, "Main.main", lambda n=n: gen_chain(n)
    for n in ifs_ns:
        yield "ifs-none", n, "Main.m", lambda n=n: gen_ifs(n, "none")
    for n in ifs_ns:
        yield "ifs-middle", n, "Main.m", lambda n=n: gen_ifs(n, "middle")
    for n in every_ns:
        yield "ifs-every", n, "Main.m", lambda n=n: gen_ifs(n, "every")
    for n in straight_ns:
        yield "straight", n, "Main.m", lambda n=n: gen_straight(n)


SUITE_TITLES = {
    "chain": "(a) Figure 11 chain of cells (static method, n cells created and set, assert on c1)",
    "ifs-none": "(b1) n independent if-statements, no join",
    "ifs-middle": "(b2) n independent if-statements, one `join true;` after if n/2",
    "ifs-every": "(b3) n independent if-statements, `join true;` after every if",
    "straight": "(c) straight-line method (`x = x + 1;` n times, then `assert x == n;`)",
}


SUITE_EXPECTED = {
    "chain": "one path; expected linear in n (each cell adds two statements and one `valid()` chunk)",
    "ifs-none": "2^n paths; expected exponential, base 2 per extra n",
    "ifs-middle": "2^(n/2) + 2^(n - n/2) paths; expected exponential, base sqrt(2) ~ 1.41 per extra n",
    "ifs-every": "2 paths per if; expected linear in n",
    "straight": "one path; expected linear in n",
}


def targets(rows: list[Row]) -> list[tuple[str, str, str]]:
    def find(suite: str, n: int) -> Row | None:
        for r in rows:
            if r.suite == suite and r.n == n:
                return r
        return None

    out = []
    for desc, suite, n, limit in [
        ("chain n=1000 < 1 s", "chain", 1000, 1.0),
        ("chain n=10000 < 20 s", "chain", 10000, 20.0),
        ("2^14 paths (ifs, no join, n=14) < 10 s", "ifs-none", 14, 10.0),
        ("join after every if, n=100 < 1 s", "ifs-every", 100, 1.0),
        ("straight line, 10,000 statements verifies", "straight", 10000, None),
    ]:
        r = find(suite, n)
        if r is None:
            out.append((desc, "not run", "-"))
        elif not r.ok:
            out.append((desc, "NOT MET", r.status))
        elif limit is None:
            out.append((desc, "met", f"{fmt_s(r.wall)} s"))
        else:
            out.append((desc, "met" if r.wall < limit else "NOT MET", f"{fmt_s(r.wall)} s"))
    return out


# --------------------------------------------------------------------------
# Incremental verification: the result cache and the language server
# (`--incremental`; its own section of RESULTS.md)
# --------------------------------------------------------------------------

INCREMENTAL_BEGIN = "<!-- incremental: begin (python3 bench/run.py --incremental --write) -->"
INCREMENTAL_END = "<!-- incremental: end -->"


def gen_accounts(n: int) -> str:
    """n classes of 73 lines: a predicate, a pure getter, a constructor,
    two mutators with unfolding contracts, a loop and a client (7 members
    each); n = 28 gives a file of about 2,000 lines and 196 members."""
    out = []
    for i in range(n):
        out.append(f"""class Account{i} {{
  int balance;
  int limit;

  Account{i}(int b)
    requires b >= 0;
    ensures valid() && getBalance() == b;
  {{
    balance = b;
    limit = 100;
    close valid();
    use getBalance();
  }}

  predicate valid() {{
    return acc(balance) && acc(limit) && balance >= 0 && limit >= 0;
  }}

  pure int getBalance()
    requires valid();
  {{
    return opening valid() in balance;
  }}

  void deposit(int amount)
    requires valid() && amount > 0;
    ensures valid() && getBalance() == old(getBalance()) + amount;
  {{
    use getBalance();
    open valid();
    balance = balance + amount;
    close valid();
    use getBalance();
  }}

  void withdraw(int amount)
    requires valid() && amount > 0 && getBalance() >= amount;
    ensures valid() && getBalance() == old(getBalance()) - amount;
  {{
    use getBalance();
    open valid();
    balance = balance - amount;
    close valid();
    use getBalance();
  }}

  static int sumTo(int n)
    requires n >= 0;
    ensures result >= 0;
  {{
    int i = 0;
    int s = 0;
    while (i < n)
      invariant 0 <= i && i <= n && s >= 0;
    {{
      s = s + i;
      i = i + 1;
    }}
    return s;
  }}

  static void client(int x)
    requires x > 0;
  {{
    Account{i} a = new Account{i}(10);
    a.deposit(x);
    a.withdraw(5);
    assert a.getBalance() == 5 + x;
    int t = sumTo(x);
    assert t >= 0;
  }}
}}
""")
    return "\n".join(out)


# Where the edits go: the first statement of `client` in these classes.
EDIT_CLASSES = (3, 14, 25)
EDIT_ANCHOR = "    a.deposit(x);\n"


def edit_client(src: str, cls: int, text: str) -> tuple[str, int]:
    """`text` inserted before `a.deposit(x);` in `Account{cls}.client`;
    the new text and the 0-based line of the insertion."""
    start = src.index(f"class Account{cls} {{")
    at = src.index(EDIT_ANCHOR, src.index("static void client", start))
    return src[:at] + text + src[at:], src.count("\n", 0, at)


def cli_run(sift: Path, args: list[str], timeout: float):
    t0 = time.perf_counter()
    p = subprocess.run([str(sift), "verify", "--json", *args], capture_output=True,
                       text=True, timeout=timeout)
    wall = time.perf_counter() - t0
    doc = json.loads(p.stdout)
    methods = [m for f in doc["files"] for m in f["methods"]]
    return p.returncode, wall, methods


def bench_cache(sift: Path, workdir: Path, timeout: float, reps: int = 3) -> dict:
    """Wall clock of `sift verify --json` on the 2,044-line file: without a
    cache, with an empty one, with every member cached, and after an edit
    inside one method body (one member verified again)."""
    src = gen_accounts(28)
    path = workdir / "accounts.sift"
    path.write_text(src)
    res: dict = {"lines": src.count("\n"), "rows": []}

    def row(name: str, walls: list[float], methods: list, rc: int) -> None:
        cached = sum(1 for m in methods if m.get("cached"))
        res["rows"].append((name, min(walls), len(walls), len(methods),
                            len(methods) - cached, cached, rc))
        print(f"cache      {name:34} wall {fmt_s(min(walls))} s "
              f"({len(methods)} members, {len(methods) - cached} verified)", flush=True)

    walls = []
    for _ in range(reps):
        rc, wall, methods = cli_run(sift, [str(path)], timeout)
        walls.append(wall)
    row("no cache", walls, methods, rc)

    walls = []
    for k in range(reps):
        d = workdir / f"cold{k}"
        rc, wall, methods = cli_run(sift, ["--cache", str(d), str(path)], timeout)
        walls.append(wall)
    row("empty cache (filling it)", walls, methods, rc)
    warm = workdir / "cold0"

    walls = []
    for _ in range(reps):
        rc, wall, methods = cli_run(sift, ["--cache", str(warm), str(path)], timeout)
        walls.append(wall)
    row("every member cached", walls, methods, rc)

    walls = []
    for k in range(reps):
        d = workdir / f"edit{k}"
        shutil.copytree(warm, d)
        edited, _ = edit_client(src, EDIT_CLASSES[k % len(EDIT_CLASSES)],
                                f"    int extra{k} = x + {k};\n")
        epath = workdir / f"accounts_edit{k}.sift"
        # Same path as the cached run, so the same cache file is used.
        shutil.copy(path, epath)
        path.write_text(edited)
        rc, wall, methods = cli_run(sift, ["--cache", str(d), str(path)], timeout)
        shutil.copy(epath, path)
        walls.append(wall)
    row("one method body edited", walls, methods, rc)
    return res


class LspClient:
    """A minimal LSP client over `sift lsp`'s stdio that timestamps every
    message it receives."""

    def __init__(self, sift: Path, options: dict, capabilities: dict):
        import queue
        import threading
        self.proc = subprocess.Popen([str(sift), "lsp"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.queue: "queue.Queue[tuple[float, dict]]" = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()
        self.request("initialize", {"processId": None, "rootUri": None,
                                    "capabilities": capabilities,
                                    "initializationOptions": options})
        self.notify("initialized", {})

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            body = out.read(length or 0)
            self.queue.put((time.perf_counter(), json.loads(body)))

    def send(self, msg: dict) -> None:
        body = json.dumps(msg).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method: str, params) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params) -> dict:
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == rid and "method" not in m)[1]

    def wait(self, pred, timeout: float = 300.0) -> tuple[float, dict]:
        deadline = time.perf_counter() + timeout
        while True:
            t, m = self.queue.get(timeout=max(0.0, deadline - time.perf_counter()))
            if m.get("method") == "window/workDoneProgress/create":
                self.send({"jsonrpc": "2.0", "id": m["id"], "result": None})
            if pred(m):
                return t, m

    def verification(self, uri: str) -> tuple[float, list, str]:
        """Waits for the next verification to end: when its diagnostics were
        published, the diagnostics, and the end message (members reused)."""
        published = None
        diags: list = []
        while True:
            t, m = self.wait(lambda m: m.get("method") in
                             ("textDocument/publishDiagnostics", "$/progress"))
            if m["method"] == "textDocument/publishDiagnostics":
                if m["params"]["uri"] == uri:
                    published, diags = t, m["params"]["diagnostics"]
            elif m["params"]["value"].get("kind") == "end":
                return published, diags, m["params"]["value"].get("message", "")

    def close(self) -> None:
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.proc.wait(timeout=20)
        except Exception:
            self.proc.kill()


def bench_lsp(sift: Path, reps: int = 3) -> dict:
    """Edit-to-diagnostics latency of `sift lsp` on the 2,044-line file
    (debounce 0, so the time is the server's own after the typing pause):
    the first verification on open, then edits inside `client` of three
    classes: a failing assertion typed in, then deleted again."""
    src = gen_accounts(28)
    uri = "file:///bench/accounts.sift"
    c = LspClient(sift, {"debounceMs": 0, "timeoutMs": 5000},
                  {"window": {"workDoneProgress": True}})
    res: dict = {"lines": src.count("\n"), "edits": []}
    try:
        t0 = time.perf_counter()
        c.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "sift", "version": 1, "text": src}})
        t1, diags, msg = c.verification(uri)
        res["open"] = (t1 - t0, msg, len(diags))
        print(f"lsp        open, full verification     {fmt_s(t1 - t0)} s ({msg})", flush=True)
        version = 1
        for rep in range(reps):
            for cls in EDIT_CLASSES:
                # A failing statement typed in, then deleted again: two
                # edits inside one body, the second back to verified.
                stmt = f"    assert x > {rep + 100};\n"
                _, line = edit_client(src, cls, stmt)
                insert = {"range": {"start": {"line": line, "character": 0},
                                    "end": {"line": line, "character": 0}}, "text": stmt}
                delete = {"range": {"start": {"line": line, "character": 0},
                                    "end": {"line": line + 1, "character": 0}}, "text": ""}
                for what, change, expected in (("failing", insert, 1),
                                               ("verified", delete, 0)):
                    version += 1
                    t0 = time.perf_counter()
                    c.notify("textDocument/didChange", {
                        "textDocument": {"uri": uri, "version": version},
                        "contentChanges": [change]})
                    t1, diags, msg = c.verification(uri)
                    failing = sum(1 for d in diags if d.get("code") == "assert.failed")
                    res["edits"].append((cls, what, t1 - t0, msg, failing, expected))
                    print(f"lsp        edit Account{cls}.client ({what:8}) "
                          f"{(t1 - t0) * 1000:7.1f} ms ({msg}, {failing} failing)",
                          flush=True)
    finally:
        c.close()
    return res


def incremental_section(info: dict, cache: dict, lsp: dict) -> str:
    md = [INCREMENTAL_BEGIN, "## Incremental verification: result cache and language server\n"]
    md.append(f"Generated by `python3 bench/run.py --incremental --write` on {info['date']}"
              f" (sift {info['commit']}, {info['z3']}, {info['nproc']} CPUs; load average"
              f" before {info['load_before']}, after {loadavg()}). The program is"
              f" `gen_accounts(28)`: {cache['lines']} lines, 28 classes of 7 members"
              " (196 members: predicates, pure methods, constructors, mutators with"
              " unfolding contracts, loops, clients).\n")
    md.append("### `sift verify --cache DIR` (wall clock of the whole process, best of runs)\n")
    md.append("| run | wall s | runs | members | verified | from the cache | exit |")
    md.append("|---|---|---|---|---|---|---|")
    for name, wall, runs, n, verified, cached, rc in cache["rows"]:
        md.append(f"| {name} | {fmt_s(wall)} | {runs} | {n} | {verified} | {cached} | {rc} |")
    rows = {r[0]: r[1] for r in cache["rows"]}
    if rows.get("every member cached") and rows.get("no cache"):
        md.append(f"\nA run with every member cached takes {fmt_s(rows['every member cached'])} s,"
                  f" {rows['no cache'] / rows['every member cached']:.0f}x less than a fresh one;"
                  " one edited method body costs that member's verification on top.\n")
    md.append("### `sift lsp`: edit to published diagnostics\n")
    md.append("Time from sending `didChange` to the `publishDiagnostics` of the verification"
              " that follows it, with `debounceMs: 0` (the editor's typing pause, 500 ms by"
              " default, comes before this). The edits type a failing `assert` at the start"
              " of `Account{k}.client` (its diagnostic must appear) and delete it again (it"
              " must go); execution trees are kept for hovers, as in an editor.\n")
    t, msg, nd = lsp["open"]
    md.append(f"- open (every member verified, nothing cached): {t * 1000:.0f} ms ({msg})")
    lat = sorted(e[2] * 1000 for e in lsp["edits"])
    if lat:
        med = lat[len(lat) // 2]
        md.append(f"- edits: {len(lat)}; median {med:.0f} ms, max {lat[-1]:.0f} ms,"
                  f" min {lat[0]:.0f} ms (target: 200 ms): "
                  + ("met" if lat[-1] <= 200 else "NOT MET") + "\n")
    md.append("| edit | result | ms | progress end | assert.failed shown (expected) |")
    md.append("|---|---|---|---|---|")
    for cls, what, t, msg, failing, expected in lsp["edits"]:
        md.append(f"| Account{cls}.client | {what} | {t * 1000:.1f} | {msg} |"
                  f" {failing} ({expected}) |")
    md.append("")
    md.append(INCREMENTAL_END)
    return "\n".join(md) + "\n"


def keep_incremental(results: Path, text: str) -> str:
    """`text` with the incremental, solver and resources sections of the
    current RESULTS.md kept (a full `--write` regenerates every other
    section)."""
    try:
        old = results.read_text()
    except OSError:
        return text
    for begin, end in ((INCREMENTAL_BEGIN, INCREMENTAL_END),
                       ("<!-- solver: begin", "<!-- solver: end -->"),
                       ("<!-- sequences: begin", "<!-- sequences: end -->"),
                       (resources.RESOURCES_BEGIN, resources.RESOURCES_END)):
        if begin in old and end in old:
            start = old.index(begin)
            stop = old.index(end) + len(end)
            text = text.rstrip("\n") + "\n\n" + old[start:stop] + "\n"
    return text


def replace_section(results: Path, section: str, begin: str, end: str) -> None:
    try:
        old = results.read_text()
    except OSError:
        old = ""
    if begin in old and end in old:
        start = old.index(begin)
        stop = old.index(end) + len(end)
        new = old[:start] + section.rstrip("\n") + old[stop:]
    else:
        new = old.rstrip("\n") + "\n\n" + section
    results.write_text(new)


def incremental_main(args) -> int:
    info = machine_info()
    with tempfile.TemporaryDirectory(prefix="sift-bench-inc-") as tmp:
        cache = bench_cache(args.sift, Path(tmp), args.timeout)
    lsp = bench_lsp(args.sift)
    section = incremental_section(info, cache, lsp)
    print()
    print(section)
    if args.write:
        replace_section(BENCH_DIR / "RESULTS.md", section, INCREMENTAL_BEGIN, INCREMENTAL_END)
        print(f"wrote the incremental section of {BENCH_DIR / 'RESULTS.md'}")
    ok = all(r[6] == 0 for r in cache["rows"])
    ok = ok and all(e[4] == e[5] for e in lsp["edits"])
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help="small n only (well under 30 s in total)")
    ap.add_argument("--write", action="store_true",
                    help="write bench/RESULTS.md")
    ap.add_argument("--sift", type=Path, default=DEFAULT_SIFT,
                    help=f"sift binary (default {DEFAULT_SIFT})")
    ap.add_argument("--timeout", type=float, default=120.0,
                    help="per-run timeout in seconds (default 120)")
    ap.add_argument("--jobs", type=int, default=None,
                    help="pass --jobs N to sift (default: sift's own default)")
    ap.add_argument("--only", default=None,
                    help="comma-separated suites to run (chain, ifs-none, ifs-middle, ifs-every, straight)")
    ap.add_argument("--keep", type=Path, default=None,
                    help="write the generated programs to this directory and keep them")
    ap.add_argument("--no-build", action="store_true",
                    help="do not run `cargo build --release` first")
    ap.add_argument("--resources", action="store_true",
                    help="peak memory and time at large sizes (its own section "
                         "of RESULTS.md; --quick: small sizes only)")
    ap.add_argument("--incremental", action="store_true",
                    help="measure the result cache and the language server's edit latency"
                         " instead (with --write: only their section of RESULTS.md)")
    args = ap.parse_args(argv)

    if not args.no_build and args.sift == DEFAULT_SIFT:
        print("building: cargo build --release", flush=True)
        b = subprocess.run(["cargo", "build", "--release"], cwd=REPO,
                           capture_output=True, text=True)
        if b.returncode != 0:
            print(b.stderr[-3000:], file=sys.stderr)
            print("build failed", file=sys.stderr)
            return 2
    if not args.sift.exists():
        print(f"no sift binary at {args.sift}", file=sys.stderr)
        return 2

    if args.incremental:
        return incremental_main(args)
    if args.resources:
        return resources.resources_main(args, machine_info, replace_section)

    only = set(args.only.split(",")) if args.only else None
    info = machine_info()
    print(f"machine: {info['nproc']} cpus, {info['cpu']}, {info['memory']}; "
          f"sift {info['commit']}; {info['z3']}", flush=True)

    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        tmp_ctx = None
        workdir = args.keep
    else:
        tmp_ctx = tempfile.TemporaryDirectory(prefix="sift-bench-")
        workdir = Path(tmp_ctx.name)

    try:
        # Start-up baseline: a trivial program.
        base = Row("baseline", 0, "Main.m")
        measure(base, "class Main { static void m() { } }\n", workdir, args.sift,
                args.timeout, args.jobs, 3)
        base_ms = float(base.method_ms or 0.0)
        print(f"start-up baseline (empty method): {fmt_s(base.wall)} s [{base.status}]",
              flush=True)

        rows: list[Row] = []
        skip_suite: set[str] = set()
        t_start = time.perf_counter()
        for suite, n, method, gen in plan(args.quick):
            if only and suite not in only:
                continue
            row = Row(suite, n, method)
            if suite in skip_suite:
                row.status = "skipped (smaller n timed out)"
                rows.append(row)
                print(f"{suite:10} n={n:<6} {row.status}", flush=True)
                continue
            measure(row, gen(), workdir, args.sift, args.timeout, args.jobs, 3)
            rows.append(row)
            print(f"{suite:10} n={n:<6} {row.status:8} wall {fmt_s(row.wall)} s "
                  f"(runs {len(row.walls)}), method {fmt_ms(row.method_ms)} ms, "
                  f"queries {row.queries}", flush=True)
            if not row.ok:
                for l in row.detail.splitlines():
                    print("    " + l)
                if row.status.startswith("timeout"):
                    skip_suite.add(suite)
        elapsed = time.perf_counter() - t_start
    finally:
        if tmp_ctx is not None:
            tmp_ctx.cleanup()

    # ---------------------------------------------------------------- report
    md: list[str] = []
    md.append("# Sift benchmark results\n")
    md.append("Generated by `python3 bench/run.py --write"
              + (" --quick" if args.quick else "") + "`"
              + (f" with `--jobs {args.jobs}`" if args.jobs is not None else "")
              + ". Wall clock of the whole `sift verify --json FILE` process;"
              f" best of 3 when a run takes under {SMALL_SECONDS:g} s, else 1 run;"
              f" per-run timeout {args.timeout:g} s. \"method ms\" / \"method"
              " queries\" are the verifier's own `time_ms` / `queries` for the"
              " benchmarked method (Main.main or Main.m) from `--json`; \"all"
              " members\" sums them over every member (the chain also verifies"
              " the Cell class).\n")
    md.append("## Machine\n")
    md.append(f"- date: {info['date']}")
    md.append(f"- CPUs (nproc): {info['nproc']}")
    md.append(f"- CPU model: {info['cpu']}")
    md.append(f"- memory: {info['memory']}")
    md.append(f"- OS: {info['os']}")
    md.append(f"- sift commit: {info['commit']}")
    md.append(f"- Z3: {info['z3']}")
    md.append(f"- sift threads: {'--jobs ' + str(args.jobs) if args.jobs is not None else 'default (one per core)'}")
    md.append(f"- start-up baseline (empty method): wall {fmt_s(base.wall)} s, "
              f"method {fmt_ms(base.method_ms)} ms")
    md.append(f"- load average (1/5/15 min) before: {info['load_before']}, after: {loadavg()}"
              " (other work on the machine; a 1-minute load above the CPU count"
              " makes wall times noisy and inflated)")
    md.append(f"- total benchmark time: {elapsed:.1f} s\n")

    md.append("Profiling notes (where the time goes): see `bench/PROFILE.md`.\n")
    md.append("## Targets\n")
    md.append("| target | result | measured |")
    md.append("|---|---|---|")
    for desc, res, meas in targets(rows):
        md.append(f"| {desc} | {res} | {meas} |")
    md.append("")

    suites = [s for s in SUITE_TITLES if any(r.suite == s for r in rows)]
    for s in suites:
        srows = [r for r in rows if r.suite == s]
        md.append(f"## {SUITE_TITLES[s]}\n")
        md.append(f"Shape: {SUITE_EXPECTED[s]}.\n")
        md.append(table(srows, with_paths=s.startswith("ifs")))
        md.append("")
        grow_rows = srows
        if len(grow_rows) >= 2:
            md.append("Growth: " + growth(grow_rows, base_ms) + "\n")
        fails = [r for r in srows if not r.ok]
        for r in fails:
            md.append(f"- n={r.n}: {r.status}")
            for l in r.detail.splitlines():
                md.append(f"  - `{l}`")
        if fails:
            md.append("")

    text = "\n".join(md) + "\n"
    print()
    print(text)
    if args.write:
        text = keep_incremental(BENCH_DIR / "RESULTS.md", text)
        (BENCH_DIR / "RESULTS.md").write_text(text)
        print(f"wrote {BENCH_DIR / 'RESULTS.md'}")
    return 0 if all(r.ok for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

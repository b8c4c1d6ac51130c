"""
Instructions, not seconds: the marginal instructions per request of a
`stallscope bench` process, split by where they ran (V8's optimising
compiler, its JSON parser, JIT code, inline caches and maps, Sparkplug,
GC ...), counted by valgrind's cachegrind over two runs of the compiled bin
(FROM and TO requests, concurrency 32, 1,024-word prompts) against the
constant-TTFT server. On this 2-core VM a run's CPU time moves 18-27% with
the host's other work, so a change worth 3% cannot be seen in seconds;
counted instructions repeat within ~3-6%. What it does not see: the kernel's
part (connect, close, reads), and a function waiting longer for its
optimised code under valgrind than natively (JIT tiers are biased; confirm a
JIT-bound change natively). docs/design.md#request-body.

usage: python3 test/perf/instructions.py [--keep-alive] [--from N] [--to N] [REPO]
(REPO: a checkout whose dist/ is built, default this one; run two to compare.)
Needs valgrind (Debian: apt-get install valgrind); takes ~2 minutes.
"""

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# A 2,300-request run under valgrind takes ~1 minute here; one that has not ended by this is stuck.
RUN_DEADLINE_S = 900

# First match wins; V8's C++ symbols and builtins by name, JIT code has none ("???").
CATEGORIES = [
    ("turbofan", r"v8::internal::compiler::|OptimizedCompilationJob|PipelineCompilationJob"),
    ("json", r"Json"),
    ("gc", r"Scaveng|Heap::|MarkCompact|Marking|Sweeper|Evacuat|GCTracer|RememberedSet|SlotSet|heap::base|cppgc"),
    ("sparkplug", r"Baseline|Sparkplug"),
    ("interpreter", r"^Builtins_.*Handler|Interpreter"),
    ("ics/maps", r"^Builtins_.*IC|IC::|LookupIterator|TransitionsAccessor|TransitionArray|Feedback|Map::|MapUpdater"),
    ("parse/bytecode", r"Scanner|Parser|AstValue|Preparse|Scope::|Compiler::|CalculateLineEnds"),
    ("builtins", r"^Builtins_"),
    ("jit code", r"^\?\?\?$"),
    ("node/libuv", r"^(node::|uv_|uv__)"),
    ("openssl", r"ossl|SSL|EVP_|OPENSSL|CRYPTO"),
    ("strings/objects", r"String|Factory|Internaliz|Utf8|Utf16"),
    ("libc", r"mem|malloc|free|^_int_"),
]


def category(fn):
    for name, pattern in CATEGORIES:
        if re.search(pattern, fn):
            return name
    return "other"


def by_function(path):
    """Instructions per function of one cachegrind output file."""
    costs = collections.Counter()
    fn = None
    with open(path) as f:
        for line in f:
            if line.startswith("fn="):
                fn = line[3:].strip()
            elif fn is not None and line[:1].isdigit():
                parts = line.split()
                if len(parts) >= 2:
                    costs[fn] += int(parts[1])
    return costs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repo", nargs="?", default=os.path.dirname(os.path.dirname(HERE)))
    ap.add_argument("--keep-alive", action="store_true")
    ap.add_argument("--from", dest="small", type=int, default=300)
    ap.add_argument("--to", dest="large", type=int, default=2300)
    ap.add_argument("--top", type=int, default=0, help="also list the N functions that grew most")
    a = ap.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("instructions.py: valgrind is not installed (Debian: apt-get install valgrind)")
    binary = os.path.join(a.repo, "bin", "stallscope.js")
    if not os.path.exists(os.path.join(a.repo, "dist", "server", "cli", "main.js")):
        sys.exit(f"instructions.py: {a.repo} has no built dist/ (npm run build there first)")
    mode = "keep-alive" if a.keep_alive else "per-request"
    server = subprocess.Popen(
        ["node", "--import", "tsx", os.path.join(HERE, "constantTtft.server.ts"), mode, "0"],
        cwd=os.path.dirname(os.path.dirname(HERE)),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    runs = {}
    try:
        url = server.stdout.readline().strip()
        if not url.startswith("http://127.0.0.1:"):
            sys.exit(f"instructions.py: the constant server did not start ({url!r})")
        with tempfile.TemporaryDirectory() as tmp:
            for n in (a.small, a.large):  # both at once: instruction counts do not depend on the other's load
                out = os.path.join(tmp, f"cg.{n}")
                argv = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--smc-check=all-non-file",
                        f"--cachegrind-out-file={out}", "node", binary, "bench", "--base-url", url, "--model", "m",
                        "--num-prompts", str(n), "--max-concurrency", "32", "--random-input-len", "1024",
                        "--random-output-len", "48"] + (["--keep-alive"] if a.keep_alive else [])
                runs[n] = (out, subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
            for n, (out, p) in runs.items():
                _, err = p.communicate(timeout=RUN_DEADLINE_S)
                if p.returncode != 0:
                    sys.exit(f"instructions.py: the {n}-request run failed:\n{err[-2000:]}")
            small, large = by_function(runs[a.small][0]), by_function(runs[a.large][0])
    finally:
        # Nothing outlives the script: a run left when the other failed or ran past its deadline, and the server
        # (which exits when its stdin closes, or is killed).
        for _, p in runs.values():
            if p.poll() is None:
                p.kill()
                p.wait()
        server.stdin.close()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    per = a.large - a.small
    cs, cl = collections.Counter(), collections.Counter()
    for fn, v in small.items():
        cs[category(fn)] += v
    for fn, v in large.items():
        cl[category(fn)] += v
    print(f"{binary}, {mode}: marginal instructions per request, {a.small} -> {a.large} requests")
    for k in sorted(set(cs) | set(cl), key=lambda k: -(cl[k] - cs[k])):
        print(f"  {k:16s} {(cl[k] - cs[k]) / per / 1e3:9.1f} K")
    total = (sum(cl.values()) - sum(cs.values())) / per
    print(f"  {'total':16s} {total / 1e3:9.1f} K   (runs: {sum(cs.values()) / 1e9:.2f} G and {sum(cl.values()) / 1e9:.2f} G)")
    if a.top:
        grew = collections.Counter({fn: v - small.get(fn, 0) for fn, v in large.items()})
        for fn, v in grew.most_common(a.top):
            print(f"  {v / per / 1e3:9.1f} K  {category(fn):16s} {fn[:110]}")


if __name__ == "__main__":
    main()

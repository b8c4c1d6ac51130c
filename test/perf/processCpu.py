"""
The CPU time of a whole process, for the whole-process figures of the engine
benchmark: runs the command given as arguments, waits
for it with wait4 and prints JSON: status, cpu_s (user + system time of the
process and every thread it had, as the kernel accounts them, in microseconds'
resolution), wall_s, its stdout (the caller checks that the run did its work) and the last lines of
its stderr when it failed.

usage: processCpu.py COMMAND [ARG ...]
"""

import json
import os
import subprocess
import sys
import tempfile
import time

with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
    t0 = time.perf_counter()
    child = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=out, stderr=err)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - t0
    child.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait for it again
    out.seek(0)
    stdout = out.read().decode("utf-8", "replace")
    err.seek(0)
    tail = err.read().decode("utf-8", "replace").strip().splitlines()[-5:]
result = {"status": child.returncode, "cpu_s": usage.ru_utime + usage.ru_stime, "wall_s": wall, "stdout": stdout}
if child.returncode != 0:
    result["stderr"] = tail
print(json.dumps(result))

#!/usr/bin/env python3
"""Runs every `sh` block of docs/api.md, in order, in one shell against a fresh server,
and writes each block's output into the `text` or `json` block that follows it.

    Scripts/api-transcript.py [--binary .build/debug/switchboard] [--port 8080]

The server listens on 127.0.0.1:PORT (the examples say 8080) with a data folder of its
own, and its administrator `root` is made on the data folder first, as section 2 says.
Review the diff afterwards: outputs carry new ids, times and tokens on every run.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

FENCE = re.compile(r"^```(\w*)\s*$")


def blocks(lines):
    """(start, end, language) of every fenced block; start and end are the fence lines."""
    found, index = [], 0
    while index < len(lines):
        match = FENCE.match(lines[index])
        if match and match.group(1):
            end = index + 1
            while end < len(lines) and lines[end].rstrip() != "```":
                end += 1
            found.append((index, end, match.group(1)))
            index = end + 1
        else:
            index += 1
    return found


def wait_for(url, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    sys.exit(f"the server did not answer {url} within {seconds} s")


class Shell:
    """One bash for every block, so variables set in one block reach the next."""

    def __init__(self, folder):
        self.process = subprocess.Popen(
            ["bash", "--noprofile", "--norc"], cwd=folder, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, bufsize=1)
        self.count = 0

    def run(self, script):
        self.count += 1
        marker = f"__end_of_block_{self.count}__"
        self.process.stdin.write(script + f"\necho; echo {marker}\n")
        self.process.stdin.flush()
        output = []
        for line in self.process.stdout:
            if line.rstrip("\n") == marker:
                break
            output.append(line)
        # Without the newline put before the marker (and any the output ended with).
        return "".join(output).rstrip("\n")

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=10)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=".build/debug/switchboard")
    parser.add_argument("--port", default="8080")
    parser.add_argument("--doc", default="docs/api.md")
    options = parser.parse_args()
    binary = os.path.abspath(options.binary)
    folder = tempfile.mkdtemp(prefix="api-transcript-")
    data = os.path.join(folder, "data")
    environment = dict(os.environ, SWITCHBOARD_HOME=os.path.join(folder, "home"), PATH=f"{os.path.dirname(binary)}:{os.environ['PATH']}")
    subprocess.run(
        [binary, "user", "add", "root", "--admin", "--data", data], check=True, cwd=folder,
        env=dict(environment, SWITCHBOARD_NEW_PASSWORD="root password"), stdout=subprocess.DEVNULL)
    server = subprocess.Popen(
        [binary, "serve", "--listen", f"127.0.0.1:{options.port}", "--data", data], env=environment, cwd=folder,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(f"http://127.0.0.1:{options.port}/healthz")
        with open(options.doc, encoding="utf-8") as file:
            lines = file.read().split("\n")
        shell = Shell(folder)
        replacements = []
        found = blocks(lines)
        for position, (start, end, language) in enumerate(found):
            if language != "sh":
                continue
            script = "\n".join(lines[start + 1:end]).replace("127.0.0.1:8080", f"127.0.0.1:{options.port}")
            output = shell.run(script)
            following = found[position + 1] if position + 1 < len(found) else None
            if following and following[2] in ("text", "json") and all(not line.strip() for line in lines[end + 1:following[0]]):
                replacements.append((following[0], following[1], output.split("\n") if output else []))
        shell.close()
        for start, end, output in reversed(replacements):
            lines[start + 1:end] = output
        with open(options.doc, "w", encoding="utf-8") as file:
            file.write("\n".join(lines))
        print(f"{len(replacements)} outputs written into {options.doc}")
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()

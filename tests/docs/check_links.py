#!/usr/bin/env python3
"""Every relative link in the repository's Markdown files (README.md, docs/, bench/, the rest that
git tracks) names a file or folder that exists, and every anchor into a Markdown file names one of
its headings. Prints each broken link with its file and line; exit 1 if there is one.

  check_links.py SOURCE_DIR
"""
import pathlib
import re
import subprocess
import sys

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")


def anchors(markdown: str) -> set:
    """GitHub's heading ids: lower case, punctuation dropped, spaces to hyphens."""
    found = set()
    for line in markdown.splitlines():
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            found.add(slug)
    return found


def main(root: pathlib.Path) -> int:
    listed = subprocess.run(["git", "ls-files", "*.md"], cwd=root, capture_output=True, text=True)
    files = listed.stdout.split() if listed.returncode == 0 else [
        str(p.relative_to(root)) for p in root.rglob("*.md") if "build" not in p.parts]
    broken = []
    checked = 0
    for name in files:
        path = root / name
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        in_code = False
        for number, line in enumerate(text.splitlines(), 1):
            if line.lstrip().startswith("```"):
                in_code = not in_code
            if in_code:
                continue
            for m in LINK.finditer(line):
                target = m.group(1) or m.group(2)
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                    continue
                checked += 1
                file_part, _, anchor = target.partition("#")
                resolved = path.parent / file_part if file_part else path
                if not resolved.exists():
                    broken.append(f"{name}:{number}: {target}: no such file")
                elif anchor and resolved.suffix == ".md" and resolved.is_file() \
                        and anchor not in anchors(resolved.read_text(encoding="utf-8")):
                    broken.append(f"{name}:{number}: {target}: no heading '{anchor}'")
    for b in broken:
        print(b)
    print(f"{checked} relative links in {len(files)} Markdown files, {len(broken)} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()))

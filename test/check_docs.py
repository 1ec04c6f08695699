#!/usr/bin/env python3
"""check_docs.py SOURCE_DIR - the user documentation speaks of the program only.

README.md and docs/*.md are read by people who have the repository and
nothing else, so this fails (exit 1, one line per finding: file, line,
what) on
  - words of the project's own bookkeeping: issue or stage numbers,
    "developers", "SPEC", "the seeds", work-item codes such as "D9";
  - paths outside the repository (`../shared`, `/work/`);
  - links to files that do not exist in the repository, or to a heading
    (`page.md#anchor`) that the page does not have.
It first runs itself on a few known-bad lines, so a pattern that no longer
matches anything fails here instead of passing every page unchecked.
"""
import os
import re
import sys

FORBIDDEN = [
    (re.compile(r"\bissues?\s+#?\d+", re.I), "issue number"),
    (re.compile(r"\bstages?\s+\d+", re.I), "stage number"),
    (re.compile(r"\bdevelopers?\b", re.I), "developers"),
    (re.compile(r"\bSPEC\b"), "SPEC"),
    (re.compile(r"\bthe seeds\b|\bseeds'", re.I), "the seeds"),
    (re.compile(r"\bD\d{1,2}\b"), "work-item code"),
    (re.compile(r"\.\./shared|/work/"), "path outside the repository"),
]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped,
    spaces to hyphens (letters of any script and digits kept)."""
    text = re.sub(r"`", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    seen = {}
    out = set()
    in_code = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if FENCE.match(line):
                in_code = not in_code
                continue
            m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if m and not in_code:
                s = slug(m.group(1))
                n = seen.get(s, 0)
                seen[s] = n + 1
                out.add(s if n == 0 else f"{s}-{n}")
    return out


def check_text(name, lines, here, root):
    """Findings of one page: (name, line number, message)."""
    found = []
    for no, line in enumerate(lines, 1):
        for pattern, what in FORBIDDEN:
            m = pattern.search(line)
            if m:
                found.append((name, no, f"{what}: '{m.group(0)}'"))
        for m in LINK.finditer(line):
            target = m.group(1)
            if re.match(r"^[a-z]+:", target):
                continue  # http:, https:, mailto:
            path, _, frag = target.partition("#")
            full = os.path.normpath(os.path.join(here, path)) if path else None
            if full is not None:
                if not (full + os.sep).startswith(root + os.sep) and full != root:
                    found.append((name, no, f"link leaves the repository: {target}"))
                    continue
                if not os.path.exists(full):
                    found.append((name, no, f"link to a missing file: {target}"))
                    continue
            page = full if full is not None else os.path.join(here, name_of(name))
            if frag and page.endswith(".md") and frag not in anchors(page):
                found.append((name, no, f"link to a missing heading: {target}"))
    return found


def name_of(name):
    return os.path.basename(name)


def self_test(root):
    bad = [
        "fixed in issue 14 at last",
        "see ../shared/SPEC.md",
        "as the seeds' formulas say",
        "the D9 case",
        "five other developers",
        "[gone](docs/no-such-page.md)",
        "[gone](README.md#no-such-heading)",
    ]
    for line in bad:
        if not check_text("README.md", [line], root, root):
            print(f"check_docs: self-test: not flagged: {line!r}")
            return False
    good = "[ok](docs/configuration.md) and [web](https://example.org/x.md)"
    if check_text("README.md", [good], root, root):
        print(f"check_docs: self-test: flagged a good line: {good!r}")
        return False
    return True


def main():
    root = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else ".")
    if not self_test(root):
        return 1
    pages = ["README.md"] + sorted(
        os.path.join("docs", f) for f in os.listdir(os.path.join(root, "docs"))
        if f.endswith(".md"))
    found = []
    for page in pages:
        full = os.path.join(root, page)
        with open(full, encoding="utf-8") as f:
            lines = f.read().split("\n")
        found += check_text(page, lines, os.path.dirname(full), root)
    for name, no, what in found:
        print(f"{name}:{no}: {what}")
    print(f"check_docs: {len(pages)} pages, {len(found)} findings")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Generate eval/cases/<id>.json (sample_version "1") from tools/cases.py and local mirrors.

usage: python3 eval/tools/gen.py [MIRRORS]   (default /work/.mirror; a mirror of owner/name is
MIRRORS/owner+name/repo, a git directory). Writes eval/cases/*.json and eval/tools/stats.tsv.
"""
import json, os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cases import CASES

MIRRORS = sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror"
OUT = os.path.join(HERE, "..", "cases")

def git(gd, *args):
    return subprocess.run(["git", "--git-dir", gd, *args], check=True, capture_output=True, text=True).stdout

def main():
    os.makedirs(OUT, exist_ok=True)
    stats = []
    for c in CASES:
        owner, name = c["repo"].split("/")
        gd = os.path.join(MIRRORS, f"{owner}+{name}", "repo")
        head = git(gd, "rev-parse", c["intro"] + "^{commit}").strip()
        parents = git(gd, "rev-list", "--parents", "-n1", head).split()[1:]
        base = parents[0]
        fixes = [git(gd, "rev-parse", f + "^{commit}").strip() for f in c["fixes"]]
        merge = fixes[-1]
        subj = git(gd, "log", "-1", "--format=%s", head).strip()
        body = git(gd, "log", "-1", "--format=%b", head).strip()
        author = git(gd, "log", "-1", "--format=%an", head).strip()
        m = re.search(r"\(#(\d+)\)\s*$", subj)
        number = int(m.group(1)) if m else 0
        short = head[:8]
        sid = f"{owner}-{name}-{number}" if number else f"{owner}-{name}-{short}"
        sid = re.sub(r"[^a-z0-9._-]", "-", sid.lower())
        shortstat = git(gd, "diff", "--shortstat", base, head).strip()
        files = git(gd, "diff", "--name-only", base, head).split()
        truth = []
        for i, t in enumerate(c["truth"]):
            fix = git(gd, "rev-parse", t["fix"] + "^{commit}").strip()
            fix_author = git(gd, "log", "-1", "--format=%an", fix).strip()
            text = git(gd, "show", f"{head}:{t['path']}").split("\n")
            assert t["line"] <= len(text), (sid, t["path"], t["line"], len(text))
            item = {"id": f"fix-{fix[:10]}" + (f"-{i+1}" if len(c["truth"]) > 1 else ""),
                    "author": fix_author, "path": t["path"], "line": t["line"]}
            if t.get("start_line"):
                item["start_line"] = t["start_line"]
            item.update({"side": "RIGHT", "body": t["body"], "kind": t["kind"], "addressed": True,
                         "review_body": False,
                         "url": f"https://github.com/{owner}/{name}/commit/{fix}"})
            truth.append(item)
        pr = {"number": number, "title": subj, "body": body, "author": author,
              "base_ref": git(gd, "symbolic-ref", "--short", "HEAD").strip() or "main",
              "url": (f"https://github.com/{owner}/{name}/pull/{number}" if number
                      else f"https://github.com/{owner}/{name}/commit/{head}")}
        sample = {"sample_version": "1", "id": sid,
                  "repo": {"url": f"https://github.com/{owner}/{name}.git", "name": f"{owner}/{name}"},
                  "pr": pr, "base": base, "head": head, "merge": merge, "truth": truth}
        with open(os.path.join(OUT, sid + ".json"), "w") as f:
            json.dump(sample, f, indent=2, ensure_ascii=False)
            f.write("\n")
        stats.append([sid, c["repo"], head, ",".join(fixes), str(len(parents)), shortstat, str(len(files)), c.get("lang", "Go")])
    with open(os.path.join(HERE, "stats.tsv"), "w") as f:
        f.write("id\trepo\thead\tfixes\tparents\tshortstat\tfiles\tlang\n")
        for s in stats:
            f.write("\t".join(s) + "\n")
    print(f"wrote {len(stats)} samples to {os.path.normpath(OUT)}")

if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Blind the findings of several runs for one judge.

usage: judgeprep.py OUT_DIR CASES_DIR RUN_DIR...

For each case, OUT_DIR/<id>.md lists the case (repository, range, what the commit says) and
every finding any of the runs raised, shown, minor or filtered, shuffled, under an opaque
item id: no run name, no status, no reviewer. OUT_DIR/key.json maps item ids back to
(run, finding id, status, filter reason) and is for tally.py, never for the judge.
The truth (the known bug) is in OUT_DIR/<id>.truth.md, apart, so that the judge labels the
findings on their merits first and only then says which item catches the bug.
"""
import hashlib, json, os, random, sys


def main():
    out, cases, runs = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(out, exist_ok=True)
    key = {}
    for name in sorted(os.listdir(cases)):
        if not name.endswith(".json") or name == "import.json":
            continue
        case = json.load(open(os.path.join(cases, name)))
        cid = case["id"]
        items = []
        for run in runs:
            path = os.path.join(run, "reviews", cid + ".json")
            if not os.path.exists(path):
                continue
            rep = json.load(open(path))
            for f in rep.get("findings") or []:
                item = "i" + hashlib.sha256((run + cid + f["id"]).encode()).hexdigest()[:8]
                key[item] = {"case": cid, "run": os.path.basename(os.path.normpath(run)), "finding": f["id"],
                             "status": f["status"], "filter_reason": f.get("filter_reason", ""),
                             "lenses": f.get("lenses", [])}
                items.append((item, f))
        random.Random(cid).shuffle(items)
        lines = ["# Case %s" % cid, "",
                 "Repository: %s (a local clone: /tmp/evalcache/%s)" % (case["repo"]["name"], case["repo"]["name"]),
                 "Change: %s..%s (`git -C /tmp/evalcache/%s diff %s %s`)" % (case["base"], case["head"], case["repo"]["name"], case["base"], case["head"]),
                 "Description: %s" % (case["pr"]["title"] + ("\n\n" + case["pr"]["body"] if case["pr"]["body"] else "")), "",
                 "## Findings (%d)" % len(items), ""]
        for item, f in items:
            where = f.get("path", "")
            if f.get("line"):
                where += ":%s" % (("%d-%d" % (f["start_line"], f["line"])) if f.get("start_line") else f["line"])
            lines += ["### %s · %s · %s" % (item, where, f.get("severity", "")), "", "**%s**" % f.get("title", ""), "",
                      f.get("body", "").strip(), ""]
            if f.get("quote"):
                lines += ["Quote:", "```", f["quote"], "```", ""]
        open(os.path.join(out, cid + ".md"), "w").write("\n".join(lines))
        truth = ["# Ground truth of %s" % cid, ""] + ["- [%s] %s:%s — %s" % (t["id"], t.get("path", ""), t.get("line", ""), t["body"]) for t in case["truth"]]
        open(os.path.join(out, cid + ".truth.md"), "w").write("\n".join(truth) + "\n")
    json.dump(key, open(os.path.join(out, "key.json"), "w"), indent=1, sort_keys=True)


if __name__ == "__main__":
    main()

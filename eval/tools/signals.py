#!/usr/bin/env python3
"""Turn judged findings of recorded eval runs into council learn signals (JSON lines).

The eval cases are commits, not pull requests with maintainers' reactions, so the blind
judges' labels (eval/judge/issue10) stand in for what maintainers did with each comment:
  valid -> the comment was acted on        (addressed: true)
  minor -> the comment was dismissed        (a -1 reaction and a maintainer's reply: the judge's why)
Only the cases named with --cases are used, so learnings built from them can be measured on
the others without a leak.

usage: signals.py KEY LABELS CASES_DIR --cases FILE RUN_DIR... > signals.jsonl
"""
import argparse, hashlib, json, os, sys

p = argparse.ArgumentParser()
p.add_argument("key"); p.add_argument("labels"); p.add_argument("cases_dir")
p.add_argument("--cases", required=True, help="file with one case id per line: the training cases")
p.add_argument("runs", nargs="+")
a = p.parse_args()

train = {l.strip() for l in open(a.cases) if l.strip()}
key = json.load(open(a.key))
labels = {}
for line in open(a.labels):
    r = json.loads(line)
    labels[r["item"]] = r
# (run, case, finding id) -> judged item
item_of = {(v["run"], v["case"], v["finding"]): k for k, v in key.items()}

out = []
for run_dir in a.runs:
    run = os.path.basename(run_dir.rstrip("/"))
    for name in sorted(os.listdir(os.path.join(run_dir, "reviews"))):
        case = name[:-len(".json")]
        if case not in train:
            continue
        sample = json.load(open(os.path.join(a.cases_dir, case + ".json")))
        rep = json.load(open(os.path.join(run_dir, "reviews", name)))
        for f in rep.get("findings", []):
            if f.get("status") == "filtered":
                continue  # never posted
            item = item_of.get((run, case, f["id"]))
            lab = labels.get(item)
            if not lab:
                continue
            cid = int(hashlib.sha256(f"{run}/{case}/{f['id']}".encode()).hexdigest()[:12], 16)
            s = {
                "repo": sample["repo"]["name"], "pr": sample["pr"]["number"],
                "pr_created": "2020-01-01T00:00:00Z", "pr_merged": True,
                "url": f"{sample['pr']['url']}#discussion_r{cid}", "comment_id": cid,
                "created": "2020-01-01T00:00:00Z",
                "fingerprint": f["id"], "reviewer": (f.get("lenses") or ["?"])[0],
                "category": f.get("category", ""), "severity": f.get("severity", ""),
                "path": f.get("path", ""), "line": f.get("line", 0),
                "title": f.get("title", ""), "body": f.get("body", "")[:600],
                "resolved": False, "addressed": lab["label"] == "valid",
            }
            if lab["label"] != "valid":
                s["reactions"] = {"-1": 1}
                s["replies"] = [{"author": "maintainer", "write_access": True, "body": lab.get("why", "")[:300],
                                 "created": "2020-01-02T00:00:00Z"}]
            out.append(s)
for s in out:
    print(json.dumps(s))
print(f"{len(out)} signals from {len(train)} training cases", file=sys.stderr)

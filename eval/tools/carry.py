#!/usr/bin/env python3
"""usage: carry.py KEY LABELS RUN_A RUN_B OUT_KEY OUT_LABELS TODO_MD"""
# Carry the blind judge's labels of run A to run B where B shows the same finding (same case,
# same id, same title and body): B replayed A's reviewers and changed only the validator.
import hashlib, json, os, sys
keyp, labp, runa, runb, outkey, outlab, todo = sys.argv[1:8]
key = json.load(open(keyp)); labels = {json.loads(l)["item"]: json.loads(l) for l in open(labp) if l.strip()}
na, nb = os.path.basename(runa.rstrip('/')), os.path.basename(runb.rstrip('/'))
bya = {}
for item, k in key.items():
    if k["run"] == na:
        r = json.load(open(os.path.join(runa, "reviews", k["case"] + ".json")))
        f = next(f for f in r["findings"] if f["id"] == k["finding"])
        bya[(k["case"], f["id"], f["title"], f["body"])] = labels[item]
newkey, newlab, left = {}, [], []
for fn in sorted(os.listdir(os.path.join(runb, "reviews"))):
    r = json.load(open(os.path.join(runb, "reviews", fn)))
    case = fn[:-5]
    for f in r["findings"]:
        item = "i" + hashlib.sha256((runb + case + f["id"]).encode()).hexdigest()[:8]
        newkey[item] = {"case": case, "run": nb, "finding": f["id"], "status": f["status"], "filter_reason": f.get("filter_reason", ""), "lenses": f.get("lenses", [])}
        l = bya.get((case, f["id"], f["title"], f["body"]))
        if l:
            newlab.append(dict(l, item=item, why="carried from " + l["item"] + ": " + l.get("why", "")))
        else:
            left.append((item, case, f))
json.dump(newkey, open(outkey, "w"), indent=1, sort_keys=True)
with open(outlab, "w") as fh:
    for l in newlab: fh.write(json.dumps(l) + "\n")
with open(todo, "w") as fh:
    for item, case, f in left:
        fh.write("### %s (%s) %s:%s %s\n\n**%s**\n\n%s\n\n" % (item, case, f["path"], f.get("line"), f["severity"], f["title"], f["body"]))
print(len(newlab), "carried,", len(left), "to judge")

#!/usr/bin/env python3
"""Blind the findings of several runs for one judge, and unblind the judges' labels.

usage: judgeprep.py [blind] [--shown] OUT_DIR CASES_DIR RUN_DIR...
       judgeprep.py unblind KEY_JSON LABELS_JSONL [--run NAME]... > council-labels.jsonl

blind: for each case, OUT_DIR/<id>.md lists the case (repository, range, what the commit says)
and every finding any of the runs raised, shown, minor or filtered, shuffled, under an opaque
item id: no run name, no status, no reviewer. --shown leaves out the findings no reader
sees (status filtered): the scores count only the shown ones. OUT_DIR/key.json maps item ids back to
(run, finding id, status, filter reason) and is for tally.py, never for the judge.
The truth (the known bug) is in OUT_DIR/<id>.truth.md, apart, so that the judge labels the
findings on their merits first and only then says which item catches the bug.

unblind: turns the judges' labels ({"item", "label", "truth", "why", ...} per line, items of
KEY_JSON) into the labels `council bench score --labels` reads, one per line, sorted:
{"sample", "finding", "label", "truth", "why"}. Every run's findings are written unless --run
names the runs to keep; a finding two runs share (the same id in the same case) is written
once, and two different labels of it are an error (pick the run with --run).
"""
import hashlib, json, os, random, sys


def blind(out, cases, runs, shown=False):
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
                if shown and f["status"] == "filtered":
                    continue
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


def unblind(args):
    runs = []
    while "--run" in args:
        i = args.index("--run")
        if i + 1 >= len(args):
            sys.exit("unblind: --run needs a run name")
        runs.append(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    key = json.load(open(args[0]))
    out = {}
    for n, line in enumerate(open(args[1]), 1):
        if not line.strip():
            continue
        where = "%s:%d" % (args[1], n)
        try:
            o = json.loads(line)
        except ValueError as e:
            sys.exit("%s: %s" % (where, e))
        k = key.get(o.get("item"))
        if k is None:
            sys.exit("%s: item %r is not in %s" % (where, o.get("item"), args[0]))
        if runs and k["run"] not in runs:
            continue
        label = {"sample": k["case"], "finding": k["finding"], "label": o.get("label"),
                 "truth": sorted(set(o.get("truth") or []))}
        if o.get("why"):
            label["why"] = o["why"]
        pair = (label["sample"], label["finding"])
        if pair in out and (out[pair]["label"], out[pair]["truth"]) != (label["label"], label["truth"]):
            sys.exit("%s: finding %s of %s is labelled otherwise for another run: pick one with --run" % (where, pair[1], pair[0]))
        out.setdefault(pair, label)
    for pair in sorted(out):
        print(json.dumps(out[pair], ensure_ascii=False))


def main():
    args = sys.argv[1:]
    if args and args[0] == "unblind":
        unblind(args[1:])
    elif args:
        if args[0] == "blind":
            args = args[1:]
        shown = "--shown" in args
        args = [a for a in args if a != "--shown"]
        if len(args) < 3:
            sys.exit(__doc__)
        blind(args[0], args[1], args[2:], shown)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()

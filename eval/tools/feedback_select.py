#!/usr/bin/env python3
"""Write the issue 19 dataset (eval/feedback/) from imports of the mirrors and the hand review.

usage: feedback_select.py IMPORTS_DIR REVIEW_TSV OUT_DIR

IMPORTS_DIR holds one dataset per repository, as `council bench import --git` wrote them
(IMPORTS_DIR/<repo>/<id>.json). REVIEW_TSV is the hand review (eval/feedback-review.tsv): a
sample is kept when its verdict is KEEP and it is not in SUSPECT (the review could not tell a
person's review from an AI's). Each kept sample is written without repo.path, so that
`bench run --cache` finds it through repo.name (eval/prepare.sh).
"""
import csv, glob, json, os, sys

# Kept by the review, but the reviewer may have been an AI: left out of the set.
SUSPECT = {"projectcalico-calico-12021", "containerd-containerd-13202", "prometheus-prometheus-19249"}


def main():
    imports, review, out = sys.argv[1], sys.argv[2], sys.argv[3]
    samples = {}
    for p in glob.glob(os.path.join(imports, "*", "*.json")):
        if os.path.basename(p) != "import.json":
            samples[os.path.basename(p)[:-5]] = p
    os.makedirs(out, exist_ok=True)
    kept, missing = 0, []
    for row in csv.DictReader(open(review), delimiter="\t"):
        sid = os.path.basename(row["file"])[:-5]
        if row["verdict"] != "KEEP" or sid in SUSPECT:
            continue
        if sid not in samples:
            missing.append(sid)
            continue
        s = json.load(open(samples[sid]))
        s["repo"].pop("path", None)
        with open(os.path.join(out, sid + ".json"), "w") as f:
            json.dump(s, f, indent=2, ensure_ascii=False)
            f.write("\n")
        kept += 1
    print("%d samples written to %s; reviewed KEEP but no longer imported: %s" % (kept, out, ", ".join(missing) or "none"))


if __name__ == "__main__":
    main()

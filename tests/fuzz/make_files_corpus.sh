#!/usr/bin/env bash
# Makes corpus/files/ for fuzz_files.c: a real submission (`warpbench
# submit`, with an answer, a design answer, a give-up and a lab run) and a
# real feedback file (`class feedback` after a review), each crafted case of
# issue 25 made from them (tests/e2e/untrusted_cases.sh, the cases
# test_untrusted.sh imports), and feedback files with a NULL answer digest
# and a recursive view. Every file is rewritten with 512-byte pages (VACUUM),
# which keeps what it holds and makes it small for the corpus and the
# fuzzer. Usage: tests/fuzz/make_files_corpus.sh build/warpbench
set -u
WB=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$(dirname "$0")/../.." && pwd)
OUT="$SRC/tests/fuzz/corpus/files"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "make_files_corpus: $*" >&2; exit 1; }
P="$SRC/tests/data/packs/class"
wbs() { "$WB" --db "$T/alice.db" --user alice "$@" >/dev/null 2>&1 || fail "alice: $*"; }
wbt() { "$WB" --db "$T/prof.db" --user prof "$@" >/dev/null 2>&1 || fail "prof: $*"; }
wbs pack import "$P"
wbs answer test.class:speedup 2.5
wbs answer test.class:design "We shard the keys across servers and go async."
wbs giveup test.class:variant
wbs lab run selftest --set workers=2 --set steps=4 --set interval_ms=0
wbs answer test.class:worker_total 30
wbs submit --out "$T/base.wbsub" --student-id s001
. "$SRC/tests/e2e/untrusted_cases.sh"
craft_cases
wbt pack import "$P"
wbt class --class "$T/class.db" import "$T/base.wbsub"
A=$(sqlite3 "$T/class.db" "SELECT src_id FROM attempts WHERE question_id = 'design'")
wbt class --class "$T/class.db" review set "$A" --concept sharding=1 --concept asynchrony=1 --comment Good.
wbt class --class "$T/class.db" feedback --out "$T/fb"
cp "$T/fb/s001.wbfb" "$T/feedback.wbsub"
cp "$T/fb/s001.wbfb" "$T/fb_null_sha.wbsub"
sqlite3 "$T/fb_null_sha.wbsub" "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = replace(sql, 'answer_sha TEXT NOT NULL', 'answer_sha TEXT') WHERE name = 'reviews'"
sqlite3 "$T/fb_null_sha.wbsub" "UPDATE reviews SET answer_sha = NULL"
cp "$T/fb/s001.wbfb" "$T/fb_view.wbsub"
sqlite3 "$T/fb_view.wbsub" "ALTER TABLE reviews RENAME TO r0; CREATE VIEW reviews AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT r0.* FROM r0, r"
mkdir -p "$OUT"
rm -f "$OUT"/*
for f in "$T"/*.wbsub; do
  n=$(basename "$f" .wbsub)
  sqlite3 "$f" "PRAGMA page_size = 512; VACUUM" || fail "vacuum $n"
  cp "$f" "$OUT/$n"
done
echo "$(ls "$OUT" | wc -l) files in $OUT ($(du -sh "$OUT" | cut -f1))"

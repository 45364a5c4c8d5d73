#!/usr/bin/env bash
# The store itself: a non-regular file is refused as a store (/dev/null, a
# directory, a FIFO: exit 2, nothing created beside them); a store opened
# after an unclean close is checked (PRAGMA quick_check), and one with a
# damaged page where nothing reads (old lab samples) is opened read-only:
# `answer` is refused (exit 6, nothing written) and the recovery command it
# prints really copies what the store holds into a new, working store.
. "$(dirname "$0")/lib.sh"

# ---- not a store file ------------------------------------------------------------
mkfifo "$T/fifo"
for bad in /dev/null "$T" "$T/fifo"; do
  OUT=$(timeout 20 "$WB" --db "$bad" lessons 2>"$T/stderr"); RC=$?; ERR=$(cat "$T/stderr")
  expect_rc 2 "--db $bad"
  expect_err "not a store file" "says why for $bad"
done
[ ! -e /dev/null-journal ] && [ ! -e "$T/fifo-journal" ] && [ -p "$T/fifo" ] && ok ||
  fail "a file was made beside a refused store"

# ---- a damaged page nobody reads ---------------------------------------------------
run lab run selftest --set steps=3000 --set interval_ms=0
expect_rc 0 "a run with many samples"
page=$(sql "SELECT pageno FROM dbstat WHERE name = 'lab_samples' AND pagetype = 'leaf' ORDER BY pageno LIMIT 1 OFFSET 3")
[ -n "$page" ] && ok || fail "found a leaf page of lab_samples"
size=$(sql "PRAGMA page_size")
printf '\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377' |
  dd of="$DB" bs=1 seek=$(((page - 1) * size)) conv=notrunc 2>/dev/null

# nothing checks a store closed cleanly: answering still works
run --json answer warpbench.core:amdahl.speedup-worked 2.5
expect_rc 0 "an answer to a store closed cleanly (the damage is not looked for)"

# an unclean close: a lab run killed outright leaves the write-ahead log
# (nothing may open the store cleanly after it: that would end the log)
attempts=$(sql "SELECT COUNT(*) FROM attempts")
"$WB" --db "$DB" lab run selftest --set steps=100000 --set interval_ms=20 >/dev/null 2>"$T/run.err" &
pid=$!
# Watch its progress line, not the store: a sqlite3 reading the store at
# the moment the run opens it would make a -wal the run takes for an
# unclean close, and the run would check the store and find the damage now.
running=0
for _ in $(seq 600); do # up to a minute on a loaded machine
  grep -q "step [0-9]* of 100000" "$T/run.err" 2>/dev/null && running=1 && break
  sleep 0.1
done
[ "$running" = 1 ] && ok || fail "the lab run never started: $(cat "$T/run.err")"
sleep 0.3
kill -9 "$pid"
wait "$pid" 2>/dev/null
[ -e "$DB-wal" ] && ok || fail "the killed run left the write-ahead log"

run --json answer warpbench.core:amdahl.speedup-worked 2.5
expect_rc 6 "an answer to a damaged store is refused"
expect_err "is damaged" "says the store is damaged"
expect_err "not written to" "says nothing is written"
expect_sql "SELECT COUNT(*) FROM attempts" "$attempts" "no attempt was written"
run lessons
expect_rc 0 "what can be read is still shown"
expect_err "is damaged" "every open says so again"

# the printed command recovers what the store holds
cmd=$(grep -A1 "Copy what it still holds" <<<"$ERR" | tail -n 1 | sed 's/^ *//')
[ -n "$cmd" ] && ok || fail "a recovery command is printed: $ERR"
bash -c "$cmd" 2>"$T/recover.err"
[ -f "$DB.recovered" ] && ok || fail "the command made $DB.recovered ($(cat "$T/recover.err"))"
OUT=$("$WB" --db "$DB.recovered" --json lessons 2>"$T/stderr"); RC=$?; ERR=$(cat "$T/stderr")
expect_rc 0 "the recovered store opens"
grep -q "damaged" <<<"$ERR" && fail "the recovered store is whole: $ERR" || ok
expect_jq '[.packs[].id] | index("warpbench.core") != null' true "with the course"
[ "$(sqlite3 "$DB.recovered" "SELECT COUNT(*) FROM attempts")" = "$attempts" ] && ok ||
  fail "with every attempt"
[ "$(sqlite3 "$DB.recovered" "PRAGMA quick_check")" = ok ] && ok || fail "and whole"
OUT=$("$WB" --db "$DB.recovered" --json answer warpbench.core:amdahl.speedup-worked 2.5 2>"$T/stderr")
RC=$?; ERR=$(cat "$T/stderr")
expect_rc 0 "answers are recorded in the recovered store"
finish

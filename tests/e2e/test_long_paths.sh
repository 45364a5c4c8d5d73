#!/usr/bin/env bash
# Error messages keep their reason whatever the length of the paths in them.
# Commands that fail on a file 200 characters below the test's folder (a
# student's ~/courses/.../week-03/... folder) print the path whole and the
# reason whole; on a file 2,500 characters deep (past what a message holds)
# the path is shortened in the middle ("/…/" and its last part) and the reason
# is still whole. Each message is one line. (The store stays at the test's
# folder: SQLite opens no path longer than 512 bytes, and says so, as the
# last check shows.)
. "$(dirname "$0")/lib.sh"

# deep_dir CHARS: a folder at least CHARS characters below $T, made.
deep_dir() {
  local d=$T/courses i=1
  while [ $((${#d} - ${#T})) -lt "$1" ]; do
    d="$d/week-$i-mapreduce-kmeans-and-parameter-servers-with-a-long-folder-name"
    i=$((i + 1))
  done
  mkdir -p "$d" && echo "$d"
}

# expect_reason WHAT PATH-END REASON: the line of stderr that holds PATH-END
# (the path's last part, right before the reason's text) ends with REASON.
expect_reason() {
  local line
  line=$(grep -F -- "$2" <<<"$ERR" | head -n 1)
  [ -n "$line" ] || line=$(grep '^warpbench: ' <<<"$ERR" | tail -n 1)
  case $line in
    *"$3") ok ;;
    *) fail "$1: the reason is not whole: '$3' missing at the end of: $line" ;;
  esac
  grep -qF -- "$2" <<<"$line" && ok || fail "$1: the path's end '$2' missing: $line"
}

for depth in 200 2500; do
  D=$(deep_dir "$depth")
  [ -d "$D" ] && ok || fail "a folder $depth characters deep"
  head -c 4096 /dev/zero >"$D/pts.f32"
  echo "x1,x2" >"$D/existing.csv"
  mkdir -p "$D/export" && : >"$D/export/pack.lua"
  echo "not a store" >"$D/bad.db"

  run lab run kmeans --set file="$D/pts.f32"
  expect_rc 2 "raw float32 ($depth)"
  expect_reason "raw float32 ($depth)" "/pts.f32' is raw float32" \
    "is raw float32, which does not say its dimension: set d (--set d=N)"

  run lab run kmeans --set n=100 --set k=2 --set d=2 --set save="$D/existing.csv"
  expect_reason "save= an existing file ($depth)" "/existing.csv already exists" \
    "already exists: not replaced (set overwrite=on to replace it)"

  run lab run kmeans --set file="$D/missing.csv"
  expect_reason "a missing points file ($depth)" "/missing.csv'" ": No such file or directory"

  run pack check "$D/nopack"
  expect_reason "pack check of a missing folder ($depth)" "/nopack" ": No such file or directory"

  run pack export warpbench.core "$D/export"
  expect_reason "pack export over a file ($depth)" "/export/pack.lua already exists" \
    "already exists: not replaced (pass --force to replace it)"

  OUT=$("$WB" --db "$D/bad.db" lessons 2>"$T/stderr"); RC=$?
  ERR=$(cat "$T/stderr")
  if [ "$depth" -lt 300 ]; then
    expect_reason "a file that is not a store ($depth)" "/bad.db is not a Warpbench store" \
      "is not a Warpbench store: file is not a database"
  else
    expect_reason "a store path longer than SQLite opens ($depth)" "/bad.db: unable" \
      ": unable to open database file"
  fi

  if [ "$depth" -gt 1000 ]; then
    # past what a message holds: the paths were shortened, in the middle
    grep -qF "/…/" <<<"$ERR" && ok || fail "the deep path is shortened with /…/: $ERR"
    [ "$(head -n 1 <<<"$ERR" | wc -c)" -lt 1100 ] && ok || fail "the message fits: $ERR"
  else
    grep -qF "$D/bad.db" <<<"$ERR" && ok || fail "a 200-character path is whole: $ERR"
  fi
done
finish

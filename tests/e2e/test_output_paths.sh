#!/usr/bin/env bash
# Every path Warpbench writes because a user named it (kmeans `save=`, `pack
# export DIR`) is created new: an existing file, a symbolic link (dangling or
# not) and a FIFO are refused before the lab starts (exit 7, the
# path named, nothing recorded) and left exactly as they were; a missing
# directory is a usage error (exit 2). `overwrite=on` (labs) and `--force`
# (pack export) replace an existing regular file, and still never a link or
# a FIFO. (Devices are refused like FIFOs; tests/test_core.c checks /dev/null
# without writing, since a failing test here must not replace a real device.)
. "$(dirname "$0")/lib.sh"

KM=(lab run kmeans --set n=200 --set k=2 --set d=2 --set tasks=2 --set workers=1
  --set max_iter=3 --set scale_iters=0)
run init
expect_rc 0 "init"

runs() { sql 'SELECT COUNT(*) FROM lab_runs'; }

# ---- refused, left untouched --------------------------------------------------
printf 'precious\n' >"$T/existing.csv"
run "${KM[@]}" --set save="$T/existing.csv"
expect_rc 7 "an existing file"
expect_err "$T/existing.csv" "the path is named"
expect_err "already exists" "says why"
expect_err "overwrite=on" "says how to replace it"
[ "$(cat "$T/existing.csv")" = precious ] && ok || fail "the existing file was changed"

printf 'target\n' >"$T/target.txt"
ln -s "$T/target.txt" "$T/link.csv"
run "${KM[@]}" --set save="$T/link.csv"
expect_rc 7 "a symbolic link"
expect_err "$T/link.csv" "the link is named"
expect_err "symbolic link" "says it is a link"
[ -L "$T/link.csv" ] && [ "$(readlink "$T/link.csv")" = "$T/target.txt" ] && ok ||
  fail "the link was replaced"
[ "$(cat "$T/target.txt")" = target ] && ok || fail "the link's target was changed"

ln -s "$T/nothere.csv" "$T/dangling.csv"
run "${KM[@]}" --set save="$T/dangling.csv"
expect_rc 7 "a dangling symbolic link"
[ -L "$T/dangling.csv" ] && [ ! -e "$T/nothere.csv" ] && ok ||
  fail "the dangling link was followed or replaced"

mkfifo "$T/fifo.csv"
run "${KM[@]}" --set save="$T/fifo.csv"
expect_rc 7 "a FIFO"
expect_err "$T/fifo.csv" "the FIFO is named"
expect_err "not a regular file" "says it is not a file"
[ -p "$T/fifo.csv" ] && ok || fail "the FIFO was replaced"

run "${KM[@]}" --set save="$T/nodir/c.csv"
expect_rc 2 "a missing directory"
expect_err "$T/nodir" "the directory is named"
expect_err "does not exist" "says it is missing"
[ ! -e "$T/nodir" ] && ok || fail "the missing directory was created"

# the same refusals with overwrite=on: only a regular file may be replaced
run "${KM[@]}" --set save="$T/link.csv" --set overwrite=on
expect_rc 7 "a symbolic link with overwrite=on"
[ -L "$T/link.csv" ] && [ "$(cat "$T/target.txt")" = target ] && ok ||
  fail "overwrite=on replaced or followed the link"
run "${KM[@]}" --set save="$T/fifo.csv" --set overwrite=on
expect_rc 7 "a FIFO with overwrite=on"
[ -p "$T/fifo.csv" ] && ok || fail "overwrite=on replaced the FIFO"

[ "$(runs)" = 0 ] && ok || fail "refused runs are not recorded ($(runs) runs)"

# ---- written ------------------------------------------------------------------
run "${KM[@]}" --set save="$T/new.csv"
expect_rc 0 "a new file"
[ -f "$T/new.csv" ] && [ ! -L "$T/new.csv" ] && head -n 1 "$T/new.csv" | grep -qx 'x1,x2' && ok ||
  fail "the new file holds the centres: $(cat "$T/new.csv" 2>&1)"
[ "$(find "$T" -maxdepth 1 -name '.new.csv*' | wc -l)" = 0 ] && ok || fail "a temporary file is left"

run "${KM[@]}" --set save="$T/existing.csv" --set overwrite=on
expect_rc 0 "overwrite=on replaces a regular file"
head -n 1 "$T/existing.csv" | grep -qx 'x1,x2' && ok ||
  fail "the file was replaced by the centres: $(cat "$T/existing.csv")"

# ---- pack export ----------------------------------------------------------------
mkdir "$T/export"
printf 'mine\n' >"$T/export/pack.lua"
run pack export warpbench.core "$T/export"
expect_rc 7 "export over an existing file"
expect_err "$T/export/pack.lua" "the file is named"
expect_err "--force" "says how to replace it"
[ "$(cat "$T/export/pack.lua")" = mine ] && ok || fail "export changed an existing file"
[ "$(ls "$T/export")" = pack.lua ] && ok || fail "export wrote files before refusing"

ln -s "$T/target.txt" "$T/export/amdahl.lua"
run pack export warpbench.core "$T/export" --force
expect_rc 7 "export --force over a symbolic link"
[ -L "$T/export/amdahl.lua" ] && [ "$(cat "$T/target.txt")" = target ] && ok ||
  fail "export --force followed or replaced a link"
[ "$(cat "$T/export/pack.lua")" = mine ] && ok || fail "export --force wrote before refusing"
rm "$T/export/amdahl.lua"

run pack export warpbench.core "$T/export" --force
expect_rc 0 "export --force over regular files"
grep -q 'pack' "$T/export/pack.lua" && ! grep -qx mine "$T/export/pack.lua" && ok ||
  fail "export --force replaced pack.lua"

run pack export warpbench.core "$T/export2"
expect_rc 0 "export into a new folder"
diff -r "$T/export" "$T/export2" >/dev/null && ok || fail "both exports hold the same files"

finish

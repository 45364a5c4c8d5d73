#!/usr/bin/env bash
# A real full disk: the store on a small tmpfs, mounted in a private mount
# namespace (so nothing outlives the test). Needs root (mount); skipped with
# exit 77 otherwise — tests/e2e/test_disk_full.sh covers the same with a
# file size limit, unprivileged.
#  - The disk fills up during a lab run: the run is closed as failed with
#    "disk full" at once (the space set aside when it began is given back
#    for that closing write), exit 6, and "N samples recorded" is what the
#    store holds.
#  - The disk is completely full: a read-only command says "disk full", not
#    "disk I/O error".
#  - A disk too full to set the space aside: the lab is refused before it
#    runs, saying so.
if [ -z "${WB_IN_NS:-}" ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "skipped: mounting a small tmpfs needs root (test_disk_full.sh runs unprivileged)"
    exit 77
  fi
  if ! unshare -m --propagation private true 2>/dev/null; then
    echo "skipped: cannot make a private mount namespace here (unshare -m)"
    exit 77
  fi
  WB_IN_NS=1 exec unshare -m --propagation private bash "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"

FS="$T/fs"
mkdir "$FS"
if ! mount -t tmpfs -o size=4m tmpfs "$FS"; then
  echo "skipped: cannot mount a tmpfs here"
  exit 77
fi
DB="$FS/store.db"
run init
expect_rc 0 "init on the tmpfs"

# fill the disk, then give back 400 KiB: room for the run's reserve (256 KiB)
# and a little more, not for a long run's samples
dd if=/dev/zero of="$FS/fill" bs=64k 2>/dev/null
size=$(stat -c %s "$FS/fill")
truncate -s $((size - 400 * 1024)) "$FS/fill"
run lab run selftest --set steps=200000 --set interval_ms=0
expect_rc 6 "the disk fills up during the run"
expect_err "disk full" "says so"
recorded=$(sed -n 's/.* \([0-9][0-9]*\) samples recorded (of \([0-9][0-9]*\) measured).*/\1/p' <<<"$OUT")
rm "$FS/fill" # room for sqlite3 to read
expect_sql "SELECT status, error LIKE '%disk full%' FROM lab_runs" "failed|1" \
  "closed as failed with the reason, not left running"
expect_sql "SELECT COUNT(*) FROM lab_samples" "${recorded:-none}" "N samples recorded is what is stored"
[ "$(find "$FS" -name 'store.db-run*' | wc -l)" = 0 ] && ok || fail "the run's side file is left"

# completely full: not even the write-ahead log's index can be made
dd if=/dev/zero of="$FS/fill" bs=4k 2>/dev/null
run lessons
expect_rc 6 "lessons on a full disk"
expect_err "disk full" "says disk full"
grep -q "disk I/O error" <<<"$ERR" && ! grep -q "disk full" <<<"$ERR" &&
  fail "only 'disk I/O error': $ERR" || ok

# room for the store to open, not for the reserve: refused before running
rm "$FS/fill"
run lessons
expect_rc 0 "the store opens again"
dd if=/dev/zero of="$FS/fill" bs=64k 2>/dev/null
size=$(stat -c %s "$FS/fill")
truncate -s $((size - 160 * 1024)) "$FS/fill"
run lab run selftest --set steps=10 --set interval_ms=0
expect_rc 6 "too full to set space aside"
expect_err "cannot set aside 256 KiB" "says why"
rm "$FS/fill"
expect_sql "SELECT COUNT(*) FROM lab_runs WHERE status = 'running'" 0 "no run left running"

umount "$FS"
finish

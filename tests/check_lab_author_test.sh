#!/usr/bin/env bash
# The lab authors' header (labs/lab_author.h) is out of the front ends'
# reach: a file compiled as cli/ and tui/ are (linking wb_labs, without
# WB_LAB_AUTHOR) that includes it does not compile — the header is not on
# their include path (cmake/headers.cmake: labs/ exports lab.h only), and
# were it reached, its #error says why; the same file compiled as labs/
# compiles it (WB_LAB_AUTHOR, and labs/'s own headers on the path) does.
set -u
bin=${WB_BINARY_DIR:?}
out=$(cmake --build "$bin" --target planted_front_author 2>&1); rc=$?
fail=0
[ "$rc" -ne 0 ] || { echo "FAIL: a front end's file that includes labs/lab_author.h compiled"; fail=1; }
grep -qE "labs/lab_author.h: No such file or directory|labs/lab_author.h is for labs/ and its tests only; front ends use labs/lab.h" <<<"$out" ||
  { echo "FAIL: the build did not say why:"; echo "$out" | tail -20; fail=1; }
out=$(cmake --build "$bin" --target planted_lab_author 2>&1) ||
  { echo "FAIL: the same file as labs/ compiles it did not build:"; echo "$out" | tail -20; fail=1; }
[ "$fail" -eq 0 ] && echo "lab_author.h private to labs/: ok"
exit "$fail"

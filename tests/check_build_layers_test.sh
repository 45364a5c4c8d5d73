#!/usr/bin/env bash
# The build refuses what the layering forbids (tests/build_layers.cmake):
# each planted file fails to build, for the reason planted; the control
# builds, so the failures are the layering's and not a broken setup.
set -u
bin=${WB_BINARY_DIR:?}
fail=0
refused() { # target, what the build must say, what was planted
  local out rc
  out=$(cmake --build "$bin" --target "planted_$1" 2>&1); rc=$?
  if [ "$rc" -eq 0 ]; then
    echo "FAIL: $3 built"
    fail=1
  elif ! grep -qF -- "$2" <<<"$out"; then
    echo "FAIL: $3 failed, but not saying '$2':"
    echo "$out" | tail -15
    fail=1
  fi
}
refused db_up "lessons/lesson.h: No such file or directory" "db/ including lessons/lesson.h (upward)"
refused lessons_inner "db/db_internal.h: No such file or directory" \
  "lessons/ including db/db_internal.h (another module's private header)"
refused pure_up "grader/runtime/grader_runtime.h: No such file or directory" \
  "grader/pure/ including the runtime's header (a layer up)"
refused runtime_up "grader/grader_lua_internal.h: No such file or directory" \
  "grader/runtime/ including the grading layer's header (a layer up)"
refused pure_calls_up "undefined reference to \`grader_sb_free'" \
  "grader/pure/ calling the runtime (a layer up), linked alone"
out=$(cmake --build "$bin" --target planted_db_fine 2>&1) ||
  { echo "FAIL: the control (db/ including core.h and its own header) did not build:"; echo "$out" | tail -15; fail=1; }
[ "$fail" -eq 0 ] && echo "build layers: ok"
exit "$fail"

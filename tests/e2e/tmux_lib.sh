# Shared helpers for the end-to-end tests that drive the real terminal UI in
# tmux (test_tui*.sh). Source lib.sh first, then this. Without tmux the test
# fails (scripts/setup.sh installs it): a skipped TUI test must not pass as
# green. Every session runs on a private tmux server that the
# EXIT trap kills along with the temporary store.
#
# Every wait polls the screen against a deadline; nothing sleeps a fixed time
# to let the program catch up.

if ! command -v tmux >/dev/null; then
  echo "FAIL: tmux is not installed; the TUI end-to-end test needs it (scripts/setup.sh installs it)" >&2
  exit 1
fi

SOCK="wb$(basename "$0" .sh)$$"
TM() { tmux -L "$SOCK" -f /dev/null "$@"; }
trap 'TM kill-server 2>/dev/null; rm -rf "$T"' EXIT

# The pane runs the TUI, then prints its exit status and whether the
# terminal was given back in its normal (canonical, echoing) mode.
cat >"$T/pane.sh" <<'EOF'
"$@"
rc=$?
echo "[exit $rc]"
if stty -a | grep -qE -- '(^| )-(icanon|echo)( |;|$)'; then echo "[tty raw]"; else echo "[tty sane]"; fi
sleep 60
EOF
# start NAME ENV...: the TUI in an 80×24 window. LINES and COLUMNS, which
# curses would take over the window's size, are not passed on from whoever
# runs the test: the test sets the size it checks against.
start() {
  local name=$1; shift
  TM new-session -d -x 80 -y 24 -s "$name" \
    "bash '$T/pane.sh' env -u LINES -u COLUMNS $* WARPBENCH_USER=alice '$WB' --db '$DB' tui"
}
cap() { TM capture-pane -p -t "$1"; }
keys() { local s=$1; shift; TM send-keys -t "$s" "$@"; }
text() { TM send-keys -t "$1" -l "$2"; }
# wait_grep NAME GREP-FLAG PATTERN [SECONDS]: polls the pane (60 s unless told:
# a loaded machine under the sanitizers is slow to draw) until
# `grep GREP-FLAG PATTERN` finds its text (-F: fixed text, -E: a regex).
wait_grep() {
  local end=$((SECONDS + ${4:-60}))
  while [ "$SECONDS" -lt "$end" ]; do
    cap "$1" | grep -q "$2" -- "$3" && return 0
    sleep 0.05
  done
  return 1
}
# wait_for NAME TEXT [SECONDS]: polls the pane until it shows TEXT.
wait_for() { wait_grep "$1" -F "$2" "${3:-60}"; }
# wait_re NAME REGEX [SECONDS]: the same for an extended regular expression.
wait_re() { wait_grep "$1" -E "$2" "${3:-60}"; }
# expect_screen NAME TEXT WHAT [SECONDS]: a check that the pane shows TEXT.
expect_screen() {
  if wait_for "$1" "$2" "${4:-60}"; then ok; else
    fail "$3: the screen lacks '$2':"$'\n'"$(cap "$1")"
  fi
}
# expect_re NAME REGEX WHAT [SECONDS]: a check that the pane matches REGEX.
expect_re() {
  if wait_re "$1" "$2" "${4:-60}"; then ok; else
    fail "$3: the screen does not match /$2/:"$'\n'"$(cap "$1")"
  fi
}
# expect_exit NAME STATUS WHAT: the TUI ended with STATUS and a sane tty.
expect_exit() {
  expect_screen "$1" "[exit $2]" "$3"
  expect_screen "$1" "[tty sane]" "$3: terminal restored"
}
# The warpbench process of a session (the pane runs sh -c, warpbench below).
wb_pid() { pgrep -P "$(TM list-panes -t "$1" -F '#{pane_pid}')" -f "$WB" | head -1; }

# open_lab_form NAME LAB LIST_TEXT FORM_TEXT: from home, the lab list (which
# shows LIST_TEXT), then LAB selected and its form opened (which shows
# FORM_TEXT).
open_lab_form() {
  keys "$1" l
  expect_screen "$1" "$3" "lab list"
  for _ in $(seq 20); do
    cap "$1" | grep -qE "(▶|>) $2( |$)" && break # ">" under LANG=C
    keys "$1" Down
    sleep 0.05
  done
  keys "$1" Enter
  expect_screen "$1" "$4" "$2 form"
}

# open_selftest_form NAME: from home, the lab list, then the `selftest`
# lab's form.
open_selftest_form() { open_lab_form "$1" selftest "Framework self-test" interval_ms; }

# set_field NAME PARAM VALUE: moves down (then up) the lab form to parameter
# PARAM and types VALUE; checks that the row shows it (UTF-8 or ASCII).
set_field() {
  local found=no k
  for k in $(seq 30 | sed 's/.*/Down/') $(seq 30 | sed 's/.*/Up/'); do
    if cap "$1" | grep -qE "(▶|>) $2 +"; then found=yes; break; fi
    keys "$1" "$k"
    sleep 0.05
  done
  if [ "$found" != yes ]; then fail "no parameter row '$2' in the form: $(cap "$1")"; return; fi
  keys "$1" Enter C-u
  text "$1" "$3"
  keys "$1" Enter
  expect_re "$1" "(▶|>) $2 +$3( |$)" "$2 set to $3"
}

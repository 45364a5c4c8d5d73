#!/usr/bin/env bash
# Per-student variants: the same user sees the same numbers every time, other
# users and other variants see other numbers, and grading follows them.
. "$(dirname "$0")/lib.sh"
run pack import "$PACKS/e2e"
expect_rc 0 "import"

run --json question test.e2e:variant
expect_rc 0 "question"
p1=$(jqv .prompt)
run --json question test.e2e:variant
[ "$(jqv .prompt)" = "$p1" ] && ok || fail "same user, same variant, same prompt"
grep -q '{' <<<"$p1" && fail "placeholders left in prompt: $p1" || ok

# Find a user whose numbers differ (the draw is random, but 4x15 outcomes).
differ=0
for u in bob carol dave erin frank; do
  q=$("$WB" --db "$DB" --user "$u" --json question variant 2>/dev/null | jq -r .prompt)
  [ "$q" != "$p1" ] && differ=1
done
[ "$differ" -eq 1 ] && ok || fail "other users get other numbers"

# Grade alice's own variant with the reference computed from her prompt.
f=$(sed -E 's/.* ([0-9.]+)% serial.*/\1/' <<<"$p1")
p=$(sed -E 's/.* on ([0-9]+) processors.*/\1/' <<<"$p1")
ans=$(awk -v f="$f" -v p="$p" 'BEGIN { f /= 100; printf "%.6f", 1 / (f + (1 - f) / p) }')
run --json answer variant "$ans"
expect_rc 0 "own variant's answer is right ($p1 -> $ans)"
run --json answer variant "$ans" --variant 7
v7=$("$WB" --db "$DB" --json question variant --variant 7 2>/dev/null | jq -r .prompt)
if [ "$v7" = "$p1" ]; then ok; else
  [ "$RC" -ne 0 ] && ok || fail "variant 7 has other numbers but accepted variant 1's answer"
fi
finish
